#!/usr/bin/env bash
# labels: e2e
# Under a dry run (make -n: MAKEFLAGS's first word has no leading '-' and
# holds 'n'), kwarm exec prints the command and does not run it, and takes
# no token. make -n runs '+' lines, so this is what keeps `make -n` from
# compiling through a harness. A first word like --no-print-directory (with
# an 'n' in it) is not a dry run.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../tools/fifo_pool.sh
. "$TOOLS/fifo_pool.sh"
cd "$T"

fifo_pool_create "$T/pool" "ab"

for mf in "n" "n -- FOO=x" "kn -j3 --jobserver-auth=fifo:$T/pool" "t" "q -j2"; do
	MAKEFLAGS=$mf "$KWARM" exec -- touch "ran it" > exec.out
	[ ! -e "ran it" ] || fail "MAKEFLAGS='$mf': the command ran"
	[ "$(cat exec.out)" = "touch 'ran it'" ] || fail "MAKEFLAGS='$mf': printed '$(cat exec.out)'"
	echo "ok: MAKEFLAGS='$mf': printed, not run"
done
# Quoted as sh reads it back: a $ stays single (no make recipe here).
MAKEFLAGS=n "$KWARM" exec -- echo "it's \$HOME" > exec.out
[ "$(cat exec.out)" = "echo 'it'\\''s \$HOME'" ] || fail "printed '$(cat exec.out)'"
[ "$(sh -c "$(cat exec.out)")" = "it's \$HOME" ] || fail "'$(cat exec.out)' reads back otherwise"
echo "ok: a quote and a \$ printed as sh reads them back"
[ "$(fifo_pool_take "$T/pool")" = ab ] || fail "a dry run touched the pool"
fifo_pool_put "$T/pool" "ab"

for mf in " --no-print-directory" "-n" "ks -j3" " -- FOO=n"; do
	rm -f "ran it"
	MAKEFLAGS=$mf "$KWARM" exec -- touch "ran it" > exec.out
	[ -e "ran it" ] || fail "MAKEFLAGS='$mf' is no dry run, yet the command did not run"
	echo "ok: MAKEFLAGS='$mf': run"
done

# The real thing: make -n runs the '+' line, kwarm exec does not run its command.
rm -f "ran it"
printf 'all:\n\t+%s exec -- touch ran\n' "$KWARM" > Makefile
must make.out "make -n failed" make -n -j3
[ ! -e ran ] || fail "make -n: the command ran"
holds -x make.out 'touch ran' "make -n: the command was not printed"
must make.out "make failed" make -j3
[ -e ran ] || fail "make without -n: the command did not run"
echo "ok: make -n prints, make runs"
