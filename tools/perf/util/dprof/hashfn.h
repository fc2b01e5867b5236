/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf dprof: hash and equality callbacks for util/hashmap.h, shared by the
 * dprof maps.
 *
 * hashmap already spreads what a hash function returns: it takes the top
 * bits of the value times the 64-bit golden ratio (hash_bits(), the same
 * multiplicative hash as hash_64() in <linux/hash.h>).  So a key that is a
 * number (an address, an ip) is its own hash; a composite key combines its
 * parts with hash_64()/hash_ptr().
 */
#ifndef __PERF_DPROF_HASHFN_H
#define __PERF_DPROF_HASHFN_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/compiler.h>

#include "util/dso.h"
#include "util/hashmap.h"

/* keys that are C strings */
static inline size_t dprof_str_hash(long key, void *ctx __maybe_unused)
{
	return str_hash((const char *)key);
}

static inline bool dprof_str_equal(long key1, long key2, void *ctx __maybe_unused)
{
	return !strcmp((const char *)key1, (const char *)key2);
}

/* keys that are numbers: addresses, ips, tags */
static inline size_t dprof_long_hash(long key, void *ctx __maybe_unused)
{
	return key;
}

static inline bool dprof_long_equal(long key1, long key2, void *ctx __maybe_unused)
{
	return key1 == key2;
}

/*
 * A dso as part of a key: with reference count checking (perf built with
 * AddressSanitizer) every dso__get() hands out a pointer of its own, so
 * keys compare the object behind it.
 */
static inline const void *dprof_dso_id(const struct dso *dso)
{
	return dso ? (const void *)RC_CHK_ACCESS(dso) : NULL;
}

#endif /* __PERF_DPROF_HASHFN_H */
