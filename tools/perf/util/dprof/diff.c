// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof diff: two recordings' data profiles, matched by type.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "util/debug.h"
#include "diff.h"
#include "report.h"

/*
 * What a row is matched by across two recordings: its description without
 * what moves between two builds of a program, or two kernels: a site's
 * source line ("insert (hash.c:26)" is "insert"), and the suffixes the
 * compiler gives a function's clones and parts (.isra.0, .constprop.1,
 * .part.0, .cold).  A slab cache is its name, a static its symbol.
 */
static char *dprof_diff__key(const char *desc)
{
	static const char * const clones[] = { ".isra.", ".constprop.", ".part.", ".cold" };
	char *key = strdup(desc), *p, *q, *w;
	size_t i;

	if (!key)
		return NULL;
	/* " (file:line)": a parenthesis whose content ends in :digits */
	for (p = key; (p = strstr(p, " (")) != NULL;) {
		q = strchr(p + 2, ')');
		w = q ? q : NULL;
		while (w && w > p + 2 && isdigit((unsigned char)w[-1]))
			w--;
		if (q && w < q && w > p + 2 && w[-1] == ':') {
			memmove(p, q + 1, strlen(q + 1) + 1);
			continue;
		}
		p += 2;
	}
	for (i = 0; i < ARRAY_SIZE(clones); i++) {
		while ((p = strstr(key, clones[i])) != NULL) {
			/* the suffix and its number, up to the end of the word */
			q = p + strlen(clones[i]);
			while (isdigit((unsigned char)*q))
				q++;
			memmove(p, q, strlen(q) + 1);
		}
	}
	return key;
}

/* @row is another site of @into's type and key: one row, said as merged. */
static void dprof_diff_row__merge(struct dprof_diff_row *into, const struct dprof_diff_row *row)
{
	dprof_stats__add(&into->stats, &row->stats);
	dprof_slices__add(&into->slices, &row->slices);
	into->ws_bytes += row->ws_bytes;
	into->nr_objects += row->nr_objects;
	into->objects.est += row->objects.est;
	into->objects.lo += row->objects.lo;
	into->objects.hi += row->objects.hi;
	into->objects.var += row->objects.var;
	into->objects.sampled += row->objects.sampled;
	into->objects.bound = into->objects.bound && row->objects.bound ?
			      into->objects.bound + row->objects.bound : 0;
	into->objects.exact &= row->objects.exact;
	into->objects.few = into->stats.samples < DPROF_FEW_SAMPLES;
	into->ws_est += row->ws_est;
	into->life_sum += row->life_sum;
	into->life_n += row->life_n;
	into->nr_merged++;
}

static void dprof_diff_row__exit(struct dprof_diff_row *row)
{
	free(row->type);
	free(row->desc);
	free(row->key);
}

/* Rows of one type and key (a site's lines, a function's clones) become one. */
static void dprof_diff_side__merge(struct dprof_diff_side *side)
{
	size_t i, j, n = 0;

	for (i = 0; i < side->nr; i++) {
		struct dprof_diff_row *row = &side->rows[i];

		for (j = 0; j < n; j++) {
			if (!strcmp(side->rows[j].type, row->type) &&
			    !strcmp(side->rows[j].key, row->key))
				break;
		}
		if (j < n) {
			dprof_diff_row__merge(&side->rows[j], row);
			dprof_diff_row__exit(row);
			continue;
		}
		if (n != i)
			side->rows[n] = *row;
		n++;
	}
	side->nr = n;
}

int dprof_diff_side__load(struct dprof_diff_side *side)
{
	struct dprof_report_opts opts = {
		.input_name	= side->path,
		.view		= DPROF_VIEW_PROFILE,
	};
	struct dprof_report rep;
	struct dprof_rows t;
	size_t i;
	int err;

	err = dprof_report__open(&rep, &opts);
	if (err)
		return err;
	err = dprof_report__run(&rep, /*all_views=*/false);
	if (err)
		goto out;
	err = dprof_rows__init(&t, &rep, /*sorted=*/false, /*filter=*/false);
	if (err)
		goto out;
	side->rows = calloc(t.nr + 1, sizeof(*side->rows));
	if (!side->rows) {
		err = -ENOMEM;
		goto out_rows;
	}
	for (i = 0; i < t.nr; i++) {
		struct dprof_diff_row *d = &side->rows[i];
		const struct dprof_class *row = t.row[i];

		d->type = strdup(dprof_row_info__name(&t.info[i]));
		d->desc = strdup(t.info[i].desc.buf);
		d->key = dprof_diff__key(t.info[i].desc.buf);
		d->nr_merged = 1;
		if (!d->type || !d->desc || !d->key) {
			side->nr = i + 1;
			err = -ENOMEM;
			goto out_rows;
		}
		d->stats = row->stats;
		d->slices = row->slices;
		d->ws_bytes = row->ws_bytes;
		d->nr_objects = row->nr_objects;
		dprof_row__estimate(row, &d->objects);
		d->ws_est = dprof_row__ws_bytes(row, d->objects.est);
		d->life_sum = row->life_sum;
		d->life_n = row->life_n;
	}
	side->nr = t.nr;
	dprof_diff_side__merge(side);
	side->nr_samples = rep.replay.prof.nr_samples;
	side->nr_misses = rep.replay.prof.total.misses;
	side->nr_runs = 1;
	side->run_n[0] = side->nr_samples;
	side->run_m[0] = side->nr_misses;
	for (i = 0; i < side->nr; i++) {
		side->rows[i].run_n[0] = side->rows[i].stats.samples;
		side->rows[i].run_m[0] = side->rows[i].stats.misses;
	}
	side->slices = rep.replay.prof.slices;
	side->has_levels = rep.replay.prof.has_levels;
	side->has_latency = rep.replay.prof.has_latency;
out_rows:
	dprof_rows__exit(&t);
out:
	dprof_report__close(&rep);
	return err;
}

