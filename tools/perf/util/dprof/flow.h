/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_FLOW_H
#define __PERF_DPROF_FLOW_H

#include <linux/types.h>
#include "pathtrace.h"

/*
 * The data flow view of a type (DProf paper §3.4, figure 2): its path
 * traces as one graph from the allocation to the free.  Paths that share
 * a prefix share its nodes, and so do paths that share a suffix.
 */

struct dprof_flow_node;

/**
 * struct dprof_flow_edge - a transition between two successive steps
 * @to: the later step
 * @count: histories that took it
 * @cpu_change: @to ran on another CPU than the step before (the paper's
 *              thick line)
 */
struct dprof_flow_edge {
	struct dprof_flow_node	*to;
	u64			count;
	bool			cpu_change;
};

/**
 * struct dprof_flow_node - a function (or ip) on the paths of a type
 * @key: function start or ip, as in struct dprof_path_step
 * @ip: the first ip seen
 * @kind: alloc, access or free; the root has kind alloc and key 0
 * @count: histories through this node
 * @time_sum: their times since allocation, summed
 * @nr_acc: accesses folded into the node
 * @stats: access samples of its (type, offset, ip)s
 * @nr_in: number of edges into the node
 * @nr_out: number of @out edges
 * @out: edges to later steps, most frequent path first
 * @id: 1.. in depth-first order from the root
 */
struct dprof_flow_node {
	u64			key;
	u64			ip;
	enum dprof_step_kind	kind;
	u64			count;
	u64			time_sum;
	u64			nr_acc;
	struct dprof_stats	stats;
	u32			nr_in;
	u32			nr_out;
	struct dprof_flow_edge	*out;
	u32			id;
};

/**
 * struct dprof_flow - the data flow graph of a type
 * @root: "alloc": its edges lead to the allocation sites
 * @nodes: every node, by @id - 1
 * @nr_nodes: number of @nodes
 * @nr_histories: histories of the type, on the graph or folded
 * @nr_paths: path traces merged into it
 * @nr_folded_paths: rare path traces left out (struct dprof_flow_fold)
 * @nr_folded_histories: histories that took them
 * @fold_min: paths taken by fewer histories than this were folded
 */
struct dprof_flow {
	struct dprof_flow_node	*root;
	struct dprof_flow_node	**nodes;
	size_t			nr_nodes;
	u64			nr_histories;
	size_t			nr_paths;
	size_t			nr_folded_paths;
	u64			nr_folded_histories;
	u64			fold_min;
};

/**
 * struct dprof_flow_fold - which rare paths the graph leaves out
 * @min: a path taken by fewer histories than this is folded (0, 1: none)
 * @pct: ... or by less than this share of the type's histories (percent)
 *
 * The most frequent path is never folded: a graph always has one path.
 */
struct dprof_flow_fold {
	u64	min;
	double	pct;
};

/* The default: a path only one history took is folded. */
#define DPROF_FLOW_FOLD_DEFAULT	((struct dprof_flow_fold){ .min = 2, .pct = 0 })

int dprof_flow_fold__parse(struct dprof_flow_fold *fold, const char *str);
int dprof_flow__build(struct dprof_flow *f, struct dprof_paths *p,
		      const struct dprof_flow_fold *fold);
void dprof_flow__exit(struct dprof_flow *f);

#endif /* __PERF_DPROF_FLOW_H */
