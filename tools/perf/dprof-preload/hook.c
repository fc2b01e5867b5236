// SPDX-License-Identifier: GPL-2.0
/*
 * The allocator recorder's hooks on allocators it cannot interpose.
 *
 * LD_PRELOAD only replaces what is reached through the dynamic linker:
 * the C library's malloc family.  A runtime's own allocator is not:
 *
 * - CPython's object allocator (pymalloc), behind PyObject_Malloc and
 *   PyMem_Malloc: wrapped through CPython's own allocator API
 *   (PyMem_GetAllocator/PyMem_SetAllocator on the MEM and OBJ domains, as
 *   tracemalloc does), before the interpreter starts: its pre-initialisation
 *   sets the domains only when PYTHONMALLOC asks it to (3.11).
 * - a jemalloc or mimalloc linked into the program (je_malloc, mi_malloc...),
 *   a malloc family the executable defines itself, and the functions
 *   --heap-alloc names (ALLOC(size), FREE(ptr), REALLOC(ptr, size)): their
 *   callers in the same object call them directly.  The entry of each is
 *   patched with a jump to a stub near it, which jumps to a wrapper here;
 *   the wrapper calls the original through a trampoline: the whole
 *   instructions the jump overwrote, copied (a RIP-relative operand
 *   relocated), then a jump back.  An entry whose first instructions cannot
 *   be moved (a branch, an instruction this decoder does not know) is left
 *   alone, and a line of the report's header says so: --heap-uprobes
 *   probes it instead.
 *
 * The wrappers log through the recorder (heaprec.c) as its own interposed
 * functions do: the same log, the same return addresses (the wrapper is
 * entered by a jump, so its return address is the allocator's caller's).
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/dprof/heaplog.h"
#include "hook.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define HOOK_IP		({ void *__ra = __builtin_return_address(0); (uintptr_t)__ra; })
#define HOOK_SP		((uintptr_t *)__builtin_frame_address(0) + 2)

enum hook_kind {
	HOOK_ALLOC,	/* (size) */
	HOOK_CALLOC,	/* (nmemb, size) */
	HOOK_REALLOC,	/* (ptr, size) */
	HOOK_FREE,	/* (ptr) */
	HOOK_ALIGNED,	/* (align, size) */
};

typedef uintptr_t (*hook_fn)(uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d, uintptr_t e,
			     uintptr_t f);

struct hook {
	hook_fn		tramp;		/* the original, through its trampoline */
	int		kind;
};

/* the functions looked for; family NULL: --heap-alloc's */
struct hook_want {
	const char	*name;
	int		kind;
	const char	*family;
	int		exe_only;	/* only where the executable defines it */
	uintptr_t	addr;		/* found there */
	const char	*obj;		/* in that object */
};

#define HOOK_FAMILY_JE	"static jemalloc"
#define HOOK_FAMILY_MI	"mimalloc"
#define HOOK_FAMILY_OWN	"a malloc of its own"

