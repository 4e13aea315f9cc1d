#!/usr/bin/env bash
# The benchmark's stand-in for a compile farm's launcher (bench/README.md,
# "compile farm"). As `launcher: [bench/farm_launcher.sh]` it runs its
# arguments (the compile command) once it holds one of the farm's slots, as
# distcc with DISTCC_HOSTS='localhost/L farm/S' holds one of S + L host slots
# per compile: past S + L concurrent compiles, jobs wait here, not on a host.
# The stand-in compiler only sleeps, so a 2-core machine models the slots
# fairly: a sleeping compile needs no core.
#
# FARM_SLOTS names a FIFO holding one byte per free slot. bench.py makes it,
# writes S + L bytes and keeps it open for the whole run (a FIFO's bytes live
# only while some process has it open). A slot is taken by reading one byte
# and given back by writing it again, also when the compile fails or the
# launcher is signalled; bench.py counts the bytes afterwards.
set -u
fifo=${FARM_SLOTS:?farm_launcher.sh: FARM_SLOTS names no slot fifo}
token=
release() {
	if [ -n "$token" ]; then
		printf '%s' "$token" >&9
		token=
	fi
}
trap 'release; exit 143' TERM INT HUP
# Read and write: opening a FIFO this way never blocks.
exec 9<> "$fifo" || exit 1
# bash reads a pipe one byte at a time, so this takes exactly one slot.
IFS= read -r -n 1 -u 9 token || { echo "farm_launcher.sh: no slot from '$fifo'" >&2; exit 1; }
[ -n "$token" ] || { echo "farm_launcher.sh: an empty slot token in '$fifo'" >&2; exit 1; }
"$@"
status=$?
release
exit "$status"
