// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof report --view=flame: the data profile as a flame graph whose
 * levels are type -> member -> function.  The folded stacks are the text
 * flamegraph.pl, speedscope and inferno read; the SVG needs nothing but a
 * browser (its inline script only zooms).
 *
 * The stacks are the rows' code sites folded by member (as --type=T's
 * member table folds them) and by the function at their ip (as its code
 * table names them): the model's numbers, added up.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/stringify.h>
#include <linux/zalloc.h>

#include "util/debug.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/symbol.h"
#include "util/dprof/estimate.h"
#include "util/dprof/symname.h"
#include "dprof-flame.h"

/* a code site while the row's stacks are made */
struct flame_site {
	size_t			member;		/* in the row's members */
	const char		*member_name;
	char			*func;
	u64			ip;
	struct dso		*dso;
	struct dprof_stats	stats;
};

static int flame_site__cmp(const void *a, const void *b)
{
	const struct flame_site *sa = a, *sb = b;

	if (sa->member != sb->member)
		return sa->member < sb->member ? -1 : 1;
	return strcmp(sa->func, sb->func);
}

/* members hottest first, then functions hottest first */
static int flame_leaf__cmp(const void *a, const void *b)
{
	const struct dprof_flame_leaf *la = a, *lb = b;

	if (la->member_samples != lb->member_samples)
		return la->member_samples < lb->member_samples ? 1 : -1;
	if (la->member != lb->member)
		return strcmp(la->member, lb->member);
	if (la->stats.samples != lb->stats.samples)
		return la->stats.samples < lb->stats.samples ? 1 : -1;
	return strcmp(la->func, lb->func);
}

static char *flame__func_name(const struct dprof_site *s)
{
	char *name;

	if (s->sym)
		return strdup(dprof_symname(s->sym_dso, s->sym->name));
	if (asprintf(&name, "%#" PRIx64, s->ip) < 0)
		return NULL;
	return name;
}

/* The stacks of row @i, appended to @f->leaf (room for one per site). */
static int dprof_flame__add_row(struct dprof_flame *f, size_t i)
{
	const struct dprof_row_info *ri = &f->t.info[i];
	const struct dprof_class *row = f->t.row[i];
	struct dprof_members *m = &f->m[i];
	struct dprof_member_fold *fold = NULL;
	struct flame_site *fs = NULL;
	struct hashmap_entry *cur;
	size_t bkt, n = 0, k, first;
	u64 *offsets, *member_samples = NULL;
	int err = -ENOMEM;

	offsets = calloc(hashmap__size(row->sites) + 1, sizeof(*offsets));
	fs = calloc(hashmap__size(row->sites) + 1, sizeof(*fs));
	if (!offsets || !fs)
		goto out;
	hashmap__for_each_entry(row->sites, cur, bkt) {
		const struct dprof_site *s = cur->pvalue;

		offsets[n] = s->offset;
		fs[n].func = flame__func_name(s);
		if (!fs[n].func)
			goto out;
		fs[n].ip = s->ip;
		fs[n].dso = s->sym_dso;
		fs[n].stats = s->stats;
		n++;
	}
	fold = dprof_members__fold(m, ri, offsets, n, sizeof(*fold));
	if (!fold)
		goto out;
	member_samples = calloc(m->nr + 1, sizeof(*member_samples));
	if (!member_samples)
		goto out;
	for (k = 0; k < n; k++) {
		fs[k].member = m->of[k];
		fs[k].member_name = fold[m->of[k]].name;
		member_samples[m->of[k]] += fs[k].stats.samples;
	}
	qsort(fs, n, sizeof(*fs), flame_site__cmp);

	first = f->nr;
	for (k = 0; k < n; k++) {
		struct dprof_flame_leaf *l = f->nr > first ? &f->leaf[f->nr - 1] : NULL;

		if (l && l->member == fs[k].member_name && !strcmp(l->func, fs[k].func)) {
			dprof_stats__add(&l->stats, &fs[k].stats);
			l->ip = min(l->ip, fs[k].ip);
			continue;
		}
		l = &f->leaf[f->nr++];
		l->row = i;
		l->member_samples = member_samples[fs[k].member];
		l->member = fs[k].member_name;
		l->func = fs[k].func;
		fs[k].func = NULL;
		l->ip = fs[k].ip;
		l->dso = fs[k].dso;
		l->stats = fs[k].stats;
	}
	qsort(&f->leaf[first], f->nr - first, sizeof(*f->leaf), flame_leaf__cmp);
	err = 0;
out:
	for (k = 0; fs && k < n; k++)
		free(fs[k].func);
	free(fs);
	free(offsets);
	free(fold);
	free(member_samples);
	return err;
}

