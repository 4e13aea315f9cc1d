#!/usr/bin/env bash
# labels: e2e
# The compile step that publishes a callable's last missing unit packs the
# callable itself, at once, in its own job slot (src/pack/packnow.h):
# 1. at -j2, with class A's last unit a1 running while make's walk down
#    warmup's list passes A's pack and starts B's units, A is packed the
#    moment a1 ends, before make starts the next compile of B (make itself
#    would start A's pack only once its walk has started B's last unit);
# 2. the Makefile's pack recipe then finds it packed: one "packed" line and
#    one pack event per callable in a run, the same bytes as a pack by the
#    recipe, and nothing to do in the next run; the recipe, which holds
#    this run's tag check (the stamp holds the tag of the run that packed),
#    is empty then, and make runs no process for it;
# 3. make warmup-A packs no callable of B, even one whose units its compile
#    completes;
# 4. an inline pack that finds an entry corrupt gives up quietly: the recipe
#    finds it, warns once, compiles the unit again and packs, as before.
# The stand-in compiler; its 'block FILE' lines hold a compile until the
# test creates FILE.go.
. "$(dirname "$0")/lib.sh"
need python3 python3

mkdir -p "$T/p" "$T/blk"
cd "$T/p"
B_UNITS="b1 b2 b3 b4 b5 b6 b7 b8 b9 b10 b11 b12 b13 b14"
write_sources() { # [UNIT]...: those units block on $T/blk/UNIT
	local u
	printf '// kwarm-cost: 1\nint o;\n' > orch.c
	for u in a1 $B_UNITS; do
		printf '// kwarm-cost: 1\nint %s;\n' "$u" > "$u.c"
	done
	for u in "$@"; do
		printf '// kwarm-standin: block %s\n' "$T/blk/$u" >> "$u.c"
	done
}
spec() { standin_spec . A=a1.c "B=$(echo $B_UNITS | sed 's/ /.c,/g').c"; }
write_sources
spec
"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out"

# The first unit of B that make reaches after A's pack going down warmup's
# list, with another after it: when make has started it, its walk has
# passed A's pack.
after_pack() {
	python3 - "$T/w.mk" "$KWARM_TEST_SRC/bench" <<'PY'
import re, sys
sys.path.insert(0, sys.argv[2])
import simulate_order
mk = open(sys.argv[1]).read()
label = dict(re.findall(r"# incore '(\w+)' \(aiv\) of \w+\nKW_CMD_([0-9a-f]+) =", mk))
label = {k: v for v, k in label.items()}
warmup = simulate_order.read_makefile(sys.argv[1])[0]
pack_a = next(i for i, w in enumerate(warmup) if "/stamps/A.callable/" in w)
units = [label.get(re.sub(r".*/([0-9a-f]+)\.m$", r"\1", w)) for w in warmup[pack_a + 1:] if w.endswith(".m")]
units = [u for u in units if u and u.startswith("b")]
assert len(units) >= 2, "A's pack is not listed before two units of B: %s" % warmup
print(units[0], units[1])
PY
}
read -r MID NEXT <<< "$(after_pack)" || fail "no unit of B after A's pack in warmup's list"
write_sources a1 "$MID"
"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out"
[ "$(after_pack)" = "$MID $NEXT" ] || fail "the blocks changed warmup's order"

# 1. a1 and MID hold both slots; make waits to start NEXT. a1 goes on.
export STANDIN_SCALE=0.01
make -f "$T/w.mk" -j2 warmup > "$T/run1.out" 2>&1 &
MAKE_PID=$!
wait_file "$T/blk/a1" $MAKE_PID
wait_file "$T/blk/$MID" $MAKE_PID
[ "$(compiles "$NEXT.c")" = 0 ] || fail "$NEXT started with both slots held"
touch "$T/blk/a1.go"
# A is packed (by a1's step here; by make once B's last unit started before).
wait_file "$T/out/A.callable" $MAKE_PID
touch "$T/blk/$MID.go"
wait $MAKE_PID || { cat "$T/run1.out"; fail "the warm-up failed"; }
python3 - "$T/out/.kwarm/trace.json" "$NEXT" <<'PY' || { cat "$T/run1.out"; fail "A was not packed by its last unit's step before B's next compile"; }
import json, sys
ev = [e for e in json.load(open(sys.argv[1])) if e.get("ph") == "X"]
pack_a = [e for e in ev if e["cat"] == "pack" and e["args"]["classes"] == ["A"]]
a1 = [e for e in ev if e["cat"] == "compile" and e["name"] == "incore 'a1' (aiv)"]
nxt = [e for e in ev if e["cat"] == "compile" and e["name"] == "incore '%s' (aiv)" % sys.argv[2]]
assert len(pack_a) == 1 and len(a1) == 1 and len(nxt) == 1, (pack_a, a1, nxt)
p, u, n = pack_a[0], a1[0], nxt[0]
print("a1 ends %.3f s; A packed at %.3f s on slot %d (a1's: %d); %s starts %.3f s"
      % ((u["ts"] + u["dur"]) / 1e6, p["ts"] / 1e6, p["tid"], u["tid"], sys.argv[2], n["ts"] / 1e6))
