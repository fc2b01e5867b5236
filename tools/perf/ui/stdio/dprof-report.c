// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof report --stdio: the data profile and the glue that feeds the
 * other views' printers (dprof.c, dprof-flow.c) from the report's models.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "util/color.h"
#include "util/debug.h"
#include "util/hashmap.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/strbuf.h"
#include "util/symbol.h"
#include "util/dprof/classify.h"
#include "util/dprof/histories.h"
#include "util/dprof/profile.h"
#include "util/dprof/hashfn.h"
#include "util/dprof/samples.h"
#include "util/dprof/symname.h"
#include "util/dprof/ea.h"
#include "util/dprof/watch.h"
#include "util/dprof/workingset.h"
#include "dprof.h"
#include "dprof-flame.h"
#include "dprof-flow.h"
#include "dprof-report.h"

#define DPROF_HOT_MEMBERS	3	/* named per row of the profile */
#define DPROF_TYPE_WIDTH_MIN	4	/* "Type" */
#define DPROF_TYPE_WIDTH_MAX	32
#define DPROF_DESC_WIDTH_MIN	12	/* "Cache / kind" */
#define DPROF_DESC_WIDTH_MAX	40

/* What the memory PMU's data_src said, level by level; nothing if silent. */
static void dprof_mem_stats__fprintf(const struct dprof_mem_stats *st, FILE *fp)
{
	const char *sep = "";
	u64 known = 0;
	int l;

	if (st->no_memop)
		fprintf(fp, "# no memory op (excluded): %" PRIu64 " samples\n",
			st->no_memop);
	for (l = 0; l < DPROF_MEM_LVL__MAX; l++)
		known += st->level[l];
	if (!known)
		return;
	fprintf(fp, "# data source of %" PRIu64 " memory-op samples:", st->samples);
	for (l = 0; l < DPROF_MEM_LVL__MAX; l++) {
		if (!st->level[l])
			continue;
		fprintf(fp, "%s %s %.1f%%", sep, l == DPROF_MEM_LVL_UNKNOWN ?
			"missed, source unknown" : dprof_mem_level__str(l),
			dprof_pct(st->level[l], st->samples));
		sep = ",";
	}
	if (known < st->samples)
		fprintf(fp, ", not said %.1f%%", dprof_pct(st->samples - known, st->samples));
	fprintf(fp, "\n");
	fprintf(fp, "# HITM %" PRIu64 ", peer %" PRIu64 ", remote %" PRIu64
		", TLB miss %" PRIu64 ", locked %" PRIu64 " samples\n",
		st->hitm, st->peer, st->remote, st->tlb_miss, st->locked);
}

static void dprof_watches__fprintf(const struct dprof_watch *watches, FILE *fp)
{
	const struct dprof_watch *w;

	for (w = watches; w; w = w->next) {
		const char *name = w->cls && w->cls->name ? w->cls->name : "?";

		fprintf(fp, "# object histories: %" PRIu64 " hits on %" PRIu64
			" objects of %s: see --view=flow --type=%s\n",
			w->nr_hits, w->nr_objects, name, name);
	}
	if (watches)
		fprintf(fp,
			"# (watch traps slow the watched bytes' accesses: access samples lean on them)\n");
}

static void dprof_profile__fprintf_unresolved(const struct dprof_profile *prof, FILE *fp)
{
	u64 total = prof->nr_samples;
	int u, r;

	fprintf(fp, "# unresolved:");
	for (u = 0; u < DPROF_UNRES__MAX; u++) {
		if (u == DPROF_UNRES_STACK)
			continue;
		if (u == DPROF_UNRES_INSN) {
			for (r = 0; r < DPROF_EA__MAX; r++) {
				if (prof->ea_reasons[r])
					fprintf(fp, " %s %.1f%%,", dprof_ea_reason__str(r),
						dprof_pct(prof->ea_reasons[r], total));
			}
			continue;
		}
		fprintf(fp, " %s %.1f%%%s", dprof_unres__str(u),
			dprof_pct(prof->unres[u], total), u + 1 < DPROF_UNRES__MAX ? "," : "");
	}
	fprintf(fp, "\n");
}

/* The allocator recorder's log: what it tracked, and what it could not. */
static void dprof_report__fprintf_recorder(const struct dprof_recording *rec, FILE *fp)
{
	const char *line, *next;

	fprintf(fp,
		"# user heap: allocator recorder in %" PRIu64
		" process%s (forked and exec'd children included), %" PRIu64 " allocs, %" PRIu64
		" frees (%" PRIu64 " objects left out when recorded: %s)\n",
		rec->heap_procs, rec->heap_procs == 1 ? "" : "es", rec->nr_heap_allocs,
		rec->nr_heap_frees, rec->heap_dropped,
		rec->heap_kept_by ? "no sample's data address in them, counted at their sites" :
				    "no sample fell in their life");
	if (rec->heap_kernel_undecided)
		fprintf(fp, "# %" PRIu64
			" kernel samples had no code bytes when recorded (no /proc/kcore or vmlinux): heap objects only they touched were left out\n",
			rec->heap_kernel_undecided);
	if (rec->heap_frames || rec->heap_stale_ips)
		fprintf(fp,
			"# allocation call chains: %" PRIu64
			" return addresses above the allocator's callers (%" PRIu64
			" where their binaries' CFI puts them), %" PRIu64
			" stack words dropped as not return addresses (not where the CFI puts one, or no call to the frame below before them)\n",
			rec->heap_frames, rec->heap_cfi_frames, rec->heap_stale_ips);
	if (rec->nr_recorder_samples)
		fprintf(fp,
			"# %" PRIu64
			" samples in the allocator recorder itself: not the program's, left out of the shares\n",
			rec->nr_recorder_samples);
	if (rec->heap_lost)
		fprintf(fp, "# LOST %" PRIu64 " allocator calls: the recorder's log was full\n",
			rec->heap_lost);
	if (rec->heap_log_damaged)
		fprintf(fp,
			"# DAMAGED: the allocator recorder's log is damaged: the heap objects after the damage are not tracked\n");
	/* an allocator the recorder could not hook, one line each */
	for (line = rec->heap_notes; *line; line = next) {
		next = strchrnul(line, '\n');
		fprintf(fp, "# %.*s\n", (int)(next - line), line);
		if (*next)
			next++;
	}
}

