// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof report: the recording replayed into the models of the views
 * asked for, and the rows of the data profile.  Printers (ui/) render
 * these models; nothing here prints a view.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "util/annotate.h"
#include "util/debug.h"
#include "util/dso.h"
#include "util/env.h"
#include "util/levenshtein.h"
#include "util/session.h"
#include "classify.h"
#include "hashfn.h"
#include "histories.h"
#include "profile.h"
#include "report.h"
#include "samples.h"
#include "symname.h"
#include "workingset.h"

static const char * const dprof_view_names[DPROF_VIEW__MAX] = {
	[DPROF_VIEW_PROFILE]	= "profile",
	[DPROF_VIEW_CLASSIFY]	= "classify",
	[DPROF_VIEW_WORKINGSET]	= "workingset",
	[DPROF_VIEW_PATHS]	= "paths",
	[DPROF_VIEW_FLOW]	= "flow",
	[DPROF_VIEW_FLAME]	= "flame",
};

int dprof_view_kind__parse(const char *str, enum dprof_view_kind *kind)
{
	int k;

	for (k = 0; k < DPROF_VIEW__MAX; k++) {
		if (!strcmp(str, dprof_view_names[k])) {
			*kind = k;
			return 0;
		}
	}
	return -EINVAL;
}

const char *dprof_view_kind__str(enum dprof_view_kind kind)
{
	return kind < DPROF_VIEW__MAX ? dprof_view_names[kind] : "?";
}

int dprof_report__open(struct dprof_report *rep, const struct dprof_report_opts *opts)
{
	const struct dprof_recording *rec;
	bool histories_only;
	int err;

	memset(rep, 0, sizeof(*rep));
	rep->opts = *opts;
	/* the few names shown are demangled, not whole symbol tables */
	dprof_symname__setup();
	err = dprof_replay__open(&rep->replay, opts->input_name, opts->force);
	if (err) {
		dprof_symname__exit();
		return err;
	}
	rep->replay.no_snapshot = opts->no_snapshot;
	rep->replay.delivery_mode = opts->delivery;
	rep->replay.prof.heap_wrappers = opts->heap_wrappers;
	if (opts->type_cache)
		dprof_replay__keep_typings(&rep->replay, opts->type_cache_dir);

	rec = &rep->replay.rec;
	histories_only = rec->watches && opts->view != DPROF_VIEW_CLASSIFY &&
			 opts->view != DPROF_VIEW_WORKINGSET;
	if (!rec->has_soft && !rec->has_mem_pmu && !histories_only) {
		pr_err("dprof: %s holds no access samples%s; record it with 'perf dprof record'\n",
		       opts->input_name, rec->watches ?
		       " (only object histories: --view=paths|flow)" : "");
		err = -EINVAL;
		goto out_close;
	}
	rep->ti = dprof_typeinfo__new(&rep->replay.res,
				      rep->replay.session->header.env.os_release);
	if (!rep->ti) {
		err = -ENOMEM;
		goto out_close;
	}
	/* the operand typing reads the files the rows' types come from */
	rep->replay.res.debuginfo = dprof_typeinfo__debuginfo;
	rep->replay.res.debuginfo_arg = rep->ti;
	rep->replay.res.trim_debuginfo = dprof_typeinfo__trim;
	rep->replay.res.prefetch = dprof_typeinfo__prefetch;
	/*
	 * No walk of the kernel's DWARF to run beside the replay (an earlier
	 * report kept its lookups): the other CPU is free for perf's reader.
	 */
	if (dprof_typeinfo__prepare(rep->ti) &&
	    rep->replay.delivery_mode == DPROF_DELIVERY_AUTO)
		rep->replay.delivery_mode = DPROF_DELIVERY_SPARE;
	return 0;

out_close:
	dprof_replay__close(&rep->replay);
	dprof_symname__exit();
	return err;
}

/*
 * The cache of a view: --cache, else the recording's header, else this
 * machine.  @level 0 is the last level, 1 the L1d.
 */
static int dprof_report__cache_geom(struct dprof_report *rep, int level,
				    struct dprof_cache_geom *geom)
{
	struct perf_env *env = &rep->replay.session->header.env;

