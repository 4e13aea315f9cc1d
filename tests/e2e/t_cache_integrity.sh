#!/usr/bin/env bash
# labels: e2e
# Integrity: a flipped byte or a truncated artifact is never packed; the run
# names the entry and the next run repairs it. A source edited while it
# compiles is not published under the old key. An uncreatable cache folder
# still gives correct callables, with one warning.
. "$(dirname "$0")/lib.sh"

standin_example minimal m
cd "$T"
"$KWARM" gen m/spec.yaml -o m.mk --cache "$T/cache" --out "$T/out"
make -f m.mk -j2 warmup > /dev/null
cp out/TestMinimal.callable good.callable

# Flip one byte of one artifact (the first unit's).
key=$(grep -m1 -o -- '--key [0-9a-f]*' m.mk | cut -d' ' -f2)
art=cache/units/${key:0:2}/$key
python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=1; open(p,'wb').write(b)" "$art"
rm -rf out
if make -f m.mk -j2 warmup > run.out 2> run.err; then fail "a corrupt entry was packed"; fi
[ ! -e out/TestMinimal.callable ] || fail "a callable was published from a corrupt entry"
grep -q "cache entry '.*$key.m' is corrupt: artifact SHA-256 differs from its manifest" run.err ||
	{ cat run.err; fail "the corrupt entry is not named"; }
: > "$STANDIN_LOG"
make -f m.mk -j2 warmup > /dev/null
cmp out/TestMinimal.callable good.callable || fail "the repaired callable differs"
pass "flipped byte: never packed, named, repaired by the next run"

# Truncate it.
: > "$art"
rm -rf out
if make -f m.mk -j2 warmup > run.out 2> run.err; then fail "a truncated entry was packed"; fi
grep -q "is corrupt: artifact size differs from its manifest" run.err || { cat run.err; fail "truncation not named"; }
make -f m.mk -j2 warmup > /dev/null
cmp out/TestMinimal.callable good.callable
pass "truncated artifact: never packed, repaired"

# A manifest that went missing mid-publish (artifact only): recompiled.
rm "cache/units/${key:0:2}/$key.m"
rm -rf out
make -f m.mk -j2 warmup > /dev/null
cmp out/TestMinimal.callable good.callable
pass "half-published entry (no manifest): rebuilt in the same run"

# An uncreatable cache folder (a regular file is in the way).
touch "$T/not-a-folder"
"$KWARM" gen m/spec.yaml -o u.mk --cache "$T/not-a-folder/cache" --out "$T/out-u" 2> gen.err
[ "$(grep -c "warning: cache '$T/not-a-folder/cache' cannot be used" gen.err)" = 1 ] ||
	{ cat gen.err; fail "no single warning about the unusable cache"; }
make -f u.mk -j2 warmup > /dev/null
cmp out-u/TestMinimal.callable good.callable || fail "wrong callable without a usable cache"
pass "uncreatable cache: one warning, correct callables"
