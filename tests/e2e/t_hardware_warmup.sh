#!/usr/bin/env bash
# labels: e2e
# The hardware example warms up with the real cc and ld: each packed child is
# exactly the .text that objcopy takes from the same linked image, built here
# independently of kwarm; the orchestration is packed whole.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3

H=$T/hw
mkdir -p "$H"
cp -r "$KWARM_TEST_SRC/examples/hardware/." "$H/"
rm -rf "$H/.kwarm"
cd "$T"
"$KWARM" gen hw/spec.yaml -o warmup.mk --cache "$T/cache" --out "$T/out"
must make.out "warm-up failed" make -f warmup.mk -j2 warmup
[ -s out/TestHardware.callable ] || fail "no callable"
pass "the hardware example warms up"

# The same three steps by hand, from the root folder, in the spec's order.
flags="-O2 -c -ffreestanding -fno-pic -fno-stack-protector -fno-asynchronous-unwind-tables
       -fno-unwind-tables -ffunction-sections -fno-jump-tables -Iinclude"
mkdir -p "$T/ref"
i=0
for k in aiv/vec_add:__DAV_VEC__ aiv/vec_scale:__DAV_VEC__ aiv/row_sum:__DAV_VEC__ \
	 aic/mat_mul:__DAV_CUBE__; do
	src=kernels/${k%%:*}.c
	(cd "$H" && cc $flags -D"${k##*:}" -o "$T/ref/$i.o" "$src" &&
		ld -e kernel_entry --require-defined=kernel_entry -T link.ld -o "$T/ref/$i.elf" "$T/ref/$i.o")
	objcopy -O binary -j .text "$T/ref/$i.elf" "$T/ref/$i.text"
	[ "$(nm "$T/ref/$i.elf" | awk '$3 == "kernel_entry" { print $1 }')" = 0000000000000000 ] ||
		fail "$src: kernel_entry is not at 0 in the reference image"
	i=$((i + 1))
done

python3 - out/TestHardware.callable "$T/ref" <<'PY'
import os, struct, sys
img = open(sys.argv[1], "rb").read()
ref = sys.argv[2]
n = struct.unpack_from("<i", img, 9292)[0]
assert n == 4, n
assert struct.unpack_from("<I", img, 1028)[0] > 0
assert img[9376:9376 + 4] == b"\x7fELF", "the orchestration is not packed whole"
for i in range(n):
    off = struct.unpack_from("<I", img, 5196 + 4 * i)[0]
    size = struct.unpack_from("<I", img, 9376 + off + 132)[0]
    got = img[9376 + off + 192: 9376 + off + 192 + size]
    want = open(os.path.join(ref, "%d.text" % i), "rb").read()
    assert len(want) > 0
    assert got == want, "child %d: %d bytes packed, objcopy gives %d" % (i, len(got), len(want))
    assert not got.startswith(b"\x7fELF"), "child %d is an ELF file" % i
PY
pass "each child is the .text objcopy gives for the same linked image"

: > make.out
rm -rf out
must make.out "warm re-run failed" make -f warmup.mk -j2 warmup
grep -Eq "kwarm: built|^\[[0-9]+/[0-9]+\] built" make.out && { cat make.out; fail "a warm re-run compiled"; }
[ -s out/TestHardware.callable ] || fail "the warm re-run packed nothing"
pass "warm re-run: the extracted units come from the cache"
