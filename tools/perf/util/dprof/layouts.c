// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: type layouts kept between reports (see layouts.h).
 *
 * A report names the members of its rows' types from their DWARF: the
 * next report of a recording of the same binaries would open that DWARF
 * again for the same few hundred types, and a distribution's debuginfo is
 * compressed: libdw inflates all of it at the opening (~30 ms and ~30 MB
 * for a C library's), and a vmlinux's unit headers are read to find one
 * DIE.  The layouts of the types a report handed out are written to a
 * file named by the DWARF file's build id, beside its kept lookups
 * (typecache.c); a report that finds every type it needs there opens no
 * DWARF at all.  The file, one type per "t" line, the lines that follow
 * it describing that type:
 *
 *	t <key> <tag> <kind> <real key> <size> <die name len> <name len> <die name><name>
 *	m <start> <end> <bitfield> <type key> <name len> <name>
 *	a <element key> <dims> <dim>...
 *
 * Keys in hex, 0 for none; <kind> is dprof_type_kind, or -2 (-ENOENT) for
 * void; <size> is - when the type has none; a length of -1 is a NULL
 * name.  Names are counted, not ended: C++ type names have blanks.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include "util/build-id.h"
#include "util/debug.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "hashfn.h"
#include "layouts.h"
#include "typecache.h"

/* a type's members and a name are bounded: a larger line is damage */
#define LAYOUT_MAX_MEMBERS	65536
#define LAYOUT_NAME_MAX		4096

struct dprof_layouts {
	struct hashmap		*nodes;		/* key -> struct dprof_layout * */
	struct dprof_layout	*cur;		/* reading: the last "t" line's */
	bool			learned;	/* added to since it was read */
};

struct dprof_layouts *dprof_layouts__new(void)
{
	struct dprof_layouts *l = zalloc(sizeof(*l));

	if (!l)
		return NULL;
	l->nodes = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(l->nodes)) {
		free(l);
		return NULL;
	}
	return l;
}

static void layout__delete(struct dprof_layout *n)
{
	u32 i;

	for (i = 0; i < n->nr_members; i++)
		free(n->members[i].name);
	free(n->members);
	if (n->name != n->die_name)
		free(n->name);
	free(n->die_name);
	free(n->dims);
	free(n);
}

static void layouts__clear(struct dprof_layouts *l);

void dprof_layouts__delete(struct dprof_layouts *l)
{
	if (!l)
		return;
	layouts__clear(l);
	hashmap__free(l->nodes);
	free(l);
}

size_t dprof_layouts__nr(const struct dprof_layouts *l)
{
	return l ? hashmap__size(l->nodes) : 0;
}

struct dprof_layout *dprof_layouts__find(const struct dprof_layouts *l, u64 key)
{
	struct dprof_layout *n;

	return l && hashmap__find(l->nodes, (long)key, &n) ? n : NULL;
}

/* A new layout for @key, not described yet; NULL when @key has one. */
struct dprof_layout *dprof_layouts__add(struct dprof_layouts *l, u64 key)
{
	struct dprof_layout *n;

	if (!key || dprof_layouts__find(l, key))
		return NULL;
	n = zalloc(sizeof(*n));
	if (!n)
		return NULL;
	n->key = key;
	n->kind = -ENOENT;
	if (hashmap__add(l->nodes, (long)key, n)) {
		free(n);
		return NULL;
	}
	l->learned = true;
	return n;
}

int dprof_layout__set_names(struct dprof_layout *n, const char *die_name,
			    const char *name)
{
	if (die_name) {
		n->die_name = strdup(die_name);
		if (!n->die_name)
			return -ENOMEM;
	}
	if (name && n->die_name && !strcmp(name, n->die_name)) {
		n->name = n->die_name;	/* most types: one copy for both */
	} else if (name) {
		n->name = strdup(name);
		if (!n->name)
			return -ENOMEM;
	}
	return 0;
}

/* An array's bounds, outermost first: 0 or -ENOMEM */
int dprof_layout__set_dims(struct dprof_layout *n, const u64 *dims, int nr)
{
	u64 *copy;

	if (nr <= 0)
		return 0;
	copy = memdup(dims, nr * sizeof(*dims));
	if (!copy)
		return -ENOMEM;
	free(n->dims);
	n->dims = copy;
	n->nr_dims = nr;
	return 0;
}

