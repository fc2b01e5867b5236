/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_STDIO_DPROF_DIFF_H
#define __PERF_UI_STDIO_DPROF_DIFF_H

#include <stdio.h>

struct dprof_diff_side;

/* perf dprof diff: types whose share is below @limit in both are not shown. */
int dprof_diff__fprintf(FILE *fp, const struct dprof_diff_side *a,
			const struct dprof_diff_side *b, float limit);

#endif /* __PERF_UI_STDIO_DPROF_DIFF_H */
