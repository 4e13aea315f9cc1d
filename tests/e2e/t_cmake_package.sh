#!/usr/bin/env bash
# labels: e2e
# A parent CMake project finds the installed package and adds a warm-up with
# kwarm_add_warmup(); 'make -j4 warmup' runs it nested under the parent's
# jobserver: more than one and at most 4 compiles at once, no jobserver
# warnings. Editing the spec regenerates; changing ARGS regenerates too.
. "$(dirname "$0")/lib.sh"

P=$T/prefix
cmake --install "$(dirname "$KWARM")" --prefix "$P" > install.log 2>&1 || { cat install.log; fail "install failed"; }
standin_example qwen3_decode q
export STANDIN_SCALE=0.03
mkdir -p "$T/proj"
cat > "$T/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(parent C)
find_package(kwarm 0.1 REQUIRED)
kwarm_add_warmup(warmup SPEC \${KW_SPEC} OUTPUT kernels/warmup.mk ARGS --cache $T/cache --out \${KW_OUT})
if(NOT TARGET kwarm::kwarm OR NOT EXISTS "\${kwarm_MAKE_FRAGMENT}")
  message(FATAL_ERROR "package incomplete")
endif()
CM
cd "$T"
cmake -S proj -B b -DCMAKE_PREFIX_PATH="$P" -DKW_SPEC="$T/q/spec.yaml" -DKW_OUT="$T/out" \
	-G "Unix Makefiles" > configure.log 2>&1 || { cat configure.log; fail "configure failed"; }
grep -q 'MAKE) -f .*kernels/warmup.mk warmup' b/CMakeFiles/warmup.dir/build.make ||
	fail "the warm-up is not run through \$(MAKE)"
make -C b -j4 warmup > build.out 2>&1 || { cat build.out; fail "make -j4 warmup failed"; }
[ "$(compiles)" = 39 ] || fail "$(compiles) compiles, want 39"
m=$(max_overlap)
[ "$m" -gt 1 ] && [ "$m" -le 4 ] || { cat build.out; fail "make -j4 warmup: max overlap $m, want 2..4"; }
for bad in "jobserver unavailable" "resetting jobserver mode" "INTERNAL"; do
	if grep -q "$bad" build.out; then cat build.out; fail "make said: $bad"; fi
done
[ -s out/TestQwen3Decode.callable ] || fail "no callable"
grep -Eq '^\[39/39\] built ' build.out || { cat build.out; fail "no [39/39] progress line"; }
pass "find_package(kwarm) + kwarm_add_warmup: make -j4 warmup ran $m at once, no jobserver warnings"

# Up to date: nothing compiles. A changed ARGS list regenerates the Makefile.
: > "$STANDIN_LOG"
make -C b -j4 warmup > again.out 2>&1 || { cat again.out; fail "re-run failed"; }
[ "$(compiles)" = 0 ] || fail "an up-to-date re-run compiled $(compiles) units"
cmake -S proj -B b -DKW_OUT="$T/out2" > reconf.log 2>&1 || { cat reconf.log; fail "reconfigure failed"; }
make -C b -j4 warmup > out2.out 2>&1 || { cat out2.out; fail "run with new ARGS failed"; }
grep -q -- "--out $T/out2" b/kernels/warmup.mk || fail "new ARGS did not regenerate the Makefile"
[ -s out2/TestQwen3Decode.callable ] || fail "no callable in the new out folder"
[ "$(compiles)" = 0 ] || fail "a new out folder recompiled $(compiles) units (the cache is shared)"
pass "up to date: nothing compiled; new ARGS regenerate the Makefile"

# Ninja: no jobserver reaches the target, so it runs make -jKWARM_JOBS itself.
if command -v ninja > /dev/null; then
	rm -rf cache out
	: > "$STANDIN_LOG"
	cmake -S proj -B bn -G Ninja -DCMAKE_PREFIX_PATH="$P" -DKW_SPEC="$T/q/spec.yaml" \
		-DKW_OUT="$T/out" -DKWARM_JOBS=3 > nconf.log 2>&1 || { cat nconf.log; fail "ninja configure failed"; }
	ninja -C bn warmup > ninja.out 2>&1 || { cat ninja.out; fail "ninja warmup failed"; }
	m=$(max_overlap)
	[ "$(compiles)" = 39 ] && [ "$m" -gt 1 ] && [ "$m" -le 3 ] ||
		{ cat ninja.out; fail "Ninja: $(compiles) compiles, max $m at once; want 39 and 2..3"; }
	pass "Ninja: make -j\$KWARM_JOBS (3) in the console pool: max $m at once"
fi
