#!/usr/bin/env bash
# labels: e2e
# A unit whose flags ask for a dependency file of their own (-MMD, -MD -MF
# FILE, -Wp,-MMD,FILE) still lists every file it read for kwarm: -MMD would
# leave out the system headers (here one found through CPLUS_INCLUDE_PATH),
# and another -MF would send the list away from kwarm's file. An edit of that
# header recompiles each unit, and the callable equals an empty-cache build.
. "$(dirname "$0")/lib.sh"
need g++ g++
unset CPATH C_INCLUDE_PATH LIBRARY_PATH

P=$T/p
mkdir -p "$P/k" "$P/include" "$P/sysdir"
cd "$P"
export CPLUS_INCLUDE_PATH=$P/sysdir
echo '#define SYSV 8' > sysdir/sysh.h
for u in mmd mf wp; do
	printf '#include <sysh.h>\nextern "C" int f_%s(void) { return SYSV; }\n' "$u" > "k/$u.cpp"
done
gxx_spec g++ TestDeps=k/mmd.cpp,k/mf.cpp,k/wp.cpp
# Each unit its own flags (gxx_spec gives them all role w).
python3 - <<'PY'
s = open("spec.yaml").read()
role = s[s.index("    w: {"):s.index("\n", s.index("    w: {")) + 1]
roles = ""
for name, flag in (("mmd", "-MMD"), ("mf", "-MD, -MF, user.d"), ("wp", "'-Wp,-MMD,user.d'")):
    roles += role.replace("    w:", "    %s:" % name).replace("-shared]", "-shared, %s]" % flag)
    s = s.replace("source: k/%s.cpp, core_type: w" % name, "source: k/%s.cpp, core_type: %s" % (name, name))
open("spec.yaml", "w").write(s.replace(role, roles))
PY
run() {
	"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out" 2> "$T/gen.err" ||
		{ cat "$T/gen.err"; fail "gen failed"; }
	make -f "$T/w.mk" -j2 warmup > "$T/run.out" 2>&1 || { cat "$T/run.out"; fail "make failed: $1"; }
}
run cold
echo '#define SYSV 80' > sysdir/sysh.h
run "sysh.h edited"
for u in mmd mf wp; do
	grep -q "built incore '$u'" "$T/run.out" || { cat "$T/run.out"; fail "editing sysh.h did not recompile '$u'"; }
done
"$KWARM" gen spec.yaml -o "$T/f.mk" --cache "$T/fresh" --out "$T/fresh-out" 2> /dev/null
make -f "$T/f.mk" -j2 warmup > /dev/null 2>&1 || fail "the empty-cache build failed"
cmp "$T/out/TestDeps.callable" "$T/fresh-out/TestDeps.callable" ||
	fail "the callable differs from an empty-cache build (a stale entry was used)"
[ -z "$(find "$T/cache" "$P" -name 'user.d' -o -name '*.tmp*.d')" ] || fail "a dependency file of the user's flags was written"
pass "-MMD, -MD -MF and -Wp,-MMD in a unit's flags: an edit of a system header recompiles each"
