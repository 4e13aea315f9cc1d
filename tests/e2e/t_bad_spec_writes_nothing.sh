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
	holds "$T/err.txt" "^$spec:[0-9]*:[0-9]*: " "$spec: no FILE:LINE:COL"
	n=$((n + 1))
done
[ "$n" -ge 30 ] || fail "only $n bad specs"
pass "$n bad specs: exit 2, one located error, nothing written"

# A spec gen refuses only once planned (a header whose name has a tab, which
# the Makefile's watch list cannot take): the store is chosen before planning,
# yet the folders that choice made are gone, the cache's and, when the cache
# cannot be used, the private store's.
standin_example minimal p
touch "$T/p/kernels/orchestration/a"$'\t'"b.h"
sed -i '1i #include "a\tb.h"' "$T/p/kernels/orchestration/minimal_orch.cpp"
touch "$T/p/in-the-way"
for cache in "$T/p/new/cache" "$T/p/in-the-way/cache"; do
	set +e
	"$KWARM" gen "$T/p/spec.yaml" -o "$T/p/out/warmup.mk" --cache "$cache" --out "$T/p/out" 2> "$T/err.txt"
	rc=$?
	set -e
	[ "$rc" = 2 ] || { cat "$T/err.txt"; fail "refused after planning: exit status $rc, want 2"; }
	holds "$T/err.txt" "b.h' has a character .*(byte 0x09)" "refused after planning: no reason"
	[ ! -e "$T/p/new" ] && [ ! -e "$T/p/out" ] || fail "refused after planning, yet wrote $(cd "$T/p" && find new out 2>/dev/null)"
done
pass "refused after planning: exit 2, the store's folders removed"

# The same for a word of a compile command: an include folder from a variable
# (the spec refuses a control character in its own text, not in what a
# variable gives), a folder whose name has a tab. The error names the unit,
# its class and the word.
standin_example minimal w
mkdir "$T/w/inc"$'\t'"x"
sed -i '0,/include_dirs: \[include\]/s##include_dirs: [include, "${TABBY}"]#' "$T/w/spec.yaml"
grep -q 'TABBY' "$T/w/spec.yaml" || fail "the include folder was not added"
set +e
TABBY=inc$'\t'x "$KWARM" gen "$T/w/spec.yaml" -o "$T/w/out/warmup.mk" --cache "$T/w/cache" --out "$T/w/out" 2> "$T/err.txt"
rc=$?
set -e
[ "$rc" = 2 ] || { cat "$T/err.txt"; fail "an include folder with a tab: exit status $rc, want 2"; }
holds "$T/err.txt" "^kwarm: error: orchestration '.*' of class TestMinimal: '-Iinc.x' has a character .*(byte 0x09)" \
	"an include folder with a tab: the error does not name the unit, its class and the word"
[ ! -e "$T/w/cache" ] && [ ! -e "$T/w/out" ] || fail "an include folder with a tab, yet wrote $(cd "$T/w" && find cache out 2>/dev/null)"
pass "a command word gen refuses: exit 2, the unit named, nothing written"
