#!/usr/bin/env bash
# labels: e2e
# ".." after a folder that is a symlink goes up from where the link points,
# as the kernel resolves it, not back to the folder the link sits in: a header
# reached as "../x.h" from a linked folder (the scanner's closure), or named
# so by a macro (the recorded reads), is the file the compiler opened. An
# edit of it recompiles, and the callable equals an empty-cache build.
. "$(dirname "$0")/lib.sh"
need g++ g++

gxx_project other/sub
ln -s ../other/sub include/sub
printf '#include "../x.h"\n' > other/sub/a.h
echo '#define X 1' > include/x.h
echo '#define X 2' > other/x.h
echo '#define Y 1' > include/y.h
echo '#define Y 2' > other/y.h
printf '#include "sub/a.h"\nextern "C" int f(void) { return X; }\n' > k/quoted.cpp
printf '#define CFG "sub/../y.h"\n#include CFG\nextern "C" int f(void) { return Y; }\n' > k/macro.cpp
gxx_spec g++ TestLink=k/quoted.cpp,k/macro.cpp
gxx_run cold
gxx_same_as_fresh TestLink cold
echo '#define X 3' > other/x.h
gxx_run "other/x.h edited"
grep -q "built incore 'quoted'" "$T/run.out" || { cat "$T/run.out"; fail "editing other/x.h did not recompile 'quoted'"; }
gxx_same_as_fresh TestLink "other/x.h edited"
pass "a header reached as ../x.h through a linked folder is the one the compiler read"
echo '#define Y 3' > other/y.h
gxx_run "other/y.h edited"
grep -q "built incore 'macro'" "$T/run.out" || { cat "$T/run.out"; fail "editing other/y.h did not recompile 'macro'"; }
gxx_same_as_fresh TestLink "other/y.h edited"
pass "a macro-named header reached through a linked folder and .. is recorded as the file read"
