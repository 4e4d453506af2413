// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Client side of the coordination protocol (lib/coord/coord.x): join a run, meet
 * at barriers, estimate the clock offset, exchange values.
 *
 * Transport: one TCP connection per struct dt_coord, made with our own
 * socket (connect timeout, IPv4/IPv6, TCP_NODELAY) and handed to libtirpc's
 * clnt_vc_create(); no rpcbind.  Calls block SIGPIPE in the calling thread
 * so that a vanished coordinator is an error return, not a dead test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "coord/coord.h"
#include "coord_prot.h"

_Static_assert(DT_COORD_VALUE_LIMIT == DT_COORD_VALUE_MAX, "value limit");
_Static_assert(DT_COORD_HOSTS_LIMIT == DT_COORD_HOSTS_MAX, "hosts limit");
_Static_assert(DT_COORD_STR_LIMIT == DT_COORD_NAME_MAX, "name limit");
_Static_assert(DT_COORD_TOKEN_LIMIT == DT_COORD_TOKEN_MAX, "token limit");

#define CONNECT_TIMEOUT_MS	10000
#define CALL_TIMEOUT_S		30	/* everything but BARRIER */
#define CLOCK_ROUNDS		16
#define OFFSET_MAX_AGE_NS	(30 * NSEC)	/* re-measure before a barrier */
#define SPIN_DEFAULT_NS		(1000 * 1000)	/* see spin_until() */
#define NSEC			1000000000LL
#define ERR_LEN			(DT_COORD_MSG_MAX + 512)

struct dt_coord {
	pthread_mutex_t lock;
	CLIENT *clnt;
	char addr[DT_COORD_STR_LIMIT + 1];
	char token[DT_COORD_TOKEN_LIMIT + 1];
	struct dt_coord_info info;
	uint64_t gen;			/* barriers passed */
	int64_t offset_ns;		/* coordinator - local */
	uint64_t unc_ns;
	uint64_t rtt_ns;		/* best round trip seen */
	int64_t offset_at;		/* CLOCK_MONOTONIC of the estimate */
	int64_t spin_ns;		/* see spin_until() */
	int rt;				/* 1: wait at SCHED_FIFO (rt_raise) */
	uint32_t *late;			/* this host's wake lateness, ns */
	size_t nlate;
	dt_coord_wake prev;		/* report owed on the last barrier */
	uint64_t members;		/* hosts of the case; 0: every host */
	char name[DT_COORD_STR_LIMIT + 1];	/* the host name it joined as */
	char err[ERR_LEN];
};

static _Thread_local char join_err[ERR_LEN];

static int64_t rt_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

/*
 * Wait until CLOCK_REALTIME >= t.  Sleep (absolute time) until spin_ns
 * before t, then spin reading the clock, yielding the CPU between reads:
 * the final approach is a busy loop, but one that lets a host's other
 * runnable tasks (say, another test process still reading its release on
 * an oversubscribed lab machine) have the CPU.  spin_ns < 0: spin the whole
 * wait.  Returns the time seen.
 */
static int64_t spin_until(int64_t t, int64_t spin_ns)
{
	int64_t now = rt_ns();

	if (spin_ns >= 0 && t - now > spin_ns) {
		struct timespec ts = { .tv_sec = (t - spin_ns) / NSEC,
				       .tv_nsec = (t - spin_ns) % NSEC };

		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
	}
	while ((now = rt_ns()) < t)
		sched_yield();
	return now;
}

/*
 * The last stretch of a barrier wait at real-time priority.  On a host
 * whose test workers keep every core busy, a waiter of normal priority
 * wakes when the scheduler gets to it, and the timer of its sleep has
 * 50 us of slack besides: the hosts' start skew is then the scheduler's
 * latency under load (p99 ~1 ms measured here).  At SCHED_FIFO the waiter
 * preempts its own workers the instant its timer fires (an RT timer has
 * no slack) and its spin yields only to other waiters.  The spin stays
 * real-time only for a wait shorter than RT_WAIT_MAX_NS, so a wrong clock
 * offset cannot make it hog a CPU; needs CAP_SYS_NICE (root), else the
 * wait stays as it was and dt_coord_wake_stats() says so.  DT_COORD_RT=0
 * turns it off.
 */
#define RT_WAIT_MAX_NS	(100 * 1000 * 1000)

