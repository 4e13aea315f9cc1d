#!/usr/bin/env bash
# labels: e2e
# A header newly created in a folder the compiler searches before the one it
# read a header from last time: the compiler would read the new one, so the
# unit compiles again (a plain make remakes the Makefile and sees it), and the
# callable equals an empty-cache build. The folders are the compiler's own
# list, made test-local with --sysroot (its /usr/local/include before its
# /usr/include, and the multiarch folder gcc drops while it is missing),
# -idirafter (searched after -I whatever the order of the words), a header
# only a system header includes (newly in a -I folder), and a quoted include
# of a system header (its own folder first); and the header gcc includes on
# its own (stdc-predef.h), or a header a macro names (found after -I), newly
# there; and a name a system header includes only since it was edited (its
# lookups are memoized by its bytes, not by its name). Real g++ and clang++.
# A compiler
# whose list cannot be learned (it fails -v) is not cached: its unit compiles
# on every run.
. "$(dirname "$0")/lib.sh"
need g++ g++
need clang++ clang
need python3 python3
unset CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH

P=$T/p SR=$T/sr
arch=$(g++ -print-multiarch)
mkdir -p "$P/k" "$P/include" "$T/da" "$SR/usr/include" "$SR/usr/local/include"
cd "$P"
printf 'extern "C" int orch(void) { return 1; }\n' > k/orch.cpp
for u in after local multi inner quote clocal; do
	h=$u; [ $u = inner ] && h=outer; [ $u = quote ] && h=outer; [ $u = clocal ] && h=local
	printf '#include <%s.h>\nextern "C" int f(void) { return V_%s; }\n' $h $u > k/$u.cpp
done
printf '#ifndef V_predef\n#define V_predef 1\n#endif\nextern "C" int f(void) { return V_predef; }\n' > k/predef.cpp
echo '#define V_after 1' > "$T/da/after.h"
printf '#define H <mac.h>\n#include H\nextern "C" int f(void) { return V_macro; }\n' > k/macro.cpp
echo '#define V_macro 1' > "$T/da/mac.h"
printf '#include <edit.h>\nextern "C" int f(void) { return V_edit; }\n' > k/edit.cpp
echo '#define V_edit 1' > "$SR/usr/include/edit.h"
echo '#define V_local 1' > "$SR/usr/include/local.h"
echo '#define V_clocal 1' >> "$SR/usr/include/local.h"
echo '#define V_multi 1' > "$SR/usr/include/multi.h"
printf '#include <inner.h>\n#include "quote.h"\n' > "$SR/usr/include/outer.h"
echo '#define V_inner 1' > "$SR/usr/include/inner.h"
echo '#define V_quote 1' > "$SR/usr/local/include/quote.h"
printf '#!/bin/sh\nfor w; do [ "$w" = -v ] && exit 1; done\nexec g++ "$@"\n' > blindcc
chmod +x blindcc
printf '#include <blind.h>\nextern "C" int f(void) { return 7; }\n' > k/blind.cpp
echo '/* blind */' > include/blind.h
sys="-O2, -fPIC, -shared, -nostdlib, '--sysroot=$SR'"
cat > spec.yaml <<EOF
version: 1
platform: a5sim
toolchains:
  orchestration: {compiler: g++, flags: [-O2, -fPIC, -shared]}
  incore:
    after: {compiler: g++, deps: gcc, flags: [-O2, -fPIC, -shared, -idirafter, '$T/da'], include_dirs: [include]}
    sys: {compiler: g++, deps: gcc, flags: [$sys], include_dirs: [include]}
    clang: {compiler: clang++, deps: clang, flags: [$sys], include_dirs: [include]}
    blind: {compiler: ./blindcc, deps: gcc, flags: [-O2, -fPIC, -shared], include_dirs: [include]}
classes:
  - name: TestShadow
    callable:
      orchestration: {source: k/orch.cpp, function_name: e}
      incores:
        - {func_id: 0, source: k/after.cpp, core_type: after}
        - {func_id: 1, source: k/local.cpp, core_type: sys}
        - {func_id: 2, source: k/multi.cpp, core_type: sys}
        - {func_id: 3, source: k/inner.cpp, core_type: sys}
        - {func_id: 4, source: k/quote.cpp, core_type: sys}
        - {func_id: 5, source: k/clocal.cpp, core_type: clang}
        - {func_id: 6, source: k/predef.cpp, core_type: sys}
        - {func_id: 7, source: k/blind.cpp, core_type: blind}
        - {func_id: 8, source: k/macro.cpp, core_type: after}
        - {func_id: 9, source: k/edit.cpp, core_type: sys}
EOF
gxx_run cold
grep -q "incore 'blind' (blind): not cached: its compiler's include search list is not known" "$T/run.out" ||
	{ cat "$T/run.out"; fail "no warning that the unit of a compiler without a known list is not cached"; }
gxx_run warm
[ "$(grep -c '\] built ' "$T/run.out")" = 1 ] && grep -q "built incore 'blind'" "$T/run.out" ||
	{ cat "$T/run.out"; fail "a warm run compiled other units than the one not cached"; }
echo '#define V_after 2' > include/after.h
printf '#define V_local 2\n#define V_clocal 2\n' > "$SR/usr/local/include/local.h"
echo '#define V_predef 2' > "$SR/usr/local/include/stdc-predef.h"
echo '#define V_macro 2' > include/mac.h
cases=(after local clocal inner quote predef macro)
if [ -n "$arch" ]; then
	mkdir -p "$SR/usr/include/$arch"
	echo '#define V_multi 2' > "$SR/usr/include/$arch/multi.h"
	cases+=(multi)
fi
echo '#define V_inner 2' > include/inner.h
echo '#define V_quote 2' > "$SR/usr/include/quote.h"
make -f "$T/w.mk" -j2 warmup > "$T/run.out" 2>&1 || { cat "$T/run.out"; fail "make failed after the new headers"; }
for u in "${cases[@]}"; do
	grep -q "built incore '$u'" "$T/run.out" || { cat "$T/run.out"; fail "the new header did not recompile '$u'"; }
done
gxx_same_as_fresh TestShadow "new headers earlier in the compiler's search list"
gxx_run "warm after the new headers"
[ "$(grep -c '\] built ' "$T/run.out")" = 1 ] ||
	{ cat "$T/run.out"; fail "a warm run after the new headers compiled more than the unit not cached"; }
printf '#include <edit2.h>\n' > "$SR/usr/include/edit.h"
echo '#define V_edit 3' > "$SR/usr/include/edit2.h"
gxx_run "after a system header's edit"
grep -q "built incore 'edit'" "$T/run.out" || { cat "$T/run.out"; fail "an edited system header did not recompile its unit"; }
echo '#define V_edit 4' > include/edit2.h
gxx_run "after a header the edit includes appeared in a -I folder"
grep -q "built incore 'edit'" "$T/run.out" ||
	{ cat "$T/run.out"; fail "a header that an edited system header newly includes, new in a -I folder, did not recompile"; }
gxx_same_as_fresh TestShadow "a name an edited system header includes"
pass "a new header earlier in the compiler's own search list recompiles the unit it shadows for"
