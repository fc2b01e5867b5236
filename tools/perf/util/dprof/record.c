// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof record: the perf record command line.
 *
 * Three streams in one perf.data: access samples (a memory-sampling PMU
 * through perf mem's events, or cpu-clock with the interrupt registers the
 * software sampler decodes), the address set (the slab tracepoints), and
 * object histories (slab_watch events, --watch); the user-space address
 * set is the allocator recorder preloaded into a launched workload
 * (recorder.c), or the allocator's uprobes (heapprobe.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/slab_watch.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include <api/fs/fs.h>
#include <api/fs/tracing_path.h>
#include <perf/cpumap.h>
#include "util/cap.h"
#include "util/debug.h"
#include "util/env.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/parse-events.h"
#include "util/perf_regs.h"
#include "util/strbuf.h"
#include "util/target.h"
#include "util/trace-event.h"
#include "util/tracepoint.h"
#include <subcmd/parse-options.h>
#include <traceevent/event-parse.h>
#include "ea.h"
#include "heaplog.h"
#include "heaplog-read.h"
#include "keep.h"
#include "prune.h"
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
#define DPROF_RECORD_ARGS	60

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
 * With slab merging, caches of one size and flags share one kmem_cache:
 * /sys/kernel/slab/<name> of each is a link to the shared ":<id>"
 * directory, the watch_id read through it is the shared cache's, and the
 * kmem events name every object after the cache created first.  Say so:
 * the watch follows the objects of all the merged caches.
 */
static void dprof_watch__warn_merged(const char *cache)
{
	char path[PATH_MAX], target[PATH_MAX], other[PATH_MAX];
	struct strbuf names = STRBUF_INIT;
	const char *slab = "kernel/slab";
	int nr = 0, len;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/%s/%s", sysfs__mountpoint(), slab, cache);
	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		return;		/* a directory of its own: not merged */
	target[len] = '\0';
	snprintf(path, sizeof(path), "%s/%s", sysfs__mountpoint(), slab);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.' || d->d_name[0] == ':' || !strcmp(d->d_name, cache))
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", sysfs__mountpoint(), slab, d->d_name);
		len = readlink(path, other, sizeof(other) - 1);
		if (len < 0)
			continue;
		other[len] = '\0';
		if (strcmp(other, target))
			continue;
		if (nr++ < 4)
			strbuf_addf(&names, "%s'%s'", nr > 1 ? ", " : "", d->d_name);
	}
	if (dir)
		closedir(dir);
	if (nr)
		pr_warning("dprof: --watch=%s: slab cache '%s' is merged with %s%s (slab merging): the watch follows the objects of all of them, and their kmem events give them one name; boot with slab_nomerge to watch '%s' alone\n",
			   cache, cache, names.buf ?: "", nr > 4 ? " and more" : "", cache);
	strbuf_release(&names);
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
	dprof_watch__warn_merged(ws->cache);
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

/*
 * perf record --user-regs for the instruction pointer alone, or NULL when
 * perf samples no user registers on this arch.
 */
static char *dprof_record__user_regs_ip(void)
{
	const char *arch = perf_env__arch(NULL);
	u64 ip = perf_arch_reg_ip(arch);
	const char *name;
	char *arg;

	if (!(arch__user_reg_mask() & (1ULL << ip)))
		return NULL;
	name = perf_reg_name(ip, arch);
	if (!name || asprintf(&arg, "--user-regs=%s", name) < 0)
		return NULL;
	return arg;
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

/*
 * The ring buffer per CPU: 8 MiB, unless CPUs x 8 MiB would pin more than
 * DPROF_BUFFER_TOTAL; then the largest power of two that fits, at least
 * perf's own 512 KiB.  In KiB.
 */
#define DPROF_BUFFER_MAX_KB	(8 << 10)
#define DPROF_BUFFER_MIN_KB	512
#define DPROF_BUFFER_TOTAL_KB	(512 << 10)

static unsigned int dprof_record__buffer_kb(int nr_cpus)
{
	unsigned int kb = DPROF_BUFFER_MAX_KB;

	while (nr_cpus > 0 && kb > DPROF_BUFFER_MIN_KB &&
	       (unsigned long)kb * nr_cpus > DPROF_BUFFER_TOTAL_KB)
		kb >>= 1;
	return kb;
}

/* sysfs's bus/event_source/devices/@pmu/@what exists */
static bool dprof_pmu__has(const char *pmu, const char *what)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s%s%s",
		 sysfs__mountpoint(), pmu, what ? "/" : "", what ?: "");
	return !access(path, F_OK);
}

