#!/usr/bin/env bash
# labels: e2e;slow
# SIGINT (Ctrl-C) to make's process group mid-run: make stops, every kwarm
# process removes its temps (publish temps and compile outputs "*.tmp.*" beside
# the entries, probes in the cache's tmp/), nothing torn is visible under a
# final name, and a re-run succeeds with the right callables. Once at a known
# point (a compiler blocked mid-compile), then at 10 seeded random points.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
fault_two_classes

cd "$T"

# 1. A known point: k0's compiler blocks until told to go; the others are done
# or in flight. SIGINT then reaches make, kwarm compile and the compiler.
fault_version_blocked
gen_warmup
# SIGINT at its default, as from a terminal (fault_signal_run says why).
setsid env --default-signal=INT make -f warmup.mk -j2 warmup > int0.txt 2>&1 &
pid=$!
fault_group_leader "$pid"
trap 'kill -KILL -- -"$pid" 2>/dev/null || true' EXIT
wait_file "$T/blocked" "$pid"
# ... and let two other units finish, so that there are entries to verify.
i=0
until [ "$(find cache/units -name '*.m' | wc -l)" -ge 2 ]; do
	i=$((i + 1)); [ "$i" -lt 6000 ] || fail "no unit finished while k0 was blocked"
	kill -0 "$pid" || fail "make ended while k0 was blocked"
	sleep 0.01
done
# The stand-in wrote a partial output before it blocked, beside k0's entry.
[ -n "$(find cache/units -name '*.tmp.*')" ] ||
	fail "no partial output while k0 compiles: the check below would prove nothing"
kill -INT -- -"$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" != 0 ] || fail "make exited 0 after SIGINT"
fault_settle "$pid"
tree_check cache out refs --no-temps || fail "SIGINT while compiling left temps or torn files"
[ "$(find cache/units -name '*.m' | wc -l)" -ge 2 ] || fail "entries finished before SIGINT were lost"
[ ! -e out/TestA.callable ] || fail "TestA was packed though k0 never compiled"
: > "$T/blocked.go"
must rerun0.txt "the re-run after SIGINT failed" make -f warmup.mk -j2 warmup
fault_check_current 0 || fail "the re-run's callables are wrong"
tree_check cache out refs --no-temps || fail "after the re-run"
pass "SIGINT mid-compile: make stopped (exit $rc), no temps, no torn files, the re-run is right"

# 2. Random points, each run after an edit of every source.
delays=$(python3 -c 'import random; r = random.Random(4321); print(" ".join("%.3f" % (0.6 * r.random()) for _ in range(10)))')
interrupted=0 v=0
for d in $delays; do
	v=$((v + 1))
	fault_signal_run INT "$v" "$d"
	tree_check cache out refs --no-temps > /dev/null || fail "run $v (SIGINT after $d s): temps or torn files"
	[ -e warmup.mk ] || fail "run $v (SIGINT after $d s): the Makefile is gone"
	must "rerun$v.txt" "run $v: the re-run failed" make -f warmup.mk -j2 warmup
	fault_check_current "$v" || fail "run $v (SIGINT after $d s): the re-run's callables are not version $v's"
done
[ "$interrupted" -ge 6 ] || fail "only $interrupted of 10 runs were interrupted"
pass "SIGINT at random points: $interrupted of 10 runs interrupted, no temps left, every re-run right"
