#!/usr/bin/env bash
# labels: e2e
# gcc run directly writes the list of what it read into memory (-MF
# /dev/fd/N), a launcher's compile into a file: either list is read, so an
# edit of a header only the list names (found through CPLUS_INCLUDE_PATH)
# compiles both units again, and no temp is left in the cache.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3
unset CPATH C_INCLUDE_PATH LIBRARY_PATH

gxx_project sysdir bin
real=$(command -v g++)
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >> "%s/args.log"\nexec "%s" "$@"\n' "$T" "$real" > bin/g++
printf '#!/bin/sh\nexec "$@"\n' > bin/run
chmod +x bin/g++ bin/run
export CPLUS_INCLUDE_PATH=$P/sysdir
echo '#define SYSV 8' > sysdir/sysh.h
for u in a b; do
	printf '#include <sysh.h>\nextern "C" int f_%s(void) { return SYSV; }\n' "$u" > "k/$u.cpp"
done
gxx_spec "$P/bin/g++" TestMem=k/a.cpp,k/b.cpp
gxx_roles b=-DB
sed -i "s|^    b: {|    b: {launcher: [$P/bin/run], |" spec.yaml
grep -q "launcher: \[$P/bin/run\]" spec.yaml || { cat spec.yaml; fail "no launcher role"; }
gxx_run cold
grep -q -- "-MF /dev/fd/[0-9]* .*k/a.cpp" "$T/args.log" || { cat "$T/args.log"; fail "gcc run directly did not list into memory"; }
grep -- "k/b.cpp" "$T/args.log" | grep -q -- "-MF /[^ ]*\.tmp\.[^ ]*" ||
	{ cat "$T/args.log"; fail "the launcher's compile did not list into a file"; }
echo '#define SYSV 80' > sysdir/sysh.h
gxx_run "sysh.h edited"
for u in a b; do
	grep -q "built incore '$u'" "$T/run.out" || { cat "$T/run.out"; fail "editing sysh.h did not recompile '$u'"; }
done
gxx_same_as_fresh TestMem "sysh.h edited"
[ -z "$(find "$T/cache" -name '*.tmp.*')" ] || { find "$T/cache" -name '*.tmp.*'; fail "a temp was left in the cache"; }
pass "gcc's list in memory, a launcher's in a file: an edit of a header only the list names recompiles each"
