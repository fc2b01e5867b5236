// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof report --view=paths|flow: path traces as the paper's table 1,
 * and the data flow graph as an indented tree or as Graphviz DOT.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <subcmd/run-command.h>
#include "util/debug.h"
#include "util/dprof/flow.h"
#include "util/dprof/histories.h"
#include "util/dprof/profile.h"
#include "util/dprof/replay.h"
#include "util/dprof/symname.h"
#include "util/hashmap.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/symbol.h"
#include "dprof-flow.h"

static const char *step__kind_str(enum dprof_step_kind kind)
{
	switch (kind) {
	case DPROF_STEP_ALLOC:	return "alloc";
	case DPROF_STEP_FREE:	return "free";
	case DPROF_STEP_ACCESS:
	default:		return "";
	}
}

/* "func", "func (alloc)", or the address when it has no name. */
static void step__name(const struct dprof_flow_names *names, u64 key,
		       enum dprof_step_kind kind, char *buf, size_t sz)
{
	const char *name = key && names && names->name ?
			   names->name(names->ctx, key, kind) : NULL;

	if (kind == DPROF_STEP_ACCESS) {
		if (name)
			snprintf(buf, sz, "%s", name);
		else
			snprintf(buf, sz, "%#" PRIx64, key);
	} else if (!key) {
		snprintf(buf, sz, "%s", step__kind_str(kind));
	} else if (name) {
		snprintf(buf, sz, "%s (%s)", name, step__kind_str(kind));
	} else {
		snprintf(buf, sz, "%#" PRIx64 " (%s)", key, step__kind_str(kind));
	}
}

static void fprint_time(FILE *fp, double ns)
{
	if (ns < 10000)
		fprintf(fp, "%8.0fns", ns);
	else if (ns < 10000000)
		fprintf(fp, "%8.1fus", ns / 1000);
	else
		fprintf(fp, "%8.1fms", ns / 1000000);
}

/*
 * Average latency, then table 1's hit probability per cache level ("-"
 * for what no sample measured): the variable width part comes last.
 */
static void fprint_stats(FILE *fp, const struct dprof_stats *st)
{
	char levels[128];

	if (st->lat_n)
		fprintf(fp, "  %7.1f", (double)st->lat_sum / st->lat_n);
	else
		fprintf(fp, "  %7s", "-");
	dprof_stats__levels_scnprintf(st, levels, sizeof(levels));
	fprintf(fp, "  %s", levels);
}

/**
 * dprof_paths__fprintf - print the path traces of a type (paper table 1)
 * @p: the path traces
 * @type: the type's name
 * @names: names the functions
 * @fp: where to print
 *
 * Return: 0, or -ENOMEM.
 */
int dprof_paths__fprintf(struct dprof_paths *p, const char *type,
			 const struct dprof_flow_names *names, FILE *fp)
{
	struct dprof_path **paths;
	size_t nr = 0, i, k;
	char name[128];

	paths = dprof_paths__sorted(p, &nr);
	if (!paths)
		return -ENOMEM;
	fprintf(fp, "# path traces of %s: %" PRIu64 " object histories, %zu paths\n",
		type, p->nr_histories, nr);
	if (p->nr_unfreed)
		fprintf(fp, "# %" PRIu64 " histories cut short before the free are left out\n",
			p->nr_unfreed);
	if (!nr)
		fprintf(fp, "# no histories: record with --watch=CACHE:OFFSET/LEN\n");
	for (i = 0; i < nr; i++) {
		const struct dprof_path *path = paths[i];

		fprintf(fp, "#\n# path %zu: %" PRIu64 " histories (%.1f%%)\n", i + 1,
			path->count, 100.0 * path->count / (p->nr_histories ?: 1));
		fprintf(fp, "# %10s  %-32s  %-3s  %-11s  %7s  %s\n", "Avg time",
			"Function", "CPU", "Offsets", "Avg lat",
			"Hit probability per cache level");
		for (k = 0; k < path->nr_steps; k++) {
			const struct dprof_path_step *s = &path->steps[k];

			step__name(names, s->key, s->kind, name, sizeof(name));
			fprintf(fp, "  ");
			fprint_time(fp, dprof_path_step__avg_time(s, path));
			fprintf(fp, "  %-32s  %-3s  %#5" PRIx64 "-%-#5" PRIx64, name,
				s->cpu_change ? "yes" : "no", s->off_lo, s->off_hi);
			fprint_stats(fp, &s->stats);
			fputc('\n', fp);
		}
	}
	free(paths);
	return 0;
}

