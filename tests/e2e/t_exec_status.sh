#!/usr/bin/env bash
# labels: e2e
# kwarm exec's exit status is the command's (128+N when signal N killed it,
# 127 when it is not found), and the token comes back every time. The
# command gets MAKEFLAGS as is and no fd of kwarm's own (the private fifo
# descriptions, the self-pipe). With no jobserver the command just runs.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../tools/fifo_pool.sh
. "$TOOLS/fifo_pool.sh"
cd "$T"

fifo_pool_create "$T/pool" "ab"
flags=" -j3 --jobserver-auth=fifo:$T/pool -- FOO=a\\ b"

# status WANT WHAT CMD...: run CMD through kwarm exec under the pool.
status() {
	local want=$1 what=$2 rc
	shift 2
	set +e
	MAKEFLAGS=$flags "$KWARM" exec -- "$@" 2> exec.err
	rc=$?
	set -e
	[ "$rc" = "$want" ] || { cat exec.err; fail "$what: exit status $rc, want $want"; }
	[ "$(fifo_pool_take "$T/pool")" = ab ] || fail "$what: the token did not come back"
	fifo_pool_put "$T/pool" "ab"
	echo "ok: $what: exit status $rc, token back"
}

status 0 "success" sh -c 'exit 0'
status 3 "a failing command" sh -c 'exit 3'
# shellcheck disable=SC2016
status 143 "a command killed by SIGTERM" sh -c 'kill -TERM $$'
status 127 "a command not found" ./no-such-command
grep -q "cannot run './no-such-command'" exec.err || fail "no message for a missing command"

# The environment is passed unchanged.
# shellcheck disable=SC2016
MAKEFLAGS=$flags "$KWARM" exec -- sh -c 'printf "%s" "$MAKEFLAGS"' > mf.out
[ "$(cat mf.out)" = "$flags" ] || fail "MAKEFLAGS changed to '$(cat mf.out)'"
echo "ok: MAKEFLAGS reaches the command as is"

# The command's fds are the caller's: none of kwarm's leaks. (ls's own
# handle on /proc/self/fd differs between runs, so it is left out.)
# shellcheck disable=SC2016
sh -c 'ls -l /proc/self/fd > fds.out'
grep -v ' -> /proc/' fds.out | awk '{ print $9, $10, $11 }' > direct.fds
# shellcheck disable=SC2016
MAKEFLAGS=$flags "$KWARM" exec -- sh -c 'ls -l /proc/self/fd > fds.out'
grep -v ' -> /proc/' fds.out | awk '{ print $9, $10, $11 }' > via.fds
[ -s direct.fds ] || fail "no fds listed"
diff direct.fds via.fds || fail "the command's fds differ from a direct run's"
echo "ok: the command inherits no fd of kwarm's"

# No jobserver: the command just runs, quietly.
"$KWARM" exec -- touch plain 2> exec.err
[ -e plain ] || fail "without a jobserver the command did not run"
[ ! -s exec.err ] || { cat exec.err; fail "without a jobserver: unexpected messages"; }
MAKEFLAGS=" -j3" "$KWARM" exec -- touch plain2 2> exec.err
{ [ -e plain2 ] && [ ! -s exec.err ]; } || fail "with -j3 and no pool: did not run quietly"
echo "ok: no jobserver: the command runs, no warning"

# Usage errors.
set +e
"$KWARM" exec 2> /dev/null
rc=$?
set -e
[ "$rc" = 2 ] || fail "no command: exit status $rc, want 2"
echo "ok: no command is a usage error"
