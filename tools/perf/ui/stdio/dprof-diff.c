// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof diff --stdio
 */
#include <errno.h>
#include <stdlib.h>

#include "util/color.h"
#include "util/dprof/diff.h"
#include "dprof.h"
#include "dprof-diff.h"

#define DPROF_DIFF_TYPE_WIDTH	28
#define DPROF_DIFF_DESC_WIDTH	30

static void fprint_lifetime(FILE *fp, const struct dprof_diff_row *row)
{
	if (row && row->life_n)
		fprintf(fp, " %9.1f", (double)row->life_sum / row->life_n / 1000.0);
	else
		fprintf(fp, " %9s", "-");
}

static void fprint_latency(FILE *fp, const struct dprof_diff_side *side,
			   const struct dprof_diff_row *row)
{
	if (side->has_latency && row && row->stats.lat_n)
		fprintf(fp, " %6.0f", (double)row->stats.lat_sum / row->stats.lat_n);
	else
		fprintf(fp, " %6s", "n/a");
}

int dprof_diff__fprintf(FILE *fp, const struct dprof_diff_side *a,
			const struct dprof_diff_side *b, float limit)
{
	struct dprof_diff_pair *pairs;
	bool misses;
	size_t n, i;

	pairs = dprof_diff__pairs(a, b, &misses, &n);
	if (!pairs)
		return -ENOMEM;
	fprintf(fp, "# perf dprof diff: A = %s, B = %s\n", a->path, b->path);
	fprintf(fp, "# shares are of each recording's %s; lifetime: mean alloc->free (us) of objects freed while recording\n",
		misses ? "sampled misses" : "access samples (no misses measured in both)");
	fprintf(fp, "#\n# %-*s %-*s %7s %7s %7s  %9s %9s  %6s %6s  %9s %9s\n",
		DPROF_DIFF_TYPE_WIDTH, "Type", DPROF_DIFF_DESC_WIDTH, "Cache / kind",
		"A", "B", "Delta", "WS A", "WS B", "Lat A", "Lat B", "Life A", "Life B");
	for (i = 0; i < n; i++) {
		const struct dprof_diff_row *any = pairs[i].b ?: pairs[i].a;
		double sa = dprof_diff__share(a, pairs[i].a, misses);
		double sb = dprof_diff__share(b, pairs[i].b, misses);

		if (sa < limit && sb < limit)
			continue;
		fprintf(fp, " ");
		dprof__fprint_column(fp, any->type, DPROF_DIFF_TYPE_WIDTH);
		dprof__fprint_column(fp, any->desc, DPROF_DIFF_DESC_WIDTH);
		fprintf(fp, " %6.2f%% %6.2f%%", sa, sb);
		color_fprintf(fp, pairs[i].delta > 0 ? PERF_COLOR_RED : PERF_COLOR_GREEN,
			      " %+6.2f", pairs[i].delta);
		fprintf(fp, " ");
		dprof__fprint_size(fp, pairs[i].a ? pairs[i].a->ws_bytes : 0, true);
		dprof__fprint_size(fp, pairs[i].b ? pairs[i].b->ws_bytes : 0, true);
		fprintf(fp, " ");
		fprint_latency(fp, a, pairs[i].a);
		fprint_latency(fp, b, pairs[i].b);
		fprintf(fp, " ");
		fprint_lifetime(fp, pairs[i].a);
		fprint_lifetime(fp, pairs[i].b);
		fprintf(fp, "\n");
	}
	free(pairs);
	return 0;
}
