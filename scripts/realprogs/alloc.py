# SPDX-License-Identifier: GPL-2.0
"""alloc.py: a dict/list/str churn for perf dprof's scripts/bench-alloc.sh

    python alloc.py [ROUNDS]      (default 150)

Each round makes BATCH records (a dict holding a str, a list and ints) into
a ring of live ones, each replacing the one made RING records earlier,
which is freed; between two records made, a few records of the ring are
read and written and a str is joined from two of them, so that a sampling
profiler sees accesses to heap objects.  Small objects all: they go through
pymalloc (PyObject_Malloc).  The work is the same every run (no clock, no
random module); about 3.5 million allocations a second on a 2-CPU VM.
Prints one line: the rounds.
"""

import sys

RING = 8192     # records alive at a time
BATCH = 4096    # records made per round
TOUCH = 4       # records read and written per record made


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    ring = [None] * RING
    seed = 12345
    made = 0
    slot = 0
    acc = 0
    for _ in range(rounds):
        for _ in range(BATCH):
            made += 1
            slot = (slot + 1) % RING
            ring[slot] = {
                "id": made,
                "name": "rec:%d" % made,
                "vals": [made % 7, made % 11, made % 13, 0],
                "hits": 0,
                "sum": 0,
            }
            for _ in range(TOUCH):
                seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
                r = ring[seed % RING]
                if r is not None:
                    v = r["vals"]
                    r["hits"] += 1
                    v[3] += v[0] * v[1] - v[2]
                    r["sum"] += v[3] + len(r["name"])
                    acc += r["sum"] % 97
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            a = ring[seed % RING]
            b = ring[(seed >> 13) % RING]
            if a is not None and b is not None:
                s = a["name"] + "/" + b["name"]
                acc += len(s) + ord(s[-1])
    print("alloc.py: %d rounds, %d records made (check %d)"
          % (rounds, made, acc % 1000003))


if __name__ == "__main__":
    main()
