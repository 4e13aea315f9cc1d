#!/usr/bin/env bash
# labels: bench
# A smoke run of the benchmark (bench/run.sh --smoke): the table is produced
# with every row. No timing is asserted.
. "$(dirname "$0")/lib.sh"
need python3 python3
need g++ g++

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
row "^simulated warm-up \(make -jN model"
row "^qwen-late +3 +$num \| +$num +$num( +history worse)?$"
row "^suite +8 +$num \| +$num +$num( +history worse)?$"
row "kwarm gen \+ make -j8, stand-in qwen \(38 units\) +$num s"
row "kwarm gen \+ make -j8, examples/qwen3_decode, g\+\+ \(39\) +$num s"
row "tiny real compiles"
row "kwarm gen \+ make -j2 warmup +$num s +plain Makefile +$num s +ratio $num"
row "^ +1000 +$num +$num +$num +$num$"
# Without ninja or ccache the bench leaves their rows out (a supported setup,
# so this is no skip), and says so.
if command -v ninja >/dev/null; then
	row "ninja -j8 no-op, same 38 commands +$num s"
else
	echo "note: no ninja (Debian: ninja-build): its rows are not checked"
fi
if command -v ccache >/dev/null; then
	row "ccache hits, pool of 8 +$num s"; row "39/39 hits"
else
	echo "note: no ccache: its rows are not checked"
fi
pass "bench --smoke prints the table with every row"

# The compile farm: qwen in the two-step form through bench/farm_launcher.sh
# with S + L = 9 slots, at N = 2, 9 and 18. peak (the most compiles the
# stand-in saw running at once) never exceeds min(N, 9): at -j18 the launcher
# queues the jobs past 9.
row "^compile farm: two-step form"
row "N = S \+ L = 9 "
row "^workload +N +slots +LB s +wall s \| +kwarm +kw\+rec \| +peak$"
row "^qwen +2 +2 +$num +$num \| +$num +n/a \| +[12]$"
row "^qwen +9 +9 +$num +$num \| +$num +n/a \| +[1-9]$"
row "^qwen +18 +9 +$num +$num \| +$num +n/a \| +[1-9]$"
peak18=$(grep -E "^qwen +18 " "$T/table.txt" | awk '{print $NF}')
[ "$peak18" -ge 2 ] || fail "at -j18 at most $peak18 compile ran at once: the farm rows ran nothing in parallel"
for d in "$T"/work/*-farm-slots-j*; do
	[ "$(grep -c '^start .*\.cpp$' "$d/standin.log")" = 38 ] || fail "$d: not the 38 compiles"
	[ "$(grep -c '^start ' "$d/standin.log")" = 76 ] || fail "$d: not 38 compiles plus 38 local links"
done
if command -v distcc > /dev/null && command -v distccd > /dev/null; then
	row "^  kwarm gen --launcher distcc \+ make -j4 \(distcc -j\) +$num s +distccd COMPILE_OK 4/4$"
	row "^  kwarm gen \+ make -j2, local, no launcher +$num s$"
	# The daemon was stopped before its log was kept with the scratch files.
	grep -q 'dcc_daemon_terminate' "$T"/work/*-distcc/distccd.log || fail "the private distccd was not stopped"
else
	row "^real distcc, examples/distcc: n/a \(distcc, distccd not installed"
fi
pass "farm rows: the launcher caps the compiles at the slots; distcc ran every compile"

# The scratch folder holds what each scheduler ran: the same 38 commands.
ls -d "$T"/work/*-serial "$T"/work/*-pool-j2 "$T"/work/*-xargs-j2 > /dev/null || fail "scheduler folders missing"
for d in "$T"/work/*-serial "$T"/work/*-pool-j2 "$T"/work/*-xargs-j2; do
	[ "$(ls "$d" | grep -c '^u')" = 38 ] || fail "$d holds $(ls "$d" | grep -c '^u') outputs, want 38"
done
pass "serial, pool and xargs each ran the 38 unit commands"