int dprof_flame__init(struct dprof_flame *f, struct dprof_report *rep)
{
	size_t i, nr_sites = 0;
	int err;

	memset(f, 0, sizeof(*f));
	f->total = rep->replay.prof.nr_samples;
	err = dprof_rows__init(&f->t, rep, /*sorted=*/true, /*filter=*/true);
	if (err)
		return err;
	for (i = 0; i < f->t.nr; i++)
		nr_sites += f->t.shown[i] ? hashmap__size(f->t.row[i]->sites) : 0;
	f->m = calloc(f->t.nr + 1, sizeof(*f->m));
	f->leaf = calloc(nr_sites + 1, sizeof(*f->leaf));
	if (!f->m || !f->leaf) {
		dprof_flame__exit(f);
		return -ENOMEM;
	}
	for (i = 0; i < f->t.nr; i++) {
		if (!f->t.shown[i])
			continue;
		err = dprof_flame__add_row(f, i);
		if (err) {
			dprof_flame__exit(f);
			return err;
		}
		f->scale += f->t.row[i]->stats.samples;
	}
	/*
	 * A picture's width is the types shown: most samples of a profile
	 * are of no type (stack pushes, no memory operand), and a width of
	 * all of them would leave the types a sliver.
	 */
	if (!f->scale)
		f->scale = f->total;
	return 0;
}

void dprof_flame__exit(struct dprof_flame *f)
{
	size_t i;

	for (i = 0; f->leaf && i < f->nr; i++)
		free(f->leaf[i].func);
	zfree(&f->leaf);
	for (i = 0; f->m && i < f->t.nr; i++) {
		if (f->m[i].name)
			dprof_members__exit(&f->m[i]);
	}
	zfree(&f->m);
	dprof_rows__exit(&f->t);
	f->nr = 0;
}

const char *dprof_flame__type(const struct dprof_flame *f, size_t row)
{
	const struct dprof_row_info *ri = &f->t.info[row];
	const char *name = dprof_row_info__name(ri);

	return strcmp(name, "?") || !ri->desc.len ? name : ri->desc.buf;
}

const char *dprof_report__sampler_str(const struct dprof_report *rep)
{
	const struct dprof_recording *rec = &rep->replay.rec;
	const struct dprof_profile *prof = &rep->replay.prof;

	if (rec->has_mem_pmu) {
		if (prof->has_levels && prof->has_latency)
			return "memory-sampling PMU (data address, cache level, latency)";
		if (prof->has_levels)
			return "memory-sampling PMU (data address, cache level, no latency)";
		if (prof->has_latency)
			return "memory-sampling PMU (data address, latency, no cache level)";
		return "memory-sampling PMU (data address, no cache level, no latency)";
	}
	if (rec->has_soft)
		return "cpu-clock + instruction decode (no miss or latency measured)";
	return "none recorded";
}

/* ---------------------------------------------------------------------- */
/* folded stacks                                                           */

/* A frame of a folded line: ';' separates frames, the line ends it. */
static void folded__frame(struct strbuf *sb, const char *name)
{
	const char *p;

	for (p = name; *p; p++)
		strbuf_addch(sb, *p == ';' ? ':' : *p == '\n' ? ' ' : *p);
}

struct folded_line {
	char	*stack;
	u64	count;
};

static int folded_line__cmp(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->stack,
		      ((const struct folded_line *)b)->stack);
}

/*
 * Rows of one type (a heap type from two sites, say) give the same stack:
 * one line each, their counts added, in the byte order of the stacks
 * (stackcollapse's output).
 */
int dprof_flame__fprintf_folded(const struct dprof_flame *f, FILE *fp)
{
	struct folded_line *lines = calloc(f->nr + 1, sizeof(*lines));
	size_t i, n = 0;
	int err = 0;

	if (!lines)
		return -ENOMEM;
	for (i = 0; i < f->nr; i++) {
		const struct dprof_flame_leaf *l = &f->leaf[i];
		struct strbuf sb = STRBUF_INIT;

		folded__frame(&sb, dprof_flame__type(f, l->row));
		strbuf_addch(&sb, ';');
		folded__frame(&sb, l->member);
		strbuf_addch(&sb, ';');
		folded__frame(&sb, l->func);
		lines[n].stack = strbuf_detach(&sb, NULL);
		if (!lines[n].stack) {
			err = -ENOMEM;
			goto out;
		}
		lines[n++].count = l->stats.samples;
	}
	qsort(lines, n, sizeof(*lines), folded_line__cmp);
	for (i = 0; i < n; i++) {
		u64 count = lines[i].count;

		while (i + 1 < n && !strcmp(lines[i].stack, lines[i + 1].stack))
			count += lines[++i].count;
		fprintf(fp, "%s %" PRIu64 "\n", lines[i].stack, count);
	}
out:
	for (i = 0; i < n; i++)
		free(lines[i].stack);
	free(lines);
	return err;
}

