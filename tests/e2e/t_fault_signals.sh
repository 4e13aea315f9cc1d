#!/usr/bin/env bash
# labels: e2e
# Signals that reach kwarm's compile step but not its compiler, or the
# compiler but are meant to be ignored, with the stand-in blocked mid-write
# (its partial output beside the entry):
# 1. SIGTERM to make alone (kill PID, timeout, a CI runner): make passes it
#    to its recipes only. The compile step passes it on to its compiler and
#    waits for it before it removes its temps: no compiler runs on outside
#    make's bound, nothing is written into the cache after the step died, and
#    the re-run is right.
# 2. Under nohup (SIGHUP ignored), a hangup to the whole process group: the
#    compilers ignore it as make and kwarm do, and the warm-up succeeds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
fault_two_classes
cd "$T"
fault_version_blocked
gen_warmup
temps() { find cache -name '*.tmp.*' | wc -l; }

# 1. SIGTERM to make alone.
setsid make -f warmup.mk -j2 warmup > term.txt 2>&1 &
pid=$!
fault_group_leader "$pid"
trap 'kill -KILL -- -"$pid" 2>/dev/null || true' EXIT
wait_file "$T/blocked" "$pid"
[ "$(temps)" != 0 ] || fail "no partial output while k0 compiles: the check below would prove nothing"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" != 0 ] || fail "make exited 0 after SIGTERM"
# Bounded: the old compile step died at once and left its compiler
# polling for blocked.go, forever.
fault_settle "$pid" "the compiler of the step that make's SIGTERM ended"
: > "$T/blocked.go"
[ "$(temps)" = 0 ] || { find cache -name '*.tmp.*'; fail "temps left in the cache after SIGTERM"; }
tree_check cache out refs --no-temps || fail "SIGTERM to make: torn files"
must rerun1.txt "the re-run after SIGTERM failed" make -f warmup.mk -j2 warmup
fault_check_current 0 || fail "the re-run's callables are wrong"
pass "SIGTERM to make alone: the compiler ended with its step, no temps, the re-run is right"

# 2. nohup, then a hangup to the group while k0 compiles.
rm -rf cache out "$T/blocked" "$T/blocked.go"
setsid env --ignore-signal=HUP make -f warmup.mk -j2 warmup > hup.txt 2>&1 &
pid=$!
fault_group_leader "$pid"
wait_file "$T/blocked" "$pid"
kill -HUP -- -"$pid"
: > "$T/blocked.go"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 0 ] || { cat hup.txt; fail "a hangup under nohup failed the warm-up (exit $rc)"; }
! grep -i "error" hup.txt || fail "an error line in a warm-up that succeeded"
fault_check_current 0 || fail "the callables after the hangup are wrong"
tree_check cache out refs --no-temps || fail "after the hangup"
pass "a hangup under nohup: the compilers ignore it too, the warm-up succeeds"
