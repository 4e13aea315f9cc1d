#!/usr/bin/env bash
# labels: e2e
# A unit that another make run, sharing the cache, compiles while this run's
# step waits for its entry's lock: the step takes the other's entry (a
# wait-hit, checked against this run's files) and, as for one it compiled,
# packs the callable it completes itself (made.h, packnow.h), not leaving it
# to make's pack recipe. Two Makefiles of one spec with their own outputs:
# run one compiles the orchestration and holds a1 on a block file; run two
# starts with only a1 to make, and a1 is let go once run two's step began.
. "$(dirname "$0")/lib.sh"
need python3 python3

mkdir -p "$T/p" "$T/blk"
cd "$T/p"
printf '// kwarm-cost: 1\nint o;\n' > orch.c
printf '// kwarm-cost: 1\nint a1;\n// kwarm-standin: block %s\n' "$T/blk/a1" > a1.c
standin_spec . A=a1.c
for r in one two; do
	"$KWARM" gen spec.yaml -o "$T/$r.mk" --cache "$T/cache" --out "$T/out-$r"
done
[ "$(unit_keys "$T/one.mk")" = "$(unit_keys "$T/two.mk")" ] || fail "the two Makefiles' units differ"
orch=$(unit_keys "$T/one.mk" 'orch\.c')
[ -n "$orch" ] || fail "no orchestration unit in the Makefile"

export STANDIN_SCALE=0.01
make -f "$T/one.mk" -j2 warmup > "$T/one.out" 2>&1 &
ONE=$!
wait_file "$T/blk/a1" $ONE
wait_file "$T/cache/units/${orch:0:1}/$orch.m" $ONE
# A run counts an entry as its own when it is no older than the run's start,
# which the system tells in clock ticks (10 ms): run two starts a tick after
# the orchestration's entry, so that it is plainly the other run's, a hit.
python3 - "$T/cache/units/${orch:0:1}/$orch.m" <<'PY'
import os, sys, time
time.sleep(max(0.0, os.stat(sys.argv[1]).st_mtime + 0.02 - time.time()))
PY
make -f "$T/two.mk" -j2 warmup > "$T/two.out" 2>&1 &
TWO=$!
# Run two's a1 step waits for the entry's lock, which run one's a1 step
# holds: a blocked request ("->") on the cache's lock file in /proc/locks.
# (Its run's start file alone is too early: the step could reach the lock
# after run one published, a plain hit.)
ino=$(stat -c %i "$T/cache/entries.lock")
i=0
until grep -Eq -- "-> OFDLCK +ADVISORY +WRITE +-1 +[0-9a-f]+:[0-9a-f]+:$ino " /proc/locks; do
	kill -0 $TWO 2> /dev/null || { cat "$T/two.out"; fail "run two ended before its step waited"; }
	i=$((i + 1))
	[ "$i" -lt 6000 ] || fail "timed out waiting for run two's step to wait on the lock"
	sleep 0.01
done
touch "$T/blk/a1.go"
wait $ONE || { cat "$T/one.out"; fail "run one failed"; }
wait $TWO || { cat "$T/two.out"; fail "run two failed"; }
[ "$(compiles a1.c)" = 1 ] || fail "a1 compiled $(compiles a1.c) times, want once (run two takes run one's)"
cmp "$T/out-one/A.callable" "$T/out-two/A.callable" || fail "the two runs' callables differ"
python3 - "$T/out-two/.kwarm/trace.json" <<'PY' || { cat "$T/two.out"; fail "run two's A was not packed by its a1 step"; }
import json, sys
ev = [e for e in json.load(open(sys.argv[1])) if e.get("ph") == "X"]
packs = [e for e in ev if e["cat"] == "pack" and e["args"]["classes"] == ["A"]]
units = [e for e in ev if e["cat"] == "compile"]
assert len(packs) == 1 and len(units) == 1, (packs, units)
assert units[0]["args"]["cache"] != "miss", units[0]["args"]
assert packs[0]["args"].get("by") == "compile", packs[0]["args"]
PY
pass "a unit another run compiled while this run's step waited: the step packs its callable"
