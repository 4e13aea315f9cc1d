#!/usr/bin/env bash
# labels: e2e
# Packs among the compiles, not after them: the step of a callable's last unit
# packs it (the trace shows class A packed while class B still has units to
# start; with every pack left to make's pack rule, A would wait for B's last
# unit to start), and make reaches the pack rule right after that unit.
. "$(dirname "$0")/lib.sh"
need python3 python3

mkdir -p "$T/p"
cd "$T/p"
printf '// kwarm-cost: 1\nint o;\n' > orch.c
for u in a1 a2 b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11 b12 b13 b14; do printf '// kwarm-cost: 1\nint %s;\n' "$u" > "$u.c"; done
standin_spec . A=a1.c,a2.c B=b1.c,b2.c,b3.c,b4.c,b5.c,b6.c,b7.c,b8.c,b9.c,b10.c,b11.c,b12.c,b13.c,b14.c
export STANDIN_SCALE=0.05
"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out"
a2=$(unit_keys "$T/w.mk" ' a2[.]c$')
[ "$(printf '%s\n' "$a2" | wc -w)" = 1 ] || fail "not one unit of a2.c"
# The order make goes down warmup's list (units of a listed pack before it).
next=$(python3 - "$KWARM_TEST_SRC/bench" "$T/w.mk" "$a2.m" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import simulate_order
order = simulate_order.read_makefile(sys.argv[2])[0]
at = [i for i, w in enumerate(order) if w.endswith("/" + sys.argv[3])]
print(order[at[0] + 1] if len(at) == 1 and at[0] + 1 < len(order) else "-")
PY
)
case $next in */stamps/A.callable/*) ;; *) fail "make does not reach A's pack right after its last unit: $next" ;; esac
must "$T/run.out" "the warm-up failed" make -f "$T/w.mk" -j2 warmup
python3 - "$T/out/.kwarm/trace.json" <<'PY' || fail "A was not packed before B's last unit started"
import json, sys
text = open(sys.argv[1]).read().rstrip()
ev = json.loads(text if text.endswith("]") else text + "]")
x = [e for e in ev if e.get("ph") == "X"]
pack_a = [e["ts"] for e in x if e["cat"] == "pack" and "A" in e["args"].get("classes", [e["name"]])
          or e["cat"] == "pack" and e["name"].endswith(" A")]
b_units = sorted(e["ts"] for e in x if e["cat"] == "compile" and e["args"]["classes"] == ["B"])
assert pack_a, [e["name"] for e in x if e["cat"] == "pack"]
assert len(b_units) == 14, b_units
print("A packed at %.2f s; B's units start at %s" % (pack_a[0] / 1e6, " ".join("%.2f" % (t / 1e6) for t in b_units)))
assert pack_a[0] < b_units[-1], "A's pack waited for every unit of B to start"
PY
pass "a class is packed as soon as its units are done, not after every compile"
