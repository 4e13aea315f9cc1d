#!/usr/bin/env bash
# labels: e2e
# A unit whose files name __DATE__, __TIME__ or __TIMESTAMP__ is never served
# from the cache with another time's bytes: the key covers content, not the
# clock nor a file's mtime. Such a unit is kept privately (one warning) and
# compiled again by the next run; with SOURCE_DATE_EPOCH set (in the key), a
# unit naming only __DATE__ and __TIME__ is cached as any other.
. "$(dirname "$0")/lib.sh"
need g++ g++

gxx_project
printf '#define BUILT __DATE__ " " __TIME__\n' > include/clock.h
printf '#include "clock.h"\nextern "C" const char *f(void) { return BUILT; }\n' > k/clock.cpp
printf 'extern "C" const char *g(void) { return __TIMESTAMP__; }\n' > k/stamp.cpp
printf 'extern "C" int h(void) { return 3; }\n' > k/plain.cpp
gxx_spec g++ TestClock=k/clock.cpp,k/plain.cpp TestStamp=k/stamp.cpp

# run N: gen and make -j2 warmup, make's output in $T/runN.out.
run() {
	gxx_run "run $1" "$T/run$1.out"
}

touch -d '2001-01-01 00:00:00' k/stamp.cpp
run 1
for u in clock stamp; do
	[ "$(grep -c "incore '$u' (w): not cached: a file of it names __" "$T/run1.out")" = 1 ] ||
		{ cat "$T/run1.out"; fail "no one warning that $u is not cached"; }
done
touch -d '2002-02-02 00:00:00' k/stamp.cpp
run 2
grep -q "built incore 'clock'" "$T/run2.out" ||
	{ cat "$T/run2.out"; fail "the __DATE__ __TIME__ unit was not compiled again"; }
! grep -q "built incore 'plain'" "$T/run2.out" ||
	{ cat "$T/run2.out"; fail "a unit beside it was compiled again"; }
gxx_same_as_fresh TestStamp "__TIMESTAMP__ after the source's mtime changed"
pass "a unit naming __DATE__, __TIME__ or __TIMESTAMP__ is compiled again, its neighbours hit"

export SOURCE_DATE_EPOCH=1000000000
run 3
! grep -q "not cached: a file of it names __DATE__" "$T/run3.out" ||
	{ cat "$T/run3.out"; fail "not cached with SOURCE_DATE_EPOCH set"; }
run 4
! grep -q "built incore 'clock'" "$T/run4.out" ||
	{ cat "$T/run4.out"; fail "with SOURCE_DATE_EPOCH set, compiled again"; }
gxx_same_as_fresh TestClock "__DATE__ __TIME__ with SOURCE_DATE_EPOCH"
pass "with SOURCE_DATE_EPOCH set, a __DATE__ __TIME__ unit hits and equals an empty-cache build"
