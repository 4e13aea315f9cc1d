#!/usr/bin/env bash
# labels: e2e
# SIGINT or SIGTERM to a `kwarm exec` whose command holds a token: kwarm
# forwards it to the command, reaps it, gives the token back to the fifo and
# dies by that same signal. An inherited SIG_IGN for SIGINT is kept (the
# command inherits it too, which it would not if kwarm had put a handler in).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../tools/fifo_pool.sh
. "$TOOLS/fifo_pool.sh"
cd "$T"

fifo_pool_create "$T/pool" "ab"
mkfifo block	# never written: a command opening it blocks until killed
export MAKEFLAGS=" -j3 --jobserver-auth=fifo:$T/pool"

# Job control on, so that background jobs do not start with SIGINT ignored.
set -m
for sig in INT TERM; do
	rm -f started cmd.pid
	# shellcheck disable=SC2016
	"$KWARM" exec -- sh -c 'echo $$ > cmd.pid; touch started; exec cat block' 2> exec.err &
	pid=$!
	wait_file started "$pid"
	# The command runs on one token: one is left in the pool.
	left=$(fifo_pool_take "$T/pool")
	[ "${#left}" = 1 ] || fail "SIG$sig: '$left' in the pool while the command runs, want one token"
	fifo_pool_put "$T/pool" "$left"

	kill -s "$sig" "$pid"
	set +e
	wait "$pid"
	rc=$?
	set -e
	want=$((128 + $(kill -l "$sig")))
	[ "$rc" = "$want" ] || { cat exec.err; fail "SIG$sig: kwarm exited $rc, want $want (killed by SIG$sig)"; }
	if kill -0 "$(cat cmd.pid)" 2>/dev/null; then fail "SIG$sig: the command still runs"; fi
	[ "$(fifo_pool_take "$T/pool")" = ab ] || fail "SIG$sig: both tokens are not back"
	fifo_pool_put "$T/pool" "ab"
	echo "ok: SIG$sig: kwarm exec died by SIG$sig, the command ended, the token came back"
done

# sig_ign_bit: 1 when the SigIgn mask line of a /proc status dump in file $1
# has SIGINT (signal 2, bit 1) set.
sig_ign_bit() {
	local mask
	mask=$(awk '/^SigIgn:/ { print $2 }' "$1")
	echo $(((0x$mask >> 1) & 1))
}

# A background job without job control starts with SIGINT ignored: kept.
set +m
"$KWARM" exec -- cat /proc/self/status > ign.out &
wait $!
[ "$(sig_ign_bit ign.out)" = 1 ] || fail "an inherited SIG_IGN for SIGINT was not kept"
# With SIGINT at its default, kwarm's handler does not leak into the command.
env --default-signal=INT "$KWARM" exec -- cat /proc/self/status > dfl.out
[ "$(sig_ign_bit dfl.out)" = 0 ] || fail "the command started with SIGINT ignored"
[ "$(fifo_pool_take "$T/pool")" = ab ] || fail "tokens lost"
echo "ok: an inherited SIG_IGN for SIGINT is kept, a default one stays default"
