#!/usr/bin/env bash
# labels: e2e
# Two warm-ups of other goals into one OUT at once ('make warmup-TestA' and
# 'make warmup-TestB' of one Makefile), each held mid-compile until both run,
# the unit they share (orch.c) held until one compiles it and the other waits
# for its lock (so each run has a slice of it, whichever started first):
# OUT/.kwarm/trace.json and summary.json stay valid JSON all along, and at the
# end the trace has both runs (one process each, every slice) and the summary
# counts both ("runs"), each class built, whichever run ends last. The same
# with two Makefiles of other classes sharing one OUT: the summary lists the
# classes of both.
. "$(dirname "$0")/lib.sh"
need python3 python3
# A failed check must not leave a held compile (and its make) behind.
trap 'touch "$T/holdA.go" "$T/holdB.go" "$T/holdO.go" "$T/holdX.go"' EXIT

# wait_lock_waiter FILE OFFSET PID...: wait until a process waits for the
# lock on byte OFFSET of FILE (a blocked fcntl lock: "->" in /proc/locks),
# failing if one of the PIDs ends first or after 60 s.
wait_lock_waiter() {
	local file=$1 offset=$2 ino p i=0
	shift 2
	ino=$(stat -c %i "$file") || fail "no lock file '$file'"
	until awk -v ino="$ino" -v off="$offset" '$2 == "->" && $7 ~ ":" ino "$" && $8 == off { w = 1 }
		END { exit !w }' /proc/locks; do
		for p in "$@"; do kill -0 "$p" 2>/dev/null || fail "process $p ended before a wait for the lock on $file"; done
		i=$((i + 1))
		[ "$i" -lt 6000 ] || fail "timed out waiting for a wait for the lock on $file"
		sleep 0.01
	done
}

export STANDIN_SCALE=0
mkdir -p "$T/s"
cd "$T/s"
for u in a1 b1 b2; do printf 'int %s;\n' "$u" > $u.c; done
printf 'kwarm-standin: block %s\nint orch;\n' "$T/holdO" > orch.c
printf 'kwarm-standin: block %s\nint a2;\n' "$T/holdA" > a2.c
printf 'kwarm-standin: block %s\nint b3;\n' "$T/holdB" > b3.c
standin_spec . TestA=a1.c,a2.c TestB=b1.c,b2.c,b3.c TestC=a1.c
cd "$T"
"$KWARM" gen s/spec.yaml -o w.mk --cache "$T/cache" --out "$T/out" || fail "gen failed"

valid() {	# FILE...: each parses as JSON as it stands
	for f in "$@"; do
		python3 -m json.tool "$f" > /dev/null || { cat "$f"; fail "$f is not valid JSON ($2)"; }
	done
}

make -f w.mk -j2 warmup-TestA > a.out 2>&1 &
ma=$!
make -f w.mk -j2 warmup-TestB > b.out 2>&1 &
mb=$!
wait_file "$T/holdA" "$ma"
wait_file "$T/holdB" "$mb"
# Whichever run took orch.c compiles it (held); the other waits for its entry's
# lock (a byte of entries.lock at the key's first 15 hex digits).
wait_file "$T/holdO" "$ma"
orch=$(unit_keys w.mk 'orch[.]c')
wait_lock_waiter "$T/cache/entries.lock" "$((16#${orch:0:15}))" "$ma" "$mb"
valid out/.kwarm/trace.json
[ ! -e out/.kwarm/trace.prev.json ] || fail "the second run started a new trace over the first one's"
touch "$T/holdO.go"

# A ends first; B's last writes come after A's make has ended.
touch "$T/holdA.go"
wait "$ma" || { cat a.out; fail "warmup-TestA failed"; }
valid out/.kwarm/trace.json out/.kwarm/summary.json
python3 - out/.kwarm/summary.json <<'PY' || fail "summary.json is wrong while B still runs"
import json, sys
st = {c["name"]: c["status"] for c in json.load(open(sys.argv[1]))["classes"]}
assert st["TestA"] == "built" and st["TestB"] == "pending", st
PY
touch "$T/holdB.go"
wait "$mb" || { cat b.out; fail "warmup-TestB failed"; }
[ -f out/TestA.callable ] && [ -f out/TestB.callable ] || fail "a callable is missing"
[ ! -e out/TestC.callable ] || fail "TestC was no goal, yet it was packed"
valid out/.kwarm/trace.json out/.kwarm/summary.json

python3 - out/.kwarm/trace.json out/.kwarm/summary.json "$ma" "$mb" <<'PY' || fail "trace.json or summary.json is wrong at the end"
import json, sys
trace, summary = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ma, mb = int(sys.argv[3]), int(sys.argv[4])
names = {e["pid"] for e in trace if e.get("name") == "process_name"}
assert names == {ma, mb}, ("process_name entries", names, ma, mb)
x = [e for e in trace if e.get("ph") == "X"]
def slices(pid, cat):
    return sorted(e["name"] for e in x if e["pid"] == pid and e["cat"] == cat)