static double flow__pct(const struct dprof_flow *f, u64 count)
{
	return 100.0 * count / (f->nr_histories ?: 1);
}

static void flow__fprintf_node(const struct dprof_flow *f,
			       const struct dprof_flow_names *names,
			       const struct dprof_flow_edge *e, int depth,
			       bool *shown, FILE *fp)
{
	const struct dprof_flow_node *node = e->to;
	char name[128];
	u32 k;

	step__name(names, node->key, node->kind, name, sizeof(name));
	fprintf(fp, "%*s%s [%u] %s  %" PRIu64 " (%.1f%%)", depth * 2, "",
		e->cpu_change ? "==cpu==>" : "->", node->id, name, e->count,
		flow__pct(f, e->count));
	if (shown[node->id]) {
		fprintf(fp, "  (merged, see above)\n");
		return;
	}
	shown[node->id] = true;
	fprintf(fp, "  t=");
	fprint_time(fp, node->count ? (double)node->time_sum / node->count : 0);
	if (node->stats.level_known || node->stats.lat_n)
		fprint_stats(fp, &node->stats);
	fputc('\n', fp);
	for (k = 0; k < node->nr_out; k++)
		flow__fprintf_node(f, names, &node->out[k], depth + 1, shown, fp);
}

/**
 * dprof_flow__fprintf - print the data flow graph as an indented tree
 * @f: the graph
 * @type: the type's name
 * @names: names the functions
 * @fp: where to print
 *
 * A node reached by more than one edge (a merged suffix) is printed in
 * full once; later edges to it say "merged, see above" and its [id].
 *
 * Return: 0, or -ENOMEM.
 */
int dprof_flow__fprintf(const struct dprof_flow *f, const char *type,
			const struct dprof_flow_names *names, FILE *fp)
{
	bool *shown;
	u32 k;

	fprintf(fp, "# data flow of %s: %" PRIu64 " object histories, %zu paths, alloc to free\n",
		type, f->nr_histories, f->nr_paths);
	if (f->nr_folded_paths)
		fprintf(fp,
			"# folded %zu rare paths (%" PRIu64
			" histories, %.1f%%): each taken by fewer than %" PRIu64
			" histories (--fold)\n",
			f->nr_folded_paths, f->nr_folded_histories,
			flow__pct(f, f->nr_folded_histories), f->fold_min);
	fprintf(fp, "# edge: [node] function  histories (%% of histories)\n");
	fprintf(fp, "#       t=average time since alloc, average latency,\n");
	fprintf(fp, "#       hit probability per cache level (\"-\": not measured)\n");
	fprintf(fp, "# ==cpu==> the object was on another CPU than at the step before\n");
	if (!f->root)
		return 0;
	shown = calloc(f->nr_nodes + 1, sizeof(*shown));
	if (!shown)
		return -ENOMEM;
	fprintf(fp, "alloc  %" PRIu64 " (100.0%%)\n", f->nr_histories);
	for (k = 0; k < f->root->nr_out; k++)
		flow__fprintf_node(f, names, &f->root->out[k], 1, shown, fp);
	free(shown);
	return 0;
}

static void fprint_dot_str(FILE *fp, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		fputc(*s, fp);
	}
}

static double flow_node__cost(const struct dprof_flow_node *node)
{
	if (node->stats.lat_n)
		return (double)node->stats.lat_sum / node->stats.lat_n;
	if (node->stats.level_known)
		return (double)node->stats.misses / node->stats.level_known;
	return 0;
}

/**
 * dprof_flow__fprintf_dot - write the data flow graph as Graphviz DOT
 * @f: the graph
 * @type: the type's name
 * @names: names the functions
 * @fp: where to write
 *
 * Edges that change CPU are thick and red; nodes are darker the higher
 * their average access latency (or miss rate, without latencies).
 *
 * Return: 0.
 */
