#!/usr/bin/env bash
# Build the libFuzzer harness and fuzz the spec loader and Makefile writer for
# SECONDS (default 60), seeded with the examples' specs and the bad-spec corpus.
#
#   fuzz/run.sh [SECONDS] [EXTRA LIBFUZZER OPTIONS...]
#
# Needs clang with libFuzzer (Debian: clang, and libclang-rt-NN-dev where clang
# splits it out). Builds in build-fuzz/ (KWARM_FUZZ_BUILD overrides). The
# corpus grows in build-fuzz/fuzz-corpus across runs. A crash leaves its input
# as build-fuzz/fuzz-crashes/crash-*; reproduce it with
#   build-fuzz/fuzz_spec build-fuzz/fuzz-crashes/crash-...
# Long runs (hours, both cores):
#   fuzz/run.sh 14400 -jobs=2 -workers=2
# Prints "fuzz_spec: N executions in S s, no crash" and exits 0, or 1 on a crash.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
shift || true
build=${KWARM_FUZZ_BUILD:-$src/build-fuzz}

CC=${CC:-clang} cmake -S "$src" -B "$build" -DKWARM_FUZZ=ON > /dev/null
cmake --build "$build" -j2 --target fuzz_spec > /dev/null

seeds=$build/fuzz-seeds corpus=$build/fuzz-corpus crashes=$build/fuzz-crashes
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$crashes"
# The harness rewrites its spec file at every execution: keep it in memory.
tmp=$(mktemp -d /dev/shm/kwarm-fuzz-run.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$src"/examples/*/spec.yaml; do
	cp "$f" "$seeds/example-$(basename "$(dirname "$f")").yaml"
done
cp "$src"/tests/specs/bad/*.yaml "$seeds/"
[ ! -d "$src/fuzz/crashes" ] || cp "$src"/fuzz/crashes/* "$seeds/" 2>/dev/null || true

log=$build/fuzz.log
set +e
TMPDIR=$tmp "$build/fuzz_spec" -max_total_time="$seconds" -close_fd_mask=2 \
	-artifact_prefix="$crashes/" -print_final_stats=1 "$@" "$corpus" "$seeds" > "$log" 2>&1
rc=$?
set -e
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s += $1} END {print s + 0}')
if [ "$rc" != 0 ]; then
	grep -A40 'ERROR:\|==ERROR\|deadly signal\|runtime error' "$log" | head -80 >&2 || tail -40 "$log" >&2
	echo "fuzz_spec: CRASH after $execs executions; inputs in $crashes, log $log" >&2
	exit 1
fi
echo "fuzz_spec: $execs executions in $seconds s, no crash"