static struct hook_want hook_wants[] = {
	{ "je_malloc", HOOK_ALLOC, HOOK_FAMILY_JE, 0, 0, NULL },
	{ "je_calloc", HOOK_CALLOC, HOOK_FAMILY_JE, 0, 0, NULL },
	{ "je_realloc", HOOK_REALLOC, HOOK_FAMILY_JE, 0, 0, NULL },
	{ "je_free", HOOK_FREE, HOOK_FAMILY_JE, 0, 0, NULL },
	{ "je_mallocx", HOOK_ALLOC, HOOK_FAMILY_JE, 0, 0, NULL },
	{ "je_rallocx", HOOK_REALLOC, HOOK_FAMILY_JE, 0, 0, NULL },
	{ "je_dallocx", HOOK_FREE, HOOK_FAMILY_JE, 0, 0, NULL },
	{ "je_sdallocx", HOOK_FREE, HOOK_FAMILY_JE, 0, 0, NULL },
	{ "je_aligned_alloc", HOOK_ALIGNED, HOOK_FAMILY_JE, 0, 0, NULL },
	{ "je_memalign", HOOK_ALIGNED, HOOK_FAMILY_JE, 0, 0, NULL },
	{ "mi_malloc", HOOK_ALLOC, HOOK_FAMILY_MI, 0, 0, NULL },
	{ "mi_zalloc", HOOK_ALLOC, HOOK_FAMILY_MI, 0, 0, NULL },
	{ "mi_calloc", HOOK_CALLOC, HOOK_FAMILY_MI, 0, 0, NULL },
	{ "mi_realloc", HOOK_REALLOC, HOOK_FAMILY_MI, 0, 0, NULL },
	{ "mi_free", HOOK_FREE, HOOK_FAMILY_MI, 0, 0, NULL },
	{ "mi_malloc_aligned", HOOK_ALLOC, HOOK_FAMILY_MI, 0, 0, NULL },
	{ "malloc", HOOK_ALLOC, HOOK_FAMILY_OWN, 1, 0, NULL },
	{ "calloc", HOOK_CALLOC, HOOK_FAMILY_OWN, 1, 0, NULL },
	{ "realloc", HOOK_REALLOC, HOOK_FAMILY_OWN, 1, 0, NULL },
	{ "free", HOOK_FREE, HOOK_FAMILY_OWN, 1, 0, NULL },
	{ "aligned_alloc", HOOK_ALIGNED, HOOK_FAMILY_OWN, 1, 0, NULL },
	{ "memalign", HOOK_ALIGNED, HOOK_FAMILY_OWN, 1, 0, NULL },
};

/* --heap-alloc's functions: three per allocator */
#define HOOK_MAX_USER	24
#define HOOK_NAME_MAX	128

static struct hook_want hook_user[HOOK_MAX_USER];
static char hook_user_names[HOOK_MAX_USER][HOOK_NAME_MAX];
static int hook_nr_user;

/* ------------------------------------------------------------------ */
/* The wrappers: one per slot, entered by a jump from the hooked entry */

#define HOOK_MAX	32

static struct hook hooks[HOOK_MAX];
static int hook_nr;

static uintptr_t hook_call(const struct hook *h, uintptr_t a, uintptr_t b, uintptr_t c,
			   uintptr_t d, uintptr_t e, uintptr_t f, uintptr_t ip, uintptr_t *sp)
{
	int on = heaprec_hook_enter();
	uintptr_t p;

	if (h->kind == HOOK_FREE) {
		if (on)
			heaprec_hook_free(a);
		return h->tramp(a, b, c, d, e, f);
	}
	p = h->tramp(a, b, c, d, e, f);
	if (!on)
		return p;
	switch (h->kind) {
	case HOOK_ALLOC:
		heaprec_hook_alloc(DPROF_HEAPLOG_ALLOC, p, 0, a, ip, sp);
		break;
	case HOOK_CALLOC:
		heaprec_hook_alloc(DPROF_HEAPLOG_ALLOC, p, 0, a * b, ip, sp);
		break;
	case HOOK_ALIGNED:
		heaprec_hook_alloc(DPROF_HEAPLOG_ALLOC, p, 0, b, ip, sp);
		break;
	case HOOK_REALLOC:
		/* realloc(ptr, 0) that frees: no pointer back */
		if (!p && a && !b) {
			heaprec_hook_free(a);
			break;
		}
		heaprec_hook_alloc(DPROF_HEAPLOG_REALLOC, p, a, b, ip, sp);
		break;
	default:
		heaprec_hook_leave();
		break;
	}
	return p;
}

#define HOOK_ENTRY(n)								\
static uintptr_t hook_entry_##n(uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d,	\
				uintptr_t e, uintptr_t f)			\
{										\
	return hook_call(&hooks[n], a, b, c, d, e, f, HOOK_IP, HOOK_SP);	\
}

