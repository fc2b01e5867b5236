/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_STDIO_DPROF_JSON_H
#define __PERF_UI_STDIO_DPROF_JSON_H

#include <stdio.h>

struct dprof_report;

/*
 * perf dprof report --json: the view asked for as one JSON document, for
 * scripts; the field names are stable (Documentation/perf-dprof.txt).
 */
int dprof_report__fprintf_json(struct dprof_report *rep, FILE *fp);

#endif /* __PERF_UI_STDIO_DPROF_JSON_H */
