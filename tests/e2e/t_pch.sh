#!/usr/bin/env bash
# labels: e2e
# gcc takes DIR/x.h.gch, when it is valid, before DIR/x.h, in each folder it
# searches, and lists neither in its dependency output; it does not check that
# the .gch was made from x.h as it is. The key covers the .gch's digest: a
# precompiled header made again from another text compiles the unit again,
# and the callable equals an empty-cache build.
. "$(dirname "$0")/lib.sh"
need g++ g++

gxx_project
echo '#define V 1' > include/x.h
printf '#include "x.h"\nextern "C" int f(void) { return V; }\n' > k/pch.cpp
printf 'extern "C" int h(void) { return 3; }\n' > k/plain.cpp
gxx_spec g++ TestPch=k/pch.cpp,k/plain.cpp
# gch V: include/x.h.gch made from a header that says V.
gch() {
	mkdir -p "$T/h"
	echo "#define V $1" > "$T/h/x.h"
	g++ -O2 -fPIC -x c++-header "$T/h/x.h" -o include/x.h.gch || fail "cannot make the .gch"
}
gch 1
gxx_run cold "$T/run1.out"
gxx_same_as_fresh TestPch cold
gch 7
make -f "$T/w.mk" -j2 warmup > "$T/run2.out" 2>&1 || { cat "$T/run2.out"; fail "make failed after the .gch changed"; }
grep -q "built incore 'pch'" "$T/run2.out" || { cat "$T/run2.out"; fail "a new x.h.gch did not compile 'pch' again"; }
! grep -q "built incore 'plain'" "$T/run2.out" || { cat "$T/run2.out"; fail "'plain' was compiled again"; }
gxx_same_as_fresh TestPch "x.h.gch made again"
pass "a precompiled header beside an included one is in the key"
