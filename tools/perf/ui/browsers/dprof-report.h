/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_BROWSERS_DPROF_REPORT_H
#define __PERF_UI_BROWSERS_DPROF_REPORT_H

#include <linux/compiler.h>

struct dprof_report;

#ifdef HAVE_SLANG_SUPPORT
/* perf dprof report in the TUI: the data profile, every view a key away. */
int dprof_report__browse(struct dprof_report *rep);
#else
static inline int dprof_report__browse(struct dprof_report *rep __maybe_unused)
{
	return -1;
}
#endif

#endif /* __PERF_UI_BROWSERS_DPROF_REPORT_H */
