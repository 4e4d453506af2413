/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dtproxy: a TCP proxy that adds network latency, for the dentrace lab.
 *
 * The host kernel has no sch_netem, so latency between an NFS client and
 * the lab server is injected here: every chunk of bytes read from one side
 * is held until its due time (now + delay +/- jitter) and then written to
 * the other side.  One thread, epoll, a timerfd armed for the earliest due
 * chunk: no sleeps, sub-millisecond delays work.  Chunks of one direction
 * never overtake each other (jitter cannot reorder a TCP stream), and each
 * direction holds at most --buffer bytes before the proxy stops reading
 * from its sender (TCP flow control then slows the sender down).
 *
 * It is also where fault tests stall and break connections:
 *   stall [up|down]   stop forwarding (both directions by default); data
 *                     queues up to --buffer, then senders are throttled
 *   resume            forward again; held data goes out at once
 *   drop              reset every proxied connection (RST both ways);
 *                     new connections are still accepted
 *   delay up|down|both MS, jitter up|down|both MS: change the delay for
 *                     data read from now on
 *   stats             one line of counters on stderr
 *   quit              exit
 * given as lines on the --control FIFO (echo stall > FIFO), or as signals:
 * SIGUSR1 stall, SIGUSR2 resume, SIGHUP drop, SIGTERM/SIGINT quit.
 *
 * "up" is client -> server (data read from accepted connections), "down"
 * is server -> client.  Connection set-up (SYN) is not delayed.
 *
 * Usage (lab: inside client namespace dt-c3, ephemeral port):
 *   dtproxy --forward 127.0.0.1:0=10.99.0.1:2049 --delay 1 \
 *           --port-file /tmp/p --lifetime 600
 *   then nfs://127.0.0.1/export?version=4&nfsport=$(cat /tmp/p)
 * Several --forward pairs share the delay settings (e.g. NFS and MOUNT
 * ports for NFSv3 with nfsport= and mountport=).
 *
 * Exit status: 0 after quit, a signal or --lifetime; 1 setup failed (bind,
 * FIFO); 64 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_FORWARDS	8
#define CHUNK_MAX	(64 * 1024)
#define CTL_LINE_MAX	256
#define EXIT_SETUP	1
#define EXIT_USAGE	64

enum { UP = 0, DOWN = 1 };

/* what an epoll event is about */
enum ep_kind { EP_LISTEN, EP_CLIENT, EP_SERVER, EP_TIMER, EP_SIGNAL, EP_CTL };

struct ep {
	enum ep_kind kind;
	void *ptr;		/* struct fwd * or struct conn * */
	int fd;
	uint32_t events;	/* currently registered */
	bool gone;		/* peer fully closed: no longer polled */
};

struct chunk {
	struct chunk *next;
	uint64_t due;		/* CLOCK_MONOTONIC ns */
	size_t len, off;
	char data[];
};

/* one direction of a connection: read from 'from', write to 'to' */
struct dir {
	struct chunk *head, *tail;
	size_t queued;		/* bytes held */
	uint64_t last_due;	/* keeps the stream in order under jitter */
	bool eof;		/* the sender shut down its side */
	bool shut;		/* ... and we passed the shutdown on */
	bool blocked;		/* 'to' was full: waiting for EPOLLOUT */
};

struct conn {
	struct conn *prev, *next;
	uint64_t id;
	bool dead;		/* closed; freed after the current batch */
	struct ep cep, sep;	/* client side, server side */
	bool connecting;	/* connect() to the target in progress */
	struct dir d[2];	/* UP: client -> server, DOWN: server -> client */
};

struct fwd {
	struct ep ep;
	char listen_spec[128], target_spec[128];
	struct sockaddr_storage target;
	socklen_t target_len;
	int port;		/* bound port */
};

static struct {
	int epfd, tfd, sfd, ctlfd;
	struct ep tep, sep, cep;
	struct fwd fwd[MAX_FORWARDS];
	int nfwd;
	struct conn *conns;
	struct conn *dead;		/* closed, freed after each batch */
	int nconns, max_conns;
	size_t buffer;
	uint64_t delay[2], jitter[2];	/* ns */
	bool stalled[2];
	uint64_t rng;
	uint64_t deadline;		/* lifetime end, 0 = none */
	uint64_t armed;			/* timer's current due time, 0 = off */
	bool quit, quiet;
	const char *ctl_path, *port_file, *pidfile;
	bool ctl_created;
	char ctl_buf[CTL_LINE_MAX];
	size_t ctl_len;
	uint64_t next_id;
	/* counters */
	uint64_t accepted, refused, failed, dropped, bytes[2], chunks[2];
	size_t max_queued[2];
} P = { .epfd = -1, .tfd = -1, .sfd = -1, .ctlfd = -1 };

