// SPDX-License-Identifier: GPL-2.0
/*
 * Object histories -> path traces -> data flow graph, on synthesized
 * histories whose paths are known: a transmit path where the object is
 * handed from enq_pkt on one CPU to deq_pkt on another, competing with a
 * receive path that stays on one CPU, at about 70/30.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "debug.h"
#include "tests/tests.h"
#include "util/dprof/addrset.h"
#include "util/dprof/histories.h"
#include "util/dprof/pathtrace.h"
#include "util/dprof/flow.h"
#include "util/dprof/profile.h"
#include "util/hashmap.h"
#include "ui/stdio/dprof-flow.h"
#include "dprof-tests.h"

enum {
	F_ALLOC	= 0x1000,	/* alloc_pkt: the allocation call site */
	F_FILL	= 0x2000,
	F_ENQ	= 0x3000,
	F_DEQ	= 0x4000,
	F_XMIT	= 0x5000,
	F_RECV	= 0x6000,
	F_FREE	= 0x7000,	/* free_pkt: the free call site */
};

static const struct {
	u64		key;
	const char	*name;
} flow_test_funcs[] = {
	{ F_ALLOC, "alloc_pkt" }, { F_FILL, "fill_pkt" }, { F_ENQ, "enq_pkt" },
	{ F_DEQ, "deq_pkt" }, { F_XMIT, "xmit_pkt" }, { F_RECV, "recv_pkt" },
	{ F_FREE, "free_pkt" },
};

static u64 flow_test__func_of(void *ctx __maybe_unused, u64 ip)
{
	return ip & ~0xfffULL;
}

static const char *flow_test__name(void *ctx __maybe_unused, u64 key,
				   enum dprof_step_kind kind __maybe_unused)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(flow_test_funcs); i++) {
		if (flow_test_funcs[i].key == key)
			return flow_test_funcs[i].name;
	}
	return NULL;
}

static void flow_test__samples_of(void *ctx __maybe_unused,
				  void *type __maybe_unused,
				  u64 offset __maybe_unused, u64 ip,
				  struct dprof_stats *st)
{
	st->samples++;
	st->level_known++;
	if ((ip & ~0xfffULL) == F_DEQ) {	/* the hand-off misses */
		st->misses++;
		st->level[DPROF_MEM_LVL_PEER]++;
		st->lat_sum += 200;
	} else {
		st->level[DPROF_MEM_LVL_L1]++;
		st->lat_sum += 3;
	}
	st->lat_n++;
}

#define NR_OBJS		200
#define OBJ_SIZE	256

/* An object of the address set, and its allocation call site. */
struct flow_test_obj {
	struct dprof_obj	obj;
	u64			site;
};

static void fl_alloc(struct flow_test_obj *o, void *type, u64 base, u64 time,
		     u64 site)
{
	memset(o, 0, sizeof(*o));
	o->obj.base = base;
	o->obj.size = OBJ_SIZE;
	o->obj.alloc_time = time;
	o->obj.priv = type;
	o->site = site;
}

/*
 * A watch hit on 8 bytes at @addr of @o (NULL: no live object) through
 * the histories' sink hook, as the report feeds it.
 */
static int fl_hit(struct dprof_histories *h, const struct flow_test_obj *o,
		  u64 addr, u64 ip, u32 cpu, u64 time)
{
	struct dprof_hit hit = {
		.obj = o ? &o->obj : NULL, .site = o ? o->site : 0,
		.addr = addr, .len = 8, .ip = ip, .access_ip = ip,
		.write = -1, .cpu = cpu, .time = time,
	};

	return h->sink.hit(&h->sink, &hit);
}

static int fl_free(struct dprof_histories *h, struct flow_test_obj *o,
		   u64 time, u32 cpu, u64 site)
{
	o->obj.free_site = site;
	return h->sink.free(&h->sink, &o->obj, time, cpu);
}

/*
 * Two objects live at a time, their hits interleaved, so that placing
 * hits needs the lifetimes.  Object i goes the transmit way when the LCG
 * says so (~70%).
 */
