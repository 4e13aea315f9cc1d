#!/usr/bin/env bash
# labels: e2e
# A parent CMake project finds the installed package and adds a warm-up with
# kwarm_add_warmup(); 'make -j4 warmup' runs it nested under the parent's
# jobserver: more than one and at most 4 compiles at once, no jobserver
# warnings. Editing the spec regenerates; changing ARGS regenerates too.
# Without --cache in ARGS the cache is the build tree's kwarm-cache (not the
# spec's, in the source tree), or KWARM_CACHE as set when configuring.
. "$(dirname "$0")/lib.sh"

parent_project
cmake -S proj -B b -DCMAKE_PREFIX_PATH="$P" -DKW_SPEC="$T/q/spec.yaml" -DKW_OUT="$T/out" \
	-G "Unix Makefiles" > configure.log 2>&1 || { cat configure.log; fail "configure failed"; }
grep -q 'MAKE) -f .*kernels/warmup.mk warmup' b/CMakeFiles/warmup.dir/build.make ||
	fail "the warm-up is not run through \$(MAKE)"
must build.out "make -j4 warmup failed" make -C b -j4 warmup
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
must again.out "re-run failed" make -C b -j4 warmup
[ "$(compiles)" = 0 ] || fail "an up-to-date re-run compiled $(compiles) units"
must reconf.log "reconfigure failed" cmake -S proj -B b -DKW_OUT="$T/out2"
must out2.out "run with new ARGS failed" make -C b -j4 warmup
grep -qx "KW_OUT := $T/out2" b/kernels/warmup.mk || fail "new ARGS did not regenerate the Makefile"
[ -s out2/TestQwen3Decode.callable ] || fail "no callable in the new out folder"
[ "$(compiles)" = 0 ] || fail "a new out folder recompiled $(compiles) units (the cache is shared)"
pass "up to date: nothing compiled; new ARGS regenerate the Makefile"

# No --cache in ARGS: the cache is the build tree's, never the spec's own
# (q/.kwarm/cache, beside the sources), nor the one above.
rm -rf cache q/.kwarm
: > "$STANDIN_LOG"
cmake -S proj -B bd -DCMAKE_PREFIX_PATH="$P" -DKW_SPEC="$T/q/spec.yaml" -DKW_OUT="$T/outd" -DKW_CACHE_ARGS= \
	-G "Unix Makefiles" > dconf.log 2>&1 || { cat dconf.log; fail "configure without --cache failed"; }
must d.out "make -j4 warmup without --cache failed" make -C bd -j4 warmup
[ "$(compiles)" = 39 ] || fail "without --cache: $(compiles) compiles, want 39"
[ -s outd/TestQwen3Decode.callable ] || fail "without --cache: no callable"
entries=$(find bd/kwarm-cache/units -name '*.m' 2> /dev/null | wc -l)
[ "$entries" = 39 ] || fail "without --cache: bd/kwarm-cache holds $entries entries, want 39"
[ ! -e q/.kwarm ] && [ ! -e cache ] || fail "without --cache the warm-up wrote outside its build folder"
pass "no --cache in ARGS: the cache is BUILD/kwarm-cache, nothing written beside the spec"

# KWARM_CACHE when configuring names the cache; --cache in ARGS beats it.
KWARM_CACHE=$T/envcache cmake -S proj -B be -DCMAKE_PREFIX_PATH="$P" -DKW_SPEC="$T/q/spec.yaml" \
	-DKW_OUT="$T/oute" -DKW_CACHE_ARGS= -G "Unix Makefiles" > econf.log 2>&1 || { cat econf.log; fail "configure with KWARM_CACHE failed"; }
must e.out "make -j4 warmup with KWARM_CACHE failed" make -C be -j4 warmup
entries=$(find envcache/units -name '*.m' 2> /dev/null | wc -l)
[ "$entries" = 39 ] || fail "KWARM_CACHE at configure time: it holds $entries entries, want 39"
[ ! -e be/kwarm-cache ] || fail "KWARM_CACHE set, yet the build tree got a cache"
KWARM_CACHE=$T/envcache cmake -S proj -B bf -DCMAKE_PREFIX_PATH="$P" -DKW_SPEC="$T/q/spec.yaml" \
	-DKW_OUT="$T/outf" -G "Unix Makefiles" > fconf.log 2>&1 || { cat fconf.log; fail "configure with both failed"; }
grep -qx -- "$T/cache" bf/kernels/warmup.mk.args && ! grep -q envcache bf/kernels/warmup.mk.args ||
	{ cat bf/kernels/warmup.mk.args; fail "--cache in ARGS did not win over KWARM_CACHE"; }
pass "KWARM_CACHE at configure time is the cache; ARGS' --cache wins over it"
