// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof stdio views: miss classification and working set, one row
 * per data type.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "util/color.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/symbol.h"
#include "util/dprof/classify.h"
#include "util/dprof/estimate.h"
#include "util/dprof/profile.h"
#include "util/dprof/report.h"
#include "util/dprof/symname.h"
#include "util/dprof/typeinfo.h"
#include "util/dprof/workingset.h"
#include "dprof.h"

#define DPROF_VIEW_TYPE_WIDTH	28
#define DPROF_VIEW_DESC_WIDTH	24
#define DPROF_HIST_BINS		32
#define DPROF_HIST_BAR		40
#define DPROF_HIST_ROWS		3	/* histograms shown without --type */
#define DPROF_WS_FIRST		4	/* functions named per first-touch line */

/* A column of @width, a long name cut with ".." rather than widening it. */
void dprof__fprint_column(FILE *fp, const char *str, int width)
{
	int len = strlen(str);

	if (len <= width)
		fprintf(fp, " %-*s", width, str);
	else
		fprintf(fp, " %.*s..", width - 2, str);
}

/* Bytes in 8 columns: "  81.0K", "  12.5M", or whole bytes (@unit: a B after). */
void dprof__fprint_size(FILE *fp, double bytes, bool unit)
{
	if (bytes >= 10 << 20)
		fprintf(fp, " %7.1fM", bytes / (1 << 20));
	else if (bytes >= 10 << 10)
		fprintf(fp, " %7.1fK", bytes / (1 << 10));
	else if (unit)
		fprintf(fp, " %7.0fB", bytes);
	else
		fprintf(fp, " %8.0f", bytes);
}

/*
 * Objects estimated and how far their 95% interval reaches, in percent of
 * the estimate, in 15 columns: "    1204 +-12%", "wide" from 100% on; a '?'
 * after the estimate when its samples are too few to say much, no
 * interval when no sampling was involved.
 */
void dprof__fprint_estimate(FILE *fp, const struct dprof_estimate *e)
{
	double reach = e->est > 0 ? 100 * fmax(e->hi - e->est, e->est - e->lo) / e->est : 0;
	char iv[16];

	if (e->exact)
		iv[0] = '\0';
	else if (reach < 99.5)
		scnprintf(iv, sizeof(iv), "+-%.0f%%", reach);
	else
		scnprintf(iv, sizeof(iv), "wide");
	fprintf(fp, " %8.0f%c%-5s", e->est, e->few ? '?' : ' ', iv);
}

/*
 * The 95% interval of the share @k of @n, as +- points: 5 columns.
 * Wilson's, widened to the batch means' over the time slices @row of
 * @all where those are wider (see dprof_share_interval()).
 */
void dprof__fprint_share_error(FILE *fp, u64 k, u64 n, const struct dprof_slices *row,
			       const struct dprof_slices *all)
{
	double lo, hi, p = n ? (double)k / n : 0, h;

	dprof_share_interval(k, n, row, all, false, &lo, &hi);
	h = 100 * fmax(p - lo, hi - p);
	fprintf(fp, h < 10 ? " %5.2f" : " %5.1f", h);
}

/* The kernel function of @ip, or NULL. */
static const char *dprof_view__func_name(const struct dprof_view *v, u64 ip)
{
	struct symbol *sym;
	struct map *map = NULL;
	const char *name;

	if (!v->machine)
		return NULL;
	/* the kernel map stays, with its symbols, while the machine does */
	sym = machine__find_kernel_symbol(v->machine, ip, &map);
	name = sym ? dprof_symname(map__dso(map), sym->name) : NULL;
	map__put(map);
	return name;
}

/* The index of the row @cls was merged into, or -1. */
static int dprof_view__row_of(const struct dprof_view *v,
			      const struct dprof_class *cls)
{
	size_t i;

	for (i = 0; cls->row && i < v->nr; i++) {
		if (v->rows[i].row == cls->row)
			return i;
	}
	return -1;
}

/* ---------------------------------------------------------------------- */
/* miss classification                                                     */

/*
 * Ties by name: the order of the view's rows among equals may come from
 * keys that are addresses, which change from run to run.
 */
static int view_row__cmp_name(const struct dprof_view *v, size_t a, size_t b)
{
	const struct dprof_view_row *va = &v->rows[a], *vb = &v->rows[b];
	int ret = strcmp(va->type ?: "", vb->type ?: "");

	if (!ret)
		ret = strcmp(va->desc ?: "", vb->desc ?: "");
	if (!ret)
		ret = a < b ? -1 : a > b;
	return ret;
}

static int classify_row__cmp(const void *a, const void *b, void *arg)
{
	const struct dprof_view_cl_row *ra = a, *rb = b;

	if (ra->st.misses != rb->st.misses)
		return ra->st.misses < rb->st.misses ? 1 : -1;
	return view_row__cmp_name(arg, ra->idx, rb->idx);
}

