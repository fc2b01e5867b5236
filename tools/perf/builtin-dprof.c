// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: a data-centric profiler.
 *
 * Blames data types rather than instructions for memory accesses, after
 * DProf (Pesterev, Zeldovich, Morris; EuroSys 2010):
 *
 *   perf dprof record -a -- <workload>
 *   perf dprof report [--stdio] [--type=NAME]
 *   perf dprof report --view=flame [--graph=FILE.svg] | --pprof=FILE
 *   perf dprof diff old.data new.data
 *
 * record adds three streams to one perf.data (util/dprof/record.c): access
 * samples, the address set (slab alloc/free tracepoints) and object
 * histories (--watch).  report replays them (util/dprof/replay.c) into the
 * models of the views (util/dprof/report.c), which ui/ prints.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/compiler.h>

#include <subcmd/pager.h>
#include <subcmd/parse-options.h>

#include "builtin.h"
#include "util/debug.h"
#include "util/symbol.h"
#include "util/dprof/cachesim.h"
#include "util/dprof/diff.h"
#include "util/dprof/prune.h"
#include "util/dprof/record.h"
#include "util/dprof/report.h"
#include "ui/browsers/dprof-report.h"
#include "ui/stdio/dprof-diff.h"
#include "ui/stdio/dprof-json.h"
#include "ui/stdio/dprof-pprof.h"
#include "ui/stdio/dprof-report.h"
#include "ui/ui.h"

static int parse_percent_limit(const struct option *opt, const char *str,
			       int unset __maybe_unused)
{
	float *limit = opt->value;
	char *end;

	*limit = strtof(str, &end);
	if (end == str || *end || *limit < 0 || *limit > 100) {
		pr_err("dprof: --percent-limit wants a number between 0 and 100\n");
		return -1;
	}
	return 0;
}

static int parse_fold(const struct option *opt, const char *str,
		      int unset __maybe_unused)
{
	if (dprof_flow_fold__parse(opt->value, str)) {
		pr_err("dprof: --fold=%s: want a number of histories (0: fold nothing) or a percentage, e.g. 2 or 1%%\n",
		       str);
		return -1;
	}
	return 0;
}

/* --graph: a file that can be written, before a long report runs. */
static bool dprof__writable(const char *path)
{
	char dir[PATH_MAX];

	if (!access(path, F_OK))
		return !access(path, W_OK);
	snprintf(dir, sizeof(dir), "%s", path);
	return !access(dirname(dir), W_OK);
}

/* What can be checked before the report runs: one line each, and no report. */
static int dprof__check_report_opts(const struct dprof_report_opts *opts,
				    const char *graph)
{
	struct dprof_cache_geom geom;

	if (opts->cache_spec && dprof_cache_geom__parse(&geom, opts->cache_spec)) {
		pr_err("dprof: --cache=%s: want [lN:]SIZE[:WAYS[:LINE]], e.g. l3:32M:16:64\n",
		       opts->cache_spec);
		return -EINVAL;
	}
	if (symbol_conf.vmlinux_name && access(symbol_conf.vmlinux_name, R_OK)) {
		pr_err("dprof: -k %s: %s\n", symbol_conf.vmlinux_name, strerror(errno));
		return -ENOENT;
	}
	if (graph && !dprof__writable(graph)) {
		pr_err("dprof: --graph=%s: cannot write there: %s\n", graph, strerror(errno));
		return -EACCES;
	}
	return 0;
}