static bool rt_raise(struct dt_coord *c, int *policy, struct sched_param *old)
{
	struct sched_param fifo = { .sched_priority = 1 };

	if (c->rt <= 0)
		return false;
	if (pthread_getschedparam(pthread_self(), policy, old) ||
	    *policy != SCHED_OTHER)
		return false;	/* already real-time: the caller's choice */
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo)) {
		c->rt = 0;	/* not permitted: do not try again */
		return false;
	}
	return true;
}

static void rt_lower(int policy, const struct sched_param *old)
{
	pthread_setschedparam(pthread_self(), policy, old);
}

/* keep a host's lateness samples (woke - release), the first LATE_MAX */
#define LATE_MAX	65536

static void late_record(struct dt_coord *c, int64_t late_ns)
{
	if (!c->late)
		c->late = calloc(LATE_MAX, sizeof(*c->late));
	if (!c->late || c->nlate >= LATE_MAX)
		return;
	if (late_ns < 0)
		late_ns = 0;
	c->late[c->nlate++] = late_ns > UINT32_MAX ? UINT32_MAX
						   : (uint32_t)late_ns;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int dt_coord_wake_stats(struct dt_coord *c, struct dt_coord_wake_stats *w)
{
	uint32_t *v;
	size_t n;

	if (!c || !w)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	pthread_mutex_lock(&c->lock);
	w->rt = c->rt > 0;
	w->offset_ns = c->offset_ns;
	w->unc_ns = c->unc_ns;
	n = c->nlate;
	v = n ? malloc(n * sizeof(*v)) : NULL;
	if (v)
		memcpy(v, c->late, n * sizeof(*v));
	pthread_mutex_unlock(&c->lock);
	if (!n)
		return 0;
	if (!v)
		return -ENOMEM;
	qsort(v, n, sizeof(*v), cmp_u32);
	w->barriers = (unsigned int)n;
	w->p50_ns = v[(n - 1) / 2];
	w->p99_ns = v[(n - 1) * 99 / 100];
	w->max_ns = v[n - 1];
	free(v);
	return 0;
}

__attribute__((format(printf, 3, 4)))
static int seterr(char *buf, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, ERR_LEN, fmt, ap);	/* all error buffers: ERR_LEN */
	va_end(ap);
	return rc;
}

static int status_errno(dt_coord_status st)
{
	switch (st) {
	case DT_COORD_OK:	return 0;
	case DT_COORD_DENIED:	return -EACCES;
	case DT_COORD_TIMEOUT:	return -ETIMEDOUT;
	case DT_COORD_INVAL:	return -EINVAL;
	case DT_COORD_FULL:	return -ENOSPC;
	case DT_COORD_TOOBIG:	return -EMSGSIZE;
	case DT_COORD_MISMATCH:	return -EPROTO;
	case DT_COORD_GONE:	return -ECONNRESET;
	case DT_COORD_EXISTS:	return -EEXIST;
	}
	return -EPROTO;
}

static const char *status_name(dt_coord_status st)
{
	static const char *const n[] = {
		"OK", "DENIED", "TIMEOUT", "INVAL", "FULL", "TOOBIG",
		"MISMATCH", "GONE", "EXISTS"
	};

	return (unsigned int)st < sizeof(n) / sizeof(n[0]) ? n[st] : "?";
}

/*
 * One RPC.  SIGPIPE is blocked in this thread for the call; a SIGPIPE the
 * call raised is consumed so it is not delivered later.
 */
