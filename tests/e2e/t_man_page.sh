#!/usr/bin/env bash
# labels: e2e
# The man page formats without a warning from groff and holds what a reader
# looks for (t_install checks the installed page is this one, byte for byte).
. "$(dirname "$0")/lib.sh"
need groff groff-base

page=$KWARM_TEST_SRC/doc/kwarm.1
cd "$T"
groff -man -Tutf8 -ww "$page" > man.txt 2> man.err || fail "groff cannot format the page"
grep -q "kwarm_add_warmup" man.txt || fail "the formatted page lacks the CMake function"
[ ! -s man.err ] || { cat man.err; fail "groff warned about the page"; }
pass "the man page formats cleanly"