/* ---------------------------------------------------------------------- */
/* SVG                                                                     */

#define FLAME_WIDTH	1200	/* pixels, the frames' span */
#define FLAME_PAD	10
#define FLAME_FRAME_H	17
#define FLAME_TOP	64	/* title, sampler, legend */
#define FLAME_BOTTOM	24	/* the zoom's reset line */
#define FLAME_LEVELS	4	/* all, type, member, function */
#define FLAME_CHAR_W	7	/* at font-size 12: what a label may hold */

static void svg__escape(FILE *fp, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", fp);
			break;
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		default:
			/* XML 1.0 allows no control characters but tab and newlines */
			fputc((unsigned char)s[i] < 0x20 ? ' ' : s[i], fp);
			break;
		}
	}
}

/* The label a frame of @w pixels has room for: the name, cut with "..". */
static void svg__label(FILE *fp, const char *name, double w)
{
	size_t room = w > 2 * FLAME_CHAR_W ? (size_t)(w / FLAME_CHAR_W) - 1 : 0;

	if (room < 3)
		return;
	if (strlen(name) <= room) {
		svg__escape(fp, name, room);
		return;
	}
	svg__escape(fp, name, room - 2);
	fputs("..", fp);
}

/* A stable colour from a name, in one hue family per level (as flamegraph.pl). */
static void svg__color(char *buf, size_t sz, int level, const char *name, bool bounce)
{
	unsigned int h = (unsigned int)str_hash(name);
	int v1 = h % 55, v2 = (h >> 8) % 55, v3 = (h >> 16) % 55;

	switch (level) {
	case 0:
		scnprintf(buf, sz, "rgb(200,200,200)");
		break;
	case 1:	/* types: red when bouncing between CPUs, else blue */
		if (bounce)
			scnprintf(buf, sz, "rgb(%d,%d,%d)", 200 + v1, 50 + v2 / 2, 40 + v3 / 2);
		else
			scnprintf(buf, sz, "rgb(%d,%d,%d)", 80 + v1, 130 + v2, 200 + v3);
		break;
	case 2:	/* members: aqua */
		scnprintf(buf, sz, "rgb(%d,%d,%d)", 50 + v1, 180 + v2, 170 + v3);
		break;
	default:	/* functions: yellow-orange, flamegraph.pl's */
		scnprintf(buf, sz, "rgb(%d,%d,%d)", 200 + v1, 130 + v2 * 2, 40 + v3);
		break;
	}
}

struct svg_frame {
	int		level;
	u64		start;		/* samples left of it */
	u64		samples;
	const char	*name;
	const char	*title;		/* the tooltip's text */
	bool		bounce;
};

static double svg__x(const struct dprof_flame *f, u64 samples)
{
	return FLAME_PAD + (f->scale ? (double)FLAME_WIDTH * samples / f->scale : 0);
}

static int svg__height(void)
{
	return FLAME_TOP + FLAME_LEVELS * FLAME_FRAME_H + FLAME_BOTTOM;
}

static void svg__frame(FILE *fp, const struct dprof_flame *f, const struct svg_frame *fr)
{
	double x = svg__x(f, fr->start), w = svg__x(f, fr->start + fr->samples) - x;
	double y = svg__height() - FLAME_BOTTOM - (fr->level + 1) * FLAME_FRAME_H;
	char color[32];

	svg__color(color, sizeof(color), fr->level, fr->name, fr->bounce);
	fprintf(fp, "<g class=\"f\" data-level=\"%d\" data-samples=\"%" PRIu64
		"\" data-start=\"%" PRIu64 "\"%s data-name=\"", fr->level, fr->samples, fr->start,
		fr->bounce ? " data-bounce=\"1\"" : "");
	svg__escape(fp, fr->name, SIZE_MAX);
	fprintf(fp, "\"><title>");
	svg__escape(fp, fr->title, SIZE_MAX);
	fprintf(fp, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"",
		x, y, w, FLAME_FRAME_H - 1);
	fprintf(fp, " fill=\"%s\" rx=\"2\"/>", color);
	fprintf(fp, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FLAME_FRAME_H - 5);
	svg__label(fp, fr->name, w);
	fprintf(fp, "</text></g>\n");
}

