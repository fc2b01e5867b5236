// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof report --json: the models of the profile, classify and
 * workingset views as JSON.  Counts are integers, shares are percentages
 * as the text shows them, and what the sampler did not measure is null,
 * never 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/debug.h"
#include "util/dprof/cachesim.h"
#include "util/dprof/classify.h"
#include "util/dprof/diff.h"
#include "util/dprof/estimate.h"
#include "util/dprof/profile.h"
#include "util/dprof/ea.h"
#include "util/dprof/workingset.h"
#include "dprof.h"
#include "dprof-json.h"
#include "dprof-report.h"

static void json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20)
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

/* "name": and a value, after a comma unless @first */
static void json_key(FILE *fp, const char *key, bool first)
{
	fprintf(fp, "%s", first ? "" : ", ");
	json_str(fp, key);
	fprintf(fp, ": ");
}

static void json_u64(FILE *fp, const char *key, u64 v, bool first)
{
	json_key(fp, key, first);
	fprintf(fp, "%" PRIu64, v);
}

static void json_double(FILE *fp, const char *key, double v, bool first)
{
	json_key(fp, key, first);
	fprintf(fp, "%.4f", v);
}

static void json_string(FILE *fp, const char *key, const char *v, bool first)
{
	json_key(fp, key, first);
	json_str(fp, v);
}

static void json_bool(FILE *fp, const char *key, bool v, bool first)
{
	json_key(fp, key, first);
	fprintf(fp, "%s", v ? "true" : "false");
}

static void json_null(FILE *fp, const char *key, bool first)
{
	json_key(fp, key, first);
	fprintf(fp, "null");
}

/*
 * What the memory PMU said of the access samples, decoded: memory ops and
 * others, by level (a level not said is "not_said"), HITM, peer, remote.
 */
static void dprof_json__data_source(const struct dprof_recording *rec, FILE *fp)
{
	const struct dprof_mem_stats *st = &rec->mem;
	u64 said = 0;
	int l;

	json_key(fp, "data_source", false);
	if (!rec->has_data_src) {
		fprintf(fp, "null");
		return;
	}
	fprintf(fp, "{");
	json_u64(fp, "memory_ops", st->samples, true);
	json_u64(fp, "no_memory_op", st->no_memop, false);
	json_key(fp, "levels", false);
	fprintf(fp, "{");
	for (l = 0; l < DPROF_MEM_LVL__MAX; l++) {
		json_u64(fp, dprof_mem_level__short(l), st->level[l], !l);
		said += st->level[l];
	}
	json_u64(fp, "not_said", st->samples - said, false);
	fprintf(fp, "}");
	json_u64(fp, "hitm", st->hitm, false);
	json_u64(fp, "peer", st->peer, false);
	json_u64(fp, "remote", st->remote, false);
	fprintf(fp, "}");
}

