// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include "debug.h"
#include "tests/tests.h"
#include "util/dprof/addrset.h"
#include "dprof-tests.h"

struct addrset_test {
	struct dprof_addrset	as;
	int			released_freed;
	int			released_other;
};

static void addrset_test__release(struct dprof_addrset *as,
				  struct dprof_obj *obj __maybe_unused,
				  bool freed)
{
	struct addrset_test *t = container_of(as, struct addrset_test, as);

	if (freed)
		t->released_freed++;
	else
		t->released_other++;
}

/*
 * The last page of the address space is a page like another, and many
 * pages make the table of pages grow: every object is found again.
 */
static int addrset_test__pages(void)
{
	enum { PAGES = 300 };
	struct addrset_test t = { };
	struct dprof_obj *top, *objs[PAGES];
	u64 i;

	dprof_addrset__init(&t.as, addrset_test__release);
	top = dprof_addrset__alloc(&t.as, 0xfffffffffffff000ULL, 0x10, 1);
	TEST_ASSERT_VAL("top", top);
	for (i = 0; i < PAGES; i++) {
		objs[i] = dprof_addrset__alloc(&t.as, 0xffff888000000000ULL + i * 0x1040,
					       0x40, i);
		TEST_ASSERT_VAL("alloc", objs[i]);
	}
	TEST_ASSERT_VAL("top found", dprof_addrset__find(&t.as, 0xfffffffffffff00fULL) == top);
	TEST_ASSERT_VAL("past top", !dprof_addrset__find(&t.as, 0xfffffffffffff010ULL));
	for (i = 0; i < PAGES; i++) {
		TEST_ASSERT_VAL("found", dprof_addrset__find(&t.as, objs[i]->base + 0x3f) ==
			       objs[i]);
	}
	TEST_ASSERT_EQUAL("top freed", dprof_addrset__free(&t.as, 0xfffffffffffff000ULL), 0);
	TEST_ASSERT_EQUAL("live", (int)t.as.nr_live, PAGES);
	dprof_addrset__exit(&t.as);
	TEST_ASSERT_EQUAL("released", t.released_freed + t.released_other, PAGES + 1);
	return TEST_OK;
}

