#!/usr/bin/env bash
# labels: e2e
# Integrity: a flipped byte, a shortened artifact or a truncated entry is never
# packed; the run names the entry and the next run repairs it. A source edited while it
# compiles is not published under the old key. An uncreatable cache folder
# still gives correct callables, with one warning.
. "$(dirname "$0")/lib.sh"

standin_example minimal m
cd "$T"
"$KWARM" gen m/spec.yaml -o m.mk --cache "$T/cache" --out "$T/out"
make -f m.mk -j2 warmup > /dev/null
cp out/TestMinimal.callable good.callable

# An entry is one file: the artifact, then its manifest. Flip the artifact's
# first byte (the first unit's entry).
key=$(grep -m1 -o -- '--key [0-9a-f]*' m.mk | cut -d' ' -f2)
entry=cache/units/${key:0:1}/$key.m
cp "$entry" good.entry
# damage HOW: rewrite the entry (flip: its first byte; cut: drop its artifact's
# first byte; end: drop its last byte, half the length line).
damage() {
	python3 - "$1" "$entry" <<'PY'
import sys
how, p = sys.argv[1:]
b = bytearray(open(p, "rb").read())
if how == "flip":
    b[0] ^= 1
elif how == "cut":
    del b[0]
else:
    del b[-1]
open(p, "wb").write(b)
PY
}
# broken HOW REASON: the damaged entry is never packed, the run names it with
# its reason, and the next run repairs it.
broken() {
	damage "$1"
	rm -rf out
	if make -f m.mk -j2 warmup > run.out 2> run.err; then fail "$1: a corrupt entry was packed"; fi
	[ ! -e out/TestMinimal.callable ] || fail "$1: a callable was published from a corrupt entry"
	grep -q "cache entry '.*$key.m' is corrupt: $2" run.err ||
		{ cat run.err; fail "$1: the corrupt entry is not named with '$2'"; }
	: > "$STANDIN_LOG"
	make -f m.mk -j2 warmup > /dev/null
	[ "$(compiles)" = 1 ] || fail "$1: the repair compiled $(compiles) units, not 1"
	cmp out/TestMinimal.callable good.callable || fail "$1: the repaired callable differs"
	cmp "$entry" good.entry || fail "$1: the repaired entry differs"
}
broken flip "artifact SHA-256 differs from its manifest"
pass "flipped byte: never packed, named, repaired by the next run"
broken cut "artifact size differs from its manifest"
pass "a byte cut from the artifact: never packed, named, repaired"
broken end "no manifest at its end"
pass "truncated entry (manifest cut short): never packed, named, repaired"

# An uncreatable cache folder (a regular file is in the way).
touch "$T/not-a-folder"
"$KWARM" gen m/spec.yaml -o u.mk --cache "$T/not-a-folder/cache" --out "$T/out-u" 2> gen.err
[ "$(grep -c "warning: cache '$T/not-a-folder/cache' cannot be used" gen.err)" = 1 ] ||
	{ cat gen.err; fail "no single warning about the unusable cache"; }
make -f u.mk -j2 warmup > /dev/null
cmp out-u/TestMinimal.callable good.callable || fail "wrong callable without a usable cache"
pass "uncreatable cache: one warning, correct callables"