HOOK_ENTRY(0)
HOOK_ENTRY(1)
HOOK_ENTRY(2)
HOOK_ENTRY(3)
HOOK_ENTRY(4)
HOOK_ENTRY(5)
HOOK_ENTRY(6)
HOOK_ENTRY(7)
HOOK_ENTRY(8)
HOOK_ENTRY(9)
HOOK_ENTRY(10)
HOOK_ENTRY(11)
HOOK_ENTRY(12)
HOOK_ENTRY(13)
HOOK_ENTRY(14)
HOOK_ENTRY(15)
HOOK_ENTRY(16)
HOOK_ENTRY(17)
HOOK_ENTRY(18)
HOOK_ENTRY(19)
HOOK_ENTRY(20)
HOOK_ENTRY(21)
HOOK_ENTRY(22)
HOOK_ENTRY(23)
HOOK_ENTRY(24)
HOOK_ENTRY(25)
HOOK_ENTRY(26)
HOOK_ENTRY(27)
HOOK_ENTRY(28)
HOOK_ENTRY(29)
HOOK_ENTRY(30)
HOOK_ENTRY(31)

static const hook_fn hook_entries[HOOK_MAX] = {
	hook_entry_0, hook_entry_1, hook_entry_2, hook_entry_3, hook_entry_4, hook_entry_5,
	hook_entry_6, hook_entry_7, hook_entry_8, hook_entry_9, hook_entry_10, hook_entry_11,
	hook_entry_12, hook_entry_13, hook_entry_14, hook_entry_15, hook_entry_16, hook_entry_17,
	hook_entry_18, hook_entry_19, hook_entry_20, hook_entry_21, hook_entry_22, hook_entry_23,
	hook_entry_24, hook_entry_25, hook_entry_26, hook_entry_27, hook_entry_28, hook_entry_29,
	hook_entry_30, hook_entry_31,
};

/* ------------------------------------------------------------------ */
/* x86-64: the length of the entry's first instructions                */

#if defined(__x86_64__)

