#!/usr/bin/env bash
# labels: e2e
# A parent Makefile with its own default goal and variables includes the
# installed kwarm.mk: its default goal and variables stay its own; 'warmup'
# and 'warmup-CLASS' run nested under the parent's -j4 (2..4 at once, no
# jobserver warnings); an edited spec regenerates the warm-up Makefile.
. "$(dirname "$0")/lib.sh"

P=$T/prefix
must install.log "install failed" cmake --install "$(dirname "$KWARM")" --prefix "$P"
standin_example qwen3_decode q
export STANDIN_SCALE=0.03
mkdir -p "$T/app"
cat > "$T/app/Makefile" <<MK
CFLAGS = -O1 -DPARENT
OUT = parent-out
all: app.txt
app.txt:
	echo 'built with \$(CFLAGS) into \$(OUT)' > \$@
show:
	@echo 'CFLAGS=\$(CFLAGS) OUT=\$(OUT) MAKEFLAGS=\$(MAKEFLAGS) GOAL=\$(.DEFAULT_GOAL)'

KWARM_SPEC = $T/q/spec.yaml
KWARM_CACHE = $T/cache
KWARM_OUT = $T/out
include $P/share/kwarm/kwarm.mk
MK
cd "$T/app"
make show > show.txt
holds show.txt '^CFLAGS=-O1 -DPARENT OUT=parent-out MAKEFLAGS= GOAL=all$' \
	"the parent's variables or goal changed: $(cat show.txt)"
must default.out "the default goal failed" make
[ -s app.txt ] && [ ! -e .kwarm ] && [ "$(compiles)" = 0 ] || fail "the default goal did not stay the parent's"
pass "the parent's default goal and variables are untouched"

# The fragment included before the parent's first rule keeps the goal too.
sed -n '/^KWARM_SPEC/,$p' Makefile > first.mk
sed '/^KWARM_SPEC/,$d' Makefile >> first.mk
make -f first.mk show | grep -q 'GOAL=all$' || fail "included first, the fragment took the default goal"
pass "included first or last, the default goal stays 'all'"

must warm.out "make -j4 warmup failed" make -j4 warmup
[ "$(compiles)" = 39 ] || fail "$(compiles) compiles, want 39"
m=$(max_overlap)
[ "$m" -gt 1 ] && [ "$m" -le 4 ] || fail "make -j4 warmup through the fragment: max $m at once"
for bad in "jobserver unavailable" "resetting jobserver mode" "INTERNAL"; do
	if grep -q "$bad" warm.out; then cat warm.out; fail "make said: $bad"; fi
done
[ -s "$T/out/TestQwen3Decode.callable" ] && [ -s "$T/out/TestQwen3DecodeGraph.callable" ] || fail "callables missing"
pass "make -j4 warmup: 39 compiles, max $m at once, no jobserver warnings"

# One class; then an edited spec (a renamed class) regenerates and builds it.
rm -rf "$T/out"
: > "$STANDIN_LOG"
must one.out "warmup-CLASS failed" make -j4 warmup-TestQwen3DecodeGraph
[ -s "$T/out/TestQwen3DecodeGraph.callable" ] && [ ! -e "$T/out/TestQwen3Decode.callable" ] ||
	fail "warmup-TestQwen3DecodeGraph built the wrong classes"
[ "$(compiles)" = 0 ] || fail "a cached class compiled $(compiles) units"
sed -i 's/name: TestQwen3DecodeGraph/name: TestRenamed/' "$T/q/spec.yaml"
must renamed.out "the renamed class is unknown: no regeneration" make -j4 warmup-TestRenamed
[ -s "$T/out/TestRenamed.callable" ] || fail "the renamed class was not packed"
pass "warmup-CLASS passes through; an edited spec regenerates the warm-up Makefile"

# KWARM_* given on the command line reach the fragment; a new cache folder
# regenerates (the recorded gen command changed).
must cache2.out "KWARM_CACHE= run failed" make -j4 warmup KWARM_CACHE="$T/cache2"
[ -d "$T/cache2/units" ] || fail "KWARM_CACHE on the command line was not used"
pass "a changed KWARM_CACHE regenerates and is used"