	if (rep->opts.cache_spec) {
		if (dprof_cache_geom__parse(geom, rep->opts.cache_spec)) {
			pr_err("dprof: --cache=%s: want [lN:]SIZE[:WAYS[:LINE]], e.g. l3:32M:16:64\n",
			       rep->opts.cache_spec);
			return -EINVAL;
		}
		return 0;
	}
	if (dprof_cache_geom__env(geom, env, level) &&
	    dprof_cache_geom__sysfs(geom, NULL, level)) {
		if (!rep->all_views)
			pr_err("dprof: no cache geometry in the recording or sysfs: give --cache\n");
		return -ENOENT;
	}
	return 0;
}

static int dprof_report__add_classify(struct dprof_report *rep)
{
	struct dprof_cache_geom geom;
	int err;

	/*
	 * A measured miss is an access that did not hit the L1 (data_src):
	 * classify those against the L1d, predicted ones against the last
	 * level.
	 */
	err = dprof_report__cache_geom(rep, rep->replay.rec.has_data_src ? 1 : 0,
				       &geom);
	if (err)
		return err;
	rep->cl = zalloc(sizeof(*rep->cl));
	if (!rep->cl)
		return -ENOMEM;
	err = dprof_classify__init(rep->cl, &geom);
	if (err) {
		zfree(&rep->cl);
		return err;
	}
	dprof_replay__add_sink(&rep->replay, &rep->cl->sink);
	return 0;
}

static int dprof_report__add_workingset(struct dprof_report *rep)
{
	struct dprof_cache_geom geom;
	int err;

	err = dprof_report__cache_geom(rep, 0, &geom);
	if (err)
		return err;
	rep->ws = zalloc(sizeof(*rep->ws));
	if (!rep->ws)
		return -ENOMEM;
	err = dprof_workingset__init(rep->ws, &geom);
	if (err) {
		zfree(&rep->ws);
		return err;
	}
	dprof_replay__add_sink(&rep->replay, &rep->ws->sink);
	return 0;
}

static int dprof_report__add_histories(struct dprof_report *rep)
{
	rep->hist = zalloc(sizeof(*rep->hist));
	if (!rep->hist)
		return -ENOMEM;
	dprof_histories__init(rep->hist);
	dprof_replay__add_sink(&rep->replay, &rep->hist->sink);
	return 0;
}

static int dprof_report__add_samples(struct dprof_report *rep)
{
	rep->samples = zalloc(sizeof(*rep->samples));
	if (!rep->samples)
		return -ENOMEM;
	dprof_samples__init(rep->samples);
	dprof_replay__add_sink(&rep->replay, &rep->samples->sink);
	return 0;
}

/* The sinks of the views asked for. */
static int dprof_report__add_views(struct dprof_report *rep)
{
	enum dprof_view_kind v = rep->opts.view;
	bool all = rep->all_views;
	int err = 0;

	if (rep->opts.samples)
		err = dprof_report__add_samples(rep);
	if (err)
		return err;

	if (all || v == DPROF_VIEW_PATHS || v == DPROF_VIEW_FLOW)
		err = dprof_report__add_histories(rep);
	if (!err && (all || v == DPROF_VIEW_CLASSIFY))
		err = dprof_report__add_classify(rep);
	if (!err && (all || v == DPROF_VIEW_WORKINGSET))
		err = dprof_report__add_workingset(rep);
	if (err == -ENOENT && all) {
		rep->no_geom = true;	/* the TUI says so in those views */
		err = 0;
	}
	return err;
}

int dprof_report__run(struct dprof_report *rep, bool all_views)
{
	int err;

	rep->all_views = all_views;
	err = dprof_report__add_views(rep);
	if (err)
		return err;
	err = dprof_replay__run(&rep->replay, rep->opts.input_name);
	if (err)
		return err;
	dprof_typeinfo__set_evsel(rep->ti, rep->replay.access_evsel);
	/*
	 * What the replay read and built for itself goes before the views
	 * build theirs: the code of the sampled functions, the DWARF units
	 * the operand typing read (not those the rows' types are in), and
	 * the heap that perf's event queue and the index left free.
	 */
	dprof_resolver__trim(&rep->replay.res);
	dprof_typeinfo__trim(rep->ti);
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	if (rep->cl)
		dprof_classify__finish(rep->cl);
	if (rep->ws)
		err = dprof_workingset__finish(rep->ws);
	if (!err && rep->hist)
		dprof_histories__finish(rep->hist);
	return err;
}

