#!/usr/bin/env bash
# labels: e2e
# Without a durations record, warmup lists only the packs (their rules list
# their units in spec order): at -j1 make still compiles every unit in spec
# order, a unit two classes share once, as the whole list made it, and packs
# every class. With a record that puts a late unit first, warmup lists every
# unit again.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/p"
cd "$T/p"
for u in orch a1 s b1 c1 c2; do printf '// kwarm-cost: 1\nint %s;\n' "$u" > "$u.c"; done
standin_spec . A=a1.c,s.c B=s.c,b1.c C=c1.c,c2.c
export STANDIN_SCALE=0
"$KWARM" gen spec.yaml -o w.mk --cache "$T/cache" --out "$T/out"
words=$(sed -n '/^warmup:/,/^$/p' w.mk | tr -d '\\' | tr -s ' \n' '\n' | grep -v '^warmup:$' | grep -c .)
[ "$words" = 6 ] || { sed -n '/^warmup:/,/^$/p' w.mk; fail "warmup lists $words words, not 3 packs and 3 classes"; }
sed -n '/^warmup:/,/^$/p' w.mk | grep -q '/cache/units/' && fail "warmup lists units"

must run.out "the warm-up failed" make -f w.mk -j1 warmup
# The order of compiles: the stand-in logs each start.
order=$(awk '$1 == "start" { n = split($NF, p, "/"); print p[n] }' "$STANDIN_LOG" | sed 's/[.]c$//' | tr '\n' ' ')
[ "$order" = "orch a1 s b1 c1 c2 " ] || fail "compiles at -j1 in the order '$order', not spec order"
for c in A B C; do [ -s "$T/out/$c.callable" ] || fail "class $c was not packed"; done

# The run's record, with c2 made the longest: longest first lists every
# unit, c2 first.
grep -q "C/incore 'c2' (aiv)" "$T/cache/durations.log" || fail "the run did not record c2"
sed -i "s/^[0-9.]*\t\(C\/incore 'c2' (aiv)\)$/9.0\t\1/" "$T/cache/durations.log"
"$KWARM" gen spec.yaml -o r.mk --cache "$T/cache" --out "$T/out"
first=$(awk '/^(warmup:|KW_LONGEST :=)/ { getline; print; exit }' r.mk)
case $first in */cache/units/*) ;; *) fail "with a record warmup does not start with a unit: $first" ;; esac
[ "$(sed -n '/^\(warmup:\|KW_LONGEST :=\)/,/^$/p' r.mk | grep -c '/cache/units/')" -ge 6 ] ||
	fail "with a record warmup does not list every unit"
pass "warmup of packs only compiles in spec order at -j1 and packs every class; a record lists every unit"
