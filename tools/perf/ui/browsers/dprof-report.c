// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof report in the TUI: the data profile's rows and views, as the
 * stdio printers write them, paged by the dprof browser (dprof.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ui/stdio/dprof.h"
#include "ui/stdio/dprof-report.h"
#include "util/dprof/report.h"
#include "dprof.h"
#include "dprof-report.h"

struct dprof_tui {
	struct dprof_report		*rep;
	struct dprof_rows		t;
	struct dprof_profile_cols	cols;
	/* browser row -> table row, or t.nr + a type's group of rows */
	size_t				*idx;
	size_t				nr;
	bool				*site;	/* table row: one of a type's sites */
};

/* The type's group a browser row shows, or NULL: a table row. */
static const struct dprof_row_group *dprof_tui__group(const struct dprof_tui *tui,
						      size_t row)
{
	return tui->idx[row] >= tui->t.nr ? &tui->t.group[tui->idx[row] - tui->t.nr] : NULL;
}

static const struct dprof_row_info *dprof_tui__info(const struct dprof_tui *tui, size_t row)
{
	const struct dprof_row_group *g = dprof_tui__group(tui, row);

	return g ? &g->info : &tui->t.info[tui->idx[row]];
}

static int dprof_tui__columns(void *ctx, FILE *fp)
{
	struct dprof_tui *tui = ctx;

	dprof_rows__fprintf_columns(&tui->cols, fp);
	return 0;
}

static int dprof_tui__row(void *ctx, size_t row, FILE *fp)
{
	struct dprof_tui *tui = ctx;

	dprof_row__fprintf(tui->rep, dprof_tui__info(tui, row),
			   !dprof_tui__group(tui, row) && tui->site[tui->idx[row]],
			   &tui->cols, fp);
	return 0;
}

static const char *dprof_tui__name(void *ctx, size_t row)
{
	struct dprof_tui *tui = ctx;

	return dprof_row_info__name(dprof_tui__info(tui, row));
}

/* A browser row's table rows: a type's are its sites' */
static bool dprof_tui__has(const struct dprof_tui *tui, size_t row, size_t i)
{
	const struct dprof_row_group *g = dprof_tui__group(tui, row);
	size_t k;

	if (!g)
		return tui->idx[row] == i;
	for (k = 0; k < g->nr; k++) {
		if (g->member[k] == i)
			return true;
	}
	return false;
}

/* The classify or workingset view of one row, or of all (DPROF_BROWSER_ALL). */
static int dprof_tui__cache_view(struct dprof_tui *tui, size_t row,
				 enum dprof_view_kind kind, FILE *fp)
{
	struct dprof_view_row *vr;
	size_t i, n = 0;
	int err;

	vr = calloc(tui->t.nr + 1, sizeof(*vr));
	if (!vr)
		return -ENOMEM;
	for (i = 0; i < tui->t.nr; i++) {
		if (row == DPROF_BROWSER_ALL ? tui->t.shown[i] : dprof_tui__has(tui, row, i))
			dprof_view_row__init(&vr[n++], &tui->t, i, row != DPROF_BROWSER_ALL);
	}
	err = dprof_report__fprintf_cache_view(tui->rep, vr, n, kind, fp);
	free(vr);
	return err;
}

static int dprof_tui__view(void *ctx, size_t row, enum dprof_browser_view view,
			   FILE *fp)
{
	struct dprof_tui *tui = ctx;
	const struct dprof_recording *rec = &tui->rep->replay.rec;
	const struct dprof_row_group *g = row != DPROF_BROWSER_ALL ? dprof_tui__group(tui, row) :
				       NULL;
	/* a type's flow: its first site's (the biggest) */
	size_t i = row == DPROF_BROWSER_ALL ? 0 : g ? g->member[0] : tui->idx[row];

	switch (view) {
	case DPROF_BROWSER_HEADER:
		dprof_report__fprintf_header(tui->rep, fp);
		return 0;
	case DPROF_BROWSER_CLASSIFY:
		return dprof_tui__cache_view(tui, row, DPROF_VIEW_CLASSIFY, fp);
	case DPROF_BROWSER_WORKINGSET:
		return dprof_tui__cache_view(tui, row, DPROF_VIEW_WORKINGSET, fp);
	case DPROF_BROWSER_FLOW:
	case DPROF_BROWSER_PATHS:
		if (row == DPROF_BROWSER_ALL)
			return 0;
		if (!rec->watches)
			fprintf(fp,
				"# no object histories: record with --watch=CACHE:OFFSET/LEN\n");
		return dprof_report__fprintf_flow(tui->rep, tui->t.row[i],
						  dprof_tui__name(tui, row),
						  view == DPROF_BROWSER_FLOW, NULL, fp);
	case DPROF_BROWSER_MEMBERS:
		if (row != DPROF_BROWSER_ALL)
			dprof_row__fprintf_type(tui->rep, dprof_tui__info(tui, row), fp);
		return 0;
	case DPROF_BROWSER__MAX:
	default:
		return -EINVAL;
	}
}

static enum dprof_browser_view dprof_tui__start_view(enum dprof_view_kind kind)
{
	switch (kind) {
	case DPROF_VIEW_CLASSIFY:
		return DPROF_BROWSER_CLASSIFY;
	case DPROF_VIEW_WORKINGSET:
		return DPROF_BROWSER_WORKINGSET;
	case DPROF_VIEW_FLOW:
		return DPROF_BROWSER_FLOW;
	case DPROF_VIEW_PATHS:
		return DPROF_BROWSER_PATHS;
	case DPROF_VIEW_PROFILE:
	case DPROF_VIEW_FLAME:
	case DPROF_VIEW__MAX:
	default:
		return DPROF_BROWSER_MEMBERS;
	}
}

/*
 * The profile's rows (--percent-limit applies, --type does not: it picks
 * the row to open first, in the --view asked for).
 */
int dprof_report__browse(struct dprof_report *rep)
{
	const struct dprof_recording *rec = &rep->replay.rec;
	const char *type_name = rep->opts.type_name;
	struct dprof_tui tui = { .rep = rep, };
	char status[160];
	struct dprof_browser db = {
		.fprintf_columns = dprof_tui__columns,
		.fprintf_row	 = dprof_tui__row,
		.row_name	 = dprof_tui__name,
		.fprintf_view	 = dprof_tui__view,
		.ctx		 = &tui,
		.input		 = rep->opts.input_name,
	};
	size_t i, g, k;
	int err;

	/* the --stdio header's "# lifetimes:" counters, always in sight */
	if (rec->has_alloc) {
		snprintf(status, sizeof(status),
			 "lifetimes: %" PRIu64 " unknown frees, %" PRIu64
			 " allocs over a live object, %" PRIu64 " frees of earlier objects",
			 rec->tasks.free_unknown, rec->tasks.over_live,
			 rec->tasks.free_earlier);
		db.status = status;
	}
	err = dprof_rows__init(&tui.t, rep, /*sorted=*/true, /*filter=*/false);
	if (err)
		return err;
	dprof_profile_cols__init(&tui.cols, rep, &tui.t);
	tui.idx = calloc(tui.t.nr + tui.t.nr_groups + 1, sizeof(*tui.idx));
	tui.site = calloc(tui.t.nr + 1, sizeof(*tui.site));
	if (!tui.idx || !tui.site) {
		err = -ENOMEM;
		goto out;
	}
	/* a type over its sites, as --stdio prints them */
	for (g = 0; g < tui.t.nr_groups; g++) {
		const struct dprof_row_group *grp = &tui.t.group[g];

		if (!grp->shown)
			continue;
		if (grp->row) {
			if (type_name && !db.start &&
			    dprof_row_info__matches(&grp->info, type_name)) {
				db.start = true;
				db.start_row = tui.nr;
			}
			tui.idx[tui.nr++] = tui.t.nr + g;
		}
		for (k = 0; k < grp->nr; k++) {
			i = grp->member[k];
			if (!tui.t.shown[i])
				continue;
			tui.site[i] = grp->row;
			if (type_name && !db.start &&
			    dprof_row_info__matches(&tui.t.info[i], type_name)) {
				db.start = true;
				db.start_row = tui.nr;
			}
			tui.idx[tui.nr++] = i;
		}
	}
	/* --view=classify|workingset without --type: all types */
	if (!db.start && rep->opts.view != DPROF_VIEW_PROFILE && !type_name) {
		db.start = true;
		db.start_row = DPROF_BROWSER_ALL;
	}
	db.start_view = dprof_tui__start_view(rep->opts.view);
	db.nr_rows = tui.nr;
	err = dprof_browser__run(&db);
out:
	free(tui.site);
	free(tui.idx);
	dprof_rows__exit(&tui.t);
	return err;
}
