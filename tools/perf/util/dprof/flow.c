// SPDX-License-Identifier: GPL-2.0
/*
 * The data flow graph of a type (DProf paper §3.4).
 *
 * The paths go into a trie from a virtual "alloc" root, which merges
 * common prefixes; the trie is then minimised bottom-up like an acyclic
 * automaton: two nodes with the same function, kind and outgoing edges
 * (to the same merged nodes, with the same CPU-change flags) are one
 * node, which merges common suffixes up to the free routine.  Counts on
 * nodes and edges are histories.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>
#include "flow.h"

static void flow_node__delete(struct dprof_flow_node *node)
{
	free(node->out);
	free(node);
}

static struct dprof_flow_edge *flow_node__edge(struct dprof_flow_node *node,
					       u64 key,
					       enum dprof_step_kind kind,
					       bool cpu_change)
{
	u32 i;

	for (i = 0; i < node->nr_out; i++) {
		struct dprof_flow_edge *e = &node->out[i];

		if (e->to->key == key && e->to->kind == kind &&
		    e->cpu_change == cpu_change)
			return e;
	}
	return NULL;
}

static struct dprof_flow_edge *flow_node__add_edge(struct dprof_flow_node *node,
						   struct dprof_flow_node *to,
						   bool cpu_change)
{
	struct dprof_flow_edge *out;

	out = realloc(node->out, (node->nr_out + 1) * sizeof(*out));
	if (!out)
		return NULL;
	node->out = out;
	out = &out[node->nr_out++];
	out->to = to;
	out->count = 0;
	out->cpu_change = cpu_change;
	return out;
}

/* Prefix merge: walk @path down the trie from @f->root, adding what is new. */
static int flow__add_path(struct dprof_flow *f, const struct dprof_path *path)
{
	struct dprof_flow_node *node = f->root;
	size_t i;

	node->count += path->count;
	for (i = 0; i < path->nr_steps; i++) {
		const struct dprof_path_step *s = &path->steps[i];
		struct dprof_flow_edge *e;

		e = flow_node__edge(node, s->key, s->kind, s->cpu_change);
		if (!e) {
			struct dprof_flow_node *to = zalloc(sizeof(*to));

			if (!to)
				return -ENOMEM;
			to->key = s->key;
			to->ip = s->ip;
			to->kind = s->kind;
			e = flow_node__add_edge(node, to, s->cpu_change);
			if (!e) {
				free(to);
				return -ENOMEM;
			}
		}
		e->count += path->count;
		node = e->to;
		node->count += path->count;
		node->time_sum += s->time_sum;
		node->nr_acc += s->nr_acc;
		dprof_stats__add(&node->stats, &s->stats);
	}
	return 0;
}

/* Nodes of equal function and kind whose edges lead to the same places. */
static bool flow_node__equiv(const struct dprof_flow_node *a,
			     const struct dprof_flow_node *b)
{
	u32 i, j;

	if (a->key != b->key || a->kind != b->kind || a->nr_out != b->nr_out)
		return false;
	for (i = 0; i < a->nr_out; i++) {
		for (j = 0; j < b->nr_out; j++) {
			if (a->out[i].to == b->out[j].to &&
			    a->out[i].cpu_change == b->out[j].cpu_change)
				break;
		}
		if (j == b->nr_out)
			return false;
	}
	return true;
}

/* Fold @dup into its equivalent @node: counts and edge counts add up. */
static void flow_node__fold(struct dprof_flow_node *node,
			    struct dprof_flow_node *dup)
{
	u32 i, j;

	node->count += dup->count;
	node->time_sum += dup->time_sum;
	node->nr_acc += dup->nr_acc;
	dprof_stats__add(&node->stats, &dup->stats);
	for (i = 0; i < dup->nr_out; i++) {
		for (j = 0; j < node->nr_out; j++) {
			if (node->out[j].to == dup->out[i].to &&
			    node->out[j].cpu_change == dup->out[i].cpu_change) {
				node->out[j].count += dup->out[i].count;
				break;
			}
		}
	}
	flow_node__delete(dup);
}

struct flow_reg {
	struct dprof_flow_node	**nodes;
	size_t			nr;
	size_t			alloc;
};

/*
 * Suffix merge, children first: returns the registered node equivalent
 * to @node (folding @node into it), or registers @node.
 */
static struct dprof_flow_node *flow__minimise(struct flow_reg *reg,
					      struct dprof_flow_node *node,
					      int *err)
{
	size_t i;
	u32 k;

	for (k = 0; k < node->nr_out; k++) {
		node->out[k].to = flow__minimise(reg, node->out[k].to, err);
		if (*err)
			return node;
	}
	for (i = 0; i < reg->nr; i++) {
		if (reg->nodes[i] != node && flow_node__equiv(reg->nodes[i], node)) {
			flow_node__fold(reg->nodes[i], node);
			return reg->nodes[i];
		}
	}
	if (reg->nr == reg->alloc) {
		size_t n = reg->alloc ? reg->alloc * 2 : 32;
		struct dprof_flow_node **v = realloc(reg->nodes, n * sizeof(*v));

		if (!v) {
			*err = -ENOMEM;
			return node;
		}
		reg->nodes = v;
		reg->alloc = n;
	}
	reg->nodes[reg->nr++] = node;
	return node;
}

