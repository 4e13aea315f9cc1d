#!/usr/bin/env bash
# labels: e2e
# Two checkouts share one cache; a header only the compiler's dependency
# output knows (a macro-named include) differs between them, so a unit has
# one key in both until an entry records what it read. Checkout b's make has
# read its Makefile when checkout a publishes that unit: b's make finds the
# entry and runs no compile for it, so the pack must check the entry's reads
# against b's files, not pack a's bytes. The run fails saying so, the next
# run builds b's own, and the callable equals an empty-cache build. Real g++;
# a wrapper holds b's first compile until a is done (it waits on a file).
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3

cat > "$T/cc.sh" <<'SH'
#!/bin/sh
# In a folder holding 'block', the compile of k/slow.cpp waits for 'go'.
case "$*" in *k/slow.cpp*) if [ -e block ]; then touch started; while [ ! -e go ]; do sleep 0.01; done; fi ;; esac
exec g++ "$@"
SH
chmod +x "$T/cc.sh"
mkdir -p "$T/a/k" "$T/a/include"
cd "$T/a"
printf '#define CFG "scale.h"\n#include CFG\nextern "C" int f(void) { return SCALE; }\n' > k/shared.cpp
printf 'extern "C" int f(void) { return 5; }\n' > k/slow.cpp
echo '#define SCALE 3' > include/scale.h
gxx_spec "$T/cc.sh" TestFirst=k/slow.cpp TestShared=k/shared.cpp
cp -r "$T/a" "$T/b"
echo '#define SCALE 30' > "$T/b/include/scale.h"
touch "$T/b/block"
trap 'touch "$T/b/go"' EXIT	# never leave b's compile waiting
for c in a b; do
	(cd "$T/$c" && "$KWARM" gen spec.yaml -o w.mk --cache "$T/cache" --out out 2> /dev/null)
done
[ "$(unit_keys "$T/a/w.mk" 'shared[.]cpp')" = "$(unit_keys "$T/b/w.mk" 'shared[.]cpp')" ] ||
	fail "the two checkouts do not share the unit's key"
# -j1 and the goals in this order: b's make reaches the shared unit after a.
(cd "$T/b" && make -f w.mk -j1 warmup-TestFirst warmup-TestShared > "$T/b.out" 2>&1) &
pid=$!
wait_file "$T/b/started" "$pid"
(cd "$T/a" && make -f w.mk -j2 warmup-TestShared > "$T/a.out" 2>&1) || { cat "$T/a.out"; fail "checkout a failed"; }
touch "$T/b/go"
if wait "$pid"; then cat "$T/b.out"; fail "b packed the entry a compiled from another scale.h"; fi
grep -q "other inputs than this run sees" "$T/b.out" || { cat "$T/b.out"; fail "b failed without saying why"; }
cd "$T/b"
gxx_run "b again"
gxx_same_as_fresh TestShared "b again"
pass "an entry another checkout published mid-run is checked against this checkout's reads before it is packed"
