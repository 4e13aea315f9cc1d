#!/usr/bin/env bash
# labels: e2e
# MAKEFLAGS naming fds that are closed, a regular file, or only one end of a
# pipe (what a recipe without '+' sees): kwarm exec warns once, naming the
# likely cause, runs the command anyway and does not hang. `timeout` is only
# a guard that turns a hang into a failure.
. "$(dirname "$0")/lib.sh"
cd "$T"

# expect_fallback WHAT: exec.err holds exactly one warning naming '+', ran exists.
expect_fallback() {
	[ -e ran ] || fail "$1: the command did not run"
	[ "$(grep -c 'warning: jobserver unavailable' exec.err)" = 1 ] || { cat exec.err; fail "$1: want one warning"; }
	holds exec.err "missing a '+' prefix" "$1: the warning does not name '+'"
	echo "ok: $1: one warning, command ran"
	rm -f ran
}

# Closed fds (the numbers also stay free for kwarm's own self-pipe: it must
# not mistake that for the pool).
MAKEFLAGS=" -j3 --jobserver-auth=3,4" timeout 30 "$KWARM" exec -- touch ran 2> exec.err 3>&- 4>&- ||
	fail "closed fds: kwarm exec failed"
expect_fallback "closed fds 3,4"

MAKEFLAGS=" -j3 --jobserver-fds=3,4" timeout 30 "$KWARM" exec -- touch ran 2> exec.err 3>&- 4>&- ||
	fail "closed fds (--jobserver-fds): kwarm exec failed"
expect_fallback "closed fds 3,4 in the make 4.1 form"

: > regular
# Both ends on one regular file, as a stale fd might be.
# shellcheck disable=SC2094
MAKEFLAGS=" -j3 --jobserver-auth=3,4" timeout 30 "$KWARM" exec -- touch ran 2> exec.err 3< regular 4>> regular ||
	fail "regular file: kwarm exec failed"
expect_fallback "fds on a regular file"

MAKEFLAGS=" -j3 --jobserver-auth=-2,-2" timeout 30 "$KWARM" exec -- touch ran 2> exec.err ||
	fail "negative fds: kwarm exec failed"
expect_fallback "negative fds"

# The real thing: a recipe without '+' under make -j3 (make 4.3 closes the
# fds there but leaves them in MAKEFLAGS).
printf 'all:\n\t%s exec -- touch ran\n' "$KWARM" > Makefile
timeout 30 make -s -j3 2> exec.err 3>&- 4>&- || { cat exec.err; fail "make -j3 without '+' failed"; }
expect_fallback "a recipe without '+' under make -j3"

# Exit status is still the command's.
set +e
MAKEFLAGS=" -j3 --jobserver-auth=3,4" timeout 30 "$KWARM" exec -- sh -c 'exit 3' 2> exec.err 3>&- 4>&-
rc=$?
set -e
[ "$rc" = 3 ] || fail "closed fds: exit status $rc, want 3"
echo "ok: closed fds: the command's exit status passes through"
