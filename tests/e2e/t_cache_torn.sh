#!/usr/bin/env bash
# labels: e2e
# A cache file is published by rename without fsync (README, "No fsync in the cache"): what a
# machine crash may leave of one is a file of its size with zero-filled
# blocks, an empty file, or a prefix. Each of these shapes, given to every
# file of a real cache at once (the entries with their reads and places
# lines, the reads pointers, the compiler identity and search list memos
# under tools/), is never a wrong hit: the next warmup succeeds with no
# error, at most one warning per entry, a callable byte-identical to a clean
# build's, every entry the Makefile names whole, and every memo as the clean
# build had it (a torn memo is learned again, not used); the run after
# compiles nothing.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3
unset CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH

gxx_project
printf '#include <a.h>\nextern "C" int f(void) { return A; }\n' > k/a.cpp
printf '#include "b.h"\n#include <cstddef>\nextern "C" int f(void) { return B + (int)sizeof(size_t); }\n' > k/b.cpp
# Its header comes by a macro: a read line, and after an edit a reads pointer.
printf '#define H <m.h>\n#include H\nextern "C" int f(void) { return M; }\n' > k/m.cpp
echo '#define A 1' > include/a.h
echo '#define B 2' > k/b.h
echo '#define M 3' > include/m.h
gxx_spec g++ TestTorn=k/a.cpp,k/b.cpp,k/m.cpp
gxx_run "warm-up"
echo '#define M 4' > include/m.h
gxx_run "warm-up after an edit of m.h"
cp "$T/out/TestTorn.callable" "$T/good.callable"

cd "$T"
find cache/units cache/tools cache/reads -type f ! -name '*.tmp.*' | sort > files
grep -q '^cache/units/' files || fail "no entry"
grep -q '^cache/tools/search-' files || fail "no search list memo"
grep -q '^cache/tools/[0-9a-f]\{64\}$' files || fail "no compiler identity memo"
grep -q '^cache/reads/' files || fail "no reads pointer"
grep -q '^read ' $(grep '^cache/units/' files) || fail "no entry with a read line"
grep -q '^places ' $(grep '^cache/units/' files) || fail "no entry with places lines"
# A search list memo's list, and its last line (a memo cut short has none).
list_lines() { grep -E '^(kwarm-searchlist [0-9]+|(missing|quote|bracket) .*|end)$' "$1"; }
entries=$(grep -c '^cache/units/' files)
rm -rf good && mkdir good && while read -r f; do mkdir -p "good/${f%/*}"; cp -p "$f" "good/$f"; done < files

# tear SHAPE: give every file of the list SHAPE.
tear() {
	python3 - "$1" files <<'PY'
import sys
shape = sys.argv[1]
for p in open(sys.argv[2]).read().split():
    b = bytearray(open(p, "rb").read())
    n = len(b)
    if not n:
        continue			# a crash does not fill an empty file
    if shape == "empty":
        b = b""
    elif shape == "zero-tail":		# its last block, or half of a small file
        z = min(4096, max(1, n // 2))
        b[n - z:] = bytes(z)
    elif shape == "zero-middle":	# a block in its middle, or a third of a small file
        z = min(4096, max(1, n // 3))
        b[n // 3:n // 3 + z] = bytes(z)
    elif shape == "line-last":		# cut at a line boundary: its last line gone
        b = b[:b.rstrip(b"\n").rfind(b"\n") + 1]
    elif shape == "line-half":		# cut at the first line boundary past its half
        at = b.find(b"\n", n // 2)
        b = b[:at + 1] if 0 <= at < n - 1 else b[:n // 2]
    elif shape == "half":
        b = b[:n // 2]
    else:
        sys.exit("tear: no shape '%s'" % shape)
    open(p, "wb").write(b)
PY
}

for shape in empty zero-tail zero-middle line-last line-half half; do
	while read -r f; do cp -p "good/$f" "$f"; done < files
	tear "$shape"
	rm -rf out
	must run.out "$shape: the run failed" make -f w.mk -j2 warmup
	! grep -i error run.out || fail "$shape: an error line in a run that succeeded"
	[ "$(grep -c 'warning: ' run.out)" -le "$entries" ] ||
		{ cat run.out; fail "$shape: more warnings than entries"; }
	while read -r f; do
		[ "$(grep -c "warning: .*${f##*/}" run.out)" -le 1 ] ||
			{ cat run.out; fail "$shape: '$f' named more than once"; }
	done < files
	for f in cache/tools/*; do
		case "${f##*/}" in
		# Its scan records are the ones this run's steps made: the list is compared.
		search-*) cmp -s <(list_lines "$f") <(list_lines "good/$f") ;;
		*) cmp -s "$f" "good/$f" ;;
		esac || fail "$shape: '$f' is not as the clean build left it (a torn memo was used)"
	done
	"$KWARM" cache --cache cache verify > verify.out 2>&1 || true
	for k in $(unit_keys w.mk); do
		! grep -q "$k" verify.out || { cat verify.out; fail "$shape: entry $k of the Makefile is still bad"; }
	done
	cmp out/TestTorn.callable good.callable || fail "$shape: the callable differs from the clean build's"
	must again.out "$shape: the run after failed" make -f w.mk -j2 warmup
	! grep 'warning: ' again.out || fail "$shape: the run after warned"
	grep -q '^kwarm: built' again.out && fail "$shape: the run after compiled again"
	pass "$shape: every file torn so; one run heals them, byte-identical, no wrong hit"
done