static void dprof_pmu_desc__add(struct dprof_pmu_desc *d, const char *name)
{
	struct dprof_mem_pmu *p;

	if (d->nr_pmus == DPROF_MEM_PMUS_MAX)
		return;
	p = &d->pmus[d->nr_pmus++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->aux = dprof_pmu__has(name, "events/mem-loads-aux");
	p->stores = dprof_pmu__has(name, "events/mem-stores");
	p->l3missonly = dprof_pmu__has(name, "format/l3missonly");
	p->ldlat = dprof_pmu__has(name, "format/ldlat") ||
		   dprof_pmu__has(name, "format/min_latency");
}

/* /proc/cpuinfo's vendor_id, or "ARM" for an arm64 "CPU implementer" */
static void dprof_pmu_desc__vendor(struct dprof_pmu_desc *d)
{
	char path[PATH_MAX], *line = NULL, *v;
	size_t n = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/cpuinfo", procfs__mountpoint());
	fp = fopen(path, "r");
	if (!fp)
		return;
	while (getline(&line, &n, fp) > 0) {
		if (strstarts(line, "CPU implementer")) {
			snprintf(d->vendor, sizeof(d->vendor), "ARM");
			break;
		}
		if (!strstarts(line, "vendor_id"))
			continue;
		v = strchr(line, ':');
		if (v)
			snprintf(d->vendor, sizeof(d->vendor), "%s", strim(v + 1));
		break;
	}
	free(line);
	fclose(fp);
}

static bool dprof_pmu_desc__amd(const struct dprof_pmu_desc *d)
{
	return !strcmp(d->vendor, "AuthenticAMD") || !strcmp(d->vendor, "HygonGenuine");
}

/**
 * dprof_pmu_desc__read - the memory PMU, CPUs and privileges of this machine
 * @d: the description
 *
 * AMD: ibs_op.  Intel: the core PMUs with a mem-loads event, both of a
 * hybrid part.  Arm: the first arm_spe_N.  As perf mem picks them.
 */
void dprof_pmu_desc__read(struct dprof_pmu_desc *d)
{
	static const char * const intel_core[] = { "cpu", "cpu_core", "cpu_atom" };
	char path[PATH_MAX], *buf = NULL;
	struct perf_cpu_map *cpus;
	unsigned int maj, min;
	bool used_root;
	struct dirent *de;
	size_t len, i;
	DIR *dir;
	int val;

	memset(d, 0, sizeof(*d));
	d->paranoid = 2;
	dprof_pmu_desc__vendor(d);
	if (dprof_pmu_desc__amd(d) && dprof_pmu__has("ibs_op", NULL)) {
		d->kind = DPROF_MEM_IBS;
		dprof_pmu_desc__add(d, "ibs_op");
	} else if (!strcmp(d->vendor, "GenuineIntel")) {
		for (i = 0; i < ARRAY_SIZE(intel_core); i++) {
			if (dprof_pmu__has(intel_core[i], "events/mem-loads"))
				dprof_pmu_desc__add(d, intel_core[i]);
		}
		if (d->nr_pmus)
			d->kind = DPROF_MEM_PEBS;
	} else {
		snprintf(path, sizeof(path), "%s/bus/event_source/devices", sysfs__mountpoint());
		dir = opendir(path);
		while (dir && (de = readdir(dir)) != NULL) {
			if (strstarts(de->d_name, "arm_spe_") && !d->nr_pmus) {
				d->kind = DPROF_MEM_SPE;
				dprof_pmu_desc__add(d, de->d_name);
			}
		}
		if (dir)
			closedir(dir);
	}

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sysfs__mountpoint());
	if (!filename__read_str(path, &buf, &len)) {
		cpus = perf_cpu_map__new(strim(buf));
		d->nr_cpus = cpus ? perf_cpu_map__nr(cpus) : 0;
		perf_cpu_map__put(cpus);
		zfree(&buf);
	}
	if (d->nr_cpus <= 0)
		d->nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!sysctl__read_int("kernel/perf_event_paranoid", &val))
		d->paranoid = val;
	snprintf(path, sizeof(path), "%s/sys/kernel/osrelease", procfs__mountpoint());
	if (!filename__read_str(path, &buf, &len)) {
		if (sscanf(buf, "%u.%u", &maj, &min) == 2)
			d->kernel = maj << 8 | min;
		free(buf);
	}
	d->perfmon = perf_cap__capable(CAP_PERFMON, &used_root) ||
		     perf_cap__capable(CAP_SYS_ADMIN, &used_root);
}

/* The workload is the whole system (or some CPUs) rather than a task. */
static bool dprof_record__system_wide(int argc, const char **argv)
{
	int j;

	for (j = 0; j < argc && strcmp(argv[j], "--"); j++) {
		if (!strcmp(argv[j], "-a") || !strcmp(argv[j], "--all-cpus") ||
		    strstarts(argv[j], "-C") || strstarts(argv[j], "--cpu"))
			return true;
		/* a bundle of perf record's short flags that take no value: -aT */
		if (argv[j][0] == '-' && argv[j][1] && argv[j][1] != '-' &&
		    strchr(argv[j], 'a') &&
		    strspn(argv[j] + 1, "abdgiknNPqRsTvWx") == strlen(argv[j] + 1))
			return true;
	}
	return false;
}

/*
 * Whether the memory PMU can be opened with these privileges, and if not,
 * the one line that says which knob.  PEBS and SPE fall back to user-space
 * samples at perf_event_paranoid 2 (perf record retries with :u); IBS
 * cannot exclude the kernel (amd/ibs.c: PERF_PMU_CAP_NO_EXCLUDE), and
 * per-task IBS needs 6.2.
 */
static const char *dprof_record__mem_denied(const struct dprof_pmu_desc *d,
					    bool system_wide, char *buf, size_t sz)
{
	if (d->kind != DPROF_MEM_IBS || d->perfmon)
		return NULL;
	if (d->paranoid > 1) {
		snprintf(buf, sz,
			 "AMD IBS cannot leave the kernel out: it needs kernel.perf_event_paranoid <= 1 (it is %d) or CAP_PERFMON",
			 d->paranoid);
		return buf;
	}
	if (!system_wide && d->kernel && d->kernel < (6 << 8 | 2)) {
		snprintf(buf, sz,
			 "AMD IBS samples a single task from kernel 6.2 on (this is %u.%u): record with -a",
			 d->kernel >> 8, d->kernel & 0xff);
		return buf;
	}
	return NULL;
}

static bool dprof_record__dry_run(int argc, const char **argv)
{
	int j;

	for (j = 0; j < argc && strcmp(argv[j], "--"); j++) {
		if (!strcmp(argv[j], "--dry-run"))
			return true;
	}
	return false;
}

/*
 * Open the memory PMU's events of argv[first..] as perf record will (on
 * this task, or on every CPU), without the sample bits, and close them:
 * what sysfs and the privilege checks cannot tell, a PMU the kernel
 * refuses even after perf record's own fallbacks (a hypervisor that
 * hides it, an LSM, a PMU another user holds exclusively).  Returns the
 * reason in @buf, or NULL when they open or do not parse (perf record
 * then says why).
 */