static void classify_stats__add(struct dprof_classify_stats *dst,
				const struct dprof_classify_stats *src)
{
	int k;

	dst->accesses += src->accesses;
	dst->misses += src->misses;
	dst->exact += src->exact;
	dst->hitm += src->hitm;
	dst->hitm_ts += src->hitm_ts;
	dst->hitm_fs += src->hitm_fs;
	for (k = 0; k < DPROF_MISS__MAX; k++)
		dst->by_class[k] += src->by_class[k];
}

static void fprint_classes(FILE *fp, const struct dprof_classify_stats *st)
{
	int k;

	for (k = 0; k < DPROF_MISS__MAX; k++)
		fprintf(fp, " %6.1f%%", dprof_pct(st->by_class[k], st->misses));
}

/*
 * Measured sharing next to the predicted classes: the HITM share of the
 * misses, and how the HITMs split into true and false sharing evidence.
 */
static void fprint_hitm(FILE *fp, const struct dprof_classify_stats *st)
{
	fprintf(fp, " %6.1f%%", dprof_pct(st->hitm, st->misses));
	if (st->hitm)
		fprintf(fp, " %6.1f%% %6.1f%%", dprof_pct(st->hitm_ts, st->hitm),
			dprof_pct(st->hitm_fs, st->hitm));
	else
		fprintf(fp, " %7s %7s", "-", "-");
}

#define DPROF_HITM_COLUMNS_FMT	" %7s %7s %7s"
#define DPROF_HITM_COLUMNS	"HITM%", "HitmTS", "HitmFS"

/* The misses of one row by (offset, ip), gathered from its classes. */
struct classify_sites {
	struct dprof_classify_site	*s;
	size_t				nr;
	size_t				alloc;
};

static int classify_sites__add(const struct dprof_classify_site *site,
			       void *arg)
{
	struct classify_sites *cs = arg;

	if (cs->nr == cs->alloc) {
		size_t n = max_t(size_t, 64, 2 * cs->alloc);
		struct dprof_classify_site *s = realloc(cs->s, n * sizeof(*s));

		if (!s)
			return -ENOMEM;
		cs->s = s;
		cs->alloc = n;
	}
	cs->s[cs->nr++] = *site;
	return 0;
}

static int classify_site__cmp_key(const void *a, const void *b)
{
	const struct dprof_classify_site *sa = a, *sb = b;

	if (sa->ip != sb->ip)
		return sa->ip < sb->ip ? -1 : 1;
	return sa->offset < sb->offset ? -1 : sa->offset > sb->offset;
}

static int classify_site__cmp_misses(const void *a, const void *b)
{
	const struct dprof_classify_site *sa = a, *sb = b;

	if (sa->st.misses != sb->st.misses)
		return sa->st.misses < sb->st.misses ? 1 : -1;
	return classify_site__cmp_key(a, b);
}

/*
 * The sites of the classes merged into @vr, one per (offset, ip), most
 * misses first.
 */
static int classify_sites__row(struct classify_sites *cs,
			       const struct dprof_classify *cl,
			       const struct dprof_view *v,
			       const struct dprof_view_row *vr)
{
	struct hashmap_entry *cur;
	size_t bkt, i, n = 0;
	int err;

	hashmap__for_each_entry(v->prof->classes, cur, bkt) {
		const struct dprof_class *cls = cur->pvalue;

		if (!cls->row || cls->row != vr->row)
			continue;
		err = dprof_classify__sites(cl, cls, classify_sites__add, cs);
		if (err)
			return err;
	}
	qsort(cs->s, cs->nr, sizeof(*cs->s), classify_site__cmp_key);
	for (i = 0; i < cs->nr; i++) {
		if (n && !classify_site__cmp_key(&cs->s[n - 1], &cs->s[i]))
			classify_stats__add(&cs->s[n - 1].st, &cs->s[i].st);
		else
			cs->s[n++] = cs->s[i];
	}
	cs->nr = n;
	qsort(cs->s, cs->nr, sizeof(*cs->s), classify_site__cmp_misses);
	return 0;
}

/* Sites folded by member name, as the profile's --type view folds them. */
struct classify_member {
	struct dprof_member_fold	mb;	/* first: dprof_members__fold() */
	struct dprof_classify_stats	st;
};

static int classify_member__cmp_misses(const void *a, const void *b)
{
	const struct classify_member *ma = a, *mb = b;

	if (ma->st.misses != mb->st.misses)
		return ma->st.misses < mb->st.misses ? 1 : -1;
	if (ma->mb.offset != mb->mb.offset)
		return ma->mb.offset < mb->mb.offset ? -1 : 1;
	return strcmp(ma->mb.name, mb->mb.name);
}

static struct classify_member *
classify_members__new(const struct classify_sites *cs,
		      const struct dprof_view_row *vr, struct dprof_members *m)
{
	struct classify_member *ms = NULL;
	u64 *offsets = calloc(cs->nr + 1, sizeof(*offsets));
	size_t i;

	if (!offsets)
		return NULL;
	for (i = 0; i < cs->nr; i++)
		offsets[i] = cs->s[i].offset;
	ms = dprof_members__fold(m, vr->info, offsets, cs->nr, sizeof(*ms));
	if (!ms)
		goto out;
	for (i = 0; i < cs->nr; i++)
		classify_stats__add(&ms[m->of[i]].st, &cs->s[i].st);
	qsort(ms, m->nr, sizeof(*ms), classify_member__cmp_misses);
out:
	free(offsets);
	return ms;
}

