// SPDX-License-Identifier: GPL-2.0
/*
 * A loopback TCP echo server and its client, run as two processes so
 * that only one of them is under perf dprof record (dprof_kmem_cpuwide.sh):
 *
 *   echo server PORTFILE CONNS
 *	echo the messages of CONNS connections, accepted one at a time;
 *	exit
 *   echo client PORTFILE CONNS MSGS
 *	CONNS short connections of MSGS messages each, each message
 *	waiting for its echo
 *
 * The server writes its port to PORTFILE, renamed into place once it
 * listens.  A message is an sk_buff the client allocates; the server
 * frees it, or the ACK it sends frees it when the loopback device hands
 * that over in the server's softirq; the echo the other way round; and
 * the server's socket of a connection is made in the client's softirq
 * (the SYN's).  Messages are 64 to 1024 bytes; the client's sockets close
 * with a reset, leaving no TIME_WAIT socket to expire in a later
 * recording.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int full(int fd, char *buf, size_t len, int wr)
{
	while (len) {
		ssize_t n = wr ? write(fd, buf, len) : read(fd, buf, len);

		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

static int server(const char *portfile, long conns)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t salen = sizeof(sa);
	char tmp[4096], buf[1024];
	unsigned short len;
	int lfd, fd, one = 1;
	FILE *f;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, 128) || getsockname(lfd, (struct sockaddr *)&sa, &salen))
		die("listen");
	snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", ntohs(sa.sin_port)) < 0 || fclose(f) ||
	    rename(tmp, portfile))
		die(portfile);
	while (conns-- > 0) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		/* a message: its length (2 bytes), then its bytes */
		while (!full(fd, (char *)&len, sizeof(len), 0) && len <= sizeof(buf) &&
		       !full(fd, buf, len, 0) && !full(fd, buf, len, 1))
			;
		close(fd);
	}
	close(lfd);
	return 0;
}

static int client(const char *portfile, long conns, long msgs)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };
	char buf[1024 + 2];
	unsigned short len;
	unsigned int port;
	int fd, one = 1;
	long c, m;
	FILE *f;

	f = fopen(portfile, "r");
	if (!f || fscanf(f, "%u", &port) != 1)
		die(portfile);
	fclose(f);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(port);
	memset(buf, 'x', sizeof(buf));
	for (c = 0; c < conns; c++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			die("connect");
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		for (m = 0; m < msgs; m++) {
			len = 64 << ((c + m) % 5);	/* 64 ... 1024 */
			memcpy(buf, &len, sizeof(len));
			if (full(fd, buf, sizeof(len) + len, 1) ||
			    full(fd, buf + sizeof(len), len, 0))
				die("tcp echo");
		}
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "server"))
		return server(argv[2], atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "client"))
		return client(argv[2], atol(argv[3]), atol(argv[4]));
	fprintf(stderr, "usage: %s server PORTFILE CONNS | client PORTFILE CONNS MSGS\n",
		argv[0]);
	return 2;
}