void dprof_diff_side__exit(struct dprof_diff_side *side)
{
	size_t i;

	for (i = 0; i < side->nr; i++)
		dprof_diff_row__exit(&side->rows[i]);
	free(side->rows);
	side->rows = NULL;
	side->nr = 0;
}

static const struct dprof_diff_row *
dprof_diff_side__find(const struct dprof_diff_side *side,
		      const struct dprof_diff_row *row);

int dprof_diff_side__add_run(struct dprof_diff_side *side, const char *path)
{
	struct dprof_diff_side run = { .path = path };
	u32 r = side->nr_runs;
	size_t i;
	int err;

	if (r >= DPROF_DIFF_MAX_RUNS) {
		pr_err("dprof: diff: at most %d recordings a side\n", DPROF_DIFF_MAX_RUNS);
		return -EINVAL;
	}
	err = dprof_diff_side__load(&run);
	if (err)
		return err;
	for (i = 0; i < run.nr; i++) {
		struct dprof_diff_row *row = &run.rows[i];
		struct dprof_diff_row *into = (struct dprof_diff_row *)
					      dprof_diff_side__find(side, row);

		if (!into) {
			struct dprof_diff_row *rows = realloc(side->rows,
							      (side->nr + 1) * sizeof(*rows));

			if (!rows) {
				err = -ENOMEM;
				break;
			}
			side->rows = rows;
			into = &side->rows[side->nr++];
			*into = *row;
			memset(into->run_n, 0, sizeof(into->run_n));
			memset(into->run_m, 0, sizeof(into->run_m));
			/* the strings are the side's now */
			row->type = NULL;
			row->desc = NULL;
			row->key = NULL;
		} else {
			u32 sites = max(into->nr_merged, row->nr_merged);

			dprof_diff_row__merge(into, row);
			into->nr_merged = sites;	/* a replicate, not another site */
		}
		into->run_n[r] = row->stats.samples;
		into->run_m[r] = row->stats.misses;
	}
	if (!err) {
		side->nr_samples += run.nr_samples;
		side->nr_misses += run.nr_misses;
		side->run_n[r] = run.nr_samples;
		side->run_m[r] = run.nr_misses;
		/* the rows' slices add up the recordings: so do the totals' */
		dprof_slices__add(&side->slices, &run.slices);
		side->has_levels &= run.has_levels;
		side->has_latency &= run.has_latency;
		side->nr_runs++;
	}
	dprof_diff_side__exit(&run);
	return err;
}

static const struct dprof_diff_row *
dprof_diff_side__find(const struct dprof_diff_side *side,
		      const struct dprof_diff_row *row)
{
	size_t i;

	for (i = 0; i < side->nr; i++) {
		if (!strcmp(side->rows[i].type, row->type) &&
		    !strcmp(side->rows[i].key, row->key))
			return &side->rows[i];
	}
	return NULL;
}

double dprof_diff__share(const struct dprof_diff_side *side,
			 const struct dprof_diff_row *row, bool misses)
{
	if (!row)
		return 0;
	if (misses)
		return dprof_pct(row->stats.misses, side->nr_misses);
	return dprof_pct(row->stats.samples, side->nr_samples);
}

static int diff_pair__cmp(const void *x, const void *y)
{
	const struct dprof_diff_pair *p = x, *q = y;
	double a = fabs(p->z), b = fabs(q->z);

	if (a != b)
		return a < b ? 1 : -1;
	a = fabs(p->delta);
	b = fabs(q->delta);
	return a < b ? 1 : a > b ? -1 : 0;
}

static u64 diff_row__count(const struct dprof_diff_row *row, bool misses)
{
	if (!row)
		return 0;
	return misses ? row->stats.misses : row->stats.samples;
}

static bool diff_row__few(const struct dprof_diff_row *row)
{
	return !row || row->stats.samples < DPROF_FEW_SAMPLES;
}

