/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_STDIO_DPROF_FLOW_H
#define __PERF_UI_STDIO_DPROF_FLOW_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "util/dprof/pathtrace.h"

struct dprof_class;
struct dprof_flow;
struct dprof_histories;
struct dprof_replay;
struct machine;

/**
 * struct dprof_flow_report - what perf dprof report --view=paths|flow shows
 * @h: the histories, closed (dprof_histories__finish())
 * @row: the type's row in the data profile, for its access samples (or NULL)
 * @name: the type's name, for the titles
 *
 * A history's type is its allocation class: those merged into @row, or
 * named @name (a cache watched but never sampled), are shown.
 * @machine: names and function starts of kernel ips
 * @flow: the flow graph, else the path traces
 * @by_ip: steps are ips, not functions
 * @graph: write the flow graph as DOT to this file too (NULL: no)
 * @fold: the rare paths the flow graph leaves out (NULL: none)
 */
struct dprof_flow_report {
	struct dprof_histories	*h;
	struct dprof_class	*row;
	const char		*name;
	struct machine		*machine;
	bool			flow;
	bool			by_ip;
	const char		*graph;
	const struct dprof_flow_fold *fold;
	u64			nr_off_target;	/* false watch hits dropped */
	struct dprof_replay	*replay;	/* names user functions */
};

/**
 * struct dprof_flow_names - how the printers name a step
 * @name: the function (or ip) @key as text, or NULL for an address;
 *        the string stays owned by @ctx
 * @ctx: passed to @name
 */
struct dprof_flow_names {
	const char	*(*name)(void *ctx, u64 key, enum dprof_step_kind kind);
	void		*ctx;
};

int dprof_paths__fprintf(struct dprof_paths *p, const char *type,
			 const struct dprof_flow_names *names, FILE *fp);
int dprof_flow__fprintf(const struct dprof_flow *f, const char *type,
			const struct dprof_flow_names *names, FILE *fp);
int dprof_flow__fprintf_dot(const struct dprof_flow *f, const char *type,
			    const struct dprof_flow_names *names, FILE *fp);

int dprof_flow__report(const struct dprof_flow_report *r, FILE *fp);

#endif /* __PERF_UI_STDIO_DPROF_FLOW_H */