/* ---- helpers ------------------------------------------------------------ */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((format(printf, 1, 2)))
static void logmsg(const char *fmt, ...)
{
	va_list ap;

	if (P.quiet)
		return;
	fprintf(stderr, "dtproxy[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

__attribute__((format(printf, 2, 3), noreturn))
static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dtproxy: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (P.ctl_created)
		unlink(P.ctl_path);
	exit(code);
}

static uint64_t rnd(void)
{
	uint64_t z = (P.rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* milliseconds (fractional) -> ns; -1 on a bad or absurd value */
static int64_t parse_ms(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || v > 600000)
		return -1;
	return (int64_t)(v * 1e6 + 0.5);
}

/* "host:port" or "[v6]:port" -> sockaddr; 0 or -1 */
static int parse_addr(const char *spec, struct sockaddr_storage *ss,
		      socklen_t *len, bool passive)
{
	char host[128], *colon;
	const char *port;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;

	if (strlen(spec) >= sizeof(host))
		return -1;
	strcpy(host, spec);
	colon = strrchr(host, ':');
	if (!colon || colon == host)
		return -1;
	*colon = 0;
	port = colon + 1;
	if (host[0] == '[') {
		size_t l = strlen(host);

		if (l < 3 || host[l - 1] != ']')
			return -1;
		host[l - 1] = 0;
		memmove(host, host + 1, l - 1);
	}
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
			 (passive ? AI_PASSIVE : 0);
	if (getaddrinfo(host, port, &hints, &ai) || !ai)
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static void ep_set(struct ep *e, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = e };

	if (e->fd < 0 || e->gone || e->events == events)
		return;
	if (epoll_ctl(P.epfd, EPOLL_CTL_MOD, e->fd, &ev) < 0)
		logmsg("epoll_ctl MOD fd %d: %s", e->fd, strerror(errno));
	e->events = events;
}

static void ep_add(struct ep *e, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = e };

	if (epoll_ctl(P.epfd, EPOLL_CTL_ADD, e->fd, &ev) < 0)
		die(EXIT_SETUP, "epoll_ctl ADD fd %d: %s", e->fd,
		    strerror(errno));
	e->events = events;
}

/* ---- connections ------------------------------------------------------------ */

static void free_dir(struct dir *d)
{
	while (d->head) {
		struct chunk *c = d->head;

		d->head = c->next;
		free(c);
	}
	d->tail = NULL;
	d->queued = 0;
}

/* close both sides; rst: reset instead of an orderly close */
static void conn_close(struct conn *c, bool rst)
{
	struct linger lg = { 1, 0 };

	for (int k = 0; k < 2; k++) {
		struct ep *e = k ? &c->sep : &c->cep;

		if (e->fd < 0)
			continue;
		if (rst)
			setsockopt(e->fd, SOL_SOCKET, SO_LINGER, &lg,
				   sizeof(lg));
		epoll_ctl(P.epfd, EPOLL_CTL_DEL, e->fd, NULL);
		close(e->fd);
		e->fd = -1;
	}
	free_dir(&c->d[UP]);
	free_dir(&c->d[DOWN]);
	if (c->prev)
		c->prev->next = c->next;
	else
		P.conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	P.nconns--;
	/* epoll may still hand us this conn's events in the current batch */
	c->dead = true;
	c->next = P.dead;
	P.dead = c;
}

static void free_dead(void)
{
	while (P.dead) {
		struct conn *c = P.dead;

		P.dead = c->next;
		free(c);
	}
}

/* the fd data of direction k is read from / written to */
static int from_fd(struct conn *c, int k)
{
	return k == UP ? c->cep.fd : c->sep.fd;
}

static int to_fd(struct conn *c, int k)
{
	return k == UP ? c->sep.fd : c->cep.fd;
}

/* what each side should be polled for, from the state of both directions */
static void conn_interest(struct conn *c)
{
	uint32_t ce = 0, se = 0;

	/* read while the direction fed by this side has room */
	if (!c->d[UP].eof && c->d[UP].queued < P.buffer)
		ce |= EPOLLIN;
	if (!c->connecting && !c->d[DOWN].eof && c->d[DOWN].queued < P.buffer)
		se |= EPOLLIN;
	/* write interest when a direction is blocked on its receiver */
	if (c->connecting || c->d[UP].blocked)
		se |= EPOLLOUT;
	if (c->d[DOWN].blocked)
		ce |= EPOLLOUT;
	ep_set(&c->cep, ce);
	ep_set(&c->sep, se);
}

/*
 * Write what is due in direction k.  Returns -1 when the connection broke
 * (the caller closes it), else 0.
 */
static int flush_dir(struct conn *c, int k, uint64_t now)
{
	struct dir *d = &c->d[k];

	if (c->connecting || P.stalled[k])
		return 0;
	while (d->head && d->head->due <= now) {
		struct chunk *ch = d->head;
		ssize_t n = send(to_fd(c, k), ch->data + ch->off,
				 ch->len - ch->off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				d->blocked = true;
				return 0;
			}
			if (errno == EINTR)
				continue;
			return -1;
		}
		ch->off += (size_t)n;
		P.bytes[k] += (uint64_t)n;
		if (ch->off < ch->len) {
			d->blocked = true;
			return 0;
		}
		d->head = ch->next;
		if (!d->head)
			d->tail = NULL;
		d->queued -= ch->len;
		free(ch);
	}
	d->blocked = false;
	if (!d->head && d->eof && !d->shut) {
		/* pass the sender's shutdown on once its data is out */
		shutdown(to_fd(c, k), SHUT_WR);
		d->shut = true;
	}
	return 0;
}

