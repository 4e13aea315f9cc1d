#!/usr/bin/env bash
# labels: e2e
# Progress: one "[done/total] built LABEL (CLASS) S s" line per compiled unit,
# nothing else but the pack lines; V=1 shows commands. The trace: Chrome
# trace-event JSON with one complete slice per compiled unit and one per pack,
# tids below make's -j, slices never overlapping on a tid, the unit's key,
# classes and hit/miss in args; the next run keeps it as trace.prev.json.
. "$(dirname "$0")/lib.sh"
need python3 python3

standin_example qwen3_decode q
export STANDIN_SCALE=0.03
cd "$T"
"$KWARM" gen q/spec.yaml -o w.mk --cache "$T/cache" --out "$T/out"

# One class first: the total counts that class's missing units only (38).
must one.out "warm-up failed" make -f w.mk -j3 warmup-TestQwen3Decode
[ "$(grep -c '^\[' one.out)" = 38 ] || { cat one.out; fail "not one progress line per unit"; }
grep -Ev '^\[[0-9]+/38\] built .* \(TestQwen3Decode( \+1)?\) [0-9]+\.[0-9]{2} s$|^kwarm: packed ' one.out &&
	fail "lines other than progress and pack lines (above)"
[ "$(sed -n 's#^\[\([0-9]*\)/38\].*#\1#p' one.out | sort -n | tr '\n' ' ')" = "$(seq -s ' ' 1 38) " ] ||
	fail "done does not count 1..38"
pass "warmup-CLASS: 38 lines [1/38]..[38/38], quiet otherwise"

check_trace() {	# FILE JOBS UNITS PACKS
	python3 - "$@" <<'PY'
import json, sys
path, jobs, units, packs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
ev = json.load(open(path))	# a closed array: valid JSON as it stands
x = [e for e in ev if e.get("ph") == "X"]
comp = [e for e in x if e["cat"] == "compile"]
pk = [e for e in x if e["cat"] == "pack"]
assert len(comp) == units, (len(comp), units)
assert len(pk) == packs, (len(pk), packs)
assert len({e["args"]["key"] for e in comp}) == units, "a unit has two slices"
for e in comp:
    a = e["args"]
    assert a["cache"] == "miss" and a["status"] == "built" and len(a["key"]) == 64, a
    assert a["classes"] and all(c.startswith("TestQwen3Decode") for c in a["classes"]), a
    assert a["unit"] == e["name"]
pids = {e["pid"] for e in x}
assert len(pids) == 1, pids
tids = {}
for e in x:
    assert 0 <= e["tid"] < jobs, ("tid", e["tid"], jobs)
    assert e["ts"] >= 0 and e["dur"] > 0, e
    tids.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
for t, sl in tids.items():
    sl.sort()
    for (a0, a1, an), (b0, b1, bn) in zip(sl, sl[1:]):
        assert a1 <= b0, ("overlap on tid", t, an, bn)
assert len(tids) > 1, "everything ran on one slot"
print(f"{len(comp)} compiles, {len(pk)} packs on {len(tids)} slots")
PY
}
check_trace out/.kwarm/trace.json 3 38 1 || fail "the trace of the first run is wrong"
pass "trace.json: one slice per unit and pack, slots < 3 never overlap"

# The rest at -j4: the one missing unit, counted 1/1; the old trace is kept.
cp out/.kwarm/trace.json first.json
must rest.out "warm-up failed" make -f w.mk -j4 warmup
holds rest.out "^\[1/1\] built orchestration '.*graph_orch.cpp' (TestQwen3DecodeGraph) " \
	"no [1/1] line for the one missing unit"
cmp out/.kwarm/trace.prev.json first.json || fail "trace.prev.json is not the previous run's"
check_trace out/.kwarm/trace.json 4 1 1 > /dev/null 2>&1 && fail "one slot only yet the check passed"
python3 - out/.kwarm/trace.json <<'PY' || fail "the second run's trace is wrong"
import json, sys
ev = json.load(open(sys.argv[1]))
x = [e for e in ev if e.get("ph") == "X"]
assert sorted(e["cat"] for e in x) == ["compile", "pack"], x
PY
pass "a new run starts a new trace; the last one is trace.prev.json; total 1 for 1 missing unit"

# A cold run at -j4 from scratch, all 39 units in one trace.
rm -rf cache out
must cold.out "cold warm-up failed" make -f w.mk -j4 warmup
[ "$(grep -c '^\[[0-9]*/39\] built' cold.out)" = 39 ] || fail "not 39 progress lines of 39"
check_trace out/.kwarm/trace.json 4 39 2 || fail "the cold trace is wrong"
pass "cold -j4: 39 progress lines, 39 + 2 slices on slots < 4"

# V=1 shows the full commands; a warm run prints nothing about units.
rm -rf out
make -f w.mk -j2 warmup V=1 > v.out 2>&1
grep -q -- "pack --state .* --cache " v.out || fail "V=1 did not show the pack command"
grep -q '^\[' v.out && fail "a run with nothing to compile printed progress lines"
pass "V=1 shows commands; nothing to compile, no progress lines"