/* the ModRM byte at @q and what follows it: its length; @rip: its disp32's offset */
static int hook_modrm_len(const uint8_t *q, int *rip)
{
	uint8_t m = q[0];
	int mod = m >> 6, rm = m & 7, n = 1;

	if (mod == 3)
		return n;
	if (rm == 4) {
		if (mod == 0 && (q[1] & 7) == 5)
			n += 4;
		n++;
	} else if (mod == 0 && rm == 5) {
		*rip = 1;
		return n + 4;
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n;
}

/* the relative branches an entry may start with: moved with a rel32 */
enum hook_branch { HOOK_NO_BRANCH, HOOK_JCC8, HOOK_JCC32, HOOK_JMP8, HOOK_JMP32, HOOK_CALL32 };

/*
 * The length of the instruction at @p if it can run anywhere else: with
 * a RIP-relative operand, its disp32 at *@rip_off; a relative branch, its
 * kind in *@br.  0: a return, an indirect branch, or what this decoder
 * does not know.
 */
static int hook_insn_len(const uint8_t *p, int *rip_off, int *br)
{
	const uint8_t *q = p;
	int osize = 0, rex_w = 0, rip = 0, imm = 0, n = 0;
	uint8_t op;

	*rip_off = -1;
	*br = HOOK_NO_BRANCH;
	if ((p[0] & 0xf0) == 0x70) {
		*br = HOOK_JCC8;
		return 2;
	}
	switch (p[0]) {
	case 0xeb:
		*br = HOOK_JMP8;
		return 2;
	case 0xe9:
		*br = HOOK_JMP32;
		return 5;
	case 0xe8:
		*br = HOOK_CALL32;
		return 5;
	case 0x0f:
		if ((p[1] & 0xf0) == 0x80) {
			*br = HOOK_JCC32;
			return 6;
		}
		break;
	default:
		break;
	}
	/* prefixes: operand size, rep, segments, lock */
	while (*q == 0x66 || *q == 0xf2 || *q == 0xf3 || *q == 0x64 || *q == 0x65 ||
	       *q == 0xf0) {
		osize |= *q == 0x66;
		if (++q - p > 4)
			return 0;
	}
	if ((*q & 0xf0) == 0x40)
		rex_w = *q++ & 8;
	op = *q++;
	if (op == 0x0f) {
		op = *q++;
		/* endbr64 is f3 0f 1e fa: a ModRM of mod 3 */
		if (op == 0x1e || op == 0x1f || op == 0x18 || (op >= 0x10 && op <= 0x17) ||
		    op == 0x28 || op == 0x29 || op == 0x57 || op == 0xef || op == 0x6f ||
		    op == 0x7f || op == 0x6e || op == 0x7e || op == 0xd6 || op == 0xaf ||
		    op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf ||
		    (op >= 0x40 && op <= 0x4f))
			n = hook_modrm_len(q, &rip);
		else
			return 0;
	} else if (op < 0x40 && (op & 7) < 4 && (op & 0xf) != 0xf) {
		n = hook_modrm_len(q, &rip);		/* add, or, and, sub, xor, cmp... */
	} else if (op < 0x40 && (op & 7) == 4) {
		imm = 1;
	} else if (op < 0x40 && (op & 7) == 5) {
		imm = osize ? 2 : 4;
	} else if ((op >= 0x50 && op <= 0x5f) || op == 0x90 || op == 0x98 || op == 0x99) {
		n = 0;
	} else if (op == 0x63 || (op >= 0x84 && op <= 0x8b) || op == 0x8d ||
		   (op >= 0xd0 && op <= 0xd3) || op == 0xfe) {
		n = hook_modrm_len(q, &rip);
	} else if (op == 0x80 || op == 0x83 || op == 0x6b || op == 0xc0 || op == 0xc1 ||
		   op == 0xc6) {
		n = hook_modrm_len(q, &rip);
		imm = 1;
	} else if (op == 0x81 || op == 0x69 || op == 0xc7) {
		n = hook_modrm_len(q, &rip);
		imm = osize ? 2 : 4;
	} else if (op == 0xa8 || (op >= 0xb0 && op <= 0xb7)) {
		imm = 1;
	} else if (op == 0xa9) {
		imm = osize ? 2 : 4;
	} else if (op >= 0xb8 && op <= 0xbf) {
		imm = rex_w ? 8 : osize ? 2 : 4;
	} else if (op == 0xf6 || op == 0xf7) {
		n = hook_modrm_len(q, &rip);
		if (((*q >> 3) & 7) < 2)
			imm = op == 0xf6 ? 1 : osize ? 2 : 4;
	} else if (op == 0xff) {
		/* inc, dec, push; not an indirect call or jump */
		int reg = (*q >> 3) & 7;

		if (reg != 0 && reg != 1 && reg != 6)
			return 0;
		n = hook_modrm_len(q, &rip);
	} else {
		return 0;
	}
	if (rip)
		*rip_off = q - p + 1;
	return q - p + n + imm;
}

#define HOOK_JMP_LEN	5	/* jmp rel32, over the entry */
#define HOOK_ABS_LEN	14	/* jmp *0(%rip); .quad addr */
#define HOOK_COPY_MAX	40	/* moved: up to 4 + 6 bytes each */
/* a slot of a near page: the stub to the wrapper, the trampoline */
#define HOOK_SLOT_SIZE	(HOOK_ABS_LEN + HOOK_COPY_MAX + HOOK_ABS_LEN + 4)

struct hook_page {
	uint8_t		*base;
	size_t		used;
};

static struct hook_page hook_pages[8];
static int hook_nr_pages;

static int hook_near(uintptr_t a, uintptr_t b)
{
	intptr_t d = (intptr_t)(a - b);

	return d > INT32_MIN / 2 && d < INT32_MAX / 2;
}

/* HOOK_SLOT_SIZE bytes of executable memory within 1 GiB of @at, or NULL */
static uint8_t *hook_slot_near(uintptr_t at)
{
	long pgsz = sysconf(_SC_PAGESIZE);
	uintptr_t page = at & ~(uintptr_t)(pgsz - 1);
	int i;

	for (i = 0; i < hook_nr_pages; i++) {
		struct hook_page *pg = &hook_pages[i];

		if (pg->used + HOOK_SLOT_SIZE <= (size_t)pgsz &&
		    hook_near((uintptr_t)pg->base, at)) {
			pg->used += HOOK_SLOT_SIZE;
			return pg->base + pg->used - HOOK_SLOT_SIZE;
		}
	}
	if (hook_nr_pages == (int)(ARRAY_SIZE(hook_pages)))
		return NULL;
	/* below the object first (the gap under a PIE or a library), then above */
	for (i = 1; i < 4096; i++) {
		uintptr_t step = (uintptr_t)i << 18;	/* 256 KiB */
		int up;

		for (up = 0; up < 2; up++) {
			void *m;

			if (!up && step >= page)
				continue;
			m = mmap((void *)(up ? page + step : page - step), pgsz,
				 PROT_READ | PROT_WRITE | PROT_EXEC,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (m == MAP_FAILED)
				continue;
			if (!hook_near((uintptr_t)m, at)) {
				munmap(m, pgsz);
				continue;
			}
			hook_pages[hook_nr_pages].base = m;
			hook_pages[hook_nr_pages].used = HOOK_SLOT_SIZE;
			hook_nr_pages++;
			return m;
		}
	}
	return NULL;
}

static void hook_abs_jmp(uint8_t *p, uintptr_t to)
{
	p[0] = 0xff;
	p[1] = 0x25;
	memset(p + 2, 0, 4);
	memcpy(p + 6, &to, 8);
}

/* @to's rel32 from the end of an instruction at @at of @len bytes, or 0: too far */
static int hook_rel32(uintptr_t at, int len, uintptr_t to, int32_t *rel)
{
	intptr_t d = (intptr_t)to - (intptr_t)(at + len);

	*rel = (int32_t)d;
	return d == (int32_t)d;
}

/*
 * The instruction of @l bytes at @from, moved to @to: a relative branch
 * gets a rel32, a RIP-relative operand its new disp32.  Returns the bytes
 * written, or 0: out of reach, or a branch into the bytes the jump takes.
 */
static int hook_move(uint8_t *to, const uint8_t *from, int l, int rip_off, int br,
		     uintptr_t fn)
{
	uintptr_t target;
	int32_t rel;
	int8_t rel8;
	int n;

	if (br == HOOK_NO_BRANCH) {
		memcpy(to, from, l);
		if (rip_off >= 0) {
			memcpy(&rel, from + rip_off, 4);
			target = (uintptr_t)(from + l) + rel;
			if (!hook_rel32((uintptr_t)to, l, target, &rel))
				return 0;
			memcpy(to + rip_off, &rel, 4);
		}
		return l;
	}
	if (br == HOOK_JCC8 || br == HOOK_JMP8) {
		memcpy(&rel8, from + 1, 1);
		target = (uintptr_t)(from + 2) + rel8;
	} else {
		memcpy(&rel, from + l - 4, 4);
		target = (uintptr_t)(from + l) + rel;
	}
	if (target > fn && target < fn + HOOK_JMP_LEN)
		return 0;
	switch (br) {
	case HOOK_JCC8:
	case HOOK_JCC32:
		to[0] = 0x0f;
		to[1] = 0x80 | ((br == HOOK_JCC8 ? from[0] : from[1]) & 0xf);
		n = 6;
		break;
	case HOOK_CALL32:
		to[0] = 0xe8;
		n = 5;
		break;
	default:
		to[0] = 0xe9;
		n = 5;
		break;
	}
	if (!hook_rel32((uintptr_t)to, n, target, &rel))
		return 0;
	memcpy(to + n - 4, &rel, 4);
	return n;
}

/* Hooks the function at @fn with the wrapper of slot @n; NULL, or why not. */
static const char *hook_patch(uintptr_t fn, int n, char *why, size_t len)
{
	long pgsz = sysconf(_SC_PAGESIZE);
	const uint8_t *code = (const uint8_t *)fn;
	uint8_t *slot, *tramp;
	int in = 0, out = 0;
	uintptr_t lo, hi;
	int32_t rel;

	slot = hook_slot_near(fn);
	if (!slot)
		return "no memory near it for a trampoline";
	tramp = slot + HOOK_ABS_LEN;
	while (in < HOOK_JMP_LEN) {
		int rip_off, br, l = hook_insn_len(code + in, &rip_off, &br), m = 0;

		if (l && out + l + 4 <= HOOK_COPY_MAX)
			m = hook_move(tramp + out, code + in, l, rip_off, br, fn);
		if (!m) {
			snprintf(why, len,
				 "its entry's instruction at +%d (%02x %02x %02x) cannot be moved for a hook",
				 in, code[in], code[in + 1], code[in + 2]);
			return why;
		}
		in += l;
		out += m;
	}
	hook_abs_jmp(tramp + out, fn + in);
	hook_abs_jmp(slot, (uintptr_t)hook_entries[n]);
	hooks[n].tramp = (hook_fn)(uintptr_t)tramp;

	lo = fn & ~(uintptr_t)(pgsz - 1);
	hi = (fn + HOOK_JMP_LEN + pgsz - 1) & ~(uintptr_t)(pgsz - 1);
	if (!hook_rel32(fn, HOOK_JMP_LEN, (uintptr_t)slot, &rel))
		return "no memory near it for a trampoline";
	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC))
		return "its code cannot be made writable (mprotect refused)";
	{
		uint8_t jmp[HOOK_JMP_LEN] = { 0xe9 };

		memcpy(jmp + 1, &rel, 4);
		memcpy((void *)fn, jmp, HOOK_JMP_LEN);
	}
	mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC);
	__builtin___clear_cache((char *)fn, (char *)fn + HOOK_JMP_LEN);
	return NULL;
}