/*
 * Read what 'from' has for direction k into timed chunks; -1: broken.
 * all: read past --buffer (the sender is gone, what it sent is bounded by
 * its socket buffer).
 */
static int fill_dir(struct conn *c, int k, uint64_t now, bool all)
{
	struct dir *d = &c->d[k];

	while (!d->eof && (all || d->queued < P.buffer)) {
		char buf[CHUNK_MAX];
		ssize_t n = recv(from_fd(c, k), buf, sizeof(buf),
				 MSG_DONTWAIT);
		struct chunk *ch;
		int64_t delay;

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			d->eof = true;
			return 0;
		}
		ch = malloc(sizeof(*ch) + (size_t)n);
		if (!ch)
			return -1;
		memcpy(ch->data, buf, (size_t)n);
		ch->len = (size_t)n;
		ch->off = 0;
		ch->next = NULL;
		delay = (int64_t)P.delay[k];
		if (P.jitter[k]) {
			/* uniform in [-jitter, +jitter] */
			delay += (int64_t)(rnd() % (2 * P.jitter[k] + 1)) -
				 (int64_t)P.jitter[k];
			if (delay < 0)
				delay = 0;
		}
		ch->due = now + (uint64_t)delay;
		if (ch->due < d->last_due)
			ch->due = d->last_due;	/* never overtake */
		d->last_due = ch->due;
		if (d->tail)
			d->tail->next = ch;
		else
			d->head = ch;
		d->tail = ch;
		d->queued += (size_t)n;
		if (d->queued > P.max_queued[k])
			P.max_queued[k] = d->queued;
		P.chunks[k]++;
	}
	return 0;
}

static bool conn_done(const struct conn *c)
{
	return c->d[UP].shut && c->d[DOWN].shut;
}

