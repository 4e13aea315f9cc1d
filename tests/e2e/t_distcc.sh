#!/usr/bin/env bash
# labels: e2e
# A real distccd on 127.0.0.1: the two-step form (-c, then link: g++ -shared)
# warmed up with `kwarm gen --launcher distcc` compiles every unit on the
# daemon (its log says so), links locally, and gives the same keys and
# byte-identical callables as a local build; the packed shared objects load
# and compute. The one-step sim form (g++ -shared -o x.so x.cpp) never reaches
# the daemon. With the daemon gone and DISTCC_FALLBACK=0 the warm-up fails.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3
. "$KWARM_TEST_SRC/tests/tools/distccd.sh"

distccd_start
mkdir -p "$T/farm"
cp -r "$KWARM_TEST_SRC/examples/distcc/." "$T/farm/"
rm -rf "$T/farm/.kwarm"
cd "$T"

keys() { unit_keys "$1" | sort -u; }

"$KWARM" gen farm/spec.yaml -o farm.mk --launcher distcc --cache "$T/cache-farm" --out "$T/out-farm"
"$KWARM" gen farm/spec.yaml -o local.mk --cache "$T/cache-local" --out "$T/out-local"
units=$(keys farm.mk | wc -l)
[ "$units" = 4 ] || fail "the example has $units distinct units, want 4"
[ "$(keys farm.mk)" = "$(keys local.mk)" ] || fail "the launcher changed the unit keys"
[ "$(grep -c -- '--launcher distcc --link g++ --link -shared --' farm.mk)" = 4 ] ||
	fail "not every compile recipe has the launcher before the link words"
grep -q -- '--launcher' local.mk && fail "the local Makefile has a launcher"
pass "same keys with and without the launcher"

must farm.log "warm-up through distcc failed" make -f farm.mk -j4 warmup
[ "$(distccd_compiles)" = "$units" ] ||
	fail "distccd ran $(distccd_compiles) compiles, want $units (one per unit)"
for src in farm_orch.cpp vec_weigh.cpp vec_square.cpp mat_fold.cpp; do
	[ "$(distccd_compiles "/$src")" = 1 ] || fail "distccd did not compile $src exactly once"
done
pass "distccd compiled each of the $units units once"

must local.log "local warm-up failed" make -f local.mk -j2 warmup
[ "$(distccd_compiles)" = "$units" ] || fail "the local warm-up reached distccd"
for c in TestFarm TestFarmAgain; do
	cmp "out-farm/$c.callable" "out-local/$c.callable" || fail "$c: distcc and local callables differ"
done
pass "callables through distcc are byte-identical to the local build"

python3 "$KWARM_TEST_SRC/tests/tools/callable_call.py" out-farm/TestFarm.callable 11 > calls.txt ||
	fail "a packed shared object did not load"
printf '%s\n' "orchestration 2" "child 0 0 40" "child 1 1 128" "child 2 2 138" | diff - calls.txt ||
	fail "the packed shared objects compute wrong results"
pass "each packed shared object dlopens and its entry computes"

# The sim form compiles and links in one command: distcc runs it locally.
mkdir -p "$T/sim"
cp -r "$T/farm/." "$T/sim/"
rm -rf "$T/sim/.kwarm"
sed -i 's/, -c\]/, -shared]/; /link: \[g++, -shared\]/d' sim/spec.yaml
"$KWARM" gen sim/spec.yaml -o sim.mk --launcher distcc --cache "$T/cache-sim" --out "$T/out-sim"
grep -q -- ' -c ' sim.mk && fail "the sim spec still compiles with -c"
must sim.log "sim-form warm-up failed" make -f sim.mk -j2 warmup
[ "$(distccd_compiles)" = "$units" ] ||
	fail "a one-step compile-and-link reached distccd ($(distccd_compiles) compiles)"
python3 "$KWARM_TEST_SRC/tests/tools/callable_call.py" out-sim/TestFarm.callable 11 | diff - calls.txt ||
	fail "the sim form computes differently"
pass "the one-step sim form runs locally under distcc"

# No daemon and no fallback: the warm-up fails and names a unit.
distccd_stop
"$KWARM" gen farm/spec.yaml -o gone.mk --launcher distcc --cache "$T/cache-gone" --out "$T/out-gone"
if make -f gone.mk -j2 warmup > gone.log 2>&1; then
	cat gone.log
	fail "the warm-up succeeded with no distccd and DISTCC_FALLBACK=0"
fi
holds gone.log "kwarm: .*incore\|kwarm: .*orchestration" "the failure names no unit"
[ ! -e out-gone/TestFarm.callable ] || fail "a callable was packed from a failed warm-up"
pass "no daemon: the warm-up fails, naming the unit"
