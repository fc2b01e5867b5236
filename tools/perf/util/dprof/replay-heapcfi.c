// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the CFA of a frame of an allocation's callchain, from its
 * binary's call frame information (see replay-heapcfi.h).
 *
 * Each binary is opened once per report, its .eh_frame (or else its
 * .debug_frame) read by libdw, and each return address's CFA is kept: an
 * allocation's chain is unwound for each of its logged events.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/err.h>
#include <linux/zalloc.h>

#include "util/addr_location.h"
#include "util/dso.h"
#include "util/hashmap.h"
#include "util/map.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "hashfn.h"
#include "replay-heapcfi.h"

/* x86_64's DWARF number of the stack pointer */
#define DPROF_HEAPCFI_SP	7
/* a CFA this far above the stack pointer is not a frame the scan reaches */
#define DPROF_HEAPCFI_MAX_CFA	(64 * 1024)

struct dprof_heapcfi_dso {
	struct dso	*dso;		/* held */
	int		fd;
	Elf		*elf;
	Dwarf_CFI	*eh;		/* .eh_frame, NULL: none */
	Dwarf		*dw;
	Dwarf_CFI	*dbg;		/* .debug_frame (of @dw), NULL: none */
	struct hashmap	*cfa;		/* ELF address -> CFA, 0: not unwound */
};

/* per DSO: the report's, single-threaded */
static struct hashmap *dprof_heapcfi_dsos;

static struct dprof_heapcfi_dso *dprof_heapcfi__open(struct dso *dso)
{
	struct dprof_heapcfi_dso *d;

	if (!dprof_heapcfi_dsos) {
		dprof_heapcfi_dsos = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
		if (IS_ERR(dprof_heapcfi_dsos)) {
			dprof_heapcfi_dsos = NULL;
			return NULL;
		}
	}
	if (hashmap__find(dprof_heapcfi_dsos, dso, &d))
		return d;
	d = zalloc(sizeof(*d));
	if (!d)
		return NULL;
	d->fd = -1;
	d->cfa = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(d->cfa) || hashmap__add(dprof_heapcfi_dsos, dso, d)) {
		if (!IS_ERR(d->cfa))
			hashmap__free(d->cfa);
		free(d);
		return NULL;
	}
	d->dso = dso__get(dso);
	/* a binary that cannot be read has no CFI: nothing is unwound in it */
	d->fd = open(dso__long_name(dso), O_RDONLY);
	if (d->fd < 0)
		return d;
	d->elf = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	if (!d->elf)
		return d;
	d->eh = dwarf_getcfi_elf(d->elf);
	d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (d->dw)
		d->dbg = dwarf_getcfi(d->dw);
	return d;
}

/* The CFA of the code at ELF address @addr, in bytes above its stack pointer; 0: unknown */
static u64 dprof_heapcfi__lookup(Dwarf_CFI *cfi, u64 addr)
{
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t nops;
	u64 cfa = 0;

	if (!cfi || dwarf_cfi_addrframe(cfi, addr, &frame))
		return 0;
	if (!dwarf_frame_cfa(frame, &ops, &nops) && nops == 1 &&
	    ((ops[0].atom == DW_OP_bregx && ops[0].number == DPROF_HEAPCFI_SP &&
	      (s64)ops[0].number2 > 0 && ops[0].number2 <= DPROF_HEAPCFI_MAX_CFA) ||
	     (ops[0].atom == DW_OP_breg0 + DPROF_HEAPCFI_SP &&
	      (s64)ops[0].number > 0 && ops[0].number <= DPROF_HEAPCFI_MAX_CFA)))
		cfa = ops[0].atom == DW_OP_bregx ? ops[0].number2 : ops[0].number;
	free(frame);
	return cfa;
}

/**
 * dprof_heapcfi__cfa - where the frame of a return address ends
 * @thread: the allocating thread (its maps)
 * @ip: a return address of the allocation's chain
 * @cfa: the frame's CFA, in bytes above the stack pointer it had at @ip
 *
 * The call before @ip is looked up, the same CFA as at @ip but for a call
 * that does not return (the next function's code).
 *
 * Return: false when @ip's binary has no CFI for it that gives the CFA as
 * the stack pointer's plus a constant (a frame pointer's, an expression).
 */
bool dprof_heapcfi__cfa(struct thread *thread, u64 ip, u64 *cfa)
{
	struct dprof_heapcfi_dso *d = NULL;
	struct addr_location al;
	u64 addr = 0;
	long val;

	*cfa = 0;
	addr_location__init(&al);
	if (thread__find_symbol(thread, PERF_RECORD_MISC_USER, ip - 1, &al) && al.map) {
		d = dprof_heapcfi__open(map__dso(al.map));
		addr = map__rip_2objdump(al.map, al.addr);
	}
	addr_location__exit(&al);
	if (!d || !d->elf)
		return false;
	if (hashmap__find(d->cfa, addr, &val)) {
		*cfa = val;
		return val != 0;
	}
	*cfa = dprof_heapcfi__lookup(d->eh, addr) ?: dprof_heapcfi__lookup(d->dbg, addr);
	hashmap__add(d->cfa, addr, (long)*cfa);
	return *cfa != 0;
}

void dprof_heapcfi__exit(void)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!dprof_heapcfi_dsos)
		return;
	hashmap__for_each_entry(dprof_heapcfi_dsos, cur, bkt) {
		struct dprof_heapcfi_dso *d = cur->pvalue;

		if (d->eh)
			dwarf_cfi_end(d->eh);
		if (d->dw)
			dwarf_end(d->dw);
		if (d->elf)
			elf_end(d->elf);
		if (d->fd >= 0)
			close(d->fd);
		hashmap__free(d->cfa);
		dso__put(d->dso);
		free(d);
	}
	hashmap__free(dprof_heapcfi_dsos);
	dprof_heapcfi_dsos = NULL;
}
