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
touch -d '1 hour ago' minimal/kernels/aiv/vec_add.cpp minimal/include/kernel.h
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
[ -z "$("$KWARM" stale a.mk)" ] || fail "a fresh Makefile is called stale"
pass "fresh: nothing printed"

touch minimal/include/kernel.h
[ "$("$KWARM" stale a.mk)" = "$T/minimal/include/kernel.h" ] || fail "an edited header is not named"
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
[ -z "$("$KWARM" stale a.mk)" ] || fail "stale right after gen"
# An input written just before gen, after its time was looked at: Linux
# (6.13 on) then stamps it with the precise clock, later than the coarse
# clock's last tick. Twenty tries: the old rule failed about one in five.
for i in $(seq 20); do
	stat minimal/spec.yaml > /dev/null
	touch minimal/spec.yaml
	"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
	[ -z "$("$KWARM" stale a.mk)" ] || fail "an input written just before gen is newer than the Makefile (try $i)"
done
rm minimal/kernels/aiv/vec_add.cpp
[ "$("$KWARM" stale a.mk)" = "$T/minimal/kernels/aiv/vec_add.cpp" ] || fail "a deleted source is not named"
pass "an edited header and a deleted source are named"

# An input edited, then its time set back before gen's (touch -d, tar, cp -p,
# a clock gone backwards): named still, by the change time the kernel sets.
cp "$KWARM_TEST_SRC/examples/minimal/kernels/aiv/vec_add.cpp" minimal/kernels/aiv/
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
printf '// edited\n' >> minimal/include/kernel.h
touch -d '2 hours ago' minimal/include/kernel.h
[ "$("$KWARM" stale a.mk)" = "$T/minimal/include/kernel.h" ] || fail "an edit with its time set back is not named"
pass "an edit with its time set back is named"

cp "$KWARM_TEST_SRC/examples/minimal/kernels/aiv/vec_add.cpp" minimal/kernels/aiv/
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
sed -i 's/^i \(.*spec.yaml\)$/x \1/' a.mk.inputs
out=$("$KWARM" stale a.mk 2> err) && fail "a damaged watch list is accepted"
[ "$out" = "a.mk.inputs" ] || fail "a damaged watch list does not force a remake: '$out'"
grep -q "a bad line in its watch list" err || fail "no error for the damaged list"
rm a.mk.inputs
[ "$("$KWARM" stale a.mk)" = "a.mk" ] || fail "a missing inputs file does not force a remake"
pass "a damaged or missing watch list forces a remake"

# The Makefile has the time gen started, so an input as new as it may have
# changed after gen read it: it is named; a folder input changes with its
# entries; a unit's entry that appears (built since) is named.
touch before
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
touch after
[ a.mk -nt before ] || fail "the Makefile is not newer than a file made before gen"
[ ! a.mk -nt after ] || fail "the Makefile is newer than a file made after gen"
touch -r a.mk minimal/include/kernel.h
[ "$("$KWARM" stale a.mk)" = "$T/minimal/include/kernel.h" ] ||
	fail "an input as new as the Makefile is not named"
touch -d '1 hour ago' minimal/include/kernel.h
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
touch minimal/include/extra.h
[ "$("$KWARM" stale a.mk)" = "$T/minimal/include" ] || fail "a folder with a new entry is not named"
rm minimal/include/extra.h
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
entry=$(sed -n 's/^a //p' a.mk.inputs | head -n 1)
[ -n "$entry" ] || fail "no entry never built in the watch list"
mkdir -p "$(dirname "$entry")"
touch "$entry"
got=$("$KWARM" stale a.mk); [ "$got" = "$entry" ] || fail "an entry that appeared is not named: $got"
pass "an equal time is named; a folder's new entry and an appeared entry are named"

# The race: a source edited while gen runs (after gen read it, before the
# Makefile is published). With a warm cache the old Makefile's units all
# exist, so only the remake check can notice.
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
make -f a.mk warmup > /dev/null 2>&1 || fail "the first warm-up failed"
cp out/TestMinimal.callable old.callable
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
old_mk=$(cat a.mk)
printf 'int kw_race(int x) { return x * 7 + 3; }\n' >> minimal/kernels/aiv/vec_add.cpp
touch -r a.mk minimal/kernels/aiv/vec_add.cpp
must race.out "the warm-up after the edit failed" make -f a.mk warmup
[ "$(cat a.mk)" != "$old_mk" ] || fail "the Makefile was not remade for a source edited while gen ran"
cmp -s old.callable out/TestMinimal.callable && fail "the callable still holds the old code"
pass "a source edited while gen ran: the Makefile is remade, the new code compiled and packed"

# Convergence: an input written in gen's first tick remakes the Makefile at
# most once; a second run does not remake it again.
touch minimal/include/kernel.h
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
make -f a.mk warmup > /dev/null 2>&1 || fail "the warm-up after a quick gen failed"
mk_time=$(stat -c %y a.mk)
make -f a.mk warmup > /dev/null 2>&1 || fail "the second warm-up failed"
[ "$(stat -c %y a.mk)" = "$mk_time" ] || fail "the second run remade the Makefile again"
[ -z "$("$KWARM" stale a.mk)" ] || fail "stale after the Makefile was remade"
pass "a quick gen converges: the second run does not remake the Makefile"

# A long watch list is checked in two halves at once: the first changed line
# in list order is named whichever half holds it, and a bad line after a
# changed one does not hide the change.
mkdir many
(cd many && seq -f 'f%04g' 6000 | xargs touch)
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
head -n 1 a.mk.inputs > list
seq -f "i $T/many/f%04g" 6000 >> list
cp list a.mk.inputs
[ -z "$("$KWARM" stale a.mk)" ] || fail "a long watch list of old inputs is called stale"
touch many/f5000
[ "$("$KWARM" stale a.mk)" = "$T/many/f5000" ] || fail "a change in the second half is not named"
touch many/f4000
[ "$("$KWARM" stale a.mk)" = "$T/many/f4000" ] || fail "the first of two changes in the second half is not named"
touch many/f0100
[ "$("$KWARM" stale a.mk)" = "$T/many/f0100" ] || fail "a change in the first half is not named first"
echo "x bad" >> a.mk.inputs
[ "$("$KWARM" stale a.mk 2> err)" = "$T/many/f0100" ] || fail "a bad line hides a change before it"
sed -i "/f0100\|f4000\|f5000/d" a.mk.inputs
out=$("$KWARM" stale a.mk 2> err) && fail "a long damaged watch list is accepted"
[ "$out" = "a.mk.inputs" ] && grep -q "a bad line in its watch list" err ||
	fail "a long damaged watch list does not force a remake: '$out'"
grep -v "f0100\|f4000\|f5000" list > a.mk.inputs
echo "a $T/many/sub/entry.m" >> a.mk.inputs
mkdir -p many/sub && touch many/sub/entry.m
[ "$("$KWARM" stale a.mk)" = "$T/many/sub/entry.m" ] || fail "an appeared entry at the end of a long list is not named"
pass "a long watch list: the first change in order is named, a bad line forces a remake"