#else	/* !__x86_64__ */

static const char *hook_patch(uintptr_t fn, int n, char *why, size_t len)
{
	(void)fn; (void)n; (void)why; (void)len;
	return "entry hooks are only made on x86-64";
}

#endif

/* ------------------------------------------------------------------ */
/* The functions: in the symbol tables of the loaded objects            */

struct hook_scan {
	uintptr_t	self;		/* an address of ours: this object is skipped */
	int		index;
};

static int hook_is_self(const struct dl_phdr_info *info, uintptr_t self)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && self >= lo && self < lo + ph->p_memsz)
			return 1;
	}
	return 0;
}

static const char *hook_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static char hook_exe_name[256];

static void hook_match(struct hook_want *w, int nr, const char *name, uintptr_t addr,
		       const char *obj, int is_exe)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (w[i].addr || (w[i].exe_only && !is_exe) || strcmp(w[i].name, name))
			continue;
		w[i].addr = addr;
		w[i].obj = obj;
	}
}

/* The functions wanted that the ELF file at @path defines, loaded at @base. */
static void hook_scan_file(const char *path, uintptr_t base, const char *obj, int is_exe)
{
	const ElfW(Ehdr) *eh;
	const ElfW(Shdr) *sh;
	struct stat st;
	void *map;
	int fd, i, want;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(*eh)) {
		close(fd);
		return;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	eh = map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > (uint64_t)st.st_size)
		goto out;
	sh = (const void *)((const char *)map + eh->e_shoff);
	/* the symbol table, which has the local functions; else the dynamic one */
	for (want = SHT_SYMTAB; want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0) {
		int found = 0;

		for (i = 0; i < eh->e_shnum; i++) {
			const ElfW(Sym) *sym;
			const char *str;
			size_t j, nsyms;

			if (sh[i].sh_type != (unsigned int)want || sh[i].sh_link >= eh->e_shnum ||
			    sh[i].sh_offset + sh[i].sh_size > (uint64_t)st.st_size ||
			    sh[sh[i].sh_link].sh_offset + sh[sh[i].sh_link].sh_size >
			    (uint64_t)st.st_size)
				continue;
			found = 1;
			sym = (const void *)((const char *)map + sh[i].sh_offset);
			str = (const char *)map + sh[sh[i].sh_link].sh_offset;
			nsyms = sh[i].sh_size / sizeof(*sym);
			for (j = 0; j < nsyms; j++) {
				const char *name;

				if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC ||
				    sym[j].st_shndx == SHN_UNDEF || !sym[j].st_value ||
				    sym[j].st_name >= sh[sh[i].sh_link].sh_size)
					continue;
				name = str + sym[j].st_name;
				/* a runtime's allocator is global; a static "free" is not one */
				if (ELF64_ST_BIND(sym[j].st_info) != STB_LOCAL)
					hook_match(hook_wants, ARRAY_SIZE(hook_wants), name,
						   base + sym[j].st_value, obj, is_exe);
				hook_match(hook_user, hook_nr_user, name, base + sym[j].st_value,
					   obj, is_exe);
			}
		}
		if (found)
			break;
	}
