#!/usr/bin/env bash
# labels: e2e
# One cache, many checkouts: three concurrent warm-ups (two checkouts at other
# paths and one more run of the first) compile each unit exactly once and all
# succeed with identical callables; a later checkout at a new path compiles
# nothing.
. "$(dirname "$0")/lib.sh"

for c in one two three; do standin_example qwen3_decode "$c"; done
export STANDIN_SCALE=0.02
cd "$T"
for c in one two three; do
	"$KWARM" gen "$c/spec.yaml" -o "$c.mk" --cache "$T/cache" --out "$T/out-$c"
done
pids=()
make -f one.mk -j3 warmup > one.log 2>&1 & pids+=($!)
make -f two.mk -j3 warmup > two.log 2>&1 & pids+=($!)
make -f three.mk -j3 warmup > three.log 2>&1 & pids+=($!)
for p in "${pids[@]}"; do wait "$p" || { cat one.log two.log three.log; fail "a concurrent warm-up failed"; }; done
[ "$(compiles)" = 39 ] || fail "three concurrent warm-ups ran $(compiles) compiles, want 39"
dups=$(grep '^start' "$STANDIN_LOG" | awk '{print $4, $0}' | sort | awk '{print $1}' | uniq -c | awk '$1 > 2')
[ -z "$dups" ] || fail "a source compiled more than twice: $dups"
for c in two three; do
	cmp "out-one/TestQwen3Decode.callable" "out-$c/TestQwen3Decode.callable"
	cmp "out-one/TestQwen3DecodeGraph.callable" "out-$c/TestQwen3DecodeGraph.callable"
done
pass "three concurrent warm-ups: 39 compiles in all, identical callables"

standin_example qwen3_decode four
: > "$STANDIN_LOG"
"$KWARM" gen four/spec.yaml -o four.mk --cache "$T/cache" --out "$T/out-four"
make -f four.mk -j3 warmup > four.log
[ "$(compiles)" = 0 ] || fail "a checkout at another path compiled $(compiles) units"
cmp out-one/TestQwen3Decode.callable out-four/TestQwen3Decode.callable
grep -q -- "^KW_CMD_$(unit_keys one.mk | head -1) = " four.mk ||
	fail "the same unit has different keys at two paths"
pass "a checkout at another path: same keys, 0 compiles"
