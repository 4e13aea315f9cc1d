#!/usr/bin/env bash
# labels: e2e
# Critical-path ordering: with no record, make starts units in spec order (the
# heavy fused-attention AIV unit is 14th, the AIC half of its source 13th); once a run has recorded durations in
# the cache folder, a fresh out folder and a fresh cache that keeps only the
# record start the heavy unit first. The Makefile is deterministic for the same
# record.
. "$(dirname "$0")/lib.sh"

standin_example qwen3_decode q
export STANDIN_SCALE=0.01
cd "$T"

"$KWARM" gen q/spec.yaml -o a.mk --cache "$T/cache1" --out "$T/out1"
make -f a.mk -j4 warmup > /dev/null
[ "$(sort -k2,2n "$STANDIN_LOG" | awk '$1 == "start" {print $4; exit}')" != kernels/mix/fused_attention.cpp ] ||
	fail "without a record the heavy unit started first (spec order expected)"
[ -s cache1/durations.log ] || fail "no durations recorded"
[ "$(wc -l < cache1/durations.log)" -ge 39 ] || fail "not every unit recorded"
grep -q "TestQwen3Decode/incore 'fused_attention_aiv' (aiv)" cache1/durations.log || fail "no stable id for the heavy unit"
pass "first run records every unit's duration by a stable identity"

mkdir cache2
cp cache1/durations.log cache2/
"$KWARM" gen q/spec.yaml -o b.mk --cache "$T/cache2" --out "$T/out2"
"$KWARM" gen q/spec.yaml -o b2.mk --cache "$T/cache2" --out "$T/out2"
sed "s#$T/b2.mk#$T/b.mk#" b2.mk | cmp - b.mk || fail "same record, different Makefiles"
first=$(sed -n '/^warmup:/,/^$/p' b.mk | sed -n 2p)
key=$(grep -B0 "fused_attention.cpp" b.mk | grep -- "-D__DAV_VEC__" | grep -o -- '--key [0-9a-f]*' | cut -d' ' -f2)
case $first in *"$key.m"*) ;; *) fail "the heavy unit is not first in warmup: $first" ;; esac
: > "$STANDIN_LOG"
make -f b.mk -j4 warmup > /dev/null
[ "$(sort -k2,2n "$STANDIN_LOG" | awk '$1 == "start" {print $4; exit}')" = kernels/mix/fused_attention.cpp ] ||
	fail "with a record, the first compile started is not fused_attention"
pass "with a record: the longest unit starts first, deterministic Makefile"