static void on_accept(struct fwd *f)
{
	for (;;) {
		int cfd = accept4(f->ep.fd, NULL, NULL,
				  SOCK_NONBLOCK | SOCK_CLOEXEC), sfd, one = 1;
		struct conn *c;

		if (cfd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED)
				logmsg("accept on %s: %s", f->listen_spec,
				       strerror(errno));
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		if (P.nconns >= P.max_conns) {
			struct linger lg = { 1, 0 };

			setsockopt(cfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
			close(cfd);
			P.refused++;
			logmsg("refused a connection: %d open (--max-conns)",
			       P.nconns);
			continue;
		}
		sfd = socket(f->target.ss_family,
			     SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (sfd < 0) {
			close(cfd);
			P.failed++;
			continue;
		}
		setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(cfd);
			close(sfd);
			P.failed++;
			continue;
		}
		c->id = ++P.next_id;
		c->cep = (struct ep){ .kind = EP_CLIENT, .ptr = c, .fd = cfd };
		c->sep = (struct ep){ .kind = EP_SERVER, .ptr = c, .fd = sfd };
		c->next = P.conns;
		if (P.conns)
			P.conns->prev = c;
		P.conns = c;
		P.nconns++;
		P.accepted++;
		ep_add(&c->cep, 0);
		ep_add(&c->sep, 0);
		if (connect(sfd, (struct sockaddr *)&f->target,
			    f->target_len) < 0) {
			if (errno != EINPROGRESS) {
				logmsg("connect to %s: %s", f->target_spec,
				       strerror(errno));
				P.failed++;
				conn_close(c, true);
				continue;
			}
			c->connecting = true;
		}
		conn_interest(c);
	}
}

/*
 * One side's peer closed both directions (EPOLLHUP, reported even when
 * not asked for): what it sent still goes out, what was queued for it
 * cannot, and it is no longer polled.
 */
static void side_gone(struct conn *c, bool server_side)
{
	struct ep *e = server_side ? &c->sep : &c->cep;
	struct dir *toward = &c->d[server_side ? UP : DOWN];

	epoll_ctl(P.epfd, EPOLL_CTL_DEL, e->fd, NULL);
	e->gone = true;
	c->d[server_side ? DOWN : UP].eof = true;
	free_dir(toward);
	toward->eof = toward->shut = true;
	toward->blocked = false;
}

static void on_conn(struct conn *c, bool server_side, uint32_t ev)
{
	uint64_t now = now_ns();
	int err = 0;
	socklen_t el = sizeof(err);

	if (server_side && c->connecting && (ev & (EPOLLOUT | EPOLLERR |
						     EPOLLHUP))) {
		getsockopt(c->sep.fd, SOL_SOCKET, SO_ERROR, &err, &el);
		if (err) {
			P.failed++;
			conn_close(c, true);
			return;
		}
		c->connecting = false;
	}
	if (ev & EPOLLERR) {
		/* a reset (or worse): pass it on */
		conn_close(c, true);
		return;
	}
	if (ev & (EPOLLIN | EPOLLHUP)) {
		if (fill_dir(c, server_side ? DOWN : UP, now,
			     ev & EPOLLHUP) < 0) {
			conn_close(c, true);
			return;
		}
	}
	if (ev & EPOLLHUP)
		side_gone(c, server_side);
	/* EPOLLOUT or fresh data: write what is due in both directions */
	if (flush_dir(c, UP, now) < 0 || flush_dir(c, DOWN, now) < 0) {
		conn_close(c, true);
		return;
	}
	if (conn_done(c)) {
		conn_close(c, false);
		return;
	}
	conn_interest(c);
}

/* ---- time -------------------------------------------------------------------- */

/* flush everything due, then arm the timer for the next due chunk */
static void service_timers(void)
{
	uint64_t now = now_ns(), next = P.deadline;
	struct conn *c, *nx;

	for (c = P.conns; c; c = nx) {
		nx = c->next;
		for (int k = 0; k < 2; k++) {
			struct dir *d = &c->d[k];

			if (d->head && d->head->due <= now && !d->blocked &&
			    !P.stalled[k] && !c->connecting) {
				if (flush_dir(c, k, now) < 0) {
					conn_close(c, true);
					goto next_conn;
				}
			}
		}
		if (conn_done(c)) {
			conn_close(c, false);
			continue;
		}
		conn_interest(c);
		for (int k = 0; k < 2; k++) {
			struct dir *d = &c->d[k];

			if (d->head && !d->blocked && !P.stalled[k] &&
			    !c->connecting && (!next || d->head->due < next))
				next = d->head->due;
		}
next_conn:;
	}
	if (next == P.armed)
		return;
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	if (next) {
		its.it_value.tv_sec = (time_t)(next / 1000000000ull);
		its.it_value.tv_nsec = (long)(next % 1000000000ull);
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
	}
	if (timerfd_settime(P.tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		die(EXIT_SETUP, "timerfd_settime: %s", strerror(errno));
	P.armed = next;
}

/* ---- control ------------------------------------------------------------------- */

static void print_stats(void)
{
	fprintf(stderr, "dtproxy[%d]: stats conns %d open, %llu accepted, "
		"%llu refused, %llu failed, %llu dropped; up %llu B in %llu "
		"chunks (max held %zu), down %llu B in %llu chunks (max held "
		"%zu); delay up %.3f ms +- %.3f, down %.3f ms +- %.3f; "
		"stalled up %d down %d\n", (int)getpid(), P.nconns,
		(unsigned long long)P.accepted, (unsigned long long)P.refused,
		(unsigned long long)P.failed, (unsigned long long)P.dropped,
		(unsigned long long)P.bytes[UP],
		(unsigned long long)P.chunks[UP], P.max_queued[UP],
		(unsigned long long)P.bytes[DOWN],
		(unsigned long long)P.chunks[DOWN], P.max_queued[DOWN],
		(double)P.delay[UP] / 1e6, (double)P.jitter[UP] / 1e6,
		(double)P.delay[DOWN] / 1e6, (double)P.jitter[DOWN] / 1e6,
		P.stalled[UP], P.stalled[DOWN]);
}

static void drop_all(void)
{
	int n = 0;

	while (P.conns) {
		conn_close(P.conns, true);
		n++;
	}
	P.dropped += (uint64_t)n;
	logmsg("dropped %d connection%s", n, n == 1 ? "" : "s");
}

/* which directions "up", "down", "both" or "" (= both) name; -1 bad */
static int parse_dirs(const char *w, bool out[2])
{
	out[UP] = out[DOWN] = false;
	if (!w || !*w || !strcmp(w, "both")) {
		out[UP] = out[DOWN] = true;
	} else if (!strcmp(w, "up")) {
		out[UP] = true;
	} else if (!strcmp(w, "down")) {
		out[DOWN] = true;
	} else {
		return -1;
	}
	return 0;
}

static void command(char *line)
{
	char *save = NULL, *cmd = strtok_r(line, " \t\r", &save);
	char *a1 = strtok_r(NULL, " \t\r", &save);
	char *a2 = strtok_r(NULL, " \t\r", &save);
	bool dirs[2];

	if (!cmd)
		return;
	if (!strcmp(cmd, "stall") || !strcmp(cmd, "resume")) {
		bool on = !strcmp(cmd, "stall");

		if (parse_dirs(a1, dirs) < 0)
			goto bad;
		for (int k = 0; k < 2; k++)
			if (dirs[k])
				P.stalled[k] = on;
		logmsg("%s %s", cmd, a1 ? a1 : "both");
	} else if (!strcmp(cmd, "drop")) {
		drop_all();
	} else if (!strcmp(cmd, "delay") || !strcmp(cmd, "jitter")) {
		int64_t ns;

		/* "delay MS" = both */
		if (a1 && !a2) {
			a2 = a1;
			a1 = "both";
		}
		if (!a2 || parse_dirs(a1, dirs) < 0 || (ns = parse_ms(a2)) < 0)
			goto bad;
		for (int k = 0; k < 2; k++)
			if (dirs[k])
				(cmd[0] == 'd' ? P.delay : P.jitter)[k] =
					(uint64_t)ns;
		logmsg("%s %s %.3f ms", cmd, a1, (double)ns / 1e6);
	} else if (!strcmp(cmd, "stats")) {
		print_stats();
	} else if (!strcmp(cmd, "quit")) {
		P.quit = true;
	} else {
		goto bad;
	}
	return;
bad:
	logmsg("control: bad command '%s%s%s%s%s' (stall|resume [up|down], "
	       "drop, delay|jitter [up|down|both] MS, stats, quit)", cmd,
	       a1 ? " " : "", a1 ? a1 : "", a2 ? " " : "", a2 ? a2 : "");
}

static void on_ctl(void)
{
	char buf[512];
	ssize_t n;

	while ((n = read(P.ctlfd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				P.ctl_buf[P.ctl_len] = 0;
				command(P.ctl_buf);
				P.ctl_len = 0;
			} else if (P.ctl_len + 1 < sizeof(P.ctl_buf)) {
				P.ctl_buf[P.ctl_len++] = buf[i];
			}
		}
	}
}

static void on_signal(void)
{
	struct signalfd_siginfo si;

	while (read(P.sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGUSR1:
			P.stalled[UP] = P.stalled[DOWN] = true;
			logmsg("stall both (SIGUSR1)");
			break;
		case SIGUSR2:
			P.stalled[UP] = P.stalled[DOWN] = false;
			logmsg("resume both (SIGUSR2)");
			break;
		case SIGHUP:
			drop_all();
			break;
		default:
			logmsg("signal %d: exiting", (int)si.ssi_signo);
			P.quit = true;
			break;
		}
	}
}

/* ---- set-up ---------------------------------------------------------------------- */

static void listen_on(struct fwd *f)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	if (parse_addr(f->listen_spec, &ss, &len, true) < 0)
		die(EXIT_USAGE, "--forward: bad listen address '%s'",
		    f->listen_spec);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		die(EXIT_SETUP, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0)
		die(EXIT_SETUP, "bind %s: %s", f->listen_spec, strerror(errno));
	if (listen(fd, 128) < 0)
		die(EXIT_SETUP, "listen %s: %s", f->listen_spec,
		    strerror(errno));
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	f->port = ntohs(ss.ss_family == AF_INET6
				? ((struct sockaddr_in6 *)&ss)->sin6_port
				: ((struct sockaddr_in *)&ss)->sin_port);
	f->ep = (struct ep){ .kind = EP_LISTEN, .ptr = f, .fd = fd };
	ep_add(&f->ep, EPOLLIN);
}

static void write_file_atomic(const char *path, const char *text)
{
	char tmp[4096];
	FILE *fp;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path,
			     (int)getpid()) >= sizeof(tmp))
		die(EXIT_USAGE, "path too long: %s", path);
	fp = fopen(tmp, "we");
	if (!fp || fputs(text, fp) == EOF || fclose(fp) == EOF)
		die(EXIT_SETUP, "write %s: %s", tmp, strerror(errno));
	if (rename(tmp, path) < 0)
		die(EXIT_SETUP, "rename %s: %s", tmp, strerror(errno));
}