out:
	munmap(map, st.st_size);
}

/* object names, for the notes */
static char hook_obj_names[16][256];

static int hook_phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct hook_scan *s = arg;
	const char *path = info->dlpi_name, *base;
	int is_exe = !s->index++;
	char *obj;

	(void)size;
	if (s->index > 16 || hook_is_self(info, s->self))
		return 0;
	if (is_exe)
		path = "/proc/self/exe";
	else if (!path || !*path)
		return 0;
	base = is_exe ? hook_exe_name : hook_basename(path);
	/* the C library and the dynamic linker: interposed, not hooked */
	if (!is_exe && (!strncmp(base, "libc.so", 7) || !strncmp(base, "ld-linux", 8) ||
			!strncmp(base, "linux-vdso", 10)))
		return 0;
	obj = hook_obj_names[s->index - 1];
	snprintf(obj, sizeof(hook_obj_names[0]), "%s", base);
	hook_scan_file(path, info->dlpi_addr, obj, is_exe);
	return 0;
}

/* --heap-alloc=ALLOC[,FREE[,REALLOC]], several separated by ';' */
static void hook_parse_user(void)
{
	static const int kinds[] = { HOOK_ALLOC, HOOK_FREE, HOOK_REALLOC };
	const char *env = getenv(DPROF_HEAP_ALLOC_ENV), *p;
	int field = 0;

	for (p = env; p && *p && hook_nr_user < HOOK_MAX_USER; ) {
		size_t len = strcspn(p, ",;");

		if (len && len < HOOK_NAME_MAX && field < 3) {
			memcpy(hook_user_names[hook_nr_user], p, len);
			hook_user_names[hook_nr_user][len] = '\0';
			hook_user[hook_nr_user].name = hook_user_names[hook_nr_user];
			hook_user[hook_nr_user].kind = kinds[field];
			hook_nr_user++;
		}
		field = p[len] == ';' ? 0 : field + 1;
		p += len + !!p[len];
	}
}