/* The facts every view's document starts with. */
static void dprof_json__recording(const struct dprof_report *rep, FILE *fp)
{
	const struct dprof_recording *rec = &rep->replay.rec;
	const struct dprof_profile *prof = &rep->replay.prof;
	int k, u;

	json_string(fp, "view", dprof_view_kind__str(rep->opts.view), true);
	json_string(fp, "input", rep->opts.input_name, false);
	json_string(fp, "access_samples", rec->has_mem_pmu ? "memory-pmu" :
		    rec->has_soft ? "software" : "none", false);
	json_bool(fp, "misses_measured", prof->has_levels, false);
	json_bool(fp, "latency_measured", prof->has_latency, false);
	json_u64(fp, "samples", prof->nr_samples, false);
	json_key(fp, "resolved", false);
	fprintf(fp, "{");
	for (k = 0; k < DPROF_KIND__MAX; k++)
		json_u64(fp, dprof_kind__str(k), prof->resolved[k], !k);
	fprintf(fp, "}");
	json_key(fp, "unresolved", false);
	fprintf(fp, "{");
	for (u = 0; u < DPROF_UNRES__MAX; u++) {
		if (u != DPROF_UNRES_INSN)
			json_u64(fp, dprof_unres__str(u), prof->unres[u], !u);
	}
	for (k = 0; k < DPROF_EA__MAX; k++) {
		if (prof->ea_reasons[k])
			json_u64(fp, dprof_ea_reason__str(k), prof->ea_reasons[k], false);
	}
	fprintf(fp, "}");
	json_key(fp, "user_heap", false);
	if (rec->has_heap) {
		fprintf(fp, "{");
		json_u64(fp, "typed", prof->heap_typed, true);
		json_u64(fp, "allocs", rec->nr_heap_allocs, false);
		json_u64(fp, "frees", rec->nr_heap_frees, false);
		json_u64(fp, "left_out", rec->heap_dropped, false);
		/* of the untyped: counted for their site's one type */
		json_u64(fp, "untyped_sited", prof->heap_untyped_sited, false);
		json_key(fp, "untyped", false);
		fprintf(fp, "{");
		for (k = 0; k < DPROF_HEAP_UNTYPED__MAX; k++)
			json_u64(fp, dprof_heap_untyped__str(k), prof->heap_untyped[k], !k);
		fprintf(fp, "}}");
	} else {
		fprintf(fp, "null");
	}
	json_key(fp, "address_set", false);
	if (rec->has_alloc) {
		fprintf(fp, "{");
		json_u64(fp, "allocs", rec->nr_allocs, true);
		json_u64(fp, "frees", rec->nr_frees, false);
		json_u64(fp, "left_out", rec->kmem_dropped, false);
		json_string(fp, "cache_names", rec->kmem_map ? "slab map" :
			    rec->alloc_has_name ? "alloc events" : "free events", false);
		json_u64(fp, "snapshot_slabs", rep->replay.no_snapshot ? 0 :
			 rec->nr_snapshot_slabs, false);
		json_u64(fp, "new_slabs", rec->nr_new_slabs, false);
		json_u64(fp, "freed_slabs", rec->nr_freed_slabs, false);
		json_u64(fp, "resolved_earlier", prof->resolved_earlier, false);
		json_u64(fp, "resolved_free", prof->resolved_free, false);
		json_u64(fp, "typed_in_slab", prof->typed_in_slab, false);
		json_u64(fp, "free_earlier", rec->nr_free_earlier, false);
		json_u64(fp, "free_unknown", rec->nr_free_unknown, false);
		json_u64(fp, "alloc_over_live",
			 rep->replay.as.nr_evicted + rec->kmem_over_dropped, false);
		json_u64(fp, "alloc_over_live_sampled", rep->replay.as.nr_evicted_seen, false);
		json_u64(fp, "other_tasks_events", rec->nr_kmem_others, false);
		json_key(fp, "recorded_tasks", false);
		fprintf(fp, "{");
		json_u64(fp, "ends", rec->tasks.ends, true);
		json_u64(fp, "starts", rec->tasks.starts, false);
		json_u64(fp, "free_earlier", rec->tasks.free_earlier, false);
		json_u64(fp, "free_unknown", rec->tasks.free_unknown, false);
		json_u64(fp, "alloc_over_live", rec->tasks.over_live, false);
		json_u64(fp, "alloc_over_live_sampled", rec->tasks.over_sampled, false);
		fprintf(fp, "}");
		json_u64(fp, "mempool_put", rec->nr_mempool_put, false);
		json_u64(fp, "mempool_get", rec->nr_mempool_get, false);
		json_u64(fp, "mempool_unknown", rec->nr_mempool_unknown, false);
		json_u64(fp, "kfree_rcu", rec->nr_kfree_rcu, false);
		/* --kmem-events=map: slab caches' objects are slots of the map */
		json_string(fp, "slab_objects", rec->kmem_map ? "slab map" : "events", false);
		json_u64(fp, "free_map", rec->nr_free_map, false);
		/* the lives the kernel chose, one allocation in slab_sample */
		json_u64(fp, "slab_sample", rec->has_slab_sample ? rec->slab_sample : 0, false);
		json_u64(fp, "sample_allocs", rec->nr_sample_allocs, false);
		json_u64(fp, "sample_frees", rec->nr_sample_frees, false);
		/* the map's caches' allocations, as the kernel counted them */
		if (rec->map_allocs_counted)
			json_u64(fp, "map_allocs", rec->map_allocs, false);
		else
			json_null(fp, "map_allocs", false);
		/* samples in perf's code of these events: out of the shares */
		json_u64(fp, "perf_samples", rec->nr_perf_samples, false);
		fprintf(fp, "}");
	} else {
		fprintf(fp, "null");
	}
	json_u64(fp, "lost_events", rec->nr_lost, false);
	json_u64(fp, "damaged_events", rec->nr_implausible, false);
	json_u64(fp, "false_watch_hits", rec->nr_off_target_hits, false);
	json_u64(fp, "damaged_records", rec->nr_damaged, false);
	json_u64(fp, "unreadable_from", rec->unreadable_offset, false);
	json_u64(fp, "cut_data_bytes_read", !rec->data_size_cut ? 0 :
		 (rec->unreadable_offset ?: rec->data_offset + rec->data_size) -
		 rec->data_offset, false);
	json_u64(fp, "cut_data_bytes_claimed", rec->data_size_cut, false);
	json_u64(fp, "skipped_tracepoint_records", rec->nr_no_format, false);
	if (rec->bad_arch[0])
		json_string(fp, "unknown_arch", rec->bad_arch, false);
	else
		json_null(fp, "unknown_arch", false);
	dprof_json__data_source(rec, fp);
}

