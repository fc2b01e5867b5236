/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_REPORT_H
#define __PERF_DPROF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include "flow.h"
#include "replay.h"
#include "typeinfo.h"

struct dprof_class;
struct dprof_classify;
struct dprof_histories;
struct dprof_samples;
struct dprof_workingset;

/* The views of perf dprof report. */
enum dprof_view_kind {
	DPROF_VIEW_PROFILE,	/* types ranked by samples (misses) */
	DPROF_VIEW_CLASSIFY,	/* why they miss */
	DPROF_VIEW_WORKINGSET,	/* what they hold of the cache */
	DPROF_VIEW_PATHS,	/* object histories as path traces */
	DPROF_VIEW_FLOW,	/* ... merged into a data flow graph */
	DPROF_VIEW_FLAME,	/* the profile as type -> member -> function stacks */
	DPROF_VIEW__MAX,
};

int dprof_view_kind__parse(const char *str, enum dprof_view_kind *kind);
const char *dprof_view_kind__str(enum dprof_view_kind kind);

/**
 * struct dprof_report_opts - what perf dprof report was asked for
 * @input_name: the perf.data file
 * @view: the view to compute
 * @type_name: --type: one type, by member and code (or the flow's type)
 * @cache_spec: --cache: the cache to model, "[lN:]SIZE[:WAYS[:LINE]]"
 * @sort_str: --sort: samples, misses, latency or objects
 * @percent_limit: rows below this share of the samples are not shown
 * @force: read a file that is not ours (perf data's own -f)
 * @no_snapshot: ignore the slab snapshot (what DWARF typing alone gives)
 * @samples: list every access sample with its type (--samples)
 * @fold: --fold: the rare paths the flow view leaves out
 * @delivery: --event-thread: the events delivered in a thread of their own
 * @type_cache: keep perf's operand typings between reports (--type-cache)
 * @type_cache_dir: where (NULL: the build-id cache directory's .dprof)
 * @heap_wrappers: --heap-wrapper: allocator wrappers besides those found
 */
struct dprof_report_opts {
	const char		*input_name;
	enum dprof_view_kind	view;
	const char		*type_name;
	const char		*cache_spec;
	const char		*sort_str;
	float			percent_limit;
	bool			force;
	bool			no_snapshot;
	bool			samples;
	struct dprof_flow_fold	fold;
	enum dprof_delivery_mode delivery;
	bool			type_cache;
	const char		*type_cache_dir;
	const char		*heap_wrappers;
};

/**
 * struct dprof_report - a recording replayed into the models of the views
 * @opts: what was asked for
 * @replay: the recording, its profile and what it held
 * @ti: the rows' types and members
 * @cl: the miss classification, or NULL
 * @ws: the working set, or NULL
 * @hist: the object histories, or NULL
 * @samples: the access samples one by one, or NULL
 * @all_views: every view's model was computed (the TUI switches views)
 * @no_geom: @all_views without a cache geometry: no @cl, no @ws
 */
struct dprof_report {
	struct dprof_report_opts	opts;
	struct dprof_replay		replay;
	struct dprof_typeinfo		*ti;
	struct dprof_classify		*cl;
	struct dprof_workingset		*ws;
	struct dprof_histories		*hist;
	struct dprof_samples		*samples;
	bool				all_views;
	bool				no_geom;
};

/* 0, or a negative errno already said to the user. */
int dprof_report__open(struct dprof_report *rep, const struct dprof_report_opts *opts);
/* Compute the view asked for, or @all_views; replay the recording into them. */
int dprof_report__run(struct dprof_report *rep, bool all_views);
void dprof_report__close(struct dprof_report *rep);
/* --type must name a type of the recording: -ENOENT said to the user. */
int dprof_report__check_type(struct dprof_report *rep);

static inline double dprof_pct(double part, double total)
{
	return total ? 100.0 * part / total : 0.0;
}

/**
 * struct dprof_rows - the rows of the data profile: classes merged by type
 * @row: the rows
 * @info: per row, its type and description
 * @shown: per row, whether --type and --percent-limit let it be shown
 * @nr: rows
 */
struct dprof_rows {
	struct dprof_class	**row;
	struct dprof_row_info	*info;
	bool			*shown;
	size_t			nr;
	struct dprof_row_group	*group;
	size_t			nr_groups;
};

/**
 * struct dprof_row_group - a type, over the rows of its sites
 * @row: the type's row (dprof_rows__group()), NULL when it has one row
 * @info: @row's type and description ("3 sites")
 * @member: its rows (indexes of dprof_rows::row), in --sort order
 * @nr: how many
 * @shown: --type and --percent-limit let it or one of its rows be shown
 *
 * The data profile ranks types: dprof_rows__init(sorted) groups the rows
 * of a type (a user heap type at many allocation sites, the same type with
 * no object) under it, as perf report's --hierarchy does; --sort=site
 * leaves every row a group of its own.
 */
struct dprof_row_group {
	struct dprof_class	*row;
	struct dprof_row_info	info;
	size_t			*member;
	size_t			nr;
	bool			shown;
};

/* The row and info a group shows on its line. */
static inline const struct dprof_class *
dprof_row_group__row(const struct dprof_rows *t, const struct dprof_row_group *g)
{
	return g->row ?: t->row[g->member[0]];
}

/*
 * @sorted: in --sort order (else as merged); @filter: --type applies to
 * ->shown (the TUI shows every type and opens --type's first).
 */
int dprof_rows__init(struct dprof_rows *t, struct dprof_report *rep,
		     bool sorted, bool filter);
void dprof_rows__exit(struct dprof_rows *t);
/* The first row --type=@name names, or -1. */
ssize_t dprof_rows__find(const struct dprof_rows *t, const char *name);

#endif /* __PERF_DPROF_REPORT_H */
