#!/usr/bin/env bash
# labels: e2e
# gen whose Makefile cannot be written whole (ulimit -f between the side
# files' size, or the cache probe's, and the Makefile's): it fails, saying
# so, and the files of the previous gen stay as they were, all three (none is
# replaced before all are written), with no temps left.
. "$(dirname "$0")/lib.sh"

standin_example minimal p
cd "$T"
gen() { "$KWARM" gen p/spec.yaml -o mk/w.mk --cache "$T/cache" --out "$1"; }
gen "$T/out-one"
mkdir before
cp mk/w.mk mk/w.mk.inputs mk/w.mk.plan before/
# Over the side files and the 4 KiB the cache's write probe writes
# (cache_probe) before any of them.
side=$( (stat -c %s mk/w.mk.plan mk/w.mk.inputs; echo 4096) | sort -n | tail -1)
limit=$(( side / 1024 + 1 ))
[ "$(stat -c %s mk/w.mk)" -gt $(( limit * 1024 )) ] ||
	fail "the Makefile ($(stat -c %s mk/w.mk) bytes) is not over the limit ($limit KiB)"

set +e
(ulimit -f "$limit"; gen "$T/out-two") 2> err.txt
rc=$?
set -e
[ "$rc" != 0 ] || fail "gen succeeded with the Makefile over the limit"
holds err.txt "cannot write '$T/mk/w.mk.tmp.*': File too large" "the failure does not say what happened"
for f in w.mk w.mk.inputs w.mk.plan; do
	cmp -s before/$f mk/$f || fail "$f was replaced by a gen that failed"
done
[ "$(ls mk)" = "$(printf 'w.mk\nw.mk.inputs\nw.mk.plan')" ] || fail "left behind: $(ls mk)"
pass "a Makefile over ulimit -f: gen fails, saying so; the previous files stay, no temps"

gen "$T/out-two"
cmp -s before/w.mk mk/w.mk && fail "the re-run without the limit did not write the new Makefile"
pass "without the limit the same gen writes its files"
