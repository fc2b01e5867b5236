// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the software sampler's samples written decoded (decoded.h).
 *
 * The record-end pass decodes every access sample to choose the objects
 * it keeps; the registers the decoding used are most of a sample's bytes
 * and nothing in the report needs them but to decode it again.  These are
 * the word the pass writes in their place and its reading back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/kernel.h>

#include "util/evsel.h"
#include "util/hashmap.h"
#include "util/header.h"
#include "util/sample.h"
#include "util/session.h"
#include "decoded.h"
#include "hashfn.h"
#include "resolve.h"

int dprof_decoded__from_regs(struct dprof_resolver *res, struct thread *thread,
			     const struct perf_sample *sample, struct dprof_decoded *d)
{
	u64 sp;

	memset(d, 0, sizeof(*d));
	d->why = dprof_resolver__sample_ea(res, thread, sample, &d->ea, &d->ip);
	if (d->why < 0)
		return -1;
	d->near_sp = d->why == DPROF_EA_OK &&
		     !dprof_ea__stack_pointer(&sample->intr_regs, &sp) &&
		     (d->ea.addr - sp < DPROF_STACK_SPAN || sp - d->ea.addr < DPROF_STACK_SPAN);
	return 0;
}

u32 dprof_decoded__word(const struct dprof_decoded *d, u64 sample_ip)
{
	u32 word = d->why & DPROF_DEC_WHY;

	word |= ((sample_ip - d->ip) << DPROF_DEC_BACK_SHIFT) & DPROF_DEC_BACK;
	if (d->ea.is_write)
		word |= DPROF_DEC_WRITE;
	if (d->ea.seg == 'f')
		word |= DPROF_DEC_SEG_FS;
	else if (d->ea.seg == 'g')
		word |= DPROF_DEC_SEG_GS;
	if (d->near_sp)
		word |= DPROF_DEC_NEAR_SP;
	if (d->still)
		word |= DPROF_DEC_STILL;
	return word;
}

void dprof_decoded__from_word(struct dprof_decoded *d, u32 word, u64 addr, u64 sample_ip)
{
	memset(d, 0, sizeof(*d));
	d->why = word & DPROF_DEC_WHY;
	d->ip = sample_ip - ((word & DPROF_DEC_BACK) >> DPROF_DEC_BACK_SHIFT);
	d->ea.addr = addr;
	d->ea.is_write = word & DPROF_DEC_WRITE;
	if (word & DPROF_DEC_SEG_FS)
		d->ea.seg = 'f';
	else if (word & DPROF_DEC_SEG_GS)
		d->ea.seg = 'g';
	d->near_sp = word & DPROF_DEC_NEAR_SP;
	d->still = word & DPROF_DEC_STILL;
}

struct dprof_still_regs {
	u64	ip;
	u64	mask;
	u64	regs[];
};

void dprof_still__init(struct dprof_still *s)
{
	s->last = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(s->last))
		s->last = NULL;
}

void dprof_still__exit(struct dprof_still *s)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!s->last)
		return;
	hashmap__for_each_entry(s->last, cur, bkt)
		free(cur->pvalue);
	hashmap__free(s->last);
	s->last = NULL;
}

bool dprof_still__sample(struct dprof_still *s, const struct perf_sample *sample)
{
	const struct regs_dump *r = &sample->intr_regs;
	long key = sample->tid ? (long)sample->tid : -1L - (long)sample->cpu;
	struct dprof_still_regs *last = NULL;
	size_t nr = hweight64(r->mask);
	bool same;

	if (!s->last || !r->regs || !nr)
		return false;
	hashmap__find(s->last, key, &last);
	same = last && last->ip == sample->ip && last->mask == r->mask &&
	       !memcmp(last->regs, r->regs, nr * sizeof(u64));
	if (same)
		return true;
	if (!last || last->mask != r->mask) {
		struct dprof_still_regs *n = malloc(sizeof(*n) + nr * sizeof(u64));

		if (!n)
			return false;
		if (hashmap__set(s->last, key, n, NULL, &last)) {
			free(n);
			return false;
		}
		free(last);
		last = n;
	}
	last->ip = sample->ip;
	last->mask = r->mask;
	memcpy(last->regs, r->regs, nr * sizeof(u64));
	return false;
}

bool dprof_decoded__file(struct perf_session *session)
{
	return test_bit(DPROF_DECODED_FEAT, session->header.adds_features);
}

bool dprof_decoded__can(const struct evsel *evsel)
{
	u64 type = evsel->core.attr.sample_type;

	return evsel->core.attr.type == PERF_TYPE_SOFTWARE &&
	       (type & PERF_SAMPLE_REGS_INTR) && evsel->core.attr.sample_regs_intr &&
	       !(type & (PERF_SAMPLE_ADDR | PERF_SAMPLE_RAW));
}

bool dprof_decoded__evsel(const struct evsel *evsel)
{
	u64 type = evsel->core.attr.sample_type;

	return evsel->core.attr.type == PERF_TYPE_SOFTWARE &&
	       !(type & PERF_SAMPLE_REGS_INTR) && evsel->core.attr.sample_regs_intr &&
	       (type & PERF_SAMPLE_ADDR) && (type & PERF_SAMPLE_RAW);
}

int dprof_decoded__unpack(const struct evsel *evsel, struct perf_sample *sample,
			  struct dprof_decoded *d)
{
	u64 mask = evsel->core.attr.sample_regs_intr;
	size_t need = sizeof(u32) + sizeof(u64) * (1 + hweight64(mask));
	const u8 *raw = sample->raw_data;
	u32 word;

	if (!raw || sample->raw_size < sizeof(word))
		return -EINVAL;
	memcpy(&word, raw, sizeof(word));
	if ((word & ~DPROF_DEC_KNOWN) || (word & DPROF_DEC_WHY) >= DPROF_EA__MAX)
		return -EINVAL;
	memset(&sample->intr_regs, 0, sizeof(sample->intr_regs));
	d->still = word & DPROF_DEC_STILL;
	if (word & DPROF_DEC_NO_REGS)
		return sample->raw_size == sizeof(word) && !d->still ? 0 : -EINVAL;
	if (!(word & DPROF_DEC_REGS)) {
		if (sample->raw_size != sizeof(word))
			return -EINVAL;
		dprof_decoded__from_word(d, word, sample->addr, sample->ip);
		return 1;
	}
	/* the registers follow the word, 8-aligned as the record's array */
	if (sample->raw_size != need || ((unsigned long)raw + sizeof(word)) % sizeof(u64))
		return -EINVAL;
	sample->intr_regs.abi = *(const u64 *)(raw + sizeof(word));
	sample->intr_regs.mask = mask;
	sample->intr_regs.regs = (u64 *)(raw + sizeof(word) + sizeof(u64));
	if (!sample->intr_regs.abi)
		return -EINVAL;
	return 0;
}