void dprof_report__fprintf_header(const struct dprof_report *rep, FILE *fp)
{
	const struct dprof_recording *rec = &rep->replay.rec;
	const struct dprof_profile *prof = &rep->replay.prof;
	u64 total = prof->nr_samples, resolved = 0;
	int k;

	fprintf(fp, "# perf dprof report: data profile\n#\n");
	if (rec->has_mem_pmu)
		fprintf(fp, "# access samples: memory-sampling PMU (data address%s%s)\n",
			prof->has_levels ? ", cache level" : ", no cache level",
			prof->has_latency ? ", latency" : ", no latency");
	else if (rec->has_soft)
		fprintf(fp,
			"# access samples: cpu-clock + instruction decode (no miss or latency measured)\n");
	else
		fprintf(fp, "# access samples: none recorded\n");

	if (rec->ldlat_pmu && rec->ldlat && !strcmp(rec->ldlat_pmu, "spe"))
		fprintf(fp,
			"# latency threshold: %u cycles (SPE min_latency, on loads and stores alike): faster ops, most L1 and L2 hits and the stores that hit, are not sampled; the miss share is of the slower ops\n",
			rec->ldlat);
	else if (rec->ldlat_pmu && rec->ldlat)
		fprintf(fp,
			"# load latency threshold: %u cycles (%s): faster loads, most L1 and L2 hits, are not sampled; the miss share is of the slower loads and the stores\n",
			rec->ldlat, !strcmp(rec->ldlat_pmu, "pebs") ? "PEBS ldlat" : "IBS ldlat");
	else if (rec->ldlat_pmu && !strcmp(rec->ldlat_pmu, "ibs"))
		fprintf(fp,
			"# load latency threshold: none (IBS samples every op): the miss share is of all loads and stores\n");
	if (prof->has_levels)
		fprintf(fp, "# sampled misses (not an L1 hit): %" PRIu64 " of %" PRIu64
			" samples with a level (%.1f%%)\n", prof->total.misses,
			prof->total.level_known,
			dprof_pct(prof->total.misses, prof->total.level_known));
	if (prof->has_latency && prof->total.lat_n)
		fprintf(fp, "# average sampled latency: %.0f cycles over %" PRIu64 " samples\n",
			(double)prof->total.lat_sum / prof->total.lat_n,
			prof->total.lat_n);
	if (rec->has_mem_pmu)
		dprof_mem_stats__fprintf(&rec->mem, fp);
	if (rec->has_alloc)
		fprintf(fp, "# address set: kmem tracepoints, %" PRIu64 " allocs, %" PRIu64
			" frees; slab cache names %s; kmalloc caches from bytes_alloc\n",
			rec->nr_allocs, rec->nr_frees,
			rec->kmem_map ? "from the slab map" :
			rec->alloc_has_name ? "from alloc events" :
			"learned from free events (6.12 kmem_cache_alloc has no name)");
	else
		fprintf(fp,
			"# address set: none (no kmem tracepoints recorded): slab objects unresolved\n");
	if (rec->kmem_map) {
		fprintf(fp, "# slab map (--kmem-events=map): %s",
			"the slab caches' objects have no events: an object is a slot of its slab from the first sample in it to the slab's free, one for all its lifetimes");
		if (rec->has_slab_sample && rec->slab_sample) {
			fprintf(fp, ", but one allocation in %" PRIu64
				" chosen at random, with its lifetime (kmem:slab_sample_alloc: %"
				PRIu64 " chosen, %" PRIu64
				" of them freed); Objects: the chosen ones touched times %" PRIu64,
				rec->slab_sample, rec->nr_sample_allocs, rec->nr_sample_frees,
				rec->slab_sample);
			if (rec->map_allocs_counted)
				fprintf(fp, " (at most the %" PRIu64
					" allocations the kernel counted in those caches)",
					rec->map_allocs);
			fprintf(fp, "%s",
				", plus the slots of older slabs touched; Bounce: the chosen objects', and the slots' where no chosen one was freed");
		} else {
			fprintf(fp, "; %s%s",
				rec->has_slab_sample ?
				"no allocation chosen while recording (slab_sample_alloc): " : "",
				"no lifetimes for them: their Sampled, Objects (at most the slots), WS size and Bounce count slots");
		}
		/* none where kmem:kfree names the cache: filtered when recorded */
		if (rec->nr_free_map)
			fprintf(fp, " (%" PRIu64 " kfree() of them left to the map)",
				rec->nr_free_map);
		fprintf(fp,
			"; kmalloc objects per event; --kmem-events=objects for every object's events\n");
	}
	if (rec->nr_perf_samples)
		fprintf(fp,
			"# %" PRIu64
			" samples in perf's own kernel code (perf_*: writing the kmem events; filter_match_preds, filter_pred_*: their filters): the recording's cost, left out of the shares\n",
			rec->nr_perf_samples);
	if (rec->kmem_dropped)
		fprintf(fp, "# (%" PRIu64
			" slab objects left out when recorded: no sample's data address in them, counted at their sites%s)\n",
			rec->kmem_dropped, rec->kmem_kernel_undecided ?
			"; samples with no code bytes kept those their registers point into" :
			"");
	if (rec->has_alloc && rec->nr_snapshot_slabs && !rep->replay.no_snapshot)
		fprintf(fp,
			"# objects allocated before recording: slab snapshot of %" PRIu64
			" slabs (%" PRIu64 " made, %" PRIu64
			" freed since); %.1f%% of samples resolved through it%s, %.1f%% to free slab memory\n",
			rec->nr_snapshot_slabs, rec->nr_new_slabs, rec->nr_freed_slabs,
			dprof_pct(prof->resolved_earlier, total),
			rec->kmem_map ? " and the slab map" : "",
			dprof_pct(prof->resolved_free, total));
	else if (rec->has_alloc)
		fprintf(fp,
			"# objects allocated before recording: %s; typed by DWARF operand only\n",
			rep->replay.no_snapshot ? "slab snapshot ignored (--no-snapshot)" :
			rec->has_snapshot ? "slab snapshot recorded but empty" :
			"no slab snapshot (kernel-patches/ 0005, record -a as root)");
	if (rec->has_alloc) {
		const struct dprof_lifetimes *lt = &rec->tasks;

		fprintf(fp,
			"# lifetimes: %" PRIu64 " frees of objects allocated before recording%s, %"
			PRIu64 " frees of unknown objects (%.1f%% of %" PRIu64 " frees), %" PRIu64
			" allocations over a live object (%.1f%% of %" PRIu64
			" allocations; its free unseen, samples in %" PRIu64 " of them)",
			lt->free_earlier,
			rec->nr_snapshot_slabs && !rep->replay.no_snapshot ? "" :
			" (no snapshot: counted as unknown)",
			lt->free_unknown, dprof_pct(lt->free_unknown, lt->ends), lt->ends,
			lt->over_live, dprof_pct(lt->over_live, lt->starts), lt->starts,
			lt->over_sampled);
		if (rec->nr_kmem_others)
			fprintf(fp, "; counted in the recorded tasks: the address set also holds %"
				PRIu64 " events of other tasks", rec->nr_kmem_others);
		fprintf(fp, "\n");
	}
	if (rec->nr_mempool_put || rec->nr_mempool_get)
		fprintf(fp,
			"# recycled: %" PRIu64
			" objects put aside by mempool-like caches (lifetime ends), %" PRIu64
			" taken back (lifetime starts; %" PRIu64 " of unknown objects)\n",
			rec->nr_mempool_put, rec->nr_mempool_get, rec->nr_mempool_unknown);
	if (rec->nr_kfree_rcu)
		fprintf(fp,
			"# kfree_rcu: %" PRIu64
			" objects handed to kfree_rcu() (lifetime ends at the call, not at the batched free)\n",
			rec->nr_kfree_rcu);
	if (prof->typed_in_slab)
		fprintf(fp, "# slab objects typed by DWARF operand only: %.1f%% of samples\n",
			dprof_pct(prof->typed_in_slab, total));
	if (rec->has_heap && !rec->heap_recorder)
		fprintf(fp, "# user heap: allocator uprobes, %" PRIu64 " allocs, %" PRIu64
			" frees, %" PRIu64 " frees of pointers not allocated in the recording\n",
			rec->nr_heap_allocs, rec->nr_heap_frees, rec->nr_heap_unknown_free);
	if (rec->nr_trap_samples)
		fprintf(fp,
			"# %" PRIu64
			" samples in the kernel's handling of the allocator's uprobes: not the program's, left out of the shares\n",
			rec->nr_trap_samples);
	if (rec->heap_recorder)
		dprof_report__fprintf_recorder(rec, fp);
	if (rec->has_heap) {
		u64 untyped = prof->heap_untyped[DPROF_HEAP_NO_TYPE] +
			      prof->heap_untyped[DPROF_HEAP_PAST_END];

		fprintf(fp,
			"# user heap objects: %.1f%% of samples, %.1f%% by the type their operand names inside the object; untyped: %.1f%% (%s %.1f%%, %s %.1f%%)\n",
			dprof_pct(prof->heap_typed + untyped, total),
			dprof_pct(prof->heap_typed, total), dprof_pct(untyped, total),
			dprof_heap_untyped__str(DPROF_HEAP_NO_TYPE),
			dprof_pct(prof->heap_untyped[DPROF_HEAP_NO_TYPE], total),
			dprof_heap_untyped__str(DPROF_HEAP_PAST_END),
			dprof_pct(prof->heap_untyped[DPROF_HEAP_PAST_END], total));
		if (prof->heap_untyped_sited)
			fprintf(fp,
				"# untyped, in the objects of a site of one type: %.1f%% of samples, counted for it at their offset; the rest a row per site\n",
				dprof_pct(prof->heap_untyped_sited, total));
		if (rec->heap_frames)
			fprintf(fp,
				"# allocation sites stopped at a wrapper (the call chain ends before a frame past the wrappers): %"
				PRIu64 ", %.1f%% of heap samples\n",
				prof->heap_stopped_sites,
				dprof_pct(prof->heap_stopped_samples,
					  prof->resolved[DPROF_KIND_HEAP]));
	}
	dprof_watches__fprintf(rec->watches, fp);
	if (rec->nr_off_target_hits)
		fprintf(fp,
			"# false watch hits dropped: %" PRIu64
			" (the instruction before the trap does not touch the watched bytes; QEMU TCG before 8.1)\n",
			rec->nr_off_target_hits);

	if (rec->nr_lost)
		fprintf(fp,
			"# LOST %" PRIu64
			" events while recording: the address set is incomplete, some objects may be misattributed (record with a larger -m)\n",
			rec->nr_lost);
	if (rec->nr_implausible)
		fprintf(fp,
			"# DAMAGED: %" PRIu64
			" allocations or watch hits skipped (past the top of the address space, or over 1 GiB)\n",
			rec->nr_implausible);
	if (rec->nr_damaged)
		fprintf(fp,
			"# DAMAGED: %" PRIu64
			" damaged records skipped (their sample does not parse, or their type or event is unknown)\n",
			rec->nr_damaged);
	if (rec->data_size_cut) {
		/* the last record, cut in two, ends the data: where it starts */
		u64 end = rec->unreadable_offset ?: rec->data_offset + rec->data_size;
		u64 read = end - rec->data_offset;

		fprintf(fp,
			"# TRUNCATED: the file is cut short: its data ends at file offset %#" PRIx64
			", %" PRIu64 " of the %" PRIu64
			" bytes its header claims (%.1f%%); only what came before is reported\n",
			end, read, rec->data_size_cut, dprof_pct(read, rec->data_size_cut));
		fprintf(fp,
			"# TRUNCATED: its feature sections are lost: %" PRIu64
			" tracepoint records (allocations, frees, heap, slab map) skipped, no build-ids\n",
			rec->nr_no_format);
	} else if (rec->unreadable_offset) {
		fprintf(fp,
			"# DAMAGED: data unreadable from file offset %#" PRIx64
			" on (a record size is damaged): only what came before is reported\n",
			rec->unreadable_offset);
	}
	if (rec->bad_arch[0])
		fprintf(fp,
			"# DAMAGED: the header's arch \"%s\" is not one perf knows (damaged header?): no operand typing\n",
			rec->bad_arch);
	for (k = 0; k < DPROF_KIND__MAX; k++)
		resolved += prof->resolved[k];
	fprintf(fp, "# resolved %.1f%% of %" PRIu64 " samples:", dprof_pct(resolved, total), total);
	for (k = 0; k < DPROF_KIND__MAX; k++)
		fprintf(fp, "%s %s %.1f%%", k ? "," : "", dprof_kind__str(k),
			dprof_pct(prof->resolved[k], total));
	fprintf(fp,
		"\n# not a data type: stack slots DWARF does not type (push, pop, spills) %.1f%%\n",
		dprof_pct(prof->unres[DPROF_UNRES_STACK], total));
	if (rec->has_soft)
		fprintf(fp,
			"# data addresses decoded: %.1f%% of samples: %.1f%% at the sampled ip, %.1f%% at the access before it (skid)\n",
			dprof_pct(prof->nr_decoded, total),
			dprof_pct(prof->nr_decoded - prof->nr_skid, total),
			dprof_pct(prof->nr_skid, total));
	if (prof->nr_typed_noaddr)
		fprintf(fp,
			"# typed by the operand alone, no access at ip (lea, fused compare): %.1f%% of samples\n",
			dprof_pct(prof->nr_typed_noaddr, total));
	dprof_profile__fprintf_unresolved(prof, fp);
	if (dprof_pct(prof->unres[DPROF_UNRES_NO_CODE], total) >= 1.0)
		fprintf(fp,
			"# no code bytes: give the kernel image with -k, or install the binaries\n");
	fprintf(fp, "#\n");
}

