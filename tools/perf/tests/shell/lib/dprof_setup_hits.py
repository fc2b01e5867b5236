#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Second lives in the watch hits of a perf dprof recording, from perf script.

Usage: (this script) CACHE INIT_RE VMLINUX < perf-script-output

The input is what

  perf script -F cpu,time,event,ip,sym,symoff,addr -F trace:cpu,time,event,trace

prints for a recording with a slab_watch event on CACHE.  The lives of the
objects of CACHE are replayed from the kmem events (kmem_cache_alloc and
mempool_get start one, kmem_cache_free, kfree and mempool_put end it, as
does mempool_get of an object a cache took in bulk: perf dprof ends such a
history there); a
watch hit in a function matching INIT_RE (what sets a new object up) after a
hit elsewhere in the same life means the object was set up again: a second
life the events did not show.

Such a hit is not a second life when it cannot be a hit on real hardware:
x86 data breakpoints trap after the instruction, and QEMU's TCG (up to 8.0:
store_helper_unaligned() in accel/tcg/cputlb.c checks the watchpoints of
[page, addr + size) when a misaligned store stays within its page) reports
a misaligned store anywhere above a watchpoint on the same page as a hit.
A hit whose instruction (the one ending at the hit's ip, disassembled from
VMLINUX) is a store to DISP(%reg), with DISP not a multiple of the access
size and [DISP, DISP + size) outside the watched bytes, is counted apart as
an emulator artefact (the base register of a set-up store holds the new
object, whose start is at least 8-byte aligned).

Prints one line:
  lives L hits H outside O again G artefacts A setup_after_use S freed F
(O: hits on a freed object or one of a new slab that was never allocated,
which the lives leave out, as perf dprof does; G: hits that are second lives; A: the artefacts among the set-up hits
after use; S: lives with either, F of them seen to end), then one
line for each of the first ten hits of G.
"""

import re
import subprocess
import sys

SIZES = {'b': 1, 'w': 2, 'l': 4, 'q': 8}


def reg_size(reg):
    """Bytes of an x86-64 general register in AT&T syntax (%rax, %r8d, ...)."""
    m = re.match(r'%r\d+([dwb]?)$', reg)
    if m:
        return {'': 8, 'd': 4, 'w': 2, 'b': 1}[m.group(1)]
    if reg[1] in 're' and len(reg) == 4:
        return 8 if reg[1] == 'r' else 4
    return 1 if reg[-1] in 'lh' else 2     # %al, %ah, %sil, ...; %ax, %si


def store_operand(insn):
    """(disp, size) of a store to DISP(%reg) without index, else None."""
    m = re.match(r'(mov|and|or|xor|add|sub)([bwlq]?)\s+(\S+),(-?0x[0-9a-f]+|-?\d+)?\((%\w+)\)$',
                 insn)
    if not m:
        return None
    suffix, src, disp = m.group(2), m.group(3), m.group(4)
    if suffix:
        size = SIZES[suffix]
    elif src.startswith('%'):
        size = reg_size(src)
    else:
        return None
    return int(disp or '0', 0), size


class Disasm:
    def __init__(self, vmlinux):
        self.vmlinux = vmlinux
        self.cache = {}

    def insn_ending_at(self, ip, off):
        """The instruction that ends at ip, in the function at ip - off."""
        if ip in self.cache:
            return self.cache[ip]
        out = subprocess.run(['objdump', '-d', '--no-show-raw-insn',
                              '--start-address=0x%x' % (ip - off),
                              '--stop-address=0x%x' % ip, self.vmlinux],
                             capture_output=True, text=True).stdout
        insn = None
        for line in out.splitlines():
            m = re.match(r'\s*[0-9a-f]+:\s+(.*)$', line)
            if m:
                insn = re.sub(r'\s+', ' ', m.group(1).split('#')[0].strip())
        self.cache[ip] = insn
        return insn


def main():
    cache, init_re, vmlinux = sys.argv[1], re.compile(sys.argv[2]), sys.argv[3]
    disasm = Disasm(vmlinux)
    watch = None
    life = {}       # address -> list of functions hit in this life
    nr = {}         # address -> number of the life
    lives = hits = again = artefacts = 0
    setup_lives = set()
    closed = 0      # lives with set-up hits after use that ended in a free
    dead = set()    # addresses freed (or in a new slab), not allocated again
    outside = 0     # hits on them
    bad = []
    for line in sys.stdin:
        m = re.match(r'\s*\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$', line)
        if not m:
            continue
        cpu, time, event, rest = m.groups()
        if event.startswith('slab_watch/'):
            if watch is None:
                o = re.search(r'offset=(0x[0-9a-f]+|\d+)', event)
                n = re.search(r'len=(\d+)', event)
                watch = (int(o.group(1), 0) if o else 0, int(n.group(1)) if n else 8)
            f = rest.split()
            if len(f) < 3:
                continue
            addr, ip = int(f[0], 16), int(f[1], 16)
            sym, _, off = f[2].rpartition('+')
            if not sym:
                sym, off = f[2], '0'
            hits += 1
            obj = addr - watch[0]
            if obj in dead:
                outside += 1    # freed: perf dprof drops such a hit too
                continue
            fns = life.setdefault(obj, [])
            used = any(not init_re.match(s) for s in fns)
            if init_re.match(sym) and used:
                insn = disasm.insn_ending_at(ip, int(off, 16))
                st = store_operand(insn or '')
                if st and st[0] % st[1] and \
                   (st[0] + st[1] <= watch[0] or st[0] >= watch[0] + watch[1]):
                    artefacts += 1
                else:
                    again += 1
                    bad.append('%s [%s] %s: 0x%x %s (%s) after %s' %
                               (time, cpu, sym, obj, f[2], insn, ' '.join(fns[-4:])))
                setup_lives.add((obj, nr.get(obj, 0)))
            fns.append(sym)
            continue
        if 'name=%s' % cache not in rest and not event.endswith(':kfree'):
            continue
        if event.endswith(':slab_new'):
            # a new slab's objects are all free
            m = re.search(r'first=0x([0-9a-f]+) size=(\d+) .*objects=(\d+)', rest)
            if m:
                first, size = int(m.group(1), 16), int(m.group(2))
                dead.update(first + i * size for i in range(int(m.group(3))))
            continue
        p = re.search(r'ptr=0x([0-9a-f]+)', rest)
        if not p:
            continue
        ptr = int(p.group(1), 16)
        kind = event.split(':')[-1]
        if kind == 'mempool_get' and ptr in life and (ptr, nr.get(ptr, 0)) in setup_lives:
            closed += 1     # taken in bulk by a cache, then handed out
        if kind in ('kmem_cache_alloc', 'mempool_get'):
            dead.discard(ptr)
            life[ptr] = []
            nr[ptr] = nr.get(ptr, 0) + 1
            lives += 1
        elif kind in ('kmem_cache_free', 'kfree', 'mempool_put'):
            if life.pop(ptr, None) is not None and (ptr, nr.get(ptr, 0)) in setup_lives:
                closed += 1
            dead.add(ptr)
    print('lives %d hits %d outside %d again %d artefacts %d setup_after_use %d freed %d' %
          (lives, hits, outside, again, artefacts, len(setup_lives), closed))
    for b in bad[:10]:
        print(b)


if __name__ == '__main__':
    main()
