#!/usr/bin/env bash
# labels: e2e
# Header names with a space, '#', '$', ':' or a backslash, read through
# gcc's and clang's dependency output. gcc doubles the backslashes before an
# escaped space; clang 14 also writes each lone backslash as '/', so that
# "b\s.h" comes out as "b/s.h". Every such header, named by a macro (so the
# dependency output alone says it was read), is recorded as the file the
# compiler opened: the unit never fails for it, an edit of any of them
# compiles it again, and with both "b/s.h" and "b\s.h" present an edit of the
# one read is seen.
. "$(dirname "$0")/lib.sh"
need g++ g++
need clang++ clang

gxx_project
names=('a b.h' 'h#.h' 'd$.h' 'c:o.h' 'b\s.h' 'x y\.h' 'w\ .h' 'e\#.h')
src() {
	local i=0 n
	for n in "${names[@]}"; do
		printf '#define H%d "%s"\n#include H%d\n' "$i" "$n" "$i"
		printf '#define N%d 0\n' "$i" > "include/$n"
		i=$((i + 1))
	done
	printf 'extern "C" int f(void) { return N0 + N1 + N2 + N3 + N4 + N5 + N6 + N7; }\n'
}
gxx_spec g++ TestNames=k/g.cpp,k/c.cpp
src > k/g.cpp
cp k/g.cpp k/c.cpp
gxx_roles c=-Wno-unknown-escape-sequence
sed -i 's/^    c: {compiler: g++, deps: gcc,/    c: {compiler: clang++, deps: clang,/' spec.yaml
grep -q 'c: {compiler: clang++' spec.yaml || { cat spec.yaml; fail "no clang role"; }

gxx_run cold
gxx_same_as_fresh TestNames cold
pass "gcc and clang units naming such headers compile and are cached"

i=0
for n in "${names[@]}"; do
	printf '#define N%d %d\n' "$i" $((i + 1)) > "include/$n"
	gxx_run "'$n' edited"
	for u in g c; do
		grep -q "built incore '$u'" "$T/run.out" ||
			{ cat "$T/run.out"; fail "editing '$n' did not recompile '$u'"; }
	done
	i=$((i + 1))
done
gxx_same_as_fresh TestNames "all edited"
pass "an edit of each of them compiles both units again"

# "b/s.h" beside "b\s.h": clang's "b/s.h" may name either. The unit is
# compiled with both there, then the one it read is edited.
mkdir include/b
printf '#define N4 0\n' > include/b/s.h
printf '#define N4 7\n' > 'include/b\s.h'
gxx_run "'b\\s.h' edited, b/s.h added"
grep -q "built incore 'c'" "$T/run.out" || { cat "$T/run.out"; fail "editing 'b\\s.h' did not recompile the clang unit"; }
printf '#define N4 9\n' > 'include/b\s.h'
gxx_run "'b\\s.h' edited beside b/s.h"
grep -q "built incore 'c'" "$T/run.out" ||
	{ cat "$T/run.out"; fail "with b/s.h present, editing 'b\\s.h' did not recompile the clang unit"; }
gxx_same_as_fresh TestNames "b\\s.h edited beside b/s.h"
pass "clang's b/s.h beside a b\\s.h: the file read is covered"