static int cmd_dprof_report(int argc, const char **argv)
{
	struct dprof_report_opts opts = {
		.input_name	= "perf.data",
		.fold		= DPROF_FLOW_FOLD_DEFAULT,
		.type_cache	= true,
	};
	const char *view = "profile", *graph = NULL, *event_thread = NULL, *pprof = NULL;
	bool use_stdio = false, use_tui = false, json = false;
	const char * const usage[] = {
		"perf dprof report [<options>]",
		NULL
	};
	const struct option options[] = {
	OPT_STRING('i', "input", &opts.input_name, "file", "input file name"),
	OPT_STRING('k', "vmlinux", &symbol_conf.vmlinux_name, "file",
		   "vmlinux pathname (kernel code, symbols and types)"),
	OPT_BOOLEAN(0, "stdio", &use_stdio, "use the stdio interface"),
	OPT_BOOLEAN(0, "tui", &use_tui, "use the TUI interface (default on a terminal)"),
	OPT_BOOLEAN(0, "json", &json, "print the view as one JSON document"),
	OPT_STRING(0, "view", &view, "view",
		   "profile, classify, workingset, paths, flow or flame"),
	OPT_STRING(0, "graph", &graph, "file",
		   "flow: also write the graph as DOT and SVG; workingset, flame: an SVG picture"),
	OPT_STRING(0, "pprof", &pprof, "file",
		   "write the profile as pprof's gzip'd profile.proto instead of a view"),
	OPT_STRING(0, "cache", &opts.cache_spec, "[lN:]size[:ways[:line]]",
		   "cache to model (default: the recording's last level)"),
	OPT_STRING('s', "sort", &opts.sort_str, "key",
		   "sort rows by: samples (default), misses, latency, objects"),
	OPT_STRING('t', "type", &opts.type_name, "name",
		   "show one type by member and code location"),
	OPT_CALLBACK(0, "percent-limit", &opts.percent_limit, "percent",
		     "hide rows below this percentage of samples",
		     parse_percent_limit),
	OPT_BOOLEAN(0, "samples", &opts.samples,
		    "--stdio: every access sample with its type, instead of a view"),
	OPT_CALLBACK(0, "fold", &opts.fold, "N|P%",
		     "--view=flow: fold paths taken by fewer than N histories (or P% of them); default 2, 0: none",
		     parse_fold),
	OPT_BOOLEAN('f', "force", &opts.force, "don't complain, do it"),
	OPT_STRING(0, "event-thread", &event_thread, "auto|on|off",
		   "deliver the events in a thread while perf reads the next (auto: from 512 MB)"),
	OPT_BOOLEAN(0, "type-cache", &opts.type_cache,
		    "keep the operand typings of a binary between reports, by build id (default)"),
	OPT_STRING(0, "type-cache-dir", &opts.type_cache_dir, "dir",
		   "where the typings are kept (default: .dprof in the build-id cache directory)"),
	OPT_BOOLEAN(0, "no-snapshot", &opts.no_snapshot,
		    "ignore the slab snapshot: older objects typed by DWARF only"),
	OPT_STRING(0, "heap-wrapper", &opts.heap_wrappers, "sym[,sym]",
		   "user functions that wrap the allocator: a heap row's site is past them"),
	OPT_BOOLEAN(0, "demangle", &symbol_conf.demangle,
		    "show C++ and Rust symbol names demangled (default)"),
	OPT_BOOLEAN(0, "demangle-kernel", &symbol_conf.demangle_kernel,
		    "demangle the kernel's symbol names too"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	struct dprof_report rep;
	bool tui;
	int err;

	argc = parse_options(argc, argv, options, usage, 0);
	if (argc)
		usage_with_options(usage, options);
	if (dprof_view_kind__parse(view, &opts.view)) {
		pr_err("dprof: unknown view '%s': profile, classify, workingset, paths, flow or flame\n",
		       view);
		return -EINVAL;
	}
	if ((opts.view == DPROF_VIEW_PATHS || opts.view == DPROF_VIEW_FLOW) &&
	    !opts.type_name) {
		pr_err("dprof: --view=%s needs --type=T (a cache or type watched with record --watch, or a user heap type)\n",
		       view);
		return -EINVAL;
	}
	if (dprof_delivery_mode__parse(event_thread, &opts.delivery)) {
		pr_err("dprof: --event-thread=%s: auto, on or off\n", event_thread);
		return -EINVAL;
	}
	err = dprof__check_report_opts(&opts, graph);
	if (err)
		return err;
	if (pprof && !dprof__writable(pprof)) {
		pr_err("dprof: --pprof=%s: cannot write there: %s\n", pprof, strerror(errno));
		return -EACCES;
	}
	/*
	 * As perf report: the TUI on a terminal when built with slang
	 * (setup_browser() decides), --stdio otherwise.  --graph writes a
	 * file and prints, so it stays on stdio, as --json and --samples do.
	 */
	if (use_stdio || graph || json || opts.samples || pprof ||
	    opts.view == DPROF_VIEW_FLAME)
		use_browser = 0;
#ifdef HAVE_SLANG_SUPPORT
	else if (use_tui)
		use_browser = 1;
#endif

	err = dprof_report__open(&rep, &opts);
	if (err)
		return err;
	setup_browser(false);
	/* the TUI computes every view, for its keys to switch between them */
	tui = use_browser == 1;
	err = dprof_report__run(&rep, tui) ?: dprof_report__check_type(&rep);
	if (err)
		goto out;
	if (tui) {
		err = dprof_report__browse(&rep);
		goto out;
	}
	if (pprof) {
		err = dprof_report__write_pprof(&rep, pprof, stdout);
		goto out;
	}
	setup_pager();
	if (json)
		err = dprof_report__fprintf_json(&rep, stdout);
	else
		err = dprof_report__fprintf(&rep, graph, stdout);
out:
	dprof_report__close(&rep);
	return err;
}

static int cmd_dprof_diff(int argc, const char **argv)
{
	struct dprof_diff_side sides[2] = {
		{ .path = "perf.data.old" }, { .path = "perf.data" },
	};
	float limit = 0;
	bool json = false;
	const char * const usage[] = {
		"perf dprof diff [<options>] [old.data new.data]",
		"perf dprof diff [<options>] old1.data old2.data... -- new1.data new2.data...",
		NULL
	};
	const struct option options[] = {
	OPT_STRING('k', "vmlinux", &symbol_conf.vmlinux_name, "file",
		   "vmlinux pathname (kernel code, symbols and types)"),
	OPT_CALLBACK(0, "percent-limit", &limit, "percent",
		     "hide types below this share in both recordings",
		     parse_percent_limit),
	OPT_BOOLEAN(0, "json", &json, "print the diff as one JSON document"),
	OPT_BOOLEAN(0, "demangle", &symbol_conf.demangle,
		    "show C++ and Rust symbol names demangled (default)"),
	OPT_BOOLEAN(0, "demangle-kernel", &symbol_conf.demangle_kernel,
		    "demangle the kernel's symbol names too"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	const char **runs[2] = { NULL, NULL };
	int nr_runs[2] = { 0, 0 }, sep = -1;
	int i, err = 0;

	argc = parse_options(argc, argv, options, usage, PARSE_OPT_KEEP_DASHDASH);
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			sep = i;
	}
	/* A1 A2 ... -- B1 B2 ...: replicates of each side */
	if (sep >= 1 && argc - sep - 1 >= 1) {
		runs[0] = argv;
		nr_runs[0] = sep;
		runs[1] = argv + sep + 1;
		nr_runs[1] = argc - sep - 1;
		sides[0].path = runs[0][0];
		sides[1].path = runs[1][0];
	} else if (argc == 2 && sep < 0) {
		sides[0].path = argv[0];
		sides[1].path = argv[1];
	} else if (argc) {
		pr_err("dprof: diff compares two recordings: perf dprof diff OLD.data NEW.data (none: perf.data.old perf.data), or replicates: OLD1 OLD2... -- NEW1 NEW2...\n");
		return -EINVAL;
	}
	if (min(nr_runs[0], nr_runs[1]) == 1 && max(nr_runs[0], nr_runs[1]) > 1) {
		pr_err("dprof: diff: replicates on one side only (%d and %d recordings): give two or more on each side, or one\n",
		       nr_runs[0], nr_runs[1]);
		return -EINVAL;
	}
	if (symbol_conf.vmlinux_name && access(symbol_conf.vmlinux_name, R_OK)) {
		pr_err("dprof: -k %s: %s\n", symbol_conf.vmlinux_name, strerror(errno));
		return -ENOENT;
	}

	for (i = 0; i < 2 && !err; i++) {
		int r;

		err = dprof_diff_side__load(&sides[i]);
		for (r = 1; r < nr_runs[i] && !err; r++)
			err = dprof_diff_side__add_run(&sides[i], runs[i][r]);
	}
	if (!err && json) {
		err = dprof_diff__fprintf_json(stdout, &sides[0], &sides[1]);
	} else if (!err) {
		setup_pager();
		err = dprof_diff__fprintf(stdout, &sides[0], &sides[1], limit);
	}
	dprof_diff_side__exit(&sides[0]);
	dprof_diff_side__exit(&sides[1]);
	return err;
}

static int cmd_dprof_record(int argc, const char **argv)
{
	struct dprof_record_opts opts = {
		.sampler	= "auto",
		.ldlat		= DPROF_LDLAT,
		.watch_patience	= DPROF_WATCH_PATIENCE,
		.kmem_sample	= DPROF_KMEM_SAMPLE,
	};
	const char * const usage[] = {
		"perf dprof record [<options>] [<command>]",
		"perf dprof record [<options>] -- <command> [<options>]",
		NULL
	};
	const struct option options[] = {
	OPT_STRING('c', "count", &opts.period, "n",
		   "access sampling period (events, or ns for cpu-clock)"),
	OPT_STRING('F', "freq", &opts.freq, "n", "access sampling frequency"),
	OPT_STRING(0, "sampler", &opts.sampler, "auto|mem|soft",
		   "access sampler: memory PMU, or cpu-clock + registers"),
	OPT_UINTEGER(0, "ldlat", &opts.ldlat,
		     "load latency threshold in cycles (Intel PEBS, Arm SPE; default 30)"),
	OPT_BOOLEAN(0, "l3missonly", &opts.l3missonly,
		    "AMD IBS: sample only ops that missed the L3 (Zen 4 on)"),
	OPT_BOOLEAN(0, "no-kmem", &opts.no_kmem,
		    "do not record the slab address set"),
	OPT_BOOLEAN(0, "kmem-per-task", &opts.kmem_per_task,
		    "the slab address set of the workload's tasks only, not of every CPU"),
	OPT_BOOLEAN(0, "no-prune", &opts.no_prune,
		    "keep the file as recorded: every kmem event, the samples' registers"),
	OPT_STRING(0, "kmem-events", &opts.kmem_mode, "map|objects",
		   "map: slab objects from the slab map (-a's default); objects: all"),
	OPT_UINTEGER(0, "kmem-sample", &opts.kmem_sample,
		     "with the map: the lifetimes of one slab allocation in n (0: none)"),
	OPT_STRING(0, "vmlinux", &symbol_conf.vmlinux_name, "file",
		   "vmlinux, for the kernel samples' code at the end (else /proc/kcore)"),
	OPT_BOOLEAN(0, "no-heap", &opts.no_heap,
		    "do not record the user-space allocator (malloc, free, ...)"),
	OPT_BOOLEAN(0, "heap-uprobes", &opts.heap_uprobes,
		    "uprobes on the allocator, not the recorder preloaded into the workload"),
	OPT_UINTEGER(0, "heap-min-size", &opts.heap_min_size,
		     "record user allocations of at least n bytes (filtered in the kernel)"),
	OPT_CALLBACK(0, "heap-alloc", &opts.heap_allocs, "alloc[,free[,realloc]]",
		     "an allocator of the program's own to track (a pool): its functions",
		     dprof_record__opt_heap_alloc),
	OPT_STRING(0, "watch", &opts.watch, "cache[:offset[/len]],...",
		   "follow objects of these slab caches (slab_watch PMU)"),
	OPT_UINTEGER(0, "watch-patience", &opts.watch_patience,
		     "give up a watched object after n more allocations (0: never)"),
	OPT_UINTEGER(0, "watch-histories", &opts.watch_histories,
		     "stop once each --watch item has followed n objects"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	struct dprof_record_args args;
	int j, ret;

	/* unknown options are perf record's; "--" stays to end them */
	argc = parse_options(argc, argv, options, usage,
			     PARSE_OPT_KEEP_UNKNOWN | PARSE_OPT_KEEP_DASHDASH);
	if (opts.period && opts.freq) {
		pr_err("dprof: use either -c or -F\n");
		return -EINVAL;
	}
	if (opts.watch_histories && !opts.watch) {
		pr_err("dprof: --watch-histories needs --watch\n");
		return -EINVAL;
	}
	if (strcmp(opts.sampler, "auto") && strcmp(opts.sampler, "mem") &&
	    strcmp(opts.sampler, "soft")) {
		pr_err("dprof: --sampler=%s: want auto, mem (a memory PMU) or soft (cpu-clock + registers)\n",
		       opts.sampler);
		return -EINVAL;
	}

	ret = dprof_record_args__init(&args, &opts, argc, argv);
	if (ret)
		goto out;
	if (verbose > 0) {
		pr_debug("calling: perf");
		for (j = 0; j < args.argc; j++)
			pr_debug(" %s", args.argv[j]);
		pr_debug("\n");
	}
	if (args.monitor_on && dprof_monitor__start(&args.monitor))
		pr_warning("dprof: cannot start the progress thread: recording without it\n");
	ret = cmd_record(args.argc, args.argv);
	ret = dprof_record_args__done(&args, ret) ?: ret;
out:
	dprof_record_args__exit(&args);
	free(opts.heap_allocs);
	return ret;
}

/*
 * perf dprof prune: what record does at its end, on a recording made with
 * --no-prune: the kmem events of objects no sample touched left out, the
 * software sampler's samples written decoded.
 */
static int cmd_dprof_prune(int argc, const char **argv)
{
	const char *input = "perf.data";
	const char * const usage[] = {
		"perf dprof prune [<options>]",
		NULL
	};
	const struct option options[] = {
	OPT_STRING('i', "input", &input, "file", "the recording, pruned in place"),
	OPT_STRING('k', "vmlinux", &symbol_conf.vmlinux_name, "file",
		   "vmlinux, for the kernel samples' code"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	int err;

	argc = parse_options(argc, argv, options, usage, 0);
	if (argc)
		usage_with_options(usage, options);
	err = symbol__init(NULL);
	if (err < 0)
		return err;
	return dprof_kmem__prune_say(input, NULL);
}

struct dprof_cmd {
	const char	*name;
	int		(*fn)(int argc, const char **argv);
};

static const struct dprof_cmd dprof_cmds[] = {
	{ "record",	cmd_dprof_record, },
	{ "report",	cmd_dprof_report, },
	{ "diff",	cmd_dprof_diff, },
	{ "prune",	cmd_dprof_prune, },
	{ .name = NULL, },
};

int cmd_dprof(int argc, const char **argv)
{
	const char * const subcommands[] = { "record", "report", "diff", "prune", NULL };
	const char *usage[2] = {
		NULL,
		NULL
	};
	const struct option options[] = {
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	const struct dprof_cmd *cmd;

	argc = parse_options_subcommand(argc, argv, options, subcommands, usage,
					PARSE_OPT_STOP_AT_NON_OPTION);
	if (!argc)
		usage_with_options(usage, options);

	for (cmd = dprof_cmds; cmd->name; cmd++) {
		if (!strcmp(argv[0], cmd->name)) {
			/* the usage line parse_options_subcommand() made */
			free((void *)usage[0]);
			return cmd->fn(argc, argv);
		}
	}
	pr_err("dprof: unknown command '%s'\n", argv[0]);
	usage_with_options(usage, options);
	return -1;
}
