#!/usr/bin/env bash
# labels: e2e
# A file-size limit (ulimit -f) and a full disk during a warm-up: (1) the limit
# below one unit's output: the compile fails, saying so, and nothing is cached;
# (2) the limit between a unit's and a callable's size: every unit compiles and
# is cached, the pack fails, saying so; (3) OUT on a small tmpfs: the pack fails
# for want of space. Under each, nothing torn under a final name and no temps
# left; a re-run without the limit (or with room) gives the right callables.
# (4) The cache on a small tmpfs that fills up during the warm-up: the units
# it cannot take compile into the private store; the run succeeds with no
# error line, at most two warnings and the reason in summary.json; the next run
# with room stores them in the cache.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
mkdir -p "$T/refs/0/"
# Units of ~64 KiB each (the stand-in's output holds its source): a callable
# of an orchestration and three incores is ~270 KiB.
filler=$(python3 -c 'print("\n".join("// %s" % ("x" * 60) for _ in range(1024)))')
for u in orch k0 k1 k2; do
	printf 'int %s;\n%s\n' "$u" "$filler" > "$R/src/$u.c"
done
STANDIN_ORCH=src/orch.c standin_spec "$R" TestBig=src/k0.c,src/k1.c,src/k2.c
fault_bins "$T/bins" orch k0 k1 k2
fault_expect "$T/refs/0/TestBig.callable" "[]" "$T/bins" orch k0 k1 k2
unit_kib=$(( $(stat -c %s "$T/bins/k0") / 1024 ))
callable_kib=$(( $(stat -c %s "$T/refs/0/TestBig.callable") / 1024 ))
echo "a unit is $unit_kib KiB, the callable $callable_kib KiB"
[ "$unit_kib" -gt 40 ] && [ "$callable_kib" -gt 200 ] || fail "the sizes do not fit the limits below"
manifests() { find "$1/units" -name '*.m' 2>/dev/null | wc -l; }

gen_warmup

# 1. ulimit -f 32 (KiB): no unit output fits.
set +e
(ulimit -f 32; make -f warmup.mk -k -j2 warmup) > limit1.out 2> limit1.err
rc=$?
set -e
[ "$rc" != 0 ] || fail "make succeeded under ulimit -f 32"
# The compiler is killed by SIGXFSZ (or, ignoring it, fails with EFBIG).
[ "$(grep -Ec "kwarm: error: (orchestration 'src/orch.c'|incore 'k[012]' \(aiv\)) failed at the compile step .*(File size limit exceeded|File too large)" limit1.err)" = 4 ] ||
	{ cat limit1.err; fail "the failures do not say what happened"; }
[ "$(manifests cache)" = 0 ] || fail "a unit was cached under the limit"
[ ! -e out/TestBig.callable ] || fail "a callable was published under the limit"
tree_check cache out refs --no-temps || fail "ulimit -f while compiling: temps or torn files"
pass "ulimit -f below a unit's size: compiles fail, saying so; nothing cached, nothing torn"

# 2. ulimit -f 160 (KiB): units fit, the callable does not.
set +e
(ulimit -f 160; make -f warmup.mk -j2 warmup) > limit2.out 2> limit2.err
rc=$?
set -e
[ "$rc" != 0 ] || fail "make succeeded with a callable over the limit"
[ "$(manifests cache)" = 4 ] || { cat limit2.err; fail "the units did not all compile under the limit"; }
holds limit2.err "cannot write '$T/out/TestBig.callable.tmp.*': File too large" \
	"the pack failure does not say what happened"
[ ! -e out/TestBig.callable ] || fail "a callable was published over the limit"
tree_check cache out refs --no-temps || fail "ulimit -f while packing: temps or torn files"
pass "ulimit -f between unit and callable size: units cached, the pack fails, saying so; nothing torn"

before=$(compiles)
must rerun.txt "the re-run without a limit failed" make -f warmup.mk -j2 warmup
cmp refs/0/TestBig.callable out/TestBig.callable || fail "the re-run's callable is wrong"
[ "$(compiles)" = "$before" ] || fail "the re-run compiled again"
tree_check cache out refs --no-temps || fail "after the re-run"
pass "the re-run without the limit packs the right bytes from the cache"