/* The function at a site's ip, as the profile's --type view names it. */
static void classify__code(const struct dprof_view_row *vr, u64 offset, u64 ip,
			   struct strbuf *sb)
{
	struct dprof_site tmp = { .ip = ip, .offset = offset }, *s = NULL;

	if (vr->row->sites && hashmap__find(vr->row->sites, &tmp, &s) && s->sym)
		strbuf_addf(sb, "%s+%#" PRIx64, dprof_symname(s->sym_dso, s->sym->name),
			    s->sym_off);
	else
		strbuf_addf(sb, "%#" PRIx64, ip);
}

static void fprint_classify_columns(FILE *fp, bool hitm, const char *last)
{
	fprintf(fp, "#\n# %-8s %-*s %8s %7s %7s %7s %7s %7s %7s", "Offset",
		DPROF_MEMBER_WIDTH, "Member", "Misses", "Share", "TrueSh",
		"FalseSh", "Conflct", "Capacty", "Unknown");
	if (hitm)
		fprintf(fp, DPROF_HITM_COLUMNS_FMT, DPROF_HITM_COLUMNS);
	fprintf(fp, "%s\n", last);
}

static void fprint_classify_site(FILE *fp, u64 offset, const char *member,
				 const struct dprof_classify_stats *st,
				 u64 total, bool hitm)
{
	fprintf(fp, "  %#-8" PRIx64, offset);
	dprof__fprint_column(fp, member, DPROF_MEMBER_WIDTH);
	fprintf(fp, " %8" PRIu64, st->misses);
	color_fprintf(fp, get_percent_color(dprof_pct(st->misses, total)),
		      " %6.1f%%", dprof_pct(st->misses, total));
	fprint_classes(fp, st);
	if (hitm)
		fprint_hitm(fp, st);
}

/*
 * --type=T: the misses of one type by member and by code location, with
 * the offsets and names of the profile's --type view.
 */
static int dprof_classify__fprintf_detail(const struct dprof_classify *cl,
					  const struct dprof_view *v,
					  const struct dprof_view_row *vr,
					  const struct dprof_classify_stats *row_st,
					  FILE *fp)
{
	struct classify_sites cs = { .nr = 0 };
	struct classify_member *ms = NULL;
	struct dprof_members m = { .nr = 0 };
	bool hitm = cl->nr_hitm;
	size_t i;
	int err;

	fprintf(fp, "\n# %s (%s): %" PRIu64 " misses of %" PRIu64 " samples",
		vr->type, vr->desc, row_st->misses, row_st->accesses);
	if (!row_st->misses) {
		fprintf(fp, ": nothing to classify\n");
		return 0;
	}
	fprintf(fp, ", by member\n");
	err = classify_sites__row(&cs, cl, v, vr);
	if (!err) {
		ms = classify_members__new(&cs, vr, &m);
		if (!ms)
			err = -ENOMEM;
	}
	if (err)
		goto out;
	fprint_classify_columns(fp, hitm, "");
	for (i = 0; i < m.nr; i++) {
		fprint_classify_site(fp, ms[i].mb.offset, ms[i].mb.name, &ms[i].st,
				     row_st->misses, hitm);
		fprintf(fp, "\n");
	}

	fprintf(fp, "#\n# %s (%s): misses by code location\n", vr->type, vr->desc);
	fprint_classify_columns(fp, hitm, "  Code");
	for (i = 0; i < cs.nr; i++) {
		const struct dprof_classify_site *s = &cs.s[i];
		struct strbuf member = STRBUF_INIT, code = STRBUF_INIT;

		dprof_row_info__member(vr->info, s->offset, &member);
		classify__code(vr, s->offset, s->ip, &code);
		fprint_classify_site(fp, s->offset, member.buf ?: "", &s->st,
				     row_st->misses, hitm);
		fprintf(fp, "  %s\n", code.buf ?: "");
		strbuf_release(&member);
		strbuf_release(&code);
	}
out:
	if (ms)
		dprof_members__exit(&m);
	free(ms);
	free(cs.s);
	return err;
}

/* Per row of @v, its classes' misses by class, most misses first. */
struct dprof_view_cl_row *dprof_view__classify_rows(const struct dprof_classify *cl,
						    const struct dprof_view *v)
{
	struct dprof_view_cl_row *rows = calloc(v->nr + 1, sizeof(*rows));
	struct hashmap_entry *cur;
	size_t bkt, i;

	if (!rows)
		return NULL;
	for (i = 0; i < v->nr; i++)
		rows[i].idx = i;
	hashmap__for_each_entry(v->prof->classes, cur, bkt) {
		const struct dprof_class *cls = cur->pvalue;
		const struct dprof_classify_stats *st;
		int r = dprof_view__row_of(v, cls);

		st = dprof_classify__class(cl, cls);
		if (r < 0 || !st)
			continue;
		classify_stats__add(&rows[r].st, st);
	}
	qsort_r(rows, v->nr, sizeof(*rows), classify_row__cmp, (void *)v);
	return rows;
}