static void dprof_report__fprintf_misses(const struct dprof_report *rep,
					 const struct dprof_stats *st, FILE *fp)
{
	const struct dprof_profile *prof = &rep->replay.prof;

	if (prof->has_levels)
		fprintf(fp, " %6.1f%%", dprof_pct(st->misses, prof->total.misses));
	else
		fprintf(fp, " %7s", "n/a");
	if (prof->has_latency && st->lat_n)
		fprintf(fp, " %7.0f", (double)st->lat_sum / st->lat_n);
	else
		fprintf(fp, " %7s", "n/a");
}

static int member_stats__cmp(const void *a, const void *b)
{
	const struct dprof_member_stats *ma = a, *mb = b;

	if (ma->stats.samples != mb->stats.samples)
		return ma->stats.samples < mb->stats.samples ? 1 : -1;
	return ma->mb.offset < mb->mb.offset ? -1 : ma->mb.offset > mb->mb.offset;
}

struct dprof_member_stats *
dprof_row__members(const struct dprof_row_info *ri, struct dprof_members *m)
{
	const struct dprof_class *row = ri->row;
	struct dprof_member_stats *ms = NULL;
	struct dprof_site **sites;
	struct hashmap_entry *cur;
	size_t bkt, n = 0, i;
	u64 *offsets;

	sites = calloc(hashmap__size(row->sites) + 1, sizeof(*sites));
	offsets = calloc(hashmap__size(row->sites) + 1, sizeof(*offsets));
	if (!sites || !offsets)
		goto out;
	hashmap__for_each_entry(row->sites, cur, bkt) {
		sites[n] = cur->pvalue;
		offsets[n] = sites[n]->offset;
		n++;
	}
	ms = dprof_members__fold(m, ri, offsets, n, sizeof(*ms));
	if (!ms)
		goto out;
	for (i = 0; i < n; i++)
		dprof_stats__add(&ms[m->of[i]].stats, &sites[i]->stats);
	qsort(ms, m->nr, sizeof(*ms), member_stats__cmp);
out:
	free(sites);
	free(offsets);
	return ms;
}