/* The type frame's share and its 95% interval, under it as an error bar. */
static void svg__type_frame(FILE *fp, const struct dprof_flame *f, size_t i, u64 start,
			    const struct dprof_report *rep)
{
	const struct dprof_row_info *ri = &f->t.info[i];
	const struct dprof_class *row = f->t.row[i];
	const struct dprof_profile *prof = &rep->replay.prof;
	double lo, hi, y = svg__height() - FLAME_BOTTOM - 2 * FLAME_FRAME_H;
	struct svg_frame fr = {
		.level = 1, .start = start, .samples = row->stats.samples,
		.name = dprof_flame__type(f, i), .bounce = row->nr_bounced > 0,
	};
	char *title = NULL, *name = NULL;

	dprof_share_interval(row->stats.samples, f->total, &row->slices, &prof->slices,
			     false, &lo, &hi);
	if (fr.bounce && asprintf(&name, "%s [bounce]", fr.name) > 0)
		fr.name = name;
	if (asprintf(&title,
		     "%s (%s, %s): %" PRIu64 " samples, %.2f%% (95%%: %.2f-%.2f%%), %" PRIu64
		     " objects sampled, %" PRIu64 " touched by more than one CPU%s",
		     dprof_flame__type(f, i), ri->desc.buf, dprof_kind__str(row->kind),
		     row->stats.samples, dprof_pct(row->stats.samples, f->total), 100 * lo,
		     100 * hi, row->nr_objects, row->nr_bounced,
		     fr.bounce ? " (Bounce)" : "") < 0)
		title = NULL;
	fr.title = title ?: fr.name;
	svg__frame(fp, f, &fr);
	/* the share's interval: where the frame's right edge may be */
	fprintf(fp, "<g class=\"err\"><title>95%% interval of the share: %.2f-%.2f%%</title>",
		100 * lo, 100 * hi);
	fprintf(fp, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.1f\" y2=\"%.1f\"",
		svg__x(f, start) + svg__x(f, f->total * lo) - FLAME_PAD,
		svg__x(f, start) + svg__x(f, f->total * hi) - FLAME_PAD,
		y + 1, y + 1);
	fprintf(fp, " stroke=\"black\" stroke-width=\"2\"/></g>\n");
	free(title);
	free(name);
}

/* click a frame: it spans the width, its stacks under it; click "all": back */
static const char flame_script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"(function () {\n"
"  var W = " __stringify(FLAME_WIDTH) ", P = " __stringify(FLAME_PAD) ";\n"
"  var CW = " __stringify(FLAME_CHAR_W) ";\n"
"  var fs = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"  var total = 0;\n"
"  fs.forEach(function (g) {\n"
"    if (g.dataset.level === '0') total = +g.dataset.samples;\n"
"    g.style.cursor = 'pointer';\n"
"    g.addEventListener('click', function () { zoom(g); });\n"
"  });\n"
"  function label(g, w) {\n"
"    var n = g.dataset.name, room = Math.floor(w / CW) - 1;\n"
"    if (room < 3) return '';\n"
"    return n.length <= room ? n : n.substring(0, room - 2) + '..';\n"
"  }\n"
"  function zoom(z) {\n"
"    var zs = +z.dataset.start, zn = +z.dataset.samples, zl = +z.dataset.level;\n"
"    if (zl === 0) { zs = 0; zn = total; }\n"
"    document.querySelectorAll('g.err').forEach(function (e) {\n"
"      e.style.display = zl === 0 ? '' : 'none';\n"
"    });\n"
"    fs.forEach(function (g) {\n"
"      var s = +g.dataset.start, n = +g.dataset.samples, l = +g.dataset.level;\n"
"      var r = g.querySelector('rect'), t = g.querySelector('text');\n"
"      if (s + n <= zs || s >= zs + zn) { g.style.display = 'none'; return; }\n"
"      var a = Math.max(s, zs), b = Math.min(s + n, zs + zn);\n"
"      var x = P + W * (a - zs) / zn, w = W * (b - a) / zn;\n"
"      g.style.display = '';\n"
"      g.style.opacity = l < zl ? 0.5 : 1;\n"
"      r.setAttribute('x', x.toFixed(2));\n"
"      r.setAttribute('width', w.toFixed(2));\n"
"      t.setAttribute('x', (x + 3).toFixed(2));\n"
"      t.textContent = label(g, w);\n"
"    });\n"
"  }\n"
"})();\n"
"]]></script>\n";

