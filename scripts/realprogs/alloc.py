# SPDX-License-Identifier: GPL-2.0
"""alloc.py: a dict/list/str churn for perf dprof's scripts/bench-alloc.sh

    python alloc.py [ROUNDS]      (default 150)

Each round makes BATCH records (a dict of nine keys holding strs, lists and
small ints) into a ring of live ones, each replacing the one made RING
records earlier, which is freed; for each record made, TOUCH records of the
ring are read and written and a str is joined from the names of two, kept
in one of them, so that a sampling profiler sees accesses to heap objects.
Small objects all, through pymalloc: per record its dict's keys, five strs,
two lists' items and the two strs of the join, about 11 allocations (the
dict and list objects themselves mostly come from CPython's free lists).
The work is the same every run (no clock, no random module), planned
before the first round; the ints computed stay below 256, CPython's cached
ones, so that the allocations are of dicts, lists and strs.  About 3.5
million allocations a second on a 2-CPU VM (10.7M in 150 rounds).
Prints one line: the rounds.
"""

import sys

RING = 18432    # records alive at a time
BATCH = 6144    # records made per round
TOUCH = 1       # records read and written per record made


def plan():
    """RING // BATCH lists, one a round in turn, of BATCH steps: (the ring
    slot to fill, the TOUCH slots to touch, two slots to join names of)."""
    seed = 12345
    plans = []
    slot = 0
    for _ in range(RING // BATCH):
        steps = []
        for _ in range(BATCH):
            picks = []
            for _ in range(TOUCH + 2):
                seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
                picks.append((seed >> 8) % RING)
            steps.append((slot, tuple(picks[:TOUCH]), picks[TOUCH], picks[TOUCH + 1]))
            slot += 1
        plans.append(steps)
    return plans


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    plans = plan()
    digits = [str(i) for i in range(RING)]
    ring = [None] * RING
    empty = ""
    acc = 0
    made = 0
    for rnd in range(rounds):
        steps = plans[rnd % len(plans)]
        for slot, touch, ja, jb in steps:
            name = "rec:" + digits[slot]
            rec = {
                "id": slot & 255,
                "name": name,
                "key": name + "/k",
                "path": "/r/" + name,
                "words": name.split(":"),
                "vals": [slot & 127, slot & 63, 0, 1],
                "hits": 0,
                "tag": empty,
                "seen": None,
            }
            ring[slot] = rec
            for j in touch:
                r = ring[j]
                if r is not None:
                    v = r["vals"]
                    v[2] = (v[2] + v[3]) & 255
                    v[3] = v[0] ^ v[2]
                    r["hits"] = (r["hits"] + 1) & 255
                    r["seen"] = rec["name"]
                    acc ^= v[1] ^ len(r["name"])
            a, b = ring[ja], ring[jb]
            if a is not None and b is not None:
                s = a["name"] + "/" + b["name"]
                a["tag"] = s
                acc ^= len(s)
        made += len(steps)
    print("alloc.py: %d rounds, %d records made (check %d)" % (rounds, made, acc))


if __name__ == "__main__":
    main()
