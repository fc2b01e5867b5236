// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "debug.h"
#include "tests/tests.h"
#include "util/hashmap.h"
#include "util/dprof/profile.h"
#include "dprof-tests.h"

static struct dprof_class *find_row(struct dprof_class **rows, size_t nr,
				    enum dprof_kind kind, const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (rows[i]->kind == kind && rows[i]->name &&
		    !strcmp(rows[i]->name, name))
			return rows[i];
	}
	return NULL;
}

static int add(struct dprof_class *cls, u64 offset, u64 ip, bool write)
{
	struct dprof_access acc = { .ip = ip, .is_write = write };

	return dprof_class__add(cls, offset, &acc) ? 0 : -1;
}

int test__dprof_profile(struct test_suite *test __maybe_unused,
			int subtest __maybe_unused)
{
	struct dprof_class *a, *b, *k1, *k2, *row, **rows;
	struct dprof_profile prof;
	enum dprof_sort sort;
	bool by_site;
	size_t nr = 0;
	int i;

	TEST_ASSERT_VAL("init", !dprof_profile__init(&prof));

	/* two call sites allocating from one cache: one row */
	a = dprof_profile__findnew_class(&prof, DPROF_KIND_SLAB, 0x1000, NULL);
	b = dprof_profile__findnew_class(&prof, DPROF_KIND_SLAB, 0x2000, NULL);
	TEST_ASSERT_VAL("classes", a && b && a != b);
	TEST_ASSERT_VAL("findnew finds",
			dprof_profile__findnew_class(&prof, DPROF_KIND_SLAB, 0x1000, NULL) == a);
	a->name = strdup("filp");
	b->name = strdup("filp");
	a->nr_objects = 3;
	b->nr_objects = 2;
	for (i = 0; i < 5; i++)
		TEST_ASSERT_VAL("add a", !add(a, 0x38, 0xa0, i == 0));
	for (i = 0; i < 4; i++)
		TEST_ASSERT_VAL("add b", !add(b, 0x38, 0xa0, false));
	TEST_ASSERT_VAL("add b2", !add(b, 0x10, 0xb0, true));

	/* kmalloc: same size class, two allocating functions: two rows */
	k1 = dprof_profile__findnew_class(&prof, DPROF_KIND_KMALLOC, 0x3000, NULL);
	k2 = dprof_profile__findnew_class(&prof, DPROF_KIND_KMALLOC, 0x4000, NULL);
	k1->name = strdup("kmalloc-64");
	k2->name = strdup("kmalloc-64");
	k1->site_name = strdup("alloc_pipe_info");
	k2->site_name = strdup("kernfs_fop_open");
	for (i = 0; i < 20; i++)
		TEST_ASSERT_VAL("add k1", !add(k1, 0, 0xc0, false));
	TEST_ASSERT_VAL("add k2", !add(k2, 8, 0xd0, false));

	/* an unnamed slab class stays on its own; a class without samples goes */
	a = dprof_profile__findnew_class(&prof, DPROF_KIND_SLAB, 0x5000, NULL);
	TEST_ASSERT_VAL("add unnamed", !add(a, 0, 0xe0, false));
	dprof_profile__findnew_class(&prof, DPROF_KIND_SLAB, 0x6000, NULL);

	rows = dprof_profile__rows(&prof, &nr);
	TEST_ASSERT_VAL("rows", rows);
	TEST_ASSERT_EQUAL("rows", (int)nr, 4);

	row = find_row(rows, nr, DPROF_KIND_SLAB, "filp");
	TEST_ASSERT_VAL("filp row", row);
	TEST_ASSERT_EQUAL("filp samples", (int)row->stats.samples, 10);
	TEST_ASSERT_EQUAL("filp writes", (int)row->stats.writes, 2);
	TEST_ASSERT_EQUAL("filp objects", (int)row->nr_objects, 5);
	/* the (0x38, 0xa0) site of both classes is one site of the row */
	TEST_ASSERT_EQUAL("filp sites", (int)hashmap__size(row->sites), 2);

	dprof_rows__sort(rows, nr, DPROF_SORT_SAMPLES);
	TEST_ASSERT_EQUAL("sorted first", (int)rows[0]->kind, DPROF_KIND_KMALLOC);
	TEST_ASSERT_VAL("sorted first", !strcmp(rows[0]->site_name, "alloc_pipe_info"));
	TEST_ASSERT_EQUAL("sorted second", (int)rows[1]->stats.samples, 10);
	TEST_ASSERT_EQUAL("sorted last", (int)rows[3]->stats.samples, 1);

	dprof_rows__sort(rows, nr, DPROF_SORT_OBJECTS);
	TEST_ASSERT_EQUAL("by objects", (int)rows[0]->nr_objects, 5);

	TEST_ASSERT_VAL("sort parse", !dprof_sort__parse("misses", &sort, &by_site));
	TEST_ASSERT_EQUAL("sort parse", (int)sort, DPROF_SORT_MISSES);
	TEST_ASSERT_VAL("sort parse by type", !by_site);
	TEST_ASSERT_VAL("sort parse site", !dprof_sort__parse("site,objects", &sort, &by_site));
	TEST_ASSERT_VAL("sort parse site", by_site && sort == DPROF_SORT_OBJECTS);
	TEST_ASSERT_VAL("sort parse type", !dprof_sort__parse("type", &sort, &by_site));
	TEST_ASSERT_VAL("sort parse type", !by_site && sort == DPROF_SORT_SAMPLES);
	TEST_ASSERT_VAL("sort parse bad", dprof_sort__parse("bogus", &sort, &by_site));
	TEST_ASSERT_VAL("sort parse two orders",
			dprof_sort__parse("misses,latency", &sort, &by_site));
	TEST_ASSERT_VAL("sort parse trailing comma", dprof_sort__parse("site,", &sort, &by_site));

	dprof_rows__free(rows, nr);

	/* distinct objects known by base only */
	a = dprof_profile__findnew_class(&prof, DPROF_KIND_TYPED, 0x7000, NULL);
	TEST_ASSERT_VAL("touch", !dprof_class__touch_base(a, 0x100, 64, 0));
	TEST_ASSERT_VAL("touch again", !dprof_class__touch_base(a, 0x100, 64, 0));
	TEST_ASSERT_VAL("touch other cpu", !dprof_class__touch_base(a, 0x100, 64, 1));
	TEST_ASSERT_VAL("touch twice more", !dprof_class__touch_base(a, 0x100, 64, 2));
	TEST_ASSERT_VAL("touch 2nd", !dprof_class__touch_base(a, 0x200, 64, 1));
	TEST_ASSERT_EQUAL("typed objects", (int)a->nr_objects, 2);
	TEST_ASSERT_EQUAL("typed objects", (int)a->ws_bytes, 128);
	TEST_ASSERT_EQUAL("typed bounced", (int)a->nr_bounced, 1);

	dprof_profile__exit(&prof);
	return TEST_OK;
}