int dprof_flame__fprintf_svg(const struct dprof_flame *f, const struct dprof_report *rep,
			     FILE *fp)
{
	const char *sampler = dprof_report__sampler_str(rep);
	struct svg_frame fr;
	u64 shown = 0, start = 0;
	size_t i, k;
	char *title = NULL;
	int h = svg__height();

	for (i = 0; i < f->t.nr; i++)
		shown += f->t.shown[i] ? f->t.row[i]->stats.samples : 0;

	fprintf(fp, "<?xml version=\"1.0\" standalone=\"no\"?>\n");
	fprintf(fp, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"Verdana, sans-serif\" font-size=\"12\">\n",
		FLAME_WIDTH + 2 * FLAME_PAD, h, FLAME_WIDTH + 2 * FLAME_PAD, h);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\"");
	fprintf(fp, " fill=\"rgb(248,248,240)\"/>\n");
	fprintf(fp, "<text x=\"%d\" y=\"22\" font-size=\"17\" text-anchor=\"middle\">",
		FLAME_PAD + FLAME_WIDTH / 2);
	fprintf(fp, "Data flame graph: type, member, function</text>\n");
	fprintf(fp, "<text x=\"%d\" y=\"40\" text-anchor=\"middle\">access samples: ", FLAME_PAD +
		FLAME_WIDTH / 2);
	svg__escape(fp, sampler, SIZE_MAX);
	fprintf(fp, "; %" PRIu64 " samples, %.1f%% in the types shown</text>\n", f->total,
		dprof_pct(shown, f->total));
	fprintf(fp, "<text x=\"%d\" y=\"56\" font-size=\"11\">width: the types' samples; "
		"<tspan fill=\"rgb(220,60,50)\">red types [bounce]</tspan>: objects touched by more than one CPU; "
		"black bar: the share's 95%% interval; click a frame to zoom, the bottom one to reset</text>\n",
		FLAME_PAD);

	if (asprintf(&title, "all: %" PRIu64 " samples in the types shown, %.1f%% of %" PRIu64
		     " access samples (%s)", f->scale, dprof_pct(f->scale, f->total), f->total,
		     sampler) < 0)
		title = NULL;
	fr = (struct svg_frame){ .level = 0, .start = 0, .samples = f->scale,
				 .name = "all", .title = title ?: "all" };
	svg__frame(fp, f, &fr);
	free(title);

	for (i = 0; i < f->nr; ) {
		size_t row = f->leaf[i].row, end = i;
		u64 mstart = start;

		svg__type_frame(fp, f, row, start, rep);
		while (end < f->nr && f->leaf[end].row == row)
			end++;
		while (i < end) {
			const char *member = f->leaf[i].member;
			u64 ms = 0, fstart = mstart;

			for (k = i; k < end && f->leaf[k].member == member; k++)
				ms += f->leaf[k].stats.samples;
			if (asprintf(&title, "%s.%s: %" PRIu64 " samples, %.2f%% of the type's",
				     dprof_flame__type(f, row), member, ms,
				     dprof_pct(ms, f->t.row[row]->stats.samples)) < 0)
				title = NULL;
			fr = (struct svg_frame){ .level = 2, .start = mstart, .samples = ms,
						 .name = member, .title = title ?: member };
			svg__frame(fp, f, &fr);
			free(title);
			for (; i < k; i++) {
				const struct dprof_flame_leaf *l = &f->leaf[i];

				if (asprintf(&title, "%s in %s: %" PRIu64
					     " samples, %.2f%% of the member's", member, l->func,
					     l->stats.samples, dprof_pct(l->stats.samples, ms)) < 0)
					title = NULL;
				fr = (struct svg_frame){ .level = 3, .start = fstart,
					.samples = l->stats.samples, .name = l->func,
					.title = title ?: l->func };
				svg__frame(fp, f, &fr);
				free(title);
				fstart += l->stats.samples;
			}
			mstart += ms;
		}
		start += f->t.row[row]->stats.samples;
	}
	fputs(flame_script, fp);
	fprintf(fp, "</svg>\n");
	return ferror(fp) ? -EIO : 0;
}

int dprof_report__fprintf_flame(struct dprof_report *rep, const char *graph, FILE *fp)
{
	struct dprof_flame f;
	FILE *svg;
	int err;

	err = dprof_flame__init(&f, rep);
	if (err)
		return err;
	err = dprof_flame__fprintf_folded(&f, fp);
	if (err || !graph)
		goto out;
	svg = fopen(graph, "w");
	if (!svg) {
		err = -errno;
		pr_err("dprof: cannot write %s: %s\n", graph, strerror(errno));
		goto out;
	}
	err = dprof_flame__fprintf_svg(&f, rep, svg);
	if (fclose(svg) && !err)
		err = -errno;
	if (!err)
		pr_info("# wrote %s: the data flame graph\n", graph);
out:
	dprof_flame__exit(&f);
	return err;
}
