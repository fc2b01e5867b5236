// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof record: the allocator recorder (dprof-preload/heaprec.c),
 * preloaded into the workload perf record launches, in place of the
 * allocator's uprobes (heapprobe.c), which stay for -a, -C, -p, -t and -u.
 *
 * The recorder is the workload's only: perf dprof sets LD_PRELOAD and the
 * log's path in its own environment, which perf record's fork of the
 * workload inherits, once perf's own libraries are loaded, and takes them
 * back when perf record is done.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include "util/debug.h"
#include "heaplog.h"
#include "recorder.h"

/* perf record's options that take their value as the next argument */
static const char * const dprof_record_valued[] = {
	"-o", "--output", "-e", "--event", "-m", "--mmap-pages", "-C", "--cpu",
	"-p", "--pid", "-t", "--tid", "-u", "--uid", "-F", "--freq", "-c", "--count",
	"-G", "--cgroup", "-k", "--clockid", "--filter", "--call-graph", "-r",
	"--realtime", "-I", "--intr-regs", "--user-regs", "--switch-output",
	"--control", "-D", "--delay", "--exclude-perf", "--affinity",
};

static bool dprof_record__valued(const char *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dprof_record_valued); i++) {
		if (!strcmp(arg, dprof_record_valued[i]))
			return true;
	}
	return false;
}

/*
 * What perf record will be given: the output (NULL: perf.data, or the
 * standard output if it is a pipe), whether it follows a task already
 * running, sets a clock of its own, and the workload's first argument.
 */
struct dprof_record_cmd {
	const char	*output;
	const char	*workload;
	bool		attach;
	bool		clock;
};

static void dprof_record_cmd__parse(struct dprof_record_cmd *c, int argc, const char **argv)
{
	int j;

	memset(c, 0, sizeof(*c));
	for (j = 0; j < argc; j++) {
		const char *a = argv[j];

		if (!strcmp(a, "--")) {
			c->workload = j + 1 < argc ? argv[j + 1] : NULL;
			return;
		}
		if (a[0] != '-') {
			c->workload = a;
			return;
		}
		if (!strcmp(a, "-o") || !strcmp(a, "--output"))
			c->output = j + 1 < argc ? argv[j + 1] : NULL;
		else if (strstarts(a, "--output="))
			c->output = a + strlen("--output=");
		else if (strstarts(a, "-o") && a[2])
			c->output = a + 2;
		if (!strcmp(a, "-p") || !strcmp(a, "--pid") || !strcmp(a, "-t") ||
		    !strcmp(a, "--tid") || !strcmp(a, "-u") || !strcmp(a, "--uid") ||
		    strstarts(a, "--pid=") || strstarts(a, "--tid=") || strstarts(a, "--uid="))
			c->attach = true;
		if (!strcmp(a, "-k") || strstarts(a, "--clockid"))
			c->clock = true;
		if (dprof_record__valued(a))
			j++;
	}
}

const char *dprof_record__output(int argc, const char **argv)
{
	struct dprof_record_cmd c;
	struct stat st;

	dprof_record_cmd__parse(&c, argc, argv);
	if ((c.output && !strcmp(c.output, "-")) ||
	    (!c.output && !fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode)))
		return NULL;
	return c.output ?: "perf.data";
}

/* The recorder's file: next to perf, or in ../lib64, ../lib (make install). */
static char *dprof_recorder__path(void)
{
	static const char * const dirs[] = { "", "/../lib64", "/../lib" };
	char exe[PATH_MAX], *slash, *path;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t i;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		if (asprintf(&path, "%s%s/%s", exe, dirs[i], DPROF_RECORDER_SO) < 0)
			return NULL;
		if (!access(path, R_OK))
			return path;
		free(path);
	}
	return NULL;
}

/* The workload's file, found as execvp() would. */
static char *dprof_recorder__which(const char *cmd)
{
	const char *path = getenv("PATH") ?: "/usr/bin:/bin";
	char *file;

	if (strchr(cmd, '/'))
		return strdup(cmd);
	while (*path) {
		const char *colon = strchrnul(path, ':');

		if (asprintf(&file, "%.*s/%s", (int)(colon - path), path, cmd) < 0)
			return NULL;
		if (!access(file, X_OK))
			return file;
		free(file);
		path = *colon ? colon + 1 : colon;
	}
	return NULL;
}

enum dprof_exe_kind { DPROF_EXE_DYNAMIC, DPROF_EXE_STATIC, DPROF_EXE_SETID };

/* An ELF executable with no interpreter is static; not ELF: a script, fine. */
static enum dprof_exe_kind dprof_recorder__exe_kind(const char *file)
{
	enum dprof_exe_kind kind = DPROF_EXE_DYNAMIC;
	struct stat st;
	GElf_Phdr ph;
	size_t i, n;
	Elf *elf;
	int fd;

