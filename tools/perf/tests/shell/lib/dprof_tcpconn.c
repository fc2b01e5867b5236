// SPDX-License-Identifier: GPL-2.0
/*
 * The same number of small messages over N loopback TCP connections, for
 * the perf dprof diff test of 50 against 500 connections (DProf paper
 * 5.2): tcpconn N MESSAGES READY GO DONE
 *
 * Connects N clients to a listener on 127.0.0.1, accepts them, creates
 * READY, and waits for GO to exist; then sends MESSAGES 64-byte messages,
 * round robin over the connections, each read back on the other end, and
 * creates DONE.  It then waits for SIGTERM before closing anything: a
 * recording between GO and DONE sees the message phase alone, with 2 * N
 * TCP sockets in use.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	if (fd < 0)
		die(path);
	close(fd);
}

static void full(int fd, char *buf, size_t len, int wr)
{
	while (len) {
		ssize_t n = wr ? write(fd, buf, len) : read(fd, buf, len);

		if (n <= 0)
			die(wr ? "write" : "read");
		buf += n;
		len -= n;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t salen = sizeof(sa);
	int lfd, *cli, *srv, one = 1;
	long n, msgs, i;
	char buf[64];
	struct stat st;
	sigset_t set;
	int sig;

	if (argc != 6)
		return 2;
	n = atol(argv[1]);
	msgs = atol(argv[2]);
	cli = calloc(n, sizeof(*cli));
	srv = calloc(n, sizeof(*srv));
	if (n <= 0 || !cli || !srv)
		return 2;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, 1024) || getsockname(lfd, (struct sockaddr *)&sa, &salen))
		die("listen");
	for (i = 0; i < n; i++) {
		cli[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (cli[i] < 0 || connect(cli[i], (struct sockaddr *)&sa, sizeof(sa)))
			die("connect");
		setsockopt(cli[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		srv[i] = accept(lfd, NULL, NULL);
		if (srv[i] < 0)
			die("accept");
	}
	touch(argv[3]);
	while (stat(argv[4], &st))
		usleep(10000);

	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < msgs; i++) {
		full(cli[i % n], buf, sizeof(buf), 1);
		full(srv[i % n], buf, sizeof(buf), 0);
	}
	touch(argv[5]);
	sigwait(&set, &sig);
	return 0;
}
