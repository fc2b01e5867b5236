/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_BROWSERS_DPROF_H
#define __PERF_UI_BROWSERS_DPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/compiler.h>

/* What the browser shows of a type (or of all of them). */
enum dprof_browser_view {
	DPROF_BROWSER_MEMBERS,		/* by member/offset and code location */
	DPROF_BROWSER_CLASSIFY,		/* miss classification */
	DPROF_BROWSER_WORKINGSET,	/* working set, associativity sets */
	DPROF_BROWSER_FLOW,		/* data flow tree */
	DPROF_BROWSER_PATHS,		/* path traces */
	DPROF_BROWSER_HEADER,		/* what the recording held */
	DPROF_BROWSER__MAX,
};

/* A row index meaning "every type", for the classify and workingset views. */
#define DPROF_BROWSER_ALL	((size_t)-1)

/**
 * struct dprof_browser - what perf dprof report hands the TUI
 * @nr_rows: rows of the data profile, in the order shown
 * @fprintf_columns: the column header line of the data profile
 * @fprintf_row: one row of the data profile, as --stdio prints it
 * @row_name: the type of a row, for titles and searches
 * @fprintf_view: a view of a row (or of DPROF_BROWSER_ALL rows), as text
 * @ctx: passed to the callbacks
 * @input: the perf.data file, for the title
 * @status: what the title adds after the file: the counters of lifetimes
 *          the report could not be sure of (NULL: none)
 * @start: open @start_view of @start_row first, not the profile
 * @start_row: a row, or DPROF_BROWSER_ALL
 * @start_view: see @start
 *
 * The views are rendered by the stdio printers into text that the
 * browser pages through, so both interfaces show the same numbers.
 */
struct dprof_browser {
	size_t		nr_rows;
	int		(*fprintf_columns)(void *ctx, FILE *fp);
	int		(*fprintf_row)(void *ctx, size_t row, FILE *fp);
	const char	*(*row_name)(void *ctx, size_t row);
	int		(*fprintf_view)(void *ctx, size_t row,
					enum dprof_browser_view view, FILE *fp);
	void		*ctx;
	const char	*input;
	const char	*status;
	bool		start;
	size_t		start_row;
	enum dprof_browser_view start_view;
};

#ifdef HAVE_SLANG_SUPPORT
int dprof_browser__run(const struct dprof_browser *db);
#else
static inline int dprof_browser__run(const struct dprof_browser *db __maybe_unused)
{
	return -1;
}
#endif

#endif /* __PERF_UI_BROWSERS_DPROF_H */
