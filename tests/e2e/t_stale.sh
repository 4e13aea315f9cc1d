#!/usr/bin/env bash
# labels: e2e
# kwarm stale, the Makefile's own remake check: nothing while every input is
# as gen saw it; the first input that is newer or gone; the whole Makefile
# when its watch list is missing or damaged (remade, never trusted).
. "$(dirname "$0")/lib.sh"
need g++ g++

cp -r "$KWARM_TEST_SRC/examples/minimal" "$T/minimal"
rm -rf "$T/minimal/.kwarm"
cd "$T"
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
touch -d '1 hour ago' minimal/kernels/aiv/vec_add.cpp minimal/include/kernel.h
[ -z "$("$KWARM" stale a.mk)" ] || fail "a fresh Makefile is called stale"
pass "fresh: nothing printed"

touch minimal/include/kernel.h
[ "$("$KWARM" stale a.mk)" = "$T/minimal/include/kernel.h" ] || fail "an edited header is not named"
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
[ -z "$("$KWARM" stale a.mk)" ] || fail "stale right after gen"
rm minimal/kernels/aiv/vec_add.cpp
[ "$("$KWARM" stale a.mk)" = "$T/minimal/kernels/aiv/vec_add.cpp" ] || fail "a deleted source is not named"
pass "an edited header and a deleted source are named"

cp "$KWARM_TEST_SRC/examples/minimal/kernels/aiv/vec_add.cpp" minimal/kernels/aiv/
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
sed -i 's/^i \(.*spec.yaml\)$/x \1/' a.mk.inputs
out=$("$KWARM" stale a.mk 2> err) && fail "a damaged watch list is accepted"
[ "$out" = "a.mk.inputs" ] || fail "a damaged watch list does not force a remake: '$out'"
grep -q "a bad line in its watch list" err || fail "no error for the damaged list"
rm a.mk.inputs
[ "$("$KWARM" stale a.mk)" = "a.mk" ] || fail "a missing inputs file does not force a remake"
pass "a damaged or missing watch list forces a remake"

# make's own rule, kept: an input changed only when strictly newer than the
# Makefile (an equal time is current); a folder input changes with its
# entries; a unit's entry that appears (built since) is named.
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
touch -r a.mk minimal/include/kernel.h
[ -z "$("$KWARM" stale a.mk)" ] || fail "an input as old as the Makefile is called changed"
touch minimal/include/extra.h
[ "$("$KWARM" stale a.mk)" = "$T/minimal/include" ] || fail "a folder with a new entry is not named"
rm minimal/include/extra.h
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
entry=$(sed -n 's/^a //p' a.mk.inputs | head -n 1)
[ -n "$entry" ] || fail "no entry never built in the watch list"
mkdir -p "$(dirname "$entry")"
touch "$entry"
[ "$("$KWARM" stale a.mk)" = "$entry" ] || fail "an entry that appeared is not named"
pass "an equal time is current; a folder's new entry and an appeared entry are named"
