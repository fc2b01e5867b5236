// SPDX-License-Identifier: GPL-2.0
/*
 * Which user files the access samples fall in, and at which offsets in
 * them, as the report's first pass tells them from mmap, fork and exec
 * records: a few cases by hand, then random records against a model that
 * keeps every mapping in a list.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "tests/tests.h"
#include "util/dprof/resolve.h"
#include "util/dprof/userfiles.h"
#include "dprof-tests.h"

#define NR_PIDS		8
#define NR_FILES	6
#define NR_MODEL_MAPS	4096
#define NR_RECORDS	3000
/* the model's files are this short: every offset has a slot */
#define MODEL_FILE_SIZE	0x10000

static const char *const files[NR_FILES] = {
	"/lib/a.so", "/lib/b.so", "/lib/c.so", "/bin/d", "/bin/e", "/lib/f.so",
};

struct model_map {
	u32	pid;
	u64	start;
	u64	end;
	u64	pgoff;
	int	file;
};

/* when an offset of a file was sampled: 0 if never (times start at 1) */
struct model_time {
	u32	first;
	u32	last;
};

struct model {
	struct model_map	maps[NR_MODEL_MAPS];
	int			nr;
	u32			ppid[NR_PIDS];
	bool			forked[NR_PIDS];
	u64			first[NR_FILES];
	bool			sampled[NR_FILES];
	struct model_time	at[NR_FILES][MODEL_FILE_SIZE];
};

static void model_mmap(struct model *m, u32 pid, u64 start, u64 end,
		       u64 pgoff, int file)
{
	int i, n = 0;

	/* a mapping replaces the whole of every one it overlaps */
	for (i = 0; i < m->nr; i++) {
		if (m->maps[i].pid == pid && m->maps[i].start < end &&
		    start < m->maps[i].end)
			continue;
		m->maps[n++] = m->maps[i];
	}
	m->nr = n;
	if (m->nr < NR_MODEL_MAPS)
		m->maps[m->nr++] = (struct model_map){ pid, start, end, pgoff, file };
}

static void model_forget(struct model *m, u32 pid)
{
	int i, n = 0;

	for (i = 0; i < m->nr; i++) {
		if (m->maps[i].pid != pid)
			m->maps[n++] = m->maps[i];
	}
	m->nr = n;
}

static void model_sample(struct model *m, u32 pid, u64 ip, u32 time)
{
	int depth, i;

	for (depth = 0; depth < NR_PIDS; depth++) {
		for (i = 0; i < m->nr; i++) {
			struct model_map *mm = &m->maps[i];
			struct model_time *at;

			if (mm->pid != pid || ip < mm->start || ip >= mm->end)
				continue;
			if (!m->sampled[mm->file] || m->first[mm->file] > time)
				m->first[mm->file] = time;
			m->sampled[mm->file] = true;
			at = &m->at[mm->file][ip - mm->start + mm->pgoff];
			if (!at->first || at->first > time)
				at->first = time;
			if (at->last < time)
				at->last = time;
			return;
		}
		if (!m->forked[pid])
			return;
		pid = m->ppid[pid];
	}
}

static int test_by_hand(void)
{
	struct dprof_userfiles *uf = dprof_userfiles__new();
	const char *const *names;
	struct dprof_ip_times *it;
	u64 first, last;
	size_t nr;

	TEST_ASSERT_VAL("new", uf);
	TEST_ASSERT_VAL("mmap", !dprof_userfiles__mmap(uf, 1, 0x1000, 0x1000, 0, "/lib/a.so"));
	TEST_ASSERT_VAL("mmap", !dprof_userfiles__mmap(uf, 1, 0x3000, 0x1000, 0x2000,
						       "/lib/b.so"));
	TEST_ASSERT_VAL("sample", !dprof_userfiles__sample(uf, 1, 0x1500, 20));
	TEST_ASSERT_VAL("sample", !dprof_userfiles__sample(uf, 1, 0x3fff, 10));
	TEST_ASSERT_VAL("sample", !dprof_userfiles__sample(uf, 1, 0x2000, 5));
	TEST_ASSERT_VAL("sample", !dprof_userfiles__sample(uf, 7, 0x1500, 1));
	nr = dprof_userfiles__sampled(uf, &names);
	TEST_ASSERT_VAL("two files", nr == 2);
	TEST_ASSERT_VAL("first sample first", !strcmp(names[0], "/lib/b.so"));
	TEST_ASSERT_VAL("then", !strcmp(names[1], "/lib/a.so"));

	/* a child has its parent's mappings until it execs */
	TEST_ASSERT_VAL("fork", !dprof_userfiles__fork(uf, 2, 1));
	TEST_ASSERT_VAL("mmap", !dprof_userfiles__mmap(uf, 1, 0x5000, 0x1000, 0, "/lib/c.so"));
	TEST_ASSERT_VAL("sample", !dprof_userfiles__sample(uf, 2, 0x5800, 30));
	dprof_userfiles__exec(uf, 2);
	TEST_ASSERT_VAL("mmap", !dprof_userfiles__mmap(uf, 1, 0x6000, 0x1000, 0, "/bin/d"));
	TEST_ASSERT_VAL("sample", !dprof_userfiles__sample(uf, 2, 0x6800, 40));
	nr = dprof_userfiles__sampled(uf, &names);
	TEST_ASSERT_VAL("inherited, not after exec", nr == 3 && !strcmp(names[2], "/lib/c.so"));

	/* a fork loop in a damaged file ends */
	TEST_ASSERT_VAL("fork", !dprof_userfiles__fork(uf, 3, 4));
	TEST_ASSERT_VAL("fork", !dprof_userfiles__fork(uf, 4, 3));
	TEST_ASSERT_VAL("sample", !dprof_userfiles__sample(uf, 3, 0x6800, 50));
	TEST_ASSERT_VAL("nothing new", dprof_userfiles__sampled(uf, &names) == 3);
	TEST_ASSERT_VAL("sample", !dprof_userfiles__sample(uf, 1, 0x1500, 25));

	/* by file offset: b.so's 0x3fff is its offset 0x2fff */
	it = dprof_userfiles__times(uf, 0);
	TEST_ASSERT_VAL("b.so times", it && it->nr == 1);
	TEST_ASSERT_VAL("b.so offset", dprof_ip_times__find(it, 0x2fff, 0x3000, &first, &last));
	TEST_ASSERT_VAL("b.so time", first == 10 && last == 10);
	TEST_ASSERT_VAL("not the ip", !dprof_ip_times__find(it, 0x3fff, 0x4000, &first, &last));
	it = dprof_userfiles__times(uf, 1);
	TEST_ASSERT_VAL("a.so", it && dprof_ip_times__find(it, 0x400, 0x600, &first, &last));
	TEST_ASSERT_VAL("a.so: two samples of one ip", it->nr == 1 && first == 20 && last == 25);
	it = dprof_userfiles__times(uf, 2);
	TEST_ASSERT_VAL("c.so, in the parent's mapping",
			it && dprof_ip_times__find(it, 0x800, 0x801, &first, &last) && first == 30);
	TEST_ASSERT_VAL("no fourth", !dprof_userfiles__times(uf, 3));
	dprof_userfiles__delete(uf);
	return TEST_OK;
}

