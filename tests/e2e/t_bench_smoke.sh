#!/usr/bin/env bash
# labels: bench
# A smoke run of the benchmark (bench/run.sh --smoke): the table is produced
# with every row. No timing is asserted.
. "$(dirname "$0")/lib.sh"

bench=$KWARM_TEST_SRC/bench/run.sh
"$bench" --smoke --scale 0.01 --scratch "$T/work" --output "$T/table.txt" > "$T/stdout.txt" 2> "$T/stderr.txt" ||
	{ cat "$T/stderr.txt" >&2; fail "bench/run.sh --smoke failed"; }
cmp "$T/table.txt" "$T/stdout.txt" || fail "the printed table differs from the written one"

row() { grep -Eq -- "$1" "$T/table.txt" || { cat "$T/table.txt" >&2; fail "no row matching '$1'"; }; }
num='[0-9]+\.[0-9]+'
row "^machine: [0-9]+ cpus"
row "^tools: .*GNU Make"
row "stand-in scale 0.01"
row "^workload +N +LB s \| +kwarm +kw\+rec \| +serial +pool +xargs +ninja$"
row "^qwen +2 +$num \| +$num +$num\*? \| +$num +$num +$num +($num|n/a)$"
row "kwarm gen \+ make -j8, stand-in qwen \(38 units\) +$num s"
row "kwarm gen \+ make -j8, examples/qwen3_decode, g\+\+ \(39\) +$num s"
row "tiny real compiles"
row "kwarm gen \+ make -j2 warmup +$num s +plain Makefile +$num s +ratio $num"
row "^ +1000 +$num +$num +$num +$num$"
if command -v ninja >/dev/null; then row "ninja -j8 no-op, same 38 commands +$num s"; fi
if command -v ccache >/dev/null; then row "ccache hits, pool of 8 +$num s"; row "39/39 hits"; fi
pass "bench --smoke prints the table with every row"

# The scratch folder holds what each scheduler ran: the same 38 commands.
ls -d "$T"/work/*-serial "$T"/work/*-pool-j2 "$T"/work/*-xargs-j2 > /dev/null || fail "scheduler folders missing"
for d in "$T"/work/*-serial "$T"/work/*-pool-j2 "$T"/work/*-xargs-j2; do
	[ "$(ls "$d" | grep -c '^u')" = 38 ] || fail "$d holds $(ls "$d" | grep -c '^u') outputs, want 38"
done
pass "serial, pool and xargs each ran the 38 unit commands"
