// SPDX-License-Identifier: GPL-2.0
/*
 * Messages handed from one CPU to another over an AF_UNIX stream
 * socketpair, for the dprof data flow test: a sender pinned to CPU 0
 * writes NR messages of SIZE bytes, each of which the kernel puts in a
 * new sk_buff allocated on CPU 0 and queues on the receiver's socket; a
 * receiver pinned to CPU 1 reads them, and the kernel unlinks and frees
 * each sk_buff on CPU 1.
 *
 * The sender waits for a byte back over a pipe after each message, so
 * that one sk_buff at a time is in flight: each object's history is the
 * hand-off alone, without the next messages' sk_buffs being allocated
 * and queued around it.  (QEMU TCG also reports spurious hits of a
 * breakpoint on the sender's CPU while that CPU keeps allocating
 * sk_buffs on the watched object's page.)
 *
 *   perf test -w dprof_handoff [NR [SIZE]]
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/compiler.h>
#include "../tests.h"

static void dprof_handoff__pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* one CPU only: both ends run, without the hand-off */
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "dprof_handoff: cannot pin to CPU %d: %s\n",
			cpu, strerror(errno));
}

/* Read SIZE-byte messages until EOF, a byte on @ack after each one. */
static int dprof_handoff__receive(int fd, int ack, long size)
{
	char buf[4096];
	long got = 0;
	ssize_t n;

	dprof_handoff__pin(1);
	for (;;) {
		n = read(fd, buf, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
		if (got < size)
			continue;
		got = 0;
		if (write(ack, "a", 1) != 1)
			return 1;
	}
	return n < 0;
}

static int dprof_handoff(int argc, const char **argv)
{
	long nr = 10000, size = 100, i;
	int sv[2], ack[2], status, err = 0;
	char buf[4096];
	pid_t pid;

	if (argc > 0)
		nr = atol(argv[0]);
	if (argc > 1)
		size = atol(argv[1]);
	if (size < 1 || size > (long)sizeof(buf))
		size = sizeof(buf);

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(ack)) {
		perror("socketpair or pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(sv[0]);
		close(ack[0]);
		_exit(dprof_handoff__receive(sv[1], ack[1], size));
	}
	close(sv[1]);
	close(ack[1]);
	dprof_handoff__pin(0);
	memset(buf, 'm', sizeof(buf));
	for (i = 0; i < nr && !err; i++) {
		ssize_t n = write(sv[0], buf, size);

		if (n < 0 && errno == EINTR)
			continue;
		/* the receiver has read it all: one sk_buff at a time */
		if (n != size || read(ack[0], buf, 1) != 1)
			err = 1;
	}
	close(sv[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		err = 1;
	return err;
}

DEFINE_WORKLOAD(dprof_handoff);
