#!/usr/bin/env bash
# labels: e2e;slow
# Exact keys with real g++: a unit's key covers every file the compiler really
# read (its dependency output), the variables that steer it, and the answers of
# __has_include. Each edit below recompiles exactly the one unit that read the
# file, with a plain `make warmup`, and the callable equals an empty-cache build.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3
unset CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LIBRARY_PATH SOURCE_DATE_EPOCH

P=$T/p
mkdir -p "$P/k" "$P/include" "$P/inc1" "$P/inc2" "$P/sysdir" "$P/cpathdir"
cd "$P"
printf '#include <cstring>\nextern "C" int orch(void) { return (int)strlen("x"); }\n' > k/orch.cpp
printf '#define CFG "scale.h"\n#include CFG\nextern "C" int f(void) { return SCALE; }\n' > k/macro.cpp
echo '#define SCALE 3' > include/scale.h
printf '#include HDR\nextern "C" int f(void) { return DFLAG; }\n' > k/dflag.cpp
echo '#define DFLAG 4' > include/dflag.h
printf '#include <cpathhdr.h>\nextern "C" int f(void) { return CPATHV; }\n' > k/cpath.cpp
echo '#define CPATHV 5' > cpathdir/cpathhdr.h
printf 'extern "C" int f(void) { return NESTED; }\n' > k/pre.cpp
echo '#include "nested.h"' > include/pre.h
echo '#define NESTED 6' > include/nested.h
printf '#include <nx.h>\nextern "C" int f(void) { return NX; }\n' > k/next.cpp
echo '#include_next <nx.h>' > inc1/nx.h
echo '#define NX 7' > inc2/nx.h
printf '#if __has_include("later.h")\n#include "later.h"\n#else\n#define LATER 0\n#endif\nextern "C" int f(void) { return LATER; }\n' > k/has.cpp
printf '#include <sysh.h>\nextern "C" int f(void) { return SYSV; }\n' > k/sys.cpp
echo '#define SYSV 8' > sysdir/sysh.h
echo 'extern "C" int f(void) { return 9; }' > k/plain.cpp

role() { # NAME FLAGS...: one incore toolchain of g++
	local name=$1; shift
	printf '    %s:\n      compiler: g++\n      flags: [-O2, -fPIC, -shared' "$name"
	for f in "$@"; do printf ', %s' "$f"; done
	printf ']\n      include_dirs: [include]\n'
}
{
	printf 'version: 1\nplatform: a5sim\ntoolchains:\n  orchestration: {compiler: g++, flags: [-O2, -fPIC, -shared]}\n  incore:\n'
	role plain
	role dflag "'-DHDR=\"dflag.h\"'"
	role pre -include include/pre.h
	role sys -isystem sysdir
	printf '    nxt:\n      compiler: g++\n      flags: [-O2, -fPIC, -shared]\n      include_dirs: [inc1, inc2]\n'
	printf 'classes:\n  - name: TestKeys\n    callable:\n      orchestration: {source: k/orch.cpp, function_name: e}\n      incores:\n'
	i=0
	for u in macro:plain dflag:dflag cpath:plain pre:pre next:nxt has:plain sys:sys plain:plain; do
		printf '        - {func_id: %d, source: k/%s.cpp, core_type: %s}\n' "$i" "${u%%:*}" "${u##*:}"
		i=$((i + 1))
	done
} > spec.yaml

export CPATH=$P/cpathdir
"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out" 2> "$T/gen.err" ||
	{ cat "$T/gen.err"; fail "gen failed"; }
# builds: the number of units the last run compiled (its progress lines).
run() { make -f "$T/w.mk" -j2 warmup > "$T/run.out" 2>&1 || { cat "$T/run.out"; fail "make failed: $1"; }; }
builds() { grep -c '\] built ' "$T/run.out" || true; }
run cold
[ "$(builds)" = 9 ] || { cat "$T/run.out"; fail "the cold run built $(builds) units, not 9"; }
run warm
[ "$(builds)" = 0 ] || { cat "$T/run.out"; fail "the warm run built $(builds) units"; }
pass "cold run builds 9 units, the warm run none"

# A unit's recorded reads are what g++ -M lists beyond the project's files.
key=$(unit_keys "$T/w.mk" 'k/orch[.]cpp')
entry=$T/cache/units/${key:0:1}/$key.m
read_paths=$(python3 - "$entry" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
n = int(b[-9:-1])
for line in b[len(b) - n:].decode().splitlines():
    if line.startswith("read "):
        print(line.split(" ", 2)[2])
PY
)
[ -n "$read_paths" ] || fail "the orchestration's entry records no reads"
g++ -M -O2 -fPIC -shared k/orch.cpp | tr -d '\\' | tr ' ' '\n' | grep '^/' | sort -u > "$T/gm.txt"
[ "$(printf '%s\n' "$read_paths" | sort -u)" = "$(cat "$T/gm.txt")" ] ||
	{ printf '%s\n' "$read_paths" | diff - "$T/gm.txt"; fail "recorded reads differ from g++ -M"; }