/**
 * dprof_classify__fprintf - the miss classification view
 * @cl: the classifier after the replay
 * @v: the rows (data types) and what the recording held; those with
 *     ->detail set (--type) also by member and by code location
 * @fp: output
 *
 * Return: 0 or -ENOMEM.
 */
int dprof_classify__fprintf(const struct dprof_classify *cl,
			    const struct dprof_view *v, FILE *fp)
{
	struct dprof_view_cl_row *rows = dprof_view__classify_rows(cl, v);
	char geom[128];
	size_t i;
	int k, err = 0;

	if (!rows)
		return -ENOMEM;

	dprof_cache_geom__scnprintf(&cl->geom, geom, sizeof(geom));
	fprintf(fp, "# perf dprof report: miss classification (DProf paper 3.3)\n#\n");
	fprintf(fp, "# cache: %s\n", geom);
	if (cl->nr_predicted)
		fprintf(fp, "# misses: PREDICTED (%s: no misses measured): %" PRIu64 "\n"
			"#   by a per-CPU model of this cache with write-invalidate coherence, fed the sampled accesses only\n",
			v->has_soft ? "software sampler" : "no cache level in the samples",
			cl->nr_predicted);
	if (cl->nr_measured)
		fprintf(fp, "# misses: measured (data_src, not an L1 hit): %" PRIu64 "\n",
			cl->nr_measured);
	if (cl->nr_hits) {
		fprintf(fp,
			"# object histories: %" PRIu64
			" watch hits on every read and write of the watched bytes",
			cl->nr_hits);
		if (cl->nr_hits_undecoded)
			fprintf(fp,
				", %" PRIu64
				" neither read nor write (their lines stay statistical)",
				cl->nr_hits_undecoded);
		fprintf(fp,
			"\n# classified exactly: %" PRIu64
			" misses on watched bytes, from the histories: invalidation =\n"
			"#   another CPU wrote them since this CPU's last access before the miss (true sharing)\n"
			"# classified statistically: %" PRIu64
			" misses, from access samples: invalidation = a sampled write\n"
			"#   by another CPU among the line's last sampled writes; true sharing when it overlapped the\n"
			"#   missed bytes (%u B access assumed), and false sharing for misses on watched bytes\n",
			cl->nr_exact, cl->nr_stat, cl->access_size);
	} else {
		fprintf(fp,
			"# from access samples (statistical): invalidation = a sampled write by another CPU among\n"
			"#   the line's last sampled writes; true sharing when it overlapped the missed bytes (%u B access assumed)\n",
			cl->access_size);
	}
	fprintf(fp,
		"# conflict = the line's set holds more distinct live lines than ways and >= 2x the average;\n"
		"# capacity = the live lines seen (at most %" PRIu64 ", %.1f MB; %" PRIu64
		" at the end) exceed the cache; unknown = neither (cold)\n",
		cl->max_live_lines,
		(double)cl->max_live_lines * cl->geom.line / (1 << 20), cl->nr_live_lines);
	fprintf(fp, "# total: %" PRIu64 " misses of %" PRIu64 " resolved samples:",
		cl->total.misses, cl->total.accesses);
	for (k = 0; k < DPROF_MISS__MAX; k++)
		fprintf(fp, "%s %s %.1f%%", k ? "," : "", dprof_miss_class__str(k),
			dprof_pct(cl->total.by_class[k], cl->total.misses));
	fprintf(fp, "\n");
	if (v->store_minlat)
		fprintf(fp,
			"# SPE min_latency %u drops the stores faster than that too: writes that hit are not sampled,\n"
			"#   so invalidations go unseen and sharing misses look like conflict or cold ones; record with\n"
			"#   --ldlat 0 for this view\n", v->store_minlat);
	if (cl->nr_hitm)
		fprintf(fp,
			"# measured sharing (data_src HITM: the load hit a line modified in another core's cache):\n"
			"#   %" PRIu64
			" HITM misses, %.1f%% of the measured; HitmTS = on lines of the object where HITMs hit\n"
			"#   one 8-byte word (true sharing evidence), HitmFS = several words (false sharing evidence)\n",
			cl->nr_hitm, dprof_pct(cl->nr_hitm, cl->nr_measured));
	if (!cl->total.accesses)
		fprintf(fp, "# no access sample resolved to a data type: nothing to classify\n");
	fprintf(fp, "#\n#");
	dprof__fprint_column(fp, "Type", DPROF_VIEW_TYPE_WIDTH);
	dprof__fprint_column(fp, "Cache / kind", DPROF_VIEW_DESC_WIDTH);
	fprintf(fp, " %8s %7s %7s %7s %7s %7s %7s", "Misses", "Miss%",
		"TrueSh", "FalseSh", "Conflct", "Capacty", "Unknown");
	if (cl->nr_hitm)
		fprintf(fp, DPROF_HITM_COLUMNS_FMT, DPROF_HITM_COLUMNS);
	fprintf(fp, "%s\n", cl->nr_hits ? "   Exact" : "");
	for (i = 0; i < v->nr; i++) {
		const struct dprof_view_row *vr = &v->rows[rows[i].idx];
		const struct dprof_classify_stats *st = &rows[i].st;

		if (!st->misses)
			continue;
		fprintf(fp, " ");
		dprof__fprint_column(fp, vr->type, DPROF_VIEW_TYPE_WIDTH);
		dprof__fprint_column(fp, vr->desc, DPROF_VIEW_DESC_WIDTH);
		fprintf(fp, " %8" PRIu64, st->misses);
		color_fprintf(fp, get_percent_color(dprof_pct(st->misses, cl->total.misses)),
			      " %6.1f%%", dprof_pct(st->misses, cl->total.misses));
		fprint_classes(fp, st);
		if (cl->nr_hitm)
			fprint_hitm(fp, st);
		if (cl->nr_hits)	/* share classified from histories */
			fprintf(fp, " %6.1f%%", dprof_pct(st->exact, st->misses));
		fprintf(fp, "\n");
	}
	for (i = 0; !err && i < v->nr; i++) {
		if (v->rows[rows[i].idx].detail)
			err = dprof_classify__fprintf_detail(cl, v,
							     &v->rows[rows[i].idx],
							     &rows[i].st, fp);
	}
	free(rows);
	return err;
}

