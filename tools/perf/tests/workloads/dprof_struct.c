// SPDX-License-Identifier: GPL-2.0
/*
 * A global struct with two hot members at known offsets, for the dprof tests:
 * samples with interrupt registers should land on dprof_hot +0x0 (refcount)
 * and +0x20 (hits), rarely on anything else.
 */
#include <stdlib.h>
#include <signal.h>
#include <unistd.h>
#include <linux/compiler.h>
#include "../tests.h"

struct dprof_hot {
	long		refcount;	/* 0x00 */
	char		pad1[24];
	int		hits;		/* 0x20 */
	char		pad2[20];
	void		*next;		/* 0x38 */
	long		cold[8];	/* 0x40 */
} __aligned(64);

static struct dprof_hot dprof_hot = {
	/* to have this in the data section */
	.cold[0] = 1,
};

static sig_atomic_t done;

static void sighandler(int sig __maybe_unused)
{
	WRITE_ONCE(done, 1);
}

static int dprof_struct(int argc, const char **argv)
{
	int sec = 1;
	unsigned long i = 0;

	if (argc > 0)
		sec = atoi(argv[0]);

	signal(SIGALRM, sighandler);
	alarm(sec);

	while (!READ_ONCE(done)) {
		dprof_hot.hits++;
		dprof_hot.refcount += dprof_hot.hits & 1;
		if ((++i & 0xffff) == 0) {
			dprof_hot.next = &dprof_hot.cold[i & 7];
			dprof_hot.cold[i & 7]++;
		}
	}
	return 0;
}

DEFINE_WORKLOAD(dprof_struct);