assert p["ts"] < n["ts"], "A's pack started after B's next compile"
assert p["tid"] == u["tid"] and p["ts"] >= u["ts"] + u["dur"], "not in a1's slot, after it"
assert p["args"].get("by") == "compile", p["args"]
PY
pass "a callable is packed by its last unit's step before make starts the next compile"

# 2. One pack each, reported once; the recipe's own pack gives the same bytes.
for c in A B; do
	[ "$(grep -c "^kwarm: packed class $c:" "$T/run1.out")" = 1 ] ||
		{ cat "$T/run1.out"; fail "class $c was not packed exactly once"; }
	[ "$(cat "$T"/out/.kwarm/run/*/events | grep -c "^pack .* packed .* $c$")" = 1 ] ||
		fail "class $c has not exactly one pack event"
done
python3 - "$T/out/.kwarm/summary.json" <<'PY' || fail "summary.json does not count the inline packs"
import json, sys
s = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in s["classes"]}
assert c["A"]["status"] == "built" and c["B"]["status"] == "built", c
assert c["A"]["pack_seconds"] > 0 and c["B"]["pack_seconds"] > 0, c
PY
cp "$T/out/A.callable" "$T/A.inline"
must "$T/run2.out" "the second run failed" make -f "$T/w.mk" -j2 warmup
holds "$T/run2.out" "Nothing to be done" "the second run did something"
cmp -s "$T/A.inline" "$T/out/A.callable" || fail "the second run changed A.callable"
rm "$T/out/A.callable"
must "$T/run3.out" "the recipe's pack failed" make -f "$T/w.mk" -j2 warmup
holds "$T/run3.out" "^kwarm: packed class A:" "the recipe did not pack A again"
cmp -s "$T/A.inline" "$T/out/A.callable" || fail "the inline pack and the recipe's differ"
pass "the pack recipe finds an inline pack done: one pack per callable, the same bytes"

# 2b. Packed inline, the recipe expands to nothing: make starts no process for
# it (with V=1 make prints each recipe line it runs, the packs' as well).
"$KWARM" gen spec.yaml -o "$T/v.mk" --cache "$T/vcache" --out "$T/vout"
must "$T/runv.out" "the V=1 warm-up failed" make -f "$T/v.mk" -j2 V=1 warmup
for c in A B; do
	[ "$(grep -c "^kwarm: packed class $c:" "$T/runv.out")" = 1 ] ||
		{ cat "$T/runv.out"; fail "class $c was not packed exactly once"; }
