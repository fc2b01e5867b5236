// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof report --pprof=FILE: the data profile in pprof's format,
 * github.com/google/pprof/blob/main/proto/profile.proto, encoded by
 * util/dprof/protobuf.c (a few varint and length-delimited fields: no
 * protobuf library is worth a new dependency for that).
 *
 * A sample is a stack of the flame view (type -> member -> function):
 * its location is the function, and its type, member, kind (slab,
 * kmalloc, static, percpu, typed, stack, heap, operand), site (the
 * profile's "Cache / kind": cache, size class and call site, variable,
 * allocation site) and cpu_bounce (the type's objects were touched by
 * more than one CPU) are labels, so that -tagfocus=type=... picks a type.
 * Its values: samples, then misses and latency where the sampler
 * measured them (the profile's has_levels, has_latency).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>
#ifdef HAVE_ZLIB_SUPPORT
#include <zlib.h>
#endif

#include "util/build-id.h"
#include "util/debug.h"
#include "util/dso.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/hashmap.h"
#include "util/session.h"
#include "util/dprof/hashfn.h"
#include "util/dprof/protobuf.h"
#include "dprof-flame.h"
#include "dprof-pprof.h"

/* profile.proto's field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_DROP_FRAMES, PROFILE_KEEP_FRAMES,
	PROFILE_TIME_NANOS, PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE, PROFILE_PERIOD,
	PROFILE_COMMENT, PROFILE_DEFAULT_SAMPLE_TYPE,
};

enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT };

enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL };

enum { LABEL_KEY = 1, LABEL_STR, LABEL_NUM, LABEL_NUM_UNIT };

enum {
	MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_MEMORY_LIMIT, MAPPING_FILE_OFFSET,
	MAPPING_FILENAME, MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS,
};

enum { LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE };

enum { LINE_FUNCTION_ID = 1, LINE_LINE };

enum { FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME };

/* the string table: index 0 is "" */
struct pprof_strings {
	struct hashmap	*idx;		/* string (ours) -> index */
	char		**str;
	size_t		nr;
	size_t		alloc;
	int		err;		/* -ENOMEM: a string is missing */
};

static u64 pprof_strings__idx(struct pprof_strings *s, const char *str)
{
	long idx;
	char *dup;

	if (!str || !*str)
		return 0;
	if (hashmap__find(s->idx, str, &idx))
		return idx;
	if (s->nr == s->alloc) {
		size_t alloc = s->alloc ? 2 * s->alloc : 256;
		char **p = realloc(s->str, alloc * sizeof(*p));

		if (!p) {
			s->err = -ENOMEM;
			return 0;
		}
		s->str = p;
		s->alloc = alloc;
	}
	dup = strdup(str);
	if (!dup || hashmap__add(s->idx, dup, s->nr)) {
		free(dup);
		s->err = -ENOMEM;
		return 0;
	}
	s->str[s->nr] = dup;
	return s->nr++;
}

/* a mapping: one per file the functions are in, the range of their ips */
struct pprof_mapping {
	struct dso	*dso;
	u64		lo;
	u64		hi;
};

struct pprof {
	struct pprof_strings	strings;
	struct hashmap		*maps;		/* dso -> mapping id */
	struct pprof_mapping	*map;		/* [id - 1] */
	size_t			nr_maps;
	struct hashmap		*funcs;		/* name index << 16 | mapping id -> id */
	u64			*func_name;	/* [id - 1] */
	u64			*loc_func;	/* [id - 1]: locations are functions */
	u64			*loc_addr;
	size_t			nr_funcs;
};

static int pprof__init(struct pprof *p, size_t nr_leaves)
{
	memset(p, 0, sizeof(*p));
	p->strings.idx = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
	p->maps = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	p->funcs = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	p->map = calloc(nr_leaves + 1, sizeof(*p->map));
	p->func_name = calloc(nr_leaves + 1, sizeof(*p->func_name));
	p->loc_func = calloc(nr_leaves + 1, sizeof(*p->loc_func));
	p->loc_addr = calloc(nr_leaves + 1, sizeof(*p->loc_addr));
	if (IS_ERR(p->strings.idx) || IS_ERR(p->maps) || IS_ERR(p->funcs) || !p->map ||
	    !p->func_name || !p->loc_func || !p->loc_addr)
		return -ENOMEM;
	/* index 0 is "", in the table but not looked up */
	p->strings.str = calloc(256, sizeof(*p->strings.str));
	if (!p->strings.str)
		return -ENOMEM;
	p->strings.alloc = 256;
	p->strings.str[p->strings.nr++] = strdup("");
	return p->strings.str[0] ? 0 : -ENOMEM;
}

static void pprof__exit(struct pprof *p)
{
	size_t i;

	if (!IS_ERR_OR_NULL(p->strings.idx))
		hashmap__free(p->strings.idx);
	for (i = 0; i < p->strings.nr; i++)
		free(p->strings.str[i]);
	free(p->strings.str);
	if (!IS_ERR_OR_NULL(p->maps))
		hashmap__free(p->maps);
	if (!IS_ERR_OR_NULL(p->funcs))
		hashmap__free(p->funcs);
	free(p->map);
	free(p->func_name);
	free(p->loc_func);
	free(p->loc_addr);
}

/* The location of @l's function: its id, made the first time. */
static u64 pprof__location(struct pprof *p, const struct dprof_flame_leaf *l)
{
	long map_id, func_id;
	u64 name = pprof_strings__idx(&p->strings, l->func);

	if (!hashmap__find(p->maps, l->dso, &map_id)) {
		map_id = ++p->nr_maps;
		p->map[map_id - 1] = (struct pprof_mapping){ .dso = l->dso, .lo = l->ip,
							    .hi = l->ip };
		if (hashmap__add(p->maps, l->dso, map_id))
			return 0;
	}
	p->map[map_id - 1].lo = min(p->map[map_id - 1].lo, l->ip);
	p->map[map_id - 1].hi = max(p->map[map_id - 1].hi, l->ip);
	if (!hashmap__find(p->funcs, name << 16 | map_id, &func_id)) {
		func_id = ++p->nr_funcs;
		p->func_name[func_id - 1] = name;
		p->loc_func[func_id - 1] = map_id;
		p->loc_addr[func_id - 1] = l->ip;
		if (hashmap__add(p->funcs, name << 16 | map_id, func_id))
			return 0;
	}
	p->loc_addr[func_id - 1] = min(p->loc_addr[func_id - 1], l->ip);
	return func_id;
}

static void pprof__value_type(struct dprof_pb *pb, struct pprof *p, u32 field,
			      const char *type, const char *unit)
{
	struct dprof_pb vt;

	dprof_pb__init(&vt);
	dprof_pb__varint(&vt, VALUE_TYPE_TYPE, pprof_strings__idx(&p->strings, type));
	dprof_pb__varint(&vt, VALUE_TYPE_UNIT, pprof_strings__idx(&p->strings, unit));
	dprof_pb__message(pb, field, &vt);
	dprof_pb__exit(&vt);
}

static void pprof__label(struct dprof_pb *pb, struct pprof *p, const char *key,
			 const char *str)
{
	struct dprof_pb lb;

	dprof_pb__init(&lb);
	dprof_pb__varint(&lb, LABEL_KEY, pprof_strings__idx(&p->strings, key));
	dprof_pb__varint(&lb, LABEL_STR, pprof_strings__idx(&p->strings, str));
	dprof_pb__message(pb, SAMPLE_LABEL, &lb);
	dprof_pb__exit(&lb);
}

static void pprof__samples(struct dprof_pb *pb, struct pprof *p, const struct dprof_flame *f,
			   bool misses, bool latency)
{
	struct dprof_pb s;
	size_t i;

	dprof_pb__init(&s);
	for (i = 0; i < f->nr; i++) {
		const struct dprof_flame_leaf *l = &f->leaf[i];
		const struct dprof_row_info *ri = &f->t.info[l->row];
		const struct dprof_class *row = f->t.row[l->row];
		u64 loc = pprof__location(p, l), vals[3];
		size_t nr = 0;

		vals[nr++] = l->stats.samples;
		if (misses)
			vals[nr++] = l->stats.misses;
		if (latency)
			vals[nr++] = l->stats.lat_sum;
		dprof_pb__reset(&s);
		dprof_pb__packed(&s, SAMPLE_LOCATION_ID, &loc, 1);
		dprof_pb__packed(&s, SAMPLE_VALUE, vals, nr);
		pprof__label(&s, p, "type", dprof_flame__type(f, l->row));
		pprof__label(&s, p, "member", l->member);
		pprof__label(&s, p, "kind", dprof_kind__str(row->kind));
		pprof__label(&s, p, "site", ri->desc.buf);
		pprof__label(&s, p, "cpu_bounce", row->nr_bounced ? "yes" : "no");
		dprof_pb__message(pb, PROFILE_SAMPLE, &s);
	}
	dprof_pb__exit(&s);
}

static void pprof__tables(struct dprof_pb *pb, struct pprof *p)
{
	struct dprof_pb m;
	size_t i;

	dprof_pb__init(&m);
	for (i = 0; i < p->nr_maps; i++) {
		struct dso *dso = p->map[i].dso;
		char bid[SBUILD_ID_SIZE];
		u64 name;

		dprof_pb__reset(&m);
		dprof_pb__varint(&m, MAPPING_ID, i + 1);
		dprof_pb__varint_nz(&m, MAPPING_MEMORY_START, p->map[i].lo);
		dprof_pb__varint_nz(&m, MAPPING_MEMORY_LIMIT, p->map[i].hi + 1);
		name = pprof_strings__idx(&p->strings, dso ? dso__long_name(dso) : "[unknown]");
		dprof_pb__varint(&m, MAPPING_FILENAME, name);
		if (dso && dso__has_build_id(dso) && build_id__sprintf(dso__bid(dso), bid) > 0)
			dprof_pb__varint(&m, MAPPING_BUILD_ID,
					 pprof_strings__idx(&p->strings, bid));
		/* the names are in: pprof must not symbolize the addresses again */
		dprof_pb__varint(&m, MAPPING_HAS_FUNCTIONS, 1);
		dprof_pb__message(pb, PROFILE_MAPPING, &m);
	}
	for (i = 0; i < p->nr_funcs; i++) {
		struct dprof_pb line;

		dprof_pb__reset(&m);
		dprof_pb__varint(&m, LOCATION_ID, i + 1);
		dprof_pb__varint(&m, LOCATION_MAPPING_ID, p->loc_func[i]);
		dprof_pb__varint_nz(&m, LOCATION_ADDRESS, p->loc_addr[i]);
		dprof_pb__init(&line);
		dprof_pb__varint(&line, LINE_FUNCTION_ID, i + 1);
		dprof_pb__message(&m, LOCATION_LINE, &line);
		dprof_pb__exit(&line);
		dprof_pb__message(pb, PROFILE_LOCATION, &m);
	}
	for (i = 0; i < p->nr_funcs; i++) {
		dprof_pb__reset(&m);
		dprof_pb__varint(&m, FUNCTION_ID, i + 1);
		dprof_pb__varint(&m, FUNCTION_NAME, p->func_name[i]);
		dprof_pb__varint(&m, FUNCTION_SYSTEM_NAME, p->func_name[i]);
		dprof_pb__message(pb, PROFILE_FUNCTION, &m);
	}
	dprof_pb__exit(&m);
}

/*
 * The period: the access sampler's event and its period (nanoseconds of
 * cpu-clock, events of a memory PMU; 0 when sampled by frequency).
 */
static void pprof__period(struct dprof_pb *pb, struct pprof *p, const struct dprof_report *rep)
{
	struct evsel *evsel = rep->replay.access_evsel;
	const char *name = evsel ? evsel__name(evsel) : "access-samples";
	bool clock = evsel && evsel->core.attr.type == PERF_TYPE_SOFTWARE;
	u64 period = 0;

	if (evsel && !evsel->core.attr.freq)
		period = evsel->core.attr.sample_period;
	else if (evsel && clock && evsel->core.attr.sample_freq)
		period = 1000000000ULL / evsel->core.attr.sample_freq;
	pprof__value_type(pb, p, PROFILE_PERIOD_TYPE, name, clock ? "nanoseconds" : "events");
	dprof_pb__varint_nz(pb, PROFILE_PERIOD, period);
}

/* The recording's first and last sample: wall clock where it was recorded (-k). */
static void pprof__times(struct dprof_pb *pb, const struct dprof_report *rep)
{
	struct perf_session *session = rep->replay.session;
	struct evlist *evlist = session->evlist;
	u64 first = evlist->first_sample_time, last = evlist->last_sample_time;
	struct perf_env *env = &session->header.env;
	struct stat st;
	u64 tod = 0;

	if (env->clock.enabled && first >= env->clock.clockid_ns)
		tod = env->clock.tod_ns + (first - env->clock.clockid_ns);
	else if (!stat(rep->opts.input_name, &st))	/* written as the recording ended */
		tod = (u64)st.st_mtime * 1000000000ULL - (last > first ? last - first : 0);
	dprof_pb__varint_nz(pb, PROFILE_TIME_NANOS, tod);
	dprof_pb__varint_nz(pb, PROFILE_DURATION_NANOS, last > first ? last - first : 0);
}

static int pprof__write(const char *path, const struct dprof_pb *pb)
{
#ifdef HAVE_ZLIB_SUPPORT
	gzFile gz = gzopen(path, "wb");
	int ok;

	if (!gz)
		return errno ? -errno : -ENOMEM;
	ok = !pb->len || gzwrite(gz, pb->buf, pb->len) == (int)pb->len;
	if (gzclose(gz) != Z_OK || !ok)
		return -EIO;
	return 0;
#else
	FILE *fp = fopen(path, "w");
	int err = 0;

	if (!fp)
		return -errno;
	if (fwrite(pb->buf, 1, pb->len, fp) != pb->len)
		err = -EIO;
	if (fclose(fp) && !err)
		err = -errno;
	return err;
#endif
}

int dprof_report__write_pprof(struct dprof_report *rep, const char *path, FILE *fp)
{
	const struct dprof_profile *prof = &rep->replay.prof;
	struct dprof_flame f;
	struct dprof_pb pb;
	struct pprof p;
	char *comment = NULL;
	size_t i;
	int err;

	err = dprof_flame__init(&f, rep);
	if (err)
		return err;
	dprof_pb__init(&pb);
	err = pprof__init(&p, f.nr);
	if (err)
		goto out;

	pprof__value_type(&pb, &p, PROFILE_SAMPLE_TYPE, "samples", "count");
	if (prof->has_levels)
		pprof__value_type(&pb, &p, PROFILE_SAMPLE_TYPE, "misses", "count");
	if (prof->has_latency)
		pprof__value_type(&pb, &p, PROFILE_SAMPLE_TYPE, "latency", "cycles");
	pprof__samples(&pb, &p, &f, prof->has_levels, prof->has_latency);
	pprof__tables(&pb, &p);
	pprof__times(&pb, rep);
	pprof__period(&pb, &p, rep);
	if (asprintf(&comment, "perf dprof: data profile of %s; access samples: %s; %" PRIu64
		     " samples, stacks type -> member -> function",
		     rep->opts.input_name, dprof_report__sampler_str(rep), f.total) > 0) {
		dprof_pb__varint(&pb, PROFILE_COMMENT, pprof_strings__idx(&p.strings, comment));
		free(comment);
	}
	dprof_pb__varint(&pb, PROFILE_DEFAULT_SAMPLE_TYPE,
			 pprof_strings__idx(&p.strings, "samples"));
	/* last: every string is in by now */
	for (i = 0; i < p.strings.nr; i++)
		dprof_pb__string(&pb, PROFILE_STRING_TABLE, p.strings.str[i]);
	err = dprof_pb__error(&pb) ?: p.strings.err;
	if (!err)
		err = pprof__write(path, &pb);
	if (err)
		pr_err("dprof: --pprof=%s: %s\n", path, strerror(-err));
	else
		fprintf(fp, "# wrote %s: pprof profile of %zu stacks, %" PRIu64 " samples\n",
			path, f.nr, f.total);
out:
	pprof__exit(&p);
	dprof_pb__exit(&pb);
	dprof_flame__exit(&f);
	return err;
}