int test__dprof_addrset(struct test_suite *test __maybe_unused,
			int subtest __maybe_unused)
{
	struct addrset_test t = { };
	struct dprof_addrset *as = &t.as;
	struct dprof_obj *a, *b;
	u64 allocs;
	int err;

	dprof_addrset__init(as, addrset_test__release);

	a = dprof_addrset__alloc(as, 0x1000, 0x100, 10);
	b = dprof_addrset__alloc(as, 0x1100, 0x40, 11);
	TEST_ASSERT_VAL("alloc", a && b);
	TEST_ASSERT_EQUAL("alloc", (int)as->nr_live, 2);

	/* interior, first and last byte, one past the end, before */
	TEST_ASSERT_VAL("base", dprof_addrset__find(as, 0x1000) == a);
	TEST_ASSERT_VAL("inside", dprof_addrset__find(as, 0x10ff) == a);
	TEST_ASSERT_VAL("adjacent", dprof_addrset__find(as, 0x1100) == b);
	TEST_ASSERT_VAL("last", dprof_addrset__find(as, 0x113f) == b);
	TEST_ASSERT_VAL("past end", !dprof_addrset__find(as, 0x1140));
	TEST_ASSERT_VAL("before", !dprof_addrset__find(as, 0xfff));

	/* free, then the same address allocated again (slab reuse) */
	err = dprof_addrset__free(as, 0x1000);
	TEST_ASSERT_EQUAL("free", err, 0);
	TEST_ASSERT_VAL("freed gone", !dprof_addrset__find(as, 0x1010));
	TEST_ASSERT_EQUAL("release on free", (int)t.released_freed, 1);
	a = dprof_addrset__alloc(as, 0x1000, 0x80, 20);
	TEST_ASSERT_VAL("realloc", a);
	TEST_ASSERT_EQUAL("realloc", (int)a->alloc_time, 20);
	TEST_ASSERT_VAL("realloc size", !dprof_addrset__find(as, 0x1090));

	/* objects alive before the window: their free is unknown */
	err = dprof_addrset__free(as, 0x5000);
	TEST_ASSERT_EQUAL("unknown free", err, -ENOENT);
	TEST_ASSERT_EQUAL("unknown free counted", (int)as->nr_unknown_free, 1);
	/* free of an interior pointer is not a free of the object */
	err = dprof_addrset__free(as, 0x1008);
	TEST_ASSERT_EQUAL("interior free", err, -ENOENT);
	TEST_ASSERT_VAL("interior kept", dprof_addrset__find(as, 0x1008) == a);

	/* a lost free: an allocation overlapping two live objects evicts both */
	a->nr_seen = 1;	/* a sample resolved to it, then its free went unseen */
	a = dprof_addrset__alloc(as, 0x1040, 0x100, 30);
	TEST_ASSERT_EQUAL("evicted", (int)as->nr_evicted, 2);
	TEST_ASSERT_EQUAL("evicted sampled", (int)as->nr_evicted_seen, 1);
	TEST_ASSERT_EQUAL("evicted", (int)t.released_other, 2);
	TEST_ASSERT_VAL("new covers", dprof_addrset__find(as, 0x1120) == a);
	TEST_ASSERT_VAL("old gone", !dprof_addrset__find(as, 0x1000));
	TEST_ASSERT_EQUAL("live", (int)as->nr_live, 1);

	/* lost frees found by either neighbour alone, or at the same base */
	b = dprof_addrset__alloc(as, 0x2000, 0x40, 31);
	TEST_ASSERT_VAL("after", b && dprof_addrset__alloc(as, 0x1fe0, 0x40, 32));
	TEST_ASSERT_VAL("successor evicted", !dprof_addrset__find(as, 0x2030));
	b = dprof_addrset__alloc(as, 0x2010, 0x10, 33);
	TEST_ASSERT_VAL("predecessor evicted", b && !dprof_addrset__find(as, 0x1fe0));
	b = dprof_addrset__alloc(as, 0x2010, 0x8, 34);
	TEST_ASSERT_VAL("same base", b && !dprof_addrset__find(as, 0x2018));
	TEST_ASSERT_EQUAL("evicted", (int)as->nr_evicted, 5);
	TEST_ASSERT_EQUAL("evicted sampled", (int)as->nr_evicted_seen, 1);
	TEST_ASSERT_EQUAL("live", (int)as->nr_live, 2);

	/* a range's stale objects end and none starts (a mark, prune.h) */
	b->nr_seen = 1;
	allocs = as->nr_allocs;
	dprof_addrset__evict(as, 0x2000, 0x40);
	TEST_ASSERT_VAL("evicted by a range", !dprof_addrset__find(as, 0x2010));
	TEST_ASSERT_VAL("none added", !dprof_addrset__find(as, 0x2000));
	TEST_ASSERT_VAL("outside kept", dprof_addrset__find(as, 0x1100) == a);
	TEST_ASSERT_EQUAL("evicted", (int)as->nr_evicted, 6);
	TEST_ASSERT_EQUAL("evicted sampled", (int)as->nr_evicted_seen, 2);
	TEST_ASSERT_EQUAL("evicted", (int)t.released_other, 6);
	TEST_ASSERT_EQUAL("no allocation", (int)(as->nr_allocs - allocs), 0);
	dprof_addrset__evict(as, 0x3000, 0);
	TEST_ASSERT_EQUAL("nothing there", (int)as->nr_evicted, 6);
	TEST_ASSERT_EQUAL("live", (int)as->nr_live, 1);

	dprof_addrset__exit(as);
	TEST_ASSERT_EQUAL("teardown", (int)as->nr_live, 0);
	TEST_ASSERT_EQUAL("teardown", (int)t.released_other, 7);
	return addrset_test__pages();
}

/* a freed object moves to a set of dead objects, evicting what it covers */
static int addrset_test__move(void)
{
	struct addrset_test t = { }, d = { };
	struct dprof_obj *a, *old;
	int cls = 7;

	dprof_addrset__init(&t.as, addrset_test__release);
	dprof_addrset__init(&d.as, addrset_test__release);
	old = dprof_addrset__alloc(&d.as, 0x3000, 0x20, 1);
	a = dprof_addrset__alloc(&t.as, 0x3000, 0x40, 2);
	TEST_ASSERT_VAL("alloc", a && old);
	a->priv = &cls;
	a->cpu = 1;
	a->nr_seen = 2;
	a->bounced = true;
	a->earlier = true;
	a->free_site = 0xdead;

	TEST_ASSERT_VAL("moved", dprof_addrset__move(&t.as, a, &d.as, 5) == a);
	TEST_ASSERT_VAL("left", !dprof_addrset__find(&t.as, 0x3010));
	TEST_ASSERT_EQUAL("freed", (int)t.as.nr_frees, 1);
	TEST_ASSERT_EQUAL("released as freed", t.released_freed, 1);
	TEST_ASSERT_EQUAL("live", (int)t.as.nr_live, 0);
	TEST_ASSERT_VAL("arrived", dprof_addrset__find(&d.as, 0x3030) == a);
	TEST_ASSERT_EQUAL("dead evicted", (int)d.as.nr_evicted, 1);
	TEST_ASSERT_EQUAL("dead live", (int)d.as.nr_live, 1);
	TEST_ASSERT_VAL("kept", a->priv == &cls && a->base == 0x3000 && a->size == 0x40);
	TEST_ASSERT_VAL("new life", a->alloc_time == 5 && !a->cpu);
	TEST_ASSERT_VAL("new life", !a->nr_seen && !a->bounced && !a->earlier);
	TEST_ASSERT_VAL("new life", !a->free_site);

	/* the same range dead before: the moved object takes its place */
	old = dprof_addrset__alloc(&d.as, 0x5000, 0x10, 6);
	a = dprof_addrset__alloc(&t.as, 0x5000, 0x10, 7);
	TEST_ASSERT_VAL("alloc", a && old);
	TEST_ASSERT_VAL("moved", dprof_addrset__move(&t.as, a, &d.as, 8) == a);
	TEST_ASSERT_VAL("replaced", dprof_addrset__find(&d.as, 0x500f) == a);
	TEST_ASSERT_VAL("neighbour", dprof_addrset__find(&d.as, 0x3000));
	TEST_ASSERT_EQUAL("dead evicted", (int)d.as.nr_evicted, 2);
	TEST_ASSERT_EQUAL("released", d.released_other, 2);
	TEST_ASSERT_EQUAL("dead live", (int)d.as.nr_live, 2);
	dprof_addrset__exit(&t.as);
	dprof_addrset__exit(&d.as);
	return TEST_OK;
}

