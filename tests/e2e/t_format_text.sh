#!/usr/bin/env bash
# labels: e2e
# --format text wins over GITHUB_ACTIONS=true in each step that reports a
# failure: kwarm compile (a unit that fails) and kwarm pack (a callable whose
# unit left the cache), each run by hand as its recipe says; and in kwarm
# summary. The same steps without --format print ::error (summary: ::notice)
# lines there, so the check can fail.
. "$(dirname "$0")/lib.sh"

R=$T/k
mkdir -p "$R"
printf 'int orch;\n' > "$R/orch.c"
printf 'int ok;\n' > "$R/ok.c"
printf '// kwarm-standin: fail\n' > "$R/bad.c"
standin_spec "$R" TestBad=bad.c TestGood=ok.c
cd "$T"
"$KWARM" gen "$R/spec.yaml" -o w.mk --cache "$T/cache" --out "$T/out" --format text
# The recipes as make would run them (make -n prints them whole).
make -n -f w.mk warmup > recipes
compile_bad=$(grep -- ' compile .*--format text.* bad\.c$' recipes) || { cat recipes; fail "no compile recipe for bad.c"; }
pack_good=$(grep -- ' pack .*--format text.*/TestGood\.callable ' recipes) || { cat recipes; fail "no pack recipe for TestGood"; }
mkdir -p out/.kwarm

# run NAME COMMAND: run COMMAND under GITHUB_ACTIONS=true, expecting failure;
# its stdout in NAME.out, its stderr in NAME.err.
run() {
	if GITHUB_ACTIONS=true bash -c "$2" > "$1.out" 2> "$1.err"; then fail "$1: the step passed"; fi
}

run compile_text "$compile_bad"
grep -q "kwarm: error: incore 'bad' (aiv) failed at the compile step" compile_text.err ||
	{ cat compile_text.out compile_text.err; fail "compile: no plain error block"; }
grep -q '^::' compile_text.out && { cat compile_text.out; fail "compile --format text printed annotations under GITHUB_ACTIONS=true"; }
run compile_auto "${compile_bad/ --format text/}"
holds compile_auto.out '^::error file=.*bad\.c' "compile without --format: no annotation"
pass "compile: --format text over GITHUB_ACTIONS=true (without it: annotations)"

# A pack whose unit left the cache, with no compile records to redo it.
must good.out "the good class did not build" make -f w.mk warmup-TestGood
rm -rf cache/units out/TestGood.callable
pack_good=$(sed 's/--cmds [0-9]*/--cmds 0/' <<< "$pack_good")
run pack_text "$pack_good"
grep -q "kwarm: error: cannot pack .* is no longer in the cache" pack_text.err ||
	{ cat pack_text.out pack_text.err; fail "pack: no plain error"; }
grep -q '^::' pack_text.out && { cat pack_text.out; fail "pack --format text printed annotations under GITHUB_ACTIONS=true"; }
run pack_auto "${pack_good/ --format text/}"
grep -q '^::error title=kwarm::class TestGood failed at the pack step' pack_auto.out ||
	{ cat pack_auto.out pack_auto.err; fail "pack without --format: no annotation"; }
pass "pack: --format text over GITHUB_ACTIONS=true (without it: annotations)"

# kwarm summary, the third step that speaks in either form.
GITHUB_ACTIONS=true "$KWARM" summary --state out/.kwarm --plan w.mk.plan --format text > sum_text.out
holds sum_text.out '^kwarm: warm-up: ' "summary --format text: not the plain line"
GITHUB_ACTIONS=true "$KWARM" summary --state out/.kwarm --plan w.mk.plan > sum_auto.out
holds sum_auto.out '^::notice title=kwarm::warm-up: ' "summary without --format: no notice"
pass "summary: --format text over GITHUB_ACTIONS=true (without it: a notice)"