static const char *dprof_record__open_denied(const struct dprof_record_args *a, int first,
					     bool system_wide, char *buf, size_t sz)
{
	struct target target = { .uid = UINT_MAX, .system_wide = system_wide, };
	struct parse_events_error perr;
	const char *denied = NULL;
	struct evlist *evlist;
	struct evsel *pos;
	char pid[16], msg[200];
	struct strbuf events;
	int i, err;

	strbuf_init(&events, 0);
	for (i = first; i + 1 < a->argc; i++) {
		if (strcmp(a->argv[i], "-e"))
			continue;
		if ((events.len && strbuf_addch(&events, ',')) ||
		    strbuf_addstr(&events, a->argv[++i])) {
			strbuf_release(&events);
			return NULL;
		}
	}
	evlist = evlist__new();
	parse_events_error__init(&perr);
	if (!system_wide) {
		snprintf(pid, sizeof(pid), "%d", getpid());
		target.pid = pid;
	}
	if (!evlist || !events.len || parse_events(evlist, events.buf, &perr) ||
	    evlist__create_maps(evlist, &target))
		goto out;
	/* with perf record's fallbacks: user space only at paranoid 2 */
	evlist__for_each_entry(evlist, pos) {
		while (evsel__open(pos, pos->core.cpus, pos->core.threads) < 0) {
			err = errno;
			if (evsel__fallback(pos, &target, err, msg, sizeof(msg)))
				continue;
			evsel__open_strerror(pos, &target, err, msg, sizeof(msg));
			strim(msg);
			if (*msg && msg[strlen(msg) - 1] == '.')
				msg[strlen(msg) - 1] = '\0';
			snprintf(buf, sz, "the memory PMU did not open (%s)", msg);
			denied = buf;
			break;
		}
		if (denied)
			break;
	}
	evlist__close(evlist);
out:
	parse_events_error__exit(&perr);
	evlist__delete(evlist);
	strbuf_release(&events);
	return denied;
}

/*
 * The period (-c) or frequency (-F) as event terms.  IBS counts ops in
 * units of 16 (amd/ibs.c rejects a period with any of the low 4 bits
 * set): a period is rounded down to a multiple of 16, and that is said.
 */
static int dprof_record__period_terms(const struct dprof_pmu_desc *d,
				      const struct dprof_record_opts *opts,
				      char *buf, size_t sz)
{
	unsigned long long period;
	char *end;

	if (opts->freq)
		return scnprintf(buf, sz, "freq=%s", opts->freq);
	if (!opts->period)
		return 0;
	if (d->kind != DPROF_MEM_IBS)
		return scnprintf(buf, sz, "period=%s", opts->period);
	errno = 0;
	period = strtoull(opts->period, &end, 0);
	if (errno || *end || !period) {
		pr_err("dprof: -c %s: want a period in ops\n", opts->period);
		return -EINVAL;
	}
	if (period & 0xf) {
		unsigned long long r = max(period & ~0xfULL, 0x10ULL);

		pr_warning("dprof: AMD IBS periods are multiples of 16: -c %llu rounded to %llu\n",
			   period, r);
		period = r;
	}
	return scnprintf(buf, sz, "period=%llu", period);
}

/*
 * The memory PMU's events, as perf mem record -e ldlat-loads,ldlat-stores
 * (Intel, each core PMU of a hybrid part), -e mem-ldst (AMD) and
 * arm_spe (Arm) write them, with the period on the event that samples:
 * on Sapphire Rapids and later the load event is the second member of
 * a {mem-loads-aux,mem-loads} group, not its leader.
 */
static int dprof_record_args__mem(struct dprof_record_args *a,
				  const struct dprof_record_opts *opts,
				  const struct dprof_pmu_desc *d)
{
	char per[64] = "", lat[64] = "", t[160], ev[512];
	const struct dprof_mem_pmu *p;
	int i, ret;

	ret = dprof_record__period_terms(d, opts, per, sizeof(per));
	if (ret < 0)
		return ret;
	a->argv[a->argc++] = "-W";
	a->argv[a->argc++] = "-d";
	for (i = 0; i < d->nr_pmus; i++) {
		p = &d->pmus[i];
		switch (d->kind) {
		case DPROF_MEM_IBS:
			if (opts->l3missonly && !p->l3missonly)
				pr_warning("dprof: --l3missonly: this %s has no l3missonly (Zen 4 and later): sampling every op\n",
					   p->name);
			if (opts->ldlat != DPROF_LDLAT && !p->ldlat)
				pr_warning("dprof: --ldlat: this IBS has no load latency filter: every op is sampled\n");
			if (opts->ldlat != DPROF_LDLAT && p->ldlat)
				snprintf(lat, sizeof(lat), "ldlat=%u", opts->ldlat);
			snprintf(t, sizeof(t), "%s%s%s",
				 opts->l3missonly && p->l3missonly ? "l3missonly=1" : "",
				 opts->l3missonly && p->l3missonly && *lat ? "," : "", lat);
			snprintf(ev, sizeof(ev), "%s/%s%s%s/", p->name, t,
				 *t && *per ? "," : "", per);
			break;
		case DPROF_MEM_PEBS:
			snprintf(lat, sizeof(lat), "ldlat=%u", opts->ldlat);
			snprintf(t, sizeof(t), "%s%s%s", lat, *per ? "," : "", per);
			if (p->aux)
				snprintf(ev, sizeof(ev), "{%s/mem-loads-aux/,%s/mem-loads,%s/}:P",
					 p->name, p->name, t);
			else
				snprintf(ev, sizeof(ev), "%s/mem-loads,%s/P", p->name, t);
			a->argv[a->argc++] = "-e";
			if (dprof_record_args__own(a, strdup(ev)))
				return -ENOMEM;
			if (!p->stores)
				continue;
			snprintf(ev, sizeof(ev), "%s/mem-stores%s%s/P", p->name,
				 *per ? "," : "", per);
			break;
		case DPROF_MEM_SPE:
			/* no pa_enable: nothing reads physical addresses */
			snprintf(t, sizeof(t),
				 "ts_enable=1,load_filter=1,store_filter=1,min_latency=%u",
				 opts->ldlat);
			snprintf(ev, sizeof(ev), "%s/%s%s%s/", p->name, t, *per ? "," : "", per);
			break;
		case DPROF_MEM_NONE:
		default:
			return -ENODEV;
		}
		a->argv[a->argc++] = "-e";
		if (dprof_record_args__own(a, strdup(ev)))
			return -ENOMEM;
	}
	return 0;
}

/*
 * "-e TP/user-regs=0/", and intr-regs=0 with @no_regs (patches/perf/0021,
 * 0056): the registers the sampling event takes, not every tracepoint;
 * system-wide (patches/perf/0058) when the address set is CPU-wide.
 */