static int call(CLIENT *clnt, const char *addr, char *err, u_long proc,
		const char *what, xdrproc_t xa, void *a, xdrproc_t xr,
		void *r, long timeout_s)
{
	struct timeval tv = { .tv_sec = timeout_s, .tv_usec = 0 };
	sigset_t pipe_set, old, pend;
	bool was_pending;
	enum clnt_stat st;
	struct rpc_err re;
	int rc;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pend);
	was_pending = sigismember(&pend, SIGPIPE);
	st = clnt_call(clnt, proc, xa, a, xr, r, tv);
	if (!was_pending) {
		sigpending(&pend);
		if (sigismember(&pend, SIGPIPE)) {
			struct timespec zero = { 0, 0 };

			sigtimedwait(&pipe_set, NULL, &zero);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (st == RPC_SUCCESS)
		return 0;
	clnt_geterr(clnt, &re);
	switch (st) {
	case RPC_TIMEDOUT:
		rc = -ETIMEDOUT;
		break;
	case RPC_CANTSEND:
	case RPC_CANTRECV:
		rc = re.re_errno > 0 ? -re.re_errno : -ECONNRESET;
		break;
	case RPC_CANTENCODEARGS:
		rc = -EINVAL;
		break;
	case RPC_CANTDECODERES:
	case RPC_CANTDECODEARGS:
		rc = -EPROTO;
		break;
	case RPC_PROGUNAVAIL:
	case RPC_PROGVERSMISMATCH:
	case RPC_PROCUNAVAIL:
	case RPC_VERSMISMATCH:
		rc = -EPROTONOSUPPORT;
		break;
	default:
		rc = -EIO;
	}
	return seterr(err, rc, "%s: RPC to coordinator %s failed: %s%s%s",
		      what, addr, clnt_sperrno(st),
		      re.re_errno > 0 && (st == RPC_CANTSEND ||
					  st == RPC_CANTRECV) ? ": " : "",
		      re.re_errno > 0 && (st == RPC_CANTSEND ||
					  st == RPC_CANTRECV) ?
		      strerror(re.re_errno) : "");
}

/* connect with a timeout; returns a blocking connected fd or -errno */
static int tcp_connect(const struct addrinfo *ai)
{
	struct pollfd pf;
	socklen_t sl;
	int fd, rc, soerr = 0, one = 1, fl;

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
	if (rc < 0 && errno != EINPROGRESS) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (rc < 0) {
		pf.fd = fd;
		pf.events = POLLOUT;
		do {
			rc = poll(&pf, 1, CONNECT_TIMEOUT_MS);
		} while (rc < 0 && errno == EINTR);
		if (rc == 0) {
			close(fd);
			return -ETIMEDOUT;
		}
		sl = sizeof(soerr);
		if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr,
					 &sl) || soerr) {
			rc = soerr ? -soerr : -errno;
			close(fd);
			return rc;
		}
	}
	fcntl(fd, F_SETFL, fl);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int open_client(const char *addr_port, CLIENT **out, char *err)
{
	char host[256], port[32];
	struct addrinfo hints, *res, *ai;
	int fd = -ENOENT, rc;
	CLIENT *clnt = NULL;

	if (dt_coord_split_addr(addr_port, host, sizeof(host), port, sizeof(port)))
		return seterr(err, -EINVAL, "coordinator address '%s': "
			      "expected HOST:PORT or [ADDR6]:PORT", addr_port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc)
		return seterr(err, -EHOSTUNREACH, "coordinator address '%s': "
			      "%s", addr_port, gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		struct netbuf nb;

		fd = tcp_connect(ai);
		if (fd < 0)
			continue;
		nb.buf = ai->ai_addr;
		nb.len = nb.maxlen = ai->ai_addrlen;
		clnt = clnt_vc_create(fd, &nb, DT_COORD_PROG, DT_COORD_V1, 0,
				      0);
		if (clnt)
			break;
		close(fd);
		fd = -ECONNREFUSED;
	}
	freeaddrinfo(res);
	if (!clnt)
		return seterr(err, fd < 0 ? fd : -EIO, "connect to coordinator "
			      "%s: %s", addr_port,
			      strerror(fd < 0 ? -fd : EIO));
	clnt_control(clnt, CLSET_FD_CLOSE, NULL);
	*out = clnt;
	return 0;
}

/* best of CLOCK_ROUNDS round trips */
static int measure_offset(CLIENT *clnt, const char *addr, const char *token,
			  char *err, int64_t *off, uint64_t *unc,
			  uint64_t *rtt)
{
	dt_coord_clock_args a = { .token = (char *)token };
	uint64_t best = UINT64_MAX;
	int64_t best_off = 0;
	int i, rc;

	for (i = 0; i < CLOCK_ROUNDS; i++) {
		dt_coord_clock_res r;
		int64_t t0, t1;

		memset(&r, 0, sizeof(r));
		t0 = rt_ns();
		rc = call(clnt, addr, err, DT_COORD_CLOCK, "CLOCK",
			  (xdrproc_t)xdr_dt_coord_clock_args, &a,
			  (xdrproc_t)xdr_dt_coord_clock_res, &r,
			  CALL_TIMEOUT_S);
		t1 = rt_ns();
		if (rc)
			return rc;
		if (r.status != DT_COORD_OK)
			return seterr(err, status_errno(r.status), "CLOCK at "
				      "coordinator %s: %s", addr,
				      status_name(r.status));
		if (t1 < t0)
			continue;	/* local clock stepped: discard */
		if ((uint64_t)(t1 - t0) < best) {
			best = (uint64_t)(t1 - t0);
			best_off = r.now_ns - (t0 + (t1 - t0) / 2);
		}
	}
	if (best == UINT64_MAX)
		return seterr(err, -EAGAIN, "CLOCK at coordinator %s: local "
			      "clock went backwards in every round", addr);
	*off = best_off;
	*unc = best / 2 + 1;
	*rtt = best;
	return 0;
}

