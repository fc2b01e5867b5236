// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof record: uprobes on the user-space allocator.
 *
 * The probes are written to tracefs' uprobe_events directly, at the
 * symbols' file offsets, rather than through perf probe's DWARF search: a
 * C library with debug information has several functions named malloc
 * (malloc@plt among them), and one probe per entry point is what the
 * replay needs.  Arguments are taken from the x86-64 calling convention.
 *
 * posix_memalign() gives its pointer through an argument, which a return
 * probe cannot read.  glibc's memalign family (posix_memalign, memalign,
 * aligned_alloc, valloc, pvalloc) ends in one local function,
 * _mid_memalign(), whose return value is that pointer: with the C
 * library's debug file (libc6-dbg), which names it, it is probed too and
 * the replay takes posix_memalign's pointer from it.
 *
 * The workload's executable may have an allocator of its own that calls
 * into it do not leave: a static jemalloc (je_malloc...), or the functions
 * --heap-alloc names.  They are probed there too, from its symbol table
 * (the same hooks the recorder makes in-process: dprof-preload/hook.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include <api/fs/tracing_path.h>
#include "util/build-id.h"
#include "util/debug.h"
#include "heapprobe.h"

struct dprof_heap_fn {
	const char	*lib;		/* "libc.so", "libstdc++.so", "libjemalloc.so" */
	const char	*sym;
	const char	*event;
	const char	*args;		/* entry probe's fetch args */
	bool		sized;		/* args have "size": filter on it */
	bool		ret;		/* a return probe with the pointer */
	bool		local;		/* a local symbol, "sym" or "sym.*", from the debug file */
	const char	*after;		/* placed only when this event was */
	const char	*ret_args;	/* the return probe's, if not the pointer */
};

#define HEAP_FN(_lib, _sym, _event, _args, _sized, _ret, ...)	\
	{ .lib = _lib, .sym = _sym, .event = _event, .args = _args,	\
	  .sized = _sized, .ret = _ret, __VA_ARGS__ }

static const struct dprof_heap_fn dprof_heap_fns[] = {
	HEAP_FN("libc.so", "malloc", "malloc", "size=%di:u64", true, true),
	HEAP_FN("libc.so", "calloc", "calloc", "nmemb=%di:u64 size=%si:u64", true, true),
	HEAP_FN("libc.so", "realloc", "realloc", "old=%di:u64 size=%si:u64", true, true),
	HEAP_FN("libc.so", "aligned_alloc", "aligned_alloc", "align=%di:u64 size=%si:u64",
		true, true),
	HEAP_FN("libc.so", "memalign", "memalign", "align=%di:u64 size=%si:u64", true, true),
	HEAP_FN("libc.so", "valloc", "valloc", "size=%di:u64", true, true),
	HEAP_FN("libc.so", "pvalloc", "pvalloc", "size=%di:u64", true, true),
	HEAP_FN("libc.so", "_mid_memalign", "mid_memalign", "align=%di:u64 size=%si:u64",
		true, true, .local = true),
	HEAP_FN("libc.so", "posix_memalign", "posix_memalign", "align=%si:u64 size=%dx:u64",
		true, true, .after = "mid_memalign", .ret_args = "rc=$retval:s32"),
	HEAP_FN("libc.so", "free", "free", "ptr=%di:u64", false, false),
	HEAP_FN("libstdc++.so", "_Znwm", "opnew", "size=%di:u64", true, true),
	HEAP_FN("libstdc++.so", "_Znam", "opnewa", "size=%di:u64", true, true),
};

/*
 * A malloc replacing glibc's (linked in, or LD_PRELOAD) is reached by the
 * same names; its C++ operators, when it has them, replace the C++
 * library's, delete included (which does not call free() then).
 * posix_memalign is not probed: nothing returns its pointer.  Event names
 * get the library's prefix ("je_malloc").
 */
static const struct dprof_heap_fn dprof_heap_alt_fns[] = {
	HEAP_FN(NULL, "malloc", "malloc", "size=%di:u64", true, true),
	HEAP_FN(NULL, "calloc", "calloc", "nmemb=%di:u64 size=%si:u64", true, true),
	HEAP_FN(NULL, "realloc", "realloc", "old=%di:u64 size=%si:u64", true, true),
	HEAP_FN(NULL, "aligned_alloc", "aligned_alloc", "align=%di:u64 size=%si:u64",
		true, true),
	HEAP_FN(NULL, "memalign", "memalign", "align=%di:u64 size=%si:u64", true, true),
	HEAP_FN(NULL, "valloc", "valloc", "size=%di:u64", true, true),
	HEAP_FN(NULL, "pvalloc", "pvalloc", "size=%di:u64", true, true),
	HEAP_FN(NULL, "free", "free", "ptr=%di:u64", false, false),
	HEAP_FN(NULL, "_Znwm", "opnew", "size=%di:u64", true, true),
	HEAP_FN(NULL, "_Znam", "opnewa", "size=%di:u64", true, true),
	HEAP_FN(NULL, "_ZdlPv", "opdel", "ptr=%di:u64", false, false),
	HEAP_FN(NULL, "_ZdaPv", "opdela", "ptr=%di:u64", false, false),
	HEAP_FN(NULL, "_ZdlPvm", "opdels", "ptr=%di:u64", false, false),
	HEAP_FN(NULL, "_ZdaPvm", "opdelas", "ptr=%di:u64", false, false),
};

/*
 * A static jemalloc's functions in the executable (redis' default build);
 * events sje_*, apart from a shared libjemalloc's je_*
 */
static const struct dprof_heap_fn dprof_heap_exe_fns[] = {
	HEAP_FN(NULL, "je_malloc", "sje_malloc", "size=%di:u64", true, true),
	HEAP_FN(NULL, "je_calloc", "sje_calloc", "nmemb=%di:u64 size=%si:u64", true, true),
	HEAP_FN(NULL, "je_realloc", "sje_realloc", "old=%di:u64 size=%si:u64", true, true),
	HEAP_FN(NULL, "je_free", "sje_free", "ptr=%di:u64", false, false),
	HEAP_FN(NULL, "je_mallocx", "sje_mallocx", "size=%di:u64", true, true),
	HEAP_FN(NULL, "je_rallocx", "sje_rallocx", "old=%di:u64 size=%si:u64", true, true),
	HEAP_FN(NULL, "je_dallocx", "sje_dallocx", "ptr=%di:u64", false, false),
	HEAP_FN(NULL, "je_sdallocx", "sje_sdallocx", "ptr=%di:u64", false, false),
};

/* --heap-alloc's: ALLOC(size), FREE(ptr), REALLOC(ptr, size); sym: the name */
static const struct dprof_heap_fn dprof_heap_user_fns[] = {
	HEAP_FN(NULL, NULL, "ualloc", "size=%di:u64", true, true),
	HEAP_FN(NULL, NULL, "ufree", "ptr=%di:u64", false, false),
	HEAP_FN(NULL, NULL, "urealloc", "old=%di:u64 size=%si:u64", true, true),
};

static const struct {
	const char	*lib;
	const char	*prefix;
} dprof_heap_alts[] = {
	{ "libjemalloc.so",		"je_" },
	{ "libtcmalloc.so",		"tc_" },
	{ "libtcmalloc_minimal.so",	"tcm_" },
};

/* a probe to place: a function, the library file, the event's name */
struct dprof_heap_item {
	const struct dprof_heap_fn	*fn;
	char				*lib;
	char				*event;
	char				*sym;	/* --heap-alloc's name, or NULL: fn's */
	u64				off;	/* placed there; 0: not */
};

/*
 * Where a malloc replacement is looked for when perf does not map it: the
 * directory of the C library perf maps, then the usual ones.  A probe is
 * on the file: it fires in every process that maps it.
 */
static const char * const dprof_heap_lib_dirs[] = {
	NULL,	/* the C library's */
	"/usr/local/lib",
	"/usr/lib64",
	"/usr/lib",
	"/lib64",
};

/*
 * The library file whose name starts with @lib in the system's library
 * directories, or NULL; "_debug" builds (tcmalloc's) are left out.
 */
static char *dprof_heap__sys_lib_path(const char *lib, const char *libc)
{
	char *path = NULL;
	size_t i;

	for (i = 0; !path && i < ARRAY_SIZE(dprof_heap_lib_dirs); i++) {
		const char *dir = dprof_heap_lib_dirs[i];
		char *libc_dir = NULL, *best = NULL;
		struct dirent *de;
		DIR *d;

		if (!dir) {
			if (!libc)
				continue;
			libc_dir = strdup(libc);
			if (!libc_dir)
				continue;
			*strrchr(libc_dir, '/') = '\0';
			dir = libc_dir;
		}
		d = opendir(dir);
		while (d && (de = readdir(d)) != NULL) {
			/* libfoo.so.2 before libfoo.so (a link for the linker) */
			if (strncmp(de->d_name, lib, strlen(lib)) ||
			    !strstr(de->d_name, ".so") || strstr(de->d_name, "_debug"))
				continue;
			if (!best || strcmp(de->d_name, best) > 0) {
				free(best);
				best = strdup(de->d_name);
			}
		}
		if (d)
			closedir(d);
		if (best && asprintf(&path, "%s/%s", dir, best) < 0)
			path = NULL;
		free(best);
		free(libc_dir);
	}
	return path;
}

/* The file of a library this process maps ("libc.so" -> its path). */
static char *dprof_heap__lib_path(const char *lib)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	char line[4096], *path = NULL;

	if (!fp)
		return NULL;
	while (!path && fgets(line, sizeof(line), fp)) {
		char *p = strchr(line, '/'), *base;

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		base = strrchr(p, '/') + 1;
		if (!strncmp(base, lib, strlen(lib)))
			path = strdup(p);
	}
	fclose(fp);
	return path;
}

