#!/usr/bin/env bash
# labels: e2e
# Keep going by default, with real g++: one class of three has a unit with a
# compile error; make -j2 warmup (no -k given) exits non-zero, the two other
# classes are packed byte for byte as a build of them alone packs them,
# summary.json marks exactly that class failed with that unit, and the last
# lines name it. Nested under a parent make the -k stays in the warm-up.
# KWARM_STOP=1 stops at the first error. make -n compiles nothing. Two packs
# that end together are both counted in the closing lines.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3

R=$T/root
mkdir -p "$R/inc"
printf '#define KW_SCALE 3\n' > "$R/inc/k.h"
printf '#include "k.h"\nextern "C" int entry(int x) { return x * KW_SCALE; }\n' > "$R/orch.cpp"
printf '#include "k.h"\nextern "C" int ka(int x) { return x + KW_SCALE; }\n' > "$R/a.cpp"
printf 'extern "C" int kb(int x) { return x * 2; }\n' > "$R/b.cpp"
printf 'extern "C" int kc(int x) { return x - not_declared; }\n' > "$R/bad.cpp"
head() {
	printf 'version: 1\nplatform: a5sim\ntoolchains:\n'
	printf '  orchestration: {compiler: g++, flags: [-O2, -fPIC, -shared], include_dirs: [inc]}\n'
	printf '  incore: {aiv: {compiler: g++, flags: [-O2, -fPIC, -shared], include_dirs: [inc]}}\n'
	printf 'classes:\n'
}
class() { # NAME SRC...
	local name=$1 i=0 sep='' src
	shift
	printf '  - name: %s\n    callable:\n' "$name"
	printf '      orchestration: {source: orch.cpp, function_name: entry, signature: [IN, OUT]}\n'
	printf '      incores: ['
	for src in "$@"; do
		printf '%s{func_id: %d, source: %s, core_type: aiv, signature: [IN]}' "$sep" "$i" "$src"
		sep=', ' i=$((i + 1))
	done
	printf ']\n'
}
{ head; class TestA a.cpp; class TestBad a.cpp bad.cpp; class TestB b.cpp; } > "$R/spec.yaml"
{ head; class TestA a.cpp; class TestB b.cpp; } > "$R/good.yaml"
cd "$T"
"$KWARM" gen root/spec.yaml -o w.mk --cache "$T/cache" --out "$T/out"
"$KWARM" gen root/good.yaml -o good.mk --cache "$T/cache.good" --out "$T/out.good"

# make -n: no compiler, nothing in the cache or out.
must dry.txt "make -n failed" make -n -f w.mk -j2 warmup
[ -z "$(find cache out -name '*.m' -o -name '*.callable' 2>/dev/null)" ] || fail "make -n compiled or packed"
pass "make -n warmup runs no compiler"

# The reference: the two good classes alone.
must good.txt "the good classes alone failed" make -f good.mk -j2 warmup

if make -f w.mk -j2 warmup > all.txt 2>&1; then cat all.txt; fail "make -j2 warmup succeeded"; fi
for c in TestA TestB; do
	[ -s "out/$c.callable" ] || { cat all.txt; fail "$c was not packed: make stopped at the error"; }
	cmp "out/$c.callable" "out.good/$c.callable" || fail "$c differs from a build of the good classes alone"
	[ "$(stat -c %s "out/$c.callable")" -gt 9376 ] || fail "$c holds no binaries"
done
[ ! -e out/TestBad.callable ] || fail "the failed class was packed"
grep -q "error: .*not_declared" all.txt || fail "the compiler's error is not shown"
pass "make -j2 warmup (no -k given): exit non-zero, the other two classes packed and right"

python3 - out/.kwarm/summary.json <<'PY' || fail "summary.json is wrong"
import json, sys
s = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in s["classes"]}
assert {n: x["status"] for n, x in c.items()} == {"TestA": "built", "TestBad": "failed", "TestB": "built"}, c
assert c["TestBad"]["failed_units"] == ["incore 'bad' (aiv)"], c["TestBad"]
assert c["TestA"]["failed_units"] == [] and c["TestB"]["failed_units"] == [], c
assert s["units"]["failed"] == 1 and s["units"]["built"] == 3, s["units"]
PY
pass "summary.json: exactly TestBad failed, with its unit"

grep -v '^make' all.txt | tail -n 2 > closing.txt
diff - closing.txt <<EOF || { cat all.txt; fail "the last lines do not name the failed class"; }
kwarm: warm-up failed: 1 of 3 classes failed (2 built, 0 cached, 0 pending); see '$T/out/.kwarm/summary.json'
kwarm: class TestBad failed: incore 'bad' (aiv)
EOF
[ "$(grep -c '^kwarm: warm-up failed' all.txt)" = 1 ] || fail "the closing lines were printed more than once"
pass "the last lines name the failed class and its unit, once"