static int flow_test__feed(struct dprof_histories *h, void *type, int *nr_tx)
{
	struct flow_test_obj o[2], live;
	u32 seed = 12345;
	int i, err = 0;

	*nr_tx = 0;
	/* a hit before any allocation: no lifetime to place it in */
	fl_hit(h, NULL, 0x10000, F_FILL + 0x10, 0, 1);
	for (i = 0; i < NR_OBJS && !err; i += 2) {
		u64 t = 1000000ULL * (i + 1);
		int j;

		for (j = 0; j < 2; j++) {
			u64 base = 0x10000 + j * 0x1000;

			fl_alloc(&o[j], type, base, t + j, F_ALLOC + 0x40);
			err |= fl_hit(h, &o[j], base, F_FILL + 0x10, 0, t + 100 + j);
			err |= fl_hit(h, &o[j], base + 8, F_FILL + 0x20, 0, t + 110 + j);
		}
		for (j = 0; j < 2; j++) {
			u64 base = 0x10000 + j * 0x1000;

			seed = seed * 1103515245 + 12345;
			if ((seed >> 16) % 100 < 70) {
				(*nr_tx)++;
				err |= fl_hit(h, &o[j], base + 0x18, F_ENQ + 8, 0, t + 200 + j);
				err |= fl_hit(h, &o[j], base + 0x18, F_DEQ + 4, 1, t + 900 + j);
				err |= fl_hit(h, &o[j], base + 0x20, F_XMIT + 4, 1, t + 1000 + j);
				err |= fl_free(h, &o[j], t + 1200 + j, 1, F_FREE + 4);
			} else {
				err |= fl_hit(h, &o[j], base + 0x30, F_RECV, 0, t + 300 + j);
				err |= fl_free(h, &o[j], t + 400 + j, 0, F_FREE + 4);
			}
			/* a hit after the free, on no live object: dropped */
			if (i == 0 && j == 0)
				err |= fl_hit(h, NULL, base, F_FILL, 0, t + 5000);
		}
	}
	/* a live object at the end: cut short, not a path */
	fl_alloc(&live, type, 0x90000, 1ULL << 40, F_ALLOC);
	err |= fl_hit(h, &live, 0x90000, F_FILL, 0, (1ULL << 40) + 5);
	dprof_histories__finish(h);
	return err;
}

static bool str_has(const char *s, const char *what)
{
	bool has = strstr(s, what);

	if (!has)
		pr_debug("missing \"%s\"\n", what);
	return has;
}

static int str_count(const char *s, const char *what)
{
	int n = 0;

	while (s && (s = strstr(s, what)) != NULL) {
		n++;
		s += strlen(what);
	}
	return n;
}

static int test__flow_output(struct dprof_flow *f, struct dprof_paths *p,
			     const struct dprof_flow_edge *hand_off,
			     const struct dprof_flow_node *enq)
{
	struct dprof_flow_names names = { .name = flow_test__name, };
	char *buf = NULL, want[128];
	size_t sz = 0;
	FILE *fp;

	fp = open_memstream(&buf, &sz);
	TEST_ASSERT_VAL("memstream", fp);
	dprof_paths__fprintf(p, "struct pkt", &names, fp);
	dprof_flow__fprintf(f, "struct pkt", &names, fp);
	fclose(fp);
	pr_debug("%s", buf);
	TEST_ASSERT_VAL("table 1 rows", str_has(buf, "enq_pkt") &&
			str_has(buf, "alloc_pkt (alloc)") && str_has(buf, "free_pkt (free)"));
	snprintf(want, sizeof(want), "==cpu==> [%u] deq_pkt", hand_off->to->id);
	TEST_ASSERT_VAL("tree: marked hand-off", str_has(buf, want));
	TEST_ASSERT_VAL("tree: lines", str_count(buf, "\n") > 8);
	TEST_ASSERT_EQUAL("tree: one marked edge",
			  str_count(strstr(buf, "\nalloc "), "==cpu==>"), 1);
	TEST_ASSERT_VAL("tree: merged free", str_has(buf, "free_pkt (free)") &&
			str_has(buf, "(merged, see above)"));
	free(buf);

	buf = NULL;
	fp = open_memstream(&buf, &sz);
	TEST_ASSERT_VAL("memstream", fp);
	dprof_flow__fprintf_dot(f, "struct pkt", &names, fp);
	fclose(fp);
	pr_debug("%s", buf);
	TEST_ASSERT_VAL("dot header", !strncmp(buf, "digraph ", 8));
	snprintf(want, sizeof(want),
		 "n%u -> n%u [label=\"%" PRIu64 " cpu change\", penwidth=4, color=red]",
		 enq->id, hand_off->to->id, hand_off->count);
	TEST_ASSERT_VAL("dot: thick red hand-off edge", str_has(buf, want));
	TEST_ASSERT_EQUAL("dot: one thick edge", str_count(buf, "penwidth"), 1);
	TEST_ASSERT_VAL("dot nodes", str_has(buf, "label=\"deq_pkt\\n") &&
			str_has(buf, "label=\"recv_pkt\\n"));
	free(buf);
	return TEST_OK;
}

