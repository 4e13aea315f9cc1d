#!/usr/bin/env bash
# labels: e2e
# Packs that run again after a warm-up, their stamps still there: outputs
# removed (the Makefile's forced rule), or entries removed from the cache (as
# `kwarm cache prune` or `kwarm cache verify --repair` leave it: compiled
# again, so the stamps are older than the entries). The run is over only after
# the last of those packs, so summary.json is written by the run's first step
# and by its last, not by every pack (each write reads the whole plan and
# checks every stamp: quadratic at scale), and under -k the closing lines
# come after the last pack. strace counts the renames that publish
# summary.json.
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
must "$T/run.out" "the warm-up failed" make -f "$T/w.mk" -j2 warmup

# What a hand or a crash may leave where kwarm keeps its stamps: a folder in
# a stamp's place, a file in an output's stamp folder's place, then in the
# stamps folder's place. The packs that run again (outputs removed) heal them:
# no error, and the run after it has nothing to pack.
sa=$(echo "$T"/out/.kwarm/stamps/A.callable/*)
rm "$sa" && mkdir "$sa"
rm -r "$T/out/.kwarm/stamps/B.callable" && : > "$T/out/.kwarm/stamps/B.callable"
rm "$T"/out/A.callable "$T"/out/B.callable
must "$T/run.out" "a stamp's or a stamp folder's place taken: the repack failed" make -f "$T/w.mk" -j2 warmup
[ -f "$sa" ] && [ -s "$T/out/A.callable" ] && [ -s "$T/out/B.callable" ] || fail "A and B not packed again with their stamps"
rm -r "$T/out/.kwarm/stamps" && : > "$T/out/.kwarm/stamps"
rm "$T"/out/C.callable
must "$T/run.out" "the stamps folder's place taken: the repack failed" make -f "$T/w.mk" -j2 warmup
must "$T/run.out" "the run after the heal failed" make -f "$T/w.mk" -j2 warmup
! grep -q 'packed class' "$T/run.out" || { cat "$T/run.out"; fail "the run after the heal packed again"; }
pass "a folder in a stamp's place, a file in a stamp folder's place: the repack heals them"

# An empty folder in summary.json's place: the next run that packs writes it.
rm "$T/out/.kwarm/summary.json" && mkdir "$T/out/.kwarm/summary.json"
rm "$T"/out/A.callable
must "$T/run.out" "summary.json's place taken: the repack failed" make -f "$T/w.mk" -j2 warmup
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/out/.kwarm/summary.json" 2> /dev/null ||
	fail "a folder in summary.json's place: the run that packed did not write it"
pass "an empty folder in summary.json's place: the next run that packs writes it"

# A folder in an output's place is no output: an empty one is packed over;
# over one that holds a file the class fails, saying so, and summary.json
# says failed, not built or cached.
rm "$T"/out/A.callable && mkdir "$T"/out/A.callable
must "$T/run.out" "an empty folder in A.callable's place: the repack failed" make -f "$T/w.mk" -j2 warmup
[ -f "$T"/out/A.callable ] || { cat "$T/run.out"; fail "an empty folder in A.callable's place: not packed over"; }
rm "$T"/out/B.callable && mkdir "$T"/out/B.callable && : > "$T"/out/B.callable/keep
make -f "$T/w.mk" -j2 warmup > "$T/run.out" 2>&1 && { cat "$T/run.out"; fail "a folder in B.callable's place: the run succeeded"; }
holds "$T/run.out" "error: .*B.callable" "a folder in B.callable's place: no error names it"
python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); assert {c["name"]: c["status"] for c in s["classes"]}["B"] == "failed", s' \
	"$T/out/.kwarm/summary.json" || fail "a folder in B.callable's place: summary.json does not say B failed"
rm -r "$T"/out/B.callable
must "$T/run.out" "B.callable's folder removed: the repack failed" make -f "$T/w.mk" -j2 warmup
pass "a folder in an output's place: packed over when empty, else the class fails and says so"

# Under -k (a failed class), entries removed: at -j1 make runs every compile
# before the packs, and the closing lines come after the last of them, once.
mkdir -p "$T/k"
for c in A B C; do printf 'int %s;\n' "$c" > "$T/k/$c.c"; done
printf 'kwarm-standin: fail\n' > "$T/k/bad.c"
cp orch.c "$T/k/"
standin_spec "$T/k" A=A.c Bad=bad.c B=B.c C=C.c
"$KWARM" gen "$T/k/spec.yaml" -o "$T/k.mk" --cache "$T/cache.k" --out "$T/out.k"
make -f "$T/k.mk" -j2 warmup > "$T/k.out" 2>&1 && { cat "$T/k.out"; fail "a warm-up with a failed class succeeded"; }
find "$T/cache.k/units" -name '*.m' -delete
make -f "$T/k.mk" -j1 warmup > "$T/k.out" 2>&1 && { cat "$T/k.out"; fail "the repack with a failed class succeeded"; }
[ "$(grep -c '^kwarm: packed class' "$T/k.out")" = 3 ] || { cat "$T/k.out"; fail "-k, entries removed: not 3 classes packed again"; }
grep -v '^make' "$T/k.out" | tail -n 2 > "$T/k.closing"
diff - "$T/k.closing" <<EOF || { cat "$T/k.out"; fail "-k, entries removed: the closing lines are not the last"; }
kwarm: warm-up failed: 1 of 4 classes failed (3 built, 0 cached, 0 pending); see '$T/out.k/.kwarm/summary.json'
kwarm: class Bad failed: incore 'bad' (aiv)
EOF
[ "$(grep -c '^kwarm: warm-up failed' "$T/k.out")" = 1 ] || { cat "$T/k.out"; fail "-k, entries removed: closing lines printed more than once"; }
pass "-k, entries removed: the closing lines come after the last pack, once"
rm "$T/out.k/A.callable" && mkdir "$T/out.k/A.callable"
make -f "$T/k.mk" -j1 warmup > "$T/k.out" 2>&1 && { cat "$T/k.out"; fail "the repack with a failed class succeeded"; }
grep -v '^make' "$T/k.out" | tail -n 2 > "$T/k.closing"
diff - "$T/k.closing" <<EOF || { cat "$T/k.out"; fail "-k, a folder in an output's place: the closing lines are not the last"; }
kwarm: warm-up failed: 1 of 4 classes failed (1 built, 2 cached, 0 pending); see '$T/out.k/.kwarm/summary.json'
kwarm: class Bad failed: incore 'bad' (aiv)
EOF
pass "-k, a folder in an output's place: the closing lines come after its pack"

strace -f -o /dev/null true 2> /dev/null || skip "strace cannot trace here (ptrace not permitted)"

# repack WHAT JOBS: make -jJOBS warmup under strace; summary.json written twice.
repack() {
	# LeakSanitizer cannot run under ptrace: a sanitized build checks no leaks here.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -e trace=rename,renameat,renameat2 -o "$T/st" make -f "$T/w.mk" -j"$2" warmup \
		> "$T/run.out" 2>&1 || { cat "$T/run.out"; fail "the repack ($1) failed"; }
	for c in A B C D E F; do
		[ -e "$T/out/Test$c.callable" ] || [ -e "$T/out/$c.callable" ] ||
			{ ls "$T/out"; fail "class $c not packed again ($1)"; }
	done
	packs=$(grep -c '"cat": *"pack"' "$T/out/.kwarm/trace.json" || true)
	[ "$packs" = 6 ] || fail "$1: $packs packs in the run's trace, not 6"
	writes=$(grep -c 'summary\.json"' "$T/st" || true)
	[ "$writes" = 2 ] || { grep 'summary\.json"' "$T/st"; fail "$1: summary.json written $writes times for $packs packs, not twice"; }
}

rm -rf "$T"/out/*.callable
repack "outputs removed" 2
find "$T/cache/units" -name '*.m' -delete
# -j1: make runs the list in order, so most packs come after the last compile.
repack "entries removed" 1
pass "summary.json written twice (first and last step) in a run that packs again after outputs or entries were removed"