static void setup_ctl(void)
{
	struct stat st;

	if (mkfifo(P.ctl_path, 0600) == 0) {
		P.ctl_created = true;
	} else if (errno != EEXIST || stat(P.ctl_path, &st) < 0 ||
		   !S_ISFIFO(st.st_mode)) {
		die(EXIT_SETUP, "--control %s: %s", P.ctl_path,
		    errno == EEXIST ? "exists and is not a FIFO"
				    : strerror(errno));
	}
	/* O_RDWR: we hold a writer ourselves, so no EOF between commands */
	P.ctlfd = open(P.ctl_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (P.ctlfd < 0)
		die(EXIT_SETUP, "open %s: %s", P.ctl_path, strerror(errno));
	P.cep = (struct ep){ .kind = EP_CTL, .ptr = NULL, .fd = P.ctlfd };
	ep_add(&P.cep, EPOLLIN);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: dtproxy --forward LISTEN=TARGET [--forward ...] [options]\n"
"  -f, --forward A:P=B:Q  listen on A:P (port 0: any free port), forward\n"
"                         every connection to B:Q\n"
"  -d, --delay MS         one-way delay, both directions (fractional ms)\n"
"      --delay-up MS      client -> server delay\n"
"      --delay-down MS    server -> client delay\n"
"  -j, --jitter MS        uniform +-MS around the delay (order is kept)\n"
"      --jitter-up MS, --jitter-down MS\n"
"  -c, --control FIFO     command FIFO (created; removed at exit):\n"
"                         stall|resume [up|down], drop,\n"
"                         delay|jitter [up|down|both] MS, stats, quit\n"
"      --port-file FILE   write the bound port(s), one a line, once ready\n"
"      --pidfile FILE     write our pid\n"
"  -l, --lifetime S       exit after S seconds (0: run until told)\n"
"      --max-conns N      connections at once (default 256)\n"
"      --buffer BYTES     bytes held per direction (default 1048576)\n"
"      --seed N           jitter PRNG seed\n"
"  -q, --quiet            no log lines on stderr\n"
"signals: USR1 stall, USR2 resume, HUP drop, TERM/INT quit\n"
"exit: 0 quit/signal/lifetime, 1 set-up failed, 64 usage\n");
}

