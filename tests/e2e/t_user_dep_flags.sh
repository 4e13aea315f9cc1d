#!/usr/bin/env bash
# labels: e2e
# A unit whose flags ask for a dependency file of their own (-MMD, -MD -MF
# FILE, -Wp,-MMD,FILE) still lists every file it read for kwarm: -MMD would
# leave out the system headers (here one found through CPLUS_INCLUDE_PATH),
# and another -MF would send the list away from kwarm's file. An edit of that
# header recompiles each unit, and the callable equals an empty-cache build.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3
unset CPATH C_INCLUDE_PATH LIBRARY_PATH

gxx_project sysdir
export CPLUS_INCLUDE_PATH=$P/sysdir
echo '#define SYSV 8' > sysdir/sysh.h
for u in mmd mf wp; do
	printf '#include <sysh.h>\nextern "C" int f_%s(void) { return SYSV; }\n' "$u" > "k/$u.cpp"
done
gxx_spec g++ TestDeps=k/mmd.cpp,k/mf.cpp,k/wp.cpp
gxx_roles mmd=-MMD "mf=-MD, -MF, user.d" "wp='-Wp,-MMD,user.d'"
gxx_run cold
echo '#define SYSV 80' > sysdir/sysh.h
gxx_run "sysh.h edited"
for u in mmd mf wp; do
	grep -q "built incore '$u'" "$T/run.out" || { cat "$T/run.out"; fail "editing sysh.h did not recompile '$u'"; }
done
gxx_same_as_fresh TestDeps "sysh.h edited"
[ -z "$(find "$T/cache" "$P" -name 'user.d' -o -name '*.tmp*.d')" ] || fail "a dependency file of the user's flags was written"
pass "-MMD, -MD -MF and -Wp,-MMD in a unit's flags: an edit of a system header recompiles each"
