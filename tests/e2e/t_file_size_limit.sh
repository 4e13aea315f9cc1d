#!/usr/bin/env bash
# labels: e2e
# kwarm under a ulimit -f too small for what it writes: gen (whose cache probe
# writes 4 KiB before anything else), the compile steps (their cache entries)
# and the pack step (the callable). Each fails with an error naming the file
# or folder it could not write, not killed by SIGXFSZ without a word, and
# leaves no temp behind and no partial file under a final name.
. "$(dirname "$0")/lib.sh"

standin_example minimal p
cd "$T"
gen() { "$KWARM" gen p/spec.yaml -o mk/w.mk --cache "$T/cache" --out "$T/out"; }
# limited LIMIT COMMAND..: run COMMAND under ulimit -f LIMIT, its stderr into
# err.txt through a pipe (a file opened under the limit would cut it); rc set.
limited() {
	local limit=$1
	shift
	set +e
	(ulimit -f "$limit"; "$@") 2>&1 > /dev/null | cat > err.txt
	rc=${PIPESTATUS[0]}
	set -e
}
# No temp (NAME.tmp.PID.WORD) nor probe (probe.PID) left anywhere.
no_temps() {
	local left
	left=$(find "$T/cache" "$T/out" "$T/mk" -name '*.tmp.*' -o -name 'probe.*' 2>/dev/null || true)
	[ -z "$left" ] || fail "$1 left temps behind: $left"
}

limited 1 gen
[ "$rc" = 1 ] || { cat err.txt; fail "gen under ulimit -f 1 exited $rc, not 1 (killed by a signal above 128)"; }
holds err.txt "^kwarm: error: cache folder unusable: cannot write in '$T/out/.kwarm/private': File too large$" \
	"gen under ulimit -f 1 does not say what it could not write"
[ ! -e mk ] || fail "gen under ulimit -f 1 wrote: $(ls mk)"
no_temps "gen under ulimit -f 1"
pass "gen under ulimit -f 1: exit 1, naming the folder it cannot write, nothing written"

gen
limited 1 make -f mk/w.mk -j2 warmup
[ "$rc" != 0 ] || fail "the warm-up succeeded with its cache entries over ulimit -f 1"
# The compiler itself may be killed by SIGXFSZ (its step says so); kwarm not.
if grep -q '^make: \*\*\* .*\] File size limit exceeded' err.txt; then cat err.txt; fail "a compile step was killed by SIGXFSZ"; fi
holds err.txt "^kwarm: error: cannot write '$T/.*': File too large$" \
	"no compile step says which file it could not write"
no_temps "the compile steps under ulimit -f 1"
must verify.txt "an entry under its final name is damaged" "$KWARM" cache --cache "$T/cache" verify
pass "compile steps under ulimit -f 1: each failure names the file, no temp or partial entry left"

must make.txt "the warm-up without the limit failed" make -f mk/w.mk -j2 warmup
callable=$T/out/TestMinimal.callable
size=$(stat -c %s "$callable")
cp "$callable" whole.callable
rm "$callable"
limit=$(( size / 1024 / 2 ))
[ "$limit" -gt 0 ] || fail "the callable ($size bytes) is too small for the pack case"
limited "$limit" make -f mk/w.mk -j2 warmup
[ "$rc" != 0 ] || fail "the pack succeeded with its callable ($size bytes) over ulimit -f $limit"
if grep -q '^make: \*\*\* .*\] File size limit exceeded' err.txt; then cat err.txt; fail "the pack step was killed by SIGXFSZ"; fi
holds err.txt "^kwarm: error: cannot write '$callable.tmp.*': File too large$" \
	"the pack step does not say which file it could not write"
[ ! -e "$callable" ] || fail "a partial callable was published under its final name"
no_temps "the pack step under ulimit -f $limit"
must make.txt "the pack without the limit failed" make -f mk/w.mk -j2 warmup
cmp -s whole.callable "$callable" || fail "the callable packed after the failure differs"
pass "the pack step under ulimit -f $limit: it names the callable's temp, publishes nothing"