static int test__paths_and_flow(void)
{
	static const u64 tx[] = { F_ALLOC, F_FILL, F_ENQ, F_DEQ, F_XMIT, F_FREE };
	static const u64 rx[] = { F_ALLOC, F_FILL, F_RECV, F_FREE };
	struct dprof_histories h;
	struct dprof_paths p;
	struct dprof_flow f;
	struct dprof_path **paths = NULL;
	const struct dprof_flow_edge *hand_off = NULL;
	const struct dprof_flow_node *enq = NULL;
	int type, nr_tx, ret = TEST_FAIL, nr_marked = 0;
	size_t nr = 0, i;
	u32 k;

	dprof_histories__init(&h);
	dprof_paths__init(&p, &type);
	p.func_of = flow_test__func_of;
	p.samples_of = flow_test__samples_of;
	memset(&f, 0, sizeof(f));

	if (flow_test__feed(&h, &type, &nr_tx))
		goto out;
	pr_debug("histories %" PRIu64 " hits %" PRIu64 " dropped %" PRIu64 " unfreed %" PRIu64 "\n",
		 h.nr_histories, h.nr_hits, h.nr_dropped, h.nr_unfreed);
	if (h.nr_histories != NR_OBJS + 1 || h.nr_dropped != 2 || h.nr_unfreed != 1)
		goto out;

	if (dprof_paths__build(&p, &h) || p.nr_histories != NR_OBJS ||
	    p.nr_unfreed != 1)
		goto out;
	paths = dprof_paths__sorted(&p, &nr);
	if (!paths || nr != 2) {
		pr_debug("%zu paths, want 2\n", nr);
		goto out;
	}
	/* ~70/30 by construction; the exact split is nr_tx */
	if (paths[0]->count != (u64)nr_tx ||
	    abs((int)(100 * paths[0]->count / NR_OBJS) - 70) > 5) {
		pr_debug("path 1: %" PRIu64 " histories, want %d (~70%%)\n",
			 paths[0]->count, nr_tx);
		goto out;
	}
	if (paths[0]->nr_steps != ARRAY_SIZE(tx) || paths[1]->nr_steps != ARRAY_SIZE(rx))
		goto out;
	for (i = 0; i < ARRAY_SIZE(tx); i++) {
		const struct dprof_path_step *s = &paths[0]->steps[i];

		if (s->key != tx[i] || s->cpu_change != (tx[i] == F_DEQ)) {
			pr_debug("tx step %zu: %#" PRIx64 " cpu change %d\n", i, s->key,
				 s->cpu_change);
			goto out;
		}
	}
	for (i = 0; i < ARRAY_SIZE(rx); i++) {
		if (paths[1]->steps[i].key != rx[i] || paths[1]->steps[i].cpu_change)
			goto out;
	}
	/* the fill step folds two accesses: offsets 0-16, at time 100 (+0/1) */
	if (paths[0]->steps[1].off_lo != 0 || paths[0]->steps[1].off_hi != 16 ||
	    paths[0]->steps[1].nr_acc != 2 * paths[0]->count ||
	    dprof_path_step__avg_time(&paths[0]->steps[3], paths[0]) < 900 ||
	    dprof_path_step__avg_time(&paths[0]->steps[3], paths[0]) > 901 ||
	    paths[0]->steps[3].stats.misses != paths[0]->count)
		goto out;

	if (dprof_flow__build(&f, &p, NULL))
		goto out;
	/* root, alloc, fill, enq, deq, xmit, recv, one free for both */
	if (f.nr_nodes != 8 || f.nr_histories != NR_OBJS) {
		pr_debug("flow: %zu nodes, want 8\n", f.nr_nodes);
		goto out;
	}
	for (i = 0; i < f.nr_nodes; i++) {
		const struct dprof_flow_node *node = f.nodes[i];

		for (k = 0; k < node->nr_out; k++) {
			if (!node->out[k].cpu_change)
				continue;
			nr_marked++;
			hand_off = &node->out[k];
			enq = node;
		}
	}
	if (nr_marked != 1 || enq->key != F_ENQ || hand_off->to->key != F_DEQ ||
	    hand_off->count != (u64)nr_tx) {
		pr_debug("flow: %d cpu-change edges, want 1 enq_pkt -> deq_pkt\n",
			 nr_marked);
		goto out;
	}
	for (i = 0; i < f.nr_nodes; i++) {	/* the free is a merged suffix */
		if (f.nodes[i]->kind == DPROF_STEP_FREE &&
		    (f.nodes[i]->key != F_FREE || f.nodes[i]->nr_in != 2 ||
		     f.nodes[i]->count != NR_OBJS))
			goto out;
	}
	ret = test__flow_output(&f, &p, hand_off, enq);
out:
	free(paths);
	dprof_flow__exit(&f);
	dprof_paths__exit(&p);
	dprof_histories__exit(&h);
	return ret;
}

