#!/usr/bin/env bash
# labels: e2e
# A make 4.4 style fifo pool with two tokens ("fifo:PATH" in MAKEFLAGS): six
# `kwarm exec` started at once run at most two commands at a time, and both
# tokens, the very bytes, are back in the fifo afterwards. A fake
# --jobserver-auth after "--" (where make puts command-line variables) is
# ignored: with it believed, fd 9 is no pool and the bound would be lost.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../tools/fifo_pool.sh
. "$TOOLS/fifo_pool.sh"
cd "$T"
exec 9>&-

fifo_pool_create "$T/pool" "ab"

# run_six MAKEFLAGS: six kwarm exec at once, each running a probe; stderr to exec.err.
run_six() {
	local pids=() p rc=0
	rm -f probe.log
	for _ in 1 2 3 4 5 6; do
		MAKEFLAGS=$1 "$KWARM" exec -- bash "$TOOLS/overlap_probe.sh" "$T/probe.log" 0.3 2>> exec.err &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	return $rc
}

check_run() {
	local what=$1 m
	[ ! -s exec.err ] || { cat exec.err; fail "$what: unexpected messages"; }
	[ "$(grep -c '^end ' probe.log)" = 6 ] || fail "$what: not six probes"
	m=$(bash "$TOOLS/max_overlap.sh" probe.log)
	[ "$m" -le 2 ] || fail "$what: $m commands at once, want at most 2"
	[ "$m" -gt 1 ] || fail "$what: the commands never overlapped (max $m)"
	[ "$(fifo_pool_take "$T/pool")" = ab ] || fail "$what: tokens 'a' and 'b' are not back in the fifo"
	echo "ok: $what: at most $m at once, both tokens back"
}

: > exec.err
run_six " -j3 --jobserver-auth=fifo:$T/pool" || fail "a kwarm exec failed"
check_run "fifo pool"

fifo_pool_put "$T/pool" "ab"
: > exec.err
run_six "-j3 --jobserver-auth=fifo:$T/pool -- --jobserver-auth=9,9 FOO=x\\ --jobserver-auth=9,9" ||
	fail "a kwarm exec failed"
check_run "fake --jobserver-auth=9,9 after --"

# The pool named by a fake alone is refused (fd 9 is closed), so the fake
# above would have been noticed.
out=$(MAKEFLAGS="-j3 --jobserver-auth=9,9" "$KWARM" exec -- echo ran 2>&1)
case $out in *"jobserver unavailable"*ran*) ;; *) fail "fd 9 was not refused: $out" ;; esac
echo "ok: a lone --jobserver-auth=9,9 is refused with a warning"
