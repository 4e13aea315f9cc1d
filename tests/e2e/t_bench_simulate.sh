#!/usr/bin/env bash
# labels: bench
# bench/simulate_order.py's history column is the order gen writes with a
# record: on qwen-late (the orchestration listed last in the spec) at -j8 it
# beats spec order by far (1.012 against 1.726 of LB). With a record read
# wrongly from the plan (empty: no durations.log at all) the column repeats
# spec order, as it did once the plan's ids moved to its unit list.
. "$(dirname "$0")/lib.sh"
need python3 python3

python3 "$KWARM_TEST_SRC/bench/simulate_order.py" --kwarm "$KWARM" --standin "$STANDIN" \
	--shapes qwen-late --ns 8 > "$T/table.txt" 2> "$T/stderr.txt" ||
	{ cat "$T/stderr.txt" >&2; fail "simulate_order failed"; }
cat "$T/table.txt"
read -r spec hist < <(awk '$1 == "qwen-late" && $2 == 8 { print $5, $6 }' "$T/table.txt")
[ -n "$hist" ] || fail "no qwen-late row at N = 8"
awk -v s="$spec" -v h="$hist" 'BEGIN { exit !(h + 0.1 < s) }' ||
	fail "history $hist is not below spec $spec: the record did not reach gen"
pass "the simulated history order beats spec order on qwen-late at -j8 ($hist < $spec)"

# --bound: no order's makespan is under it (the model's every step and pack
# spread over the slots, or the longest callable's chain), and on qwen-late
# at -j8 the history order is at it (its long unit first: the chain decides).
python3 "$KWARM_TEST_SRC/bench/simulate_order.py" --kwarm "$KWARM" --standin "$STANDIN" \
	--shapes qwen-late --ns 3,8 --step 0.02 --bound > "$T/bound.txt" 2> "$T/stderr.txt" ||
	{ cat "$T/stderr.txt" >&2; fail "simulate_order --bound failed"; }
cat "$T/bound.txt"
[ "$(awk '$1 == "qwen-late" && NF >= 7' "$T/bound.txt" | wc -l)" = 2 ] || fail "no bound column in two rows"
awk '$1 == "qwen-late" && ($7 > $5 + 1e-9 || $7 > $6 + 1e-9) { exit 1 }' "$T/bound.txt" ||
	fail "a makespan under the bound"
awk '$1 == "qwen-late" && $2 == 8 { exit !($6 == $7) }' "$T/bound.txt" ||
	fail "history is not at the bound on qwen-late at -j8"
pass "the bound is under both orders, and history is at it on qwen-late at -j8"