/* ---------------------------------------------------------------------- */
/* working set                                                             */

static int ws_row__cmp(const void *a, const void *b, void *arg)
{
	const struct dprof_view_ws_row *ra = a, *rb = b;

	if (ra->lines != rb->lines)
		return ra->lines < rb->lines ? 1 : -1;
	if (ra->seen != rb->seen)
		return ra->seen < rb->seen ? 1 : -1;
	return view_row__cmp_name(arg, ra->idx, rb->idx);
}

/* Figure 1 of the paper as text: distinct lines per set, sets in bins. */
static void dprof_workingset__fprintf_hist(const struct dprof_workingset *ws,
					   const struct dprof_view_row *vr,
					   const struct dprof_view_ws_row *r, FILE *fp)
{
	u32 nr_sets = ws->cache.geom.nr_sets;
	u32 bins = min_t(u32, nr_sets, DPROF_HIST_BINS);
	u32 per_bin = (nr_sets + bins - 1) / bins, b, s, top = 1;
	u32 max[DPROF_HIST_BINS] = { 0 };
	bool flag[DPROF_HIST_BINS] = { false };

	for (s = 0; s < nr_sets; s++) {
		b = s / per_bin;
		max[b] = max(max[b], r->set_lines[s]);
		if (r->set_lines[s] && dprof_workingset__conflict_set(ws, s))
			flag[b] = true;
		top = max(top, r->set_lines[s]);
	}
	fprintf(fp,
		"\n# %s (%s): distinct lines per associativity set, max over %u sets per bar;\n"
		"#   %u-way; '!' = holds conflict-prone sets (> ways and >= 2x the average, all types)\n",
		vr->type, vr->desc, per_bin, ws->cache.geom.ways);
	for (b = 0; b * per_bin < nr_sets; b++) {
		u32 n = (u64)max[b] * DPROF_HIST_BAR / top;
		char bar[DPROF_HIST_BAR + 1];

		memset(bar, '#', n);
		bar[n] = '\0';
		fprintf(fp, "  sets %6u-%-6u |%-*s %5u %s\n", b * per_bin,
			min(nr_sets, (b + 1) * per_bin) - 1, DPROF_HIST_BAR, bar,
			max[b], flag[b] ? "!" : "");
	}
}

/* Lines first touched by one function (or ip, when it has no symbol). */
struct ws_first {
	const char	*name;
	u64		ip;
	u64		n;
};

static int ws_first__cmp_name(const void *a, const void *b)
{
	const struct ws_first *fa = a, *fb = b;

	if (!fa->name != !fb->name)
		return fa->name ? -1 : 1;
	if (fa->name)
		return strcmp(fa->name, fb->name);
	return fa->ip < fb->ip ? -1 : fa->ip > fb->ip;
}

static int ws_first__cmp_n(const void *a, const void *b)
{
	const struct ws_first *fa = a, *fb = b;

	if (fa->n != fb->n)
		return fa->n < fb->n ? 1 : -1;
	return ws_first__cmp_name(a, b);
}

/*
 * With object histories: the functions whose access was the first touch
 * of a watched object's line after its allocation, the code that brings
 * the type's data into the cache (paper section 3.2).  Nothing without.
 */