static int test_against_model(void)
{
	struct dprof_userfiles *uf = dprof_userfiles__new();
	struct model *m = calloc(1, sizeof(*m));
	const char *const *names;
	unsigned int seed = 7;
	int i, f, err = TEST_FAIL;
	size_t nr, k;

	if (!uf || !m)
		goto out;
	for (i = 0; i < NR_RECORDS; i++) {
		u32 pid = rand_r(&seed) % NR_PIDS;
		/* a small address space: overlaps are common */
		u64 start = 0x1000 * (rand_r(&seed) % 64);
		u64 len = 0x1000 * (1 + rand_r(&seed) % 4);
		u64 pgoff = 0x1000 * (rand_r(&seed) % (MODEL_FILE_SIZE / 0x1000 - 4));
		u32 ppid;

		switch (rand_r(&seed) % 16) {
		case 0:
			ppid = rand_r(&seed) % NR_PIDS;
			if (dprof_userfiles__fork(uf, pid, ppid))
				goto out;
			if (pid != ppid) {
				model_forget(m, pid);
				m->ppid[pid] = ppid;
				m->forked[pid] = true;
			}
			break;
		case 1:
			dprof_userfiles__exec(uf, pid);
			model_forget(m, pid);
			m->forked[pid] = false;
			break;
		case 2 ... 7:
			f = rand_r(&seed) % NR_FILES;
			if (dprof_userfiles__mmap(uf, pid, start, len, pgoff, files[f]))
				goto out;
			model_mmap(m, pid, start, start + len, pgoff, f);
			break;
		default:
			start += rand_r(&seed) % len;
			if (dprof_userfiles__sample(uf, pid, start, NR_RECORDS - i))
				goto out;
			model_sample(m, pid, start, NR_RECORDS - i);
			break;
		}
	}
	nr = dprof_userfiles__sampled(uf, &names);
	for (f = 0, k = 0; f < NR_FILES; f++)
		k += m->sampled[f];
	if (nr != k) {
		pr_debug("%zu files sampled, the model says %zu\n", nr, k);
		goto out;
	}
	for (k = 0; k < nr; k++) {
		for (f = 0; f < NR_FILES && strcmp(files[f], names[k]); f++)
			;
		if (f == NR_FILES || !m->sampled[f])
			goto out;
	}
	/* in the order of their first samples */
	for (k = 1; k < nr; k++) {
		int a, b;

		for (a = 0; strcmp(files[a], names[k - 1]); a++)
			;
		for (b = 0; strcmp(files[b], names[k]); b++)
			;
		if (m->first[a] > m->first[b])
			goto out;
	}
	/* each file's sampled offsets, when first and last */
	for (k = 0; k < nr; k++) {
		struct dprof_ip_times *it = dprof_userfiles__times(uf, k);
		size_t nr_at = 0;
		u64 off;

		for (f = 0; strcmp(files[f], names[k]); f++)
			;
		for (off = 0; off < MODEL_FILE_SIZE; off++) {
			const struct model_time *at = &m->at[f][off];
			u64 first, last;
			bool found = dprof_ip_times__find(it, off, off + 1, &first, &last);

			if (found != !!at->first ||
			    (found && (first != at->first || last != at->last))) {
				pr_debug("%s+%#" PRIx64 ": %s, the model says %u..%u\n", files[f],
					 off, found ? "sampled" : "not sampled", at->first,
					 at->last);
				goto out;
			}
			nr_at += found;
		}
		if (it->nr != nr_at)
			goto out;
	}
	err = TEST_OK;
out:
	dprof_userfiles__delete(uf);
	free(m);
	return err;
}

int test__dprof_userfiles(struct test_suite *test __maybe_unused,
			  int subtest __maybe_unused)
{
	int err = test_by_hand();

	return err ?: test_against_model();
}
