// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * faults-proxy: a TCP proxy that injects server and network faults for
 * lab/faults, without touching the lab's server or links (other people's
 * runs on the same lab do not notice).  lab/faults compiles it into its
 * work directory and runs it in a client namespace; the test under fault
 * reaches the lab server through it (nfs://127.0.0.1/...&nfsport=P).
 *
 *   faults-proxy CTL LPORT:HOST:PORT [LPORT:HOST:PORT ...]
 *
 * Listens on 127.0.0.1:LPORT (0: any free port) for each mapping and
 * forwards to HOST:PORT.  Prints "listen I PORT" per mapping, then one
 * line per event and "ok CMD" once a command took effect.  Commands, one
 * per line, are read from the FIFO CTL:
 *
 *   stall   stop moving bytes, both ways, on every connection; accept new
 *           connections but do not forward them (a partition, a server
 *           that accepts and never answers)
 *   pass    forward again; what the stall held back is delivered
 *   kill    reset every connection (RST) and stop listening: connection
 *           refused, as from a host whose server died
 *   start   listen again (after kill): the server is back
 *   quit    reset everything and exit
 *
 * Bounded: at most MAX_CONNS connections, 64 KiB buffered per direction.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_MAPS 4
#define MAX_CONNS 256
#define BUF 65536

struct map {
	int lfd;
	unsigned short lport;
	struct sockaddr_in up;
};

struct half {
	char buf[BUF];
	size_t len;
};

struct pair {
	int cfd, ufd;
	bool connecting;	/* upstream connect() in progress */
	bool pending;		/* accepted during a stall, not connected */
	int map;
	struct half c2u, u2c;
};

static struct map maps[MAX_MAPS];
static int nmaps;
static struct pair *pairs[MAX_CONNS];
static bool stalled;
static struct timespec t0;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec - t0.tv_sec) +
	       (double)(ts.tv_nsec - t0.tv_nsec) / 1e9;
}

__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
	va_list ap;

	printf("%.3f ", now_s());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void reset_close(int fd)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}

static void pair_free(int i, bool rst)
{
	struct pair *p = pairs[i];

	if (!p)
		return;
	if (rst) {
		reset_close(p->cfd);
		reset_close(p->ufd);
	} else {
		if (p->cfd >= 0)
			close(p->cfd);
		if (p->ufd >= 0)
			close(p->ufd);
	}
	free(p);
	pairs[i] = NULL;
}

static int listen_on(struct map *m)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(m->lport) };
	socklen_t al = sizeof(a);
	int one = 1, fd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&a, &al)) {
		close(fd);
		return -1;
	}
	m->lport = ntohs(a.sin_port);
	m->lfd = fd;
	return 0;
}

static int connect_up(struct pair *p)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&maps[p->map].up,
		    sizeof(maps[p->map].up)) && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	p->ufd = fd;
	p->connecting = true;
	p->pending = false;
	return 0;
}

