// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program: objects reached through a header their type
 * begins with, as interpreters and object systems do.
 *
 *   - struct table and struct str begin with OBJ_HEADER, the members a
 *     macro gives every collected object; a collector walks all of them
 *     as struct obj (that header alone), the program's code as what they
 *     are.  Each is allocated by a function of its own; the strs from
 *     two call chains, one's only ever reached as their header.
 *   - struct widget embeds a struct base first; code that only needs the
 *     reference count reaches it as a struct base.
 *   - new_any() hands out a struct table or a struct str from one call
 *     site, used as both: its objects' header tells neither type.
 *   - struct vec is allocated at three sites, its accesses split evenly.
 *
 *   header N SECS   N objects of each kind, touched for SECS; prints what
 *                   it allocated
 *
 * Built with -O1 -fno-inline: each function a frame and a site of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#define OBJ_HEADER		\
	struct obj *next;	\
	unsigned char tt;	\
	unsigned char marked

struct obj {
	OBJ_HEADER;
};

struct table {
	OBJ_HEADER;
	unsigned char flags;
	unsigned int size;
	long slots[6];
};

struct str {
	OBJ_HEADER;
	unsigned char extra;
	unsigned int len;
	unsigned int hash;
	char data[36];
};

struct base {
	long refcnt;
	long kind;
};

struct widget {
	struct base b;
	long x;
	long y;
	long spare[4];
};

struct vec {
	double v[8];
};

static struct obj *all;

/* each type from a function of its own, a site each */
static struct table *new_table(void)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		exit(1);
	t->tt = 5;
	t->next = all;
	all = (struct obj *)t;
	return t;
}

static struct str *new_str(void)
{
	struct str *s = calloc(1, sizeof(*s));

	if (!s)
		exit(1);
	s->tt = 4;
	s->next = all;
	all = (struct obj *)s;
	return s;
}

/* two call chains to new_str(): half the strs are only ever marked */
static struct str *new_str_used(void)
{
	return new_str();
}

static struct str *new_str_marked(void)
{
	return new_str();
}

static struct widget *new_widget(void)
{
	struct widget *w = calloc(1, sizeof(*w));

	if (!w)
		exit(1);
	return w;
}

static size_t any_size(int i)
{
	return i & 1 ? sizeof(struct table) : sizeof(struct str);
}

/* one site, two types: the header there is neither's */
static struct obj *new_any(int i)
{
	struct obj *o = calloc(1, any_size(i));

	if (!o)
		exit(1);
	o->tt = i & 1 ? 5 : 4;
	return o;
}

static struct vec *new_vec_a(void)
{
	return calloc(1, sizeof(struct vec));
}

static struct vec *new_vec_b(void)
{
	return calloc(1, sizeof(struct vec));
}

static struct vec *new_vec_c(void)
{
	return calloc(1, sizeof(struct vec));
}

/* the collector: every object as its header */
static long mark(struct obj *o)
{
	long n = 0;

	for (; o; o = o->next) {
		o->marked ^= 1;
		n += o->tt;
	}
	return n;
}

static long mark_any(struct obj **o, int nr)
{
	long n = 0;
	int i;

	for (i = 0; i < nr; i++) {
		o[i]->marked ^= 1;
		n += o[i]->tt;
	}
	return n;
}

static long touch_table(struct table *t)
{
	return t->size++ + t->slots[2];
}

static long touch_str(struct str *s)
{
	return s->len++ + s->hash;
}

/* new_any()'s objects as what they are: tables and strs at one site */
static long use_any(struct obj **o, int nr)
{
	long n = 0;
	int i;

	for (i = 0; i < nr; i++) {
		if (o[i]->tt == 5)
			n += touch_table((struct table *)o[i]);
		else
			n += touch_str((struct str *)o[i]);
	}
	return n;
}

static long use_tables(struct table **t, int nr)
{
	long n = 0;
	int i, k;

	for (i = 0; i < nr; i++) {
		for (k = 0; k < 6; k++)
			n += t[i]->slots[k];
		t[i]->size++;
	}
	return n;
}

static long use_strs(struct str **s, int nr)
{
	long n = 0;
	int i;

	for (i = 0; i < nr; i += 2) {
		s[i]->hash = s[i]->hash * 31 + s[i]->len;
		n += s[i]->data[i % 36];
	}
	return n;
}

static long put(struct base *b)
{
	return --b->refcnt + b->kind;
}

static long use_widgets(struct widget **w, int nr)
{
	long n = 0;
	int i;

	for (i = 0; i < nr; i++) {
		w[i]->x += w[i]->y;
		n += put(&w[i]->b);
		n += put(&w[i]->b);
	}
	return n;
}

static long use_vecs(struct vec **v, int nr)
{
	double d = 0;
	int i, k;

	for (i = 0; i < nr; i++) {
		for (k = 0; k < 8; k++)
			d += v[i]->v[k];
	}
	return (long)d;
}

int main(int argc, char **argv)
{
	int nr = argc > 1 ? atoi(argv[1]) : 1000, i;
	double secs = argc > 2 ? atof(argv[2]) : 2;
	struct table **t = calloc(nr, sizeof(*t));
	struct str **s = calloc(nr, sizeof(*s));
	struct widget **w = calloc(nr, sizeof(*w));
	struct obj **any = calloc(nr, sizeof(*any));
	struct vec **v = calloc(nr, sizeof(*v));
	struct timespec t0, now;
	long sink = 0;

	if (!t || !s || !w || !any || !v || nr < 2)
		return 1;
	for (i = 0; i < nr; i++) {
		t[i] = new_table();
		s[i] = i & 1 ? new_str_marked() : new_str_used();
		w[i] = new_widget();
		any[i] = new_any(i);
		v[i] = i % 3 == 0 ? new_vec_a() : i % 3 == 1 ? new_vec_b() : new_vec_c();
	}
	printf("tables %d strs %d widgets %d any %d vecs %d\n", nr, nr, nr, nr, nr);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sink += mark(all);
		sink += mark_any(any, nr);
		sink += use_any(any, nr);
		sink += use_tables(t, nr);
		sink += use_strs(s, nr);
		sink += use_widgets(w, nr);
		sink += use_vecs(v, nr);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	/* the sum is printed: the loops are not optimized away */
	printf("sum %ld\n", sink);
	return 0;
}