int dprof_layout__add_member(struct dprof_layout *n, const char *name, u64 start,
			     u64 end, bool bitfield, u64 type_key)
{
	struct dprof_layout_member *m;

	if (n->nr_members == LAYOUT_MAX_MEMBERS || !type_key)
		return -E2BIG;
	m = realloc(n->members, (n->nr_members + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	n->members = m;
	m += n->nr_members;
	memset(m, 0, sizeof(*m));
	if (name) {
		m->name = strdup(name);
		if (!m->name)
			return -ENOMEM;
	}
	m->start = start;
	m->end = end;
	m->bitfield = bitfield;
	m->type_key = type_key;
	n->nr_members++;
	return 0;
}

/* a key's layout, which must be there: false when it is not */
static bool layout__link_one(const struct dprof_layouts *l, u64 key,
			     struct dprof_layout **n)
{
	*n = NULL;
	if (!key)
		return true;
	*n = dprof_layouts__find(l, key);
	return *n;
}

/**
 * dprof_layouts__link - point each layout at those it names
 * @l: the layouts
 *
 * Return: 0, or -EINVAL when one names a type that has no layout (a
 * damaged file, or one cut short): nothing may be used then.
 */
static int dprof_layouts__link(struct dprof_layouts *l)
{
	struct hashmap_entry *cur;
	size_t bkt;
	u32 i;

	hashmap__for_each_entry(l->nodes, cur, bkt) {
		struct dprof_layout *n = cur->pvalue;

		if (!layout__link_one(l, n->real_key, &n->real) ||
		    !layout__link_one(l, n->elem_key, &n->elem))
			return -EINVAL;
		/* what resolves to a type names it */
		if (n->kind >= 0 && !n->real)
			return -EINVAL;
		for (i = 0; i < n->nr_members; i++) {
			if (!layout__link_one(l, n->members[i].type_key,
					      &n->members[i].type))
				return -EINVAL;
		}
	}
	return 0;
}

/*
 * "<len> " then, at the end of the line, the counted names: @n names in
 * @len (-1: NULL), taken from *@rest in turn.
 */
static bool layout__take_name(char **rest, long len, char **name)
{
	*name = NULL;
	if (len == -1)
		return true;
	if (len < 0 || len > LAYOUT_NAME_MAX || strnlen(*rest, len) < (size_t)len)
		return false;
	*name = strndup(*rest, len);
	*rest += len;
	return *name;
}

static bool layout__parse_type(struct dprof_layouts *l, char *line)
{
	u64 key, real, size = 0;
	long dlen, nlen;
	int tag, kind, n = 0;
	char sizestr[24], *rest, *dname, *name;
	struct dprof_layout *t;

	if (sscanf(line, "t %" SCNx64 " %d %d %" SCNx64 " %23s %ld %ld %n", &key, &tag,
		   &kind, &real, sizestr, &dlen, &nlen, &n) != 7 || !n)
		return false;
	if (kind < -ENOENT || kind > DPROF_TYPE_KIND_ARRAY || (kind > -ENOENT && kind < 0))
		return false;
	if (strcmp(sizestr, "-")) {
		char *end;

		size = strtoull(sizestr, &end, 10);
		if (*end)
			return false;
	}
	rest = line + n;
	if (!layout__take_name(&rest, dlen, &dname))
		return false;
	if (!layout__take_name(&rest, nlen, &name) || *rest) {
		free(dname);
		free(name);
		return false;
	}
	t = dprof_layouts__add(l, key);
	if (!t) {
		free(dname);
		free(name);
		return false;
	}
	t->tag = tag;
	t->kind = kind;
	t->real_key = real;
	t->has_size = strcmp(sizestr, "-");
	t->size = size;
	if (dname && name && !strcmp(dname, name)) {
		free(name);
		name = dname;
	}
	t->die_name = dname;
	t->name = name;
	l->cur = t;
	return true;
}

static bool layout__parse_member(struct dprof_layouts *l, char *line)
{
	u64 start, end, key;
	int bitfield, n = 0;
	long len;
	char *rest, *name;
	int err;

	if (!l->cur || sscanf(line, "m %" SCNu64 " %" SCNu64 " %d %" SCNx64 " %ld %n",
			      &start, &end, &bitfield, &key, &len, &n) != 5 || !n ||
	    end < start || (bitfield != 0 && bitfield != 1))
		return false;
	rest = line + n;
	if (!layout__take_name(&rest, len, &name))
		return false;
	err = *rest ? -EINVAL : dprof_layout__add_member(l->cur, name, start, end,
							 bitfield, key);
	free(name);
	return !err;
}

static bool layout__parse_array(struct dprof_layouts *l, char *line)
{
	struct dprof_layout *t = l->cur;
	u64 elem, dims[DPROF_TYPE_MAX_DIMS];
	char *pos, *end;
	int i, nr, n = 0;

	if (!t || t->elem_key || t->nr_dims ||
	    sscanf(line, "a %" SCNx64 " %d%n", &elem, &nr, &n) != 2 ||
	    nr < 0 || nr > DPROF_TYPE_MAX_DIMS)
		return false;
	pos = line + n;
	for (i = 0; i < nr; i++) {
		if (*pos != ' ')
			return false;
		dims[i] = strtoull(pos + 1, &end, 10);
		if (end == pos + 1)
			return false;
		pos = end;
	}
	if (*pos || dprof_layout__set_dims(t, dims, nr))
		return false;
	t->elem_key = elem;
	return true;
}

static bool layouts__parse(void *arg, char *line)
{
	struct dprof_layouts *l = arg;

	switch (line[0]) {
	case 't':
		return layout__parse_type(l, line);
	case 'm':
		return layout__parse_member(l, line);
	case 'a':
		return layout__parse_array(l, line);
	default:
		return false;
	}
}

static void layouts__clear(struct dprof_layouts *l)
{
	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(l->nodes, cur, bkt)
		layout__delete(cur->pvalue);
	hashmap__clear(l->nodes);
	l->cur = NULL;
}

/**
 * dprof_layouts__read - the layouts an earlier report kept for a binary
 * @l: empty layouts
 * @tc: where reports keep them
 * @bid: the build id of the DWARF's file
 *
 * Return: 0, or -ENOENT when there is no file, -EINVAL when it does not
 * parse or names a type it does not describe (@l is then left empty, and
 * dprof_layouts__save() writes the file anew).
 */
int dprof_layouts__read(struct dprof_layouts *l, const struct dprof_typecache *tc,
			const struct build_id *bid)
{
	char path[PATH_MAX];
	int err;

	if (dprof_typecache__path(tc, bid, "layout", path, sizeof(path)))
		return -ENOENT;
	err = dprof_typecache__read(tc, path, "layout", layouts__parse, l);
	if (!err && dprof_layouts__link(l)) {
		pr_debug("dprof: %s names types it does not describe, not used\n", path);
		err = -EINVAL;
	}
	l->cur = NULL;
	if (err) {
		/* written anew at the end, even empty: a report needed none */
		layouts__clear(l);
		l->learned = true;
		return err == -ENOENT ? err : -EINVAL;
	}
	l->learned = false;
	pr_debug("dprof: %zu type layouts from %s\n", dprof_layouts__nr(l), path);
	return 0;
}

static void layout__fprintf_name(FILE *f, const char *name)
{
	fprintf(f, "%s", name ?: "");
}

static long layout__name_len(const char *name)
{
	return name ? (long)strlen(name) : -1;
}

static void layout__fprintf(FILE *f, const struct dprof_layout *n)
{
	u32 i;
	int d;

	fprintf(f, "t %" PRIx64 " %d %d %" PRIx64 " ", n->key, n->tag, n->kind, n->real_key);
	if (n->has_size)
		fprintf(f, "%" PRIu64, n->size);
	else
		fprintf(f, "-");
	fprintf(f, " %ld %ld ", layout__name_len(n->die_name), layout__name_len(n->name));
	layout__fprintf_name(f, n->die_name);
	layout__fprintf_name(f, n->name);
	fprintf(f, "\n");
	for (i = 0; i < n->nr_members; i++) {
		const struct dprof_layout_member *m = &n->members[i];

		fprintf(f, "m %" PRIu64 " %" PRIu64 " %d %" PRIx64 " %ld ", m->start, m->end,
			m->bitfield, m->type_key, layout__name_len(m->name));
		layout__fprintf_name(f, m->name);
		fprintf(f, "\n");
	}
	if (n->elem_key || n->nr_dims) {
		fprintf(f, "a %" PRIx64 " %d", n->elem_key, n->nr_dims);
		for (d = 0; d < n->nr_dims; d++)
			fprintf(f, " %" PRIu64, n->dims[d]);
		fprintf(f, "\n");
	}
}

/* a name that a line can hold: counted, but no newline */
static bool layout__name_ok(const char *name)
{
	return !name || (strlen(name) <= LAYOUT_NAME_MAX && !strchr(name, '\n'));
}

static bool layout__ok(const struct dprof_layout *n)
{
	u32 i;

	if (!layout__name_ok(n->die_name) || !layout__name_ok(n->name))
		return false;
	for (i = 0; i < n->nr_members; i++) {
		if (!layout__name_ok(n->members[i].name))
			return false;
	}
	return true;
}

/* Is @key's layout there and to be written? */
static bool layout__writable(const struct dprof_layouts *l, u64 key)
{
	const struct dprof_layout *n = dprof_layouts__find(l, key);

	return !key || (n && !n->unwritten);
}

/*
 * Leave out the layouts a line cannot hold and those that name a type not
 * described (a walk that stopped halfway: out of memory, a type of more
 * than LAYOUT_MAX_MEMBERS), then those that name them, until none is
 * left to leave out: the file names no type it does not describe.
 */
static size_t layouts__mark_unwritten(struct dprof_layouts *l)
{
	struct hashmap_entry *cur;
	size_t bkt, nr = 0;
	bool again = true;
	u32 i;

	hashmap__for_each_entry(l->nodes, cur, bkt) {
		struct dprof_layout *n = cur->pvalue;

		n->unwritten = !layout__ok(n);
		nr += n->unwritten;
	}
	while (again) {
		again = false;
		hashmap__for_each_entry(l->nodes, cur, bkt) {
			struct dprof_layout *n = cur->pvalue;
			bool ok = !n->unwritten && layout__writable(l, n->real_key) &&
				  layout__writable(l, n->elem_key);

			for (i = 0; ok && i < n->nr_members; i++)
				ok = layout__writable(l, n->members[i].type_key);
			if (!ok && !n->unwritten) {
				n->unwritten = true;
				nr++;
				again = true;
			}
		}
	}
	return nr;
}

/**
 * dprof_layouts__save - keep the layouts for the next report
 * @l: the layouts
 * @tc: where reports keep them
 * @bid: the build id of the DWARF's file
 *
 * Written only when layouts were added since they were read, without
 * those that name a type not described (see layouts__mark_unwritten()).
 *
 * Return: 0, or a negative errno.
 */
int dprof_layouts__save(struct dprof_layouts *l, const struct dprof_typecache *tc,
			const struct build_id *bid)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	struct hashmap_entry *cur;
	size_t bkt, left_out;
	FILE *f;

	if (!l || !tc || !l->learned)
		return 0;
	left_out = layouts__mark_unwritten(l);
	if (left_out)
		pr_debug("dprof: %zu type layouts not kept: incomplete\n", left_out);
	if (dprof_typecache__path(tc, bid, "layout", path, sizeof(path)))
		return -ENAMETOOLONG;
	f = dprof_typecache__create(tc, path, "layout", tmp, sizeof(tmp));
	if (!f)
		return -EIO;
	hashmap__for_each_entry(l->nodes, cur, bkt) {
		if (!((struct dprof_layout *)cur->pvalue)->unwritten)
			layout__fprintf(f, cur->pvalue);
	}
	if (dprof_typecache__commit(f, tmp, path))
		return -EIO;
	l->learned = false;
	pr_debug("dprof: %zu type layouts kept in %s\n", dprof_layouts__nr(l) - left_out, path);
	return 0;
}

void dprof_layout__type(const struct dprof_layout *n, struct dprof_type *t)
{
	t->layout = n;
	t->src = DPROF_TYPE_LAYOUT;
}

/* The accessors of struct dprof_type_ops over kept layouts. */

static int lay_type_resolve(const struct dprof_type *t, struct dprof_type *real)
{
	const struct dprof_layout *n = t->layout;

	if (n->kind < 0 || !n->real)
		return -ENOENT;
	dprof_layout__type(n->real, real);
	return n->kind;
}

static int lay_type_size(const struct dprof_type *t, u64 *size)
{
	if (!t->layout->has_size)
		return -ENOENT;
	*size = t->layout->size;
	return 0;
}

static int lay_type_name(const struct dprof_type *t, struct strbuf *sb)
{
	if (!t->layout->name)
		return -ENOENT;
	return strbuf_addstr(sb, t->layout->name);
}

static int lay_type_members(const struct dprof_type *t, dprof_member_cb cb, void *arg)
{
	const struct dprof_layout *n = t->layout;
	struct dprof_member m;
	u32 i;
	int ret;

	for (i = 0; i < n->nr_members; i++) {
		const struct dprof_layout_member *lm = &n->members[i];

		m.name = lm->name;
		m.start = lm->start;
		m.end = lm->end;
		m.bitfield = lm->bitfield;
		dprof_layout__type(lm->type, &m.type);
		ret = cb(&m, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static int lay_type_array(const struct dprof_type *t, struct dprof_type *elem,
			  u64 *dims, int max_dims)
{
	const struct dprof_layout *n = t->layout;
	int i, nr = min(n->nr_dims, max_dims);

	if (!n->elem)
		return 0;
	dprof_layout__type(n->elem, elem);
	for (i = 0; i < nr; i++)
		dims[i] = n->dims[i];
	return nr;
}

const struct dprof_type_ops dprof_layout_type_ops = {
	.resolve	= lay_type_resolve,
	.size		= lay_type_size,
	.name		= lay_type_name,
	.members	= lay_type_members,
	.array		= lay_type_array,
};
