// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof record: the perf record command line.
 *
 * Three streams in one perf.data: access samples (a memory-sampling PMU
 * through perf mem's events, or cpu-clock with the interrupt registers the
 * software sampler decodes), the address set (the slab tracepoints), and
 * object histories (slab_watch events, --watch); the user-space address
 * set is the allocator's uprobes (heapprobe.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/slab_watch.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include <api/fs/fs.h>
#include <api/fs/tracing_path.h>
#include "util/debug.h"
#include "util/mem-events.h"
#include "util/pmu.h"
#include "util/tracepoint.h"
#include "ea.h"
#include "record.h"
#include "watch.h"

/* The address set: every slab allocation and free. */
static const char * const dprof_kmem_tracepoints[] = {
	"kmem:kmem_cache_alloc",
	"kmem:kmalloc",
	"kmem:kmem_cache_free",
	"kmem:kfree",
};

/* Our arguments before the user's: "record --sample-cpu -T -m 8M" ... */
#define DPROF_RECORD_ARGS	32
/* ... and per memory event: "-e" EVENT, with room for perf mem's extras */
#define DPROF_MEM_EVENT_ARGS	9

/*
 * "-c" and "-F" given to perf record would also apply to the tracepoints,
 * which must record every event; so the period goes into the sampling
 * event's own terms.
 */
static char *dprof_record__event_period(const char *event,
					const struct dprof_record_opts *opts)
{
	const char *slash = strchr(event, '/');
	char *out;
	int ret;

	if (!opts->period && !opts->freq)
		return strdup(event);
	if (!slash)
		ret = asprintf(&out, "%s/%s=%s/", event,
			       opts->period ? "period" : "freq",
			       opts->period ?: opts->freq);
	else
		ret = asprintf(&out, "%.*s/%s=%s%s%s", (int)(slash - event), event,
			       opts->period ? "period" : "freq",
			       opts->period ?: opts->freq,
			       slash[1] == '/' ? "" : ",", slash + 1);
	return ret < 0 ? NULL : out;
}

/* One --watch item: "cache[:offset[/len]]". */
struct dprof_watch_spec {
	char		*cache;
	unsigned long	offset;
	unsigned long	len;
	bool		whole;		/* no offset: sweep the object */
};

/* The syntax of an item, before anything asks the kernel. */
static int dprof_watch_spec__parse(struct dprof_watch_spec *ws, const char *item,
				   size_t n)
{
	char *colon, *end;

	memset(ws, 0, sizeof(*ws));
	ws->len = 8;
	ws->cache = strndup(item, n);
	if (!ws->cache)
		return -ENOMEM;
	colon = strchr(ws->cache, ':');
	ws->whole = !colon;
	if (colon) {
		*colon = '\0';
		errno = 0;
		ws->offset = strtoul(colon + 1, &end, 0);
		if (*end == '/')
			ws->len = strtoul(end + 1, &end, 0);
		if (errno || *end || end == colon + 1 ||
		    ws->offset > SLAB_WATCH_OFFSET_MASK ||
		    (ws->len != 1 && ws->len != 2 && ws->len != 4 && ws->len != 8)) {
			pr_err("dprof: bad --watch item '%.*s': want cache[:offset[/len]], len 1, 2, 4 or 8\n",
			       (int)n, item);
			goto out_err;
		}
	}
	if (!*ws->cache || strchr(ws->cache, '/')) {
		pr_err("dprof: bad --watch item '%.*s': no slab cache name\n", (int)n, item);
		goto out_err;
	}
	return 0;

out_err:
	zfree(&ws->cache);
	return -EINVAL;
}

/*
 * An item as a slab_watch event: the cache by its watch_id, reads and
 * writes, and a fixed period of 1, which also turns off perf record's
 * default frequency for this event only.
 */
static char *dprof_watch_spec__event(const struct dprof_watch_spec *ws,
				     unsigned int patience)
{
	unsigned long long id, size;
	char path[PATH_MAX];
	bool sweep = false;
	char *ev = NULL;

	/* no offset: the whole object, 8 bytes further on for each object */
	if (ws->whole) {
		snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/format/sweep",
			 sysfs__mountpoint(), DPROF_WATCH_PMU);
		sweep = !access(path, F_OK);
		if (!sweep)
			pr_warning("dprof: --watch=%s: this kernel's slab_watch cannot sweep an object; watching bytes 0-7 only\n",
				   ws->cache);
	}
	snprintf(path, sizeof(path), "%s/kernel/slab/%s", sysfs__mountpoint(), ws->cache);
	if (access(path, F_OK)) {
		pr_err("dprof: --watch: no slab cache '%s' (%s missing; slab merging may hide it)\n",
		       ws->cache, path);
		return NULL;
	}
	snprintf(path, sizeof(path), "kernel/slab/%s/watch_id", ws->cache);
	if (sysfs__read_ull(path, &id)) {
		pr_err("dprof: --watch: cannot read %s/%s for slab cache '%s'\n",
		       sysfs__mountpoint(), path, ws->cache);
		return NULL;
	}
	snprintf(path, sizeof(path), "kernel/slab/%s/object_size", ws->cache);
	if (!sysfs__read_ull(path, &size) && ws->offset + ws->len > size) {
		pr_err("dprof: --watch: bytes %lu-%lu are beyond the %llu-byte objects of '%s'\n",
		       ws->offset, ws->offset + ws->len - 1, size, ws->cache);
		return NULL;
	}
	if (asprintf(&ev, "%s/cache=%llu,offset=%lu,len=%lu,rw=1,patience=%u%s,period=1/",
		     DPROF_WATCH_PMU, id, ws->offset, ws->len, patience,
		     sweep ? ",sweep=1" : "") < 0)
		ev = NULL;
	return ev;
}

