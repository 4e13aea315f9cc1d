#!/usr/bin/env bash
# overlap_probe.sh LOG [SECONDS]: a stand-in job that records when it runs.
# It appends "start NS PID" and "end NS PID" (NS: nanoseconds since the epoch)
# to LOG, each line one write to an O_APPEND file, around a short fixed sleep
# that is its "work" (nothing waits on it). max_overlap.sh reads the log.
set -euo pipefail
log=$1
work=${2:-0.3}
printf 'start %s %s\n' "$(date +%s%N)" "$$" >> "$log"
sleep "$work"
printf 'end %s %s\n' "$(date +%s%N)" "$$" >> "$log"
