#!/usr/bin/env bash
# labels: e2e
# A header found through the second folder of CPATH (or C_INCLUDE_PATH,
# CPLUS_INCLUDE_PATH) is shadowed by a new file of that name in the first:
# the compiler reads the new one, so the unit compiles again (a plain make
# remakes the Makefile and sees it), and the callable equals an empty-cache
# build. Real g++.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3
unset CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH

P=$T/p
mkdir -p "$P/k" "$P/include" "$T/ca" "$T/cb" "$T/sa" "$T/sb"
cd "$P"
printf '#include <z.h>\nextern "C" int f(void) { return Z; }\n' > k/cpath.cpp
printf '#include <s.h>\nextern "C" int f(void) { return S; }\n' > k/cplus.cpp
echo '#define Z 1' > "$T/cb/z.h"
echo '#define S 1' > "$T/sb/s.h"
export CPATH=$T/ca:$T/cb CPLUS_INCLUDE_PATH=$T/sa:$T/sb
gxx_spec g++ TestShadow=k/cpath.cpp,k/cplus.cpp
gxx_run cold
echo '#define Z 2' > "$T/ca/z.h"
echo '#define S 2' > "$T/sa/s.h"
make -f "$T/w.mk" -j2 warmup > "$T/run.out" 2>&1 || { cat "$T/run.out"; fail "make failed after the new headers"; }
for u in cpath cplus; do
	grep -q "built incore '$u'" "$T/run.out" || { cat "$T/run.out"; fail "the new header did not recompile '$u'"; }
done
gxx_same_as_fresh TestShadow "new headers earlier on CPATH and CPLUS_INCLUDE_PATH"
pass "a new header earlier on CPATH or CPLUS_INCLUDE_PATH recompiles the unit it shadows for"
