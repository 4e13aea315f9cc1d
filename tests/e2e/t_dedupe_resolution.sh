#!/usr/bin/env bash
# labels: e2e;slow
# Keys over what the -I list resolves to (real g++): two classes whose incore
# lists its include folders in another order (and one twice) compile it once,
# and each callable equals that class built alone from an empty cache; once a
# header of the same name is in both folders, the order matters and they
# compile apart; with -g (the output records the folders) they never merge;
# nor do -Ia and a flag -I./a, whose headers' __FILE__ differ ("a/x.h",
# "./a/x.h").
. "$(dirname "$0")/lib.sh"
need g++ g++
unset CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LIBRARY_PATH

P=$T/p
mkdir -p "$P/a" "$P/b" "$P/k"
cd "$P"
echo 'extern "C" int orch(void) { return 1; }' > k/orch.cpp
printf '#include "x.h"\n#include "y.h"\nextern "C" int f(void) { return X + Y; }\n' > k/k.cpp
echo '#define X 1' > a/x.h
echo '#define Y 2' > b/y.h

# spec FLAGS CLASS... : a spec of the named classes (A: -Ia -Ib; B: -Ib -Ia -Ia).
spec() {
	local flags=$1; shift
	printf 'version: 1\nplatform: a5sim\ntoolchains:\n'
	printf '  orchestration: {compiler: g++, flags: [-O2, -fPIC, -shared%s]}\n' "$flags"
	printf '  incore:\n    aiv: {compiler: g++, flags: [-O2, -fPIC, -shared%s]}\n' "$flags"
	printf '    dot: {compiler: g++, flags: [-O2, -fPIC, -shared%s, -I./a]}\nclasses:\n' "$flags"
	for c in "$@"; do
		case $c in A) dirs='[a, b]' ;; B) dirs='[b, a, a]' ;; C) dirs='[b]' ;; esac
		printf '  - name: %s\n    callable:\n      orchestration: {source: k/orch.cpp, function_name: e}\n' "$c"
		printf '      incores:\n        - {func_id: 0, source: k/k.cpp, core_type: %s, extra_include_dirs: %s}\n' "$([ "$c" = C ] && echo dot || echo aiv)" "$dirs"
	done
}
units() { sed -n 's/^# platform a5sim: .*callables, \([0-9]*\) distinct units$/\1/p' "$1"; }
builds() { grep -c '\] built ' "$1" || true; }
# alone TAG FLAGS CLASS: that class built alone from an empty cache.
alone() {
	spec "$2" "$3" > "alone-$1.yaml"
	"$KWARM" gen "alone-$1.yaml" -o "$T/alone-$1.mk" --cache "$T/alone-$1-cache" --out "$T/alone-$1" 2> /dev/null
	make -f "$T/alone-$1.mk" -j2 warmup > /dev/null 2>&1 || fail "$1: building $3 alone failed"
}

spec "" A B > spec.yaml
"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out"
[ "$(units "$T/w.mk")" = 2 ] || fail "include lists that resolve alike: $(units "$T/w.mk") units, not 2"
must "$T/run.out" "the warm-up failed" make -f "$T/w.mk" -j2 warmup
[ "$(builds "$T/run.out")" = 2 ] || { cat "$T/run.out"; fail "$(builds "$T/run.out") compiles, not 2"; }
alone 1a "" A
alone 1b "" B
cmp "$T/out/A.callable" "$T/alone-1a/A.callable" || fail "A differs from A built alone"
cmp "$T/out/B.callable" "$T/alone-1b/B.callable" || fail "B differs from B built alone"
pass "-Ia -Ib and -Ib -Ia -Ia resolve alike: one compile, each callable as built alone"

# A header of the same name in both folders: the order decides, so two units.
echo '#define X 100' > b/x.h
must "$T/run.out" "the warm-up failed" make -f "$T/w.mk" -j2 warmup
[ "$(units "$T/w.mk")" = 3 ] || fail "a shadowed header: $(units "$T/w.mk") units, not 3"
[ "$(builds "$T/run.out")" = 2 ] || { cat "$T/run.out"; fail "$(builds "$T/run.out") compiles, not 2"; }
alone 2a "" A
alone 2b "" B
cmp "$T/out/A.callable" "$T/alone-2a/A.callable" || fail "A differs from A built alone"
cmp "$T/out/B.callable" "$T/alone-2b/B.callable" || fail "B differs from B built alone"
cmp -s "$T/out/A.callable" "$T/out/B.callable" && fail "A and B should differ now"
pass "a header in both folders: the two orders compile apart, each as built alone"

# With -g the output records the folders: never merged.
rm b/x.h
spec ", -g" A B > spec-g.yaml
"$KWARM" gen spec-g.yaml -o "$T/g.mk" --cache "$T/cache" --out "$T/out-g"
[ "$(units "$T/g.mk")" = 3 ] || fail "with -g: $(units "$T/g.mk") units, not 3"
make -f "$T/g.mk" -j2 warmup > /dev/null 2>&1 || fail "the -g warm-up failed"
alone 3b ", -g" B
cmp "$T/out-g/B.callable" "$T/alone-3b/B.callable" || fail "B with -g differs from B built alone"
pass "with -g the include lists stay in the key: never merged"

# A header's __FILE__ is its folder as spelled, then its name: -I./a (a flag,
# passed as written) is not -Ia.
echo '#define X sizeof(__FILE__)' > a/x.h
spec "" A C > spec-f.yaml
"$KWARM" gen spec-f.yaml -o "$T/f.mk" --cache "$T/cache" --out "$T/out-f"
[ "$(units "$T/f.mk")" = 3 ] || fail "-Ia and -I./a with __FILE__: $(units "$T/f.mk") units, not 3"
make -f "$T/f.mk" -j2 warmup > /dev/null 2>&1 || fail "the __FILE__ warm-up failed"
alone 4c "" C
cmp "$T/out-f/C.callable" "$T/alone-4c/C.callable" || fail "C (-I./a) differs from C built alone"
pass "-Ia and -I./a stay apart: a header's __FILE__ is spelled through its folder"
