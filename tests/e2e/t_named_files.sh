#!/usr/bin/env bash
# labels: e2e
# Files that flags name: a linker script named in a -Wl list
# (-Wl,--version-script,FILE) and a response file (@FILE, holding a -D) are
# inputs, so their edit recompiles; a file a
# flag names as an output (-Wl,-Map=FILE, -Xlinker -Map -Xlinker FILE) is
# not, so the compile that rewrites it still publishes, and a warm run
# compiles nothing. Real g++; each callable equals an empty-cache build.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3

gxx_project
printf 'extern "C" int f(void) { return 1; }\nextern "C" int g(void) { return 2; }\n' > k/vs.cpp
printf 'extern "C" int f(void) { return 3; }\n' > k/map.cpp
printf 'extern "C" int f(void) { return 4; }\n' > k/xmap.cpp
printf 'extern "C" int f(void) { return VAL; }\n' > k/rsp.cpp
echo '-DVAL=1' > opts.rsp
echo '{ global: f; local: *; };' > vs.txt
gxx_spec g++ TestNamed=k/vs.cpp,k/map.cpp,k/xmap.cpp,k/rsp.cpp
gxx_roles "vs='-Wl,--version-script,vs.txt'" "map='-Wl,-Map=link.map'" "xmap=-Xlinker, -Map, -Xlinker, x.map" \
	"rsp='@opts.rsp'"
builds() { grep -c '\] built ' "$T/run.out" || true; }
gxx_run cold
[ -s link.map ] && [ -s x.map ] || fail "the link maps were not written"
gxx_run "again, the maps written"
gxx_run warm
[ "$(builds)" = 0 ] || { cat "$T/run.out"; fail "a warm run compiled $(builds) units"; }
gxx_same_as_fresh TestNamed warm
pass "a link map a flag names is an output: every run publishes, a warm run compiles nothing"
echo '{ global: *; };' > vs.txt
gxx_run "vs.txt edited"
grep -q "built incore 'vs'" "$T/run.out" || { cat "$T/run.out"; fail "editing vs.txt did not recompile 'vs'"; }
gxx_same_as_fresh TestNamed "vs.txt edited"
pass "a version script named in a -Wl list is an input"
echo '-DVAL=2' > opts.rsp
gxx_run "opts.rsp edited"
grep -q "built incore 'rsp'" "$T/run.out" || { cat "$T/run.out"; fail "editing opts.rsp did not recompile 'rsp'"; }
gxx_same_as_fresh TestNamed "opts.rsp edited"
pass "a response file's edit recompiles the unit that names it"
