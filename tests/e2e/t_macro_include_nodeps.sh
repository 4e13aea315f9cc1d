#!/usr/bin/env bash
# labels: e2e
# A header named by a macro (#include CFG, #include HDR(x)) or by -include is
# out of the scanner's reach: only the compiler's dependency output puts it
# (and what it includes) in the key.
# With a compiler that writes none (deps: none), such a unit is never served
# from the cache: it is kept privately (one warning naming the unit and the
# include's file:line, or the -include) and compiled again by the next run, so
# an edit of the header is seen. With the dependency output (deps: gcc) it is cached.
. "$(dirname "$0")/lib.sh"
need g++ g++

gxx_project
echo '#define V 1' > include/cfg.h
echo '#define W 1' > include/fn.h
printf '#define CFG "cfg.h"\n#include CFG\nextern "C" int f(void) { return V; }\n' > k/mac.cpp
printf '#define HDR(x) #x\n\n#include HDR(fn.h)\nextern "C" int g(void) { return W; }\n' > k/fn.cpp
printf '#include "deep.h"\n' > include/pre.h
echo '#define D 1' > include/deep.h
printf 'extern "C" int p(void) { return D; }\n' > k/pre.cpp
printf 'extern "C" int h(void) { return 3; }\n' > k/plain.cpp
gxx_spec g++ TestMacro=k/mac.cpp,k/fn.cpp,k/pre.cpp,k/plain.cpp
gxx_roles 'pre=-include, pre.h'
sed -i 's/deps: gcc/deps: none/' spec.yaml

gxx_run cold "$T/run1.out"
holds -x "$T/run1.out" "kwarm: warning: incore 'mac' (w): not cached: the header that 'k/mac.cpp:2' includes by a macro is not in its key: the compiler lists no files it read" \
	"no warning naming mac and its include's line"
holds "$T/run1.out" "incore 'fn' (w): not cached: the header that 'k/fn.cpp:3' includes by a macro" \
	"no warning naming fn and its include's line"
holds "$T/run1.out" "incore 'pre' (pre): not cached: what its '-include' includes is not in its key" \
	"no warning naming pre and its -include"
[ "$(grep -c 'not cached' "$T/run1.out")" = 3 ] || { cat "$T/run1.out"; fail "not three warnings"; }
gxx_same_as_fresh TestMacro cold

echo '#define V 2' > include/cfg.h
echo '#define W 2' > include/fn.h
echo '#define D 2' > include/deep.h
gxx_run "headers edited" "$T/run2.out"
for u in mac fn pre; do
	holds "$T/run2.out" "built incore '$u'" "editing its macro-named header did not recompile '$u'"
done
! grep -q "built incore 'plain'" "$T/run2.out" || { cat "$T/run2.out"; fail "'plain' was compiled again"; }
gxx_same_as_fresh TestMacro "headers edited"
pass "without dependency output, a unit including a header by a macro or -include is compiled again each run"

# A compile step packs its callable at once only from this run's entries: the
# private ones the last run left are compiled again and must not be packed.
# Asked first (make -j1 builds its goals in order), the edited 'plain' is
# compiled while mac, fn and pre still have the last run's private entries.
echo '#define V 4' > include/cfg.h
printf 'extern "C" int h(void) { return 4; }\n' > k/plain.cpp
"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out" 2> "$T/gen.err" ||
	{ cat "$T/gen.err"; fail "gen failed: plain edited"; }
key=$(unit_keys "$T/w.mk" 'plain[.]cpp')
entry=$(grep -o "[^ ]*/units/[0-9a-f]*/$key[.]m" "$T/w.mk" | head -n 1)
[ -n "$entry" ] || fail "no entry target for 'plain'"
make -f "$T/w.mk" -j1 "$entry" warmup > "$T/run2b.out" 2>&1 || { cat "$T/run2b.out"; fail "make failed: plain edited"; }
[ "$(grep -c 'kwarm: packed' "$T/run2b.out")" = 1 ] ||
	{ cat "$T/run2b.out"; fail "packed more than once: from the last run's private entries"; }
awk '/built incore/ { b = NR } /kwarm: packed/ { p = NR } END { exit !(b && p > b) }' "$T/run2b.out" ||
	{ cat "$T/run2b.out"; fail "packed before the last private unit was compiled again"; }
gxx_same_as_fresh TestMacro "plain edited"
pass "a compile step does not pack the private entries of the last run"

sed -i 's/deps: none/deps: gcc/' spec.yaml
gxx_run "deps: gcc" "$T/run3.out"
gxx_run "deps: gcc, again" "$T/run4.out"
! grep -q 'not cached\|built incore' "$T/run4.out" || { cat "$T/run4.out"; fail "with deps: gcc, not cached"; }
echo '#define V 3' > include/cfg.h
echo '#define D 3' > include/deep.h
gxx_run "deps: gcc, cfg.h edited" "$T/run5.out"
holds "$T/run5.out" "built incore 'mac'" "with deps: gcc, editing cfg.h did not recompile 'mac'"
holds "$T/run5.out" "built incore 'pre'" "with deps: gcc, editing deep.h did not recompile 'pre'"
gxx_same_as_fresh TestMacro "deps: gcc, cfg.h edited"
pass "with dependency output, such a unit is cached, and an edit of the header seen"

# Such units key apart from the entries an older kwarm cached for them (the
# key notes it): those would be served after any edit of the header.
for u in k/mac.cpp k/fn.cpp k/pre.cpp k/plain.cpp k/orch.cpp; do
	n=$(grep -la "covers file [0-9a-f]* $u\$" "$T"/cache/units/*/*.m | xargs grep -la 'covers may-stay-private 1' | wc -l || true)
	case $u in
	*/plain.cpp | */orch.cpp) [ "$n" = 0 ] || fail "$u keys as may-stay-private" ;;
	*) [ "$n" -ge 1 ] || fail "$u does not key as may-stay-private" ;;
	esac
done
pass "units that may stay private key apart from an older kwarm's entries"
