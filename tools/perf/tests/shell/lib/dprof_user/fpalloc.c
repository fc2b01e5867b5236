// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program: an interpreter's allocator, shaped as Lua's.
 * The allocator is a function pointer in the state (l_alloc) that
 * tail-calls realloc: built with -O2 it has no frame of its own, and the
 * return address realloc sees is in the entry point that called through
 * the pointer.  Two entry points (mem_malloc, mem_realloc) are used by
 * the code that allocates each struct: new_table and new_string through
 * an inlined collector wrapper (gc_newobj), table_resize for a table's
 * nodes (mem_malloc) and its array (mem_realloc), called from a few
 * frames down (main -> run -> fill -> table_insert -> table_resize) and
 * from new_sized_table; new_upvals is mem_realloc's other user.
 * table_resize's frame has room the calls before it left their return
 * addresses in, as Lua's luaH_resize has.
 *
 *   fpalloc N SECS   N tables (each with a node array and an array part),
 *                    N strings and N upvalue arrays, touched at random
 *                    for SECS; prints "tables N ..."
 *
 * The lines that allocate each struct end with a comment naming it
 * (SITE: struct), which the test reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* __always_inline: glibc's sys/cdefs.h; noinline: the test's gcc -D */

typedef void *(*alloc_fn)(void *ud, void *block, size_t osize, size_t nsize);

struct state {
	alloc_fn	frealloc;
	void		*ud;
	long		nallocs;
	long		total;
};

struct gcheader {
	struct gcheader	*next;
	int		tag;
	int		marked;
};

struct table {
	struct gcheader	hdr;
	struct node	*nodes;
	struct value	*array;
	long		nr_nodes;
	long		nr_array;
	long		lookups;
};

struct string {
	struct gcheader	hdr;
	long		hash;
	long		len;
	char		data[40];
};

struct node {
	long		key;
	long		val;
	struct node	*chain;
};

struct value {
	double		num;
	int		kind;
	int		flags;
};

struct upval {
	long		refs;
	long		slot;
	struct upval	*open;
	long		level;
};

/* the state's allocator: a tail call to realloc (a jmp at -O2) */
static void *l_alloc(void *ud, void *block, size_t osize, size_t nsize)
{
	(void)ud;
	(void)osize;
	if (nsize == 0) {
		free(block);
		return NULL;
	}
	return realloc(block, nsize);
}

static noinline void out_of_memory(void)
{
	fprintf(stderr, "out of memory\n");
	exit(1);
}

/* the entry points: every allocation goes through the function pointer */
noinline void *mem_malloc(struct state *S, size_t size)
{
	void *p = S->frealloc(S->ud, NULL, 0, size);

	if (!p)
		out_of_memory();
	S->nallocs++;
	S->total += size;
	return p;
}

noinline void *mem_realloc(struct state *S, void *block, size_t osize, size_t nsize)
{
	void *p = S->frealloc(S->ud, block, osize, nsize);

	if (!p && nsize)
		out_of_memory();
	S->nallocs++;
	S->total += nsize - osize;
	return p;
}

static struct gcheader *gc_list;

/* the collector's wrapper, inlined into new_table and new_string */
static __always_inline struct gcheader *
gc_newobj(struct state *S, int tag, size_t size)
{
	struct gcheader *o = mem_malloc(S, size);

	o->tag = tag;
	o->marked = 0;
	o->next = gc_list;
	gc_list = o;
	return o;
}

noinline struct table *new_table(struct state *S)
{
	struct table *t = (struct table *)gc_newobj(S, 1, sizeof(*t));	/* SITE: table */

	t->nodes = NULL;
	t->array = NULL;
	t->nr_nodes = 0;
	t->nr_array = 0;
	t->lookups = 0;
	return t;
}

noinline struct string *new_string(struct state *S, long i)
{
	struct string *s = (struct string *)gc_newobj(S, 2, sizeof(*s));	/* SITE: string */

	s->hash = i * 2654435761L;
	s->len = snprintf(s->data, sizeof(s->data), "s%ld", i);
	return s;
}

/* a function of the program's, called in between: not inlined, not seen */
noinline void scratch_use(long *words, int nr)
{
	asm volatile("" : : "r"(words), "r"(nr) : "memory");
}