/*
 * Table 1's hit probability per cache level, from access samples fed
 * through the data profile with known levels: the sites of (offset, ip)
 * that the histories touch get their samples' level shares, a site whose
 * samples name no level (software sampler) gets "-".
 */
static void flow_test__site_samples_of(void *ctx, void *type __maybe_unused,
				       u64 offset, u64 ip, struct dprof_stats *st)
{
	struct dprof_class *cls = ctx;
	struct dprof_site tmp = { .ip = ip, .offset = offset };
	struct dprof_site *site;

	if (hashmap__find(cls->sites, &tmp, &site))
		dprof_stats__add(st, &site->stats);
}

static void flow_test__feed_samples(struct dprof_class *cls, u64 ip, u64 offset,
				    enum dprof_mem_level level, int nr, u64 lat)
{
	struct dprof_access acc = {
		.ip = ip, .addr = 0x30000 + offset, .weight = lat,
		.level = level, .level_known = level != DPROF_MEM_LVL__MAX,
		.miss = level != DPROF_MEM_LVL_L1,
	};

	if (!acc.level_known)
		acc.miss = false;
	while (nr--)
		dprof_class__add(cls, offset, &acc);
}

#define DEQ_LEVELS	"L1 10% L2 10% peer 60% DRAM 20%"