/*
 * Address of the function @name in the ELF file at @path, or 0: from the
 * dynamic symbols, or with @local from the symbol table, where a local
 * function can also be "name.constprop.0" and the like.
 */
static u64 dprof_heap__sym_vaddr(const char *path, const char *name, bool local)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t i, len = strlen(name);
	u64 vaddr = 0;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		goto out_close;
	while (!vaddr && (scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || !shdr.sh_entsize ||
		    shdr.sh_type != (local ? SHT_SYMTAB : SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && i < shdr.sh_size / shdr.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(data, i, &sym) || !sym.st_value ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			s = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (s && !strncmp(s, name, len) &&
			    (!s[len] || (local && s[len] == '.'))) {
				vaddr = sym.st_value;
				break;
			}
		}
	}
	elf_end(elf);
out_close:
	close(fd);
	return vaddr;
}

/* File offset of the address @vaddr in the ELF file at @path, or 0. */
static u64 dprof_heap__file_offset(const char *path, u64 vaddr)
{
	size_t i, n;
	u64 off = 0;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getphdrnum(elf, &n)) {
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
				off = vaddr - ph.p_vaddr + ph.p_offset;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return off;
}

/*
 * File offset of the function @fn in the library at @path, or 0.  A local
 * function is looked up in the library's debug file, found by build id.
 */
