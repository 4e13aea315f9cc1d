#!/usr/bin/env bash
# labels: e2e
# gen reads the units' sources in batches through io_uring where the kernel
# gives it (src/batchread.c), one at a time where not or with
# KWARM_IO_URING=0. Both ways write the same Makefile, watch list and side
# file, byte for byte, for sources that are empty, small, one byte short of a
# batch's room, at it and past it (those two are read alone), shared by
# several units, and including a header, over several batches. strace shows
# which way each gen took.
. "$(dirname "$0")/lib.sh"
need strace strace
need python3 python3
strace -f -o /dev/null true 2> /dev/null || skip "strace cannot trace here (ptrace not permitted)"
# traced VAR=VALUE.. -- ARGS..: kwarm ARGS under strace, its io_uring calls in
# $trace (LeakSanitizer cannot run under ptrace: the untraced gen below has it).
traced() {
	local -a vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "${vars[@]}" \
		strace -f -qq -e trace=io_uring_setup,io_uring_enter -o "$trace" "$KWARM" "$@"
}

mkdir -p "$T/root/k"
cd "$T/root"
printf 'int orch;\n' > orch.c
printf '#pragma once\nint common;\n' > k/common.h
python3 - <<'PY'
room = 65536
def write(name, size):
    head = '#include "common.h"\n'
    body = head + "/" * (size - len(head) - 1) + "\n"
    assert len(body) == size
    open("k/" + name, "w").write(body)
open("k/empty.c", "w").close()
write("under.c", room - 1)
write("at.c", room)
write("over.c", room + 1)
for i in range(100):
    open("k/s%d.c" % i, "w").write('#include "common.h"\nint s%d;\n' % i)
PY
{
	printf '  - name: Edges\n    callable:\n      orchestration: {source: orch.c, function_name: e}\n'
	printf '      incores: [{func_id: 0, source: k/empty.c, core_type: aiv}, {func_id: 1, source: k/under.c, core_type: aiv},'
	printf ' {func_id: 2, source: k/at.c, core_type: aiv}, {func_id: 3, source: k/over.c, core_type: aiv}]\n'
	for c in 0 1 2 3 4 5 6 7 8 9; do
		printf '  - name: C%d\n    callable:\n      orchestration: {source: orch.c, function_name: e}\n      incores: [' "$c"
		for i in 0 1 2 3 4 5 6 7 8 9; do
			# Each class also shares one source with the next.
			printf '{func_id: %d, source: k/s%d.c, core_type: aiv}, ' "$i" "$((c * 10 + i))"
		done
		printf '{func_id: 10, source: k/s%d.c, core_type: aiv}]\n' "$(((c * 10 + 10) % 100))"
	done
} | standin_spec "$T/root"

cd "$T"
trace=batched.trace traced -- gen root/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
if ! grep -q 'io_uring_setup(.*= [0-9]' batched.trace; then
	grep 'io_uring_setup' batched.trace >&2 || true
	skip "this kernel gives no io_uring (disabled, or refused by a seccomp filter)"
fi
enters=$(grep -c 'io_uring_enter(' batched.trace || true)
# 145 units claimed 32 at a time, one call per claim whose sources are not
# all read yet: a few calls, far fewer than files.
[ "$enters" -ge 2 ] && [ "$enters" -le 10 ] ||
	{ cat batched.trace; fail "gen made $enters io_uring_enter calls for 145 units, not one per batch"; }
pass "gen read its sources in batches ($enters io_uring_enter calls for 145 units)"

trace=alone.trace traced KWARM_IO_URING=0 -- gen root/spec.yaml -o b.mk --cache "$T/cache" --out "$T/out"
"$KWARM" gen root/spec.yaml -o c.mk --cache "$T/cache" --out "$T/out"
! grep -q 'io_uring' alone.trace || { cat alone.trace; fail "KWARM_IO_URING=0 still set up io_uring"; }
for f in mk mk.inputs mk.plan; do
	sed "s#$T/b.mk#$T/a.mk#g" "b.$f" | cmp - "a.$f" || fail "b.$f (one at a time) differs from a.$f (in batches)"
	sed "s#$T/c.mk#$T/a.mk#g" "c.$f" | cmp - "a.$f" || fail "c.$f (untraced) differs from a.$f"
done
grep -q 'k/over.c' a.mk.inputs && grep -q 'k/common.h' a.mk.inputs || fail "the watch list lacks a source or the header"
pass "read in batches or one at a time: the same Makefile, watch list and side file"