static int dprof_workingset__fprintf_first(const struct dprof_workingset *ws,
					   const struct dprof_view *v,
					   size_t idx, FILE *fp)
{
	struct hashmap_entry *cur, *ip_cur;
	struct ws_first *f;
	size_t bkt, ip_bkt, nr = 0, n = 0, i;
	u64 total = 0;

	hashmap__for_each_entry(v->prof->classes, cur, bkt) {
		struct dprof_ws_class *wc = dprof_workingset__class(ws, cur->pvalue);

		if (wc && dprof_view__row_of(v, cur->pvalue) == (int)idx) {
			nr += hashmap__size(wc->first);
			total += wc->nr_first;
		}
	}
	if (!total)
		return 0;
	f = calloc(nr, sizeof(*f));
	if (!f)
		return -ENOMEM;
	hashmap__for_each_entry(v->prof->classes, cur, bkt) {
		struct dprof_ws_class *wc = dprof_workingset__class(ws, cur->pvalue);

		if (!wc || dprof_view__row_of(v, cur->pvalue) != (int)idx)
			continue;
		hashmap__for_each_entry(wc->first, ip_cur, ip_bkt) {
			f[n].ip = ip_cur->key;
			f[n].n = ip_cur->value;
			f[n].name = dprof_view__func_name(v, f[n].ip);
			n++;
		}
	}
	/* one entry per function */
	qsort(f, n, sizeof(*f), ws_first__cmp_name);
	for (i = 1, nr = n ? 1 : 0; i < n; i++) {
		if (f[i].name && f[nr - 1].name && !strcmp(f[i].name, f[nr - 1].name))
			f[nr - 1].n += f[i].n;
		else
			f[nr++] = f[i];
	}
	qsort(f, nr, sizeof(*f), ws_first__cmp_n);
	fprintf(fp, "\n# lines of %s first brought in by:", v->rows[idx].type);
	for (i = 0; i < nr && i < DPROF_WS_FIRST; i++) {
		if (f[i].name)
			fprintf(fp, "%s %s", i ? "," : "", f[i].name);
		else
			fprintf(fp, "%s %#" PRIx64, i ? "," : "", f[i].ip);
		fprintf(fp, " %.0f%%", dprof_pct(f[i].n, total));
	}
	if (nr > DPROF_WS_FIRST)
		fprintf(fp, ", ...");
	fprintf(fp, "\n#   (object histories: the first access to each of %" PRIu64
		" lines of watched objects\n#   after their allocation)\n", total);
	free(f);
	return 0;
}

void dprof_view_ws_rows__free(struct dprof_view_ws_row *rows, size_t nr)
{
	size_t i;

	for (i = 0; rows && i < nr; i++)
		free(rows[i].set_lines);
	free(rows);
}

/* What each row (data type) of @v holds of the cache, most first. */
struct dprof_view_ws_row *dprof_view__ws_rows(const struct dprof_workingset *ws,
					      const struct dprof_view *v)
{
	const struct dprof_cache_geom *g = &ws->cache.geom;
	struct dprof_view_ws_row *rows = calloc(v->nr + 1, sizeof(*rows));
	struct hashmap_entry *cur;
	double w = ws->weight ?: 1;
	size_t bkt, i;
	u32 s;

	if (!rows)
		return NULL;
	for (i = 0; i < v->nr; i++) {
		rows[i].idx = i;
		rows[i].set_lines = calloc(g->nr_sets, sizeof(u32));
		if (!rows[i].set_lines) {
			dprof_view_ws_rows__free(rows, v->nr);
			return NULL;
		}
	}
	hashmap__for_each_entry(v->prof->classes, cur, bkt) {
		const struct dprof_class *cls = cur->pvalue;
		struct dprof_ws_class *wc = dprof_workingset__class(ws, cls);
		int r = dprof_view__row_of(v, cls);

		if (r < 0 || !wc)
			continue;
		rows[r].lines += wc->lines_sum / w;
		rows[r].objs += wc->objs_sum / w;
		rows[r].seen += wc->nr_lines;
		dprof_freq__add(&rows[r].lines_freq, &wc->lines_freq);
		for (s = 0; s < g->nr_sets; s++)
			rows[r].set_lines[s] += wc->set_lines[s];
	}
	for (i = 0; i < v->nr; i++) {
		for (s = 0; s < g->nr_sets; s++)
			rows[i].nr_conflict += rows[i].set_lines[s] &&
					       dprof_workingset__conflict_set(ws, s);
	}
	qsort_r(rows, v->nr, sizeof(*rows), ws_row__cmp, (void *)v);
	return rows;
}

/**
 * dprof_workingset__fprintf - the working-set view
 * @ws: the simulation after dprof_workingset__finish()
 * @v: the rows (data types) and what the recording held
 * @fp: output
 *
 * Return: 0 or -ENOMEM.
 */
