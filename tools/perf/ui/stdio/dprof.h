/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_STDIO_DPROF_H
#define __PERF_UI_STDIO_DPROF_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "util/dprof/classify.h"
#include "util/dprof/estimate.h"

struct dprof_class;
struct dprof_classify;
struct dprof_estimate;
struct dprof_profile;
struct dprof_row_info;
struct dprof_workingset;
struct machine;

/* Shared by the dprof stdio printers */
#define DPROF_MEMBER_WIDTH	32	/* a member path in a --type table */

void dprof__fprint_column(FILE *fp, const char *str, int width);
void dprof__fprint_size(FILE *fp, double bytes, bool unit);
void dprof__fprint_estimate(FILE *fp, const struct dprof_estimate *e);
struct dprof_slices;
void dprof__fprint_share_error(FILE *fp, u64 k, u64 n, const struct dprof_slices *row,
			       const struct dprof_slices *all);

/* One row of a view: a data type, its classes point at @row (->row). */
struct dprof_view_row {
	const char			*type;	/* "struct file", or a name */
	const char			*desc;	/* cache, size class, variable */
	struct dprof_class		*row;
	const struct dprof_row_info	*info;	/* member names */
	bool				detail;	/* --type chose it */
};

struct dprof_view {
	struct dprof_profile	*prof;		/* its classes, after rows() */
	struct dprof_view_row	*rows;
	size_t			nr;
	bool			has_soft;	/* software sampler samples */
	bool			has_levels;	/* the sampler measured misses */
	u32			store_minlat;	/* SPE: stores faster than this unsampled */
	struct machine		*machine;	/* names of kernel code, or NULL */
};

/* A row of the classify view: its misses by class; @idx in the view's rows. */
struct dprof_view_cl_row {
	struct dprof_classify_stats	st;
	size_t				idx;
};

/* A row of the workingset view: what it holds of the cache. */
struct dprof_view_ws_row {
	double	lines;		/* average resident lines */
	double	objs;		/* average resident objects */
	u64	seen;		/* distinct lines touched, sampled */
	struct dprof_freq lines_freq;	/* ... by how often: the estimate */
	u32	*set_lines;	/* distinct lines per set */
	u32	nr_conflict;	/* conflict-prone sets it uses */
	size_t	idx;		/* in the view's rows */
};

/* The rows of the classify and workingset views, in the order shown. */
struct dprof_view_cl_row *dprof_view__classify_rows(const struct dprof_classify *cl,
						    const struct dprof_view *v);
struct dprof_view_ws_row *dprof_view__ws_rows(const struct dprof_workingset *ws,
					      const struct dprof_view *v);
void dprof_view_ws_rows__free(struct dprof_view_ws_row *rows, size_t nr);

int dprof_classify__fprintf(const struct dprof_classify *cl,
			    const struct dprof_view *v, FILE *fp);
int dprof_workingset__fprintf(const struct dprof_workingset *ws,
			      const struct dprof_view *v, FILE *fp);
int dprof_workingset__fprintf_svg(const struct dprof_workingset *ws,
				  const struct dprof_view *v, FILE *fp);

#endif /* __PERF_UI_STDIO_DPROF_H */
