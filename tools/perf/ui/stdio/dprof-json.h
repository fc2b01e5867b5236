/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_STDIO_DPROF_JSON_H
#define __PERF_UI_STDIO_DPROF_JSON_H

#include <stdio.h>

struct dprof_report;
struct dprof_diff_side;

/*
 * perf dprof report --json: the view asked for as one JSON document, for
 * scripts; the field names are stable (Documentation/perf-dprof.txt).
 */
int dprof_report__fprintf_json(struct dprof_report *rep, FILE *fp);
/* perf dprof diff --json: every type of either recording, surest change first. */
int dprof_diff__fprintf_json(FILE *fp, const struct dprof_diff_side *a,
			     const struct dprof_diff_side *b);

#endif /* __PERF_UI_STDIO_DPROF_JSON_H */
