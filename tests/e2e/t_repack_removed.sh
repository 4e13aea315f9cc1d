#!/usr/bin/env bash
# labels: e2e
# Outputs removed after a warm-up are packed again (their stamps still there):
# the run is over only after the last of those packs, so summary.json is
# written by the run's first step and by its last, not by every pack (each
# write reads the whole plan and checks every stamp: quadratic at scale).
# strace counts the renames that publish summary.json.
. "$(dirname "$0")/lib.sh"
need strace strace

mkdir -p "$T/p"
cd "$T/p"
printf 'int o;\n' > orch.c
classes=()
for c in A B C D E F; do
	printf 'int %s;\n' "$c" > "$c.c"
	classes+=("$c=$c.c")
done
standin_spec . "${classes[@]}"
"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out"
make -f "$T/w.mk" -j2 warmup > "$T/run.out" 2>&1 || { cat "$T/run.out"; fail "the warm-up failed"; }
strace -f -o /dev/null true 2> /dev/null || skip "strace cannot trace here (ptrace not permitted)"

rm -rf "$T"/out/*.callable
# LeakSanitizer cannot run under ptrace: a sanitized build checks no leaks here.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -e trace=rename,renameat,renameat2 -o "$T/st" make -f "$T/w.mk" -j2 warmup > "$T/run.out" 2>&1 ||
	{ cat "$T/run.out"; fail "the repack failed"; }
for c in A B C D E F; do
	[ -e "$T/out/Test$c.callable" ] || [ -e "$T/out/$c.callable" ] || { ls "$T/out"; fail "class $c not packed again"; }
done
packs=$(grep -c '"cat": *"pack"' "$T/out/.kwarm/trace.json" || true)
writes=$(grep -c 'summary\.json"' "$T/st" || true)
[ "$writes" = 2 ] || { grep 'summary\.json"' "$T/st"; fail "summary.json written $writes times for $packs packs, not twice"; }
pass "summary.json written twice (first and last step) in a run that packs removed outputs again"
