#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write N mutants of perf.data seeds, deterministically from a seed.

usage: mutate.py SEED N OUTDIR SEED_FILE...

Each mutant takes one seed and one damage: bit flips in the data section,
a record's size field, a u64 of a record set to an extreme (0, 2^64 - 1,
the top of the address space, a huge size), a truncation, a header field,
a record duplicated over its neighbour, or bytes of a feature section
(TRACING_DATA, strings, topology: what perf reads before any record).  The damage is written in
OUTDIR/mNNNNN.data.why for the triage.
"""
import random
import struct
import sys

EXTREMES = [0, (1 << 64) - 1, 0xffffffffffffffc0, 0xffffffffffffff80,
            1 << 40, 0x7fffffff, 1 << 63]


def records(b, off, size):
    """(offset, size) of each record of the data section."""
    out, pos = [], off
    while pos + 8 <= min(off + size, len(b)):
        n = struct.unpack_from("<H", b, pos + 6)[0]
        if n < 8:
            break
        out.append((pos, n))
        pos += n
    return out


def sections(b, off, size):
    """(offset, size) of each feature section, from the table after the data."""
    feat = struct.unpack_from("<4Q", b, 72)
    nr = sum(bin(w).count("1") for w in feat)
    out, pos = [], off + size
    for _ in range(nr):
        if pos + 16 > len(b):
            break
        o, n = struct.unpack_from("<QQ", b, pos)
        if n and o + n <= len(b):
            out.append((o, n))
        pos += 16
    return out


def mutate(rnd, b):
    off, size = struct.unpack_from("<QQ", b, 40)
    recs = records(b, off, size) or [(off, 8)]
    kind = rnd.randrange(8)
    if kind == 7:
        secs = sections(b, off, size)
        if not secs:
            return b, "nothing (no feature sections)"
        o, n = rnd.choice(secs)
        what = rnd.randrange(3)
        if what == 0:
            flips = rnd.randint(1, 8)
            for _ in range(flips):
                p = rnd.randrange(o, o + n)
                b[p] ^= 1 << rnd.randrange(8)
            return b, "feature section at %#x: %d bit flips" % (o, flips)
        p = rnd.randrange(o, o + n)
        if what == 1 and p + 4 <= len(b):
            v = rnd.choice([0, 0xffffffff, 0x7fffffff, rnd.randrange(1 << 32)])
            struct.pack_into("<I", b, p, v)
            return b, "feature section at %#x: u32 at %#x -> %#x" % (o, p, v)
        b[p] = rnd.randrange(256)
        return b, "feature section at %#x: byte at %#x -> %#x" % (o, p, b[p])
    if kind == 0:
        flips = rnd.randint(1, 16)
        for _ in range(flips):
            p = rnd.randrange(off, min(off + size, len(b)))
            b[p] ^= 1 << rnd.randrange(8)
        return b, "%d bit flips in the data" % flips
    if kind == 1:
        p, n = rnd.choice(recs)
        v = rnd.choice([0, 4, 7, 0xfff8, n + 8, rnd.randrange(1 << 16)])
        struct.pack_into("<H", b, p + 6, v)
        return b, "record at %#x: size %#x -> %#x" % (p, n, v)
    if kind == 2:
        p, n = rnd.choice(recs)
        if n < 16:
            return b, "nothing (record too short)"
        q = p + 8 + 8 * rnd.randrange((n - 8) // 8)
        v = rnd.choice(EXTREMES)
        struct.pack_into("<Q", b, q, v)
        return b, "record at %#x: u64 at %#x -> %#x" % (p, q, v)
    if kind == 3:
        cut = rnd.randrange(len(b))
        return b[:cut], "truncated at %d of %d bytes" % (cut, len(b))
    if kind == 4:
        q = rnd.choice([16, 24, 32, 40, 48, 56, 64, 72])
        v = rnd.choice(EXTREMES + [rnd.randrange(len(b))])
        struct.pack_into("<Q", b, q, v)
        return b, "header u64 at %d -> %#x" % (q, v)
    if kind == 5 and len(recs) > 1:
        i = rnd.randrange(len(recs) - 1)
        (p, n), (q, m) = recs[i], recs[i + 1]
        if n == m:
            b[q:q + m] = b[p:p + n]
            return b, "record at %#x copied over the next" % p
        return b, "nothing (neighbours differ in size)"
    p = rnd.randrange(len(b))
    for k in range(min(64, len(b) - p)):
        b[p + k] = rnd.randrange(256)
    return b, "64 random bytes at %#x" % p


def main():
    seed, n, outdir, seeds = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    data = [bytearray(open(s, "rb").read()) for s in seeds]
    for i in range(n):
        rnd = random.Random(seed * 1000003 + i)
        k = rnd.randrange(len(seeds))
        b, why = mutate(rnd, bytearray(data[k]))
        name = "%s/m%05d.data" % (outdir, i)
        open(name, "wb").write(b)
        open(name + ".why", "w").write("%s: %s\n" % (seeds[k], why))


if __name__ == "__main__":
    main()
