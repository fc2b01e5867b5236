// SPDX-License-Identifier: GPL-2.0
/*
 * Objects from allocators the C library's malloc is not: an in-house pool
 * carved out of its own mapping (pool_get, pool_put, pool_resize), and a
 * tiny allocator linked into the program under jemalloc's prefixed names
 * (je_malloc, je_calloc, je_realloc, je_free), as a server built with its
 * bundled static jemalloc has, carved out of a static arena.
 *
 *   ualloc pool N SECS   N struct node from the pool, a struct table grown
 *                        by pool_resize, read for SECS
 *   ualloc je N SECS     N struct item from je_malloc, a struct bag from
 *                        je_calloc grown by je_realloc, read for SECS
 *
 * Some objects are freed and allocated again while reading, so that the
 * frees are seen.  Prints what it allocated.  odd_get is an allocation
 * function whose entry cannot be hooked (never called).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* built with -fno-inline: the allocators stay functions of their own */
#define NOINLINE

/* the pool: 16-byte granules of a 16 MiB mapping, a free list per size */
#define POOL_SIZE	(16 << 20)
#define POOL_CLASSES	64

struct pool_hdr {
	size_t	size;
	size_t	pad;
};

static char *pool_base;
static size_t pool_used;
static void *pool_free_list[POOL_CLASSES];

static unsigned int pool_class(size_t size)
{
	return (size + 15) / 16;
}

NOINLINE void *pool_get(size_t size)
{
	unsigned int c = pool_class(size);
	struct pool_hdr *h;

	if (c < POOL_CLASSES && pool_free_list[c]) {
		h = pool_free_list[c];
		pool_free_list[c] = *(void **)(h + 1);
		return h + 1;
	}
	if (pool_used + sizeof(*h) + c * 16 > POOL_SIZE)
		return NULL;
	h = (struct pool_hdr *)(pool_base + pool_used);
	pool_used += sizeof(*h) + c * 16;
	h->size = c * 16;
	return h + 1;
}

NOINLINE void pool_put(void *p)
{
	struct pool_hdr *h = (struct pool_hdr *)p - 1;
	unsigned int c = pool_class(h->size);

	if (c < POOL_CLASSES) {
		*(void **)p = pool_free_list[c];
		pool_free_list[c] = h;
	}
}

NOINLINE void *pool_resize(void *p, size_t size)
{
	struct pool_hdr *h = p ? (struct pool_hdr *)p - 1 : NULL;
	void *n;

	if (h && h->size >= size)
		return p;
	n = pool_get(size);
	if (n && h)
		memcpy(n, p, h->size);
	if (n && p)
		pool_put(p);
	return n;
}

/*
 * The pool's allocation again, behind an entry the recorder's hooks cannot
 * move (it starts by reading the TSC): named with --heap-alloc, it is not
 * tracked, and the report's header says why.
 */
void *odd_get(size_t size);
__asm__(".text\n.globl odd_get\n.type odd_get, @function\nodd_get:\n"
	"\trdtsc\n\tjmp pool_get\n.size odd_get, .-odd_get\n");

/* the "static jemalloc": the same scheme, in a static arena */
#define JE_ARENA	(16 << 20)

static _Alignas(64) char je_arena[JE_ARENA];
static size_t je_used;
static void *je_free_list[POOL_CLASSES];

NOINLINE void *je_malloc(size_t size)
{
	unsigned int c = pool_class(size);
	struct pool_hdr *h;

	if (c < POOL_CLASSES && je_free_list[c]) {
		h = je_free_list[c];
		je_free_list[c] = *(void **)(h + 1);
		return h + 1;
	}
	if (je_used + sizeof(*h) + c * 16 > JE_ARENA)
		return NULL;
	h = (struct pool_hdr *)(je_arena + je_used);
	je_used += sizeof(*h) + c * 16;
	h->size = c * 16;
	return h + 1;
}

NOINLINE void je_free(void *p)
{
	struct pool_hdr *h;
	unsigned int c;

	if (!p)
		return;
	h = (struct pool_hdr *)p - 1;
	c = pool_class(h->size);
	if (c < POOL_CLASSES) {
		*(void **)p = je_free_list[c];
		je_free_list[c] = h;
	}
}