int dprof_flow__fprintf_dot(const struct dprof_flow *f, const char *type,
			    const struct dprof_flow_names *names, FILE *fp)
{
	double max_cost = 0;
	char name[128];
	size_t i;
	u32 k;

	fprintf(fp, "digraph \"dprof flow: ");
	fprint_dot_str(fp, type);
	fprintf(fp, "\" {\n\tlabel=\"data flow of ");
	fprint_dot_str(fp, type);
	fprintf(fp, ": %" PRIu64 " histories, %zu paths", f->nr_histories,
		f->nr_paths);
	if (f->nr_folded_paths)
		fprintf(fp, ", %zu rare paths folded (%" PRIu64 " histories)",
			f->nr_folded_paths, f->nr_folded_histories);
	fprintf(fp, "\";\n");
	fprintf(fp, "\tnode [shape=box, style=filled, fontname=\"monospace\"];\n");
	for (i = 0; i < f->nr_nodes; i++)
		max_cost = max(max_cost, flow_node__cost(f->nodes[i]));
	for (i = 0; i < f->nr_nodes; i++) {
		const struct dprof_flow_node *node = f->nodes[i];
		int shade = 255;

		if (max_cost > 0)
			shade = 255 - (int)(135 * flow_node__cost(node) / max_cost);
		if (node == f->root)
			snprintf(name, sizeof(name), "alloc");
		else
			step__name(names, node->key, node->kind, name, sizeof(name));
		fprintf(fp, "\tn%u [label=\"", node->id);
		fprint_dot_str(fp, name);
		fprintf(fp, "\\n%" PRIu64 " (%.1f%%)", node->count,
			flow__pct(f, node->count));
		if (node->stats.level_known) {
			dprof_stats__levels_scnprintf(&node->stats, name, sizeof(name));
			fprintf(fp, "\\n%s", name);
		}
		fprintf(fp, "\", fillcolor=\"#%02x%02x%02x\"];\n", shade, shade, shade);
	}
	for (i = 0; i < f->nr_nodes; i++) {
		const struct dprof_flow_node *node = f->nodes[i];

		for (k = 0; k < node->nr_out; k++) {
			const struct dprof_flow_edge *e = &node->out[k];

			fprintf(fp, "\tn%u -> n%u [label=\"%" PRIu64 "%s\"%s];\n",
				node->id, e->to->id, e->count,
				e->cpu_change ? " cpu change" : "",
				e->cpu_change ? ", penwidth=4, color=red" : "");
		}
	}
	fprintf(fp, "}\n");
	return 0;
}

/* user code: what the replay named while the process was there */
static u64 report__func_of(void *ctx, u64 ip)
{
	const struct dprof_flow_report *r = ctx;
	struct map *map = NULL;
	struct symbol *sym = machine__find_kernel_symbol(r->machine, ip, &map);
	const char *name;
	u64 start;

	if (sym && map) {
		start = map__unmap_ip(map, sym->start);
		map__put(map);
		return start;
	}
	map__put(map);
	if (r->replay && dprof_replay__user_func(r->replay, ip, &start, &name))
		return start;
	return 0;
}

static const char *report__name(void *ctx, u64 key,
				enum dprof_step_kind kind __maybe_unused)
{
	const struct dprof_flow_report *r = ctx;
	struct map *map = NULL;
	struct symbol *sym = machine__find_kernel_symbol(r->machine, key, &map);
	const char *name = sym ? dprof_symname(map__dso(map), sym->name) : NULL;
	u64 start;

	/* the kernel map stays, with its symbols, while the machine does */
	map__put(map);
	if (name)
		return name;
	if (r->replay && dprof_replay__user_func(r->replay, key, &start, &name))
		return name;
	return NULL;
}

/* Table 1's hit probability and latency: the samples of (type, offset, ip). */
static void report__samples_of(void *ctx, void *type __maybe_unused,
			       u64 offset, u64 ip, struct dprof_stats *st)
{
	const struct dprof_flow_report *r = ctx;
	struct dprof_site tmp = { .ip = ip, .offset = offset };
	struct dprof_site *site;

	if (r->row && r->row->sites && hashmap__find(r->row->sites, &tmp, &site))
		dprof_stats__add(st, &site->stats);
}