/* Depth-first numbering from the root; fills f->nodes and nr_in. */
static void flow__number(struct dprof_flow *f, struct dprof_flow_node *node)
{
	u32 k;

	node->id = ++f->nr_nodes;
	f->nodes[node->id - 1] = node;
	for (k = 0; k < node->nr_out; k++) {
		struct dprof_flow_node *to = node->out[k].to;

		if (!to->nr_in++)
			flow__number(f, to);
	}
}

/**
 * dprof_flow_fold__parse - parse --fold: "N" histories or "P%" of them
 * @fold: the result
 * @str: "0" folds nothing
 *
 * Return: 0, or -EINVAL.
 */
int dprof_flow_fold__parse(struct dprof_flow_fold *fold, const char *str)
{
	char *end;

	memset(fold, 0, sizeof(*fold));
	if (!str || !*str || *str == '-')
		return -EINVAL;
	if (str[strlen(str) - 1] == '%') {
		fold->pct = strtod(str, &end);
		if (*end != '%' || end[1] || !(fold->pct >= 0 && fold->pct <= 100))
			return -EINVAL;
		return 0;
	}
	fold->min = strtoull(str, &end, 10);
	return *end ? -EINVAL : 0;
}

/* Fewest histories a path must have to stay on the graph. */
static u64 flow_fold__min(const struct dprof_flow_fold *fold, u64 nr_histories)
{
	u64 min = fold ? fold->min : 0, pct_min;

	if (fold && fold->pct > 0) {
		/* rounded up: "under P%" */
		pct_min = fold->pct * nr_histories / 100.0;
		if ((double)pct_min * 100.0 < fold->pct * nr_histories)
			pct_min++;
		min = max(min, pct_min);
	}
	return min;
}

/**
 * dprof_flow__build - the data flow graph of a type's path traces
 * @f: the graph to fill (zeroed by this call)
 * @p: the path traces of the type
 * @fold: the rare paths to leave out (NULL: none); counted in @f
 *
 * Return: 0, or -ENOMEM (@f is then empty).
 */
int dprof_flow__build(struct dprof_flow *f, struct dprof_paths *p,
		      const struct dprof_flow_fold *fold)
{
	struct flow_reg reg = { .nr = 0, };
	struct dprof_path **paths;
	size_t nr = 0, i;
	u64 min;
	int err = 0;

	memset(f, 0, sizeof(*f));
	paths = dprof_paths__sorted(p, &nr);
	f->root = zalloc(sizeof(*f->root));
	if (!paths || !f->root) {
		err = -ENOMEM;
		goto out;
	}
	f->root->kind = DPROF_STEP_ALLOC;
	for (i = 0; i < nr; i++)
		f->nr_histories += paths[i]->count;
	min = flow_fold__min(fold, f->nr_histories);
	f->fold_min = min;
	/* most frequent first: the first path always stays */
	for (i = 0; i < nr && !err; i++) {
		if (i && paths[i]->count < min) {
			f->nr_folded_paths++;
			f->nr_folded_histories += paths[i]->count;
			continue;
		}
		err = flow__add_path(f, paths[i]);
		f->nr_paths++;
	}
	if (!err)
		flow__minimise(&reg, f->root, &err);
	if (!err) {
		/* the root is registered too, so reg.nr bounds the node count */
		f->nodes = calloc(reg.nr + 1, sizeof(*f->nodes));
		if (!f->nodes)
			err = -ENOMEM;
		else
			flow__number(f, f->root);
	}
out:
	if (err) {
		/* before numbering, the registry holds every node left */
		for (i = 0; i < reg.nr; i++)
			flow_node__delete(reg.nodes[i]);
		if (!reg.nr && f->root)
			dprof_flow__exit(f);
		memset(f, 0, sizeof(*f));
	}
	free(reg.nodes);
	free(paths);
	return err;
}

static void flow__delete_tree(struct dprof_flow_node *node)
{
	u32 k;

	for (k = 0; k < node->nr_out; k++)
		flow__delete_tree(node->out[k].to);
	flow_node__delete(node);
}

/**
 * dprof_flow__exit - free the graph
 * @f: the graph
 */
void dprof_flow__exit(struct dprof_flow *f)
{
	size_t i;

	if (f->nodes) {
		for (i = 0; i < f->nr_nodes; i++)
			flow_node__delete(f->nodes[i]);
	} else if (f->root) {
		flow__delete_tree(f->root);	/* still a tree */
	}
	free(f->nodes);
	memset(f, 0, sizeof(*f));
}