pass "the recorded reads of a unit are what g++ -M lists ($(wc -l < "$T/gm.txt") files)"

# edit FILE TEXT WHAT: change a file, rebuild, expect one compile and the
# bytes of an empty-cache build.
n=0
# kwarm explain UNIT must name the file (or say a header appeared) first.
edit() {
	local file=$1 text=$2 what=$3 unit=$4 says=${5:-"'$1' changed"}
	n=$((n + 1))
	cp "$T/out/TestKeys.callable" "$T/before.callable"
	printf '%s\n' "$text" > "$file"
	"$KWARM" explain "$T/w.mk" "$unit" > "$T/explain.out" || fail "$what: explain failed"
	grep -q "would compile" "$T/explain.out" && grep -qF "$says" "$T/explain.out" ||
		{ cat "$T/explain.out"; fail "$what: kwarm explain does not say \"$says\""; }
	run "$what"
	[ "$(builds)" = 1 ] || { cat "$T/run.out"; fail "$what: $(builds) units compiled, not 1"; }
	! cmp -s "$T/out/TestKeys.callable" "$T/before.callable" || fail "$what: the callable did not change"
	"$KWARM" gen spec.yaml -o "$T/fresh$n.mk" --cache "$T/fresh$n" --out "$T/fresh$n-out" 2> /dev/null
	make -f "$T/fresh$n.mk" -j2 warmup > /dev/null 2>&1 || fail "$what: the empty-cache build failed"
	cmp "$T/out/TestKeys.callable" "$T/fresh$n-out/TestKeys.callable" ||
		fail "$what: the callable differs from an empty-cache build"
	run "$what, again"
	[ "$(builds)" = 0 ] || fail "$what: the run after it compiled again"
	"$KWARM" explain "$T/w.mk" "$unit" | grep -q ": cached, nothing to compile" ||
		fail "$what: explain does not say the unit is cached after the run"
	pass "$what: explain names it, one recompile, the callable equals an empty-cache build"
}
edit include/scale.h '#define SCALE 30' "a macro-named include" "incore 'macro' (plain)"
edit include/dflag.h '#define DFLAG 40' "a header a -D flag names" "incore 'dflag' (dflag)"
edit cpathdir/cpathhdr.h '#define CPATHV 50' "a header found through CPATH" "incore 'cpath' (plain)"
edit include/nested.h '#define NESTED 60' "a header reached only through -include" "incore 'pre' (pre)"
edit inc2/nx.h '#define NX 70' "a header reached by #include_next" "incore 'next' (nxt)"
edit include/later.h '#define LATER 77' "__has_include of a header that appears later" \
	"incore 'has' (plain)" "'include/later.h' is new to it"
edit sysdir/sysh.h '#define SYSV 80' "a system header in an -isystem folder" "incore 'sys' (sys)"

# A variable that steers the compiler: a new CPATH folder with another header.
mkdir -p "$P/cpath2"
echo '#define CPATHV 55' > "$P/cpath2/cpathhdr.h"
cp "$T/out/TestKeys.callable" "$T/before.callable"
CPATH=$P/cpath2 "$KWARM" explain "$T/w.mk" "incore 'plain' (plain)" | grep -qF "CPATH=$P/cpathdir' -> 'CPATH=$P/cpath2'" ||
	fail "kwarm explain does not name the CPATH change"
CPATH=$P/cpath2 run "CPATH changed"
[ "$(builds)" = 9 ] || { cat "$T/run.out"; fail "a new CPATH recompiled $(builds) units, not all 9"; }
! cmp -s "$T/out/TestKeys.callable" "$T/before.callable" || fail "CPATH: the callable did not change"
run "CPATH back"
[ "$(builds)" = 0 ] || { cat "$T/run.out"; fail "CPATH back: $(builds) compiles"; }
cmp "$T/out/TestKeys.callable" "$T/before.callable" || fail "CPATH back: not the earlier callable"
pass "changing CPATH remakes the Makefile and recompiles (explain names it); setting it back reuses the cache"

# A flag changed in the spec, and a unit never built.
sed -i 's/-shared, -include/-shared, -O1, -include/' spec.yaml
"$KWARM" explain "$T/w.mk" "incore 'pre' (pre)" | grep -q "now: g++ -O2 -fPIC -shared -O1 -include" ||
	fail "kwarm explain does not show the changed compile command"
echo 'extern "C" int f(void) { return 10; }' > k/fresh.cpp
sed -i 's#source: k/plain.cpp#source: k/fresh.cpp#' spec.yaml
"$KWARM" explain "$T/w.mk" "incore 'fresh' (plain)" | grep -q "never built" ||
	fail "kwarm explain does not say a new unit was never built"
pass "kwarm explain shows a changed flag and a unit never built"
