#!/usr/bin/env bash
# labels: e2e;slow
# SIGKILL to the whole make process group at random points of a warm-up (20
# runs, delays from a fixed seed, each run after an edit of every source so it
# has all its work to do, the Makefile's self-remake included). After every kill
# nothing torn is visible under a final name: every cache entry with a manifest
# verifies (size and SHA-256 of its artifact), every pack description hashes to
# its name, every OUT/*.callable equals the bytes of some version of the
# sources; then a plain re-run succeeds with the bytes of the current version.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
fault_two_classes

cd "$T"
fault_version 0
gen_warmup
start=$(date +%s.%N)
must ref.txt "the reference run failed" make -f warmup.mk -j2 warmup
echo "a full run takes $(python3 -c "import time; print('%.2f' % (time.time() - $start))") s"
fault_check_current 0 || fail "the reference run's callables are wrong"

delays=$(python3 -c 'import random; r = random.Random(1234); print(" ".join("%.3f" % (0.5 * r.random()) for _ in range(20)))')
interrupted=0 recovered=0 v=0
for d in $delays; do
	v=$((v + 1))
	fault_signal_run KILL "$v" "$d"
	tree_check cache out refs > /dev/null || fail "run $v (killed after $d s): torn files"
	must "rerun$v.txt" "run $v: the re-run failed" make -f warmup.mk -j2 warmup
	tree_check cache out refs > /dev/null || fail "run $v: torn files after the re-run"
	fault_check_current "$v" || fail "run $v (killed after $d s): the re-run's callables are not version $v's"
	recovered=$((recovered + 1))
done
[ "$interrupted" -ge 10 ] || fail "only $interrupted of 20 runs were interrupted: the delays miss the runs"

# A last clean run into a fresh cache gives the same bytes as the recovered one.
"$KWARM" gen root/spec.yaml -o clean.mk --cache "$T/clean-cache" --out "$T/clean-out"
make -f clean.mk -j2 warmup > clean.txt 2>&1 || fail "the clean run failed"
cmp clean-out/TestA.callable out/TestA.callable && cmp clean-out/TestB/b.callable out/TestB/b.callable ||
	fail "the recovered callables differ from a clean run's"
tree_check cache out refs || fail "final check"
pass "SIGKILL: $interrupted of 20 runs interrupted, $recovered recovered (re-run right, nothing torn)"