# 3. OUT on a 128 KiB tmpfs: the pack runs out of space.
[ "$(id -u)" = 0 ] || skip "part 3 needs a tmpfs, which needs root (CI runs as root); parts 1 and 2 passed"
mkdir small
mount -t tmpfs -o size=128k tmpfs "$T/small" || fail "cannot mount a tmpfs as root"
trap 'umount "$T/small" 2>/dev/null || true; umount "$T/smallc" 2>/dev/null || true' EXIT
"$KWARM" gen root/spec.yaml -o small.mk --cache "$T/cache" --out "$T/small/out"
set +e
make -f small.mk -j2 warmup > full.out 2> full.err
rc=$?
set -e
[ "$rc" != 0 ] || fail "make succeeded with a full OUT"
holds full.err "No space left on device" "the full disk is not told"
[ ! -e small/out/TestBig.callable ] || fail "a callable was published on a full disk"
tree_check cache small/out refs --no-temps || fail "full OUT: temps or torn files"
[ "$(df --output=used -k small | tail -1)" -lt 64 ] || fail "the failed pack left space used: $(du -a small)"
mount -o remount,size=1m "$T/small" || fail "cannot grow the tmpfs"
must full-rerun.txt "the re-run with room failed" make -f small.mk -j2 warmup
cmp refs/0/TestBig.callable small/out/TestBig.callable || fail "the callable packed after a full disk is wrong"
[ "$(compiles)" = "$before" ] || fail "the full-disk runs compiled again"
tree_check cache small/out refs --no-temps || fail "after the re-run with room"
pass "a full OUT: the pack fails, saying so, leaves nothing; with room the re-run is right"

# 4. The cache on a 128 KiB tmpfs: one unit's entry fits, not two; the
# compiler itself fails writing its output into the full cache folder.
mkdir smallc
mount -t tmpfs -o size=128k tmpfs "$T/smallc" || fail "cannot mount a tmpfs as root"
"$KWARM" gen root/spec.yaml -o fullc.mk --cache "$T/smallc/cache" --out "$T/outc" 2> gen4.err ||
	{ cat gen4.err; fail "gen failed on the small cache"; }
[ ! -s gen4.err ] || { cat gen4.err; fail "gen warned while the cache still had room"; }
: > "$STANDIN_LOG"
must fullc.txt "a full cache failed the warm-up" make -f fullc.mk -j2 warmup
! grep -i error fullc.txt || fail "an error line in a warm-up that succeeded"
! grep -i "no space left" fullc.txt || fail "the compiler's output of an attempt made good is shown"
[ "$(grep -c warning fullc.txt)" -le 2 ] || { cat fullc.txt; fail "more than two warning lines"; }
holds fullc.txt "warning: the cache is not used" "the full cache is not told"
cmp refs/0/TestBig.callable outc/TestBig.callable || fail "the callable from a full cache is wrong"
uncached=$(( 4 - $(manifests smallc/cache) ))
[ "$uncached" -gt 0 ] || fail "every unit fit in the small cache: the test proves nothing"
[ "$(find outc/.kwarm/private/units -name '*.m' | wc -l)" = "$uncached" ] ||
	fail "the units the cache did not take are not in the private store"
python3 - outc/.kwarm/summary.json <<'PY' || { cat outc/.kwarm/summary.json; fail "summary.json does not record the full cache"; }
import json, sys
s = json.load(open(sys.argv[1]))
assert s["cache_unusable"] and ("full" in s["cache_unusable"] or "space" in s["cache_unusable"]), s["cache_unusable"]
assert [c["status"] for c in s["classes"]] == ["built"], s["classes"]
PY
tree_check smallc/cache outc refs --no-temps || fail "full cache: temps or torn files"
pass "cache full mid-warm-up: success, no error, $(grep -c warning fullc.txt) warning(s), summary.json says why, $uncached units private"

# With room, the next run stores the units the cache missed.
mount -o remount,size=4m "$T/smallc" || fail "cannot grow the tmpfs"
: > "$STANDIN_LOG"
must roomc.txt "the run with room failed" make -f fullc.mk -j2 warmup
! grep -Ei "error|warning" roomc.txt || fail "the run with room warned"
[ "$(manifests smallc/cache)" = 4 ] || fail "the run with room did not store every unit in the cache"
[ "$(compiles)" = "$uncached" ] || fail "the run with room compiled $(compiles) units, not $uncached"
cmp refs/0/TestBig.callable outc/TestBig.callable || fail "the callable after the run with room is wrong"
python3 - outc/.kwarm/summary.json <<'PY' || fail "summary.json still says the cache was unusable"
import json, sys
assert json.load(open(sys.argv[1]))["cache_unusable"] is None
PY
tree_check smallc/cache outc refs --no-temps || fail "after the run with room"
pass "with room again, the next run stores those units in the cache"
