#!/usr/bin/env bash
# labels: e2e
# A unit that links (-shared) takes libraries from its -L folders: no
# compiler's dependency output lists them. The key covers each library a -l
# may take from those folders (libNAME.so, libNAME.a), or that it is not
# there: a rebuilt project library compiles the unit again, and so does one
# that appears in an earlier -L folder and shadows it; make alone sees both.
. "$(dirname "$0")/lib.sh"
need g++ g++
unset LIBRARY_PATH

gxx_project lib lib2
# foo DIR N: DIR/libfoo.a whose foo() returns N.
foo() {
	printf 'extern "C" int foo(void) { return %s; }\n' "$2" > "$T/foo.cpp"
	g++ -O2 -fPIC -c "$T/foo.cpp" -o "$T/foo.o" && rm -f "$1/libfoo.a" && ar rcs "$1/libfoo.a" "$T/foo.o"
}
foo lib 1
printf 'extern "C" int foo(void);\nextern "C" int f(void) { return foo(); }\n' > k/use.cpp
printf 'extern "C" int h(void) { return 3; }\n' > k/plain.cpp
gxx_spec g++ TestLib=k/use.cpp,k/plain.cpp
gxx_roles 'use="-Wl,--whole-archive", -Llib2, -Llib, -lfoo, "-Wl,--no-whole-archive"'
gxx_run cold
gxx_same_as_fresh TestLib cold

# again N WHAT: make alone (the Makefile remakes itself as it must).
again() {
	make -f "$T/w.mk" -j2 warmup > "$T/run$1.out" 2>&1 || { cat "$T/run$1.out"; fail "make failed: $2"; }
	grep -q "built incore 'use'" "$T/run$1.out" || { cat "$T/run$1.out"; fail "$2 did not compile 'use' again"; }
	! grep -q "built incore 'plain'" "$T/run$1.out" || { cat "$T/run$1.out"; fail "$2 compiled 'plain' again"; }
	gxx_same_as_fresh TestLib "$2"
}
foo lib 2
again 2 "lib/libfoo.a rebuilt"
pass "a rebuilt library of an -L folder compiles the unit again"
foo lib2 5
again 3 "lib2/libfoo.a added before lib"
pass "a library that appears in an earlier -L folder compiles the unit again"
