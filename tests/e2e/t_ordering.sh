#!/usr/bin/env bash
# labels: e2e
# Critical-path ordering: with no record, make starts units in spec order (the
# heavy fused-attention AIV unit is 14th, the AIC half of its source 13th); once a run has recorded durations in
# the cache folder, a fresh out folder and a fresh cache that keeps only the
# record start the heavy unit first. The Makefile is deterministic for the same
# record. A record of short units, where what a step costs besides the
# compiler counts (the bench's scale 0.1), keeps spec order at -j2 and -j3,
# where longest-first runs more steps on the slot that ends last, and at -j4
# and from -j14, where the two orders tie (spec order stays), and
# longest-first at -j5.
. "$(dirname "$0")/lib.sh"

standin_example qwen3_decode q
export STANDIN_SCALE=0.01
cd "$T"

"$KWARM" gen q/spec.yaml -o a.mk --cache "$T/cache1" --out "$T/out1"
make -f a.mk -j4 warmup > /dev/null
# heavy_rank: where the first fused_attention compile ranks among the starts.
# make -j4 starts four jobs at once, and which logs first is a race, so the
# assertions are about the first wave (ranks 1-4), not the first start.
# awk reads to the end: an early exit could kill sort by SIGPIPE, and
# pipefail would then fail the test for nothing.
heavy_rank() {
	sort -k2,2n "$STANDIN_LOG" | awk '$1 == "start" { n++; if (!r && $4 ~ /fused_attention/) r = n } END { print r + 0 }'
}
r=$(heavy_rank)
[ "$r" -gt 4 ] || fail "without a record the heavy unit started in the first wave (rank $r; spec order expected)"
[ -s cache1/durations.log ] || fail "no durations recorded"
[ "$(wc -l < cache1/durations.log)" -ge 39 ] || fail "not every unit recorded"
grep -q "TestQwen3Decode/incore 'fused_attention_aiv' (aiv)" cache1/durations.log || fail "no stable id for the heavy unit"
pass "first run records every unit's duration by a stable identity"

# The second run's record: the ids the first run wrote, with the workload's
# costs (measured times under a loaded machine could reorder the light units).
mkdir cache2
awk -F '\t' '{ s = 1.2 } /fused_attention_aiv/ { s = 8.4 } /orchestration/ { s = 6.6 }
	{ printf "%s\t%s\n", s, $2 }' cache1/durations.log > cache2/durations.log
"$KWARM" gen q/spec.yaml -o b.mk --cache "$T/cache2" --out "$T/out2"
"$KWARM" gen q/spec.yaml -o b2.mk --cache "$T/cache2" --out "$T/out2"
sed "s#$T/b2.mk#$T/b.mk#" b2.mk | cmp - b.mk || fail "same record, different Makefiles"
# The longest-first list: warmup's own, or KW_LONGEST where spec order is
# taken at some -j.
first=$(awk '/^(warmup:|KW_LONGEST :=)/ { getline; print; exit }' b.mk)
key=$(unit_keys b.mk '__DAV_VEC__.*fused_attention[.]cpp')
[ "$(printf '%s\n' "$key" | wc -w)" = 1 ] || fail "not one AIV fused_attention unit"
case $first in *"$key.m"*) ;; *) fail "the heavy unit is not first in warmup: $first" ;; esac
: > "$STANDIN_LOG"
make -f b.mk -j4 warmup > /dev/null
r=$(heavy_rank)
[ "$r" -le 4 ] || fail "with a record, the heavy unit started at rank $r, not in the first wave"
pass "with a record: the longest unit is make's first job (started at rank $r of 4 parallel), deterministic Makefile"

# TestQwen3Decode alone (the bench's qwen: one 6.6 s orchestration), recorded
# as a run at the bench's scale 0.1 records it: 2 ms a step in each unit's seconds.
sed '/- name: TestQwen3DecodeGraph/,$d' q/spec.yaml > q/one.yaml
mkdir cache3
awk -F '\t' '{ s = 0.122 } /fused_attention_aiv/ { s = 0.842 } /orchestration/ { s = 0.662 }
	{ printf "%s\t%s\n", s, $2 }' cache1/durations.log > cache3/durations.log
"$KWARM" gen q/one.yaml -o c.mk --cache "$T/cache3" --out "$T/out3"
grep -q '^warmup: .*filter -j2 -j3 -j4 -j14 -j15 .* -j32,' c.mk ||
	fail "not spec order at -j2 to -j4 and -j14 to -j32 for short units: $(grep '^warmup:' c.mk)"
: > "$STANDIN_LOG"
make -f c.mk -j2 warmup > /dev/null
r=$(heavy_rank)
[ "$r" -gt 2 ] || fail "make -j2 started the heavy unit at rank $r: not spec order"
rm -rf cache3/units out3
: > "$STANDIN_LOG"
make -f c.mk -j5 warmup > /dev/null
r=$(heavy_rank)
[ "$r" -le 5 ] || fail "make -j5 started the heavy unit at rank $r: not longest first"
pass "short units: spec order at -j2 (where it is faster by the record), longest first at -j5"