static int64_t need_ms(const char *opt, const char *arg)
{
	int64_t v = parse_ms(arg);

	if (v < 0)
		die(EXIT_USAGE, "%s '%s': want milliseconds in 0..600000",
		    opt, arg);
	return v;
}

static long need_long(const char *opt, const char *arg, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi)
		die(EXIT_USAGE, "%s '%s': want an integer in %ld..%ld", opt,
		    arg, lo, hi);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "forward", required_argument, NULL, 'f' },
		{ "delay", required_argument, NULL, 'd' },
		{ "delay-up", required_argument, NULL, 1 },
		{ "delay-down", required_argument, NULL, 2 },
		{ "jitter", required_argument, NULL, 'j' },
		{ "jitter-up", required_argument, NULL, 3 },
		{ "jitter-down", required_argument, NULL, 4 },
		{ "control", required_argument, NULL, 'c' },
		{ "port-file", required_argument, NULL, 5 },
		{ "pidfile", required_argument, NULL, 6 },
		{ "lifetime", required_argument, NULL, 'l' },
		{ "max-conns", required_argument, NULL, 7 },
		{ "buffer", required_argument, NULL, 8 },
		{ "seed", required_argument, NULL, 9 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		/* harness compatibility: a tool, not a test (see below) */
		{ "list", no_argument, NULL, 10 },
		{ "target", required_argument, NULL, 11 },
		{ 0 }
	};
	double lifetime = 0;
	sigset_t ss;
	int opt;

	P.max_conns = 256;
	P.buffer = 1 << 20;
	P.rng = (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32);
	while ((opt = getopt_long(argc, argv, "f:d:j:c:l:qh", lo, NULL)) !=
	       -1) {
		switch (opt) {
		case 'f': {
			struct fwd *f = &P.fwd[P.nfwd];
			char *eq = strchr(optarg, '=');

			if (P.nfwd >= MAX_FORWARDS)
				die(EXIT_USAGE, "at most %d --forward",
				    MAX_FORWARDS);
			if (!eq || (size_t)(eq - optarg) >=
					   sizeof(f->listen_spec) ||
			    strlen(eq + 1) >= sizeof(f->target_spec))
				die(EXIT_USAGE, "--forward '%s': want "
				    "LISTEN_ADDR:PORT=TARGET_ADDR:PORT", optarg);
			snprintf(f->listen_spec, sizeof(f->listen_spec), "%.*s",
				 (int)(eq - optarg), optarg);
			snprintf(f->target_spec, sizeof(f->target_spec), "%s",
				 eq + 1);
			if (parse_addr(f->target_spec, &f->target,
				       &f->target_len, false) < 0)
				die(EXIT_USAGE, "--forward: bad target '%s' "
				    "(numeric ADDR:PORT)", f->target_spec);
			P.nfwd++;
			break;
		}
		case 'd':
			P.delay[UP] = P.delay[DOWN] =
				(uint64_t)need_ms("--delay", optarg);
			break;
		case 1:
			P.delay[UP] = (uint64_t)need_ms("--delay-up", optarg);
			break;
		case 2:
			P.delay[DOWN] = (uint64_t)need_ms("--delay-down", optarg);
			break;
		case 'j':
			P.jitter[UP] = P.jitter[DOWN] =
				(uint64_t)need_ms("--jitter", optarg);
			break;
		case 3:
			P.jitter[UP] = (uint64_t)need_ms("--jitter-up", optarg);
			break;
		case 4:
			P.jitter[DOWN] =
				(uint64_t)need_ms("--jitter-down", optarg);
			break;
		case 'c': P.ctl_path = optarg; break;
		case 5: P.port_file = optarg; break;
		case 6: P.pidfile = optarg; break;
		case 'l': {
			char *end;

			errno = 0;
			lifetime = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(lifetime >= 0) || lifetime > 7 * 86400)
				die(EXIT_USAGE, "--lifetime '%s': want seconds "
				    "in 0..604800", optarg);
			break;
		}
		case 7:
			P.max_conns = (int)need_long("--max-conns", optarg, 1,
						     4096);
			break;
		case 8:
			P.buffer = (size_t)need_long("--buffer", optarg, 4096,
						     256L << 20);
			break;
		case 9:
			P.rng = (uint64_t)need_long("--seed", optarg, 0,
						    __LONG_MAX__);
			break;
		case 'q': P.quiet = true; break;
		case 'h': usage(stdout); return 0;
		case 10:
			/* listed among build/bin tests: no cases */
			return 0;
		case 11:
			printf("TAP version 13\n1..0 # SKIP dtproxy is a lab "
			       "tool, not a test\n");
			return 3;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc || !P.nfwd) {
		usage(stderr);
		return EXIT_USAGE;
	}

	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGHUP);
	sigaddset(&ss, SIGUSR1);
	sigaddset(&ss, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0)
		die(EXIT_SETUP, "sigprocmask: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	P.epfd = epoll_create1(EPOLL_CLOEXEC);
	P.sfd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
	P.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (P.epfd < 0 || P.sfd < 0 || P.tfd < 0)
		die(EXIT_SETUP, "epoll/signalfd/timerfd: %s", strerror(errno));
	P.sep = (struct ep){ .kind = EP_SIGNAL, .ptr = NULL, .fd = P.sfd };
	P.tep = (struct ep){ .kind = EP_TIMER, .ptr = NULL, .fd = P.tfd };
	ep_add(&P.sep, EPOLLIN);
	ep_add(&P.tep, EPOLLIN);
	if (P.ctl_path)
		setup_ctl();
	for (int i = 0; i < P.nfwd; i++)
		listen_on(&P.fwd[i]);
	if (lifetime > 0)
		P.deadline = now_ns() + (uint64_t)(lifetime * 1e9);
	if (P.pidfile) {
		char b[32];

		snprintf(b, sizeof(b), "%d\n", (int)getpid());
		write_file_atomic(P.pidfile, b);
	}
	if (P.port_file) {
		char b[MAX_FORWARDS * 8 + 1] = "";
		size_t n = 0;

		for (int i = 0; i < P.nfwd; i++)
			n += (size_t)snprintf(b + n, sizeof(b) - n, "%d\n",
					      P.fwd[i].port);
		write_file_atomic(P.port_file, b);
	}
	for (int i = 0; i < P.nfwd; i++)
		logmsg("%s (port %d) -> %s, delay up %.3f ms +- %.3f, down "
		       "%.3f ms +- %.3f", P.fwd[i].listen_spec, P.fwd[i].port,
		       P.fwd[i].target_spec, (double)P.delay[UP] / 1e6,
		       (double)P.jitter[UP] / 1e6, (double)P.delay[DOWN] / 1e6,
		       (double)P.jitter[DOWN] / 1e6);
	service_timers();

	while (!P.quit) {
		struct epoll_event ev[64];
		int n = epoll_wait(P.epfd, ev, 64, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_SETUP, "epoll_wait: %s", strerror(errno));
		}
		/*
		 * A connection closed by one event may still have an event
		 * later in this batch: it stays allocated (dead) until the
		 * batch is done.
		 */
		for (int i = 0; i < n && !P.quit; i++) {
			struct ep *e = ev[i].data.ptr;
			uint64_t x;

			switch (e->kind) {
			case EP_LISTEN:
				on_accept(e->ptr);
				break;
			case EP_CLIENT:
			case EP_SERVER: {
				struct conn *c = e->ptr;

				if (!c->dead && !e->gone)
					on_conn(c, e->kind == EP_SERVER,
						ev[i].events);
				break;
			}
			case EP_TIMER:
				while (read(P.tfd, &x, sizeof(x)) > 0)
					;
				P.armed = 0;	/* fired: re-arm below */
				break;
			case EP_SIGNAL:
				on_signal();
				break;
			case EP_CTL:
				on_ctl();
				break;
			}
		}
		if (P.deadline && now_ns() >= P.deadline) {
			logmsg("lifetime of %.1f s over: exiting", lifetime);
			break;
		}
		service_timers();
		free_dead();
	}

	if (!P.quiet)
		print_stats();
	while (P.conns)
		conn_close(P.conns, false);
	free_dead();
	for (int i = 0; i < P.nfwd; i++)
		close(P.fwd[i].ep.fd);
	if (P.ctl_created)
		unlink(P.ctl_path);
	if (P.ctlfd >= 0)
		close(P.ctlfd);
	if (P.port_file)
		unlink(P.port_file);
	if (P.pidfile)
		unlink(P.pidfile);
	close(P.tfd);
	close(P.sfd);
	close(P.epfd);
	return 0;
}
