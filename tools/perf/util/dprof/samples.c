// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the replay's access samples one by one (report --samples).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "util/addr_location.h"
#include "util/dso.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "profile.h"
#include "samples.h"

static struct dprof_sample_line *dprof_samples__add(struct dprof_samples *s,
						    const struct dprof_access *acc)
{
	struct dprof_sample_line *l;
	struct addr_location al;
	u8 cpumode;

	if (s->nr == s->alloc) {
		size_t alloc = s->alloc ? s->alloc * 2 : 1024;

		l = realloc(s->line, alloc * sizeof(*l));
		if (!l)
			return NULL;
		s->line = l;
		s->alloc = alloc;
	}
	l = &s->line[s->nr++];
	memset(l, 0, sizeof(*l));
	l->time = acc->time;
	l->cpu = acc->cpu;
	l->ip = acc->sample_ip;
	l->addr = acc->addr;
	if (!acc->thread)
		return l;
	cpumode = machine__kernel_ip(maps__machine(thread__maps(acc->thread)),
				     acc->sample_ip) ?
		  PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	addr_location__init(&al);
	if (thread__find_symbol_fb(acc->thread, cpumode, acc->sample_ip, &al)) {
		l->sym = al.sym;
		l->dso = dso__get(map__dso(al.map));
		l->sym_off = al.addr - al.sym->start;
	}
	addr_location__exit(&al);
	return l;
}

static int dprof_samples__access(struct dprof_sink *sink,
				 const struct dprof_access *acc,
				 struct dprof_class *cls, u64 offset)
{
	struct dprof_samples *s = container_of(sink, struct dprof_samples, sink);
	struct dprof_sample_line *l = dprof_samples__add(s, acc);

	if (!l)
		return -ENOMEM;
	l->cls = cls;
	l->offset = offset;
	return 0;
}

static int dprof_samples__unresolved(struct dprof_sink *sink,
				     const struct dprof_access *acc, int why)
{
	struct dprof_samples *s = container_of(sink, struct dprof_samples, sink);
	struct dprof_sample_line *l = dprof_samples__add(s, acc);

	if (!l)
		return -ENOMEM;
	l->why = why;
	return 0;
}

void dprof_samples__init(struct dprof_samples *s)
{
	memset(s, 0, sizeof(*s));
	INIT_LIST_HEAD(&s->sink.node);
	s->sink.access = dprof_samples__access;
	s->sink.unresolved = dprof_samples__unresolved;
}

void dprof_samples__exit(struct dprof_samples *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		dso__put(s->line[i].dso);
	free(s->line);
	memset(s, 0, sizeof(*s));
}