int dprof_workingset__fprintf(const struct dprof_workingset *ws,
			      const struct dprof_view *v, FILE *fp)
{
	const struct dprof_cache_geom *g = &ws->cache.geom;
	struct dprof_view_ws_row *rows = dprof_view__ws_rows(ws, v);
	u64 nr_lines = (u64)g->nr_sets * g->ways;
	u32 s, nr_conflict = 0, shown = 0;
	struct dprof_estimate e;
	char geom[128];
	size_t i;

	if (!rows)
		return -ENOMEM;
	for (s = 0; s < g->nr_sets; s++)
		nr_conflict += dprof_workingset__conflict_set(ws, s);

	dprof_cache_geom__scnprintf(g, geom, sizeof(geom));
	fprintf(fp, "# perf dprof report: working set (DProf paper 3.2)\n#\n");
	fprintf(fp,
		"# cache model: %s; one LRU cache for all CPUs; freed objects' lines belong to nobody\n",
		geom);
	fprintf(fp, "# replayed %" PRIu64 " accesses (%.1f%% model misses), %" PRIu64 " snaps\n",
		ws->cache.nr_access, dprof_pct(ws->cache.nr_miss, ws->cache.nr_access),
		ws->nr_snaps);
	if (ws->warm_at)
		fprintf(fp, "# averaged from access %" PRIu64 " on: the model had filled %s\n",
			ws->warm_at, "as many lines as it holds");
	else
		fprintf(fp, "# the model never filled: %s\n",
			"averaged over the whole replay, cold start included");
	fprintf(fp,
		"# from access samples (statistical): only sampled lines enter the model, so residency is a\n"
		"#   lower bound%s\n"
		"# Lines: distinct lines sampled; Touched: distinct lines touched, estimated (iChao1) from how\n"
		"#   often each was sampled, +-95%%: how far its interval reaches ('?': < %d samples)\n",
		v->has_soft ? " (software sampler: a small fraction of the accesses)" : "",
		DPROF_FEW_SAMPLES);
	fprintf(fp, "# distinct lines seen: %" PRIu64 " (%.1f MB), conflict-prone sets %u of %u\n",
		ws->nr_lines, (double)ws->nr_lines * g->line / (1 << 20),
		nr_conflict, g->nr_sets);
	fprintf(fp, "#\n#");
	dprof__fprint_column(fp, "Type", DPROF_VIEW_TYPE_WIDTH);
	dprof__fprint_column(fp, "Cache / kind", DPROF_VIEW_DESC_WIDTH);
	fprintf(fp, " %8s %8s %7s %8s %8s %-5s %8s\n", "Objects", "Bytes", "Share",
		"Lines", "Touched", " +-95%", "ConflSet");
	for (i = 0; i < v->nr; i++) {
		const struct dprof_view_row *vr = &v->rows[rows[i].idx];

		if (!rows[i].seen)
			continue;
		fprintf(fp, " ");
		dprof__fprint_column(fp, vr->type, DPROF_VIEW_TYPE_WIDTH);
		dprof__fprint_column(fp, vr->desc, DPROF_VIEW_DESC_WIDTH);
		fprintf(fp, " %8.1f", rows[i].objs);
		dprof__fprint_size(fp, rows[i].lines * g->line, false);
		color_fprintf(fp, get_percent_color(dprof_pct(rows[i].lines, nr_lines)),
			      " %6.2f%%", dprof_pct(rows[i].lines, nr_lines));
		fprintf(fp, " %8" PRIu64, rows[i].seen);
		dprof_estimate__objects(&e, &rows[i].lines_freq, 0, 0);
		dprof__fprint_estimate(fp, &e);
		fprintf(fp, " %8u\n", rows[i].nr_conflict);
	}
	for (i = 0; i < v->nr; i++) {
		const struct dprof_view_row *vr = &v->rows[rows[i].idx];
		bool any_detail = false;
		size_t j;

		for (j = 0; j < v->nr; j++)
			any_detail |= v->rows[j].detail;
		if (!rows[i].seen || (any_detail ? !vr->detail :
				      shown >= DPROF_HIST_ROWS))
			continue;
		dprof_workingset__fprintf_hist(ws, vr, &rows[i], fp);
		shown++;
		if (any_detail &&
		    dprof_workingset__fprintf_first(ws, v, rows[i].idx, fp)) {
			dprof_view_ws_rows__free(rows, v->nr);
			return -ENOMEM;
		}
	}
	dprof_view_ws_rows__free(rows, v->nr);
	return 0;
}

#define SVG_W		960	/* picture */
#define SVG_H		420
#define SVG_L		60	/* plot area margins */
#define SVG_R		200
#define SVG_T		40
#define SVG_B		50
#define SVG_TYPES	5	/* curves without --type */

static void svg__text(FILE *fp, const char *s)
{
	for (; *s; s++) {
		const char *esc = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" :
				  *s == '>' ? "&gt;" : *s == '"' ? "&quot;" : NULL;

		if (esc)
			fputs(esc, fp);
		else
			fputc(*s, fp);
	}
}

/**
 * dprof_workingset__fprintf_svg - the set histogram as a picture
 * @ws: the simulation after dprof_workingset__finish()
 * @v: the rows; those with ->detail set (--type), else the biggest few
 * @fp: output
 *
 * The paper's figure 1: for each type, distinct cache lines per
 * associativity set (sets binned to the plot's width, the maximum of each
 * bin drawn), with the associativity and twice the average set, the two
 * thresholds of a conflict-prone set.
 *
 * Return: 0 or -ENOMEM.
 */