void dprof_report__close(struct dprof_report *rep)
{
	dprof_replay__close(&rep->replay);	/* takes the sinks off */
	if (rep->cl) {
		dprof_classify__exit(rep->cl);
		zfree(&rep->cl);
	}
	if (rep->ws) {
		dprof_workingset__exit(rep->ws);
		zfree(&rep->ws);
	}
	if (rep->hist) {
		dprof_histories__exit(rep->hist);
		zfree(&rep->hist);
	}
	if (rep->samples) {
		dprof_samples__exit(rep->samples);
		zfree(&rep->samples);
	}
	/* the operand typing may hold a debuginfo of ours */
	debuginfo_cache__delete();
	dprof_typeinfo__delete(rep->ti);
	rep->ti = NULL;
	dprof_symname__exit();
}

/* ---------------------------------------------------------------------- */
/* the rows of the data profile                                            */

static void dprof_rows__exit_groups(struct dprof_rows *t)
{
	size_t i;

	for (i = 0; t->group && i < t->nr_groups; i++) {
		struct dprof_row_group *g = &t->group[i];

		if (g->row) {
			dprof_row_info__exit(&g->info);
			dprof_row__free(g->row);
		}
		free(g->member);
	}
	zfree(&t->group);
	t->nr_groups = 0;
}

void dprof_rows__exit(struct dprof_rows *t)
{
	size_t i;

	dprof_rows__exit_groups(t);

	for (i = 0; t->info && i < t->nr; i++)
		dprof_row_info__exit(&t->info[i]);
	zfree(&t->info);
	zfree(&t->shown);
	if (t->row)
		dprof_rows__free(t->row, t->nr);
	t->row = NULL;
	t->nr = 0;
}

/*
 * A user heap object's history starts at the allocation site its row
 * names, past the allocator's wrappers (known once the rows are made),
 * not at the wrapper that called the allocator.
 */
static void dprof_report__heap_sites(struct dprof_report *rep)
{
	struct dprof_history *hist;

	if (!rep->hist)
		return;
	list_for_each_entry(hist, &rep->hist->done, list) {
		const struct dprof_class *cls = hist->type;

		if (cls && cls->kind == DPROF_KIND_HEAP && cls->chain)
			hist->alloc_site = dprof_class__site_ip(cls);
	}
}

/*
 * The type a row's group is by: rows of one type name and size in one
 * DSO's types (a program's own struct is not a library's of that name),
 * whatever their site or kind.  A kernel cache, a kmalloc size class, a per-cpu
 * variable and an untyped heap site are groups of their own.  NULL: one.
 */
static const char *dprof_row__group_type(const struct dprof_row_info *ri,
					 const void **space)
{
	const struct dprof_class *row = ri->row;

	switch (row->kind) {
	case DPROF_KIND_HEAP:
		if (!row->type_key)
			return NULL;
		*space = dprof_dso_id(row->type_dso);
		break;
	case DPROF_KIND_TYPED:
	case DPROF_KIND_STACK:
	case DPROF_KIND_OPERAND:
	case DPROF_KIND_STATIC:
		*space = dprof_dso_id(row->dso);
		break;
	case DPROF_KIND_SLAB:
	case DPROF_KIND_KMALLOC:
	case DPROF_KIND_PERCPU:
	case DPROF_KIND__MAX:
	default:
		return NULL;
	}
	return ri->has_type ? ri->type.buf : NULL;
}

/* "heap: 3 sites, DWARF": where a group's rows come from */
static void dprof_row_group__describe(const struct dprof_rows *t,
				      const struct dprof_row_group *g, struct strbuf *sb)
{
	static const char * const kinds[DPROF_KIND__MAX] = {
		[DPROF_KIND_TYPED]	= "DWARF",
		[DPROF_KIND_STACK]	= "stack",
		[DPROF_KIND_OPERAND]	= "operand",
		[DPROF_KIND_STATIC]	= "static",
	};
	size_t heap = 0, i;
	int k, n = 0;

	for (i = 0; i < g->nr; i++)
		heap += t->row[g->member[i]]->kind == DPROF_KIND_HEAP;
	strbuf_setlen(sb, 0);
	if (heap) {
		strbuf_addf(sb, "heap: %zu site%s", heap, heap > 1 ? "s" : "");
		n++;
	}
	for (k = 0; k < DPROF_KIND__MAX; k++) {
		for (i = 0; kinds[k] && i < g->nr; i++) {
			if (t->row[g->member[i]]->kind == (enum dprof_kind)k) {
				strbuf_addf(sb, "%s%s", n++ ? ", " : "", kinds[k]);
				break;
			}
		}
	}
	/* whose type: a heap site says it, the others their DSO */
	if (!heap && g->row->dso)
		strbuf_addf(sb, " (%s)", dso__short_name(g->row->dso));
}