static void hook_one(struct hook_want *w, const char **family_why, char *why, size_t len)
{
	const char *err;

	if (!w->addr)
		return;
	if (hook_nr == HOOK_MAX) {
		*family_why = "more functions than the recorder has hooks for";
		return;
	}
	hooks[hook_nr].kind = w->kind;
	err = hook_patch(w->addr, hook_nr, why, len);
	if (err) {
		*family_why = err;
		return;
	}
	hook_nr++;
}

/* ------------------------------------------------------------------ */
/* CPython: its allocator API                                           */

/* PyMemAllocatorEx, and the domains' numbers (Include/cpython/pymem.h) */
struct hook_pyalloc {
	void	*ctx;
	void	*(*malloc)(void *ctx, size_t size);
	void	*(*calloc)(void *ctx, size_t nelem, size_t elsize);
	void	*(*realloc)(void *ctx, void *ptr, size_t new_size);
	void	(*free)(void *ctx, void *ptr);
};

#define HOOK_PYMEM_DOMAIN_MEM	1
#define HOOK_PYMEM_DOMAIN_OBJ	2

static struct hook_pyalloc hook_py_old[2];

static void *hook_py_malloc(void *ctx, size_t size)
{
	const struct hook_pyalloc *o = ctx;
	int on = heaprec_hook_enter();
	void *p = o->malloc(o->ctx, size);

	if (on)
		heaprec_hook_alloc(DPROF_HEAPLOG_ALLOC, (uintptr_t)p, 0, size, HOOK_IP, HOOK_SP);
	return p;
}

static void *hook_py_calloc(void *ctx, size_t nelem, size_t elsize)
{
	const struct hook_pyalloc *o = ctx;
	int on = heaprec_hook_enter();
	void *p = o->calloc(o->ctx, nelem, elsize);

	if (on)
		heaprec_hook_alloc(DPROF_HEAPLOG_ALLOC, (uintptr_t)p, 0, nelem * elsize, HOOK_IP,
				   HOOK_SP);
	return p;
}