static int dprof_record_args__tracepoint(struct dprof_record_args *a,
					 const char *tp, bool no_regs)
{
	char *ev;

	if (asprintf(&ev, "%s/%suser-regs=0%s/", tp, no_regs ? "intr-regs=0," : "",
		     a->kmem_cpu_wide ? ",system-wide" : "") < 0)
		return -ENOMEM;
	a->argv[a->argc++] = "-e";
	return dprof_record_args__own(a, ev);
}

/* debugfs's @file, in *@path */
static int dprof_record__debugfs_path(char **path, const char *file)
{
	if (!debugfs__configured() && !debugfs__mount())
		pr_debug("dprof: cannot mount debugfs\n");
	if (asprintf(path, "%s/%s", debugfs__mountpoint() ?: "/sys/kernel/debug", file) < 0) {
		*path = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * The slab snapshot: the kernel describes every slab when perf dprof
 * writes its debugfs file, once perf record has enabled the events (the
 * monitor does it).  The events come from perf dprof itself, so only a
 * system-wide recording holds them.  Returns the file, or NULL.
 */
static char *dprof_record_args__snapshot(struct dprof_record_args *a,
					 int argc, const char **argv, bool no_regs)
{
	char *path;

	if (!is_valid_tracepoint(DPROF_SNAPSHOT_TRACEPOINT)) {
		pr_debug("dprof: no %s (kernel-patches/): objects allocated before recording are typed by DWARF only\n",
			 DPROF_SNAPSHOT_TRACEPOINT);
		return NULL;
	}
	if (!dprof_record__system_wide(argc, argv)) {
		pr_debug("dprof: not system-wide (-a): no slab snapshot\n");
		return NULL;
	}
	if (dprof_record__debugfs_path(&path, DPROF_SNAPSHOT_FILE))
		return NULL;
	if (access(path, W_OK)) {
		pr_warning("dprof: cannot write %s (%m; root only): objects allocated before recording are typed by DWARF only\n",
			   path);
		free(path);
		return NULL;
	}
	if (dprof_record_args__tracepoint(a, DPROF_SNAPSHOT_TRACEPOINT, no_regs) ||
	    (is_valid_tracepoint(DPROF_SLAB_NEW_TRACEPOINT) &&
	     is_valid_tracepoint(DPROF_SLAB_FREE_TRACEPOINT) &&
	     (dprof_record_args__tracepoint(a, DPROF_SLAB_NEW_TRACEPOINT, no_regs) ||
	      dprof_record_args__tracepoint(a, DPROF_SLAB_FREE_TRACEPOINT, no_regs)))) {
		free(path);
		return NULL;
	}
	return path;
}

/*
 * The address set of a task (a launched workload, -p, -t) is the whole
 * kernel's: an object its tasks touch may be allocated or freed in
 * another task's context (softirqs on another task, a client on this
 * machine, RCU callbacks, kworkers), and per task its alloc or its free
 * is not seen.  So the kmem tracepoints are recorded on every CPU
 * (system-wide, patches/perf/0058), the samples per task.  Raw
 * tracepoint data needs perf_event_paranoid <= -1 or CAP_PERFMON, a
 * CPU-wide event <= 0: if kmem events open at all, they open CPU-wide.
 */
static bool dprof_record__kmem_cpu_wide(const struct dprof_pmu_desc *d,
					const struct dprof_record_opts *opts,
					bool system_wide)
{
	if (system_wide || opts->kmem_per_task)
		return false;
	if (!d->perfmon && d->paranoid > -1) {
		pr_warning("dprof: kmem events per task (CPU-wide needs CAP_PERFMON or kernel.perf_event_paranoid=-1): objects allocated or freed in other tasks' contexts are seen half\n");
		return false;
	}
	return true;
}

/* "--filter" @filter for the event added last */
static void dprof_record_args__filter(struct dprof_record_args *a, const char *filter)
{
	a->argv[a->argc++] = "--filter";
	a->argv[a->argc++] = filter;
}

/*
 * The slab caches' objects from the slab map (--kmem-events=map): kmem:slab_new,
 * kmem:slab_free and the snapshot give every slab's cache and object size,
 * so an address in a slab is an object of its cache, its start
 * first + (addr - first) / size * size, with no event per object.  The
 * kmalloc caches keep their per-object events: their objects are typed by
 * the allocation's call site, which only kmalloc's event gives.  The map
 * needs the snapshot, so -a; a --watch recording follows objects.  A slab
 * cache's object is then its slot, one for all its lifetimes, but for the
 * allocations the kernel chose at random (--kmem-sample), which have
 * lives, and whose objects are bounded by the kernel's count of each
 * cache's allocations.  The default where the kernel has all of that
 * (dprof_record__kmem_map_auto()).
 */
static bool dprof_record__kmem_map_auto(const struct dprof_record_opts *opts,
					bool system_wide);

static bool dprof_record__kmem_map(const struct dprof_record_opts *opts, bool system_wide)
{
	const char *why = NULL;
	char *path = NULL;

	if (!opts->kmem_mode)
		return dprof_record__kmem_map_auto(opts, system_wide);
	if (strcmp(opts->kmem_mode, "map"))
		return false;
	if (opts->watch)
		why = "--watch follows objects: their events are recorded";
	else if (!system_wide)
		why = "the slab map needs its snapshot, taken for -a only";
	else if (!is_valid_tracepoint(DPROF_SNAPSHOT_TRACEPOINT) ||
		 !is_valid_tracepoint(DPROF_SLAB_NEW_TRACEPOINT) ||
		 !is_valid_tracepoint(DPROF_SLAB_FREE_TRACEPOINT))
		why = "no kmem:slab_new, slab_free and slab_snapshot (kernel-patches/)";
	else if (dprof_record__debugfs_path(&path, DPROF_SNAPSHOT_FILE) || access(path, W_OK))
		why = "cannot write the slab snapshot file (root only)";
	free(path);
	if (why)
		pr_warning("dprof: --kmem-events=map: %s: every object's events instead\n", why);
	return !why;
}

/*
 * Without --kmem-events: the map where the kernel has all it needs for
 * it to lose least, its slab events and snapshot, the sampled lifetimes
 * and each cache's allocation count (kernel-patches/ 0005, 0012), and
 * dprof may use them (-a, root, no --watch); every object's events
 * otherwise, without a word.
 */
static bool dprof_record__kmem_map_auto(const struct dprof_record_opts *opts,
					bool system_wide)
{
	static const char * const files[] = {
		DPROF_SNAPSHOT_FILE, DPROF_SLAB_SAMPLE_INTERVAL_FILE,
		DPROF_SLAB_SAMPLE_ALLOCS_FILE,
	};
	static const int modes[] = { W_OK, W_OK, R_OK, };
	char *path;
	size_t i;

	if (opts->watch || !system_wide || !opts->kmem_sample ||
	    !is_valid_tracepoint(DPROF_SNAPSHOT_TRACEPOINT) ||
	    !is_valid_tracepoint(DPROF_SLAB_NEW_TRACEPOINT) ||
	    !is_valid_tracepoint(DPROF_SLAB_FREE_TRACEPOINT) ||
	    !is_valid_tracepoint(DPROF_SLAB_SAMPLE_ALLOC_TRACEPOINT) ||
	    !is_valid_tracepoint(DPROF_SLAB_SAMPLE_FREE_TRACEPOINT))
		return false;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		bool ok;

		path = NULL;
		ok = !dprof_record__debugfs_path(&path, files[i]) && !access(path, modes[i]);
		free(path);
		if (!ok)
			return false;
	}
	pr_debug("dprof: the slab map with sampled lifetimes (--kmem-events=objects for every object's events)\n");
	return true;
}

/*
 * Every slab cache's allocations so far while the kernel chose lifetimes
 * (kernel-patches/ 0012's sample_allocs: "count name" lines) into *@v,
 * one entry for each name.  0, or a negative errno: no such file (an
 * older 0012), or no memory.
 */
static int dprof_slab_allocs__read(struct dprof_slab_allocs **v, u32 *nr)
{
	char *path = NULL, *buf = NULL, *line, *save = NULL;
	struct dprof_slab_allocs *a = NULL, *p;
	unsigned long long count;
	size_t len = 0;
	u32 n = 0, i;
	int err, off;

	*v = NULL;
	*nr = 0;
	err = dprof_record__debugfs_path(&path, DPROF_SLAB_SAMPLE_ALLOCS_FILE);
	if (err)
		return err;
	err = filename__read_str(path, &buf, &len);
	free(path);
	if (err)
		return err;
	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%llu %n", &count, &off) != 1 || !line[off])
			continue;
		for (i = 0; i < n; i++) {
			if (!strncmp(a[i].name, line + off, sizeof(a[i].name) - 1))
				break;
		}
		if (i == n) {
			p = realloc(a, (n + 1) * sizeof(*a));
			if (!p) {
				free(a);
				free(buf);
				return -ENOMEM;
			}
			a = p;
			memset(&a[n], 0, sizeof(a[n]));
			snprintf(a[n].name, sizeof(a[n].name), "%s", line + off);
			n++;
		}
		a[i].allocs += count;
	}
	free(buf);
	*v = a;
	*nr = n;
	return 0;
}

