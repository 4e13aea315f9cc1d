#!/usr/bin/env bash
# kwarm benchmark: one command, one table (see bench/README.md).
#   bench/run.sh [--scale 0.1] [--quick | --smoke] [--output FILE] [--keep]
# Binaries: $KWARM and $STANDIN, else build/kwarm and build/kwarm-standin.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
export KWARM=${KWARM:-$src/build/kwarm}
export STANDIN=${STANDIN:-$src/build/kwarm-standin}
for tool in make python3; do
	command -v "$tool" >/dev/null || { echo "bench: '$tool' is needed" >&2; exit 2; }
done
for tool in ninja ccache; do
	command -v "$tool" >/dev/null ||
		echo "bench: '$tool' not found: its column shows n/a (Debian: apt-get install ${tool/ninja/ninja-build})" >&2
done
exec python3 "$here/bench.py" "$@"