/*
 * HITM and remote-node data are measured by a memory PMU's data source
 * (perf c2c's evidence); a recording that has none of either (the
 * software sampler, an IBS without cache_hit_st, one socket) gets no
 * such column rather than a column of zeros that looks measured.
 */
bool dprof_report__hitm_measured(const struct dprof_report *rep)
{
	return rep->replay.rec.has_data_src && rep->replay.rec.mem.hitm;
}

bool dprof_report__remote_measured(const struct dprof_report *rep)
{
	return rep->replay.rec.has_data_src && rep->replay.rec.mem.remote;
}

void dprof_profile_cols__init(struct dprof_profile_cols *c, const struct dprof_report *rep,
			      const struct dprof_rows *t)
{
	size_t i;

	c->hitm = dprof_report__hitm_measured(rep);
	c->remote = dprof_report__remote_measured(rep);
	c->type_width = DPROF_TYPE_WIDTH_MIN;
	c->desc_width = DPROF_DESC_WIDTH_MIN;
	for (i = 0; i < t->nr; i++) {
		if (!t->shown[i])
			continue;
		c->type_width = max_t(int, c->type_width,
				      (int)strlen(dprof_row_info__name(&t->info[i])));
		c->desc_width = max_t(int, c->desc_width, t->info[i].desc.len);
	}
	c->type_width = min_t(int, c->type_width, DPROF_TYPE_WIDTH_MAX);
	c->desc_width = min_t(int, c->desc_width, DPROF_DESC_WIDTH_MAX);
}