/*
 * With the slab map, the lives of one slab cache allocation in
 * opts->kmem_sample, chosen at random by the kernel (kernel-patches/ 0012:
 * kmem:slab_sample_alloc and kmem:slab_sample_free): their lifetimes,
 * which the map does not give, for a small share of the events of every
 * object.  The kmalloc caches have their own
 * events already.  The kernel's interval is set for the recording and
 * given back its value after (dprof_record_args__exit()).
 */
static int dprof_record_args__slab_sample(struct dprof_record_args *a, bool no_regs,
					  const struct dprof_record_opts *opts)
{
	const char *not_kmalloc = "!(name ~ \"*kmalloc-*\")";
	size_t len = 0;
	char *buf = NULL;
	int err;

	if (!opts->kmem_sample)
		return 0;
	if (!is_valid_tracepoint(DPROF_SLAB_SAMPLE_ALLOC_TRACEPOINT) ||
	    !is_valid_tracepoint(DPROF_SLAB_SAMPLE_FREE_TRACEPOINT)) {
		pr_debug("dprof: no %s (kernel-patches/ 0012): the slab map gives no lifetimes\n",
			 DPROF_SLAB_SAMPLE_ALLOC_TRACEPOINT);
		return 0;
	}
	err = dprof_record__debugfs_path(&a->sample_path, DPROF_SLAB_SAMPLE_INTERVAL_FILE);
	if (err)
		return err;
	if (filename__read_str(a->sample_path, &buf, &len) || !len ||
	    len >= sizeof(a->sample_was) ||
	    filename__write_int(a->sample_path, opts->kmem_sample)) {
		pr_warning("dprof: cannot set %s (root only): the slab map gives no lifetimes\n",
			   a->sample_path);
		zfree(&a->sample_path);
		free(buf);
		return 0;
	}
	memcpy(a->sample_was, buf, len);
	a->sample_was[len] = '\0';
	free(buf);
	err = dprof_record_args__tracepoint(a, DPROF_SLAB_SAMPLE_ALLOC_TRACEPOINT, no_regs);
	if (err)
		return err;
	dprof_record_args__filter(a, not_kmalloc);
	err = dprof_record_args__tracepoint(a, DPROF_SLAB_SAMPLE_FREE_TRACEPOINT, no_regs);
	if (err)
		return err;
	dprof_record_args__filter(a, not_kmalloc);
	return 0;
}

/*
 * The counts move from the time perf record opens the sampled pair, but
 * its events are enabled later, after perf record has read every task's
 * maps (and allocated for that): they are read when the monitor finds
 * perf record recording, with the slab snapshot.
 */
static void dprof_record_args__allocs_begin(void *arg)
{
	struct dprof_record_args *a = arg;

	a->allocs_counted = !dprof_slab_allocs__read(&a->allocs_before, &a->nr_allocs_before);
	if (!a->allocs_counted)
		pr_debug("dprof: no %s (an older kernel-patches/ 0012): Objects under the slab map goes by the chosen allocations alone\n",
			 DPROF_SLAB_SAMPLE_ALLOCS_FILE);
}

