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

/* Objects estimated in 9 columns, '?' after too few samples to estimate. */
static void fprint_objects(FILE *fp, const struct dprof_diff_row *row)
{
	if (!row)
		fprintf(fp, " %8s ", "-");
	else
		fprintf(fp, " %8.0f%c", row->objects.est, row->objects.few ? '?' : ' ');
}

int dprof_diff__fprintf(FILE *fp, const struct dprof_diff_side *a,
			const struct dprof_diff_side *b, float limit)
{
	struct dprof_diff_result res;
	size_t i;
	int err;

	err = dprof_diff__pairs(a, b, &res);
	if (err)
		return err;
	fprintf(fp, "# perf dprof diff: A = %s", a->path);
	if (a->nr_runs > 1)
		fprintf(fp, " and %u more", a->nr_runs - 1);
	fprintf(fp, ", B = %s", b->path);
	if (b->nr_runs > 1)
		fprintf(fp, " and %u more", b->nr_runs - 1);
	fprintf(fp, "\n");
	fprintf(fp,
		"# shares are of each recording's %s; lifetime: mean alloc->free (us) of objects freed while recording\n",
		res.misses ? "sampled misses" : "access samples (no misses measured in both)");
	fprintf(fp,
		"# ranked by how sure the change is: z, the change over its standard error, of the share\n"
		"# or of the objects touched (log of the estimates' ratio), the stronger\n");
	if (res.between_runs)
		fprintf(fp,
			"# a share's standard error: between runs, its variation over %u (A) and %u (B) recordings,\n"
			"# at least the binomial's; |z| against Student's t on %u degrees of freedom\n",
			a->nr_runs, b->nr_runs, res.df);
	else if (res.df)
		fprintf(fp,
			"# a share's standard error: batch means, its variation over %u (A) and %u (B) time slices,\n"
			"# at least the binomial's; |z| against Student's t on %u degrees of freedom\n",
			res.slices_a, res.slices_b, res.df);
	else
		fprintf(fp,
			"# a share's standard error: binomial (each sample an independent draw): too few time slices\n"
			"# with samples to measure its variation (A %u, B %u, %d needed)\n",
			res.slices_a, res.slices_b, DPROF_SLICES_MIN);
	if (!res.between_runs)
		fprintf(fp,
			"# run-to-run variation is not measured: one recording per side (A1 A2 -- B1 B2 measures it)\n");
	fprintf(fp,
		"# rows matched by type and place: a slab cache, a symbol, a site's function (not its line)\n"
		"# '*': |z| >= %.2f, a change at 95%% over all %zu types (Bonferroni); no mark: within noise\n",
		res.z_crit, res.nr);
	fprintf(fp,
		"# Obj: distinct objects touched, estimated from how often each was sampled (iChao1)\n");
	if (res.nr_few)
		fprintf(fp,
			"# %zu types have fewer than %d samples in A or B ('?'): sampling says little of their objects, only their shares are compared\n",
			res.nr_few, DPROF_FEW_SAMPLES);
	fprintf(fp, "#\n# %-*s %-*s %7s %7s %7s %7s  %9s %9s  %9s %9s  %6s %6s  %9s %9s\n",
		DPROF_DIFF_TYPE_WIDTH, "Type", DPROF_DIFF_DESC_WIDTH, "Cache / kind",
		"A", "B", "Delta", "z", "Obj A", "Obj B", "WS A", "WS B",
		"Lat A", "Lat B", "Life A", "Life B");
	for (i = 0; i < res.nr; i++) {
		const struct dprof_diff_pair *p = &res.pairs[i];
		const struct dprof_diff_row *any = p->b ?: p->a;
		double sa = dprof_diff__share(a, p->a, res.misses);
		double sb = dprof_diff__share(b, p->b, res.misses);

		if (sa < limit && sb < limit)
			continue;
		fprintf(fp, " ");
		dprof__fprint_column(fp, any->type, DPROF_DIFF_TYPE_WIDTH);
		dprof__fprint_column(fp, any->desc, DPROF_DIFF_DESC_WIDTH);
		fprintf(fp, " %6.2f%% %6.2f%%", sa, sb);
		color_fprintf(fp, p->delta > 0 ? PERF_COLOR_RED : PERF_COLOR_GREEN,
			      " %+6.2f", p->delta);
		fprintf(fp, " %+6.1f%c", p->z, p->significant ? '*' : ' ');
		fprintf(fp, " ");
		fprint_objects(fp, p->a);
		fprint_objects(fp, p->b);
		dprof__fprint_size(fp, p->a ? p->a->ws_est : 0, true);
		dprof__fprint_size(fp, p->b ? p->b->ws_est : 0, true);
		fprintf(fp, " ");
		fprint_latency(fp, a, p->a);
		fprint_latency(fp, b, p->b);
		fprintf(fp, " ");
		fprint_lifetime(fp, p->a);
		fprint_lifetime(fp, p->b);
		fprintf(fp, "\n");
	}
	/* rows matched by function, not line: where a side had several, say so */
	for (i = 0; i < res.nr; i++) {
		const struct dprof_diff_pair *p = &res.pairs[i];
		const struct dprof_diff_row *any = p->b ?: p->a;
		u32 na = p->a ? p->a->nr_merged : 0, nb = p->b ? p->b->nr_merged : 0;

		if (na > 1 || nb > 1)
			fprintf(fp,
				"# %s %s: %u rows in A, %u in B, one row here (sites matched by function, not by line)\n",
				any->type, any->key, na, nb);
	}
	free(res.pairs);
	return 0;
}