static void dprof_json__stats(const struct dprof_report *rep,
			      const struct dprof_stats *st, FILE *fp)
{
	const struct dprof_profile *prof = &rep->replay.prof;

	json_u64(fp, "samples", st->samples, false);
	json_u64(fp, "writes", st->writes, false);
	if (prof->has_levels)
		json_u64(fp, "misses", st->misses, false);
	else
		json_null(fp, "misses", false);
	if (prof->has_latency && st->lat_n)
		json_double(fp, "avg_latency", (double)st->lat_sum / st->lat_n, false);
	else
		json_null(fp, "avg_latency", false);
}

/*
 * The 95% interval of a share, in percent as the share is: Wilson's,
 * widened to its batch means' over the time slices (see
 * dprof_share_interval()).
 */
static void dprof_json__share_interval(FILE *fp, u64 k, u64 n, const struct dprof_slices *row,
				       const struct dprof_slices *all, bool misses)
{
	double lo, hi;

	dprof_share_interval(k, n, row, all, misses, &lo, &hi);
	json_double(fp, "share_lo", 100 * lo, false);
	json_double(fp, "share_hi", 100 * hi, false);
}

/*
 * Distinct objects touched: "objects_est" with its 95% interval, the
 * objects the address set knew of (null: no address set, no upper bound),
 * and whether the samples were too few for the estimate to say much.
 */
static void dprof_json__estimate(FILE *fp, const struct dprof_estimate *e, double ws_bytes)
{
	json_double(fp, "objects_est", e->est, false);
	json_double(fp, "objects_lo", e->lo, false);
	json_double(fp, "objects_hi", e->hi, false);
	if (e->bound)
		json_u64(fp, "objects_known", e->bound, false);
	else
		json_null(fp, "objects_known", false);
	json_bool(fp, "objects_counted", e->exact, false);
	json_bool(fp, "few_samples", e->few, false);
	json_double(fp, "ws_bytes_est", ws_bytes, false);
}

