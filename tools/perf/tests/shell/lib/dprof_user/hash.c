// SPDX-License-Identifier: GPL-2.0
/* perf dprof test program: a chained hash table of malloc'ed structs. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NR_BUCKETS	4096
#define NR_ENTRIES	(64 * 1024)

struct entry {
	unsigned long	key;
	unsigned long	hits;
	struct entry	*next;
	char		name[40];
};

static struct entry *table[NR_BUCKETS];

static unsigned int hash(unsigned long key)
{
	return (key * 0x9e3779b97f4a7c15UL) >> 52;
}

static struct entry *insert(unsigned long key)
{
	struct entry *e = malloc(sizeof(*e));
	unsigned int h = hash(key);

	if (!e)
		exit(1);
	memset(e, 0, sizeof(*e));
	e->key = key;
	e->next = table[h];
	table[h] = e;
	return e;
}

static struct entry *lookup(unsigned long key)
{
	struct entry *e;

	for (e = table[hash(key)]; e; e = e->next)
		if (e->key == key)
			return e;
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	unsigned long i, x = 1;
	struct timespec t0, t;

	for (i = 0; i < NR_ENTRIES; i++)
		insert(i * 7);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < 100000; i++) {
			struct entry *e;

			x = x * 6364136223846793005UL + 1442695040888963407UL;
			e = lookup((x >> 33) % (NR_ENTRIES * 7));
			if (e)
				e->hits++;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
