#!/usr/bin/env bash
# labels: e2e
# Signals that make leaves to its caller, with the stand-in blocked mid-write:
# under nohup (SIGHUP ignored), a hangup to the whole process group: the
# compilers ignore it as make and kwarm do, and the warm-up succeeds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
fault_two_classes
cd "$T"
fault_version_blocked
gen_warmup

# nohup, then a hangup to the group while k0 compiles.
setsid env --ignore-signal=HUP make -f warmup.mk -j2 warmup > hup.txt 2>&1 &
pid=$!
fault_group_leader "$pid"
trap 'kill -KILL -- -"$pid" 2>/dev/null || true' EXIT
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