static void *hook_py_realloc(void *ctx, void *ptr, size_t size)
{
	const struct hook_pyalloc *o = ctx;
	int on = heaprec_hook_enter();
	void *p = o->realloc(o->ctx, ptr, size);

	if (on)
		heaprec_hook_alloc(DPROF_HEAPLOG_REALLOC, (uintptr_t)p, (uintptr_t)ptr, size,
				   HOOK_IP, HOOK_SP);
	return p;
}

static void hook_py_free(void *ctx, void *ptr)
{
	const struct hook_pyalloc *o = ctx;

	if (ptr && heaprec_hook_enter())
		heaprec_hook_free((uintptr_t)ptr);
	o->free(o->ctx, ptr);
}

static void hook_python(void)
{
	void (*get)(int domain, struct hook_pyalloc *a);
	void (*set)(int domain, struct hook_pyalloc *a);
	static const int domains[2] = { HOOK_PYMEM_DOMAIN_MEM, HOOK_PYMEM_DOMAIN_OBJ };
	int i;

	get = (void (*)(int, struct hook_pyalloc *))dlsym(RTLD_DEFAULT, "PyMem_GetAllocator");
	set = (void (*)(int, struct hook_pyalloc *))dlsym(RTLD_DEFAULT, "PyMem_SetAllocator");
	if (!get || !set)
		return;
	for (i = 0; i < 2; i++) {
		struct hook_pyalloc a = {
			.ctx = &hook_py_old[i],
			.malloc = hook_py_malloc,
			.calloc = hook_py_calloc,
			.realloc = hook_py_realloc,
			.free = hook_py_free,
		};

		get(domains[i], &hook_py_old[i]);
		if (!hook_py_old[i].malloc || !hook_py_old[i].free)
			continue;
		set(domains[i], &a);
	}
}

/* ------------------------------------------------------------------ */

void heaprec_hooks_place(void)
{
	struct hook_scan s = { (uintptr_t)heaprec_hooks_place, 0 };
	char why[160], note[512], exe[256];
	size_t i;
	ssize_t n;
	int u;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(hook_exe_name, sizeof(hook_exe_name), "%s", hook_basename(exe));

	hook_python();
	hook_parse_user();
	dl_iterate_phdr(hook_phdr_cb, &s);

	/* a family is hooked whole, or not at all: one note says why */
	for (i = 0; i < ARRAY_SIZE(hook_wants); ) {
		const char *family = hook_wants[i].family, *family_why = NULL;
		const struct hook_want *first = NULL;
		size_t j, end;

		for (end = i; end < ARRAY_SIZE(hook_wants) && hook_wants[end].family == family;
		     end++) {
			if (!first && hook_wants[end].addr)
				first = &hook_wants[end];
		}
		for (j = i; first && j < end; j++) {
			hook_one(&hook_wants[j], &family_why, why, sizeof(why));
			if (family_why) {
				/* those already hooked stay: their calls are logged */
				snprintf(note, sizeof(note),
					 "heap: the program allocates with %s (%s in %s); its objects are not tracked: %s%s",
					 hook_wants[j].name, family, hook_wants[j].obj, family_why,
					 " (--heap-uprobes probes it)");
				heaprec_note(note);
				break;
			}
		}
		i = end;
	}
	for (u = 0; u < hook_nr_user; u++) {
		const char *user_why = NULL;

		if (!hook_user[u].addr) {
			snprintf(note, sizeof(note),
				 "heap: --heap-alloc: no function %s in %s or its libraries",
				 hook_user[u].name, hook_exe_name);
			heaprec_note(note);
			continue;
		}
		hook_one(&hook_user[u], &user_why, why, sizeof(why));
		if (user_why) {
			snprintf(note, sizeof(note),
				 "heap: --heap-alloc: %s (in %s) is not tracked: %s (--heap-uprobes probes it)",
				 hook_user[u].name, hook_user[u].obj, user_why);
			heaprec_note(note);
		}
	}
}
