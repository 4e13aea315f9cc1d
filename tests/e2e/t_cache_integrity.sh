#!/usr/bin/env bash
# labels: e2e
# Integrity: a corrupt entry is a miss, in the same run. A flipped byte, a
# shortened artifact, a truncated manifest or a manifest of another key: the
# next run succeeds, byte-exact, compiling exactly the corrupt units again,
# with one warning naming each corrupt entry and no error; all entries corrupt
# at once are repaired by one run too. An uncreatable cache folder still gives
# correct callables, with one warning.
. "$(dirname "$0")/lib.sh"
need python3 python3

standin_example minimal m
cd "$T"
"$KWARM" gen m/spec.yaml -o m.mk --cache "$T/cache" --out "$T/out"
make -f m.mk -j2 warmup > /dev/null
cp out/TestMinimal.callable good.callable

# An entry is one file: the artifact, then its manifest.
mapfile -t keys < <(unit_keys m.mk)
[ "${#keys[@]}" -ge 2 ] || fail "the example has fewer than two units"
entry_of() { echo "cache/units/${1:0:1}/$1.m"; }
mkdir good
for k in "${keys[@]}"; do cp "$(entry_of "$k")" "good/$k.m"; done
# damage HOW KEY: ENTRY_DAMAGE's HOW done to the entry of KEY (for "other",
# another unit's good entry is copied over it).
damage() {
	local other=${keys[0]}
	[ "$2" != "$other" ] || other=${keys[1]}
	damage_entry "$1" "$(entry_of "$2")" "good/$other.m"
}
# repaired N: one run after N entries were damaged succeeds with no error,
# compiles exactly N units, warns once per damaged entry, and leaves the
# callable and every entry as the good build had them.
repaired() {
	rm -rf out
	: > "$STANDIN_LOG"
	must run.out "$what: the run failed" make -f m.mk -j2 warmup
	! grep -i error run.out || fail "$what: an error line in a run that succeeded"
	[ "$(compiles)" = "$1" ] || { cat run.out; fail "$what: $(compiles) units compiled, not $1"; }
	[ "$(grep -c 'warning: ' run.out)" = "$1" ] || { cat run.out; fail "$what: not one warning per corrupt entry"; }
	cmp out/TestMinimal.callable good.callable || fail "$what: the callable differs"
	for k in "${keys[@]}"; do cmp "$(entry_of "$k")" "good/$k.m" || fail "$what: entry $k differs"; done
	: > "$STANDIN_LOG"
	must again.out "$what: the run after failed" make -f m.mk -j2 warmup
	[ "$(compiles)" = 0 ] || fail "$what: the run after the repair compiled again"
}
# Each way of ENTRY_DAMAGE in turn, on one entry (the first unit's): a miss,
# repaired by one run that warns with the entry's name and the reason.
for row in "${ENTRY_DAMAGE[@]}"; do
	what=${row%%|*} reason=${row#*|}
	damage "$what" "${keys[0]}"
	repaired 1
	grep -qF "$(entry_of "${keys[0]}")' is corrupt: $reason; compiling " run.out ||
		{ cat run.out; fail "$what: the warning does not name the entry with '$reason'"; }
	pass "$what ($reason): a miss; one run compiles it again, byte-exact, one warning, no error"
done
[ "${#ENTRY_DAMAGE[@]}" = 4 ] || fail "not the four ways of damage"

# Every entry corrupt at once (each kind in turn): one run repairs them all.
what=all
i=0
for k in "${keys[@]}"; do
	row=${ENTRY_DAMAGE[i % ${#ENTRY_DAMAGE[@]}]}
	damage "${row%%|*}" "$k"
	i=$((i + 1))
done
repaired "${#keys[@]}"
for k in "${keys[@]}"; do
	[ "$(grep -c "warning: cache entry '.*$k.m' is corrupt" run.out)" = 1 ] ||
		{ cat run.out; fail "all: entry $k is not named once"; }
done
pass "all ${#keys[@]} entries corrupt: one run repairs every one, byte-exact"

# Two classes share units: their packs, running at once, both find the same
# corrupt entries; each entry is compiled again once, and warned about once.
mkdir s
for f in orch k a b; do printf 'int %s;\n' "$f" > "s/$f.c"; done
standin_spec "$T/s" TestA=k.c,a.c TestB=k.c,b.c
"$KWARM" gen s/spec.yaml -o s.mk --cache "$T/cache" --out "$T/out-s"
make -f s.mk -j4 warmup > /dev/null
cp out-s/TestA.callable good-a.callable
cp out-s/TestB.callable good-b.callable
mapfile -t shared < <(unit_keys s.mk | head -2)
for k in "${shared[@]}"; do
	[ "$(grep -B1 -- "^KW_CMD_$k = " s.mk | grep -c '^# .* of TestA, TestB$')" = 1 ] || fail "unit $k is not shared"
	damage flip "$k"
done
rm -rf out-s
: > "$STANDIN_LOG"
must shared.out "shared: the run failed" make -f s.mk -j4 warmup
! grep -i error shared.out || fail "shared: an error line"
[ "$(compiles)" = 2 ] || { cat shared.out; fail "shared: $(compiles) compiles, not 2"; }
[ "$(grep -c 'warning: cache entry .* is corrupt' shared.out)" = 2 ] || { cat shared.out; fail "shared: not one warning per entry"; }
cmp out-s/TestA.callable good-a.callable && cmp out-s/TestB.callable good-b.callable ||
	fail "shared: a callable differs"
pass "two packs sharing corrupt units: each compiled again once, one warning each"

# An uncreatable cache folder (a regular file is in the way).
touch "$T/not-a-folder"
"$KWARM" gen m/spec.yaml -o u.mk --cache "$T/not-a-folder/cache" --out "$T/out-u" 2> gen.err
[ "$(grep -c "warning: cache '$T/not-a-folder/cache' cannot be used" gen.err)" = 1 ] ||
	{ cat gen.err; fail "no single warning about the unusable cache"; }
make -f u.mk -j2 warmup > /dev/null
cmp out-u/TestMinimal.callable good.callable || fail "wrong callable without a usable cache"
pass "uncreatable cache: one warning, correct callables"