/* What the sampled numbers of the profile mean, above its columns. */
static void dprof_rows__fprintf_legend(FILE *fp)
{
	fprintf(fp,
		"# Samples +-95%%: the share's 95%% interval, in points (Wilson, widened to the share's variation\n"
		"# over the recording's time slices where that is wider); Sampled: objects the samples hit;\n"
		"# Objects: distinct objects touched, estimated (iChao1) from how often each was sampled, at most\n"
		"# the objects the address set knew of, +-95%%: how far its 95%% interval reaches, in percent\n"
		"# (--json has both ends); WS size: their bytes.  '?': fewer than %d samples of the type, its\n"
		"# estimate says little\n",
		DPROF_FEW_SAMPLES);
}

void dprof_rows__fprintf_columns(const struct dprof_profile_cols *c, FILE *fp)
{
	fprintf(fp, "#");
	dprof__fprint_column(fp, "Type", c->type_width);
	dprof__fprint_column(fp, "Cache / kind", c->desc_width);
	fprintf(fp, " %7s %5s %7s %7s %8s %8s %-5s %8s %6s", "Samples", "+-95%", "Misses",
		"AvgLat", "Sampled", "Objects", " +-95%", "WS size", "Bounce");
	if (c->hitm)
		fprintf(fp, " %6s", "HITM%");
	if (c->remote)
		fprintf(fp, " %6s", "Rmt%");
	fprintf(fp, "  %s\n", "Hot members");
}

/*
 * A row of the profile; @site: one of a type's rows, under the type's (its
 * site says what it is: the Type column shows it, indented).
 */
void dprof_row__fprintf(const struct dprof_report *rep, const struct dprof_row_info *ri,
			bool site, const struct dprof_profile_cols *c, FILE *fp)
{
	const struct dprof_class *row = ri->row;
	double p = dprof_pct(row->stats.samples, rep->replay.prof.nr_samples);
	struct dprof_member_stats *ms;
	struct dprof_estimate e;
	struct dprof_members m;
	size_t k;

	fprintf(fp, " ");
	if (site) {
		/* the Type column (and the next) to its site, as perf's --hierarchy */
		int w = c->type_width + c->desc_width + 1;

		fprintf(fp, "   %-*.*s", w - 2, w - 2, ri->desc.buf);
	} else {
		dprof__fprint_column(fp, dprof_row_info__name(ri), c->type_width);
		dprof__fprint_column(fp, ri->desc.buf, c->desc_width);
	}
	color_fprintf(fp, get_percent_color(p), " %6.2f%%", p);
	dprof__fprint_share_error(fp, row->stats.samples, rep->replay.prof.nr_samples,
				  &row->slices, &rep->replay.prof.slices);
	dprof_report__fprintf_misses(rep, &row->stats, fp);
	fprintf(fp, " %8" PRIu64, row->nr_objects);
	dprof_row__estimate(row, &e);
	dprof__fprint_estimate(fp, &e);
	dprof__fprint_size(fp, dprof_row__ws_bytes(row, e.est), true);
	fprintf(fp, " %6s", row->nr_bounced ? "yes" : "no");
	/* of the type's samples with a data source */
	if (c->hitm)
		fprintf(fp, " %5.1f%%", dprof_pct(row->stats.hitm, row->stats.level_known));
	if (c->remote)
		fprintf(fp, " %5.1f%%", dprof_pct(row->stats.remote, row->stats.level_known));
	fprintf(fp, "  ");

	ms = dprof_row__members(ri, &m);
	for (k = 0; ms && k < m.nr && k < DPROF_HOT_MEMBERS; k++)
		fprintf(fp, "%s%s %.0f%%", k ? ", " : "", ms[k].mb.name,
			dprof_pct(ms[k].stats.samples, row->stats.samples));
	fprintf(fp, "\n");
	if (ms)
		dprof_members__exit(&m);
	free(ms);
}

void dprof_rows__fprintf_row(const struct dprof_report *rep, const struct dprof_rows *t,
			     size_t i, const struct dprof_profile_cols *c, FILE *fp)
{
	dprof_row__fprintf(rep, &t->info[i], /*site=*/false, c, fp);
}