/*
 * The variance of a row's share on one side, a fraction squared: the
 * binomial's at the share @p both sides pooled, or, from @slices on, that
 * of its batch means where that is more.  A row not on the side has no
 * samples in any slice: the binomial's alone.  With two recordings or
 * more, the variance of their shares over their number where that is
 * more: two recordings' spread can fall far below their sampling error
 * by chance (a row seen only at start-up, equal in both), and the mean
 * of the recordings is known no better than its own samples tell.
 */
static double diff_side__var(const struct dprof_diff_side *side,
			     const struct dprof_diff_row *row, bool misses,
			     double p, bool slices)
{
	u64 n = misses ? side->nr_misses : side->nr_samples;
	double var = n ? p * (1 - p) / n : 0;
	u32 k;

	if (slices && row)
		var = fmax(var, dprof_share_var(&row->slices, &side->slices, misses, &k));
	if (side->nr_runs >= 2) {
		double sum = 0, sum2 = 0;
		u32 r;

		/* the spread of its share from recording to recording */
		for (r = 0; r < side->nr_runs; r++) {
			u64 tot = misses ? side->run_m[r] : side->run_n[r];
			u64 c = !row ? 0 : misses ? row->run_m[r] : row->run_n[r];
			double sh = tot ? (double)c / tot : 0;

			sum += sh;
			sum2 += sh * sh;
		}
		sum2 = (sum2 - sum * sum / side->nr_runs) / (side->nr_runs - 1);
		return fmax(var, sum2 / side->nr_runs);
	}
	return var;
}

static void dprof_diff_pair__score(struct dprof_diff_pair *p, const struct dprof_diff_side *a,
				   const struct dprof_diff_side *b, bool misses, bool slices)
{
	u64 na = misses ? a->nr_misses : a->nr_samples;
	u64 nb = misses ? b->nr_misses : b->nr_samples;
	u64 ka = diff_row__count(p->a, misses), kb = diff_row__count(p->b, misses);
	double pool = na + nb ? (double)(ka + kb) / (na + nb) : 0, var;

	p->delta = dprof_diff__share(b, p->b, misses) - dprof_diff__share(a, p->a, misses);
	var = diff_side__var(a, p->a, misses, pool, slices) +
	      diff_side__var(b, p->b, misses, pool, slices);
	p->se_share = 100 * sqrt(var);
	p->z_share = 0;
	if (na && nb && var > 0)
		p->z_share = ((double)kb / nb - (double)ka / na) / sqrt(var);
	/* objects touched: only where both sides have samples enough to estimate */
	p->z_objects = 0;
	if (!diff_row__few(p->a) && !diff_row__few(p->b))
		p->z_objects = dprof_log_ratio_z(&p->a->objects, &p->b->objects);
	p->z = fabs(p->z_objects) > fabs(p->z_share) ? p->z_objects : p->z_share;
}

/* The time slices with samples of a side, at the width the variances use. */
static u32 diff_side__slices(const struct dprof_diff_side *side, bool misses)
{
	u32 k;

	dprof_share_var(&side->slices, &side->slices, misses, &k);
	return k;
}

int dprof_diff__pairs(const struct dprof_diff_side *a, const struct dprof_diff_side *b,
		      struct dprof_diff_result *res)
{
	struct dprof_diff_pair *pairs;
	size_t n = 0, i, tests = 0;

	memset(res, 0, sizeof(*res));
	res->misses = a->has_levels && b->has_levels;
	res->slices_a = diff_side__slices(a, res->misses);
	res->slices_b = diff_side__slices(b, res->misses);
	if (a->nr_runs >= 2 && b->nr_runs >= 2) {
		res->between_runs = true;
		res->df = a->nr_runs + b->nr_runs - 2;
	} else if (res->slices_a >= DPROF_SLICES_MIN && res->slices_b >= DPROF_SLICES_MIN) {
		res->df = min(res->slices_a, res->slices_b) - 1;
	}
	pairs = calloc(a->nr + b->nr + 1, sizeof(*pairs));
	if (!pairs)
		return -ENOMEM;
	for (i = 0; i < b->nr; i++) {
		pairs[n].b = &b->rows[i];
		pairs[n].a = dprof_diff_side__find(a, &b->rows[i]);
		n++;
	}
	for (i = 0; i < a->nr; i++) {
		if (!dprof_diff_side__find(b, &a->rows[i]))
			pairs[n++].a = &a->rows[i];
	}
	for (i = 0; i < n; i++) {
		dprof_diff_pair__score(&pairs[i], a, b, res->misses, res->df);
		/* each pair is tested on its share, and on its objects where estimated */
		tests += 1 + (pairs[i].z_objects != 0);
		if (diff_row__few(pairs[i].a) || diff_row__few(pairs[i].b))
			res->nr_few++;
	}
	/* Student's t where the variances are the batch means': K - 1 degrees of freedom */
	res->z_crit = dprof_t_family(DPROF_DIFF_ALPHA, tests, res->df);
	for (i = 0; i < n; i++)
		pairs[i].significant = fabs(pairs[i].z) >= res->z_crit;
	qsort(pairs, n, sizeof(*pairs), diff_pair__cmp);
	res->pairs = pairs;
	res->nr = n;
	return 0;
}
