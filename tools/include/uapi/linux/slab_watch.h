/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* placeholder until h-infra lands: the slab_watch PMU's config layout */
#ifndef _UAPI_LINUX_SLAB_WATCH_H
#define _UAPI_LINUX_SLAB_WATCH_H

#define SLAB_WATCH_OFFSET_SHIFT		0
#define SLAB_WATCH_OFFSET_MASK		0xffffffffULL
#define SLAB_WATCH_LEN_SHIFT		32
#define SLAB_WATCH_LEN_MASK		0xffULL
#define SLAB_WATCH_RW			(1ULL << 40)
#define SLAB_WATCH_SWEEP		(1ULL << 41)
#define SLAB_WATCH_PATIENCE_SHIFT	48
#define SLAB_WATCH_PATIENCE_MASK	0xffffULL
#define SLAB_WATCH_CACHE_MASK		0xffffffffULL

#endif /* _UAPI_LINUX_SLAB_WATCH_H */
