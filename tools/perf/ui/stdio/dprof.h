/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_UI_STDIO_DPROF_H
#define __PERF_UI_STDIO_DPROF_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

struct dprof_class;
struct dprof_classify;
struct dprof_profile;
struct dprof_workingset;
struct strbuf;

/* One row of a view: a data type, its classes point at @row (->row). */
struct dprof_view_row {
	const char		*type;		/* "struct file", or a name */
	const char		*desc;		/* cache, size class, variable */
	struct dprof_class	*row;
	bool			detail;		/* --type chose it */
	void			*priv;		/* the caller's, for the names */
};

struct dprof_view {
	struct dprof_profile	*prof;		/* its classes, after rows() */
	struct dprof_view_row	*rows;
	size_t			nr;
	bool			has_soft;	/* software sampler samples */
	bool			has_levels;	/* the sampler measured misses */
	/*
	 * The drill-down of the detail rows names offsets and code as the
	 * profile does; without these, "+0x18" and the ip in hex.
	 */
	void	(*member_name)(const struct dprof_view_row *vr, u64 offset,
			       struct strbuf *sb);
	void	(*code_name)(const struct dprof_view_row *vr, u64 offset,
			     u64 ip, struct strbuf *sb);
	/* the function of @ip (NULL: unknown), for the first touches */
	const char *(*func_name)(const struct dprof_view *v, u64 ip);
	void	*ctx;			/* for the callbacks */
};

int dprof_classify__fprintf(const struct dprof_classify *cl,
			    const struct dprof_view *v, FILE *fp);
int dprof_workingset__fprintf(const struct dprof_workingset *ws,
			      const struct dprof_view *v, FILE *fp);
int dprof_workingset__fprintf_svg(const struct dprof_workingset *ws,
				  const struct dprof_view *v, FILE *fp);

#endif /* __PERF_UI_STDIO_DPROF_H */
