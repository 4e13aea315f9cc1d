#!/usr/bin/env bash
# labels: e2e
# --format github: a failed unit becomes ::error annotations on the compiler's
# file:line:col (relative to GITHUB_WORKSPACE), or on its source when the
# compiler says nothing parseable; each failed class one ::error line, once;
# GITHUB_ACTIONS=true picks the format by itself. summary.json names built,
# failed and cached classes after make -k, and after a fixed re-run.
. "$(dirname "$0")/lib.sh"
need python3 python3

R=$T/ws/k
mkdir -p "$R/sub"
printf 'int ok;\n' > "$R/ok.c"
printf 'int orch;\n' > "$R/orch.c"
printf '// kwarm-standin: fail\n' > "$R/sub/bad.c"
printf '// kwarm-standin: crash\n' > "$R/crash.c"
standin_spec "$R" TestA=sub/bad.c,ok.c TestB=sub/bad.c TestGood=ok.c TestCrash=crash.c
cd "$T"
"$KWARM" gen "$R/spec.yaml" -o gh.mk --cache "$T/cache" --out "$T/out" --format github
grep -q -- '--format github' gh.mk || fail "--format github is not in the Makefile"
if GITHUB_WORKSPACE=$T/ws make -k -f gh.mk -j2 warmup > gh.out 2> gh.err; then fail "the warm-up passed"; fi
grep -qx '::error file=k/sub/bad.c,line=1,col=1::standin failure requested' gh.out ||
	{ cat gh.out gh.err; fail "no annotation on k/sub/bad.c:1:1"; }
[ "$(grep -c '^::error file=k/sub/bad.c' gh.out)" = 1 ] || fail "the failed unit was annotated more than once"
holds -x gh.out "::error file=k/crash.c::incore 'crash' (aiv) failed (classes: TestCrash)" \
	"no fallback annotation for the crash"
for c in TestA TestB; do
	[ "$(grep -c "^::error title=kwarm::class $c failed: incore 'bad' (aiv) did not compile\$" gh.out)" = 1 ] ||
		{ cat gh.out; fail "class $c: not exactly one class line"; }
done
grep -q '^::error title=kwarm::class TestCrash failed' gh.out || fail "no class line for TestCrash"
grep -q 'TestGood' <(grep '^::error' gh.out) && fail "the good class was annotated"
grep -q "kwarm: error: incore 'bad' (aiv) failed at the compile step" gh.err || fail "the plain error block is gone"
pass "github: file:line:col annotations, a fallback on the source, one line per failed class"

python3 - out/.kwarm/summary.json <<'PY' || fail "summary.json after make -k is wrong"
import json, sys
s = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in s["classes"]}
assert [c[n]["status"] for n in ("TestA", "TestB", "TestGood", "TestCrash")] == ["failed", "failed", "built", "failed"], c
assert c["TestA"]["failed_units"] == ["incore 'bad' (aiv)"], c["TestA"]
assert c["TestGood"]["units_built"] == 2 and c["TestGood"]["compile_seconds"] > 0, c["TestGood"]
assert s["units"]["failed"] == 2 and s["units"]["built"] == 2, s["units"]
PY
pass "summary.json after make -k: failed, built, with the failed units"

# Fixed: the next run builds the failed classes; TestGood had nothing to do.
printf 'int fixed;\n' > "$R/sub/bad.c"
printf 'int fixed2;\n' > "$R/crash.c"
must fixed.out "the fixed warm-up failed" make -f gh.mk -j2 warmup
grep -q '^::error' fixed.out && fail "a passing run printed annotations"
python3 - out/.kwarm/summary.json <<'PY' || fail "summary.json after the fixed run is wrong"
import json, sys
s = json.load(open(sys.argv[1]))
c = {x["name"]: x["status"] for x in s["classes"]}
assert c == {"TestA": "built", "TestB": "built", "TestGood": "cached", "TestCrash": "built"}, c
PY
"$KWARM" summary --state out/.kwarm --plan gh.mk.plan > sum.out
holds -x sum.out 'kwarm: warm-up: 3 classes built, 1 cached, 0 failed, 0 pending' "kwarm summary counts"
pass "after the fix: built, and cached for the class with nothing to do"

# GITHUB_ACTIONS=true without --format: the same annotations.
printf '// kwarm-standin: fail\n' > "$R/sub/bad.c"
"$KWARM" gen "$R/spec.yaml" -o plain.mk --cache "$T/cache" --out "$T/out"
grep -q -- '--format' plain.mk && fail "--format in a Makefile generated without it"
make -k -f plain.mk -j2 warmup > plain.out 2>&1 && fail "the warm-up passed"
grep -q '^::' plain.out && fail "annotations without GITHUB_ACTIONS"
GITHUB_ACTIONS=true make -k -f plain.mk -j2 warmup > auto.out 2>/dev/null && fail "the warm-up passed"
holds auto.out "^::error file=.*sub/bad.c,line=1,col=1::standin failure requested" \
	"GITHUB_ACTIONS=true: no annotation"
pass "GITHUB_ACTIONS=true picks the github format; without it, none"

# --format text wins over GITHUB_ACTIONS=true, in every step (compile and pack).
"$KWARM" gen "$R/spec.yaml" -o text.mk --cache "$T/cache" --out "$T/out" --format text
grep -q -- '--format text' text.mk || fail "--format text is not in the Makefile"
GITHUB_ACTIONS=true make -k -f text.mk -j2 warmup > text.out 2>&1 && fail "the warm-up passed"
holds text.out "kwarm: error: incore 'bad' (aiv) failed at the compile step" "no plain error block"
grep -q '^::' text.out && { cat text.out; fail "--format text printed annotations under GITHUB_ACTIONS=true"; }
pass "--format text wins over GITHUB_ACTIONS=true"