assert slices(ma, "pack") == ["pack TestA"], slices(ma, "pack")
assert slices(mb, "pack") == ["pack TestB"], slices(mb, "pack")
# orch.c is shared: one of the two runs compiled it, the other waited for it.
o = "orchestration 'orch.c'"
assert slices(ma, "compile") == ["incore 'a1' (aiv)", "incore 'a2' (aiv)", o], slices(ma, "compile")
assert slices(mb, "compile") == ["incore 'b1' (aiv)", "incore 'b2' (aiv)", "incore 'b3' (aiv)", o], \
    slices(mb, "compile")
assert sorted(e["args"]["cache"] for e in x if e["name"] == o) == ["hit", "miss"], \
    [e["args"] for e in x if e["name"] == o]
assert all(e["ts"] >= 0 for e in x), "a slice before the trace's zero"
st = {c["name"]: c for c in summary["classes"]}
assert st["TestA"]["status"] == "built" and st["TestB"]["status"] == "built", st
assert st["TestC"]["status"] == "pending", st["TestC"]
assert st["TestA"]["units_built"] + st["TestA"]["units_cached"] == 3, st["TestA"]
assert st["TestB"]["units_built"] + st["TestB"]["units_cached"] == 4, st["TestB"]
assert len(summary["runs"]) == 2 and summary["run"] in summary["runs"], summary["runs"]
assert {int(r.split("@")[0]) for r in summary["runs"]} == {ma, mb}, summary["runs"]
# orch.c counts once, with its best outcome: built, not cached.
u = summary["units"]
assert (u["built"], u["cached"], u["failed"]) == (6, 0, 0), u
PY
pass "two warm-ups of other goals on one OUT: trace.json and summary.json valid all along, both runs in both"

# The next run (nothing of the others going) starts afresh: one run, a new trace.
rm -f out/TestC.callable
must c.out "the warm-up after them failed" make -f w.mk -j2 warmup
valid out/.kwarm/trace.json out/.kwarm/trace.prev.json out/.kwarm/summary.json
python3 - out/.kwarm/summary.json <<'PY' || fail "the next run's summary is wrong"
import json, sys
s = json.load(open(sys.argv[1]))
st = {c["name"]: c["status"] for c in s["classes"]}
assert len(s["runs"]) == 1, s["runs"]
assert st == {"TestA": "cached", "TestB": "cached", "TestC": "built"}, st
PY
pass "the next run starts its own trace and summary"

# Two Makefiles, other classes, one OUT and one cache: 'make -f w.mk
# warmup-TestA' (held again) and 'make -f w2.mk warmup' (held), w2's ending first.
mkdir -p "$T/s2"
printf 'int orch2;\n' > s2/orch.c
printf 'int x1;\n' > s2/x1.c
printf 'kwarm-standin: block %s\nint x2;\n' "$T/holdX" > s2/x2.c
standin_spec s2 TestX=x1.c,x2.c
"$KWARM" gen s2/spec.yaml -o w2.mk --cache "$T/cache" --out "$T/out" || fail "gen of w2.mk failed"
rm -f "$T"/holdA "$T"/holdA.go out/TestA.callable out/.kwarm/stamps/TestA.callable/* "$(grep -l "unit incore 'a2'" "$T"/cache/units/*/*.m)"
make -f w.mk -j2 warmup-TestA > a2.out 2>&1 &
ma=$!
make -f w2.mk -j2 warmup > x.out 2>&1 &
mx=$!
wait_file "$T/holdA" "$ma"
wait_file "$T/holdX" "$mx"
touch "$T/holdX.go"
wait "$mx" || { cat x.out; fail "the warm-up of w2.mk failed"; }
valid out/.kwarm/trace.json out/.kwarm/summary.json
python3 - out/.kwarm/summary.json <<'PY' || fail "summary.json is wrong while w.mk still runs"
import json, sys
st = {c["name"]: c["status"] for c in json.load(open(sys.argv[1]))["classes"]}
assert st == {"TestX": "built", "TestA": "pending", "TestB": "cached", "TestC": "cached"}, st
PY
touch "$T/holdA.go"
wait "$ma" || { cat a2.out; fail "warmup-TestA failed"; }
valid out/.kwarm/trace.json out/.kwarm/summary.json
python3 - out/.kwarm/trace.json out/.kwarm/summary.json "$ma" "$mx" <<'PY' || fail "trace.json or summary.json is wrong after two Makefiles"
import json, sys
trace, summary = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ma, mx = int(sys.argv[3]), int(sys.argv[4])
assert {e["pid"] for e in trace if e.get("name") == "process_name"} == {ma, mx}
packs = sorted((e["pid"], e["name"]) for e in trace if e.get("cat") == "pack")
assert packs == sorted([(ma, "pack TestA"), (mx, "pack TestX")]), packs
st = {c["name"]: c["status"] for c in summary["classes"]}
assert st == {"TestA": "built", "TestB": "cached", "TestC": "cached", "TestX": "built"}, st
assert {int(r.split("@")[0]) for r in summary["runs"]} == {ma, mx}, summary["runs"]
PY
pass "two Makefiles on one OUT at once: both files valid, the summary has the classes of both"
