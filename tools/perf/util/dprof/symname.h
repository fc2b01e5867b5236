/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_SYMNAME_H
#define __PERF_DPROF_SYMNAME_H

/*
 * The names dprof shows of perf's symbols: the replay loads symbol tables
 * as their files have them, and a name is demangled (as the user asked:
 * symbol_conf.demangle, .demangle_kernel) when dprof keeps or prints it,
 * once per name.
 */
#include <stdbool.h>
#include <linux/types.h>

struct dso;

/* Load the tables undemangled from now on: before the first is loaded. */
void dprof_symname__setup(void);
/* Free the names and give perf its demangling settings back. */
void dprof_symname__exit(void);
/*
 * The name to show for @name, a symbol of @dso (NULL: a user one): kept
 * until dprof_symname__exit(), or @name itself.
 */
const char *dprof_symname(const struct dso *dso, const char *name);

struct machine;
/*
 * @ip is in the kernel code of perf's own events: writing them (perf_*,
 * __perf_*) and, with @filters, evaluating their tracepoint filters
 * (filter_match_preds, filter_pred_*).
 */
bool dprof_symname__perf_kernel(struct machine *machine, u64 ip, bool filters);

#endif /* __PERF_DPROF_SYMNAME_H */
