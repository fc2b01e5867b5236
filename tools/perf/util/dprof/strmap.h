/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_STRMAP_H
#define __PERF_DPROF_STRMAP_H

#include <stdbool.h>
#include <string.h>
#include <linux/compiler.h>
#include "util/hashmap.h"

/* hashmap callbacks for keys that are C strings */
static inline size_t dprof_str_hash(long key, void *ctx __maybe_unused)
{
	return str_hash((const char *)key);
}

static inline bool dprof_str_equal(long a, long b, void *ctx __maybe_unused)
{
	return !strcmp((const char *)a, (const char *)b);
}

#endif /* __PERF_DPROF_STRMAP_H */
