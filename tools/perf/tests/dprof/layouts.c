// SPDX-License-Identifier: GPL-2.0
/*
 * Type layouts kept between reports (util/dprof/layouts.c): what a report
 * writes is what the next one reads, types named through the layouts as
 * through DWARF, a layout that names a type not described is left out
 * (and what names it), and a damaged file is not used.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/err.h>

#include "tests/tests.h"
#include "util/build-id.h"
#include "util/strbuf.h"
#include "util/dprof/layouts.h"
#include "util/dprof/typecache.h"
#include "util/dprof/types.h"
#include "dprof-tests.h"

/* DWARF tags, as the file keeps them */
#define TAG_ARRAY	0x01
#define TAG_STRUCT	0x13
#define TAG_TYPEDEF	0x16
#define TAG_BASE	0x24

static struct dprof_layout *lay_add(struct dprof_layouts *l, u64 key, int tag,
				    const char *die_name, const char *name, u64 size,
				    int kind, u64 real)
{
	struct dprof_layout *n = dprof_layouts__add(l, key);

	if (!n || dprof_layout__set_names(n, die_name, name))
		return NULL;
	n->tag = tag;
	n->size = size;
	n->has_size = true;
	n->kind = kind;
	n->real_key = real;
	return n;
}

/*
 *	0x10 int; 0x20 struct pair { int a; int b; }; 0x30 int[2];
 *	0x60 struct ns::Tpl<int, long> (a name with blanks), no members;
 *	0x40 struct bad { <type 0x99, not described> x; };
 *	0x50 typedef struct bad bad_t
 */
static int lay_build(struct dprof_layouts *l)
{
	static const u64 two = 2;
	struct dprof_layout *n;

	if (!lay_add(l, 0x10, TAG_BASE, "int", "int", 4, DPROF_TYPE_KIND_OTHER, 0x10))
		return -1;
	n = lay_add(l, 0x20, TAG_STRUCT, "pair", "struct pair", 8, DPROF_TYPE_KIND_STRUCT, 0x20);
	if (!n || dprof_layout__add_member(n, "a", 0, 4, false, 0x10) ||
	    dprof_layout__add_member(n, "b", 4, 8, false, 0x10))
		return -1;
	n = lay_add(l, 0x30, TAG_ARRAY, NULL, "int[2]", 8, DPROF_TYPE_KIND_ARRAY, 0x30);
	if (!n || dprof_layout__set_dims(n, &two, 1))
		return -1;
	n->elem_key = 0x10;
	if (!lay_add(l, 0x60, TAG_STRUCT, "Tpl<int, long>", "struct ns::Tpl<int, long>", 1,
		     DPROF_TYPE_KIND_STRUCT, 0x60))
		return -1;
	n = lay_add(l, 0x40, TAG_STRUCT, "bad", "struct bad", 8, DPROF_TYPE_KIND_STRUCT, 0x40);
	if (!n || dprof_layout__add_member(n, "x", 0, 8, false, 0x99))
		return -1;
	if (!lay_add(l, 0x50, TAG_TYPEDEF, "bad_t", "bad_t", 8, DPROF_TYPE_KIND_STRUCT, 0x40))
		return -1;
	return 0;
}

static const char *lay_member(const struct dprof_layouts *l, u64 key, u64 off,
			      struct strbuf *sb)
{
	struct dprof_type t;

	strbuf_setlen(sb, 0);
	dprof_layout__type(dprof_layouts__find(l, key), &t);
	if (dprof_type__member(&t, off, sb))
		return "(error)";
	return sb->buf ?: "";
}

static int lay_write(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fwrite(text, 1, len, f);
	return fclose(f) ? -1 : 0;
}

