#!/usr/bin/env bash
# labels: e2e
# The qwen example (two classes sharing 37 incores) through the stand-in:
# 39 compiles cold, none warm (fresh out folder), nothing under make -n.
. "$(dirname "$0")/lib.sh"
need python3 python3

standin_example qwen3_decode qwen
cd "$T"
"$KWARM" gen qwen/spec.yaml -o warmup.mk --cache "$T/cache" --out "$T/out"

make -f warmup.mk -n warmup > dry.txt
[ "$(compiles)" = 0 ] || fail "make -n ran $(compiles) compiles"
[ ! -e out ] || fail "make -n wrote the out folder"
grep -q -- "--key" dry.txt || fail "make -n did not show the commands"
pass "make -n warmup runs nothing"

make -f warmup.mk -j8 warmup > cold.txt
[ "$(compiles)" = 39 ] || fail "cold warm-up ran $(compiles) compiles, want 39"
[ -s out/TestQwen3Decode.callable ] && [ -s out/TestQwen3DecodeGraph.callable ] ||
	fail "callables missing"
[ "$(compiles fused_attention)" = 2 ] || fail "fused_attention compiled $(compiles fused_attention) times, want 2 (aic and aiv)"
pass "cold: 39 compiles for 76 unit uses"

mv out out.cold
: > "$STANDIN_LOG"
make -f warmup.mk -j8 warmup > warm.txt
[ "$(compiles)" = 0 ] || fail "warm re-run ran $(compiles) compiles"
cmp out/TestQwen3Decode.callable out.cold/TestQwen3Decode.callable
cmp out/TestQwen3DecodeGraph.callable out.cold/TestQwen3DecodeGraph.callable
pass "warm re-run with a fresh out folder: 0 compiles, same bytes"

out=$(make -f warmup.mk -j8 warmup)
case $out in *"Nothing to be done"*) ;; *) fail "an up-to-date re-run did work: $out" ;; esac
pass "up-to-date re-run starts nothing"

# Both callables carry 37 children; the shared incores are the same bytes.
python3 - out/TestQwen3Decode.callable out/TestQwen3DecodeGraph.callable <<'PY'
import struct, sys
a, b = (open(p, "rb").read() for p in sys.argv[1:])
ca, cb = (struct.unpack_from("<i", x, 9292)[0] for x in (a, b))
assert ca == cb == 37, (ca, cb)
ids = struct.unpack_from("<37i", a, 1100)
assert list(ids) == list(range(37)), ids
def children(x):
    offs = struct.unpack_from("<37I", x, 5196)
    out = []
    for o in offs:
        size = struct.unpack_from("<I", x, 9376 + o + 132)[0]
        out.append(x[9376 + o: 9376 + o + 192 + size])
    return out
assert children(a) == children(b)
PY
pass "both classes share identical children"
