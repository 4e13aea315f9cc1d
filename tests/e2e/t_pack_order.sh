#!/usr/bin/env bash
# labels: e2e
# Children keep spec order even when the first incore is the slowest, and the
# callable bytes equal an independent construction (python, in lib.sh) over
# outputs made by running the stand-in directly. Level 3 goes to OUT/C/N.callable.
. "$(dirname "$0")/lib.sh"
need python3 python3

R=$T/root
mkdir -p "$R/src" "$R/inc"
echo '#define W 1' > "$R/inc/w.h"
printf '// kwarm-cost: 1.0\n#include "w.h"\nint slow;\n' > "$R/src/slow.c"
printf '// kwarm-cost: 0\nint fast_a;\n' > "$R/src/fast_a.c"
printf '// kwarm-cost: 0\nint fast_b;\n' > "$R/src/fast_b.c"
printf '// kwarm-cost: 0\nint orch;\n' > "$R/src/orch.c"
cat > "$R/spec.yaml" <<YAML
version: 1
platform: a5sim
toolchains:
  orchestration: {compiler: $STANDIN, flags: [-O2]}
  incore:
    aiv: {compiler: $STANDIN, flags: [-O2, -DVEC], include_dirs: [inc]}
classes:
  - name: TestOrder
    callable:
      orchestration: {source: src/orch.c, function_name: entry, config_name: cfg, signature: [IN, OUT]}
      incores:
        - {func_id: 7, source: src/slow.c, core_type: aiv, signature: [IN, INOUT, SCALAR]}
        - {func_id: 3, source: src/fast_a.c, core_type: aiv}
        - {func_id: -2, source: src/fast_b.c, core_type: aiv, signature: [OUT]}
  - name: TestLevel3
    callables:
      - name: first
        orchestration: {source: src/orch.c, function_name: entry3}
        incores: [{func_id: 0, source: src/fast_b.c, core_type: aiv}]
YAML
gen_warmup
STANDIN_SCALE=0.3 make -f warmup.mk -j4 warmup > make.txt

# The slow incore must really have finished last among the incores.
last=$(grep '^end' "$STANDIN_LOG" | sort -k2,2n | grep -v orch.c | tail -1)
case $last in *slow.c) ;; *) fail "slow.c did not finish last: $last" ;; esac

mkdir bins
( cd "$R" && unset STANDIN_LOG &&
  "$STANDIN" -O2 -o "$T/bins/orch" src/orch.c &&
  "$STANDIN" -O2 -DVEC -Iinc -o "$T/bins/slow" src/slow.c &&
  "$STANDIN" -O2 -DVEC -Iinc -o "$T/bins/a" src/fast_a.c &&
  "$STANDIN" -O2 -DVEC -Iinc -o "$T/bins/b" src/fast_b.c )
cat > order.json <<JSON
{"sig": [1, 2], "func": "entry", "config": "cfg", "orch": "bins/orch",
 "children": [{"id": 7, "sig": [1, 3, 0], "bin": "bins/slow"},
              {"id": 3, "sig": [], "bin": "bins/a"},
              {"id": -2, "sig": [2], "bin": "bins/b"}]}
JSON
expected_callable order.json > expected.callable
cmp expected.callable out/TestOrder.callable || fail "TestOrder bytes differ from the independent construction"
pass "children in spec order, bytes equal the independent construction"

cat > l3.json <<JSON
{"sig": [], "func": "entry3", "orch": "bins/orch", "children": [{"id": 0, "sig": [], "bin": "bins/b"}]}
JSON
expected_callable l3.json > expected3.callable
cmp expected3.callable out/TestLevel3/first.callable || fail "level-3 bytes differ"
pass "level 3 callable at OUT/<class>/<callable>.callable"