static u64 dprof_heap__sym_offset(const char *path, const struct dprof_heap_item *item)
{
	const struct dprof_heap_fn *fn = item->fn;
	char sbuild_id[SBUILD_ID_SIZE], debug[PATH_MAX];
	u64 vaddr;

	if (item->sym) {
		/* the executable's own: its symbol table, else its dynamic symbols */
		vaddr = dprof_heap__sym_vaddr(path, item->sym, true) ?:
			dprof_heap__sym_vaddr(path, item->sym, false);
	} else if (!fn->local) {
		vaddr = dprof_heap__sym_vaddr(path, fn->sym, false);
	} else {
		if (filename__sprintf_build_id(path, sbuild_id) < 2)
			return 0;
		snprintf(debug, sizeof(debug), "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 sbuild_id, sbuild_id + 2);
		vaddr = dprof_heap__sym_vaddr(debug, fn->sym, true);
	}
	return vaddr ? dprof_heap__file_offset(path, vaddr) : 0;
}

static int dprof_heap__write(const char *line)
{
	char path[PATH_MAX];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/uprobe_events", tracing_path_mount());
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return -errno;
	if (write(fd, line, strlen(line)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * The entry of an allocating function takes the top of the user stack and
 * the registers with it (a DWARF callchain, unwound by the report): the
 * frames above the allocator, enough to get past the program's wrappers.
 */
static int dprof_heap__add_event(struct dprof_heap_probes *hp, const char *event,
				 const char *filter, bool chain)
{
	int ret;

	if (hp->nr == ARRAY_SIZE(hp->events))
		return -ENOSPC;
	if (chain)
		ret = asprintf(&hp->events[hp->nr], "%s:%s/call-graph=dwarf,stack-size=%u/",
			       hp->group, event, DPROF_HEAP_STACK);
	else
		ret = asprintf(&hp->events[hp->nr], "%s:%s", hp->group, event);
	if (ret < 0)
		return -ENOMEM;
	hp->filters[hp->nr] = filter ? strdup(filter) : NULL;
	hp->nr++;
	return 0;
}

/*
 * A perf dprof record that was killed (SIGKILL, a crash) left its probes:
 * remove the groups of processes that no longer exist.
 */
static void dprof_heap__remove_stale(void)
{
	char path[PATH_MAX], line[PATH_MAX + 256], cmd[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/uprobe_events", tracing_path_mount());
	fp = fopen(path, "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *group = strchr(line, ':'), *event, *end;
		long pid;

		/* "p:dprof_heap_123/malloc /lib/...:0x... size=..." */
		if (!group || strncmp(group + 1, DPROF_HEAP_GROUP, strlen(DPROF_HEAP_GROUP)))
			continue;
		group++;
		pid = strtol(group + strlen(DPROF_HEAP_GROUP), &end, 10);
		event = end;
		if (*event != '/' || pid <= 0 || !kill(pid, 0) || errno != ESRCH)
			continue;
		event[strcspn(event, "\n ")] = '\0';
		snprintf(cmd, sizeof(cmd), "-:%.*s%s\n", (int)(end - group), group, event);
		if (!dprof_heap__write(cmd))
			pr_debug("dprof: removed the stale uprobe %s", cmd + 2);
	}
	fclose(fp);
}

/*
 * The probes to place: the C library's and the C++ library's functions
 * where perf maps them (the workload maps the same), then those of each
 * malloc replacement the system has.
 */
static int dprof_heap__items(struct dprof_heap_item *items, size_t max, size_t *nr)
{
	size_t i, j, n = 0;

	for (i = 0; i < ARRAY_SIZE(dprof_heap_fns) && n < max; i++) {
		items[n].fn = &dprof_heap_fns[i];
		items[n].lib = dprof_heap__lib_path(dprof_heap_fns[i].lib);
		items[n].event = strdup(dprof_heap_fns[i].event);
		if (!items[n].event) {
			*nr = n + 1;
			return -ENOMEM;
		}
		n++;
	}
	for (i = 0; i < ARRAY_SIZE(dprof_heap_alts); i++) {
		char *lib = dprof_heap__lib_path(dprof_heap_alts[i].lib);

		if (!lib)
			lib = dprof_heap__sys_lib_path(dprof_heap_alts[i].lib, items[0].lib);
		for (j = 0; lib && j < ARRAY_SIZE(dprof_heap_alt_fns) && n < max; j++) {
			items[n].fn = &dprof_heap_alt_fns[j];
			items[n].lib = strdup(lib);
			if (!items[n].lib ||
			    asprintf(&items[n].event, "%s%s", dprof_heap_alts[i].prefix,
				     dprof_heap_alt_fns[j].event) < 0) {
				items[n].event = NULL;
				free(lib);
				*nr = n + 1;
				return -ENOMEM;
			}
			n++;
		}
		free(lib);
	}
	*nr = n;
	return 0;
}

#define DPROF_HEAP_MAX_USER	8	/* --heap-alloc's allocators probed */

static bool dprof_heap__is_user(const struct dprof_heap_fn *fn)
{
	return fn >= dprof_heap_user_fns &&
	       fn < dprof_heap_user_fns + ARRAY_SIZE(dprof_heap_user_fns);
}

/* An item of the executable @exe: function @fn, named @sym, event @event. */
static int dprof_heap__exe_item(struct dprof_heap_item *item, const struct dprof_heap_fn *fn,
				const char *exe, const char *sym, size_t sym_len,
				const char *event)
{
	item->fn = fn;
	item->lib = strdup(exe);
	item->sym = strndup(sym, sym_len);
	item->event = strdup(event);
	return item->lib && item->sym && item->event ? 0 : -ENOMEM;
}

/*
 * The probes of the executable @exe: a static jemalloc's functions, and
 * those of --heap-alloc's @allocs, "ALLOC[,FREE[,REALLOC]];...".
 */
static int dprof_heap__exe_items(struct dprof_heap_item *items, size_t max, size_t *nr,
				 const char *exe, const char *allocs)
{
	const char *p = allocs;
	size_t i, field = 0, nr_user = 0;
	char event[32];
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(dprof_heap_exe_fns) && *nr < max && !err; i++) {
		const struct dprof_heap_fn *fn = &dprof_heap_exe_fns[i];

		err = dprof_heap__exe_item(&items[(*nr)++], fn, exe, fn->sym, strlen(fn->sym),
					   fn->event);
	}
	while (p && *p && *nr < max && nr_user < DPROF_HEAP_MAX_USER && !err) {
		size_t len = strcspn(p, ",;");
		const struct dprof_heap_fn *fn = &dprof_heap_user_fns[field];

		snprintf(event, sizeof(event), "%s%zu", fn->event, nr_user);
		if (len && field < ARRAY_SIZE(dprof_heap_user_fns))
			err = dprof_heap__exe_item(&items[(*nr)++], fn, exe, p, len, event);
		field++;
		if (p[len] == ';') {
			field = 0;
			nr_user++;
		}
		p += len + !!p[len];
	}
	return err;
}

int dprof_heap_probes__place(struct dprof_heap_probes *hp, unsigned int min_size,
			     const char *exe, const char *allocs)
{
	struct dprof_heap_item items[ARRAY_SIZE(dprof_heap_fns) +
				     ARRAY_SIZE(dprof_heap_alts) * ARRAY_SIZE(dprof_heap_alt_fns) +
				     ARRAY_SIZE(dprof_heap_exe_fns) +
				     DPROF_HEAP_MAX_USER * ARRAY_SIZE(dprof_heap_user_fns)];
	char line[PATH_MAX + 256], filter[64];
	size_t i, j, nr = 0;
	int err;

	memset(hp, 0, sizeof(*hp));
	memset(items, 0, sizeof(items));
	dprof_heap__remove_stale();
	snprintf(hp->group, sizeof(hp->group), DPROF_HEAP_GROUP "%d", (int)getpid());
	snprintf(filter, sizeof(filter), "size >= %u", min_size);
	err = dprof_heap__items(items, ARRAY_SIZE(items), &nr);
	if (!err && exe)
		err = dprof_heap__exe_items(items, ARRAY_SIZE(items), &nr, exe, allocs);
	for (i = 0; i < nr && !err; i++) {
		const struct dprof_heap_fn *fn = items[i].fn;
		const char *lib = items[i].lib;
		u64 off;

		if (!lib)
			continue;	/* perf does not map it: no C++ */
		off = dprof_heap__sym_offset(lib, &items[i]);
		if (!off) {
			if (dprof_heap__is_user(fn))
				pr_warning("dprof: --heap-alloc: no function %s in %s\n",
					   items[i].sym, lib);
			else
				pr_debug("dprof: no %s in %s\n", items[i].sym ?: fn->sym, lib);
			continue;
		}
		/* memalign and aligned_alloc are one function: one trap */
		for (j = 0; j < i; j++) {
			if (items[j].off == off && !strcmp(items[j].lib, lib))
				break;
		}
		if (j < i)
			continue;
		if (fn->after) {
			for (j = 0; j < i; j++) {
				if (items[j].off && !strcmp(items[j].event, fn->after))
					break;
			}
			if (j == i) {
				pr_debug("dprof: %s not probed: no %s\n", fn->sym, fn->after);
				continue;
			}
		}
		snprintf(line, sizeof(line), "p:%s/%s %s:%#llx %s\n", hp->group,
			 items[i].event, lib, (unsigned long long)off, fn->args);
		err = dprof_heap__write(line);
		if (err)
			break;
		hp->placed = true;
		items[i].off = off;
		err = dprof_heap__add_event(hp, items[i].event,
					    fn->sized && min_size ? filter : NULL, fn->ret);
		if (err || !fn->ret)
			continue;
		snprintf(line, sizeof(line), "r:%s/%s_ret %s:%#llx %s\n",
			 hp->group, items[i].event, lib, (unsigned long long)off,
			 fn->ret_args ?: "ptr=$retval:u64");
		err = dprof_heap__write(line);
		if (!err) {
			snprintf(line, sizeof(line), "%s_ret", items[i].event);
			err = dprof_heap__add_event(hp, line, NULL, /*chain=*/false);
		}
	}
	for (i = 0; i < nr; i++) {
		free(items[i].lib);
		free(items[i].event);
		free(items[i].sym);
	}
	if (err) {
		pr_warning("dprof: cannot place uprobes on the allocator (%s; need tracefs and root, or --no-heap): user heap objects stay unresolved\n",
			   strerror(-err));
		dprof_heap_probes__remove(hp);
		return err;
	}
	if (!hp->nr)
		pr_warning("dprof: no C library allocator found to probe: user heap objects stay unresolved\n");
	return 0;
}

void dprof_heap_probes__remove(struct dprof_heap_probes *hp)
{
	char line[128];
	size_t i;

	for (i = 0; hp->placed && i < hp->nr; i++) {
		const char *event = hp->events[i] + strlen(hp->group) + 1;

		/* without its terms ("/call-graph=.../") */
		snprintf(line, sizeof(line), "-:%s/%.*s\n", hp->group,
			 (int)strcspn(event, "/"), event);
		if (dprof_heap__write(line))
			pr_warning("dprof: could not remove the uprobe %s\n", hp->events[i]);
	}
	for (i = 0; i < hp->nr; i++) {
		free(hp->events[i]);
		free(hp->filters[i]);
	}
	memset(hp, 0, sizeof(*hp));
}