static int test__levels(void)
{
	struct dprof_profile prof;
	struct dprof_class *cls;
	struct dprof_histories h;
	struct dprof_paths p;
	struct dprof_path **paths = NULL;
	struct dprof_flow f;
	struct dprof_flow_names names = { .name = flow_test__name, };
	const struct dprof_path_step *deq;
	struct flow_test_obj o;
	char *buf = NULL, levels[128];
	int type, ret = TEST_FAIL, i, err = 0;
	size_t nr = 0, sz = 0;
	FILE *fp;

	memset(&f, 0, sizeof(f));
	dprof_histories__init(&h);
	dprof_paths__init(&p, &type);
	if (dprof_profile__init(&prof))
		goto out_paths;
	cls = dprof_profile__findnew_class(&prof, DPROF_KIND_SLAB, F_ALLOC, NULL);
	if (!cls)
		goto out;
	/* fill: a software sampler, no level; enq: all L1 */
	flow_test__feed_samples(cls, F_FILL + 0x10, 0, DPROF_MEM_LVL__MAX, 7, 0);
	flow_test__feed_samples(cls, F_ENQ + 8, 0x18, DPROF_MEM_LVL_L1, 20, 4);
	/* deq, the hand-off: L1 10%, L2 10%, peer cache 60%, DRAM 20% */
	flow_test__feed_samples(cls, F_DEQ + 4, 0x18, DPROF_MEM_LVL_L1, 2, 4);
	flow_test__feed_samples(cls, F_DEQ + 4, 0x18, DPROF_MEM_LVL_L2, 2, 14);
	flow_test__feed_samples(cls, F_DEQ + 4, 0x18, DPROF_MEM_LVL_PEER, 12, 100);
	flow_test__feed_samples(cls, F_DEQ + 4, 0x18, DPROF_MEM_LVL_LOCAL_DRAM, 4, 300);
	/* xmit: 999 in L1 and one from L3 */
	flow_test__feed_samples(cls, F_XMIT + 4, 0x20, DPROF_MEM_LVL_L1, 999, 4);
	flow_test__feed_samples(cls, F_XMIT + 4, 0x20, DPROF_MEM_LVL_L3, 1, 40);

	p.func_of = flow_test__func_of;
	p.samples_of = flow_test__site_samples_of;
	p.ctx = cls;
	for (i = 0; i < 10; i++) {
		u64 t = 10000 * (i + 1), base = 0x30000;

		fl_alloc(&o, &type, base, t, F_ALLOC);
		err |= fl_hit(&h, &o, base, F_FILL + 0x10, 0, t + 100);
		err |= fl_hit(&h, &o, base + 0x18, F_ENQ + 8, 0, t + 200);
		err |= fl_hit(&h, &o, base + 0x18, F_DEQ + 4, 1, t + 900);
		err |= fl_hit(&h, &o, base + 0x20, F_XMIT + 4, 1, t + 1000);
		err |= fl_free(&h, &o, t + 1200, 1, F_FREE);
	}
	dprof_histories__finish(&h);
	if (err || dprof_paths__build(&p, &h))
		goto out;
	paths = dprof_paths__sorted(&p, &nr);
	if (!paths || nr != 1 || paths[0]->nr_steps != 6)
		goto out;
	deq = &paths[0]->steps[3];
	/* each of the 10 histories adds the site's 20 samples */
	if (deq->key != F_DEQ || deq->stats.level_known != 200 ||
	    deq->stats.level[DPROF_MEM_LVL_PEER] != 120 ||
	    deq->stats.level[DPROF_MEM_LVL_LOCAL_DRAM] != 40 ||
	    deq->stats.misses != 180 || deq->stats.lat_n != 200) {
		pr_debug("deq step: %" PRIu64 " with a level, %" PRIu64 " peer\n",
			 deq->stats.level_known, deq->stats.level[DPROF_MEM_LVL_PEER]);
		goto out;
	}
	dprof_stats__levels_scnprintf(&deq->stats, levels, sizeof(levels));
	TEST_ASSERT_VAL("deq levels", !strcmp(levels, DEQ_LEVELS));
	dprof_stats__levels_scnprintf(&paths[0]->steps[4].stats, levels, sizeof(levels));
	TEST_ASSERT_VAL("xmit levels", !strcmp(levels, "L1 100% L3 <1%"));
	dprof_stats__levels_scnprintf(&paths[0]->steps[1].stats, levels, sizeof(levels));
	TEST_ASSERT_VAL("fill: no level measured", !strcmp(levels, "-"));
	TEST_ASSERT_EQUAL("fill: samples",
			  (int)paths[0]->steps[1].stats.samples, 70);

	fp = open_memstream(&buf, &sz);
	TEST_ASSERT_VAL("memstream", fp);
	dprof_paths__fprintf(&p, "struct pkt", &names, fp);
	if (!dprof_flow__build(&f, &p, NULL))
		dprof_flow__fprintf(&f, "struct pkt", &names, fp);
	fclose(fp);
	pr_debug("%s", buf);
	/* table 1: deq's row has its latency and levels, fill's has "-" */
	TEST_ASSERT_VAL("table 1: deq row",
			str_has(buf, "  deq_pkt   ") &&
			str_has(buf, " yes   0x18-0x20     121.8  " DEQ_LEVELS "\n"));
	TEST_ASSERT_VAL("table 1: enq row",
			str_has(buf, " no    0x18-0x20       4.0  L1 100%\n"));
	TEST_ASSERT_VAL("table 1: xmit row",
			str_has(buf, " no    0x20-0x28       4.0  L1 100% L3 <1%\n"));
	TEST_ASSERT_VAL("table 1: fill row, nothing measured",
			str_has(buf, "  fill_pkt  ") &&
			str_has(buf, " no       0-0x8          -  -\n"));
	TEST_ASSERT_VAL("tree: deq levels",
			str_has(buf, "deq_pkt  10 (100.0%)  t=     900ns    121.8  " DEQ_LEVELS) &&
			str_has(buf, "==cpu==> [5] deq_pkt  10 (100.0%)"));
	free(buf);
	ret = TEST_OK;
out:
	free(paths);
	dprof_flow__exit(&f);
	dprof_profile__exit(&prof);
out_paths:
	dprof_paths__exit(&p);
	dprof_histories__exit(&h);
	return ret;
}

/* Does the graph @f have a node for function @key? */
static bool flow_test__has(const struct dprof_flow *f, u64 key)
{
	size_t i;

	for (i = 0; i < f->nr_nodes; i++) {
		if (f->nodes[i]->key == key)
			return true;
	}
	return false;
}

/*
 * --fold: three histories go the transmit way, one alone goes through
 * recv_pkt.  The default folds the lone path, and says so; a percentage
 * or a count folds what is under it; the most frequent path always stays.
 */
