#!/usr/bin/env bash
# labels: e2e
# 'kwarm cache prune --max-size 1' (one byte: as much as it may remove) while
# a warm-up runs removes nothing the run needs: the run's first step claims
# (marks used) every entry of its goals, so prune's grace keeps what make has
# found up to date and the packs are about to read, and a pack reads each entry
# through one open file. The entries are aged first, so that without the claim
# prune would remove them (checked at the end: with no run going, the same
# prune empties the cache). What no lock can cover: an entry removed between
# make's check and the run's first step (milliseconds); the pack then fails
# cleanly, naming the unit, and the next run rebuilds it (or, where the pack
# recovers the entry itself, the run succeeds): both are checked.
. "$(dirname "$0")/lib.sh"
need python3 python3
# A failed check must not leave a held compile (and its make) behind.
trap 'touch "$T/blk.go"' EXIT

export STANDIN_SCALE=0
mkdir -p "$T/s"
cd "$T/s"
for u in orch a b c d; do printf 'int %s;\n' "$u" > $u.c; done
# The unit whose compile holds a run: it waits for $T/blk.go.
printf 'kwarm-standin: block %s\nint slow;\n' "$T/blk" > slow.c
standin_spec . TestA=a.c,b.c TestB=d.c,slow.c TestC=b.c,c.c
cd "$T"
"$KWARM" gen s/spec.yaml -o w.mk --cache "$T/cache" --out "$T/out" || fail "gen failed"
touch blk.go
must first.out "the first warm-up failed" make -f w.mk -j2 warmup
mkdir ref
cp out/*.callable ref/
entries() { find "$T/cache/units" -name '*.m' | wc -l; }
entry_of() { grep -l "unit incore '$1'" "$T"/cache/units/*/*.m; }
[ "$(entries)" = 6 ] || fail "expected 6 entries, found $(entries)"
check_callables() {
	for f in ref/*.callable; do
		cmp "$f" "out/${f#ref/}" || fail "out/${f#ref/} differs from the first warm-up's ($1)"
	done
}

# Start a warm-up whose entries are all old (unused for 3 hours: past prune's
# grace), with every callable gone (every class packs) and the slow unit
# missing, so that its compile holds the run after make has found the other
# entries up to date; wait until the compile is held and the run has claimed
# its entries (their use time is now).
start_held_run() {
	rm -f "$(entry_of slow)" blk blk.go
	rm -rf out
	find "$T/cache/units" -name '*.m' -exec touch -d '3 hours ago' {} +
	make -f w.mk -j3 warmup > "$1" 2>&1 &
	mk=$!
	wait_file "$T/blk" "$mk"
	local i=0
	while [ "$(find "$T/cache/units" -name '*.m' -amin -10 | wc -l)" != 5 ]; do
		kill -0 "$mk" 2>/dev/null || fail "the warm-up ended before its entries were claimed"
		i=$((i + 1))
		[ "$i" -lt 6000 ] || fail "the run never claimed its entries"
		sleep 0.01
	done
}

start_held_run race.out
# Prune in a loop from now to the end of the run, and by hand while it is held.
( while kill -0 "$mk" 2>/dev/null; do "$KWARM" cache --cache "$T/cache" prune --max-size 1 > /dev/null 2>&1; done ) &
loop=$!
for i in 1 2 3; do
	must prune.$i.out "prune failed" "$KWARM" cache --cache "$T/cache" prune --max-size 1
done
[ "$(entries)" = 5 ] || { cat prune.*.out; fail "prune removed entries a running warm-up needs ($(entries) of 5 left)"; }
touch blk.go
wait "$mk" || { cat race.out; fail "the warm-up failed while prune ran"; }
wait "$loop"
check_callables "prune during the run"
grep -q 'no longer in the cache' race.out && { cat race.out; fail "a pack found an entry gone"; }
pass "prune --max-size 1 during a warm-up: every callable right, nothing it needed removed"

# The window no lock covers, forced: an entry of TestB alone goes after make
# checked it (as a prune there would take it). Either the run fails cleanly
# (the pack names the unit, TestB is failed, the others built) and the next
# run rebuilds it, or the pack recovers it and the run succeeds.
start_held_run window.out
rm -f "$(entry_of d)"
touch blk.go
if wait "$mk"; then
	check_callables "an entry gone mid-run, recovered"
	pass "an entry removed after make checked it: recovered in the same run"
else
	holds window.out "cannot pack class TestB: incore 'd' is no longer in the cache (removed after make checked it); run make again" \
		"the pack did not say which entry was gone and what to do"
	holds window.out "^kwarm: class TestB failed: its pack step" "no closing line for TestB"
	python3 - out/.kwarm/summary.json <<'PY' || fail "summary.json is wrong after the failed pack"
import json, sys
st = {c["name"]: c["status"] for c in json.load(open(sys.argv[1]))["classes"]}
assert st == {"TestA": "built", "TestB": "failed", "TestC": "built"}, st
PY
	must repair.out "the next run did not repair it" make -f w.mk -j3 warmup
	check_callables "repaired by the next run"
	pass "an entry removed after make checked it: a clean failure naming it, and the next run repairs it"
fi

# The same prune with no run going does remove those entries: the first part
# could not pass without the claim.
find "$T/cache/units" -name '*.m' -exec touch -d '3 hours ago' {} +
must idle.out "prune failed" "$KWARM" cache --cache "$T/cache" prune --max-size 1
[ "$(entries)" = 0 ] || { cat idle.out; fail "prune with no run going kept entries"; }
must again.out "the warm-up after prune failed" make -f w.mk -j3 warmup
check_callables "rebuilt after prune"
pass "with no run going prune removes them, and the next warm-up rebuilds them byte-exact"
