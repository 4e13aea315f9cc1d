#!/usr/bin/env bash
# labels: e2e
# Variables that steer a compile. CCC_OVERRIDE_OPTIONS edits clang's command
# ("+-O0" adds -O0): it is in the key, and a change of it remakes the
# Makefile. DEPENDENCIES_OUTPUT of the caller would win over the
# SUNPRO_DEPENDENCIES through which gcc lists what a unit of several sources
# read: the compile runs without it, so its list (a macro-named header) is
# recorded, and no run of the compiler writes the caller's file.
. "$(dirname "$0")/lib.sh"
need g++ g++
need clang++ clang
unset CCC_OVERRIDE_OPTIONS DEPENDENCIES_OUTPUT SUNPRO_DEPENDENCIES

gxx_project
printf 'extern "C" int f(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }\n' > k/sum.cpp
gxx_spec clang++ TestClang=k/sum.cpp
sed -i 's/deps: gcc/deps: clang/' spec.yaml
gxx_run cold
export CCC_OVERRIDE_OPTIONS=+-O0
make -f "$T/w.mk" -j2 warmup > "$T/run2.out" 2>&1 || { cat "$T/run2.out"; fail "make failed with CCC_OVERRIDE_OPTIONS"; }
grep -q "built incore 'sum'" "$T/run2.out" || { cat "$T/run2.out"; fail "CCC_OVERRIDE_OPTIONS set: 'sum' not compiled again"; }
gxx_same_as_fresh TestClang "CCC_OVERRIDE_OPTIONS=+-O0"
unset CCC_OVERRIDE_OPTIONS
make -f "$T/w.mk" -j2 warmup > "$T/run3.out" 2>&1 || { cat "$T/run3.out"; fail "make failed once it was unset"; }
! grep -q "built incore" "$T/run3.out" || { cat "$T/run3.out"; fail "unset again: compiled, not the first entry"; }
gxx_same_as_fresh TestClang "CCC_OVERRIDE_OPTIONS unset again"
pass "CCC_OVERRIDE_OPTIONS is in clang units' keys"

Q=$T/q
mkdir -p "$Q/k" "$Q/include"
cd "$Q"
printf 'extern "C" int h(void) { return 3; }\n' > k/plain.cpp
gxx_spec g++ TestSeveral=k/plain.cpp
echo '#define V 1' > k/cfg.h
printf 'extern "C" int g(void) { return 2; }\n' > k/extra.cpp
printf '#define CFG "cfg.h"\n#include CFG\nextern "C" int orch(void) { return V; }\n' > k/orch.cpp
sed -i 's/  orchestration: {compiler: g++, flags: \[-O2, -fPIC, -shared\]}/  orchestration: {compiler: g++, flags: [-O2, -fPIC, -shared], sources: [k\/extra.cpp]}/' spec.yaml
grep -q 'sources: \[k/extra.cpp\]' spec.yaml || { cat spec.yaml; fail "no extra source"; }
export DEPENDENCIES_OUTPUT=$T/user.d
rm -rf "$T/cache" "$T/out"
gxx_run "DEPENDENCIES_OUTPUT set" "$T/run4.out"
! grep -q 'not cached' "$T/run4.out" || { cat "$T/run4.out"; fail "gcc's list was not written: not cached"; }
# Nor does the run that learns the compiler's search list (-E -v) write it.
[ ! -e "$T/user.d" ] || fail "a compile wrote the caller's DEPENDENCIES_OUTPUT file"
echo '#define V 2' > k/cfg.h
make -f "$T/w.mk" -j2 warmup > "$T/run5.out" 2>&1 || { cat "$T/run5.out"; fail "make failed after cfg.h changed"; }
grep -q "built orchestration 'k/orch.cpp'" "$T/run5.out" || { cat "$T/run5.out"; fail "editing cfg.h did not compile the orchestration again"; }
gxx_same_as_fresh TestSeveral "cfg.h edited"
pass "a unit of several sources records what gcc read with DEPENDENCIES_OUTPUT set"
