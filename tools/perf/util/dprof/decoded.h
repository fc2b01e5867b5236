/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_DECODED_H
#define __PERF_DPROF_DECODED_H

/*
 * Decoded samples: the software sampler's samples as the record-end pass
 * writes them.  What the report needs of a sample's interrupt registers
 * (136 bytes on x86-64) is the data address decoded from them, which the
 * pass has found already: it writes that address (PERF_SAMPLE_ADDR) and
 * what the decoding said (a u32 word, the raw data of PERF_SAMPLE_RAW)
 * in their place.  A sample the pass could not decode (its code unread)
 * keeps its registers: the ABI word and the registers follow the word.
 *
 * The sampler's attr tells the new layout (REGS_INTR off, ADDR and RAW
 * on, sample_regs_intr as recorded) and the header feature
 * DPROF_DECODED_FEAT marks the file, so that a reader knows a software
 * event's raw data as this word.
 */
#include <linux/bits.h>
#include <linux/types.h>
#include <stdbool.h>
#include "ea.h"

struct hashmap;
struct perf_sample;

struct evsel;
struct perf_sample;
struct perf_session;
struct thread;
struct dprof_resolver;

/* The header feature bit: below the kmem pass's (DPROF_KMEM_FEAT, 254) */
#define DPROF_DECODED_FEAT		253
#define DPROF_DECODED_FEAT_MAGIC	"DPDECO01"

/**
 * struct dprof_decoded_feat - the section
 * @samples: samples written decoded
 * @with_regs: ... of them, those that kept their registers
 */
struct dprof_decoded_feat {
	char	magic[8];
	u32	version;
	u32	flags;
	u64	samples;
	u64	with_regs;
};

/* The word: what the decoding of a sample's registers said */
#define DPROF_DEC_WHY		GENMASK(7, 0)	/* enum dprof_ea_reason */
#define DPROF_DEC_BACK_SHIFT	8		/* skid: bytes stepped back */
#define DPROF_DEC_BACK		GENMASK(11, DPROF_DEC_BACK_SHIFT)
#define DPROF_DEC_WRITE		BIT(12)		/* the operand is written */
#define DPROF_DEC_SEG_FS	BIT(13)		/* %fs-relative */
#define DPROF_DEC_SEG_GS	BIT(14)		/* %gs-relative */
#define DPROF_DEC_NEAR_SP	BIT(15)		/* within the stack span of %sp */
#define DPROF_DEC_REGS		BIT(16)		/* not decoded: the registers follow */
#define DPROF_DEC_NO_REGS	BIT(17)		/* the sample had no registers */
#define DPROF_DEC_STILL		BIT(18)		/* see struct dprof_still */
#define DPROF_DEC_KNOWN		GENMASK(18, 0)

/* An address this close to the stack pointer is on the stack. */
#define DPROF_STACK_SPAN	(16 * 1024)

/**
 * struct dprof_decoded - a software-sampler sample's access
 * @why: the enum dprof_ea_reason of the decoding
 * @ea: the access (its address, direction and segment)
 * @ip: its instruction: the sampled one, or the one before (skid)
 * @near_sp: @ea.addr is within DPROF_STACK_SPAN of the stack pointer
 * @still: the task had not run since its previous sample (struct dprof_still)
 */
struct dprof_decoded {
	int		why;
	struct dprof_ea	ea;
	u64		ip;
	bool		near_sp;
	bool		still;
};

/*
 * A sample whose task had not run since its previous one: the same ip and
 * every register the same.  cpu-clock counts time, and where the host
 * takes a virtual CPU away (steal time) the timer fires again with the
 * task where it was, many times a second on a busy host: such a sample
 * is the previous one's access again, no new draw of the accesses, and
 * the estimate of the objects touched, which counts how often each was
 * sampled, must not take it for one.  (A spin loop whose registers do not
 * change between turns looks the same: its object is counted once.)
 * Keyed by task; the idle tasks, tid 0 on every CPU, by CPU.
 */
struct dprof_still {
	struct hashmap	*last;		/* task -> struct dprof_still_regs * */
};

void dprof_still__init(struct dprof_still *s);
void dprof_still__exit(struct dprof_still *s);
/* @sample (with its interrupt registers) is its task's previous one again */
bool dprof_still__sample(struct dprof_still *s, const struct perf_sample *sample);

/*
 * Decode @sample's access from its registers, as the report does.
 * Return: 0, or -1 when its code bytes cannot be read.
 */
int dprof_decoded__from_regs(struct dprof_resolver *res, struct thread *thread,
			     const struct perf_sample *sample, struct dprof_decoded *d);

/* The word of a decoding of @sample, and @d back from the word */
u32 dprof_decoded__word(const struct dprof_decoded *d, u64 sample_ip);
void dprof_decoded__from_word(struct dprof_decoded *d, u32 word, u64 addr, u64 sample_ip);

/* @session's file has decoded samples (DPROF_DECODED_FEAT). */
bool dprof_decoded__file(struct perf_session *session);

/* The samples of @evsel, in a file that has them, are decoded ones. */
bool dprof_decoded__evsel(const struct evsel *evsel);

/* @evsel's samples can be written decoded: the software sampler's. */
bool dprof_decoded__can(const struct evsel *evsel);

/*
 * A sample of a decoded evsel.  Return: 1 with @d filled, when the pass
 * decoded it; 0 when it kept its registers, which are then in @sample's
 * intr_regs (or it had none: intr_regs.regs is NULL); -EINVAL when its
 * raw data is not a word the pass writes.
 */
int dprof_decoded__unpack(const struct evsel *evsel, struct perf_sample *sample,
			  struct dprof_decoded *d);

#endif /* __PERF_DPROF_DECODED_H */
