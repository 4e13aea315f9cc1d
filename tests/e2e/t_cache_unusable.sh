#!/usr/bin/env bash
# labels: e2e
# A full cache disk does not fail a warm-up that would otherwise pass: units
# compile without the cache, with one warning, and the callables are correct.
# The cache is a small tmpfs, or a folder remounted read-only mid-run, where
# a real compiler's search list is learned too (this needs mount, which CI's
# root has).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "mounting a tmpfs needs root (CI runs as root)"
need g++ g++

standin_example minimal m
cd "$T"
"$KWARM" gen m/spec.yaml -o ref.mk --cache "$T/refcache" --out "$T/refout"
make -f ref.mk -j2 warmup > /dev/null

mkdir -p "$T/small"
mount -t tmpfs -o size=256k tmpfs "$T/small" || fail "cannot mount a tmpfs (run as root)"
trap 'umount "$T/small" 2>/dev/null || true; umount "$T/rocache" 2>/dev/null || true' EXIT

# Full after the Makefile was made: every store into the cache fails.
"$KWARM" gen m/spec.yaml -o full.mk --cache "$T/small/cache" --out "$T/out1"
dd if=/dev/zero of="$T/small/fill" bs=4k 2>/dev/null || true
make -f full.mk -j2 warmup > run.out 2> run.err || { cat run.err; fail "a full cache failed the warm-up"; }
[ "$(grep -c "warning: the cache is not used" run.err)" = 1 ] || { cat run.err; fail "not exactly one warning"; }
cmp out1/TestMinimal.callable refout/TestMinimal.callable || fail "wrong callable from a full cache"
[ -z "$(find "$T/small/cache/units" -type f)" ] || fail "a partial entry in the full cache"
pass "cache disk full during the warm-up: one warning, correct callable, nothing torn"

# Full before the Makefile is made: the generator says so once and goes on.
rm -rf "$T/small/cache"
dd if=/dev/zero of="$T/small/fill2" bs=1k 2>/dev/null || true
"$KWARM" gen m/spec.yaml -o full2.mk --cache "$T/small/cache2" --out "$T/out2" 2> gen.err ||
	{ cat gen.err; fail "gen failed on a full cache disk"; }
[ "$(grep -c "warning: cache '$T/small/cache2' cannot be used" gen.err)" = 1 ] || { cat gen.err; fail "no single gen warning"; }
make -f full2.mk -j2 warmup > /dev/null 2> run2.err || { cat run2.err; fail "warm-up failed"; }
cmp out2/TestMinimal.callable refout/TestMinimal.callable
pass "cache disk full at generation: one warning, correct callable"

# Read-only mid-run (its file system remounted, with g++ through a wrapper
# whose first compile waits for it): the unit goes to the private store, and
# so does the compiler search list its step learns, which the read-only cache
# cannot take: one warning for the cache, none for each compiler's list.
gxx_project
cat > gxx <<EOF
#!/bin/sh
if mkdir "$T/blocked" 2>/dev/null; then
	while [ ! -e "$T/go" ]; do sleep 0.01; done
fi
exec g++ "\$@"
EOF
chmod +x gxx
printf 'extern "C" int f(void) { return 1; }\n' > k/a.cpp
gxx_spec "$P/gxx" TestRo=k/a.cpp
mkdir -p "$T/rocache"
"$KWARM" gen spec.yaml -o "$T/ro.mk" --cache "$T/rocache" --out "$T/out" 2> "$T/gen3.err" ||
	{ cat "$T/gen3.err"; fail "gen failed"; }
make -f "$T/ro.mk" -j2 warmup > "$T/ro.out" 2>&1 &
pid=$!
wait_file "$T/blocked" "$pid"
mount --bind "$T/rocache" "$T/rocache" && mount -o remount,ro,bind "$T/rocache" ||
	fail "cannot remount the cache read-only"
: > "$T/go"
wait "$pid" || { cat "$T/ro.out"; fail "a cache turned read-only failed the warm-up"; }
! grep -i "error" "$T/ro.out" || fail "an error line in a warm-up that succeeded"
! grep -e "search list" -e "/tools" "$T/ro.out" || fail "a warning about the compiler's search list or its memo"
[ "$(grep -c "warning: " "$T/ro.out")" -le 2 ] || { cat "$T/ro.out"; fail "more than two warnings"; }
gxx_same_as_fresh TestRo "cache read-only mid-run"
pass "cache read-only mid-run, g++: one warning, its search list learned privately, correct callable"
