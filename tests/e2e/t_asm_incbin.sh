#!/usr/bin/env bash
# labels: e2e
# A file the assembler reads (.incbin in an asm statement) is in no compiler's
# dependency output, so no key covers it: a unit whose files name .incbin or
# .include is kept privately (one warning) and compiled again by the next
# run, so an edit of the data is seen; its neighbours are cached.
. "$(dirname "$0")/lib.sh"
need g++ g++

gxx_project
printf 'AAAA' > k/data.bin
printf 'asm(".section .rodata\\n.globl blob\\nblob: .incbin \\"k/data.bin\\"\\n.previous");\n' > include/blob.h
printf '#include "blob.h"\nextern "C" char blob[];\nextern "C" char f(void) { return blob[0]; }\n' > k/bin.cpp
printf 'extern "C" int h(void) { return 3; }\n' > k/plain.cpp
gxx_spec g++ TestBin=k/bin.cpp,k/plain.cpp

gxx_run cold "$T/run1.out"
[ "$(grep -c "incore 'bin' (w): not cached: a file of it names .incbin" "$T/run1.out")" = 1 ] ||
	{ cat "$T/run1.out"; fail "no one warning that 'bin' is not cached"; }
grep -q AAAA "$T/out/TestBin.callable" || fail "the callable lacks the data"
printf 'BBBB' > k/data.bin
make -f "$T/w.mk" -j2 warmup > "$T/run2.out" 2>&1 || { cat "$T/run2.out"; fail "make failed after the data changed"; }
grep -q "built incore 'bin'" "$T/run2.out" || { cat "$T/run2.out"; fail "'bin' was not compiled again"; }
! grep -q "built incore 'plain'" "$T/run2.out" || { cat "$T/run2.out"; fail "'plain' was compiled again"; }
grep -q BBBB "$T/out/TestBin.callable" || fail "the callable has the old data"
gxx_same_as_fresh TestBin "data.bin edited"
pass "a unit whose asm reads a file by .incbin is compiled again each run, its neighbour cached"