static int dprof_record_args__own(struct dprof_record_args *a, char *arg)
{
	if (!arg)
		return -EINVAL;
	a->owned[a->nr_owned++] = arg;
	a->argv[a->argc++] = arg;
	return 0;
}

/* The --watch items, said when bad before anything is recorded. */
static int dprof_record_args__parse_watch(struct dprof_record_args *a,
					  const struct dprof_record_opts *opts)
{
	const char *item = opts->watch, *comma;
	int err;

	if (opts->watch_patience > SLAB_WATCH_PATIENCE_MASK) {
		pr_err("dprof: --watch-patience is at most %llu\n", SLAB_WATCH_PATIENCE_MASK);
		return -EINVAL;
	}
	/* n items are at least 2n - 1 bytes */
	a->specs = calloc(strlen(item) / 2 + 1, sizeof(*a->specs));
	if (!a->specs)
		return -ENOMEM;
	while (*item) {
		comma = strchrnul(item, ',');
		err = dprof_watch_spec__parse(&a->specs[a->nr_specs], item, comma - item);
		if (err)
			return err;
		a->nr_specs++;
		item = *comma ? comma + 1 : comma;
	}
	return 0;
}

/*
 * Add "-e slab_watch/.../" for every --watch item.  Without the PMU only
 * one line is printed and the rest is recorded.  Returns the events added.
 */
static int dprof_record_args__watch(struct dprof_record_args *a,
				    const struct dprof_record_opts *opts)
{
	char path[PATH_MAX];
	int i;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/" DPROF_WATCH_PMU,
		 sysfs__mountpoint());
	if (access(path, F_OK)) {
		pr_warning("dprof: no %s PMU: object histories need the kernel series in kernel-patches/ with CONFIG_SLAB_WATCH=y; recording without them\n",
			   DPROF_WATCH_PMU);
		return 0;
	}
	for (i = 0; i < a->nr_specs; i++) {
		a->argv[a->argc++] = "-e";
		if (dprof_record_args__own(a, dprof_watch_spec__event(&a->specs[i],
								      opts->watch_patience)))
			return -EINVAL;
	}
	return a->nr_specs;
}

/* The memory PMU's load and store events, each with the period. */
static int dprof_record_args__mem(struct dprof_record_args *a,
				  const struct dprof_record_opts *opts,
				  struct perf_pmu *pmu)
{
	struct perf_mem_event *e;
	int start, j;

	e = perf_pmu__mem_events_ptr(pmu, PERF_MEM_EVENTS__LOAD_STORE);
	if (e && e->tag) {
		perf_mem_record[PERF_MEM_EVENTS__LOAD_STORE] = true;
	} else {
		perf_mem_record[PERF_MEM_EVENTS__LOAD] = true;
		perf_mem_record[PERF_MEM_EVENTS__STORE] = true;
	}
	a->argv[a->argc++] = "-W";
	a->argv[a->argc++] = "-d";
	a->argv[a->argc++] = "--phys-data";
	start = a->argc;
	if (perf_mem_events__record_args(a->argv, &a->argc))
		return -EINVAL;
	for (j = start; j < a->argc; j++) {
		char *ev;

		if (strcmp(a->argv[j - 1], "-e"))
			continue;
		ev = dprof_record__event_period(a->argv[j], opts);
		if (!ev)
			return -ENOMEM;
		a->owned[a->nr_owned++] = ev;
		a->argv[j] = ev;
	}
	return 0;
}

/* The kmem tracepoints, if this kernel and these privileges have them. */
static void dprof_record_args__kmem(struct dprof_record_args *a)
{
	size_t t;
	bool ok = true;

	/* tracefs may just not be mounted yet */
	if (!tracefs__configured() && !tracefs__mount())
		pr_debug("dprof: cannot mount tracefs\n");
	for (t = 0; t < ARRAY_SIZE(dprof_kmem_tracepoints); t++)
		ok &= is_valid_tracepoint(dprof_kmem_tracepoints[t]);
	if (!ok) {
		pr_warning("dprof: no kmem tracepoints (need tracefs, and CAP_PERFMON or perf_event_paranoid <= -1): slab objects stay unresolved\n");
		return;
	}
	for (t = 0; t < ARRAY_SIZE(dprof_kmem_tracepoints); t++) {
		a->argv[a->argc++] = "-e";
		a->argv[a->argc++] = dprof_kmem_tracepoints[t];
	}
}

