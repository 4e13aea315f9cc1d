#!/usr/bin/env bash
# labels: e2e
# kwarm_add_warmup() under the Ninja generator, which hands no jobserver down:
# the target runs make -j$KWARM_JOBS itself in the console pool, so a warm-up
# of 39 units runs more than one and at most KWARM_JOBS compiles at once.
. "$(dirname "$0")/lib.sh"

need ninja ninja-build
parent_project

: > "$STANDIN_LOG"
cmake -S proj -B bn -G Ninja -DCMAKE_PREFIX_PATH="$P" -DKW_SPEC="$T/q/spec.yaml" \
	-DKW_OUT="$T/out" -DKWARM_JOBS=3 > nconf.log 2>&1 || { cat nconf.log; fail "ninja configure failed"; }
must ninja.out "ninja warmup failed" ninja -C bn warmup
m=$(max_overlap)
[ "$(compiles)" = 39 ] && [ "$m" -gt 1 ] && [ "$m" -le 3 ] ||
	{ cat ninja.out; fail "Ninja: $(compiles) compiles, max $m at once; want 39 and 2..3"; }
pass "Ninja: make -j\$KWARM_JOBS (3) in the console pool: max $m at once"
