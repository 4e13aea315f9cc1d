#!/usr/bin/env bash
# labels: e2e
# Every spec of the bad corpus: exit status 2, one error line naming the file,
# no Makefile, no cache or out folder written.
. "$(dirname "$0")/lib.sh"

bad=$KWARM_TEST_SRC/tests/specs/bad
n=0
cd "$bad"
for spec in *.yaml; do
	rm -rf "$T/run"
	mkdir -p "$T/run"
	set +e
	KWARM_CACHE=$T/run/cache "$KWARM" gen "$spec" -o "$T/run/warmup.mk" --out "$T/run/out" 2> "$T/err.txt"
	rc=$?
	set -e
	[ "$rc" = 2 ] || fail "$spec: exit status $rc, want 2"
	[ -z "$(ls -A "$T/run")" ] || fail "$spec: wrote $(ls -A "$T/run")"
	[ "$(wc -l < "$T/err.txt")" = 1 ] || { cat "$T/err.txt"; fail "$spec: not exactly one error line"; }
	grep -q "^$spec:[0-9]*:[0-9]*: " "$T/err.txt" || { cat "$T/err.txt"; fail "$spec: no FILE:LINE:COL"; }
	n=$((n + 1))
done
[ "$n" -ge 30 ] || fail "only $n bad specs"
pass "$n bad specs: exit 2, one located error, nothing written"
