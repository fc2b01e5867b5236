/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The slab_watch PMU's perf_event_attr::config and ::config1, as
 * /sys/bus/event_source/devices/slab_watch/format/ describes them.
 * A field is (config >> SHIFT) & MASK; a flag is config & FLAG.
 */
#ifndef _UAPI_LINUX_SLAB_WATCH_H
#define _UAPI_LINUX_SLAB_WATCH_H

/* offset: where the watched bytes start in the object, config:0-31 */
#define SLAB_WATCH_OFFSET_SHIFT		0
#define SLAB_WATCH_OFFSET_MASK		0xffffffffULL	/* config, after the shift */
/* len: how many bytes are watched, 1, 2, 4 or 8, config:32-39 */
#define SLAB_WATCH_LEN_SHIFT		32
#define SLAB_WATCH_LEN_MASK		0xffULL
/* rw: watch reads and writes (clear: writes only), config:40 */
#define SLAB_WATCH_RW			(1ULL << 40)
/* sweep: move the watched bytes on by len after each object, config:41 */
#define SLAB_WATCH_SWEEP		(1ULL << 41)
/*
 * patience: give up an object still allocated after this many further
 * allocations from the cache (0: wait for its free), config:48-63
 */
#define SLAB_WATCH_PATIENCE_SHIFT	48
#define SLAB_WATCH_PATIENCE_MASK	0xffffULL
/* cache: /sys/kernel/slab/<cache>/watch_id, config1:0-31 */
#define SLAB_WATCH_CACHE_MASK		0xffffffffULL	/* config1 */

#endif /* _UAPI_LINUX_SLAB_WATCH_H */
