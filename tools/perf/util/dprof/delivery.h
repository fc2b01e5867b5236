/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_DELIVERY_H
#define __PERF_DPROF_DELIVERY_H

#include <linux/types.h>

struct perf_session;
union perf_event;

/* A session's events, delivered while perf's reader reads on (see delivery.c) */
struct dprof_delivery;

/* perf dprof report --event-thread */
enum dprof_delivery_mode {
	DPROF_DELIVERY_AUTO,	/* for a long recording */
	DPROF_DELIVERY_SPARE,	/* auto, with a CPU nothing else needs */
	DPROF_DELIVERY_ON,
	DPROF_DELIVERY_OFF,
};

int dprof_delivery_mode__parse(const char *str, enum dprof_delivery_mode *mode);
struct dprof_delivery *dprof_delivery__new(struct perf_session *session,
					   enum dprof_delivery_mode mode);
int dprof_delivery__process_events(struct dprof_delivery *d);
void dprof_delivery__delete(struct dprof_delivery *d);
int dprof_delivery__take(struct dprof_delivery *d, union perf_event *event,
			 u64 file_offset, const char *file_path);
void dprof_delivery__show(struct dprof_delivery *d);
int dprof_delivery__wait(struct dprof_delivery *d);

#endif /* __PERF_DPROF_DELIVERY_H */
