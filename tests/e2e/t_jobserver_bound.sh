#!/usr/bin/env bash
# labels: e2e
# make -jN is the one global bound, proven by counting overlaps in the
# stand-in's start/end log: directly, and nested in a parent make that runs
# jobs of its own.
. "$(dirname "$0")/lib.sh"

standin_example qwen3_decode q
export STANDIN_SCALE=0.03
cd "$T"
"$KWARM" gen q/spec.yaml -o warmup.mk --cache "$T/cache" --out "$T/out"

make -f warmup.mk -j4 warmup-TestQwen3Decode > direct.out 2>&1
[ "$(compiles)" = 38 ] || fail "$(compiles) compiles, want 38"
m=$(max_overlap)
[ "$m" -gt 1 ] && [ "$m" -le 4 ] || fail "make -j4: max overlap $m, want 2..4"
pass "make -j4 warmup on a 38-unit callable: max $m at once"

# A parent make -j4 with two long jobs of its own and the nested warm-up.
rm -rf cache out
: > "$STANDIN_LOG"
printf '// kwarm-cost: 20\n' > long.c
cat > parent.mk <<MK
all: long1 long2 warm
long1:
	$STANDIN -DONE -o long1.out long.c
long2:
	$STANDIN -DTWO -o long2.out long.c
warm:
	+\$(MAKE) -f warmup.mk warmup-TestQwen3Decode
MK
must nested.out "nested warm-up failed" make -f parent.mk -j4 all
[ "$(compiles)" = 40 ] || fail "$(compiles) compiles, want 40"
m=$(max_overlap)
[ "$m" -le 4 ] || fail "nested under make -j4: $m at once"
# While both long jobs ran, the warm-up still had the other two slots.
warm_max=$(awk '$4 != "long.c"' "$STANDIN_LOG" | bash "$TOOLS/max_overlap.sh")
[ "$warm_max" -gt 1 ] || fail "the nested warm-up ran serially"
for bad in "jobserver unavailable" "resetting jobserver mode" "INTERNAL: Exiting with"; do
	if grep -q "$bad" nested.out; then cat nested.out; fail "make said: $bad"; fi
done
pass "nested in a parent make -j4 with 2 jobs of its own: max $m at once, warm-up max $warm_max, no jobserver warnings"