/* The histories shown: of the row's classes, or of the cache named. */
static bool report__want(void *ctx, const void *type)
{
	const struct dprof_flow_report *r = ctx;
	const struct dprof_class *cls = type;

	return cls && ((r->row && cls->row == r->row) ||
		       (cls->name && !strcmp(cls->name, r->name)));
}

/*
 * FILE.dot -> FILE.svg with Graphviz when it is installed; say how to
 * get the picture otherwise.
 */
static void flow__render_svg(const char *dot, FILE *fp)
{
	size_t len = strlen(dot);
	char *svg = malloc(len + 5);
	const char *argv[6] = { "dot", "-Tsvg", dot, "-o", svg, NULL };
	int ret;

	if (!svg)
		return;
	if (len > 4 && !strcmp(dot + len - 4, ".dot"))
		len -= 4;
	memcpy(svg, dot, len);
	memcpy(svg + len, ".svg", 5);
	ret = run_command_v_opt(argv, RUN_COMMAND_NO_STDIN);
	if (!ret)
		fprintf(fp, "# wrote %s and %s\n", dot, svg);
	else
		fprintf(fp, "# wrote %s; no picture (%s): dot -Tsvg %s -o %s\n", dot,
			ret == -ERR_RUN_COMMAND_EXEC ? "Graphviz's dot not installed" :
			"dot failed", dot, svg);
	free(svg);
}

/**
 * dprof_flow__report - print the path traces or the flow graph of a type
 * @r: what to show
 * @fp: where to print
 *
 * Return: 0, or a negative errno.
 */
int dprof_flow__report(const struct dprof_flow_report *r, FILE *fp)
{
	struct dprof_flow_names names = { .name = report__name, .ctx = (void *)r, };
	const struct dprof_histories *h = r->h;
	struct dprof_paths p;
	struct dprof_flow f;
	int err;

	fprintf(fp, "# object histories: %" PRIu64 " (%" PRIu64 " hits); dropped %" PRIu64
		" hits outside a known object's lifetime, %" PRIu64 " objects without a hit\n",
		h->nr_histories, h->nr_hits, h->nr_dropped, h->nr_empty);
	if (r->nr_off_target)
		fprintf(fp,
			"# dropped %" PRIu64
			" false watch hits: the instruction before the trap does not touch the watched bytes (QEMU TCG before 8.1)\n",
			r->nr_off_target);
	if (h->nr_sampled_hits)
		fprintf(fp,
			"# %" PRIu64
			" of the hits are access samples of user heap objects (no watches in user space): a heap object's history is its sampled accesses, not every access\n",
			h->nr_sampled_hits);
	fprintf(fp, "# histories: %" PRIu64 " end in a free, %" PRIu64
		" still open when recording ended, %" PRIu64
		" cut where the object was allocated again without a free (its free unseen)\n",
		h->nr_histories - h->nr_unfreed, h->nr_open, h->nr_cut);
	dprof_paths__init(&p, NULL);
	p.want = report__want;
	p.by_ip = r->by_ip;
	p.func_of = report__func_of;
	p.samples_of = report__samples_of;
	p.ctx = (void *)r;
	err = dprof_paths__build(&p, r->h);
	if (err)
		goto out;
	if (!r->flow) {
		err = dprof_paths__fprintf(&p, r->name, &names, fp);
		goto out;
	}
	err = dprof_flow__build(&f, &p, r->fold);
	if (err)
		goto out;
	err = dprof_flow__fprintf(&f, r->name, &names, fp);
	if (!err && r->graph) {
		FILE *dot = fopen(r->graph, "w");

		if (!dot) {
			err = -errno;
			pr_err("dprof: cannot write %s: %s\n", r->graph, strerror(errno));
		} else {
			dprof_flow__fprintf_dot(&f, r->name, &names, dot);
			fclose(dot);
			flow__render_svg(r->graph, fp);
		}
	}
	dprof_flow__exit(&f);
out:
	dprof_paths__exit(&p);
	return err;
}
