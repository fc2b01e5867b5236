/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_STDIO_DPROF_FLOW_H
#define __PERF_UI_STDIO_DPROF_FLOW_H

#include <stdio.h>
#include <linux/types.h>
#include "util/dprof/pathtrace.h"

struct dprof_flow;

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

#endif /* __PERF_UI_STDIO_DPROF_FLOW_H */
