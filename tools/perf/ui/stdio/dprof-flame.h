/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_STDIO_DPROF_FLAME_H
#define __PERF_UI_STDIO_DPROF_FLAME_H

#include <stdio.h>
#include <linux/types.h>
#include "util/dprof/profile.h"
#include "util/dprof/report.h"
#include "util/dprof/typeinfo.h"

/*
 * perf dprof report --view=flame: the data profile as stacks of
 * type -> member -> function, for flame graphs (folded text, SVG) and
 * pprof.  The stacks are the rows' code sites (struct dprof_site) folded
 * by member and by the function at their ip: no new statistics.
 */

/**
 * struct dprof_flame_leaf - one stack: a row's member touched in a function
 * @row: the row, in dprof_flame's @t
 * @member: the member's name (owned by the row's dprof_members)
 * @member_samples: the member's samples in the row, all functions
 * @func: the function's name, or its ip as hex (owned)
 * @ip: the lowest ip of the sites folded into it
 * @dso: the function's file (not held: the sites hold it), or NULL
 * @stats: what the sites' samples measured
 */
struct dprof_flame_leaf {
	size_t			row;
	const char		*member;
	u64			member_samples;
	char			*func;
	u64			ip;
	struct dso		*dso;
	struct dprof_stats	stats;
};

/**
 * struct dprof_flame - the stacks of the rows shown, in --sort order
 * @t: the rows (--type and --percent-limit applied to ->shown)
 * @m: per row, its members
 * @leaf: the stacks: rows in @t's order, then members and functions
 *        hottest first
 * @nr: stacks
 * @total: every access sample, resolved or not (the root's width)
 */
struct dprof_flame {
	struct dprof_rows	t;
	struct dprof_members	*m;
	struct dprof_flame_leaf	*leaf;
	size_t			nr;
	u64			total;
	u64			scale;		/* SVG: the samples its width stands for */
};

int dprof_flame__init(struct dprof_flame *f, struct dprof_report *rep);
void dprof_flame__exit(struct dprof_flame *f);

/* Row @row's type: its name, else (a heap site's untyped row) its description. */
const char *dprof_flame__type(const struct dprof_flame *f, size_t row);
/* The sampler, as the report's header says it, for titles. */
const char *dprof_report__sampler_str(const struct dprof_report *rep);

/* "type;member;function count" lines, flamegraph.pl's folded stacks. */
int dprof_flame__fprintf_folded(const struct dprof_flame *f, FILE *fp);
/* A self-contained SVG flame graph (inline script for click-to-zoom). */
int dprof_flame__fprintf_svg(const struct dprof_flame *f, const struct dprof_report *rep,
			     FILE *fp);
/* --view=flame: the folded stacks; @graph: the SVG to this file too. */
int dprof_report__fprintf_flame(struct dprof_report *rep, const char *graph, FILE *fp);

#endif /* __PERF_UI_STDIO_DPROF_FLAME_H */
