// SPDX-License-Identifier: GPL-2.0
/*
 * churn: make the kernel allocate, use and free slab objects on every CPU.
 *
 *   churn [-t SECONDS] [-j THREADS] [-d DIR] [-m MODES]
 *
 * One thread per CPU (pinned), each looping until the deadline over the
 * selected modes (default "ofpsu"):
 *   o  open/read/close an existing file      (filp; -r FILE, default DIR/churn.read)
 *   f  create/write/close/unlink in DIR      (filp, dentry, inode: shmem on tmpfs)
 *   p  pipe2, write, read, close             (filp, pipe_inode_info, pipe bufs)
 *   s  socketpair(AF_UNIX), send, recv, close (sock_inode_cache, skbuff_head_cache,
 *                                             filp, dentry)
 *   u  stat of a missing name               (dentry lookups, names_cache)
 * Threads share one file table, so the fd table and the files themselves
 * are touched from several CPUs, like a multi-threaded server.
 * Prints one line per thread (cpu, loops) and a total on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double seconds = 3.0;
static const char *dir = "/tmp";
static const char *modes = "ofpsu";
static const char *readfile;	/* default: DIR/churn.read */
static volatile int stop;

struct worker {
	pthread_t th;
	int idx;
	int cpu;
	unsigned long loops;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "churn: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	char buf[256], name[64];
	int fds[2], fd;
	const char *m;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	snprintf(name, sizeof(name), "%s/churn.%d.%d", dir, (int)getpid(), w->idx);
	memset(buf, 'x', sizeof(buf));

	while (!stop) {
		for (m = modes; *m; m++) {
			switch (*m) {
			case 'o':
				fd = open(readfile, O_RDONLY);
				if (fd < 0)
					die(readfile);
				if (read(fd, buf, sizeof(buf)) < 0)
					die("read");
				close(fd);
				break;
			case 'f':
				fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0600);
				if (fd < 0)
					die(name);
				if (write(fd, buf, 64) != 64)
					die("write");
				close(fd);
				unlink(name);
				break;
			case 'p':
				if (pipe2(fds, 0))
					die("pipe2");
				if (write(fds[1], buf, 64) != 64 || read(fds[0], buf, 64) != 64)
					die("pipe io");
				close(fds[0]);
				close(fds[1]);
				break;
			case 's':
				if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
					die("socketpair");
				if (send(fds[0], buf, 64, 0) != 64 || recv(fds[1], buf, 64, 0) != 64)
					die("socket io");
				close(fds[0]);
				close(fds[1]);
				break;
			case 'u': {
				struct stat st;

				snprintf(buf, sizeof(buf), "%s/missing.%lu", dir, w->loops & 63);
				stat(buf, &st);
				break;
			}
			}
		}
		w->loops++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads = ncpu > 0 ? ncpu : 1, opt, i;
	unsigned long total = 0;
	struct worker *w;
	double t0;

	while ((opt = getopt(argc, argv, "t:j:d:m:r:")) != -1) {
		switch (opt) {
		case 't': seconds = atof(optarg); break;
		case 'j': nthreads = atoi(optarg); break;
		case 'd': dir = optarg; break;
		case 'm': modes = optarg; break;
		case 'r': readfile = optarg; break;
		default:
			fprintf(stderr, "usage: churn [-t SECONDS] [-j THREADS] [-d DIR] [-m ofpsu] [-r FILE]\n");
			return 2;
		}
	}
	if (nthreads < 1)
		nthreads = 1;
	if (!readfile) {
		static char name[4096];
		int fd;

		snprintf(name, sizeof(name), "%s/churn.read", dir);
		fd = open(name, O_CREAT | O_WRONLY, 0600);
		if (fd < 0 || write(fd, "churn\n", 6) != 6)
			die(name);
		close(fd);
		readfile = name;
	}
	w = calloc(nthreads, sizeof(*w));
	if (!w)
		die("calloc");
	t0 = now();
	for (i = 0; i < nthreads; i++) {
		w[i].idx = i;
		w[i].cpu = ncpu > 0 ? i % ncpu : -1;
		errno = pthread_create(&w[i].th, NULL, work, &w[i]);
		if (errno)
			die("pthread_create");
	}
	while (now() - t0 < seconds)
		usleep(10000);
	stop = 1;
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].th, NULL);
		printf("churn: thread %d cpu %d loops %lu\n", i, w[i].cpu, w[i].loops);
		total += w[i].loops;
	}
	printf("churn: %lu loops of \"%s\" in %.2fs on %d threads\n",
	       total, modes, now() - t0, nthreads);
	return 0;
}
