#!/usr/bin/env bash
# labels: e2e
# A harness started by a '+' recipe of `make -j3` runs six `kwarm exec` at
# once: the harness owns make's implicit slot and each exec takes one token
# of the two in the pipe, so at most two commands run at a time (and, with
# six 0.3 s jobs, two do). No token is lost: make 4.3 would say "INTERNAL".
. "$(dirname "$0")/lib.sh"
cd "$T"

cat > harness.sh <<SH
set -euo pipefail
pids=()
for i in 1 2 3 4 5 6; do
	"$KWARM" exec -- bash "$TOOLS/overlap_probe.sh" "$T/probe.log" 0.3 &
	pids+=(\$!)
done
for p in "\${pids[@]}"; do wait "\$p"; done
echo harness done
SH
printf 'all:\n\t+bash harness.sh\n' > Makefile

make -j3 > make.out 2> make.err || { cat make.out make.err; fail "make -j3 failed"; }
grep -q 'harness done' make.out || fail "the harness did not finish"
[ ! -s make.err ] || { cat make.err; fail "unexpected messages (a warning, or lost tokens)"; }
[ "$(grep -c '^start ' probe.log)" = 6 ] || fail "$(grep -c '^start ' probe.log) probes started, want 6"
[ "$(grep -c '^end ' probe.log)" = 6 ] || fail "not every probe ended"
m=$(bash "$TOOLS/max_overlap.sh" probe.log)
[ "$m" -le 2 ] || fail "make -j3: $m commands at once, want at most 2"
[ "$m" -gt 1 ] || fail "make -j3: the commands never overlapped (max $m)"
echo "ok: make -j3, six kwarm exec from a '+' harness: at most $m at once"

# Without kwarm exec the same harness runs all six at once: the probe and
# the checker can see a bound being broken.
sed -i "s#\"$KWARM\" exec -- ##" harness.sh
rm -f probe.log
make -j3 > make.out 2> make.err || { cat make.out make.err; fail "make -j3 without exec failed"; }
m=$(bash "$TOOLS/max_overlap.sh" probe.log)
[ "$m" -gt 2 ] || fail "control run without kwarm exec: only $m at once"
echo "ok: control without kwarm exec: $m at once"
