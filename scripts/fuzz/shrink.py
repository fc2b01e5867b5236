#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a smaller perf.data: every record but samples, at most K samples
of each sample id (the first ones), the feature sections moved after it.

usage: shrink.py K IN OUT

A guest recording with the slab snapshot is ~30 MB; a fuzz seed should
be small (each mutant is a copy, each run replays it under ASan) yet keep
every kind of event.  Needs PERF_SAMPLE_IDENTIFIER on every event (perf
dprof record sets it): the id is then the first u64 of each sample.
"""
import struct
import sys

PERF_RECORD_SAMPLE = 9


def main():
    k, src, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    b = open(src, "rb").read()
    if b[:8] != b"PERFILE2":
        sys.exit("shrink: %s is not a perf.data file" % src)
    off, size = struct.unpack_from("<QQ", b, 40)
    feat = struct.unpack_from("<4Q", b, 72)
    nr = sum(bin(w).count("1") for w in feat)
    table = [struct.unpack_from("<QQ", b, off + size + 16 * i) for i in range(nr)]

    out, seen, pos = bytearray(), {}, off
    while pos + 8 <= off + size:
        typ = struct.unpack_from("<I", b, pos)[0]
        n = struct.unpack_from("<H", b, pos + 6)[0]
        if n < 8:
            sys.exit("shrink: record size %d at %#x" % (n, pos))
        if typ == PERF_RECORD_SAMPLE and n >= 16:
            sid = struct.unpack_from("<Q", b, pos + 8)[0]
            seen[sid] = seen.get(sid, 0) + 1
            if seen[sid] > k:
                pos += n
                continue
        out += b[pos:pos + n]
        pos += n

    delta = size - len(out)
    hdr = bytearray(b[:off])
    struct.pack_into("<Q", hdr, 48, len(out))
    tab = bytearray()
    for o, n in table:
        tab += struct.pack("<QQ", o - delta if o >= off + size else o, n)
    rest = b[off + size + 16 * nr:]
    open(dst, "wb").write(hdr + out + tab + rest)


if __name__ == "__main__":
    main()
