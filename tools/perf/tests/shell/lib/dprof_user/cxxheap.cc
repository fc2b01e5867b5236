// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof user heap test, C++: objects made with new and given back
 * with delete, which a malloc replacement's own operators (jemalloc,
 * tcmalloc) take without calling malloc() or free().
 *
 *	cxxheap N	new N nodes, delete every other one, new those again,
 *			touch them all, delete them all; says "allocated A
 *			deleted D"
 */
#include <cstdio>
#include <cstdlib>

struct cxx_node {
	long		val[6];
	cxx_node	*next;
};

static cxx_node *make_node(void)
{
	return new cxx_node();
}

int main(int argc, char **argv)
{
	int i, nr = argc > 1 ? atoi(argv[1]) : 0;
	int allocated = 0, deleted = 0;
	cxx_node **nodes;
	long sum = 0, r;

	if (nr <= 0) {
		fprintf(stderr, "usage: cxxheap N\n");
		return 1;
	}
	nodes = (cxx_node **)calloc(nr, sizeof(*nodes));
	if (!nodes)
		return 1;
	for (i = 0; i < nr; i++, allocated++)
		nodes[i] = make_node();
	for (i = 0; i < nr; i += 2, deleted++)
		delete nodes[i];
	for (i = 0; i < nr; i += 2, allocated++)
		nodes[i] = make_node();
	for (r = 0; r < 20000; r++)
		for (i = 0; i < nr; i++)
			sum += nodes[i]->val[r % 6]++;
	for (i = 0; i < nr; i++, deleted++)
		delete nodes[i];
	free(nodes);
	printf("allocated %d deleted %d (%ld)\n", allocated, deleted, sum);
	return 0;
}
