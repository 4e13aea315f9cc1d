#!/usr/bin/env bash
# labels: e2e
# A failing unit: one block naming the unit and every class that owns it,
# nothing cached; with make -k the other classes still finish. A compiler that
# crashes, or exits 0 without output, is a failure too and is not cached, and
# leaves no temp beside the entry.
. "$(dirname "$0")/lib.sh"

R=$T/root
mkdir -p "$R"
printf 'int ok;\n' > "$R/ok.c"
printf 'int orch;\n' > "$R/orch.c"
# bad.c and crash.c write part of their output first (a block released at
# once), so that their failures have temps to leave behind.
printf '// kwarm-standin: block %s\n// kwarm-standin: fail\n' "$T/bad" > "$R/bad.c"
printf '// kwarm-standin: block %s\n// kwarm-standin: crash\n' "$T/crash" > "$R/crash.c"
touch "$T/bad.go" "$T/crash.go"
printf '// kwarm-standin: empty\n' > "$R/empty.c"
standin_spec "$R" TestA=bad.c,ok.c TestB=bad.c TestGood=ok.c TestCrash=crash.c TestEmpty=empty.c
gen_warmup
if make -k -f warmup.mk -j4 warmup > out.txt 2> err.txt; then fail "make succeeded"; fi

failure_block err.txt "incore 'bad' (aiv)" "at the compile step (exit status 1); classes: TestA, TestB" \
	1 "bad.c:1:1: error: standin failure requested"
pass "failing unit: one block naming the unit and both classes"

holds err.txt "incore 'crash' (aiv) failed at the compile step (killed by signal 11" "crash not reported"
holds err.txt "incore 'empty' (aiv): the compile step exited 0 but wrote no output; classes: TestEmpty" \
	"empty output not reported"
pass "crash and empty output are failures that say what happened"

[ -s out/TestGood.callable ] || fail "make -k did not finish the good class"
[ ! -e out/TestA.callable ] && [ ! -e out/TestB.callable ] && [ ! -e out/TestCrash.callable ] &&
	[ ! -e out/TestEmpty.callable ] || fail "a class with a failed unit was packed"
pass "make -k: the good class finished, no failed class packed"

# Nothing failed is cached: a second run compiles the three failing units again.
: > "$STANDIN_LOG"
make -k -f warmup.mk -j4 warmup > /dev/null 2>&1 || true
[ "$(compiles bad.c)" = 1 ] && [ "$(compiles crash.c)" = 1 ] && [ "$(compiles empty.c)" = 1 ] ||
	fail "a failed unit was cached"
[ "$(compiles ok.c)" = 0 ] || fail "a good unit was compiled again"
# Temps are "<final>.tmp.<pid>.<hex>" beside what they become (publish.h): a
# compile's beside its entry, units/<k>/<key>.tmp.* (cache.h), a pack's beside
# its callable in out/; cache/tmp holds only the usability probe. Both trees
# must exist, or find would find nothing and the check could not fail.
[ -d cache/units ] && [ -d cache/tmp ] && [ -d out ] || fail "no cache/units, cache/tmp or out to look in"
left=$(find cache out -name '*.tmp.*')
[ -z "$left" ] || fail "temps left behind: $left"
[ -z "$(find cache/tmp -mindepth 1)" ] || fail "scratch files left in the cache: $(find cache/tmp -mindepth 1)"
pass "failed units are not cached, good ones are, no temp or scratch left"

# That check looks where temps really are: a compiler that wrote part of its
# output, then fails, leaves a temp there while it runs, and none after.
mkdir -p "$T/p"
printf 'int orch;\n' > "$T/p/orch.c"
printf '// kwarm-standin: block %s\n// kwarm-standin: fail\n' "$T/partial" > "$T/p/part.c"
standin_spec "$T/p" TestPartial=part.c
"$KWARM" gen p/spec.yaml -o p.mk --cache "$T/cache" --out "$T/out"
make -f p.mk -j2 warmup > p.out 2>&1 &
pid=$!
wait_file "$T/partial" "$pid"
temps=$(find cache -path '*/units/*' -name '*.tmp.*')
[ "$(printf '%s\n' "$temps" | grep -c .)" = 1 ] || { touch "$T/partial.go"; kill "$pid"; fail "no single temp beside the entry while compiling: '$temps'"; }
touch "$T/partial.go"
if wait "$pid"; then fail "the partial compile succeeded"; fi
[ ! -e "$temps" ] && [ -z "$(find cache out -name '*.tmp.*')" ] || fail "the failed compile left its temp: $temps"
pass "a failed compile's partial output beside the entry is removed"