int test__dprof_layouts(struct test_suite *test __maybe_unused, int subtest __maybe_unused)
{
	static const u8 raw_bid[20] = { 0xd9, 0x0f, 0x1a, 0x70 };
	char dir[] = "/tmp/__perf_test.dprof_layouts.XXXXXX", path[PATH_MAX];
	struct dprof_layouts *l = NULL, *r = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct dprof_typecache *tc;
	struct build_id bid;
	struct dprof_type t;
	char *text = NULL, *pos;
	size_t len = 0;
	FILE *f;
	u64 size;
	int ret = TEST_FAIL;

	build_id__init(&bid, raw_bid, sizeof(raw_bid));
	if (!mkdtemp(dir))
		return TEST_FAIL;
	tc = dprof_typecache__new(dir);
	if (!tc) {
		rmdir(dir);
		return TEST_SKIP;	/* perf has no build id */
	}
	l = dprof_layouts__new();
	r = dprof_layouts__new();
	if (!l || !r || lay_build(l) || strbuf_init(&sb, 64))
		goto out;
	TEST_ASSERT_VAL("nothing to read yet", dprof_layouts__read(r, tc, &bid) == -ENOENT);
	TEST_ASSERT_VAL("save", !dprof_layouts__save(l, tc, &bid));
	TEST_ASSERT_VAL("read back", !dprof_layouts__read(r, tc, &bid));
	/* the two that name an undescribed type are left out, the rest kept */
	TEST_ASSERT_EQUAL("layouts read", (int)dprof_layouts__nr(r), 4);
	TEST_ASSERT_VAL("dangling left out", !dprof_layouts__find(r, 0x40));
	TEST_ASSERT_VAL("what names it left out", !dprof_layouts__find(r, 0x50));

	/* named as the types.c walks name a DWARF type */
	dprof_layout__type(dprof_layouts__find(r, 0x20), &t);
	TEST_ASSERT_VAL("struct name", !dprof_type__name_str(&t, &sb) &&
			!strcmp(sb.buf, "struct pair"));
	TEST_ASSERT_VAL("struct size", !dprof_type__sizeof(&t, &size) && size == 8);
	TEST_ASSERT_VAL("member b", !strcmp(lay_member(r, 0x20, 5, &sb), "b"));
	TEST_ASSERT_VAL("member a", !strcmp(lay_member(r, 0x20, 0, &sb), "a"));
	TEST_ASSERT_VAL("array element", !strcmp(lay_member(r, 0x30, 4, &sb), "[1]"));
	strbuf_setlen(&sb, 0);
	dprof_layout__type(dprof_layouts__find(r, 0x60), &t);
	TEST_ASSERT_VAL("a name with blanks", !dprof_type__name_str(&t, &sb) &&
			!strcmp(sb.buf, "struct ns::Tpl<int, long>"));
	TEST_ASSERT_VAL("its DIE's name", !strcmp(dprof_layouts__find(r, 0x60)->die_name,
						  "Tpl<int, long>"));

	/* a file cut in a line, then one naming an undescribed type: not used */
	if (dprof_typecache__path(tc, &bid, "layout", path, sizeof(path)))
		goto out;
	f = fopen(path, "r");
	if (!f || getdelim(&text, &len, '\0', f) <= 0) {
		if (f)
			fclose(f);
		goto out;
	}
	fclose(f);
	len = strlen(text);
	TEST_ASSERT_VAL("cut", !lay_write(path, text, len - 3));
	dprof_layouts__delete(r);
	r = dprof_layouts__new();
	TEST_ASSERT_VAL("a cut file is not used", r && dprof_layouts__read(r, tc, &bid) == -EINVAL);
	TEST_ASSERT_EQUAL("nothing kept of it", (int)dprof_layouts__nr(r), 0);
	pos = strstr(text, "\nm ");
	if (!pos)
		goto out;
	/* the first member's type made 0x77, and the file ends there */
	snprintf(pos + 1, len - (pos - text), "m 0 4 0 77 1 a\n");
	TEST_ASSERT_VAL("undescribed", !lay_write(path, text, strlen(text)));
	TEST_ASSERT_VAL("a file naming an undescribed type is not used",
			dprof_layouts__read(r, tc, &bid) == -EINVAL &&
			!dprof_layouts__nr(r));
	ret = TEST_OK;
out:
	free(text);
	strbuf_release(&sb);
	dprof_layouts__delete(l);
	dprof_layouts__delete(r);
	if (!dprof_typecache__path(tc, &bid, "layout", path, sizeof(path)))
		unlink(path);
	dprof_typecache__put(tc);
	rmdir(dir);
	return ret;
}