/*
 * What each slab cache allocated while recording, as the kernel counted
 * it: its counts now less those at the start, read once perf record has
 * closed its events, before the record-end pass reads files (and
 * allocates for that).  Returns the section (prune.h:
 * DPROF_SLAB_ALLOCS_FEAT) for dprof_record_args__allocs_write(), or NULL.
 */
static struct dprof_slab_allocs_feat *dprof_record_args__allocs_end(struct dprof_record_args *a)
{
	struct dprof_slab_allocs_feat *feat;
	struct dprof_slab_allocs *now, *out;
	u32 nr, i, j, k = 0;
	int err;

	if (!a->allocs_counted || !a->output)
		return NULL;
	err = dprof_slab_allocs__read(&now, &nr);
	if (err) {
		pr_warning("dprof: cannot read the slab caches' allocation counts (%s): Objects under the slab map goes by the chosen allocations alone\n",
			   strerror(-err));
		return NULL;
	}
	feat = zalloc(sizeof(*feat) + nr * sizeof(*out));
	if (!feat) {
		free(now);
		return NULL;
	}
	out = (struct dprof_slab_allocs *)(feat + 1);
	for (i = 0; i < nr; i++) {
		u64 was = 0;

		for (j = 0; j < a->nr_allocs_before; j++) {
			if (!strcmp(a->allocs_before[j].name, now[i].name)) {
				was = a->allocs_before[j].allocs;
				break;
			}
		}
		if (now[i].allocs <= was)
			continue;
		out[k] = now[i];
		out[k++].allocs -= was;
	}
	free(now);
	memcpy(feat->magic, DPROF_SLAB_ALLOCS_FEAT_MAGIC, sizeof(feat->magic));
	feat->version = 1;
	feat->nr = k;
	return feat;
}

/* ... added to the recording, after the record-end pass wrote it again */
static void dprof_record_args__allocs_write(struct dprof_record_args *a,
					    struct dprof_slab_allocs_feat *feat)
{
	size_t len = sizeof(*feat) + feat->nr * sizeof(struct dprof_slab_allocs);
	int fd, err;

	fd = open(a->output, O_RDWR | O_CLOEXEC);
	err = fd < 0 ? -errno : dprof_feat__append(fd, DPROF_SLAB_ALLOCS_FEAT, feat, len);
	if (fd >= 0)
		close(fd);
	if (err)
		pr_warning("dprof: the slab caches' allocation counts are not in %s (%s): Objects under the slab map goes by the chosen allocations alone\n",
			   a->output, strerror(-err));
}

/* The objects the kernel could not trace (its table full): said, not hidden */
static void dprof_record_args__slab_sample_done(struct dprof_record_args *a)
{
	char *path = NULL;
	int dropped = 0;

	if (!a->sample_path ||
	    dprof_record__debugfs_path(&path, DPROF_SLAB_SAMPLE_DROPPED_FILE))
		return;
	if (!filename__read_int(path, &dropped) && dropped > 0)
		pr_warning("dprof: %d chosen slab objects were not traced (the kernel's table of them was full): the lifetimes lack them\n",
			   dropped);
	free(path);
}

/*
 * Whether kmem:kfree names the cache the object goes back to (a field
 * "name", kernel-patches/: the cache's name, "kmalloc-large" for a large
 * kmalloc()): then a filter can keep kmalloc's frees and leave the slab
 * caches' to the map.  Older kernels' kfree names none.
 */
static bool dprof_record__kfree_named(void)
{
	struct tep_event *ev = trace_event__tp_format("kmem", "kfree");

	return !IS_ERR_OR_NULL(ev) && tep_find_field(ev, "name");
}

/*
 * The kmem tracepoints, if this kernel and these privileges have them;
 * without the sampling event's registers (dprof_record_args__tracepoint()):
 * the replay reads none of them.  kfree(NULL), which the kernel traces
 * too, is left out by a filter: it is no object, and most of the kfree
 * events of a network load.
 */
static bool dprof_record_args__kmem(struct dprof_record_args *a, bool no_regs,
				    const struct dprof_pmu_desc *d,
				    const struct dprof_record_opts *opts, bool system_wide)
{
	/* a slab cache's object a mempool, kfree_rcu() or kfree() hands over: its map's */
	const char *kmalloc_only = "name ~ \"*kmalloc-*\"";
	size_t t;
	bool ok = true;

	/* tracefs may just not be mounted yet */
	if (!tracefs__configured() && !tracefs__mount())
		pr_debug("dprof: cannot mount tracefs\n");
	for (t = 0; t < ARRAY_SIZE(dprof_kmem_tracepoints); t++)
		ok &= is_valid_tracepoint(dprof_kmem_tracepoints[t]);
	if (!ok) {
		pr_warning("dprof: no kmem tracepoints (need tracefs, and CAP_PERFMON or perf_event_paranoid <= -1): slab objects stay unresolved\n");
		return false;
	}
	a->kmem_cpu_wide = dprof_record__kmem_cpu_wide(d, opts, system_wide);
	a->kmem_map = dprof_record__kmem_map(opts, system_wide);
	for (t = 0; t < ARRAY_SIZE(dprof_kmem_tracepoints); t++) {
		const char *tp = dprof_kmem_tracepoints[t];

		/* kmem_cache_alloc, kmem_cache_free: the slab map's */
		if (a->kmem_map && strstr(tp, "kmem_cache_"))
			continue;
		if (dprof_record_args__tracepoint(a, tp, no_regs))
			return false;
		if (strcmp(tp, "kmem:kfree"))
			continue;
		/*
		 * kfree() of a slab cache's object (an skb's skbuff_small_head,
		 * most of a network load's kfree() events): the map's, when
		 * kfree names the cache; kfree(NULL) is named "(null)".
		 */
		if (a->kmem_map && dprof_record__kfree_named()) {
			dprof_record_args__filter(a, kmalloc_only);
			continue;
		}
		dprof_record_args__filter(a, "ptr > 16");
		if (a->kmem_map)
			pr_debug("dprof: kmem:kfree names no cache: every kfree() is recorded\n");
	}
	/* recycled objects: lifetimes end and start without the allocator */
	if (is_valid_tracepoint(DPROF_MEMPOOL_PUT_TRACEPOINT) &&
	    is_valid_tracepoint(DPROF_MEMPOOL_GET_TRACEPOINT)) {
		if (dprof_record_args__tracepoint(a, DPROF_MEMPOOL_PUT_TRACEPOINT, no_regs))
			return false;
		if (a->kmem_map)
			dprof_record_args__filter(a, kmalloc_only);
		if (dprof_record_args__tracepoint(a, DPROF_MEMPOOL_GET_TRACEPOINT, no_regs))
			return false;
		if (a->kmem_map)
			dprof_record_args__filter(a, kmalloc_only);
	}
	/* kfree_rcu(): the lifetime ends at the call, not at the batched free */
	if (is_valid_tracepoint(DPROF_KFREE_RCU_TRACEPOINT)) {
		if (dprof_record_args__tracepoint(a, DPROF_KFREE_RCU_TRACEPOINT, no_regs))
			return false;
		if (a->kmem_map)
			dprof_record_args__filter(a, kmalloc_only);
	}
	if (!a->kmem_map && opts->kmem_sample != DPROF_KMEM_SAMPLE)
		pr_warning("dprof: --kmem-sample is for the slab map (--kmem-events=map): every object's events are recorded\n");
	if (a->kmem_map && dprof_record_args__slab_sample(a, no_regs, opts))
		return false;
	return true;
}