/*
 * Pseudo-random allocations and frees against a map of the owners of
 * @space units of @unit bytes each: with units of a few hundred bytes,
 * objects cross pages and some are larger than one.
 */
static int addrset_test__model(unsigned int unit)
{
	enum { SPACE = 512, ROUNDS = 20000 };
	struct addrset_test t = { };
	struct dprof_obj *owner[SPACE] = { };
	unsigned int seed = unit, i, addr, size, live;
	u64 base = 0x10000000ULL - 16 * unit;	/* not at a page */
	u64 at, end;

	dprof_addrset__init(&t.as, addrset_test__release);
	for (i = 0; i < ROUNDS; i++) {
		seed = seed * 1103515245 + 12345;
		addr = (seed >> 8) % SPACE;
		size = 1 + (seed >> 20) % 24;
		if (addr + size > SPACE)
			size = SPACE - addr;
		if (seed & 1) {
			struct dprof_obj *obj;
			unsigned int a;

			/* whatever it overlaps is gone, whole */
			at = base + addr * unit;
			end = at + size * unit;
			for (a = 0; a < SPACE; a++) {
				if (owner[a] && owner[a]->base + owner[a]->size > at &&
				    owner[a]->base < end)
					owner[a] = NULL;
			}
			obj = dprof_addrset__alloc(&t.as, at, size * unit, i);
			TEST_ASSERT_VAL("alloc", obj);
			for (a = addr; a < addr + size; a++)
				owner[a] = obj;
		} else if (owner[addr] && owner[addr]->base == base + addr * unit) {
			struct dprof_obj *obj = owner[addr];
			unsigned int a;

			for (a = addr; a < addr + obj->size / unit; a++)
				owner[a] = NULL;
			at = base + addr * unit;
			TEST_ASSERT_EQUAL("free", dprof_addrset__free(&t.as, at), 0);
		} else {
			TEST_ASSERT_EQUAL("no free", dprof_addrset__free(&t.as, base + addr * unit),
					  -ENOENT);
		}
		for (addr = 0, live = 0; addr < SPACE; addr++) {
			TEST_ASSERT_VAL("find", dprof_addrset__find(&t.as, base + addr * unit) ==
				       owner[addr]);
			end = base + (addr + 1) * unit - 1;
			TEST_ASSERT_VAL("find end", dprof_addrset__find(&t.as, end) == owner[addr]);
			live += owner[addr] && owner[addr]->base == base + addr * unit;
		}
		TEST_ASSERT_VAL("before", !dprof_addrset__find(&t.as, base - 1));
		TEST_ASSERT_VAL("after", !dprof_addrset__find(&t.as, base + SPACE * unit));
		TEST_ASSERT_EQUAL("live", (int)t.as.nr_live, (int)live);
	}
	dprof_addrset__exit(&t.as);
	TEST_ASSERT_EQUAL("teardown", (int)t.as.nr_live, 0);
	TEST_ASSERT_EQUAL("released", t.released_freed + t.released_other,
			  (int)(t.as.nr_allocs));
	return TEST_OK;
}

int test__dprof_addrset_move(struct test_suite *test __maybe_unused,
			     int subtest __maybe_unused)
{
	int err = addrset_test__move();

	/* within a page; objects over pages and larger than one */
	if (!err)
		err = addrset_test__model(1);
	if (!err)
		err = addrset_test__model(200);
	return err ?: addrset_test__model(1000);
}