done
grep -q ' pack --state ' "$T/runv.out" && { cat "$T/runv.out"; fail "make ran a pack recipe after the inline packs"; }
holds "$T/runv.out" ' compile --state ' "V=1 shows no recipe line at all"
[ "$(head -n 1 "$T"/vout/.kwarm/stamps/A.callable/*)" = "$(basename "$(ls -d "$T"/vout/.kwarm/run/*/)")" ] ||
	fail "A's stamp does not hold the tag of the run that packed it"
rm "$T/vout/B.callable"
must "$T/runv2.out" "the V=1 repack failed" make -f "$T/v.mk" -j2 V=1 warmup
holds "$T/runv2.out" ' pack --state ' "a stamp of an earlier run let make skip B's repack"
holds "$T/runv2.out" "^kwarm: packed class B:" "B was not packed again"
pass "a callable packed inline: make runs no pack recipe; one packed by an earlier run is packed again"

# 3. make warmup-A: a new orch.c completes B as well, which stays as it was.
cp "$T/out/B.callable" "$T/B.before"
printf '// kwarm-cost: 1\nint o2;\n' > orch.c
"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out"
must "$T/runA.out" "make warmup-A failed" make -f "$T/w.mk" -j2 warmup-A
holds "$T/runA.out" "^kwarm: packed class A:" "warmup-A did not pack A"
grep -q "packed class B" "$T/runA.out" && { cat "$T/runA.out"; fail "warmup-A packed B"; }
cmp -s "$T/B.before" "$T/out/B.callable" || fail "warmup-A changed B.callable"
must "$T/runB.out" "make warmup then failed" make -f "$T/w.mk" -j2 warmup
holds "$T/runB.out" "^kwarm: packed class B:" "warmup did not pack B after warmup-A"
pass "make warmup-A packs no callable of B"

# 4. a1's entry corrupt (a flipped byte: it is there to a stat), and orch.c
# edited: orch's step completes A, packs it inline and meets a1's entry.
a1_entry=$(find "$T/cache/units" -name "$(unit_keys "$T/w.mk" 'a1\.c').m")
[ -f "$a1_entry" ] || fail "no entry of a1"
damage_entry flip "$a1_entry"
printf '// kwarm-cost: 1\nint o3;\n' > orch.c
"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out"
must "$T/run4.out" "the run with a corrupt entry failed" make -f "$T/w.mk" -j1 warmup-A
[ "$(grep -c "warning: cache entry .* is corrupt" "$T/run4.out")" = 1 ] ||
	{ cat "$T/run4.out"; fail "not exactly one warning for the corrupt entry"; }
grep -q "error" "$T/run4.out" && { cat "$T/run4.out"; fail "an error line"; }
[ "$(grep -c "^kwarm: packed class A:" "$T/run4.out")" = 1 ] ||
	{ cat "$T/run4.out"; fail "A was not packed exactly once"; }
cp "$T/out/A.callable" "$T/A.healed"
rm -rf "$T/out" "$T/cache"
must "$T/run5.out" "the fresh build failed" make -f "$T/w.mk" -j1 warmup-A
cmp -s "$T/A.healed" "$T/out/A.callable" || fail "the healed A differs from a fresh build"
pass "an inline pack that meets a corrupt entry leaves it to the recipe, which heals it"

# 5. A callable whose description is longer than a step's first look at its
# end (packnow.c: TAIL): at -j1 its pack still follows its last unit at once,
# before the next class's units (make lists it some units later).
mkdir -p "$T/q"
cd "$T/q"
printf '// kwarm-cost: 1\nint o;\n' > orch.c
C= D=
for i in $(seq 1 60); do printf '// kwarm-cost: 1\nint c%d;\n' "$i" > "c$i.c"; C=$C${C:+,}c$i.c; done
for i in $(seq 1 10); do printf '// kwarm-cost: 1\nint d%d;\n' "$i" > "d$i.c"; D=$D${D:+,}d$i.c; done
standin_spec . "C=$C" "D=$D"
"$KWARM" gen spec.yaml -o "$T/q.mk" --cache "$T/qcache" --out "$T/qout"
must "$T/runq.out" "the warm-up of C and D failed" make -f "$T/q.mk" -j1 warmup
[ "$(grep -c "^kwarm: packed class C:" "$T/runq.out")" = 1 ] || { cat "$T/runq.out"; fail "C not packed once"; }
python3 - "$T/qout/.kwarm/trace.json" <<'PY' || fail "C was not packed right after its last unit"
import json, sys
ev = [e for e in json.load(open(sys.argv[1])) if e.get("ph") == "X"]
pack_c = [e for e in ev if e["cat"] == "pack" and e["args"]["classes"] == ["C"]][0]
c_end = max(e["ts"] + e["dur"] for e in ev if e["cat"] == "compile" and "C" in e["args"]["classes"])
later = [e["ts"] for e in ev if e["cat"] == "compile" and e["ts"] >= c_end]
assert later and pack_c["ts"] >= c_end and pack_c["ts"] < min(later), (pack_c["ts"], c_end, later)
PY
[ "$(sed -n 's/^callable [0-9a-f]* [0-9]* \([0-9]*\) .* C .*/\1/p' "$T/q.mk.plan")" -gt 4096 ] ||
	fail "C's description is not longer than a step's first look"
pass "a large callable is packed by its last unit's step too"
