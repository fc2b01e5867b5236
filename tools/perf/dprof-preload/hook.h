/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_PRELOAD_HOOK_H
#define __PERF_DPROF_PRELOAD_HOOK_H

/*
 * Between the allocator recorder (heaprec.c) and its hooks on allocators
 * it cannot interpose (hook.c): the hooks log through the recorder.
 */
#include <stddef.h>
#include <stdint.h>

/* heaprec.c: whether to log this call; then one of the three below */
int heaprec_hook_enter(void);
/* an allocation (DPROF_HEAPLOG_ALLOC or _REALLOC) of @p, none if NULL */
void heaprec_hook_alloc(int kind, uintptr_t p, uintptr_t old, size_t size, uintptr_t ip,
			uintptr_t *sp);
void heaprec_hook_free(uintptr_t p);
void heaprec_hook_leave(void);
/* a line for the report's header ("heap: ...") */
void heaprec_note(const char *line);

/* hook.c: placed once the recorder is on, from its constructor */
void heaprec_hooks_place(void);

#endif