/*
 * --heap-alloc=ALLOC[,FREE[,REALLOC]]: the functions of an allocator of
 * the program's own, which the recorder hooks (dprof-preload/hook.c);
 * given again, another allocator.
 */
int dprof_record__opt_heap_alloc(const struct option *opt, const char *str, int unset)
{
	char **allocs = opt->value, *joined;
	const char *p = str;
	int fields = 0;

	if (unset) {
		zfree(allocs);
		return 0;
	}
	/* one to three names, none empty, of the characters of a symbol */
	while (p && fields < 4) {
		size_t len = strcspn(p, ",");

		if (!len || len > 127 || strcspn(p, "; \t") < len) {
			fields = 0;
			break;
		}
		fields++;
		p = p[len] ? p + len + 1 : NULL;
	}
	if (!fields || fields > 3) {
		pr_err("dprof: --heap-alloc=%s: want ALLOC[,FREE[,REALLOC]], the allocator's function names\n",
		       str);
		return -1;
	}
	if (asprintf(&joined, "%s%s%s", *allocs ?: "", *allocs ? ";" : "", str) < 0)
		return -1;
	free(*allocs);
	*allocs = joined;
	return 0;
}

/* The allocator's uprobes, and those of the workload's own allocators. */
static int dprof_record_args__probe_heap(struct dprof_record_args *a,
					 const struct dprof_record_opts *opts, bool system_wide,
					 int argc, const char **argv)
{
	char *exe = dprof_recorder__workload_file(system_wide, argc, argv);
	int err;

	if (opts->heap_allocs && !exe)
		pr_warning("dprof: --heap-alloc=%s: probed in a workload perf dprof record launches only: not tracked\n",
			   opts->heap_allocs);
	err = dprof_heap_probes__place(&a->heap, opts->heap_min_size, exe, opts->heap_allocs);
	free(exe);
	return err;
}