# Nested: the parent stops at the failed sub-make (its own flags, no -k), the
# warm-up inside keeps going.
rm -rf cache out
cat > parent.mk <<'EOF'
all: after
sub: ; +$(MAKE) -f w.mk warmup
after: sub ; touch after-ran
EOF
if make -f parent.mk -j2 > nested.txt 2>&1; then cat nested.txt; fail "the parent succeeded"; fi
[ ! -e after-ran ] || fail "-k leaked into the parent make"
[ -s out/TestA.callable ] && [ -s out/TestB.callable ] || { cat nested.txt; fail "nested: the warm-up did not keep going"; }
grep -q "^kwarm: class TestBad failed: incore 'bad' (aiv)" nested.txt || fail "nested: no closing lines"
pass "nested under a parent make: the warm-up keeps going, the parent does not"

# KWARM_STOP=1 stops at the first error. At -j1 make takes warmup's units in
# order (orch, a, bad, b): TestA, whole before 'bad' fails, is packed at once
# by the step of its last unit (packnow.h); keeping going would also pack
# TestB; stopping compiles and packs nothing more.
rm -rf cache out
if make -f w.mk -j1 KWARM_STOP=1 warmup > stop.txt 2>&1; then cat stop.txt; fail "KWARM_STOP=1 succeeded"; fi
[ "$(cd out && find . -name '*.callable' -type f)" = ./TestA.callable ] || { cat stop.txt; fail "KWARM_STOP=1 packed a class after the error"; }
sed -n "/failed incore 'bad'/,\$p" stop.txt | grep -q '^kwarm: packed' && { cat stop.txt; fail "KWARM_STOP=1 packed after the error"; }
grep '^\[' stop.txt | tail -n 1 | grep -q "failed incore 'bad' (aiv)" || { cat stop.txt; fail "a unit compiled after the error"; }
holds stop.txt "^kwarm: class TestBad failed: incore 'bad' (aiv)" "KWARM_STOP=1: no closing lines"
grep -q "Target 'warmup' not remade" stop.txt && fail "KWARM_STOP=1 kept going"
pass "KWARM_STOP=1: stops at the first error and names the class"

# A spec that no longer loads stops the run before any step (under -k make
# would go on with the stale plan), and every later run tries gen again.
rm -rf cache out
cp root/spec.yaml spec.ok
printf '  - name: [\n' >> root/spec.yaml
touch -d '1 hour ago' w.mk
for run in 1 2; do
	if make -f w.mk -j2 warmup > gen$run.txt 2>&1; then fail "run $run with a broken spec succeeded"; fi
	holds gen$run.txt 'spec.yaml:[0-9]*:[0-9]*: ' "run $run: gen did not run"
	holds gen$run.txt '\*\*\* kwarm gen failed (see above); fix that, then run make again.  Stop.' \
		"run $run: the failed gen did not stop make"
	[ -z "$(find cache out -name '*.m' -o -name '*.callable' 2>/dev/null)" ] || fail "run $run: the stale plan ran"
	grep -q '^\$(error kwarm gen failed' w.mk || fail "run $run: no failure lines in the Makefile"
done
cp spec.ok root/spec.yaml
if make -f w.mk -j2 warmup > fixed.txt 2>&1; then fail "TestBad still has its error"; fi
[ -s out/TestA.callable ] && [ -s out/TestB.callable ] || { cat fixed.txt; fail "the fixed spec did not warm up"; }
grep -q '^\$(error kwarm gen failed' w.mk && fail "the regenerated Makefile kept the failure lines"
pass "a spec that does not load stops the run; fixed, the next run regenerates and warms up"

# Two packs that end together (their shared unit compiled last, held until the
# others have ended): the closing lines come from the step that really ends
# the run, and count both classes built. (The first pack to end once took the
# other's stamp, written before its event, for the end, and said "1 cached".)
export STANDIN_SCALE=0
mkdir -p "$T/two"
for u in a b; do printf 'int %s;\n' "$u" > "$T/two/$u.c"; done
printf 'kwarm-standin: fail\n' > "$T/two/bad.c"
printf 'kwarm-standin: block %s\nint orch;\n' "$T/holdO" > "$T/two/orch.c"
standin_spec "$T/two" TestA=a.c TestBad=bad.c TestB=b.c
trap 'touch "$T/holdO.go"' EXIT
"$KWARM" gen two/spec.yaml -o two.mk --cache "$T/cache.two" --out "$T/out.two"
make -f two.mk -j2 warmup > two.txt 2>&1 &
mk=$!
wait_file "$T/holdO" "$mk"
i=0
until [ "$(grep -c '^end .* \(a\|b\|bad\)\.c$' "$STANDIN_LOG")" = 3 ]; do
	kill -0 "$mk" 2>/dev/null || { cat two.txt; fail "the run ended before its other units did"; }
	i=$((i + 1))
	[ "$i" -lt 6000 ] || fail "timed out waiting for the units other than orch.c"
	sleep 0.01
done
touch "$T/holdO.go"
if wait "$mk"; then cat two.txt; fail "the run with a failed unit succeeded"; fi
grep -v '^make' two.txt | tail -n 2 > closing.txt
diff - closing.txt <<EOF2 || { cat two.txt; fail "the closing lines miscount two packs that ended together"; }
kwarm: warm-up failed: 1 of 3 classes failed (2 built, 0 cached, 0 pending); see '$T/out.two/.kwarm/summary.json'
kwarm: class TestBad failed: incore 'bad' (aiv)
EOF2
pass "two packs that end together: the closing lines count both built"