/* a table's nodes and array part, as Lua's luaH_resize grows them */
noinline void table_resize(struct state *S, struct table *t, long nr_nodes, long nr_array)
{
	long scratch[12];	/* not written: what the calls before left there */
	struct node *nodes;
	long i;

	scratch_use(scratch, 12);
	nodes = mem_malloc(S, nr_nodes * sizeof(*nodes));	/* SITE: node */
	for (i = 0; i < nr_nodes; i++) {
		nodes[i].key = i;
		nodes[i].val = 0;
		nodes[i].chain = NULL;
	}
	t->array = mem_realloc(S, t->array, t->nr_array * sizeof(struct value),	/* SITE: value */
			       nr_array * sizeof(struct value));
	for (i = t->nr_array; i < nr_array; i++) {
		t->array[i].num = i;
		t->array[i].kind = 3;
		t->array[i].flags = 0;
	}
	t->nodes = nodes;
	t->nr_nodes = nr_nodes;
	t->nr_array = nr_array;
	scratch_use(scratch, 12);
}

noinline void table_insert(struct state *S, struct table *t, long i)
{
	/* a string first: its calls leave their return addresses below */
	struct string *s = new_string(S, i);

	table_resize(S, t, 4 + (i & 3), 2 + (i & 1));
	t->nodes[0].val = s->hash;
}

/* a table made to size, as Lua's table constructor: table_resize's second caller */
noinline struct table *new_sized_table(struct state *S, long i)
{
	struct table *t = new_table(S);

	table_resize(S, t, 8, 4 + (i & 1));
	return t;
}

/* a closure's upvalues: mem_realloc's second user */
noinline struct upval *new_upvals(struct state *S, long nr)
{
	struct upval *u = mem_realloc(S, NULL, 0, nr * sizeof(*u));	/* SITE: upval */
	long i;

	for (i = 0; i < nr; i++) {
		u[i].refs = 1;
		u[i].slot = i;
		u[i].open = NULL;
		u[i].level = 0;
	}
	return u;
}

struct world {
	struct table	**tables;
	struct string	**strings;
	struct upval	**upvals;
	long		nr;
};

noinline void fill(struct state *S, struct world *w)
{
	long i;

	for (i = 0; i < w->nr; i++) {
		if (i & 1) {
			w->tables[i] = new_sized_table(S, i);
		} else {
			w->tables[i] = new_table(S);
			table_insert(S, w->tables[i], i);
		}
		w->strings[i] = new_string(S, i);
		w->upvals[i] = new_upvals(S, 2);
	}
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* accesses through typed pointers: perf's data-type profiling types them */
noinline long touch_table(struct table *t)
{
	long sum = 0;
	int k;

	for (k = 0; k < 8; k++) {
		t->lookups++;
		asm volatile("" : : : "memory");
	}
	sum += t->lookups;
	return sum;
}

noinline long touch_node(struct node *n)
{
	int k;

	for (k = 0; k < 8; k++) {
		n->val += k;
		asm volatile("" : : : "memory");
	}
	return n->val;
}

noinline long touch_value(struct value *v)
{
	int k;

	for (k = 0; k < 8; k++) {
		v->flags += k;
		asm volatile("" : : : "memory");
	}
	return v->flags;
}

noinline long touch_upval(struct upval *u)
{
	int k;

	for (k = 0; k < 8; k++) {
		u->level += k;
		asm volatile("" : : : "memory");
	}
	return u->level;
}

noinline long touch_string(struct string *s)
{
	int k;

	for (k = 0; k < 8; k++) {
		s->hash += k;
		asm volatile("" : : : "memory");
	}
	return s->hash;
}

noinline int run(struct state *S, long nr, double secs)
{
	struct world w = { .nr = nr };
	unsigned long r = 88172645463325252UL;
	double end;
	long sum = 0;

	w.tables = calloc(nr, sizeof(*w.tables));
	w.strings = calloc(nr, sizeof(*w.strings));
	w.upvals = calloc(nr, sizeof(*w.upvals));
	if (!w.tables || !w.strings || !w.upvals)
		return 1;
	fill(S, &w);
	end = now() + secs;
	do {
		for (int k = 0; k < 4096; k++) {
			long i;

			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			i = r % nr;
			sum += touch_table(w.tables[i]);
			sum += touch_node(&w.tables[i]->nodes[k % w.tables[i]->nr_nodes]);
			sum += touch_value(&w.tables[i]->array[k % w.tables[i]->nr_array]);
			sum += touch_string(w.strings[i]);
			sum += touch_upval(&w.upvals[i][k & 1]);
		}
	} while (now() < end);
	printf("tables %ld allocations %ld sum %ld\n", nr, S->nallocs, sum);
	return 0;
}

int main(int argc, char **argv)
{
	struct state S = { .frealloc = l_alloc };

	if (argc < 3)
		return 2;
	if (atol(argv[1]) < 1)
		return 2;
	return run(&S, atol(argv[1]), atof(argv[2]));
}