static bool str_ok(const char *s, size_t max)
{
	return s && *s && strlen(s) <= max;
}

int dt_coord_join(const char *addr_port, const char *token,
		  const char *run_id, const char *test, const char *tcase,
		  const char *hostname, int threads, struct dt_coord **out,
		  struct dt_coord_info *info)
{
	dt_coord_join_args a;
	dt_coord_join_res r;
	struct dt_coord *c;
	const char *env;
	int rc;

	if (out)
		*out = NULL;
	join_err[0] = '\0';
	if (!out || !addr_port || !str_ok(token, DT_COORD_TOKEN_LIMIT) ||
	    !str_ok(run_id, DT_COORD_STR_LIMIT) ||
	    !str_ok(test, DT_COORD_STR_LIMIT) ||
	    !str_ok(tcase, DT_COORD_STR_LIMIT) ||
	    !str_ok(hostname, DT_COORD_STR_LIMIT))
		return seterr(join_err, -EINVAL, "join: address, token, run "
			      "id, test, case and host name must be given "
			      "(1..%d bytes each)", DT_COORD_STR_LIMIT);
	c = calloc(1, sizeof(*c));
	if (!c)
		return seterr(join_err, -ENOMEM, "join: out of memory");
	pthread_mutex_init(&c->lock, NULL);
	snprintf(c->addr, sizeof(c->addr), "%s", addr_port);
	snprintf(c->token, sizeof(c->token), "%s", token);
	rc = open_client(addr_port, &c->clnt, join_err);
	if (rc)
		goto fail;
	rc = measure_offset(c->clnt, c->addr, c->token, join_err,
			    &c->offset_ns, &c->unc_ns, &c->rtt_ns);
	if (rc == -EACCES)
		seterr(join_err, rc, "JOIN of host '%s' at coordinator %s: "
		       "DENIED: the coordinator refused the run token",
		       hostname, c->addr);
	if (rc)
		goto fail;
	c->offset_at = mono_ns();
	c->spin_ns = SPIN_DEFAULT_NS;
	env = getenv("DT_COORD_RT");
	c->rt = !(env && !strcmp(env, "0"));
	env = getenv("DT_COORD_SPIN_US");
	if (env && *env)
		c->spin_ns = atoll(env) < 0 ? -1 : atoll(env) * 1000;

	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.token = c->token;
	a.run_id = (char *)run_id;
	a.test = (char *)test;
	a.tcase = (char *)tcase;
	a.host = (char *)hostname;
	a.threads = threads;
	a.rtt_ns = c->rtt_ns;
	rc = call(c->clnt, c->addr, join_err, DT_COORD_JOIN, "JOIN",
		  (xdrproc_t)xdr_dt_coord_join_args, &a,
		  (xdrproc_t)xdr_dt_coord_join_res, &r, CALL_TIMEOUT_S);
	if (rc)
		goto fail;
	if (r.status != DT_COORD_OK) {
		rc = seterr(join_err, status_errno(r.status), "JOIN of host "
			    "'%s' at coordinator %s: %s: %s", hostname,
			    c->addr, status_name(r.status), r.msg);
		clnt_freeres(c->clnt, (xdrproc_t)xdr_dt_coord_join_res,
			     (caddr_t)&r);
		goto fail;
	}
	if (r.host < 0 || r.host >= DT_COORD_HOSTS_LIMIT || r.hosts < 1 ||
	    r.hosts > DT_COORD_HOSTS_LIMIT || r.host >= r.hosts) {
		rc = seterr(join_err, -EPROTO, "JOIN at coordinator %s: host "
			    "index %d of %d is out of range", c->addr, r.host,
			    r.hosts);
		clnt_freeres(c->clnt, (xdrproc_t)xdr_dt_coord_join_res,
			     (caddr_t)&r);
		goto fail;
	}
	c->info.host = r.host;
	c->info.hosts = r.hosts;
	c->info.seed = r.seed;
	snprintf(c->name, sizeof(c->name), "%s", hostname);
	snprintf(c->info.scratch, sizeof(c->info.scratch), "%s", r.scratch);
	snprintf(c->info.role, sizeof(c->info.role), "%s", r.role);
	c->info.timeout_ms = r.timeout_ms;
	clnt_freeres(c->clnt, (xdrproc_t)xdr_dt_coord_join_res, (caddr_t)&r);
	if (info)
		*info = c->info;
	*out = c;
	return 0;
fail:
	if (c->clnt)
		clnt_destroy(c->clnt);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return rc;
}