	if (stat(file, &st))
		return kind;
	if (st.st_mode & (S_ISUID | S_ISGID))
		return DPROF_EXE_SETID;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kind;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_getphdrnum(elf, &n)) {
		kind = DPROF_EXE_STATIC;
		for (i = 0; i < n; i++) {
			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_INTERP)
				kind = DPROF_EXE_DYNAMIC;
		}
	}
	elf_end(elf);
	close(fd);
	return kind;
}

char *dprof_recorder__workload_file(bool system_wide, int argc, const char **argv)
{
	struct dprof_record_cmd c;

	dprof_record_cmd__parse(&c, argc, argv);
	if (system_wide || c.attach || !c.workload)
		return NULL;
	return dprof_recorder__which(c.workload);
}

bool dprof_recorder__static_workload(bool system_wide, int argc, const char **argv)
{
	struct dprof_record_cmd c;
	char *file;
	bool is_static;

	dprof_record_cmd__parse(&c, argc, argv);
	if (system_wide || c.attach || !c.workload)
		return false;
	file = dprof_recorder__which(c.workload);
	is_static = file && dprof_recorder__exe_kind(file) == DPROF_EXE_STATIC;
	free(file);
	if (is_static)
		pr_warning("dprof: %s is statically linked: its heap objects are not tracked (--heap-uprobes: the uprobes are on the shared C library, which it does not use)\n",
			   c.workload);
	return is_static;
}

int dprof_recorder__init(struct dprof_recorder *rc, bool system_wide, unsigned int min_size,
			 int argc, const char **argv)
{
	struct dprof_record_cmd c;
	struct stat st;
	char *so, *file;
	int err;

	memset(rc, 0, sizeof(*rc));
	rc->log.fd = -1;
	rc->min_size = min_size;
	dprof_record_cmd__parse(&c, argc, argv);
	if (system_wide || c.attach || !c.workload)
		return 0;	/* uprobes */
	if (c.clock) {
		pr_warning("dprof: -k: the allocator recorder needs perf record -k monotonic; using uprobes\n");
		return 0;
	}
	if ((c.output && !strcmp(c.output, "-")) ||
	    (!c.output && !fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode))) {
		pr_warning("dprof: output to a pipe: the allocator recorder's log has no place there; using uprobes\n");
		return 0;
	}
	file = dprof_recorder__which(c.workload);
	switch (file ? dprof_recorder__exe_kind(file) : DPROF_EXE_DYNAMIC) {
	case DPROF_EXE_STATIC:
		pr_warning("dprof: %s is statically linked: its heap objects are not tracked (the allocator recorder is preloaded, uprobes need a shared C library)\n",
			   c.workload);
		free(file);
		rc->none = true;
		return 0;
	case DPROF_EXE_SETID:
		pr_warning("dprof: %s is setuid/setgid: the loader preloads nothing into it; using uprobes\n",
			   c.workload);
		free(file);
		return 0;
	case DPROF_EXE_DYNAMIC:
	default:
		break;
	}
	free(file);
	so = dprof_recorder__path();
	if (!so) {
		pr_warning("dprof: no %s next to perf (make install puts it in libdir): using uprobes\n",
			   DPROF_RECORDER_SO);
		return 0;
	}
	rc->output = strdup(c.output ?: "perf.data");
	err = rc->output ? dprof_heaplog_rec__create(&rc->log, rc->output) : -ENOMEM;
	if (err) {
		free(so);
		zfree(&rc->output);
		return 0;	/* said; uprobes */
	}
	/* the workload's own LD_PRELOAD after ours */
	if (getenv("LD_PRELOAD")) {
		rc->old_preload = strdup(getenv("LD_PRELOAD"));
		if (!rc->old_preload ||
		    asprintf(&rc->preload, "%s:%s", so, rc->old_preload) < 0)
			rc->preload = NULL;
		free(so);
	} else {
		rc->preload = so;
	}
	if (!rc->preload || setenv("LD_PRELOAD", rc->preload, 1) ||
	    setenv(DPROF_HEAPLOG_ENV, rc->log.path, 1)) {
		dprof_recorder__exit(rc);
		return -ENOMEM;
	}
	rc->on = true;
	return 0;
}

int dprof_recorder__done(struct dprof_recorder *rc, int record_err,
			 const struct dprof_touches *touches)
{
	int err = 0;

	if (!rc->on)
		return 0;
	/* nothing perf runs from now on is the workload */
	if (rc->old_preload)
		setenv("LD_PRELOAD", rc->old_preload, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv(DPROF_HEAPLOG_ENV);
	if (!record_err)
		err = dprof_heaplog_rec__store(&rc->log, rc->output, rc->min_size, touches);
	dprof_heaplog_rec__remove(&rc->log);
	rc->on = false;
	return err;
}

void dprof_recorder__exit(struct dprof_recorder *rc)
{
	if (rc->on)
		dprof_recorder__done(rc, -1, NULL);
	dprof_heaplog_rec__remove(&rc->log);
	zfree(&rc->output);
	zfree(&rc->preload);
	zfree(&rc->old_preload);
}
