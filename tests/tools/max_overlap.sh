#!/usr/bin/env bash
# max_overlap.sh [LOG...]: the largest number of runs that were between their
# "start" and "end" lines at one time, from logs of "start NS ..." and "end NS
# ..." lines (the stand-in's STANDIN_LOG, overlap_probe.sh's log), or stdin.
# Other lines are ignored; to count some runs only, filter the lines first.
#
# The one rule, for every overlap count of the tests and the bench: a run
# holds [start, end), so at equal times "end" comes before "start" and two
# runs that only touch do not overlap. Times sort as digit strings (exact,
# unlike awk's doubles); -k1,1 then puts "end" before "start".
set -euo pipefail
cat -- "$@" | LC_ALL=C sort -k2,2n -k1,1 | awk '
	$1 == "start" { n++; if (n > max) max = n }
	$1 == "end"   { n-- }
	END { print max + 0 }'