static int test__fold(void)
{
	struct dprof_flow_names names = { .name = flow_test__name, };
	struct dprof_flow_fold fold = DPROF_FLOW_FOLD_DEFAULT;
	struct dprof_histories h;
	struct dprof_paths p;
	struct dprof_flow f;
	struct flow_test_obj o;
	char *buf = NULL;
	int type, i, err = 0, ret = TEST_FAIL;
	size_t sz = 0;
	FILE *fp;
	bool folded;

	memset(&f, 0, sizeof(f));
	dprof_histories__init(&h);
	dprof_paths__init(&p, &type);
	p.func_of = flow_test__func_of;
	for (i = 0; i < 4; i++) {
		u64 t = 10000 * (i + 1), base = 0x30000;

		fl_alloc(&o, &type, base, t, F_ALLOC);
		err |= fl_hit(&h, &o, base, F_FILL + 0x10, 0, t + 100);
		if (i == 2) {
			err |= fl_hit(&h, &o, base + 0x30, F_RECV, 0, t + 300);
		} else {
			err |= fl_hit(&h, &o, base + 0x18, F_ENQ + 8, 0, t + 200);
			err |= fl_hit(&h, &o, base + 0x18, F_DEQ + 4, 1, t + 900);
		}
		err |= fl_free(&h, &o, t + 1200, 1, F_FREE);
	}
	dprof_histories__finish(&h);
	if (err || dprof_paths__build(&p, &h) || p.nr_paths != 2)
		goto out;

	/* nothing folded: both paths on the graph */
	if (dprof_flow__build(&f, &p, NULL) || f.nr_paths != 2 ||
	    f.nr_folded_paths || !flow_test__has(&f, F_RECV))
		goto out;
	dprof_flow__exit(&f);

	/* the default: the path one history took is folded and counted */
	if (dprof_flow__build(&f, &p, &fold))
		goto out;
	if (f.nr_paths != 1 || f.nr_folded_paths != 1 || f.nr_folded_histories != 1 ||
	    f.nr_histories != 4 || flow_test__has(&f, F_RECV) ||
	    !flow_test__has(&f, F_DEQ) || f.root->count != 3) {
		pr_debug("default fold: %zu paths, %zu folded (%" PRIu64 " histories)\n",
			 f.nr_paths, f.nr_folded_paths, f.nr_folded_histories);
		goto out;
	}
	fp = open_memstream(&buf, &sz);
	if (!fp)
		goto out;
	dprof_flow__fprintf(&f, "struct pkt", &names, fp);
	dprof_flow__fprintf_dot(&f, "struct pkt", &names, fp);
	fclose(fp);
	pr_debug("%s", buf);
	folded = str_has(buf,
			 "# folded 1 rare paths (1 histories, 25.0%): each taken by fewer than 2 histories");
	if (!folded || !str_has(buf, ", 1 rare paths folded (1 histories)") ||
	    str_has(buf, "recv_pkt"))
		goto out;
	dprof_flow__exit(&f);

	/* 30%: the 25% path goes; 100%: the most frequent path stays */
	if (dprof_flow_fold__parse(&fold, "30%") || dprof_flow__build(&f, &p, &fold) ||
	    f.nr_folded_paths != 1 || flow_test__has(&f, F_RECV))
		goto out;
	dprof_flow__exit(&f);
	if (dprof_flow_fold__parse(&fold, "100") || dprof_flow__build(&f, &p, &fold) ||
	    f.nr_paths != 1 || !flow_test__has(&f, F_DEQ))
		goto out;
	dprof_flow__exit(&f);
	/* 0 folds nothing; what does not parse is refused */
	if (dprof_flow_fold__parse(&fold, "0") || dprof_flow__build(&f, &p, &fold) ||
	    f.nr_folded_paths)
		goto out;
	if (!dprof_flow_fold__parse(&fold, "x") || !dprof_flow_fold__parse(&fold, "-1") ||
	    !dprof_flow_fold__parse(&fold, "150%") || !dprof_flow_fold__parse(&fold, "2%x"))
		goto out;
	ret = TEST_OK;
out:
	free(buf);
	dprof_flow__exit(&f);
	dprof_paths__exit(&p);
	dprof_histories__exit(&h);
	return ret;
}

int test__dprof_flow(struct test_suite *test __maybe_unused,
		     int subtest __maybe_unused)
{
	int ret = test__paths_and_flow();

	TEST_ASSERT_EQUAL("histories, paths and flow", ret, TEST_OK);
	ret = test__levels();
	TEST_ASSERT_EQUAL("hit probability per cache level", ret, TEST_OK);
	ret = test__fold();
	TEST_ASSERT_EQUAL("rare paths folded", ret, TEST_OK);
	return TEST_OK;
}
