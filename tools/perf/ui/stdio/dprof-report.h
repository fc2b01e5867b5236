/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_STDIO_DPROF_REPORT_H
#define __PERF_UI_STDIO_DPROF_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "util/dprof/report.h"

struct dprof_class;
struct dprof_view;
struct dprof_view_row;

/*
 * perf dprof report's text output: the header (what the recording held
 * and how the samples resolved), the data profile's rows, one type by
 * member and code, and the other views' printers fed from the report.
 * The TUI pages through the same text.
 */

/* A row's samples by member, hottest first; names borrowed from @m. */
struct dprof_member_stats {
	struct dprof_member_fold mb;		/* first: dprof_members__fold() */
	struct dprof_stats	stats;
};

/* NULL on errors; else free() it and dprof_members__exit(@m). */
struct dprof_member_stats *dprof_row__members(const struct dprof_row_info *ri,
					      struct dprof_members *m);

/* Column widths of the data profile, from the rows shown. */
struct dprof_profile_cols {
	int	type_width;
	int	desc_width;
	bool	hitm;		/* the recording measured HITM: show its share */
	bool	remote;		/* ... and remote-node data */
};

void dprof_profile_cols__init(struct dprof_profile_cols *c, const struct dprof_report *rep,
			      const struct dprof_rows *t);
bool dprof_report__hitm_measured(const struct dprof_report *rep);
bool dprof_report__remote_measured(const struct dprof_report *rep);
void dprof_report__fprintf_header(const struct dprof_report *rep, FILE *fp);
void dprof_rows__fprintf_columns(const struct dprof_profile_cols *c, FILE *fp);
struct dprof_row_group;
struct dprof_row_info;
void dprof_row__fprintf(const struct dprof_report *rep, const struct dprof_row_info *ri,
			bool site, const struct dprof_profile_cols *c, FILE *fp);
void dprof_rows__fprintf_group(const struct dprof_report *rep, const struct dprof_rows *t,
			       const struct dprof_row_group *g,
			       const struct dprof_profile_cols *c, FILE *fp);
void dprof_row__fprintf_type(const struct dprof_report *rep, const struct dprof_row_info *ri,
			     FILE *fp);
void dprof_rows__fprintf_row(const struct dprof_report *rep, const struct dprof_rows *t,
			     size_t i, const struct dprof_profile_cols *c, FILE *fp);
/* --type=NAME: one row by member and by code location. */
void dprof_rows__fprintf_type(const struct dprof_report *rep, const struct dprof_rows *t,
			      size_t i, FILE *fp);

/* Row @i of @t in a view; @detail: also by member and code. */
void dprof_view_row__init(struct dprof_view_row *vr, const struct dprof_rows *t,
			  size_t i, bool detail);
/* Every row of @t, detailed where --type=@detail names it; free() it. */
struct dprof_view_row *dprof_rows__view_rows(const struct dprof_rows *t,
					     const char *detail);
/* The view of @nr rows for the printers of dprof.c. */
void dprof_report__view(const struct dprof_report *rep, struct dprof_view_row *rows,
			size_t nr, struct dprof_view *v);
/* The classify or workingset view (@kind) of @nr rows. */
int dprof_report__fprintf_cache_view(const struct dprof_report *rep,
				     struct dprof_view_row *rows, size_t nr,
				     enum dprof_view_kind kind, FILE *fp);
/* The paths or (@flow) the flow graph of @row or of the cache @name. */
int dprof_report__fprintf_flow(const struct dprof_report *rep, struct dprof_class *row,
			       const char *name, bool flow, const char *graph,
			       FILE *fp);

/* The view rep->opts asked for, as text; @graph: --graph=FILE. */
int dprof_report__fprintf(struct dprof_report *rep, const char *graph, FILE *fp);

#endif /* __PERF_UI_STDIO_DPROF_REPORT_H */
