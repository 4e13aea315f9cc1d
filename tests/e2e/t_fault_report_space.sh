#!/usr/bin/env bash
# labels: e2e
# OUT/.kwarm (the run's reports) on a full disk, OUT itself with room: the
# warm-up succeeds with the right callable, and no report is left torn under
# its final name (trace.json and summary.json are valid JSON or absent). With
# room again, a run with work writes both.
. "$(dirname "$0")/lib.sh"
need python3 python3
[ "$(id -u)" = 0 ] || skip "mounting a tmpfs needs root (CI runs as root)"

standin_example minimal m
cd "$T"
"$KWARM" gen m/spec.yaml -o ref.mk --cache "$T/refcache" --out "$T/refout"
make -f ref.mk -j2 warmup > /dev/null
"$KWARM" gen m/spec.yaml -o full.mk --cache "$T/cache" --out "$T/out"
mkdir -p out/.kwarm
mount -t tmpfs -o size=64k tmpfs "$T/out/.kwarm" || fail "cannot mount a tmpfs as root"
trap 'umount "$T/out/.kwarm" 2>/dev/null || true' EXIT
dd if=/dev/zero of=out/.kwarm/fill bs=4k 2>/dev/null || true
must full.txt "a full report folder failed the warm-up" make -f full.mk -j2 warmup
cmp refout/TestMinimal.callable out/TestMinimal.callable || fail "the callable is wrong"
valid_or_absent() {
	python3 - "$@" <<'PY'
import json, os, sys
for p in sys.argv[1:]:
    if os.path.exists(p):
        try:
            json.load(open(p))
        except ValueError as e:
            sys.exit("%s is torn (%d bytes): %s" % (p, os.path.getsize(p), e))
PY
}
valid_or_absent out/.kwarm/trace.json out/.kwarm/summary.json || fail "a torn report under its final name"
pass "reports on a full disk: the warm-up succeeds, no torn report"

rm out/.kwarm/fill out/TestMinimal.callable
must room.txt "the run with room failed" make -f full.mk -j2 warmup
[ -s out/.kwarm/trace.json ] && [ -s out/.kwarm/summary.json ] || fail "the run with room wrote no reports"
valid_or_absent out/.kwarm/trace.json out/.kwarm/summary.json || fail "a torn report after the run with room"
pass "with room again, a run with work writes its reports"