static bool dprof_same_name(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* the operand types of accesses counted for the row's type: its headers */
static void dprof_json__heads(const struct dprof_class *row, FILE *fp)
{
	u32 h, n = 0;

	if (!row->nr_heads)
		return;
	json_key(fp, "headers", false);
	fprintf(fp, "[");
	for (h = 0; h < row->nr_heads; h++) {
		const char *name = row->heads[h]->name;
		u64 samples = 0;
		u32 k;

		/* one per type: a header of the objects of many call chains */
		for (k = 0; k < h && !dprof_same_name(row->heads[k]->name, name); k++)
			;
		if (k < h)
			continue;
		for (k = h; k < row->nr_heads; k++) {
			if (dprof_same_name(row->heads[k]->name, name))
				samples += row->heads[k]->stats.samples;
		}
		fprintf(fp, "%s{", n++ ? ", " : "");
		if (name)
			json_string(fp, "type", name, true);
		else
			json_null(fp, "type", true);	/* no operand type at the access */
		json_u64(fp, "samples", samples, false);
		fprintf(fp, "}");
	}
	fprintf(fp, "]");
}

/* a row, without its closing brace */
static void dprof_json__row(const struct dprof_report *rep, const struct dprof_row_info *ri,
			    FILE *fp)
{
	const struct dprof_profile *prof = &rep->replay.prof;
	const struct dprof_class *row = ri->row;
	struct dprof_member_stats *ms;
	struct dprof_estimate e;
	struct dprof_members m;
	size_t k;

	fprintf(fp, "{");
	json_string(fp, "type", dprof_row_info__name(ri), true);
	json_string(fp, "desc", ri->desc.buf, false);
	json_string(fp, "kind", dprof_kind__str(row->kind), false);
	json_double(fp, "share", dprof_pct(row->stats.samples, prof->nr_samples), false);
	dprof_json__share_interval(fp, row->stats.samples, prof->nr_samples, &row->slices,
				   &prof->slices, false);
	if (prof->has_levels)
		json_double(fp, "miss_share", dprof_pct(row->stats.misses,
							prof->total.misses), false);
	else
		json_null(fp, "miss_share", false);
	dprof_json__stats(rep, &row->stats, fp);
	if (dprof_report__hitm_measured(rep))
		json_double(fp, "hitm_share", dprof_pct(row->stats.hitm,
							row->stats.level_known), false);
	else
		json_null(fp, "hitm_share", false);
	if (dprof_report__remote_measured(rep))
		json_double(fp, "remote_share", dprof_pct(row->stats.remote,
							  row->stats.level_known), false);
	else
		json_null(fp, "remote_share", false);
	json_u64(fp, "objects", row->nr_objects, false);
	json_u64(fp, "ws_bytes", row->ws_bytes, false);
	dprof_row__estimate(row, &e);
	dprof_json__estimate(fp, &e, dprof_row__ws_bytes(row, e.est));
	json_u64(fp, "bounced_objects", row->nr_bounced, false);
	json_u64(fp, "object_size", row->obj_size, false);
	/* objects freed while recording: their mean life, alloc to free */
	json_u64(fp, "lifetimes", row->life_n, false);
	if (row->life_n)
		json_double(fp, "lifetime_us", (double)row->life_sum / row->life_n / 1000.0,
			    false);
	else
		json_null(fp, "lifetime_us", false);
	/* under the slab map: its caches' allocations, as the kernel counted them */
	if (row->map.counted)
		json_u64(fp, "allocs_counted", row->map.allocs, false);
	else
		json_null(fp, "allocs_counted", false);
	json_key(fp, "members", false);
	fprintf(fp, "[");
	ms = dprof_row__members(ri, &m);
	for (k = 0; ms && k < m.nr; k++) {
		fprintf(fp, "%s{", k ? ", " : "");
		json_string(fp, "name", ms[k].mb.name, true);
		json_u64(fp, "offset", ms[k].mb.offset, false);
		dprof_json__stats(rep, &ms[k].stats, fp);
		fprintf(fp, "}");
	}
	if (ms)
		dprof_members__exit(&m);
	free(ms);
	fprintf(fp, "]");
	dprof_json__heads(row, fp);
}

/* A type; when it has many sites, they follow in "sites", a line each. */
static void dprof_json__group(const struct dprof_report *rep, const struct dprof_rows *t,
			      const struct dprof_row_group *g, FILE *fp)
{
	size_t k, n = 0;

	dprof_json__row(rep, g->row ? &g->info : &t->info[g->member[0]], fp);
	if (g->row) {
		json_key(fp, "sites", false);
		fprintf(fp, "[\n");
		for (k = 0; k < g->nr; k++) {
			if (!t->shown[g->member[k]])
				continue;
			fprintf(fp, "%s    ", n++ ? ",\n" : "");
			dprof_json__row(rep, &t->info[g->member[k]], fp);
			fprintf(fp, "}");
		}
		fprintf(fp, "]");
	}
	fprintf(fp, "}");
}

static int dprof_json__profile(struct dprof_report *rep, FILE *fp)
{
	struct dprof_rows t;
	size_t i, n = 0;
	int err;

	err = dprof_rows__init(&t, rep, /*sorted=*/true, /*filter=*/true);
	if (err)
		return err;
	fprintf(fp, "{");
	dprof_json__recording(rep, fp);
	json_key(fp, "types", false);
	fprintf(fp, "[\n");
	for (i = 0; i < t.nr_groups; i++) {
		if (!t.group[i].shown)
			continue;
		fprintf(fp, "%s  ", n++ ? ",\n" : "");
		dprof_json__group(rep, &t, &t.group[i], fp);
	}
	fprintf(fp, "\n]}\n");
	dprof_rows__exit(&t);
	return 0;
}

static void dprof_json__geom(const struct dprof_cache_geom *g, FILE *fp)
{
	char buf[128];

	dprof_cache_geom__scnprintf(g, buf, sizeof(buf));
	json_string(fp, "cache", buf, false);
}

static void dprof_json__classify(const struct dprof_report *rep,
				 const struct dprof_view *v, FILE *fp)
{
	const struct dprof_classify *cl = rep->cl;
	struct dprof_view_cl_row *rows = dprof_view__classify_rows(cl, v);
	size_t i, n = 0;
	int k;

	dprof_json__geom(&cl->geom, fp);
	json_u64(fp, "measured_misses", cl->nr_measured, false);
	json_u64(fp, "predicted_misses", cl->nr_predicted, false);
	json_u64(fp, "exact_misses", cl->nr_exact, false);
	json_u64(fp, "total_misses", cl->total.misses, false);
	json_u64(fp, "live_lines_max", cl->max_live_lines, false);
	if (cl->nr_hitm)
		json_u64(fp, "hitm_misses", cl->nr_hitm, false);
	else
		json_null(fp, "hitm_misses", false);
	json_key(fp, "types", false);
	fprintf(fp, "[\n");
	for (i = 0; rows && i < v->nr; i++) {
		const struct dprof_view_row *vr = &v->rows[rows[i].idx];
		const struct dprof_classify_stats *st = &rows[i].st;

		if (!st->misses)
			continue;
		fprintf(fp, "%s  {", n++ ? ",\n" : "");
		json_string(fp, "type", vr->type, true);
		json_string(fp, "desc", vr->desc, false);
		json_u64(fp, "misses", st->misses, false);
		json_double(fp, "miss_share", dprof_pct(st->misses, cl->total.misses), false);
		json_u64(fp, "exact", st->exact, false);
		json_key(fp, "classes", false);
		fprintf(fp, "{");
		for (k = 0; k < DPROF_MISS__MAX; k++)
			json_double(fp, dprof_miss_class__str(k),
				    dprof_pct(st->by_class[k], st->misses), !k);
		fprintf(fp, "}");
		/* measured sharing: null when the sampler measured no HITM */
		if (cl->nr_hitm) {
			json_u64(fp, "hitm", st->hitm, false);
			json_u64(fp, "hitm_true_sharing", st->hitm_ts, false);
			json_u64(fp, "hitm_false_sharing", st->hitm_fs, false);
		} else {
			json_null(fp, "hitm", false);
		}
		fprintf(fp, "}");
	}
	fprintf(fp, "\n]");
	free(rows);
}

static void dprof_json__workingset(const struct dprof_report *rep,
				   const struct dprof_view *v, FILE *fp)
{
	const struct dprof_workingset *ws = rep->ws;
	const struct dprof_cache_geom *g = &ws->cache.geom;
	struct dprof_view_ws_row *rows = dprof_view__ws_rows(ws, v);
	u64 nr_lines = (u64)g->nr_sets * g->ways;
	struct dprof_estimate e;
	size_t i, n = 0;

	dprof_json__geom(g, fp);
	json_u64(fp, "accesses", ws->cache.nr_access, false);
	json_u64(fp, "model_misses", ws->cache.nr_miss, false);
	json_key(fp, "types", false);
	fprintf(fp, "[\n");
	for (i = 0; rows && i < v->nr; i++) {
		const struct dprof_view_row *vr = &v->rows[rows[i].idx];

		if (!rows[i].seen)
			continue;
		fprintf(fp, "%s  {", n++ ? ",\n" : "");
		json_string(fp, "type", vr->type, true);
		json_string(fp, "desc", vr->desc, false);
		json_double(fp, "objects", rows[i].objs, false);
		json_double(fp, "bytes", rows[i].lines * g->line, false);
		json_double(fp, "cache_share", dprof_pct(rows[i].lines, nr_lines), false);
		json_u64(fp, "lines_seen", rows[i].seen, false);
		dprof_estimate__objects(&e, &rows[i].lines_freq, 0, 0);
		json_double(fp, "lines_est", e.est, false);
		json_double(fp, "lines_lo", e.lo, false);
		json_double(fp, "lines_hi", e.hi, false);
		json_u64(fp, "conflict_sets", rows[i].nr_conflict, false);
		fprintf(fp, "}");
	}
	fprintf(fp, "\n]");
	if (rows)
		dprof_view_ws_rows__free(rows, v->nr);
}

static int dprof_json__cache_view(struct dprof_report *rep, FILE *fp)
{
	struct dprof_view_row *vr;
	struct dprof_view view;
	struct dprof_rows t;
	int err;

	err = dprof_rows__init(&t, rep, /*sorted=*/false, /*filter=*/true);
	if (err)
		return err;
	vr = dprof_rows__view_rows(&t, NULL);
	if (!vr) {
		dprof_rows__exit(&t);
		return -ENOMEM;
	}
	dprof_report__view(rep, vr, t.nr, &view);
	fprintf(fp, "{");
	dprof_json__recording(rep, fp);
	if (rep->opts.view == DPROF_VIEW_CLASSIFY)
		dprof_json__classify(rep, &view, fp);
	else
		dprof_json__workingset(rep, &view, fp);
	fprintf(fp, "}\n");
	free(vr);
	dprof_rows__exit(&t);
	return 0;
}

int dprof_report__fprintf_json(struct dprof_report *rep, FILE *fp)
{
	switch (rep->opts.view) {
	case DPROF_VIEW_PROFILE:
		return dprof_json__profile(rep, fp);
	case DPROF_VIEW_CLASSIFY:
	case DPROF_VIEW_WORKINGSET:
		return dprof_json__cache_view(rep, fp);
	case DPROF_VIEW_PATHS:
	case DPROF_VIEW_FLOW:
	case DPROF_VIEW_FLAME:
	case DPROF_VIEW__MAX:
	default:
		pr_err("dprof: --json covers the profile, classify and workingset views; --view=%s: use --graph=FILE.dot\n",
		       dprof_view_kind__str(rep->opts.view));
		return -EINVAL;
	}
}

/* One side of a diff pair: null when the type is not in that recording. */
static void dprof_json__diff_side(FILE *fp, const char *key, const struct dprof_diff_side *side,
				  const struct dprof_diff_row *row, bool misses)
{
	json_key(fp, key, false);
	if (!row) {
		fprintf(fp, "null");
		return;
	}
	fprintf(fp, "{");
	json_u64(fp, "samples", row->stats.samples, true);
	json_double(fp, "share", dprof_diff__share(side, row, misses), false);
	if (misses)
		dprof_json__share_interval(fp, row->stats.misses, side->nr_misses,
					   &row->slices, &side->slices, true);
	else
		dprof_json__share_interval(fp, row->stats.samples, side->nr_samples,
					   &row->slices, &side->slices, false);
	json_u64(fp, "objects", row->nr_objects, false);
	dprof_json__estimate(fp, &row->objects, row->ws_est);
	fprintf(fp, "}");
}

int dprof_diff__fprintf_json(FILE *fp, const struct dprof_diff_side *a,
			     const struct dprof_diff_side *b)
{
	struct dprof_diff_result res;
	size_t i;
	int err;

	err = dprof_diff__pairs(a, b, &res);
	if (err)
		return err;
	fprintf(fp, "{");
	json_string(fp, "a", a->path, true);
	json_string(fp, "b", b->path, false);
	json_string(fp, "share_of", res.misses ? "misses" : "samples", false);
	json_double(fp, "z_critical", res.z_crit, false);
	/* a share's standard error: its batch means' over time slices, or binomial */
	json_string(fp, "share_variance", res.between_runs ? "between_runs" :
		    res.df ? "batch_means" : "binomial", false);
	json_u64(fp, "slices_a", res.slices_a, false);
	json_u64(fp, "slices_b", res.slices_b, false);
	json_u64(fp, "df", res.df, false);
	json_u64(fp, "recordings_a", a->nr_runs, false);
	json_u64(fp, "recordings_b", b->nr_runs, false);
	json_u64(fp, "few_samples", res.nr_few, false);
	json_key(fp, "types", false);
	fprintf(fp, "[");
	for (i = 0; i < res.nr; i++) {
		const struct dprof_diff_pair *p = &res.pairs[i];
		const struct dprof_diff_row *any = p->b ?: p->a;

		fprintf(fp, "%s{", i ? ", " : "");
		json_string(fp, "type", any->type, true);
		json_string(fp, "desc", any->desc, false);
		json_string(fp, "key", any->key, false);
		json_u64(fp, "rows_a", p->a ? p->a->nr_merged : 0, false);
		json_u64(fp, "rows_b", p->b ? p->b->nr_merged : 0, false);
		json_double(fp, "delta", p->delta, false);
		json_double(fp, "se_share", p->se_share, false);
		json_double(fp, "z_share", p->z_share, false);
		json_double(fp, "z_objects", p->z_objects, false);
		json_double(fp, "z", p->z, false);
		json_bool(fp, "significant", p->significant, false);
		dprof_json__diff_side(fp, "A", a, p->a, res.misses);
		dprof_json__diff_side(fp, "B", b, p->b, res.misses);
		fprintf(fp, "}");
	}
	fprintf(fp, "]}\n");
	free(res.pairs);
	return 0;
}