static int refresh_offset(struct dt_coord *c);
static int refresh_offset_if_old(struct dt_coord *c);

/*
 * A barrier's reply came at recv (local): wait for its release instant
 * (coordinator clock), note how late this host woke for its next report,
 * lower a raised priority.  Returns the release on the local clock.
 */
static int64_t wait_release(struct dt_coord *c, int64_t release_ns,
			    uint64_t seq, int64_t recv, bool *raised,
			    int policy, const struct sched_param *old_sp)
{
	int64_t local_release = release_ns - c->offset_ns, woke;

	if (*raised && local_release - rt_ns() > RT_WAIT_MAX_NS) {
		rt_lower(policy, old_sp);	/* an odd clock: no RT spin */
		*raised = false;
	}
	woke = spin_until(local_release, c->spin_ns);
	if (*raised) {
		rt_lower(policy, old_sp);
		*raised = false;
	}
	late_record(c, woke - local_release);
	c->prev.seq = seq;
	c->prev.recv_ns = recv + c->offset_ns;
	c->prev.woke_ns = woke + c->offset_ns;
	c->prev.unc_ns = c->unc_ns;
	return local_release;
}

int dt_coord_barrier(struct dt_coord *c, const char *name,
		     uint64_t *release_ns)
{
	dt_coord_barrier_args a;
	dt_coord_barrier_res r;
	int64_t recv, local_release;
	char what[DT_COORD_STR_LIMIT + 64];
	struct sched_param old_sp;
	bool raised = false;
	int policy = SCHED_OTHER;
	int rc;

	if (!c)
		return -EINVAL;
	if (!str_ok(name, DT_COORD_STR_LIMIT))
		return seterr(c->err, -EINVAL, "barrier: name must be 1..%d "
			      "bytes", DT_COORD_STR_LIMIT);
	pthread_mutex_lock(&c->lock);
	snprintf(what, sizeof(what), "barrier '%s' #%llu", name,
		 (unsigned long long)c->gen);
	rc = refresh_offset_if_old(c);
	if (rc)
		goto out;
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.token = c->token;
	a.host = c->info.host;
	a.name = (char *)name;
	a.gen = c->gen;
	a.rtt_ns = c->rtt_ns;
	a.prev = c->prev;
	/*
	 * Real-time from here: the reply must be read the moment it comes,
	 * or a host learns its release instant late.  The thread sleeps in
	 * poll() until then, so this costs the other tasks nothing.
	 */
	raised = rt_raise(c, &policy, &old_sp);
	/* the coordinator answers by its own deadline; wait a bit longer */
	rc = call(c->clnt, c->addr, c->err, DT_COORD_BARRIER, what,
		  (xdrproc_t)xdr_dt_coord_barrier_args, &a,
		  (xdrproc_t)xdr_dt_coord_barrier_res, &r,
		  (long)(c->info.timeout_ms / 1000) + CALL_TIMEOUT_S);
	recv = rt_ns();
	if (rc)
		goto out;
	memset(&c->prev, 0, sizeof(c->prev));	/* reported */
	if (r.status != DT_COORD_OK) {
		rc = seterr(c->err, status_errno(r.status), "%s of host %d: "
			    "%s: %s", what, c->info.host,
			    status_name(r.status), r.msg);
		clnt_freeres(c->clnt, (xdrproc_t)xdr_dt_coord_barrier_res,
			     (caddr_t)&r);
		goto out;
	}
	local_release = wait_release(c, r.release_ns, r.seq, recv, &raised,
				     policy, &old_sp);
	c->gen++;
	if (release_ns)
		*release_ns = (uint64_t)local_release;
	clnt_freeres(c->clnt, (xdrproc_t)xdr_dt_coord_barrier_res,
		     (caddr_t)&r);
out:
	if (raised)
		rt_lower(policy, &old_sp);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/* called with c->lock held */
static int refresh_offset(struct dt_coord *c)
{
	int64_t off;
	uint64_t unc, rtt;
	int rc;

	rc = measure_offset(c->clnt, c->addr, c->token, c->err, &off, &unc,
			    &rtt);
	if (rc)
		return rc;
	c->offset_ns = off;
	c->unc_ns = unc;
	c->rtt_ns = rtt;
	c->offset_at = mono_ns();
	return 0;
}

/* Barriers and case joins hand out release instants in the coordinator's
 * clock: re-measure the offset to it when the last measure is too old to
 * trust (clock drift). */
static int refresh_offset_if_old(struct dt_coord *c)
{
	if (mono_ns() - c->offset_at <= OFFSET_MAX_AGE_NS)
		return 0;
	return refresh_offset(c);
}

int dt_coord_offset(struct dt_coord *c, int64_t *offset_ns,
		    uint64_t *uncertainty_ns)
{
	int rc;

	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	rc = refresh_offset(c);
	if (!rc) {
		if (offset_ns)
			*offset_ns = c->offset_ns;
		if (uncertainty_ns)
			*uncertainty_ns = c->unc_ns;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

void dt_coord_set_spin(struct dt_coord *c, int64_t spin_ns)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->spin_ns = spin_ns < 0 ? -1 : spin_ns;
	pthread_mutex_unlock(&c->lock);
}

int64_t dt_coord_to_global(const struct dt_coord *c, uint64_t local_ns)
{
	return (int64_t)local_ns + c->offset_ns;
}

int dt_coord_post(struct dt_coord *c, const char *key, const void *buf,
		  size_t len)
{
	dt_coord_post_args a;
	dt_coord_res r;
	char what[DT_COORD_STR_LIMIT + 32];
	int rc;

	if (!c)
		return -EINVAL;
	if (!str_ok(key, DT_COORD_STR_LIMIT))
		return seterr(c->err, -EINVAL, "post: key must be 1..%d bytes",
			      DT_COORD_STR_LIMIT);
	if (len > DT_COORD_VALUE_LIMIT)
		return seterr(c->err, -EMSGSIZE, "post '%s': %zu bytes exceed "
			      "the protocol limit of %u", key, len,
			      DT_COORD_VALUE_LIMIT);
	if (len && !buf)
		return seterr(c->err, -EINVAL, "post '%s': no buffer", key);
	pthread_mutex_lock(&c->lock);
	snprintf(what, sizeof(what), "post '%s'", key);
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.token = c->token;
	a.host = c->info.host;
	a.key = (char *)key;
	a.value.value_len = (u_int)len;
	a.value.value_val = len ? (char *)buf : "";
	rc = call(c->clnt, c->addr, c->err, DT_COORD_POST, what,
		  (xdrproc_t)xdr_dt_coord_post_args, &a,
		  (xdrproc_t)xdr_dt_coord_res, &r, CALL_TIMEOUT_S);
	if (!rc) {
		if (r.status != DT_COORD_OK)
			rc = seterr(c->err, status_errno(r.status), "%s of "
				    "%zu bytes: %s: %s", what, len,
				    status_name(r.status), r.msg);
		clnt_freeres(c->clnt, (xdrproc_t)xdr_dt_coord_res,
			     (caddr_t)&r);
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int dt_coord_fetch(struct dt_coord *c, const char *key, dt_coord_fetch_fn fn,
		   void *arg)
{
	dt_coord_fetch_args a;
	dt_coord_fetch_res r;
	char what[DT_COORD_STR_LIMIT + 32];
	u_int i;
	int rc;

	if (!c)
		return -EINVAL;
	if (!str_ok(key, DT_COORD_STR_LIMIT))
		return seterr(c->err, -EINVAL, "fetch: key must be 1..%d "
			      "bytes", DT_COORD_STR_LIMIT);
	pthread_mutex_lock(&c->lock);
	snprintf(what, sizeof(what), "fetch '%s'", key);
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.token = c->token;
	a.key = (char *)key;
	rc = call(c->clnt, c->addr, c->err, DT_COORD_FETCH, what,
		  (xdrproc_t)xdr_dt_coord_fetch_args, &a,
		  (xdrproc_t)xdr_dt_coord_fetch_res, &r, CALL_TIMEOUT_S);
	if (rc)
		goto out;
	if (r.status != DT_COORD_OK) {
		rc = seterr(c->err, status_errno(r.status), "%s: %s: %s", what,
			    status_name(r.status), r.msg);
	} else {
		rc = (int)r.entries.entries_len;
		rc = 0;
		for (i = 0; i < r.entries.entries_len; i++) {
			dt_coord_entry *e = &r.entries.entries_val[i];
			int host = e->host, frc;

			/* a host out of the case: its values are old ones */
			if (c->members) {
				if (host < 0 || host >= 64 ||
				    !(c->members & (1ULL << host)))
					continue;
				host = __builtin_popcountll(
					c->members & ((1ULL << host) - 1));
			}
			rc++;
			frc = fn ? fn(arg, host, e->value.value_val,
				      e->value.value_len) : 0;
			if (frc < 0) {
				rc = frc;
				break;
			}
		}
	}
	clnt_freeres(c->clnt, (xdrproc_t)xdr_dt_coord_fetch_res, (caddr_t)&r);
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int dt_coord_skew_stats(struct dt_coord *c, struct dt_coord_skew *s)
{
	dt_coord_skew_args a;
	dt_coord_skew_res r;
	int rc;

	if (!c || !s)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.token = c->token;
	a.host = c->info.host;
	a.prev = c->prev;
	rc = call(c->clnt, c->addr, c->err, DT_COORD_SKEW, "skew",
		  (xdrproc_t)xdr_dt_coord_skew_args, &a,
		  (xdrproc_t)xdr_dt_coord_skew_res, &r, CALL_TIMEOUT_S);
	if (rc)
		goto out;
	memset(&c->prev, 0, sizeof(c->prev));
	if (r.status != DT_COORD_OK) {
		rc = seterr(c->err, status_errno(r.status), "skew: %s: %s",
			    status_name(r.status), r.msg);
	} else {
		s->barriers = r.barriers;
		s->p50_ns = r.p50_ns;
		s->p99_ns = r.p99_ns;
		s->max_ns = r.max_ns;
		s->unc_ns = r.unc_ns;
		s->late = r.late;
		s->margin_ns = r.margin_ns;
	}
	clnt_freeres(c->clnt, (xdrproc_t)xdr_dt_coord_skew_res, (caddr_t)&r);
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int dt_coord_skew(struct dt_coord *c, uint64_t *p50, uint64_t *p99,
		  uint64_t *max)
{
	struct dt_coord_skew s;
	int rc = dt_coord_skew_stats(c, &s);

	if (rc)
		return rc;
	if (p50)
		*p50 = s.p50_ns;
	if (p99)
		*p99 = s.p99_ns;
	if (max)
		*max = s.max_ns;
	return 0;
}

/*
 * What a forked child advances in its copy of the handle: the barrier
 * count, the owed wake report and the clock estimate.  The connection
 * itself is shared and sits at a message boundary between calls.
 */
struct sync_state {
	uint64_t gen;
	int64_t offset_ns;
	uint64_t unc_ns, rtt_ns;
	int64_t offset_at;
	dt_coord_wake prev;
};

size_t dt_coord_sync_size(void)
{
	return sizeof(struct sync_state);
}

int dt_coord_sync_get(struct dt_coord *c, void *buf)
{
	struct sync_state s;

	/* a call in flight on another thread: the stream is mid-call */
	if (pthread_mutex_trylock(&c->lock))
		return -EBUSY;
	s.gen = c->gen;
	s.offset_ns = c->offset_ns;
	s.unc_ns = c->unc_ns;
	s.rtt_ns = c->rtt_ns;
	s.offset_at = c->offset_at;
	s.prev = c->prev;
	pthread_mutex_unlock(&c->lock);
	memcpy(buf, &s, sizeof(s));
	return 0;
}

int dt_coord_case(struct dt_coord *c, uint64_t epoch, const char *tcase,
		  const char *ended, struct dt_coord_case_info *ci)
{
	dt_coord_case_args a;
	dt_coord_case_res r;
	char what[DT_COORD_STR_LIMIT + 64];
	struct sched_param old_sp;
	bool raised = false;
	int policy = SCHED_OTHER;
	int64_t recv;
	int rc;

	if (!c || !ci)
		return -EINVAL;
	if (!str_ok(tcase, DT_COORD_STR_LIMIT))
		return seterr(c->err, -EINVAL, "case start: name must be "
			      "1..%d bytes", DT_COORD_STR_LIMIT);
	pthread_mutex_lock(&c->lock);
	snprintf(what, sizeof(what), "start of case '%s' #%llu", tcase,
		 (unsigned long long)epoch);
	rc = refresh_offset_if_old(c);
	if (rc)
		goto out;
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.token = c->token;
	a.host = c->info.host;
	a.epoch = epoch;
	a.tcase = (char *)tcase;
	a.ended = (char *)(ended ? ended : "");
	a.prev = c->prev;
	raised = rt_raise(c, &policy, &old_sp);
	rc = call(c->clnt, c->addr, c->err, DT_COORD_CASE, what,
		  (xdrproc_t)xdr_dt_coord_case_args, &a,
		  (xdrproc_t)xdr_dt_coord_case_res, &r,
		  (long)(c->info.timeout_ms / 1000) + CALL_TIMEOUT_S);
	recv = rt_ns();
	if (rc)
		goto out;
	memset(&c->prev, 0, sizeof(c->prev));	/* reported */
	if (r.status != DT_COORD_OK || !(r.members & (1ULL << a.host))) {
		rc = seterr(c->err, r.status ? status_errno(r.status) :
			    -EPROTO, "%s of host %d: %s: %s", what,
			    c->info.host, status_name(r.status),
			    r.status ? r.msg : "not among its hosts");
		clnt_freeres(c->clnt, (xdrproc_t)xdr_dt_coord_case_res,
			     (caddr_t)&r);
		goto out;
	}
	wait_release(c, r.release_ns, r.seq, recv, &raised, policy, &old_sp);
	/* every host of the case counts its barriers from here alike */
	c->gen = r.seq;
	c->members = r.members;
	ci->members = r.members;
	ci->host = __builtin_popcountll(r.members &
					((1ULL << a.host) - 1));
	ci->hosts = __builtin_popcountll(r.members);
	snprintf(ci->dropped, sizeof(ci->dropped), "%s", r.dropped);
	clnt_freeres(c->clnt, (xdrproc_t)xdr_dt_coord_case_res, (caddr_t)&r);
out:
	if (raised)
		rt_lower(policy, &old_sp);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int dt_coord_rejoin(struct dt_coord *c, const char *ended)
{
	dt_coord_rejoin_args a;
	dt_coord_res r;
	CLIENT *fresh = NULL;
	int rc;

	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	rc = open_client(c->addr, &fresh, c->err);
	if (rc)
		goto out;
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.token = c->token;
	a.host = c->info.host;
	a.name = c->name;
	a.ended = (char *)(ended ? ended : "");
	rc = call(fresh, c->addr, c->err, DT_COORD_REJOIN, "rejoin",
		  (xdrproc_t)xdr_dt_coord_rejoin_args, &a,
		  (xdrproc_t)xdr_dt_coord_res, &r, CALL_TIMEOUT_S);
	if (rc)
		goto out;
	if (r.status != DT_COORD_OK) {
		rc = seterr(c->err, status_errno(r.status), "rejoin of host "
			    "%d: %s: %s", c->info.host,
			    status_name(r.status), r.msg);
		clnt_freeres(fresh, (xdrproc_t)xdr_dt_coord_res, (caddr_t)&r);
		goto out;
	}
	clnt_freeres(fresh, (xdrproc_t)xdr_dt_coord_res, (caddr_t)&r);
	/* the old stream may hold half a call: never read it again */
	clnt_destroy(c->clnt);
	c->clnt = fresh;
	fresh = NULL;
	memset(&c->prev, 0, sizeof(c->prev));
out:
	if (fresh)
		clnt_destroy(fresh);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

void dt_coord_sync_set(struct dt_coord *c, const void *buf)
{
	struct sync_state s;

	memcpy(&s, buf, sizeof(s));
	pthread_mutex_lock(&c->lock);
	c->gen = s.gen;
	c->offset_ns = s.offset_ns;
	c->unc_ns = s.unc_ns;
	c->rtt_ns = s.rtt_ns;
	c->offset_at = s.offset_at;
	c->prev = s.prev;
	pthread_mutex_unlock(&c->lock);
}

const struct dt_coord_info *dt_coord_info(const struct dt_coord *c)
{
	return c ? &c->info : NULL;
}

void dt_coord_leave_reason(struct dt_coord *c, const char *reason)
{
	dt_coord_leave_args a;
	dt_coord_res r;
	char msg[DT_COORD_MSG_MAX];

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	snprintf(msg, sizeof(msg), "%s", reason ? reason : "");
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.token = c->token;
	a.host = c->info.host;
	a.reason = msg;
	a.prev = c->prev;
	if (!call(c->clnt, c->addr, c->err, DT_COORD_LEAVE, "leave",
		  (xdrproc_t)xdr_dt_coord_leave_args, &a,
		  (xdrproc_t)xdr_dt_coord_res, &r, 10))
		clnt_freeres(c->clnt, (xdrproc_t)xdr_dt_coord_res,
			     (caddr_t)&r);
	clnt_destroy(c->clnt);
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_destroy(&c->lock);
	free(c->late);
	free(c);
}

void dt_coord_leave(struct dt_coord *c)
{
	dt_coord_leave_reason(c, NULL);
}

const char *dt_coord_error(const struct dt_coord *c)
{
	return c ? c->err : join_err;
}

int dt_coord_read_token(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (!path || !buf || len < 2)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
			 buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
	if (!n || (size_t)n > DT_COORD_TOKEN_LIMIT || strlen(buf) != (size_t)n)
		return -EINVAL;
	return 0;
}