static void do_accept(int mi)
{
	int fd = accept4(maps[mi].lfd, NULL, NULL,
			 SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1, i;
	struct pair *p;

	if (fd < 0)
		return;
	for (i = 0; i < MAX_CONNS && pairs[i]; i++)
		;
	p = i < MAX_CONNS ? calloc(1, sizeof(*p)) : NULL;
	if (!p) {
		reset_close(fd);
		say("refused a connection: table full");
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	p->cfd = fd;
	p->ufd = -1;
	p->map = mi;
	pairs[i] = p;
	if (stalled) {
		p->pending = true;
		say("accepted conn %d on port %u (stalled: not forwarded)", i,
		    maps[mi].lport);
	} else if (connect_up(p)) {
		say("conn %d: upstream connect failed: %s", i,
		    strerror(errno));
		pair_free(i, true);
	} else {
		say("accepted conn %d on port %u", i, maps[mi].lport);
	}
}

/* move bytes from fd into h; false when the connection is over */
static bool fill(int fd, struct half *h)
{
	ssize_t n;

	if (h->len == BUF)
		return true;
	n = read(fd, h->buf + h->len, BUF - h->len);
	if (n == 0)
		return false;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	h->len += (size_t)n;
	return true;
}

static bool drain(int fd, struct half *h)
{
	ssize_t n;

	if (!h->len)
		return true;
	n = send(fd, h->buf, h->len, MSG_NOSIGNAL);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	memmove(h->buf, h->buf + n, h->len - (size_t)n);
	h->len -= (size_t)n;
	return true;
}

static void command(char *line)
{
	line[strcspn(line, "\r\n")] = 0;
	if (!strcmp(line, "stall")) {
		stalled = true;
	} else if (!strcmp(line, "pass")) {
		stalled = false;
		for (int i = 0; i < MAX_CONNS; i++)
			if (pairs[i] && pairs[i]->pending &&
			    connect_up(pairs[i]))
				pair_free(i, true);
	} else if (!strcmp(line, "kill") || !strcmp(line, "quit")) {
		int n = 0;

		for (int i = 0; i < MAX_CONNS; i++)
			if (pairs[i]) {
				pair_free(i, true);
				n++;
			}
		for (int m = 0; m < nmaps; m++)
			if (maps[m].lfd >= 0) {
				close(maps[m].lfd);
				maps[m].lfd = -1;
			}
		stalled = false;
		say("reset %d connections, not listening", n);
		if (!strcmp(line, "quit")) {
			say("ok quit");
			exit(0);
		}
	} else if (!strcmp(line, "start")) {
		for (int m = 0; m < nmaps; m++)
			if (maps[m].lfd < 0 && listen_on(&maps[m]))
				say("listen on port %u failed: %s",
				    maps[m].lport, strerror(errno));
		stalled = false;
	} else if (line[0]) {
		say("unknown command '%s'", line);
		return;
	} else {
		return;
	}
	say("ok %s", line);
}

int main(int argc, char **argv)
{
	char ctlbuf[256];
	size_t ctllen = 0;
	int ctl;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	signal(SIGPIPE, SIG_IGN);
	if (argc < 3 || argc - 2 > MAX_MAPS) {
		fprintf(stderr, "usage: faults-proxy CTL-FIFO LPORT:HOST:PORT...\n");
		return 64;
	}
	/* O_RDWR: the FIFO never reports end of file between writers */
	ctl = open(argv[1], O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (ctl < 0) {
		fprintf(stderr, "faults-proxy: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		struct map *m = &maps[nmaps];
		unsigned lport, port;
		char host[64];

		if (sscanf(argv[i], "%u:%63[^:]:%u", &lport, host, &port) != 3 ||
		    lport > 65535 || !port || port > 65535) {
			fprintf(stderr, "faults-proxy: bad mapping '%s'\n",
				argv[i]);
			return 64;
		}
		m->up.sin_family = AF_INET;
		m->up.sin_port = htons((unsigned short)port);
		if (inet_pton(AF_INET, host, &m->up.sin_addr) != 1) {
			fprintf(stderr, "faults-proxy: bad address '%s'\n",
				host);
			return 64;
		}
		m->lport = (unsigned short)lport;
		if (listen_on(m)) {
			fprintf(stderr, "faults-proxy: listen %u: %s\n", lport,
				strerror(errno));
			return 1;
		}
		printf("listen %d %u\n", nmaps, m->lport);
		nmaps++;
	}
	fflush(stdout);

	for (;;) {
		struct pollfd pf[1 + MAX_MAPS + 2 * MAX_CONNS];
		int who[1 + MAX_MAPS + 2 * MAX_CONNS];
		int n = 0;

		pf[n] = (struct pollfd){ .fd = ctl, .events = POLLIN };
		who[n++] = -1;
		for (int m = 0; m < nmaps; m++) {
			if (maps[m].lfd < 0)
				continue;
			pf[n] = (struct pollfd){ .fd = maps[m].lfd,
						 .events = POLLIN };
			who[n++] = -2 - m;
		}
		for (int i = 0; i < MAX_CONNS; i++) {
			struct pair *p = pairs[i];
			short ce = 0, ue = 0;

			/* stalled: not even a hang-up is looked at */
			if (!p || stalled || p->pending)
				continue;
			{
				if (p->c2u.len < BUF && !p->connecting)
					ce |= POLLIN;
				if (p->u2c.len)
					ce |= POLLOUT;
				if (p->u2c.len < BUF && !p->connecting)
					ue |= POLLIN;
				if (p->c2u.len || p->connecting)
					ue |= POLLOUT;
			}
			pf[n] = (struct pollfd){ .fd = p->cfd, .events = ce };
			who[n++] = 2 * i;
			if (p->ufd >= 0) {
				pf[n] = (struct pollfd){ .fd = p->ufd,
							 .events = ue };
				who[n++] = 2 * i + 1;
			}
		}
		if (poll(pf, (nfds_t)n, 1000) < 0) {
			if (errno == EINTR)
				continue;
			perror("faults-proxy: poll");
			return 1;
		}
		for (int k = 0; k < n; k++) {
			short re = pf[k].revents;

			if (!re)
				continue;
			if (who[k] == -1) {
				ssize_t r = read(ctl, ctlbuf + ctllen,
						 sizeof(ctlbuf) - 1 - ctllen);
				char *nl;

				if (r > 0)
					ctllen += (size_t)r;
				ctlbuf[ctllen] = 0;
				while ((nl = strchr(ctlbuf, '\n'))) {
					*nl = 0;
					command(ctlbuf);
					ctllen -= (size_t)(nl + 1 - ctlbuf);
					memmove(ctlbuf, nl + 1, ctllen + 1);
				}
				if (ctllen == sizeof(ctlbuf) - 1)
					ctllen = 0;
				/* a command may have changed every fd */
				break;
			}
			if (who[k] <= -2) {
				do_accept(-2 - who[k]);
				continue;
			}
			int i = who[k] / 2;
			bool up = who[k] & 1;
			struct pair *p = pairs[i];
			bool alive = true;

			if (!p)
				continue;
			if (up && p->connecting && (re & (POLLOUT | POLLERR |
							  POLLHUP))) {
				int e = 0;
				socklen_t el = sizeof(e);

				getsockopt(p->ufd, SOL_SOCKET, SO_ERROR, &e, &el);
				if (e) {
					say("conn %d: upstream: %s", i,
					    strerror(e));
					pair_free(i, true);
					continue;
				}
				p->connecting = false;
			}
			if (stalled || p->pending)
				continue;
			if (re & POLLIN)
				alive = fill(up ? p->ufd : p->cfd,
					     up ? &p->u2c : &p->c2u);
			if (alive && (re & POLLOUT))
				alive = drain(up ? p->ufd : p->cfd,
					      up ? &p->c2u : &p->u2c);
			if (alive && (re & (POLLERR | POLLHUP)) &&
			    !(re & POLLIN))
				alive = false;
			if (!alive) {
				say("conn %d closed by the %s", i,
				    up ? "server" : "client");
				pair_free(i, false);
			}
		}
	}
}
