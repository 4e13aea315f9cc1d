#!/usr/bin/env bash
# labels: e2e
# gen of a large spec (64 KB and more) starts itself again once, with glibc's
# malloc asked for huge pages (GLIBC_TUNABLES; a value the user set is kept in
# front), and writes the same files as a gen that does not; a small spec, or
# malloc settings of the user's own, start it once. Seen in the execs strace
# logs, not assumed.
. "$(dirname "$0")/lib.sh"
need strace strace
strace -f -o /dev/null true 2> /dev/null || skip "strace cannot trace here (ptrace not permitted)"

ours=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864
user=glibc.pthread.mutex_spin_count=9
cd "$T"
mkdir -p root
echo 'int e(void) { return 0; }' > root/orch.c
echo 'int k(void) { return 0; }' > root/k.c
for i in $(seq 1000 1800); do
	printf '  - name: TestHeap%d\n    callable:\n' "$i"
	printf '      orchestration: {source: orch.c, function_name: e}\n'
	printf '      incores: [{func_id: 0, source: k.c, core_type: aiv}]\n'
done | standin_spec root
[ "$(stat -c %s root/spec.yaml)" -ge 65536 ] || fail "the large spec is under 64 KB"
mkdir -p small
cp root/orch.c root/k.c small/
standin_spec small TestSmall=k.c

# run NAME SPEC [VAR=VALUE..]: gen of the spec SPEC under strace; its files copied to
# NAME.*, the execs of NAME.strace counted by restarts NAME.
run() {
	local name=$1 spec=$2
	shift 2
	# LeakSanitizer cannot run under ptrace (the sanitizer build of the suite).
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$@" \
		strace -f -qq -v -s 4096 -e trace=execve -o "$name.strace" \
		"$KWARM" gen "$spec" -o warmup.mk --cache cache --out out > "$name.log" 2>&1 ||
		{ cat "$name.log"; fail "gen ($name) failed"; }
	cp warmup.mk "$name.mk"
	cp warmup.mk.plan "$name.plan"
}
# restarts NAME: the execs of gen started again (the restart marks them).
restarts() { grep 'execve("/proc/self/exe"' "$1.strace" | grep -c '= 0$' || true; }

run plain root/spec.yaml
[ "$(restarts plain)" = 1 ] || { cat plain.strace; fail "gen of a large spec did not start again once"; }
holds plain.strace "\"GLIBC_TUNABLES=$ours\".*\"KWARM_HEAP_TUNED=-\"\|\"KWARM_HEAP_TUNED=-\".*\"GLIBC_TUNABLES=$ours\"" \
	"the restart was not asked for huge pages, or not marked"

run kept root/spec.yaml GLIBC_TUNABLES=$user
[ "$(restarts kept)" = 1 ] || { cat kept.strace; fail "gen with the user's tunables did not start again once"; }
holds kept.strace "\"GLIBC_TUNABLES=$user:$ours\"" "the user's GLIBC_TUNABLES was not kept in front"
holds kept.strace "\"KWARM_HEAP_TUNED==$user\"" "the mark does not hold the user's GLIBC_TUNABLES"

run own root/spec.yaml GLIBC_TUNABLES=glibc.malloc.arena_max=2
[ "$(restarts own)" = 0 ] || { cat own.strace; fail "gen started again over the user's malloc settings"; }

for f in mk plan; do
	cmp plain.$f kept.$f || fail "the restarted gens wrote different $f files"
	cmp plain.$f own.$f || fail "gen started again wrote another $f file than gen not started again"
done

run small small/spec.yaml
[ "$(restarts small)" = 0 ] || { cat small.strace; fail "gen of a small spec started again"; }
pass "a large spec's gen starts again once for huge pages (user's tunables kept), with the same files; a small one, or the user's malloc settings, once"