static int dprof_row_group__cmp(const void *a, const void *b, void *arg)
{
	const struct dprof_row_group *ga = a, *gb = b;
	const struct dprof_rows *t = ((void **)arg)[0];
	enum dprof_sort sort = *(enum dprof_sort *)((void **)arg)[1];
	int ret = dprof_row__sort_cmp(dprof_row_group__row(t, ga),
				      dprof_row_group__row(t, gb), sort);

	if (ret)
		return ret;
	return ga->member[0] < gb->member[0] ? -1 : ga->member[0] > gb->member[0];
}

/*
 * The sorted rows in groups, a type over its rows; each row its own group
 * with @by_site.  The rows are in --sort order: a group's are too.
 */
static int dprof_rows__init_groups(struct dprof_rows *t, struct dprof_report *rep,
				   enum dprof_sort sort, bool by_site)
{
	const char **type = calloc(t->nr + 1, sizeof(*type));
	const void **space = calloc(t->nr + 1, sizeof(*space));
	size_t *of = calloc(t->nr + 1, sizeof(*of));
	void *arg[2] = { t, &sort };
	size_t i, j;
	int err = -ENOMEM;

	t->group = calloc(t->nr + 1, sizeof(*t->group));
	if (!type || !space || !of || !t->group)
		goto out;
	for (i = 0; i < t->nr; i++) {
		struct dprof_row_group *g;

		type[i] = by_site ? NULL : dprof_row__group_type(&t->info[i], &space[i]);
		/* C++'s Table::Rep and Builder::Rep: one name, two types */
		for (j = 0; type[i] && j < i; j++) {
			if (type[j] && space[j] == space[i] && !strcmp(type[j], type[i]) &&
			    t->row[j]->obj_size == t->row[i]->obj_size)
				break;
		}
		of[i] = !type[i] || j == i ? t->nr_groups++ : of[j];
		g = &t->group[of[i]];
		if (!(g->nr & (g->nr - 1))) {
			size_t *m = realloc(g->member, (g->nr ? 2 * g->nr : 1) * sizeof(*m));

			if (!m)
				goto out;
			g->member = m;
		}
		g->member[g->nr++] = i;
		g->shown |= t->shown[i];
	}
	for (i = 0; i < t->nr_groups; i++) {
		struct dprof_row_group *g = &t->group[i];
		struct dprof_class **rows;

		if (g->nr < 2)
			continue;
		rows = calloc(g->nr, sizeof(*rows));
		if (!rows)
			goto out;
		for (j = 0; j < g->nr; j++)
			rows[j] = t->row[g->member[j]];
		g->row = dprof_rows__group(rows, g->nr);
		free(rows);
		if (!g->row)
			goto out;
		if (dprof_row_info__init(&g->info, rep->ti, g->row)) {
			dprof_row__free(g->row);
			g->row = NULL;
			goto out;
		}
		dprof_row_group__describe(t, g, &g->info.desc);
		/* the type is shown when its share is, even if no site's is */
		if (!rep->opts.type_name)
			g->shown = dprof_pct(g->row->stats.samples, rep->replay.prof.nr_samples) >=
				   rep->opts.percent_limit;
	}
	qsort_r(t->group, t->nr_groups, sizeof(*t->group), dprof_row_group__cmp, arg);
	err = 0;
out:
	free(type);
	free(space);
	free(of);
	return err;
}