int dprof_workingset__fprintf_svg(const struct dprof_workingset *ws,
				  const struct dprof_view *v, FILE *fp)
{
	static const char * const colors[] = {
		"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd",
		"#8c564b", "#e377c2", "#7f7f7f",
	};
	const struct dprof_cache_geom *g = &ws->cache.geom;
	const int pw = SVG_W - SVG_L - SVG_R, ph = SVG_H - SVG_T - SVG_B;
	struct dprof_view_ws_row *rows = dprof_view__ws_rows(ws, v);
	u32 bins = min_t(u32, g->nr_sets, pw), per_bin, b, s, top = 1;
	double avg = ws->nr_lines ? (double)ws->nr_lines / g->nr_sets : 0;
	size_t i, j, nr_plot = 0, plot[ARRAY_SIZE(colors)];
	bool any_detail = false;
	char geom[128];
	double y;

	if (!rows)
		return -ENOMEM;
	per_bin = (g->nr_sets + bins - 1) / bins;
	for (j = 0; j < v->nr; j++)
		any_detail |= v->rows[j].detail;
	for (i = 0; i < v->nr && nr_plot < ARRAY_SIZE(plot); i++) {
		if (!rows[i].seen || (any_detail ? !v->rows[rows[i].idx].detail :
				      nr_plot >= SVG_TYPES))
			continue;
		plot[nr_plot++] = i;
		for (s = 0; s < g->nr_sets; s++)
			top = max(top, rows[i].set_lines[s]);
	}
	top = max_t(u32, top, g->ways + 1);
	top = max_t(u32, top, (u32)(2 * avg) + 1);

	dprof_cache_geom__scnprintf(g, geom, sizeof(geom));
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		SVG_W, SVG_H);
	fprintf(fp, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(fp,
		"<text x=\"%d\" y=\"20\" font-size=\"14\">distinct cache lines per associativity set: ",
		SVG_L);
	svg__text(fp, geom);
	fprintf(fp, "</text>\n");
	/* axes, ticks */
	fprintf(fp, "<g stroke=\"black\" fill=\"none\"><path d=\"M%d %d V%d H%d\"/></g>\n",
		SVG_L, SVG_T, SVG_T + ph, SVG_L + pw);
	for (j = 0; j <= 4; j++) {
		fprintf(fp, "<text x=\"%zu\" y=\"%d\" text-anchor=\"middle\">%zu</text>\n",
			SVG_L + j * pw / 4, SVG_T + ph + 16, j * (g->nr_sets - 1) / 4);
		fprintf(fp, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">%zu</text>\n",
			SVG_L - 6, SVG_T + ph - j * ph / 4 + 4, j * top / 4);
	}
	fprintf(fp,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">associativity set (max of %u sets per point)</text>\n",
		SVG_L + pw / 2, SVG_H - 12, per_bin);
	fprintf(fp,
		"<text transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\">distinct lines</text>\n",
		SVG_T + ph / 2);
	/* the thresholds of a conflict-prone set */
	y = SVG_T + ph - (double)g->ways * ph / top;
	fprintf(fp, "<path d=\"M%d %.1f H%d\" stroke=\"black\" stroke-dasharray=\"6 4\"/>\n",
		SVG_L, y, SVG_L + pw);
	fprintf(fp, "<text x=\"%d\" y=\"%.1f\">associativity (%u)</text>\n",
		SVG_L + pw + 6, y + 4, g->ways);
	y = SVG_T + ph - 2 * avg * ph / top;
	fprintf(fp, "<path d=\"M%d %.1f H%d\" stroke=\"gray\" stroke-dasharray=\"2 4\"/>\n",
		SVG_L, y, SVG_L + pw);
	fprintf(fp, "<text x=\"%d\" y=\"%.1f\" fill=\"gray\">2x average (%.1f)</text>\n",
		SVG_L + pw + 6, y + 4, 2 * avg);
	/* one curve and legend entry per type */
	for (j = 0; j < nr_plot; j++) {
		const struct dprof_view_ws_row *r = &rows[plot[j]];
		const struct dprof_view_row *vr = &v->rows[r->idx];

		fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			colors[j]);
		for (b = 0; b < bins && b * per_bin < g->nr_sets; b++) {
			u32 m = 0;

			for (s = b * per_bin; s < min(g->nr_sets, (b + 1) * per_bin); s++)
				m = max(m, r->set_lines[s]);
			fprintf(fp, "%.1f,%.1f ", SVG_L + (b + 0.5) * pw / bins,
				SVG_T + ph - (double)m * ph / top);
		}
		fprintf(fp, "\"/>\n<text x=\"%d\" y=\"%zu\" fill=\"%s\">", SVG_L + pw + 6,
			SVG_T + 60 + j * 18, colors[j]);
		svg__text(fp, vr->type);
		fprintf(fp, " (%" PRIu64 ")</text>\n", r->seen);
	}
	fprintf(fp, "</svg>\n");
	dprof_view_ws_rows__free(rows, v->nr);
	return 0;
}
