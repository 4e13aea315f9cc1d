#!/usr/bin/env python3
"""Load each shared object packed in a callable and call its entry.

usage: callable_call.py CALLABLE X

Writes the orchestration binary (storage offset 0) and every child's binary
(at 9376 + child_offsets[i] + 192, size at + 132; CALLABLE_LAYOUT.md) to
files of their own, dlopens each and prints one line per binary:
"orchestration N" from aicpu_orchestration_entry(X), then "child I FUNC_ID N"
from kernel_entry(X), in child order.
"""
import ctypes
import os
import struct
import sys
import tempfile


def main():
    img = open(sys.argv[1], "rb").read()
    x = int(sys.argv[2])
    orch_size = struct.unpack_from("<I", img, 1028)[0]
    n = struct.unpack_from("<i", img, 9292)[0]
    blobs = [("orchestration", None, img[9376:9376 + orch_size], "aicpu_orchestration_entry")]
    for i in range(n):
        off = struct.unpack_from("<I", img, 5196 + 4 * i)[0]
        fid = struct.unpack_from("<i", img, 1100 + 4 * i)[0]
        size = struct.unpack_from("<I", img, 9376 + off + 132)[0]
        start = 9376 + off + 192
        blobs.append(("child %d %d" % (i, fid), i, img[start:start + size], "kernel_entry"))
    with tempfile.TemporaryDirectory() as tmp:
        for k, (label, _, data, sym) in enumerate(blobs):
            if data[:4] != b"\x7fELF":
                sys.exit("%s: not an ELF shared object" % label)
            path = os.path.join(tmp, "%d.so" % k)
            with open(path, "wb") as f:
                f.write(data)
            fn = getattr(ctypes.CDLL(path), sym)
            fn.restype = ctypes.c_long
            fn.argtypes = [ctypes.c_long]
            print("%s %d" % (label, fn(x)))


main()