int dprof_record_args__init(struct dprof_record_args *a,
			    const struct dprof_record_opts *opts,
			    int argc, const char **argv)
{
	struct dprof_pmu_desc desc;
	bool use_mem = false, system_wide = dprof_record__system_wide(argc, argv);
	char *regs = NULL, why[256], *buf, *snapshot = NULL;
	bool watches = false;
	const char *denied = NULL;
	int nr_args, j, ret;

	memset(a, 0, sizeof(*a));
	a->monitor.ctl_fd = -1;
	a->monitor.ack_fd = -1;
	a->monitor.wake[0] = -1;
	a->monitor.wake[1] = -1;

	if (opts->kmem_mode && strcmp(opts->kmem_mode, "map") &&
	    strcmp(opts->kmem_mode, "objects")) {
		pr_err("dprof: --kmem-events=%s: want map or objects\n", opts->kmem_mode);
		return -EINVAL;
	}
	if (opts->watch) {
		ret = dprof_record_args__parse_watch(a, opts);
		if (ret)
			return ret;
	}
	dprof_pmu_desc__read(&desc);
	if (system_wide && !desc.perfmon && desc.paranoid > 0) {
		pr_err("dprof: -a/-C (CPU-wide) needs kernel.perf_event_paranoid <= 0 (it is %d) or CAP_PERFMON\n",
		       desc.paranoid);
		return -EACCES;
	}
	if (strcmp(opts->sampler, "soft")) {
		use_mem = desc.kind != DPROF_MEM_NONE;
		if (!use_mem && !strcmp(opts->sampler, "mem")) {
			pr_err("dprof: no memory-sampling PMU (AMD IBS op, Intel PEBS, Arm SPE) here\n");
			return -ENODEV;
		}
		denied = use_mem ? dprof_record__mem_denied(&desc, system_wide, why,
							    sizeof(why)) : NULL;
		if (denied && !strcmp(opts->sampler, "mem")) {
			pr_err("dprof: %s\n", denied);
			return -EACCES;
		}
		if (denied) {
			pr_warning("dprof: %s; sampling cpu-clock + registers instead (no misses or latency)\n",
				   denied);
			use_mem = false;
		}
	}

	/* n --watch items take 2n arguments and at least 2n - 1 bytes */
	nr_args = argc + DPROF_RECORD_ARGS + (opts->watch ? strlen(opts->watch) + 1 : 0) +
		  4 * ARRAY_SIZE(a->heap.events) +
		  DPROF_MEM_EVENT_ARGS * (desc.nr_pmus + 1);
	a->argv = calloc(nr_args + 1, sizeof(*a->argv));
	a->owned = calloc(nr_args + 1, sizeof(*a->owned));
	if (!a->argv || !a->owned)
		return -ENOMEM;

	a->argv[a->argc++] = "record";
	a->argv[a->argc++] = "--sample-cpu";
	a->argv[a->argc++] = "-T";
	/*
	 * Every lost alloc/free leaves a wrong object in the address set:
	 * a larger buffer than perf's 512 KiB per CPU, but no more than
	 * DPROF_BUFFER_TOTAL for all CPUs together (-m given later wins).
	 */
	a->argv[a->argc++] = "-m";
	if (asprintf(&buf, "%uK", dprof_record__buffer_kb(desc.nr_cpus)) < 0 ||
	    dprof_record_args__own(a, buf))
		return -ENOMEM;

	if (use_mem) {
		int first = a->argc;

		ret = dprof_record_args__mem(a, opts, &desc);
		if (ret)
			return ret;
		/* auto: what the kernel refuses falls back like a denied knob */
		if (strcmp(opts->sampler, "mem") && dprof_ea__intr_regs() &&
		    !dprof_record__dry_run(argc, argv) &&
		    dprof_record__open_denied(a, first, system_wide, why, sizeof(why))) {
			pr_warning("dprof: %s; sampling cpu-clock + registers instead (no misses or latency)\n",
				   why);
			a->argc = first;
			use_mem = false;
			denied = why;
		}
	}
	if (!use_mem && dprof_ea__intr_regs()) {
		if (strcmp(opts->sampler, "soft") && !denied)
			pr_warning("dprof: no IBS/PEBS/SPE: sampling cpu-clock + registers, no misses or latency\n");
		a->argv[a->argc++] = "-e";
		if (dprof_record_args__own(a, dprof_record__event_period("cpu-clock", opts)))
			return -ENOMEM;
		if (asprintf(&regs, "--intr-regs=%s", dprof_ea__intr_regs()) < 0 ||
		    dprof_record_args__own(a, regs))
			return -ENOMEM;
		/*
		 * data mmaps, so that user static data resolves; not -d,
		 * whose data address and source are zero in every cpu-clock
		 * sample, unless watch hits are recorded: their address is
		 * the watched byte's
		 */
		a->argv[a->argc++] = opts->watch ? "-d" : "--data-mmap";
	} else if (!use_mem &&
		   (!strcmp(opts->sampler, "soft") || (opts->no_kmem && !opts->watch))) {
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
		watches = ret > 0;
	}
	if (!opts->no_kmem && dprof_record_args__kmem(a, regs, &desc, opts, system_wide))
		snapshot = dprof_record_args__snapshot(a, argc, argv, regs);
	/*
	 * At the end, the objects no sample touched are left out, and the
	 * software sampler's samples are written decoded (prune.h).
	 */
	a->output = dprof_record__output(argc, argv);
	if (!opts->no_prune)
		a->prune = a->output;
	if (watches || snapshot) {
		ret = dprof_monitor__init(&a->monitor, watches ? opts->watch : NULL,
					  watches ? opts->watch_histories : 0,
					  snapshot, argc, argv);
		free(snapshot);
		if (ret < 0)
			return ret;
		a->monitor_on = ret > 0;
		if (a->sample_path && a->monitor.snapshot) {
			a->monitor.begin = dprof_record_args__allocs_begin;
			a->monitor.begin_arg = a;
		}
	}
	if (!opts->no_heap && !opts->heap_uprobes) {
		ret = dprof_recorder__init(&a->recorder, system_wide, opts->heap_min_size,
					   argc, argv);
		if (ret)
			return ret;
	} else if (!opts->no_heap &&
		   dprof_recorder__static_workload(system_wide, argc, argv)) {
		a->recorder.none = true;	/* no uprobes: nothing to catch */
	}
	if (a->recorder.on && opts->heap_allocs &&
	    setenv(DPROF_HEAP_ALLOC_ENV, opts->heap_allocs, 1))
		return -ENOMEM;
	if (a->recorder.on) {
		/* the recorder's clock, so that its times and the samples' compare */
		a->argv[a->argc++] = "-k";
		a->argv[a->argc++] = "monotonic";
	} else if (!opts->no_heap && !a->recorder.none &&
		   !dprof_record_args__probe_heap(a, opts, system_wide, argc, argv)) {
		size_t h;

		for (h = 0; h < a->heap.nr; h++) {
			a->argv[a->argc++] = "-e";
			a->argv[a->argc++] = a->heap.events[h];
			if (a->heap.filters[h]) {
				a->argv[a->argc++] = "--filter";
				a->argv[a->argc++] = a->heap.filters[h];
			}
		}
		/*
		 * Where a kernel sample's thread entered: a probe, its trap
		 * (replay-uprobe.c).  The tracepoints leave it out (user-regs=0).
		 */
		if (a->heap.nr) {
			char *arg = dprof_record__user_regs_ip();

			if (arg)
				dprof_record_args__own(a, arg);
		}
	}
	if (a->monitor.arg[0])
		a->argv[a->argc++] = a->monitor.arg;

	for (j = 0; j < argc; j++)
		a->argv[a->argc++] = argv[j];
	return 0;
}

int dprof_record_args__done(struct dprof_record_args *a, int record_err)
{
	struct dprof_slab_allocs_feat *allocs = NULL;
	int err;

	struct dprof_touches touches;

	memset(&touches, 0, sizeof(touches));
	unsetenv(DPROF_HEAP_ALLOC_ENV);
	/* its counts read, if perf record got to record */
	dprof_monitor__join(&a->monitor);
	if (!record_err)
		allocs = dprof_record_args__allocs_end(a);
	dprof_record_args__slab_sample_done(a);
	/*
	 * A file that cannot be pruned stays as recorded: it says why.  The
	 * samples it decoded serve the heap log's store too: decoding them
	 * is most of what either pass costs.
	 */
	if (!record_err && a->prune)
		dprof_kmem__prune_say(a->prune, &touches);
	if (allocs)
		dprof_record_args__allocs_write(a, allocs);
	free(allocs);
	err = dprof_recorder__done(&a->recorder, record_err,
				   touches.nr_samples ? &touches : NULL);
	dprof_touches__exit(&touches);
	return err;
}

void dprof_record_args__exit(struct dprof_record_args *a)
{
	int j;

	unsetenv(DPROF_HEAP_ALLOC_ENV);
	/* the kernel's sampling interval as it was */
	if (a->sample_path &&
	    filename__write_int(a->sample_path, atoi(a->sample_was)))
		pr_warning("dprof: cannot give %s back its value %s\n", a->sample_path,
			   a->sample_was);
	free(a->sample_path);
	free(a->allocs_before);
	dprof_recorder__exit(&a->recorder);
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
