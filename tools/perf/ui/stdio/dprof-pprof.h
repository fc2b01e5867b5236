/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_STDIO_DPROF_PPROF_H
#define __PERF_UI_STDIO_DPROF_PPROF_H

#include <stdio.h>

struct dprof_report;

/*
 * perf dprof report --pprof=FILE: the data profile as pprof's
 * profile.proto, gzip'd when perf has zlib (go tool pprof, Pyroscope,
 * Parca read it): a sample per (type, member, function) stack of the
 * flame view, its one location the function, the type and member as
 * labels.  Says what it wrote on @fp.
 */
int dprof_report__write_pprof(struct dprof_report *rep, const char *path, FILE *fp);

#endif /* __PERF_UI_STDIO_DPROF_PPROF_H */