/* A type's line, and its sites' under it when it has more than one. */
void dprof_rows__fprintf_group(const struct dprof_report *rep, const struct dprof_rows *t,
			       const struct dprof_row_group *g,
			       const struct dprof_profile_cols *c, FILE *fp)
{
	size_t k;

	if (!g->row) {
		dprof_rows__fprintf_row(rep, t, g->member[0], c, fp);
		return;
	}
	dprof_row__fprintf(rep, &g->info, /*site=*/false, c, fp);
	for (k = 0; k < g->nr; k++) {
		if (t->shown[g->member[k]])
			dprof_row__fprintf(rep, &t->info[g->member[k]], /*site=*/true, c, fp);
	}
}

static int site__cmp(const void *a, const void *b)
{
	const struct dprof_site *sa = *(const struct dprof_site * const *)a;
	const struct dprof_site *sb = *(const struct dprof_site * const *)b;

	if (sa->stats.samples != sb->stats.samples)
		return sa->stats.samples < sb->stats.samples ? 1 : -1;
	return sa->ip < sb->ip ? -1 : sa->ip > sb->ip;
}

/*
 * The operand types a row's accesses used, when some were its objects'
 * header's (counted for the object's type): nothing is hidden.
 */
/* strcmp(), NULL (no operand type) equal to itself only */
static int dprof_strcmp(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : a != b;
}

static void dprof_row__fprintf_heads(const struct dprof_class *row, FILE *fp)
{
	u64 own = row->stats.samples;
	u32 h, k;

	if (!row->nr_heads)
		return;
	for (h = 0; h < row->nr_heads; h++)
		own -= row->heads[h]->stats.samples;
	fprintf(fp, "# accessed as: %s %.1f%%", row->name ?: "?",
		dprof_pct(own, row->stats.samples));
	for (h = 0; h < row->nr_heads; h++) {
		const struct dprof_class *head = row->heads[h];
		u64 samples = 0;

		/* one per type name: a header of several call chains' objects */
		for (k = 0; k < h && dprof_strcmp(row->heads[k]->name, head->name); k++)
			;
		if (k < h)
			continue;
		for (k = h; k < row->nr_heads; k++) {
			if (!dprof_strcmp(row->heads[k]->name, head->name))
				samples += row->heads[k]->stats.samples;
		}
		fprintf(fp, ", %s %.1f%%", head->name ?: "no operand type",
			dprof_pct(samples, row->stats.samples));
	}
	fprintf(fp, " (a header of the objects, or no type at the access: %s)\n",
		"counted at its offset in them");
}

void dprof_rows__fprintf_type(const struct dprof_report *rep, const struct dprof_rows *t,
			      size_t i, FILE *fp)
{
	dprof_row__fprintf_type(rep, &t->info[i], fp);
}

void dprof_row__fprintf_type(const struct dprof_report *rep, const struct dprof_row_info *ri,
			     FILE *fp)
{
	const struct dprof_class *row = ri->row;
	struct dprof_member_stats *ms;
	struct dprof_site **sites;
	struct hashmap_entry *cur;
	struct dprof_members m;
	size_t k, n = 0, bkt;

	fprintf(fp, "\n# %s (%s): %" PRIu64 " samples, %" PRIu64 " objects, %" PRIu64
		" bounced between CPUs, object size %" PRIu64 "\n",
		ri->has_type ? ri->type.buf : "type unknown", ri->desc.buf,
		row->stats.samples, row->nr_objects, row->nr_bounced, row->obj_size);
	if (!ri->has_type)
		fprintf(fp, "# no DWARF type for it: members shown as offsets\n");
	dprof_row__fprintf_heads(row, fp);
	fprintf(fp, "#\n# %-8s %-*s %8s %8s %8s %8s\n", "Offset", DPROF_MEMBER_WIDTH,
		"Member", "Samples", "Writes", "Misses", "AvgLat");
	ms = dprof_row__members(ri, &m);
	for (k = 0; ms && k < m.nr; k++) {
		double p = dprof_pct(ms[k].stats.samples, row->stats.samples);

		fprintf(fp, "  %#-8" PRIx64 " %-*s", ms[k].mb.offset, DPROF_MEMBER_WIDTH,
			ms[k].mb.name);
		color_fprintf(fp, get_percent_color(p), " %7.2f%%", p);
		fprintf(fp, " %7.1f%%", dprof_pct(ms[k].stats.writes, ms[k].stats.samples));
		dprof_report__fprintf_misses(rep, &ms[k].stats, fp);
		fprintf(fp, "\n");
	}
	if (ms)
		dprof_members__exit(&m);
	free(ms);

	sites = calloc(hashmap__size(row->sites) + 1, sizeof(*sites));
	if (!sites)
		return;
	hashmap__for_each_entry(row->sites, cur, bkt)
		sites[n++] = cur->pvalue;
	qsort(sites, n, sizeof(*sites), site__cmp);
	fprintf(fp, "#\n# %-8s %-*s %8s  %s\n", "Offset", DPROF_MEMBER_WIDTH, "Member",
		"Samples", "Code");
	for (k = 0; k < n; k++) {
		struct dprof_site *s = sites[k];
		struct strbuf sb;
		double p = dprof_pct(s->stats.samples, row->stats.samples);

		if (p < rep->opts.percent_limit)
			break;
		strbuf_init(&sb, 16);
		dprof_row_info__member(ri, s->offset, &sb);
		fprintf(fp, "  %#-8" PRIx64 " %-*s", s->offset, DPROF_MEMBER_WIDTH, sb.buf);
		color_fprintf(fp, get_percent_color(p), " %7.2f%%", p);
		if (s->sym)
			fprintf(fp, "  %s+%#" PRIx64 "\n",
				dprof_symname(s->sym_dso, s->sym->name), s->sym_off);
		else
			fprintf(fp, "  %#" PRIx64 "\n", s->ip);
		strbuf_release(&sb);
	}
	free(sites);
}

