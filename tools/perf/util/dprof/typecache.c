// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the operand typings of a binary, kept between reports.
 *
 * perf's data-type profiling of one instruction costs a disassembly of its
 * function and a walk of the DWARF scopes around it: most of a report's
 * time when nothing else is slow.  What it finds depends on the binary's
 * code and DWARF only, both fixed by its build id, and on perf: a report
 * writes the typings it made to a file named by the binary's build id,
 * under perf's build-id cache directory, and the next report of any
 * recording of that binary with the same perf (by perf's own build id)
 * reads them instead of typing again.
 *
 *   <buildid dir>/.dprof/<build id>.types:
 *	perf-dprof-types 1 <perf's build id>
 *	t <size> <name>			type 0, 1, ... in order
 *	i <address> <type> <offset>	the operand at the address: that type
 *	n <address>			no type there
 *	c <address> <bytes> [<bytes>]	the code there, and the instruction
 *					before it when known (hex)
 *	s <address> [<start> <end> <name>]
 *					the data symbol a user data address
 *					fell in (its bounds, hex), or none
 *	l <address> 1 <length> <line>	the source line of a call at the
 *					address (a heap allocation's site)
 *	I <address> <n> [<length> <string>]...
 *					the functions inlined there and their
 *					lines, in pairs (length -1: none)
 *	D <0 or 1>			whether a debuginfo file of the binary
 *					was there (see below)
 *
 * The code is kept with the typings: finding the instruction before a
 * sampled one decodes its function from the start, and a report with its
 * typings kept spends most of what is left of its type work there.
 * Addresses are the dso's own (map__map_ip()).  A file that does not
 * parse is ignored (and replaced); nothing in it is trusted beyond its
 * syntax and its two build ids.  A binary is cached only when the file
 * the report reads its DWARF from has its build id.  Data symbols and
 * source lines come from a binary's debuginfo file when there is one (a
 * fuller symbol table, the DWARF lines): those kept are used only while
 * there is one as there was.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/err.h>
#include <linux/refcount.h>
#include <linux/zalloc.h>

#include "util/build-id.h"
#include "util/debug.h"
#include "util/dso.h"
#include "util/hashmap.h"
#include "util/symbol.h"
#include "util/util.h"
#include "hashfn.h"
#include "resolve.h"
#include "typecache.h"

#define TC_MAGIC	"perf-dprof-"
#define TC_VERSION	1
/* a larger file is not ours: it is not read */
#define TC_MAX_SIZE	(64UL << 20)

struct tc_type {
	const char	*name;		/* in the same allocation */
	u64		size;
	u32		idx;		/* in the file written */
};

struct tc_entry {
	u64		rip;		/* first: see tc_rip__cmp() */
	u64		offset;
	struct tc_type	*type;		/* NULL: no type */
};

struct tc_entries {
	struct tc_entry	*v;
	size_t		nr, alloc;
};

struct tc_code {
	u64		rip;		/* first: see tc_rip__cmp() */
	s8		len;
	s8		prev_len;
	u8		bytes[DPROF_TC_CODE_MAX];
	u8		prev[DPROF_TC_CODE_MAX];
};

struct tc_codes {
	struct tc_code	*v;
	size_t		nr, alloc;
};

/*
 * A user data address looked up in a binary's symbol table: kept, so that
 * a binary whose data alone the samples hit has its table left unloaded.
 */
struct tc_static {
	u64		rip;		/* first: see tc_rip__cmp() */
	u64		start;
	u64		end;
	char		*name;		/* NULL: no data symbol there */
};

struct tc_statics {
	struct tc_static	*v;
	size_t			nr, alloc;
};

/* Strings kept for an address: its source line, the functions inlined there */
struct tc_strs {
	u64		rip;		/* first: see tc_rip__cmp() */
	u32		nr;
	char		**v;		/* @nr strings, each may be NULL */
};

struct tc_strs_array {
	struct tc_strs	*v;
	size_t		nr, alloc;
};

static const char tc_strs_tag[DPROF_TC_STRS__NR] = {
	[DPROF_TC_SRCLINE] = 'l',
	[DPROF_TC_INLINES] = 'I',
};

#define TC_STRS_MAX	64
#define TC_STR_MAX	4096

struct dprof_typecache_dso {
	struct dso		*dso;
	char			path[PATH_MAX];	/* "": not cached */
	struct hashmap		*types;		/* struct tc_type * -> itself */
	struct tc_type		**by_idx;	/* the file's, by its index */
	size_t			nr_types;
	size_t			alloc_types;
	struct tc_entries	loaded;		/* sorted by rip, read only */
	struct tc_entries	learned;	/* this report's */
	struct tc_codes		code_loaded;	/* as those */
	struct tc_codes		code_learned;
	struct tc_statics	static_loaded;	/* as those */
	struct tc_statics	static_learned;
	struct tc_strs_array	strs_loaded[DPROF_TC_STRS__NR];
	struct tc_strs_array	strs_learned[DPROF_TC_STRS__NR];
	/* a debuginfo file of the binary is there, was there (-1: not said) */
	bool			dbg_now;
	int			dbg_file;
};

/* What the file kept from the symbol table and the DWARF lines still holds */
static bool tc_dso__dbg_same(const struct dprof_typecache_dso *cd)
{
	return cd->dbg_file == cd->dbg_now;
}

struct dprof_typecache {
	refcount_t		refcnt;
	char			*dir;
	char			perf_id[SBUILD_ID_SIZE];
	struct hashmap		*dsos;		/* dprof_dso_id() -> its cache */
};

static size_t tc_type__hash(long key, void *ctx __maybe_unused)
{
	const struct tc_type *t = (const void *)key;

	return str_hash(t->name) * 31 + t->size;
}

static bool tc_type__equal(long a, long b, void *ctx __maybe_unused)
{
	const struct tc_type *x = (const void *)a, *y = (const void *)b;

	return x->size == y->size && !strcmp(x->name, y->name);
}

static struct tc_type *tc_type__new(const char *name, u64 size)
{
	size_t len = strlen(name) + 1;
	struct tc_type *t = malloc(sizeof(*t) + len);

	if (!t)
		return NULL;
	t->name = memcpy(t + 1, name, len);
	t->size = size;
	t->idx = 0;
	return t;
}

/* The cache's type of @name and @size, made when new. */
static struct tc_type *tc_type__findnew(struct dprof_typecache_dso *cd,
					const char *name, u64 size)
{
	struct tc_type key = { .name = name, .size = size }, *t;

	if (hashmap__find(cd->types, &key, &t))
		return t;
	t = tc_type__new(name, size);
	if (t && hashmap__add(cd->types, t, t)) {
		free(t);
		t = NULL;
	}
	return t;
}

/*
 * The typings and the code reads are arrays sorted by address, each
 * element starting with it: one comparison and one way to grow serve both.
 */
static int tc_rip__cmp(const void *a, const void *b)
{
	const u64 *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* A new element, zeroed, at the end of the array *@v of @size elements */
static void *tc_array__add(void **v, size_t *nr, size_t *alloc, size_t size)
{
	void *e;

	if (*nr == *alloc) {
		size_t n = *alloc ? *alloc * 2 : 256;

		e = realloc(*v, n * size);
		if (!e)
			return NULL;
		*v = e;
		*alloc = n;
	}
	e = (char *)*v + (*nr)++ * size;
	memset(e, 0, size);
	return e;
}

/* Give back the room an array read whole grew into, in one piece */
static void tc_array__trim(void **v, size_t nr, size_t *alloc, size_t size)
{
	void *e;

	if (!nr || nr == *alloc)
		return;
	e = realloc(*v, nr * size);
	if (e) {
		*v = e;
		*alloc = nr;
	}
}

/* Sort an array by address: false when an address is there twice */
static bool tc_array__sort_unique(void *v, size_t nr, size_t size)
{
	size_t i;

	if (!nr)
		return true;
	qsort(v, nr, size, tc_rip__cmp);
	for (i = 1; i < nr; i++) {
		if (!tc_rip__cmp((char *)v + (i - 1) * size, (char *)v + i * size))
			return false;
	}
	return true;
}

static int tc_entries__add(struct tc_entries *es, u64 rip, u64 offset,
			   struct tc_type *type)
{
	struct tc_entry *e = tc_array__add((void **)&es->v, &es->nr, &es->alloc,
					   sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->rip = rip;
	e->offset = offset;
	e->type = type;
	return 0;
}

static const struct tc_entry *tc_entries__find(const struct tc_entries *es, u64 rip)
{
	return es->nr ? bsearch(&rip, es->v, es->nr, sizeof(*es->v), tc_rip__cmp) : NULL;
}

static void tc_statics__exit(struct tc_statics *ss)
{
	size_t i;

	for (i = 0; i < ss->nr; i++)
		free(ss->v[i].name);
	zfree(&ss->v);
	ss->nr = 0;
	ss->alloc = 0;
}

static struct tc_static *tc_statics__add(struct tc_statics *ss, u64 rip, u64 start,
					 u64 end, const char *name)
{
	struct tc_static *st;
	char *copy = NULL;

	if (name) {
		copy = strdup(name);
		if (!copy)
			return NULL;
	}
	st = tc_array__add((void **)&ss->v, &ss->nr, &ss->alloc, sizeof(*st));
	if (!st) {
		free(copy);
		return NULL;
	}
	st->rip = rip;
	st->start = start;
	st->end = end;
	st->name = copy;
	return st;
}

static const struct tc_static *tc_statics__find(const struct tc_statics *ss, u64 rip)
{
	return ss->nr ? bsearch(&rip, ss->v, ss->nr, sizeof(*ss->v), tc_rip__cmp) : NULL;
}

static void tc_strs_array__exit(struct tc_strs_array *a)
{
	size_t i;
	u32 j;

	for (i = 0; i < a->nr; i++) {
		for (j = 0; j < a->v[i].nr; j++)
			free(a->v[i].v[j]);
		free(a->v[i].v);
	}
	zfree(&a->v);
	a->nr = 0;
	a->alloc = 0;
}

/* An entry of @nr strings, copied (NULL ones stay NULL) */
static int tc_strs_array__add(struct tc_strs_array *a, u64 rip, u32 nr,
			      const char *const *v)
{
	struct tc_strs *e;
	char **copy = calloc(nr ?: 1, sizeof(*copy));
	u32 i;

	if (!copy)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		copy[i] = v[i] ? strdup(v[i]) : NULL;
		if (v[i] && !copy[i])
			goto err;
	}
	e = tc_array__add((void **)&a->v, &a->nr, &a->alloc, sizeof(*e));
	if (!e)
		goto err;
	e->rip = rip;
	e->nr = nr;
	e->v = copy;
	return 0;
err:
	while (i--)
		free(copy[i]);
	free(copy);
	return -ENOMEM;
}

static const struct tc_strs *tc_strs_array__find(const struct tc_strs_array *a, u64 rip)
{
	return a->nr ? bsearch(&rip, a->v, a->nr, sizeof(*a->v), tc_rip__cmp) : NULL;
}

static void tc_dso__forget(struct dprof_typecache_dso *cd)
{
	int k;

	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(cd->types, cur, bkt)
		free(cur->pvalue);
	hashmap__clear(cd->types);
	zfree(&cd->by_idx);
	cd->nr_types = 0;
	zfree(&cd->loaded.v);
	cd->loaded.nr = 0;
	cd->loaded.alloc = 0;
	zfree(&cd->code_loaded.v);
	cd->code_loaded.nr = 0;
	cd->code_loaded.alloc = 0;
	tc_statics__exit(&cd->static_loaded);
	for (k = 0; k < DPROF_TC_STRS__NR; k++)
		tc_strs_array__exit(&cd->strs_loaded[k]);
	cd->dbg_file = -1;
}

static struct tc_code *tc_codes__add(struct tc_codes *cs, u64 rip)
{
	struct tc_code *c = tc_array__add((void **)&cs->v, &cs->nr, &cs->alloc,
					  sizeof(*c));

	if (c)
		c->rip = rip;
	return c;
}

static const struct tc_code *tc_codes__find(const struct tc_codes *cs, u64 rip)
{
	return cs->nr ? bsearch(&rip, cs->v, cs->nr, sizeof(*cs->v), tc_rip__cmp) : NULL;
}

/* Hex digits to bytes, up to DPROF_TC_CODE_MAX; the count, or -1. */
static int tc_unhex(const char *s, size_t n, u8 *out)
{
	size_t i;

	if (!n || n % 2 || n / 2 > DPROF_TC_CODE_MAX)
		return -1;
	for (i = 0; i < n; i += 2) {
		char byte[3] = { s[i], s[i + 1] };

		if (!isxdigit((unsigned char)byte[0]) || !isxdigit((unsigned char)byte[1]))
			return -1;
		out[i / 2] = strtoul(byte, NULL, 16);
	}
	return n / 2;
}

/* "c <address> <bytes> [<bytes>]" */
static bool tc_dso__parse_code(struct dprof_typecache_dso *cd, const char *line)
{
	const char *bytes, *prev;
	struct tc_code *c;
	u64 rip;
	int n = 0;

	if (sscanf(line, "c %" SCNx64 " %n", &rip, &n) != 1 || !n)
		return false;
	bytes = line + n;
	prev = strchr(bytes, ' ');
	c = tc_codes__add(&cd->code_loaded, rip);
	if (!c)
		return false;
	c->len = tc_unhex(bytes, prev ? (size_t)(prev - bytes) : strlen(bytes), c->bytes);
	if (prev)
		c->prev_len = tc_unhex(prev + 1, strlen(prev + 1), c->prev);
	return c->len > 0 && c->prev_len >= 0;
}

/* "s <address> [<start> <end> <name>]" */
static bool tc_dso__parse_static(struct dprof_typecache_dso *cd, const char *line)
{
	u64 rip, start, end;
	int n = 0, m = 0;

	if (sscanf(line, "s %" SCNx64 "%n", &rip, &n) != 1 || !n)
		return false;
	if (!line[n])
		return tc_statics__add(&cd->static_loaded, rip, 0, 0, NULL);
	if (sscanf(line + n, " %" SCNx64 " %" SCNx64 " %n", &start, &end, &m) != 2 || !m ||
	    !line[n + m] || line[n + m] == ' ' || rip < start || (rip >= end && end != start))
		return false;
	return tc_statics__add(&cd->static_loaded, rip, start, end, line + n + m);
}

/* "<tag> <address> <n> [<length> <string>]...": a length of -1 is a NULL */
static bool tc_dso__parse_strs(struct dprof_typecache_dso *cd, int kind, const char *line)
{
	char *v[TC_STRS_MAX] = { NULL };
	const char *pos;
	char *end;
	u64 rip;
	int n = 0;
	u32 nr, i;
	bool ok = false;

	if (sscanf(line + 1, " %" SCNx64 " %u%n", &rip, &nr, &n) != 2 || !n ||
	    nr > TC_STRS_MAX)
		return false;
	pos = line + 1 + n;
	for (i = 0; i < nr; i++) {
		long len;

		if (*pos != ' ')
			goto out;
		len = strtol(pos + 1, &end, 10);
		if (end == pos + 1 || len < -1 || len > TC_STR_MAX)
			goto out;
		pos = end;
		if (len < 0)
			continue;
		if (*pos != ' ' || strnlen(pos + 1, len) < (size_t)len)
			goto out;
		v[i] = strndup(pos + 1, len);
		if (!v[i])
			goto out;
		pos += 1 + len;
	}
	ok = !*pos && !tc_strs_array__add(&cd->strs_loaded[kind], rip, nr,
					   (const char *const *)v);
out:
	for (i = 0; i < nr; i++)
		free(v[i]);
	return ok;
}

/* One line of the file; false when it does not parse. */
static bool tc_dso__parse(struct dprof_typecache_dso *cd, char *line,
			  size_t *alloc_types)
{
	u64 a, b, c;
	int n = 0;

	if (line[0] == 't' && sscanf(line, "t %" SCNu64 " %n", &a, &n) == 1 && n &&
	    line[n] && line[n] != ' ') {
		struct tc_type *t;

		if (cd->nr_types == *alloc_types) {
			size_t alloc = *alloc_types ? *alloc_types * 2 : 64;
			struct tc_type **v = realloc(cd->by_idx, alloc * sizeof(*v));

			if (!v)
				return false;
			cd->by_idx = v;
			*alloc_types = alloc;
		}
		t = tc_type__findnew(cd, line + n, a);
		if (!t)
			return false;
		cd->by_idx[cd->nr_types++] = t;
		return true;
	}
	if (line[0] == 'i' &&
	    sscanf(line, "i %" SCNx64 " %" SCNu64 " %" SCNu64 "%n", &a, &b, &c, &n) == 3 &&
	    !line[n] && b < cd->nr_types)
		return !tc_entries__add(&cd->loaded, a, c, cd->by_idx[b]);
	if (line[0] == 'n' && sscanf(line, "n %" SCNx64 "%n", &a, &n) == 1 && !line[n])
		return !tc_entries__add(&cd->loaded, a, 0, NULL);
	if (line[0] == 'c')
		return tc_dso__parse_code(cd, line);
	if (line[0] == 's')
		return tc_dso__parse_static(cd, line);
	if (line[0] == tc_strs_tag[DPROF_TC_SRCLINE])
		return tc_dso__parse_strs(cd, DPROF_TC_SRCLINE, line);
	if (line[0] == tc_strs_tag[DPROF_TC_INLINES])
		return tc_dso__parse_strs(cd, DPROF_TC_INLINES, line);
	if (line[0] == 'D' && (!strcmp(line, "D 0") || !strcmp(line, "D 1")) &&
	    cd->dbg_file < 0) {
		cd->dbg_file = line[2] == '1';
		return true;
	}
	return false;
}

/**
 * dprof_typecache__read - the lines of a kept file
 * @tc: the cache
 * @path: the file
 * @kind: what it keeps: its first line is "perf-dprof-<kind> 1 <perf's build id>"
 * @parse: called with each line after the first, without its newline;
 *	   false: the file does not parse
 * @arg: @parse's
 *
 * Return: 0, -ENOENT when there is no such file, -EINVAL when it is
 * another perf's or does not parse (said with pr_debug()).
 */
int dprof_typecache__read(const struct dprof_typecache *tc, const char *path,
			  const char *kind, bool (*parse)(void *arg, char *line),
			  void *arg)
{
	char *line = NULL, head[128];
	int err = -EINVAL;
	size_t len = 0;
	struct stat st;
	ssize_t n;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	if (fstat(fileno(f), &st) || (unsigned long)st.st_size > TC_MAX_SIZE)
		goto out;
	n = getline(&line, &len, f);
	if (n > 0 && line[n - 1] == '\n')
		line[n - 1] = '\0';
	snprintf(head, sizeof(head), TC_MAGIC "%s %d %s", kind, TC_VERSION, tc->perf_id);
	if (n <= 0 || strcmp(line, head)) {
		pr_debug("dprof: %s: made by another perf, not used\n", path);
		goto out;
	}
	while ((n = getline(&line, &len, f)) > 0) {
		if (line[n - 1] != '\n')
			break;
		line[n - 1] = '\0';
		if (!parse(arg, line))
			break;
	}
	if (n <= 0 && !ferror(f))
		err = 0;
	else
		pr_debug("dprof: %s does not parse, not used\n", path);
out:
	free(line);
	fclose(f);
	return err;
}

/**
 * dprof_typecache__create - a new kept file, in place of @path at its commit
 * @tc: the cache
 * @path: the file
 * @kind: what it keeps (see dprof_typecache__read())
 * @tmp: where the name of the new file goes, until it is renamed
 * @size: @tmp's size
 *
 * Return: the new file, its first line written; NULL (with a pr_debug())
 * when it cannot be made.
 */
FILE *dprof_typecache__create(const struct dprof_typecache *tc, const char *path,
			      const char *kind, char *tmp, size_t size)
{
	FILE *f = NULL;
	int fd;

	if (mkdir_p(tc->dir, 0755) && errno != EEXIST) {
		pr_debug("dprof: cannot make %s: %m\n", tc->dir);
		return NULL;
	}
	if (snprintf(tmp, size, "%s.XXXXXX", path) >= (int)size)
		return NULL;
	fd = mkstemp(tmp);
	if (fd >= 0)
		f = fdopen(fd, "w");
	if (!f) {
		pr_debug("dprof: cannot write %s: %m\n", tmp);
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return NULL;
	}
	fprintf(f, TC_MAGIC "%s %d %s\n", kind, TC_VERSION, tc->perf_id);
	return f;
}

/* Close @f, made by dprof_typecache__create(), and rename @tmp to @path. */
int dprof_typecache__commit(FILE *f, const char *tmp, const char *path)
{
	int err = ferror(f) ? -EIO : 0;

	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		pr_debug("dprof: cannot write %s: %s\n", path, strerror(-err));
		unlink(tmp);
	}
	return err;
}

/* The kept file of @kind for the binary of build id @bid: 0, or -ENAMETOOLONG */
int dprof_typecache__path(const struct dprof_typecache *tc, const struct build_id *bid,
			  const char *kind, char *path, size_t size)
{
	char sbid[SBUILD_ID_SIZE];

	if (build_id__sprintf(bid, sbid) <= 0 ||
	    snprintf(path, size, "%s/%s.%s", tc->dir, sbid, kind) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

static bool tc_dso__parse_line(void *arg, char *line)
{
	struct dprof_typecache_dso *cd = arg;

	return tc_dso__parse(cd, line, &cd->alloc_types);
}

/* The typings a report made before with this perf: none when it cannot. */
static void tc_dso__load(struct dprof_typecache *tc, struct dprof_typecache_dso *cd)
{
	int k, err = dprof_typecache__read(tc, cd->path, "types", tc_dso__parse_line, cd);

	if (err == -ENOENT)
		return;
	if (!err && (!tc_array__sort_unique(cd->loaded.v, cd->loaded.nr, sizeof(*cd->loaded.v)) ||
		     !tc_array__sort_unique(cd->code_loaded.v, cd->code_loaded.nr,
					    sizeof(*cd->code_loaded.v)) ||
		     !tc_array__sort_unique(cd->static_loaded.v, cd->static_loaded.nr,
					    sizeof(*cd->static_loaded.v)) ||
		     !tc_array__sort_unique(cd->strs_loaded[DPROF_TC_SRCLINE].v,
					    cd->strs_loaded[DPROF_TC_SRCLINE].nr,
					    sizeof(struct tc_strs)) ||
		     !tc_array__sort_unique(cd->strs_loaded[DPROF_TC_INLINES].v,
					    cd->strs_loaded[DPROF_TC_INLINES].nr,
					    sizeof(struct tc_strs)))) {
		pr_debug("dprof: %s does not parse, not used\n", cd->path);
		err = -EINVAL;
	}
	if (err) {
		tc_dso__forget(cd);
	} else {
		tc_array__trim((void **)&cd->loaded.v, cd->loaded.nr, &cd->loaded.alloc,
			       sizeof(*cd->loaded.v));
		tc_array__trim((void **)&cd->code_loaded.v, cd->code_loaded.nr,
			       &cd->code_loaded.alloc, sizeof(*cd->code_loaded.v));
		tc_array__trim((void **)&cd->static_loaded.v, cd->static_loaded.nr,
			       &cd->static_loaded.alloc, sizeof(*cd->static_loaded.v));
		for (k = 0; k < DPROF_TC_STRS__NR; k++)
			tc_array__trim((void **)&cd->strs_loaded[k].v, cd->strs_loaded[k].nr,
				       &cd->strs_loaded[k].alloc, sizeof(struct tc_strs));
	}
	pr_debug("dprof: %zu typings, %zu code reads and %zu data lookups of %s from %s\n",
		 cd->loaded.nr, cd->code_loaded.nr, cd->static_loaded.nr,
		 dso__long_name(cd->dso), cd->path);
}

static void tc_dso__delete(struct dprof_typecache_dso *cd)
{
	int k;

	if (!cd)
		return;
	if (cd->types) {
		tc_dso__forget(cd);
		hashmap__free(cd->types);
	}
	free(cd->learned.v);
	free(cd->code_learned.v);
	tc_statics__exit(&cd->static_learned);
	for (k = 0; k < DPROF_TC_STRS__NR; k++)
		tc_strs_array__exit(&cd->strs_learned[k]);
	dso__put(cd->dso);
	free(cd);
}

/*
 * Where perf's debuginfo__new() looks for a binary's debuginfo by its path
 * and build id, before the binary itself (whose build id says it is the
 * same file as when it was searched).
 */
static const enum dso_binary_type tc_debuginfo_types[] = {
	DSO_BINARY_TYPE__FEDORA_DEBUGINFO,
	DSO_BINARY_TYPE__UBUNTU_DEBUGINFO,
	DSO_BINARY_TYPE__OPENEMBEDDED_DEBUGINFO,
	DSO_BINARY_TYPE__BUILDID_DEBUGINFO,
	DSO_BINARY_TYPE__MIXEDUP_UBUNTU_DEBUGINFO,
};

/**
 * dprof_typecache__has_debuginfo - a debuginfo file of a binary is there
 * @path: the binary
 * @bid: its build id
 *
 * True when a file is where perf's debuginfo__new() looks for the
 * binary's DWARF, and where dso__load() looks for a fuller symbol table
 * than the binary's (a -dbgsym package installed): what a report found
 * without one may be otherwise with it.
 */
bool dprof_typecache__has_debuginfo(const char *path, struct build_id *bid)
{
	char buf[PATH_MAX], nil = '\0';
	bool found = false;
	struct dso *dso;
	size_t i;

	dso = dso__new(path);
	if (!dso)
		return true;
	dso__set_build_id(dso, bid);
	for (i = 0; !found && i < ARRAY_SIZE(tc_debuginfo_types); i++) {
		found = dso__read_binary_type_filename(dso, tc_debuginfo_types[i], &nil,
						       buf, sizeof(buf)) >= 0 &&
			!access(buf, R_OK);
	}
	dso__put(dso);
	return found;
}

/*
 * A dso's typings can be kept when it has a build id and its file (where
 * the report reads the DWARF) still is that build.
 */
static bool tc_dso__cacheable(struct dso *dso, struct build_id *bid)
{
	struct build_id file;
	char path[PATH_MAX];
	bool has;

	/* read beside a loading of its symbols, in another thread */
	mutex_lock(dso__lock(dso));
	has = dso__has_build_id(dso);
	if (has) {
		*bid = *dso__bid(dso);
		snprintf(path, sizeof(path), "%s", dso__long_name(dso));
	}
	mutex_unlock(dso__lock(dso));
	return has && filename__read_build_id(path, &file) > 0 &&
	       file.size == bid->size && !memcmp(file.data, bid->data, bid->size);
}

struct dprof_typecache_dso *dprof_typecache__dso(struct dprof_typecache *tc,
						 struct dso *dso)
{
	struct dprof_typecache_dso *cd = NULL;
	struct build_id bid;
	const void *id;

	if (!tc || !dso)
		return NULL;
	id = dprof_dso_id(dso);
	if (!hashmap__find(tc->dsos, id, &cd)) {
		/* one for a dso that is not cached too: not asked again */
		cd = zalloc(sizeof(*cd));
		if (!cd)
			return NULL;
		cd->dso = dso__get(dso);
		cd->dbg_file = -1;
		cd->types = hashmap__new(tc_type__hash, tc_type__equal, NULL);
		if (IS_ERR(cd->types) || hashmap__add(tc->dsos, id, cd)) {
			if (IS_ERR(cd->types))
				cd->types = NULL;
			tc_dso__delete(cd);
			return NULL;
		}
		if (tc_dso__cacheable(dso, &bid) &&
		    !dprof_typecache__path(tc, &bid, "types", cd->path, sizeof(cd->path))) {
			cd->dbg_now = dso__kernel(dso) != DSO_SPACE__USER ||
				      dprof_typecache__has_debuginfo(dso__long_name(dso), &bid);
			tc_dso__load(tc, cd);
		} else {
			cd->path[0] = '\0';
		}
	}
	return cd->path[0] ? cd : NULL;
}

int dprof_typecache_dso__find(const struct dprof_typecache_dso *cd, u64 rip,
			      struct dprof_typed *t)
{
	const struct tc_entry *e = cd ? tc_entries__find(&cd->loaded, rip) : NULL;

	if (!e)
		return -ENOENT;
	memset(t, 0, sizeof(*t));
	if (e->type) {
		t->type_name = e->type->name;
		t->type_size = e->type->size;
		t->offset = e->offset;
		t->key = (unsigned long)e->type;
	}
	t->dso = dso__get(cd->dso);
	return 0;
}

int dprof_typecache_dso__add(struct dprof_typecache_dso *cd, u64 rip,
			     struct dprof_typed *t)
{
	struct tc_type *type = NULL;

	if (t->type_name) {
		type = tc_type__findnew(cd, t->type_name, t->type_size);
		if (!type)
			return -ENOMEM;
	}
	if (!tc_entries__find(&cd->loaded, rip) &&
	    tc_entries__add(&cd->learned, rip, t->offset, type))
		return -ENOMEM;
	if (type) {
		t->type_name = type->name;
		t->key = (unsigned long)type;
	}
	return 0;
}

int dprof_typecache_dso__code(const struct dprof_typecache_dso *cd, u64 rip,
			      const u8 **bytes, const u8 **prev, int *prev_len)
{
	const struct tc_code *c = cd ? tc_codes__find(&cd->code_loaded, rip) : NULL;

	if (!c)
		return -ENOENT;
	*bytes = c->bytes;
	*prev = c->prev;
	*prev_len = c->prev_len;
	return c->len;
}

int dprof_typecache_dso__static(const struct dprof_typecache_dso *cd, u64 rip,
				u64 *start, u64 *end, const char **name)
{
	const struct tc_static *st = cd && tc_dso__dbg_same(cd) ?
				     tc_statics__find(&cd->static_loaded, rip) : NULL;

	if (!st)
		return -ENOENT;
	*start = st->start;
	*end = st->end;
	*name = st->name;
	return 0;
}

int dprof_typecache_dso__add_static(struct dprof_typecache_dso *cd, u64 rip,
				    u64 start, u64 end, const char *name)
{
	if (!cd || (tc_dso__dbg_same(cd) && tc_statics__find(&cd->static_loaded, rip)) ||
	    (name && (!*name || strchr(name, '\n') || rip < start ||
		      (rip >= end && end != start))))
		return 0;
	return tc_statics__add(&cd->static_learned, rip, start, end, name) ? 0 : -ENOMEM;
}

int dprof_typecache_dso__strs(const struct dprof_typecache_dso *cd,
			      enum dprof_tc_strs kind, u64 rip, u32 *nr,
			      const char *const **v)
{
	const struct tc_strs *e = cd && tc_dso__dbg_same(cd) ?
				  tc_strs_array__find(&cd->strs_loaded[kind], rip) : NULL;

	if (!e)
		return -ENOENT;
	*nr = e->nr;
	*v = (const char *const *)e->v;
	return 0;
}

int dprof_typecache_dso__add_strs(struct dprof_typecache_dso *cd,
				  enum dprof_tc_strs kind, u64 rip, u32 nr,
				  const char *const *v)
{
	u32 i;

	if (!cd || nr > TC_STRS_MAX ||
	    (tc_dso__dbg_same(cd) && tc_strs_array__find(&cd->strs_loaded[kind], rip)))
		return 0;
	for (i = 0; i < nr; i++) {
		if (v[i] && (strlen(v[i]) > TC_STR_MAX || strchr(v[i], '\n')))
			return 0;
	}
	return tc_strs_array__add(&cd->strs_learned[kind], rip, nr, v);
}

int dprof_typecache_dso__add_code(struct dprof_typecache_dso *cd, u64 rip,
				  const u8 *bytes, int len, const u8 *prev, int prev_len)
{
	struct tc_code *c;

	if (len <= 0 || len > DPROF_TC_CODE_MAX || prev_len < 0 ||
	    prev_len > DPROF_TC_CODE_MAX || tc_codes__find(&cd->code_loaded, rip))
		return 0;
	c = tc_codes__add(&cd->code_learned, rip);
	if (!c)
		return -ENOMEM;
	c->len = len;
	c->prev_len = prev_len;
	memcpy(c->bytes, bytes, len);
	memcpy(c->prev, prev, prev_len);
	return 0;
}

static void tc_write_static(FILE *f, const struct tc_static *st)
{
	if (st->name)
		fprintf(f, "s %" PRIx64 " %" PRIx64 " %" PRIx64 " %s\n", st->rip, st->start,
			st->end, st->name);
	else
		fprintf(f, "s %" PRIx64 "\n", st->rip);
}

static void tc_write_strs(FILE *f, int kind, const struct tc_strs *e)
{
	u32 i;

	fprintf(f, "%c %" PRIx64 " %u", tc_strs_tag[kind], e->rip, e->nr);
	for (i = 0; i < e->nr; i++) {
		if (e->v[i])
			fprintf(f, " %zu %s", strlen(e->v[i]), e->v[i]);
		else
			fprintf(f, " -1");
	}
	fputc('\n', f);
}

/* The kept entries of @kind that still hold, and the learned ones */
static void tc_dso__save_strs(FILE *f, struct dprof_typecache_dso *cd, int kind)
{
	struct tc_strs_array *kept = &cd->strs_loaded[kind], *learned = &cd->strs_learned[kind];
	size_t k;

	for (k = 0; tc_dso__dbg_same(cd) && k < kept->nr; k++)
		tc_write_strs(f, kind, &kept->v[k]);
	if (learned->nr)
		qsort(learned->v, learned->nr, sizeof(*learned->v), tc_rip__cmp);
	for (k = 0; k < learned->nr; k++) {
		/* the same code mapped in two processes */
		if (!k || learned->v[k - 1].rip != learned->v[k].rip)
			tc_write_strs(f, kind, &learned->v[k]);
	}
}

static bool tc_dso__learned(const struct dprof_typecache_dso *cd)
{
	int k;

	for (k = 0; k < DPROF_TC_STRS__NR; k++) {
		if (cd->strs_learned[k].nr)
			return true;
	}
	return cd->learned.nr || cd->code_learned.nr || cd->static_learned.nr;
}

/* Forget what was learned: saved, or not to be */
static void tc_dso__learned_saved(struct dprof_typecache_dso *cd)
{
	int k;

	cd->learned.nr = 0;
	cd->code_learned.nr = 0;
	tc_statics__exit(&cd->static_learned);
	for (k = 0; k < DPROF_TC_STRS__NR; k++)
		tc_strs_array__exit(&cd->strs_learned[k]);
}

static void tc_write_hex(FILE *f, const u8 *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		fprintf(f, "%02x", v[i]);
}

static void tc_write_code(FILE *f, const struct tc_code *c)
{
	fprintf(f, "c %" PRIx64 " ", c->rip);
	tc_write_hex(f, c->bytes, c->len);
	if (c->prev_len) {
		fputc(' ', f);
		tc_write_hex(f, c->prev, c->prev_len);
	}
	fputc('\n', f);
}

static int tc_write_entry(FILE *f, const struct tc_entry *e)
{
	if (!e->type)
		return fprintf(f, "n %" PRIx64 "\n", e->rip);
	return fprintf(f, "i %" PRIx64 " %u %" PRIu64 "\n", e->rip, e->type->idx,
		       e->offset);
}

/* The loaded typings and the learned ones, in a new file in place of the old */
static int tc_dso__save(struct dprof_typecache *tc, struct dprof_typecache_dso *cd)
{
	struct hashmap_entry *cur;
	char tmp[PATH_MAX + 8];
	size_t bkt, i, j, k;
	u32 idx = 0;
	FILE *f;
	int err;

	if (!tc_dso__learned(cd) || !cd->path[0])
		return 0;
	f = dprof_typecache__create(tc, cd->path, "types", tmp, sizeof(tmp));
	if (!f)
		return -EIO;
	hashmap__for_each_entry(cd->types, cur, bkt) {
		struct tc_type *t = cur->pvalue;

		t->idx = idx++;
		fprintf(f, "t %" PRIu64 " %s\n", t->size, t->name);
	}
	/* both sorted by address: merged, the file is too */
	if (cd->learned.nr)
		qsort(cd->learned.v, cd->learned.nr, sizeof(*cd->learned.v), tc_rip__cmp);
	for (i = j = 0; i < cd->loaded.nr || j < cd->learned.nr;) {
		if (j == cd->learned.nr ||
		    (i < cd->loaded.nr && cd->loaded.v[i].rip < cd->learned.v[j].rip))
			tc_write_entry(f, &cd->loaded.v[i++]);
		else if ((i < cd->loaded.nr && cd->loaded.v[i].rip == cd->learned.v[j].rip) ||
			 (j && cd->learned.v[j - 1].rip == cd->learned.v[j].rip))
			j++;	/* the same code mapped in two processes */
		else
			tc_write_entry(f, &cd->learned.v[j++]);
	}
	for (k = 0; k < cd->code_loaded.nr; k++)
		tc_write_code(f, &cd->code_loaded.v[k]);
	if (cd->code_learned.nr)
		qsort(cd->code_learned.v, cd->code_learned.nr, sizeof(*cd->code_learned.v),
		      tc_rip__cmp);
	for (k = 0; k < cd->code_learned.nr; k++) {
		/* the same code mapped in two processes */
		if (!k || cd->code_learned.v[k - 1].rip != cd->code_learned.v[k].rip)
			tc_write_code(f, &cd->code_learned.v[k]);
	}
	fprintf(f, "D %d\n", cd->dbg_now);
	for (k = 0; tc_dso__dbg_same(cd) && k < cd->static_loaded.nr; k++)
		tc_write_static(f, &cd->static_loaded.v[k]);
	if (cd->static_learned.nr)
		qsort(cd->static_learned.v, cd->static_learned.nr,
		      sizeof(*cd->static_learned.v), tc_rip__cmp);
	for (k = 0; k < cd->static_learned.nr; k++) {
		/* the same data mapped in two processes */
		if (!k || cd->static_learned.v[k - 1].rip != cd->static_learned.v[k].rip)
			tc_write_static(f, &cd->static_learned.v[k]);
	}
	tc_dso__save_strs(f, cd, DPROF_TC_SRCLINE);
	tc_dso__save_strs(f, cd, DPROF_TC_INLINES);
	err = dprof_typecache__commit(f, tmp, cd->path);
	if (!err)
		pr_debug("dprof: %zu typings of %s kept in %s\n", i + j,
			 dso__long_name(cd->dso), cd->path);
	return err;
}

/**
 * dprof_typecache__forget - keep none of the typings learned
 * @tc: the cache
 *
 * For a recording perf could not read whole: the typing of an access to a
 * global variable goes by the maps of the sampled process, which a damaged
 * record can have put anywhere.
 */
void dprof_typecache__forget(struct dprof_typecache *tc)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!tc)
		return;
	hashmap__for_each_entry(tc->dsos, cur, bkt) {
		struct dprof_typecache_dso *cd = cur->pvalue;

		tc_dso__learned_saved(cd);
	}
}

/**
 * dprof_typecache__save - keep the typings learned for the next report
 * @tc: the cache
 *
 * Each binary's file is replaced as a whole (a new file renamed over it):
 * reports running at the same time leave one's or the other's.
 */
int dprof_typecache__save(struct dprof_typecache *tc)
{
	struct hashmap_entry *cur;
	size_t bkt;
	int err = 0;

	if (!tc)
		return 0;
	hashmap__for_each_entry(tc->dsos, cur, bkt) {
		struct dprof_typecache_dso *cd = cur->pvalue;
		int ret;

		if (!cd->path[0] || !tc_dso__learned(cd))
			continue;
		ret = tc_dso__save(tc, cd);
		if (ret)
			err = ret;
		/* written: a second save has nothing new */
		tc_dso__learned_saved(cd);
	}
	return err;
}

/**
 * dprof_typecache__new - typings kept between reports
 * @dir: where (perf's build-id cache directory's .dprof)
 *
 * Returns NULL when perf has no build id of its own: another perf could
 * type differently, and nothing would tell.
 */
struct dprof_typecache *dprof_typecache__new(const char *dir)
{
	struct dprof_typecache *tc = zalloc(sizeof(*tc));
	struct build_id bid;

	if (!tc)
		return NULL;
	refcount_set(&tc->refcnt, 1);
	if (filename__read_build_id("/proc/self/exe", &bid) <= 0 ||
	    build_id__sprintf(&bid, tc->perf_id) <= 0) {
		pr_debug("dprof: perf has no build id: no typings kept\n");
		goto fail;
	}
	/* absolute: mkdir_p() makes no other */
	if (dir[0] == '/') {
		tc->dir = strdup(dir);
	} else {
		char cwd[PATH_MAX];

		if (getcwd(cwd, sizeof(cwd)) && asprintf(&tc->dir, "%s/%s", cwd, dir) < 0)
			tc->dir = NULL;
	}
	tc->dsos = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (!tc->dir || IS_ERR(tc->dsos)) {
		if (IS_ERR(tc->dsos))
			tc->dsos = NULL;
		goto fail;
	}
	return tc;
fail:
	dprof_typecache__put(tc);
	return NULL;
}

/* One more user of @tc (the DWARF handles keep their lookups there too). */
struct dprof_typecache *dprof_typecache__get(struct dprof_typecache *tc)
{
	if (tc)
		refcount_inc(&tc->refcnt);
	return tc;
}

/* One user less; the last frees it, without a dprof_typecache__save(). */
void dprof_typecache__put(struct dprof_typecache *tc)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!tc || !refcount_dec_and_test(&tc->refcnt))
		return;
	if (tc->dsos) {
		hashmap__for_each_entry(tc->dsos, cur, bkt)
			tc_dso__delete(cur->pvalue);
		hashmap__free(tc->dsos);
	}
	free(tc->dir);
	free(tc);
}
