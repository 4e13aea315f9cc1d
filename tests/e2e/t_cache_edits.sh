#!/usr/bin/env bash
# labels: e2e
# Edits are always seen by plain `make` (the Makefile remakes itself): exactly
# the affected units recompile and exactly the affected callables repack.
. "$(dirname "$0")/lib.sh"

R=$T/root
mkdir -p "$R/src" "$R/inc/lib" "$R/extra"
echo '#define SHARED 1' > "$R/inc/shared.h"
echo '#include "deep.h"' > "$R/inc/lib/nested.h"
echo '#define DEEP 1' > "$R/inc/lib/deep.h"
echo '#define EXTRA 1' > "$R/extra/e.h"
echo '#define OLD 1' > "$R/src/old.h"
printf '#include <shared.h>\nint a;\n' > "$R/src/a.c"
printf '#include "../inc/shared.h"\nint b;\n' > "$R/src/b.c"
printf '#include <lib/nested.h>\nint c;\n' > "$R/src/c.c"
printf '#include "old.h"\nint d;\n' > "$R/src/d.c"
printf '#include <e.h>\nint x;\n' > "$R/src/x.c"
printf 'int orch;\n' > "$R/src/orch.c"
printf 'int helper;\n' > "$R/src/helper.c"
mkdir -p "$T/bin"
cp "$STANDIN" "$T/bin/cc-standin"
cat > "$R/spec.yaml" <<YAML
version: 1
platform: a5sim
toolchains:
  orchestration: {compiler: $T/bin/cc-standin, sources: [src/helper.c]}
  incore:
    aiv: {compiler: $STANDIN, include_dirs: [inc]}
classes:
  - name: TestOne
    callable:
      orchestration: &orch {source: src/orch.c, function_name: e}
      incores:
        - {func_id: 0, source: src/a.c, core_type: aiv}
        - {func_id: 1, source: src/b.c, core_type: aiv}
  - name: TestTwo
    callable:
      orchestration: *orch
      incores:
        - {func_id: 0, source: src/c.c, core_type: aiv}
        - {func_id: 1, source: src/d.c, core_type: aiv}
        - {func_id: 2, source: src/x.c, core_type: aiv, extra_include_dirs: ['\${KWARM_T_EXTRA}']}
YAML
export KWARM_T_EXTRA=$R/extra
gen_warmup
make -f warmup.mk -j4 warmup > /dev/null
[ "$(compiles)" = 6 ] || fail "cold run: $(compiles) compiles, want 6"

# run EXPECTED-COMPILES EXPECTED-REPACKS WHAT: one plain make, then check.
run() {
	: > "$STANDIN_LOG"
	must make.out "$3: make failed" make -f warmup.mk -j4 warmup
	local n packs
	n=$(compiles)
	packs=$(grep -c "packed class" make.out || true)
	[ "$n" = "$1" ] || { cat "$STANDIN_LOG"; fail "$3: $n compiles, want $1"; }
	[ "$packs" = "$2" ] || { cat make.out; fail "$3: $packs repacks, want $2"; }
	pass "$3: $1 compiles, $2 repacks"
}

echo '#define SHARED 22' > "$R/inc/shared.h"
run 2 1 "a header two units share (angle and quoted)"
echo '#define DEEP 22' > "$R/inc/lib/deep.h"
run 1 1 "a header behind a nested include"
printf 'int a; /* edited */\n#include <shared.h>\n' > "$R/src/a.c"
run 1 1 "a source"
echo 'int helper2;' >> "$R/src/helper.c"
run 1 2 "an orchestration's extra source"
printf '\n' >> "$T/bin/cc-standin"
run 1 2 "the compiler binary"
printf 'int d;\n' > "$R/src/d.c"
run 1 1 "a source that stops including a header"
echo '#define OLD 2' > "$R/src/old.h"
run 0 0 "a header no longer included"
rm "$R/src/old.h"
run 0 0 "a deleted header that is no longer included"
mkdir -p "$T/extra2"; echo '#define EXTRA 2' > "$T/extra2/e.h"
export KWARM_T_EXTRA=$T/extra2
run 1 1 "a \$VAR include dir pointing elsewhere"
sed -i 's/function_name: e}/function_name: e2}/' "$R/spec.yaml"
run 0 2 "the spec (function names only)"
# Back to a key packed before: its stamp went with the repack, so OUT is
# not taken for current.
sed -i 's/function_name: e2}/function_name: e}/' "$R/spec.yaml"
run 0 2 "the spec changed back"
run 0 0 "nothing"