int dprof_record_args__init(struct dprof_record_args *a,
			    const struct dprof_record_opts *opts,
			    int argc, const char **argv)
{
	struct perf_pmu *pmu = NULL;
	bool use_mem = false;
	char *regs = NULL;
	int nr_args, j, ret;

	memset(a, 0, sizeof(*a));
	a->monitor.ctl_fd = -1;
	a->monitor.ack_fd = -1;
	a->monitor.wake[0] = -1;
	a->monitor.wake[1] = -1;

	if (opts->watch) {
		ret = dprof_record_args__parse_watch(a, opts);
		if (ret)
			return ret;
	}
	if (strcmp(opts->sampler, "soft")) {
		pmu = perf_mem_events_find_pmu();
		use_mem = pmu && !perf_pmu__mem_events_init();
		if (!use_mem && !strcmp(opts->sampler, "mem")) {
			pr_err("dprof: no memory-sampling PMU (AMD IBS op, Intel PEBS, Arm SPE) here\n");
			return -ENODEV;
		}
	}

	/* n --watch items take 2n arguments and at least 2n - 1 bytes */
	nr_args = argc + DPROF_RECORD_ARGS + (opts->watch ? strlen(opts->watch) + 1 : 0) +
		  4 * ARRAY_SIZE(a->heap.events) +
		  DPROF_MEM_EVENT_ARGS *
		  (pmu ? perf_pmu__mem_events_num_mem_pmus(pmu) + 1 : 1);
	a->argv = calloc(nr_args + 1, sizeof(*a->argv));
	a->owned = calloc(nr_args + 1, sizeof(*a->owned));
	if (!a->argv || !a->owned)
		return -ENOMEM;

	a->argv[a->argc++] = "record";
	a->argv[a->argc++] = "--sample-cpu";
	a->argv[a->argc++] = "-T";
	/*
	 * Every lost alloc/free leaves a wrong object in the address set:
	 * a larger buffer than perf's 512 KiB per CPU (-m given later wins).
	 */
	a->argv[a->argc++] = "-m";
	a->argv[a->argc++] = "8M";

	if (use_mem) {
		ret = dprof_record_args__mem(a, opts, pmu);
		if (ret)
			return ret;
	} else if (dprof_ea__intr_regs()) {
		if (strcmp(opts->sampler, "soft"))
			pr_warning("dprof: no IBS/PEBS/SPE: sampling cpu-clock + registers, no misses or latency\n");
		a->argv[a->argc++] = "-e";
		if (dprof_record_args__own(a, dprof_record__event_period("cpu-clock", opts)))
			return -ENOMEM;
		if (asprintf(&regs, "--intr-regs=%s", dprof_ea__intr_regs()) < 0 ||
		    dprof_record_args__own(a, regs))
			return -ENOMEM;
		/* data mmaps, so that user static data resolves */
		a->argv[a->argc++] = "-d";
	} else if (!strcmp(opts->sampler, "soft") || (opts->no_kmem && !opts->watch)) {
		/* the software sampler was asked for, or nothing else is recorded */
		pr_err("dprof: no software-sampler decoder for this architecture%s\n",
		       strcmp(opts->sampler, "soft") ?
		       " and no memory-sampling PMU: nothing to record" : "");
		return -ENODEV;
	}
	if (!use_mem && !dprof_ea__intr_regs())
		pr_warning("dprof: no memory-sampling PMU and no software-sampler decoder for this architecture: no access samples\n");

	if (opts->watch) {
		ret = dprof_record_args__watch(a, opts);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			ret = dprof_monitor__init(&a->monitor, opts->watch,
						  opts->watch_histories, argc, argv);
			if (ret < 0)
				return ret;
			a->monitor_on = ret > 0;
		}
	}
	if (!opts->no_kmem)
		dprof_record_args__kmem(a);
	if (!opts->no_heap && !dprof_heap_probes__place(&a->heap, opts->heap_min_size)) {
		size_t h;

		for (h = 0; h < a->heap.nr; h++) {
			a->argv[a->argc++] = "-e";
			a->argv[a->argc++] = a->heap.events[h];
			if (a->heap.filters[h]) {
				a->argv[a->argc++] = "--filter";
				a->argv[a->argc++] = a->heap.filters[h];
			}
		}
	}
	if (a->monitor.arg[0])
		a->argv[a->argc++] = a->monitor.arg;

	for (j = 0; j < argc; j++)
		a->argv[a->argc++] = argv[j];
	return 0;
}

void dprof_record_args__exit(struct dprof_record_args *a)
{
	int j;

	dprof_monitor__exit(&a->monitor);
	dprof_heap_probes__remove(&a->heap);
	for (j = 0; j < a->nr_specs; j++)
		free(a->specs[j].cache);
	free(a->specs);
	for (j = 0; j < a->nr_owned; j++)
		free(a->owned[j]);
	free(a->owned);
	free(a->argv);
	memset(a, 0, sizeof(*a));
}