static int dprof_report__fprintf_profile(struct dprof_report *rep, FILE *fp)
{
	const char *type_name = rep->opts.type_name;
	struct dprof_profile_cols c;
	struct dprof_rows t;
	bool found = false;
	size_t i;
	int err;

	err = dprof_rows__init(&t, rep, /*sorted=*/true, /*filter=*/true);
	if (err)
		return err;
	dprof_profile_cols__init(&c, rep, &t);
	dprof_report__fprintf_header(rep, fp);
	dprof_rows__fprintf_legend(fp);
	dprof_rows__fprintf_columns(&c, fp);
	for (i = 0; i < t.nr_groups; i++) {
		if (t.group[i].shown)
			dprof_rows__fprintf_group(rep, &t, &t.group[i], &c, fp);
	}
	/* a type over its sites: the type's members and code, all sites' */
	for (i = 0; type_name && i < t.nr_groups; i++) {
		const struct dprof_row_group *g = &t.group[i];
		size_t k;

		if (g->row && dprof_row_info__matches(&g->info, type_name)) {
			found = true;
			dprof_row__fprintf_type(rep, &g->info, fp);
			continue;
		}
		for (k = 0; k < g->nr; k++) {
			if (!dprof_row_info__matches(&t.info[g->member[k]], type_name))
				continue;
			found = true;
			dprof_rows__fprintf_type(rep, &t, g->member[k], fp);
		}
	}
	if (type_name && !found)
		fprintf(fp, "\n# no samples for type '%s'\n", type_name);
	dprof_rows__exit(&t);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* classify and workingset: the printers of dprof.c                        */

void dprof_view_row__init(struct dprof_view_row *vr, const struct dprof_rows *t,
			  size_t i, bool detail)
{
	vr->type = dprof_row_info__name(&t->info[i]);
	vr->desc = t->info[i].desc.buf;
	vr->row = t->row[i];
	vr->info = &t->info[i];
	vr->detail = detail;
}

void dprof_report__view(const struct dprof_report *rep, struct dprof_view_row *rows,
			size_t nr, struct dprof_view *v)
{
	*v = (struct dprof_view){
		.prof		= (struct dprof_profile *)&rep->replay.prof,
		.rows		= rows,
		.nr		= nr,
		.has_soft	= rep->replay.rec.has_soft,
		.has_levels	= rep->replay.prof.has_levels,
		.machine	= rep->replay.res.machine,
	};
	/* SPE's min_latency filters every op, not only loads */
	if (rep->replay.rec.ldlat_pmu && !strcmp(rep->replay.rec.ldlat_pmu, "spe"))
		v->store_minlat = rep->replay.rec.ldlat;
}

struct dprof_view_row *dprof_rows__view_rows(const struct dprof_rows *t,
					     const char *detail)
{
	struct dprof_view_row *vr = calloc(t->nr + 1, sizeof(*vr));
	size_t i;

	for (i = 0; vr && i < t->nr; i++)
		dprof_view_row__init(&vr[i], t, i, detail &&
				     dprof_row_info__matches(&t->info[i], detail));
	return vr;
}

int dprof_report__fprintf_cache_view(const struct dprof_report *rep,
				     struct dprof_view_row *rows, size_t nr,
				     enum dprof_view_kind kind, FILE *fp)
{
	struct dprof_view view;

	dprof_report__view(rep, rows, nr, &view);

	if (kind == DPROF_VIEW_CLASSIFY ? !rep->cl : !rep->ws) {
		fprintf(fp, "# no cache geometry in the recording or sysfs: give --cache\n");
		return 0;
	}
	return kind == DPROF_VIEW_CLASSIFY ? dprof_classify__fprintf(rep->cl, &view, fp) :
					     dprof_workingset__fprintf(rep->ws, &view, fp);
}

/* --view=workingset --graph=FILE.svg: the set histogram as a picture */
static int dprof_report__ws_svg(const struct dprof_report *rep,
				struct dprof_view_row *rows, size_t nr,
				const char *graph, FILE *fp)
{
	struct dprof_view view;
	FILE *svg = fopen(graph, "w");
	int err;

	dprof_report__view(rep, rows, nr, &view);

	if (!svg) {
		pr_err("dprof: cannot write %s: %s\n", graph, strerror(errno));
		return -errno;
	}
	err = dprof_workingset__fprintf_svg(rep->ws, &view, svg);
	if (fclose(svg) && !err)
		err = -errno;
	if (!err)
		fprintf(fp, "\n# wrote %s: distinct lines per set of %s\n", graph,
			rep->opts.type_name ?: "the biggest types");
	return err;
}

static int dprof_report__fprintf_cache_views(struct dprof_report *rep,
					     const char *graph, FILE *fp)
{
	struct dprof_view_row *vr;
	struct dprof_rows t;
	int err;

	err = dprof_rows__init(&t, rep, /*sorted=*/false, /*filter=*/true);
	if (err)
		return err;
	vr = dprof_rows__view_rows(&t, rep->opts.type_name);
	if (!vr) {
		dprof_rows__exit(&t);
		return -ENOMEM;
	}
	err = dprof_report__fprintf_cache_view(rep, vr, t.nr, rep->opts.view, fp);
	if (!err && rep->opts.view == DPROF_VIEW_WORKINGSET && graph)
		err = dprof_report__ws_svg(rep, vr, t.nr, graph, fp);
	free(vr);
	dprof_rows__exit(&t);
	return err;
}

/* ---------------------------------------------------------------------- */
/* paths and flow: dprof-flow.c                                            */

/* The histories of @row or of the cache @name (dprof-flow.c picks them). */
int dprof_report__fprintf_flow(const struct dprof_report *rep, struct dprof_class *row,
			       const char *name, bool flow, const char *graph,
			       FILE *fp)
{
	struct dprof_flow_report r = {
		.h = rep->hist, .name = name, .machine = rep->replay.res.machine,
		.flow = flow, .graph = graph, .row = row, .fold = &rep->opts.fold,
		.nr_off_target = rep->replay.rec.nr_off_target_hits,
		.replay = (struct dprof_replay *)&rep->replay,
	};

	return dprof_flow__report(&r, fp);
}

/* @row has object histories */
static bool dprof_report__row_has_histories(const struct dprof_report *rep,
					    const struct dprof_class *row)
{
	const struct dprof_history *hist;

	list_for_each_entry(hist, &rep->hist->done, list) {
		const struct dprof_class *cls = hist->type;

		if (cls && cls->row == row)
			return true;
	}
	return false;
}

static int dprof_report__fprintf_paths(struct dprof_report *rep, const char *graph,
				       FILE *fp)
{
	struct dprof_rows t;
	ssize_t i;
	size_t k;
	int err;

	err = dprof_rows__init(&t, rep, /*sorted=*/false, /*filter=*/false);
	if (err)
		return err;
	i = dprof_rows__find(&t, rep->opts.type_name);
	/* a type can have several rows (heap, operand-typed): the one with histories */
	for (k = i >= 0 ? (size_t)i : t.nr; k < t.nr; k++) {
		if (dprof_row_info__matches(&t.info[k], rep->opts.type_name) &&
		    dprof_report__row_has_histories(rep, t.row[k])) {
			i = k;
			break;
		}
	}
	err = dprof_report__fprintf_flow(rep, i >= 0 ? t.row[i] : NULL,
					 rep->opts.type_name,
					 rep->opts.view == DPROF_VIEW_FLOW, graph, fp);
	dprof_rows__exit(&t);
	return err;
}

/*
 * --samples: one line per access sample, in time order, with the type the
 * profile counted it under: "TIME CPU SYMBOL+OFF KIND OFFSET MEMBER TYPE",
 * or "... unresolved - - REASON", separated by tabs (C++ names have
 * spaces).  SYMBOL+OFF is perf report's symoff.
 */
static int dprof_report__fprintf_samples(struct dprof_report *rep, FILE *fp)
{
	const struct dprof_samples *s = rep->samples;
	struct hashmap *index;
	struct dprof_rows t;
	size_t i;
	int err;

	err = dprof_rows__init(&t, rep, /*sorted=*/false, /*filter=*/false);
	if (err)
		return err;
	index = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(index)) {
		dprof_rows__exit(&t);
		return -ENOMEM;
	}
	for (i = 0; i < t.nr; i++) {
		err = hashmap__add(index, t.row[i], i);
		if (err)
			goto out;
	}
	dprof_report__fprintf_header(rep, fp);
	fprintf(fp, "# %14s\t%4s\t%-32s\t%-11s\t%6s\t%-16s\t%s\n", "time", "cpu",
		"symbol+offset", "kind", "offset", "member", "type");
	for (i = 0; i < s->nr; i++) {
		const struct dprof_sample_line *l = &s->line[i];
		struct strbuf sb = STRBUF_INIT;
		char where[256];
		size_t k;

		if (l->sym)
			scnprintf(where, sizeof(where), "%s+0x%" PRIx64,
				  dprof_symname(l->dso, l->sym->name), l->sym_off);
		else
			scnprintf(where, sizeof(where), "%#" PRIx64, l->ip);
		fprintf(fp, "%16.6f\t%4u\t%-32s\t", l->time / 1e9, l->cpu, where);
		if (!l->cls || !l->cls->row || !hashmap__find(index, l->cls->row, &k)) {
			fprintf(fp, "%-11s\t%6s\t%-16s\t%s\n", "unresolved", "-", "-",
				dprof_unres__str(l->why));
			continue;
		}
		dprof_row_info__member(&t.info[k], l->offset, &sb);
		fprintf(fp, "%-11s\t%#6" PRIx64 "\t%-16s\t%s\n", dprof_kind__str(l->cls->kind),
			l->offset, sb.buf ?: "?", dprof_row_info__name(&t.info[k]));
		strbuf_release(&sb);
	}
out:
	hashmap__free(index);
	dprof_rows__exit(&t);
	return err;
}

int dprof_report__fprintf(struct dprof_report *rep, const char *graph, FILE *fp)
{
	if (rep->samples)
		return dprof_report__fprintf_samples(rep, fp);
	switch (rep->opts.view) {
	case DPROF_VIEW_CLASSIFY:
	case DPROF_VIEW_WORKINGSET:
		return dprof_report__fprintf_cache_views(rep, graph, fp);
	case DPROF_VIEW_PATHS:
	case DPROF_VIEW_FLOW:
		return dprof_report__fprintf_paths(rep, graph, fp);
	case DPROF_VIEW_FLAME:
		return dprof_report__fprintf_flame(rep, graph, fp);
	case DPROF_VIEW_PROFILE:
	case DPROF_VIEW__MAX:
	default:
		return dprof_report__fprintf_profile(rep, fp);
	}
}
