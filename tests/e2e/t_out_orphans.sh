#!/usr/bin/env bash
# labels: e2e
# Temps that a pack, a summary or a new trace killed before its rename left
# in OUT (a SIGKILL, a crash: "<final>.tmp.<pid>.<hex>") are removed by the
# first step of the next make run that has work, as prune does in a cache;
# those of a process still alive, and other names, stay. Once a run, not at
# each pack (OUT holds a callable per callable): a temp of a pack killed in
# this run stays until the next.
. "$(dirname "$0")/lib.sh"
standin_example minimal m
cd "$T"
"$KWARM" gen m/spec.yaml -o w.mk --cache "$T/cache" --out "$T/out"
must run1.txt "the first run failed" make -f w.mk -j2 warmup
dead=$(sh -c 'echo $$')
kill -0 "$dead" 2>/dev/null && skip "pid $dead was taken again at once"
dead_temps="out/TestMinimal.callable.tmp.$dead.0badf00d out/.kwarm/summary.json.tmp.$dead.0badf00e
	    out/.kwarm/trace.json.tmp.$dead.0badf00f out/TestSub/TestSub.callable.tmp.$dead.0badf00c"
kept="out/TestMinimal.callable.tmp.$$.0badf00d out/.kwarm/summary.json.tmp.$$.0badf00e
      out/TestMinimal.callable2.tmp.$dead.0badf00d out/TestMinimal.callable.tmp.$dead.0badf00"
mkdir out/TestSub
# shellcheck disable=SC2086
touch $dead_temps $kept
rm out/TestMinimal.callable
must run2.txt "the repack failed" make -f w.mk -j2 warmup
[ -s out/TestMinimal.callable ] || fail "the repack wrote no callable"
for f in $dead_temps; do [ ! -e "$f" ] || fail "'$f' of a process gone is left"; done
for f in $kept; do [ -e "$f" ] || fail "'$f' is removed (alive, or not a temp of the output)"; done
pass "the next run removes the temps that gone processes left, and only those"