int dprof_rows__init(struct dprof_rows *t, struct dprof_report *rep,
		     bool sorted, bool filter)
{
	const struct dprof_profile *prof = &rep->replay.prof;
	const char *type_name = filter ? rep->opts.type_name : NULL;
	enum dprof_sort sort = DPROF_SORT_SAMPLES;
	bool by_site = false;
	size_t i;
	int err;

	memset(t, 0, sizeof(*t));
	if (sorted && rep->opts.sort_str) {
		if (dprof_sort__parse(rep->opts.sort_str, &sort, &by_site)) {
			pr_err("dprof: bad sort key '%s': one of samples, misses, latency, objects; and type (default) or site\n",
			       rep->opts.sort_str);
			return -EINVAL;
		}
		if ((sort == DPROF_SORT_MISSES && !prof->has_levels) ||
		    (sort == DPROF_SORT_LATENCY && !prof->has_latency)) {
			pr_err("dprof: cannot sort by %s: the sampler did not measure it\n",
			       rep->opts.sort_str);
			return -EINVAL;
		}
	}

	if (rep->ti) {
		err = dprof_profile__heap_headers(&rep->replay.prof,
						  dprof_typeinfo__is_header, rep->ti);
		if (err)
			return err;
	}
	t->row = dprof_profile__rows(&rep->replay.prof, &t->nr);	/* sets cls->row */
	if (!t->row)
		return -ENOMEM;
	dprof_report__heap_sites(rep);
	if (sorted)
		dprof_rows__sort(t->row, t->nr, sort);
	t->info = calloc(t->nr + 1, sizeof(*t->info));
	t->shown = calloc(t->nr + 1, sizeof(*t->shown));
	if (!t->info || !t->shown) {
		dprof_rows__exit(t);
		return -ENOMEM;
	}
	for (i = 0; i < t->nr; i++) {
		err = dprof_row_info__init(&t->info[i], rep->ti, t->row[i]);
		if (err) {
			while (i--)
				dprof_row_info__exit(&t->info[i]);
			zfree(&t->info);
			dprof_rows__exit(t);
			return err;
		}
		t->shown[i] = (!type_name ||
			       dprof_row_info__matches(&t->info[i], type_name)) &&
			      dprof_pct(t->row[i]->stats.samples, prof->nr_samples) >=
			      rep->opts.percent_limit;
	}
	if (sorted) {
		err = dprof_rows__init_groups(t, rep, sort, by_site);
		if (err) {
			dprof_rows__exit(t);
			return err;
		}
	}
	return 0;
}

ssize_t dprof_rows__find(const struct dprof_rows *t, const char *name)
{
	size_t i;

	for (i = 0; name && i < t->nr; i++) {
		if (dprof_row_info__matches(&t->info[i], name))
			return i;
	}
	return -1;
}

/* --type names the cache of object histories: they are there to show. */
static bool dprof_report__watched(const struct dprof_report *rep, const char *name)
{
	const struct dprof_history *hist;

	if (!rep->hist)
		return false;
	list_for_each_entry(hist, &rep->hist->done, list) {
		const struct dprof_class *cls = hist->type;

		if (cls && cls->name && !strcmp(cls->name, name))
			return true;
	}
	return false;
}

#define DPROF_SUGGEST	3	/* closest names offered for a wrong --type */

struct dprof_suggestion {
	const char	*name;
	int		dist;
};

static void dprof_suggest(struct dprof_suggestion *s, const char *want,
			  const char *name)
{
	int d = levenshtein(want, name, 0, 2, 1, 3), i, j;

	for (i = 0; i < DPROF_SUGGEST; i++) {
		if (s[i].name && !strcmp(s[i].name, name))
			return;
	}
	/* closest first, equals by name: rows come in hash order */
	for (i = 0; i < DPROF_SUGGEST; i++) {
		if (!s[i].name || d < s[i].dist ||
		    (d == s[i].dist && strcmp(name, s[i].name) < 0))
			break;
	}
	if (i == DPROF_SUGGEST)
		return;
	for (j = DPROF_SUGGEST - 1; j > i; j--)
		s[j] = s[j - 1];
	s[i].name = name;
	s[i].dist = d;
}

int dprof_report__check_type(struct dprof_report *rep)
{
	struct dprof_suggestion s[DPROF_SUGGEST] = { { .name = NULL } };
	const char *name = rep->opts.type_name;
	struct dprof_rows t;
	size_t i;
	int err;

	if (!name || dprof_report__watched(rep, name))
		return 0;
	err = dprof_rows__init(&t, rep, /*sorted=*/false, /*filter=*/false);
	if (err)
		return err;
	if (dprof_rows__find(&t, name) >= 0) {
		dprof_rows__exit(&t);
		return 0;
	}
	for (i = 0; i < t.nr; i++) {
		dprof_suggest(s, name, dprof_row_info__name(&t.info[i]));
		if (t.row[i]->name)
			dprof_suggest(s, name, t.row[i]->name);
		else if (!t.info[i].has_type)
			dprof_suggest(s, name, t.info[i].desc.buf);
	}
	pr_err("dprof: --type=%s: no such type in %s%s%s%s%s%s%s\n", name,
	       rep->opts.input_name, s[0].name ? "; closest: " : "",
	       s[0].name ?: "", s[1].name ? ", " : "", s[1].name ?: "",
	       s[2].name ? ", " : "", s[2].name ?: "");
	dprof_rows__exit(&t);
	return -ENOENT;
}
