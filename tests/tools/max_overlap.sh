#!/usr/bin/env bash
# max_overlap.sh LOG: the largest number of overlap_probe.sh (or stand-in)
# runs that were between their "start" and "end" lines at one time. Events
# sort by time as digit strings (exact, unlike awk's doubles); at equal times
# "end" sorts before "start", so touching intervals do not count as overlapping.
set -euo pipefail
LC_ALL=C sort -k2,2n -k1,1 "$1" | awk '
	$1 == "start" { n++; if (n > max) max = n }
	$1 == "end"   { n-- }
	END { print max + 0 }'