NOINLINE void *je_calloc(size_t nmemb, size_t size)
{
	void *p = je_malloc(nmemb * size);

	if (p)
		memset(p, 0, nmemb * size);
	return p;
}

NOINLINE void *je_realloc(void *p, size_t size)
{
	struct pool_hdr *h = p ? (struct pool_hdr *)p - 1 : NULL;
	void *n;

	if (h && h->size >= size)
		return p;
	n = je_malloc(size);
	if (n && h)
		memcpy(n, p, h->size);
	je_free(p);
	return n;
}

struct node {
	long		key;
	long		val;
	struct node	*next;
	long		hits;
};

struct table {
	long		nr;
	long		slot[];
};

struct item {
	long		id;
	long		weight;
	long		count;
	long		spare;
};

struct bag {
	long		nr;
	long		total;
	long		slot[];
};

NOINLINE struct node *new_node(long i)
{
	struct node *n = pool_get(sizeof(*n));

	if (!n)
		exit(1);
	n->key = i;
	n->val = 3 * i;
	n->next = NULL;
	n->hits = 0;
	return n;
}

NOINLINE struct item *new_item(long i)
{
	struct item *it = je_malloc(sizeof(*it));

	if (!it)
		exit(1);
	it->id = i;
	it->weight = 2 * i;
	it->count = 0;
	it->spare = 0;
	return it;
}

/* the readers: their parameters type the accesses */
NOINLINE long read_node(struct node *n)
{
	n->hits++;
	return n->val + n->key;
}

NOINLINE long read_table(struct table *t)
{
	long sum = 0;

	for (long i = 0; i < t->nr; i++)
		sum += t->slot[i];
	return sum;
}

NOINLINE long read_item(struct item *it)
{
	it->count++;
	return it->weight + it->id;
}

NOINLINE long read_bag(struct bag *b)
{
	long sum = 0;

	for (long i = 0; i < b->nr; i++)
		sum += b->slot[i];
	b->total = sum;
	return sum;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int run_pool(int nr, double secs)
{
	struct node **nodes = calloc(nr, sizeof(*nodes));
	struct table *t = NULL;
	long sum = 0, made = 0;
	double end;
	int i;

	pool_base = mmap(NULL, POOL_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (!nodes || pool_base == MAP_FAILED)
		return 1;
	for (i = 0; i < nr; i++) {
		nodes[i] = new_node(i);
		t = pool_resize(t, sizeof(*t) + (i + 1) * sizeof(long));
		if (!t)
			return 1;
		t->nr = i + 1;
		t->slot[i] = i;
		made++;
	}
	end = now() + secs;
	do {
		for (i = 0; i < nr; i++)
			sum += read_node(nodes[i]);
		sum += read_table(t);
		/* one node again: a free and an allocation */
		pool_put(nodes[sum & (nr - 1)]);
		nodes[sum & (nr - 1)] = new_node(sum);
		made++;
	} while (now() < end);
	printf("pool: %ld nodes made, sum %ld\n", made, sum);
	return 0;
}

static int run_je(int nr, double secs)
{
	struct item **items = calloc(nr, sizeof(*items));
	struct bag *b = je_calloc(1, sizeof(*b));
	long sum = 0, made = 0;
	double end;
	int i;

	if (!items || !b)
		return 1;
	for (i = 0; i < nr; i++) {
		items[i] = new_item(i);
		b = je_realloc(b, sizeof(*b) + (i + 1) * sizeof(long));
		if (!b)
			return 1;
		b->nr = i + 1;
		b->slot[i] = i;
		made++;
	}
	end = now() + secs;
	do {
		for (i = 0; i < nr; i++)
			sum += read_item(items[i]);
		sum += read_bag(b);
		je_free(items[sum & (nr - 1)]);
		items[sum & (nr - 1)] = new_item(sum);
		made++;
	} while (now() < end);
	printf("je: %ld items made, sum %ld\n", made, sum);
	return 0;
}

int main(int argc, char **argv)
{
	int nr;

	if (argc < 4)
		return 2;
	nr = atoi(argv[2]);
	/* a power of two: the objects made again are picked by a mask */
	if (nr < 1 || (nr & (nr - 1)))
		return 2;
	if (!strcmp(argv[1], "pool"))
		return run_pool(nr, atof(argv[3]));
	if (!strcmp(argv[1], "je"))
		return run_je(nr, atof(argv[3]));
	return 2;
}
