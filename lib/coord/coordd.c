// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * coordd: the coordinator of a multi-host dentrace run.
 *
 * One process, one thread, one poll() loop.  It speaks ONC RPC over TCP
 * (program DT_COORD_PROG, lib/coord/coord.x) on a single address:port and does
 * not register with rpcbind.  The RPC framing (record marking, call header,
 * reply header) is done here with libtirpc's XDR routines rather than with
 * svc_run(): a barrier is answered late, when the last host arrives, which
 * the synchronous svc dispatch cannot do without a thread per connection.
 * Owning the loop also bounds everything a peer can make us do: record size,
 * connections, stalled partial records, stored keys and bytes.
 *
 * Each connection has at most one request in progress: while a barrier
 * reply is deferred or a reply is still being written, the connection is not
 * read (a client of the protocol sends one call at a time anyway).
 *
 * Usage: coordd --hosts N --listen ADDR:PORT --token-file F [options]
 * Prints "listening ADDR:PORT" on stdout once it accepts connections and a
 * "summary: key=value ..." line when it exits.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "coord/coord.h"
#include "coord_prot.h"

#define MAX_CONNS		128
#define MAX_RECORD		(DT_COORD_VALUE_MAX + 16384)
#define STALL_NS		(30ULL * 1000000000ULL)	/* partial record */
#define FLUSH_NS		(2ULL * 1000000000ULL)	/* at exit */
#define MAX_WAKE_RECS		65536	/* barriers kept for skew stats */
#define DELIVERY_WINDOW		16	/* barriers the margin looks back */
#define MARGIN_CAP_NS		1000000000ULL
#define NSEC			1000000000ULL

enum host_state { H_FREE, H_JOINED, H_LEFT, H_DEAD };

struct conn {
	int fd;
	int host;			/* -1 until JOIN */
	char peer[INET6_ADDRSTRLEN + 8];
	uint64_t since_ns;		/* accepted (monotonic) */
	/* input: record marking, read exactly what is needed */
	uint8_t hdr[4];
	unsigned int hdr_have;
	bool in_frag, frag_last;
	uint32_t frag_left;
	uint8_t *rec;
	size_t rec_len, rec_cap;
	uint64_t partial_since;		/* monotonic ns, 0 = none */
	/* output */
	uint8_t *out;
	size_t out_len, out_off;
	bool deferred;			/* a barrier reply is owed */
	bool deferred_case;		/* ... and it is a CASE reply */
	uint32_t deferred_xid;
	bool dead;			/* close at the end of this round */
};

struct host {
	enum host_state state;
	char name[DT_COORD_NAME_MAX + 1];
	int threads;
	struct conn *conn;
	uint64_t rtt_ns;
	char why[DT_COORD_MSG_MAX];	/* leave reason or cause of death */
	/*
	 * Gave up the current case (went on to the next case start, or came
	 * back on a new connection) before its last barrier: the case's
	 * pending and later barriers fail naming it and quit_why.
	 */
	bool quit;
	char quit_why[DT_COORD_MSG_MAX];
	uint64_t epoch;			/* the last case it started */
};

struct wake_rec {
	int64_t release_ns, sent_ns;
	int64_t min_woke, max_woke;
	uint64_t mask;			/* hosts that reported */
	uint64_t need;			/* hosts that took part */
	unsigned int reports;
};

struct key {
	char name[DT_COORD_NAME_MAX + 1];
	uint8_t *val[DT_COORD_HOSTS_MAX];
	uint32_t len[DT_COORD_HOSTS_MAX];
	uint64_t set;			/* bitmask of hosts */
};

static struct {
	/* options */
	int nhosts;
	const char *listen_spec;
	char token[DT_COORD_TOKEN_MAX + 1];
	size_t token_len;
	uint64_t seed;
	uint64_t timeout_ns;		/* barrier */
	uint64_t idle_ns;
	uint64_t margin_min_ns;
	char *roles[DT_COORD_HOSTS_MAX];
	int nroles;
	char scratch_opt[DT_COORD_NAME_MAX + 1];
	unsigned int max_keys;
	uint64_t max_bytes;
	uint32_t max_value;
	bool verbose;
	const char *skew_file;

	int lfd;
	struct conn *conns[MAX_CONNS];

	/* the run */
	char run_id[DT_COORD_NAME_MAX + 1];
	char test[DT_COORD_NAME_MAX + 1];
	char tcase[DT_COORD_NAME_MAX + 1];
	char scratch[DT_COORD_NAME_MAX + 1];
	struct host hosts[DT_COORD_HOSTS_MAX];
	int joined;

	/*
	 * The case in progress (CASE calls; 0 before the first) and the
	 * hosts taking part in it: every host of the run until a case start
	 * leaves out the hosts that left, died or were dropped.
	 */
	uint64_t epoch;
	uint64_t members;

	/* the barrier in progress; pending_case: a case start (CASE) */
	bool pending;
	bool pending_case;
	uint64_t pending_epoch;
	uint64_t gen;			/* of the pending or next barrier */
	char bname[DT_COORD_NAME_MAX + 1];
	uint64_t deadline_ns;		/* monotonic */
	uint64_t arrived;		/* bitmask */
	uint32_t xid[DT_COORD_HOSTS_MAX];

	/* after a failed barrier every later barrier of the case fails the
	 * same way (a case start clears it) */
	bool failed;
	dt_coord_status fail_status;
	char fail_msg[DT_COORD_MSG_MAX];
	int fail_missing[DT_COORD_HOSTS_MAX];
	unsigned int fail_nmissing;

	/* skew */
	struct wake_rec *wake;
	size_t nwake;
	uint64_t *skews;
	size_t nskews, skews_cap;
	uint64_t unc_max;
	unsigned int late;
	int64_t delivery[DELIVERY_WINDOW];
	unsigned int ndelivery;

	/* storage */
	struct key *keys;
	unsigned int nkeys;
	uint64_t bytes;

	/* counters */
	uint64_t released, failures, posts, denied, bad;
	uint64_t last_auth_ns;		/* monotonic: idle limit */
	bool finished;
} S;

static volatile sig_atomic_t got_signal;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static int64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * (int64_t)NSEC + ts.tv_nsec;
}

__attribute__((format(printf, 1, 2)))
static void logmsg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* bad input from the network: log the first few, then only count */
#define BAD_LOG_MAX 50
static unsigned int bad_logged;

__attribute__((format(printf, 1, 2)))
static void logbad(const char *fmt, ...)
{
	va_list ap;

	if (bad_logged > BAD_LOG_MAX)
		return;
	if (bad_logged++ == BAD_LOG_MAX) {
		logmsg("further bad input is counted, not logged");
		return;
	}
	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* snprintf that appends at *pos and never overruns */
__attribute__((format(printf, 4, 5)))
static void catf(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += (size_t)n;
	if (*pos >= len)
		*pos = len;
}

/* ---- connections ---------------------------------------------------- */

/* xdr_void is declared without parameters; this one has the usual shape */
static bool_t xdr_nothing(XDR *x, void *p)
{
	(void)x;
	(void)p;
	return TRUE;
}

static void conn_mark_dead(struct conn *c, const char *why);

static int conn_flush(struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			conn_mark_dead(c, strerror(errno));
			return -errno;
		}
		c->out_off += (size_t)n;
	}
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	return 0;
}

/*
 * Queue an RPC reply.  ast != SUCCESS: an accept error without results;
 * ast == (enum accept_stat)-1: MSG_DENIED / RPC_MISMATCH.
 */
static void conn_reply(struct conn *c, uint32_t xid, int ast,
		       xdrproc_t proc, void *res)
{
	struct rpc_msg m;
	size_t size = 1024;
	uint8_t *buf;
	uint32_t mark;
	XDR x;
	u_int len;

	if (c->dead)
		return;
	memset(&m, 0, sizeof(m));
	m.rm_xid = xid;
	m.rm_direction = REPLY;
	if (ast < 0) {
		m.rm_reply.rp_stat = MSG_DENIED;
		m.rjcted_rply.rj_stat = RPC_MISMATCH;
		m.rjcted_rply.rj_vers.low = 2;
		m.rjcted_rply.rj_vers.high = 2;
	} else {
		m.rm_reply.rp_stat = MSG_ACCEPTED;
		m.acpted_rply.ar_verf = _null_auth;
		m.acpted_rply.ar_stat = (enum accept_stat)ast;
		if (ast == SUCCESS) {
			m.acpted_rply.ar_results.where = res;
			m.acpted_rply.ar_results.proc = proc;
			size += xdr_sizeof(proc, res);
		} else if (ast == PROG_MISMATCH) {
			m.acpted_rply.ar_vers.low = DT_COORD_V1;
			m.acpted_rply.ar_vers.high = DT_COORD_V1;
		} else {
			m.acpted_rply.ar_results.where = NULL;
			m.acpted_rply.ar_results.proc = (xdrproc_t)xdr_nothing;
		}
	}
	buf = malloc(size + 4);
	if (!buf) {
		conn_mark_dead(c, "out of memory for a reply");
		return;
	}
	xdrmem_create(&x, (char *)buf + 4, (u_int)size, XDR_ENCODE);
	if (!xdr_replymsg(&x, &m)) {
		xdr_destroy(&x);
		free(buf);
		logmsg("%s: cannot encode a reply (xid %" PRIu32 ")", c->peer,
		       xid);
		conn_mark_dead(c, "reply encoding failed");
		return;
	}
	len = xdr_getpos(&x);
	xdr_destroy(&x);
	mark = htonl(0x80000000u | len);
	memcpy(buf, &mark, 4);
	if (c->out) {
		/* not expected (one call at a time), but keep order */
		uint8_t *nb = realloc(c->out, c->out_len + len + 4);

		if (!nb) {
			free(buf);
			conn_mark_dead(c, "out of memory for a reply");
			return;
		}
		memcpy(nb + c->out_len, buf, len + 4);
		c->out = nb;
		c->out_len += len + 4;
		free(buf);
	} else {
		c->out = buf;
		c->out_len = len + 4;
		c->out_off = 0;
	}
	conn_flush(c);
}

static void conn_free(struct conn *c)
{
	close(c->fd);
	free(c->rec);
	free(c->out);
	free(c);
}

/* ---- the barrier ---------------------------------------------------- */

static const char *host_label(int i, char *buf, size_t len)
{
	if (S.hosts[i].state == H_FREE)
		snprintf(buf, len, "host %d (not joined)", i);
	else
		snprintf(buf, len, "host %d (%s)", i, S.hosts[i].name);
	return buf;
}

static void barrier_fail(dt_coord_status st, const char *msg,
			 const int *missing, unsigned int nmissing)
{
	dt_coord_barrier_res r;
	int i;

	S.failed = true;
	S.fail_status = st;
	snprintf(S.fail_msg, sizeof(S.fail_msg), "%s", msg);
	memcpy(S.fail_missing, missing, nmissing * sizeof(*missing));
	S.fail_nmissing = nmissing;
	logmsg("%s", msg);
	/* nobody waits at it (a host asked for a barrier that cannot pass) */
	if (!S.pending || S.pending_case)
		return;
	S.failures++;
	memset(&r, 0, sizeof(r));
	r.status = st;
	r.msg = S.fail_msg;
	r.missing.missing_len = nmissing;
	r.missing.missing_val = S.fail_missing;
	for (i = 0; i < S.nhosts; i++) {
		struct conn *c = S.hosts[i].conn;

		if (!(S.arrived & (1ULL << i)) || !c || !c->deferred)
			continue;
		c->deferred = false;
		conn_reply(c, S.xid[i], SUCCESS,
			   (xdrproc_t)xdr_dt_coord_barrier_res, &r);
	}
	S.pending = false;
	S.pending_case = false;
	S.arrived = 0;
	S.gen++;
}

/* until a case start says otherwise every host of the run takes part */
static uint64_t all_hosts(void)
{
	return S.nhosts >= 64 ? ~0ULL : (1ULL << S.nhosts) - 1;
}

/* a host of the case in progress that will not come to its barriers */
static bool member_gone(int i)
{
	const struct host *h = &S.hosts[i];

	return (S.members & (1ULL << i)) &&
	       (h->state == H_LEFT || h->state == H_DEAD || h->quit);
}

/*
 * Hosts of the case that left, died or gave the case up: barrier name
 * can never complete; fail it (the pending one, or the one a host just
 * asked for) naming them and why.
 */
static bool barrier_check_gone(const char *name)
{
	int missing[DT_COORD_HOSTS_MAX];
	unsigned int n = 0;
	char msg[DT_COORD_MSG_MAX];
	size_t pos = 0;
	int i;

	for (i = 0; i < S.nhosts; i++) {
		struct host *h = &S.hosts[i];

		if (!member_gone(i))
			continue;
		if (!n)
			catf(msg, sizeof(msg), &pos, "barrier '%s' #%" PRIu64
			     " cannot complete:", name, S.gen);
		if (h->state == H_JOINED)
			catf(msg, sizeof(msg), &pos, "%s host %d (%s) gave "
			     "up the case: %s", n ? ";" : "", i, h->name,
			     h->quit_why);
		else
			catf(msg, sizeof(msg), &pos, "%s host %d (%s) %s%s%s",
			     n ? ";" : "", i, h->name,
			     h->state == H_LEFT ? "left" : "died",
			     h->why[0] ? ": " : "", h->why);
		missing[n++] = i;
	}
	if (!n)
		return false;
	barrier_fail(DT_COORD_GONE, msg, missing, n);
	return true;
}

static void barrier_release(uint64_t need);

/*
 * A case start passes once every host still in the run is there: the
 * hosts that left or died are not waited for.
 */
static void case_try_release(void)
{
	uint64_t need = 0;
	int i;

	for (i = 0; i < S.nhosts; i++)
		if (S.hosts[i].state == H_JOINED ||
		    S.hosts[i].state == H_FREE)
			need |= 1ULL << i;
	if ((S.arrived & need) == need)
		barrier_release(need);
}

/* a host left, died or gave up its case: what waits for it goes on */
static void host_out(void)
{
	if (!S.pending)
		return;
	if (S.pending_case)
		case_try_release();
	else
		barrier_check_gone(S.bname);
}

/*
 * A case start at its deadline: the hosts not there are dropped from the
 * run (a host that never joined too: the run cannot wait for ever), and
 * the others start the case without them.
 */
static void case_timeout(void)
{
	int i;

	for (i = 0; i < S.nhosts; i++) {
		struct host *h = &S.hosts[i];

		if ((S.arrived & (1ULL << i)) ||
		    (h->state != H_JOINED && h->state != H_FREE))
			continue;
		if (h->state == H_FREE)
			snprintf(h->name, sizeof(h->name), "not joined");
		snprintf(h->why, sizeof(h->why), "dropped: not at the start "
			 "of case '%s' within %.3g s%s%s", S.bname,
			 (double)S.timeout_ns / 1e9, h->quit ? "; " : "",
			 h->quit ? h->quit_why : "");
		h->state = H_DEAD;
		logmsg("host %d '%s' %s", i, h->name, h->why);
		S.failures++;
	}
	/* a dropped host that never joined cannot join later either */
	S.joined = S.nhosts;
	case_try_release();
}

static void barrier_timeout(void)
{
	int missing[DT_COORD_HOSTS_MAX];
	unsigned int n = 0;
	char msg[DT_COORD_MSG_MAX], lab[DT_COORD_NAME_MAX + 32];
	size_t pos = 0;
	int i;

	if (S.pending_case) {
		case_timeout();
		return;
	}
	catf(msg, sizeof(msg), &pos, "barrier '%s' #%" PRIu64
	     " timed out after %.3g s: missing", S.bname, S.gen,
	     (double)S.timeout_ns / 1e9);
	for (i = 0; i < S.nhosts; i++) {
		if ((S.arrived & (1ULL << i)) || !(S.members & (1ULL << i)))
			continue;
		catf(msg, sizeof(msg), &pos, "%s %s", n ? "," : "",
		     host_label(i, lab, sizeof(lab)));
		missing[n++] = i;
	}
	barrier_fail(DT_COORD_TIMEOUT, msg, missing, n);
}

static uint64_t margin_ns(void)
{
	uint64_t m = S.margin_min_ns;
	unsigned int i;
	int h;

	for (h = 0; h < S.nhosts; h++)
		if (S.hosts[h].state == H_JOINED && 3 * S.hosts[h].rtt_ns > m)
			m = 3 * S.hosts[h].rtt_ns;
	for (i = 0; i < S.ndelivery && i < DELIVERY_WINDOW; i++)
		if (S.delivery[i] > 0 && 2 * (uint64_t)S.delivery[i] > m)
			m = 2 * (uint64_t)S.delivery[i];
	return m > MARGIN_CAP_NS ? MARGIN_CAP_NS : m;
}

/* who is out of the run and why, for a case start's reply */
static void dropped_list(char *buf, size_t len)
{
	size_t pos = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < S.nhosts; i++) {
		const struct host *h = &S.hosts[i];

		if (h->state == H_LEFT || h->state == H_DEAD)
			catf(buf, len, &pos, "%shost %d (%s) %s%s%s",
			     pos ? "; " : "", i, h->name,
			     h->state == H_LEFT ? "left" : "died",
			     h->why[0] ? ": " : "", h->why);
	}
}

/*
 * Every host needed is there: send the release instant to all of them.
 * need: the hosts taking part (a case start makes them the case's).
 */
static void barrier_release(uint64_t need)
{
	dt_coord_barrier_res r;
	dt_coord_case_res cr;
	char dropped[DT_COORD_MSG_MAX];
	int64_t now = real_ns();
	uint64_t m = margin_ns();
	int i;

	if (S.pending_case) {
		S.epoch = S.pending_epoch;
		S.members = need;
		S.failed = false;
		for (i = 0; i < S.nhosts; i++) {
			if (!(need & (1ULL << i)))
				continue;
			S.hosts[i].epoch = S.epoch;
			S.hosts[i].quit = false;
		}
		logmsg("case '%s' #%" PRIu64 " starts with %d of %d hosts",
		       S.bname, S.epoch, __builtin_popcountll(need),
		       S.nhosts);
	}
	dropped_list(dropped, sizeof(dropped));
	memset(&r, 0, sizeof(r));
	r.status = DT_COORD_OK;
	r.msg = "";
	r.release_ns = now + (int64_t)m;
	r.seq = S.gen + 1;
	memset(&cr, 0, sizeof(cr));
	cr.status = DT_COORD_OK;
	cr.msg = "";
	cr.release_ns = r.release_ns;
	cr.seq = r.seq;
	cr.members = need;
	cr.dropped = dropped;
	if (S.gen < MAX_WAKE_RECS) {
		if (S.gen >= S.nwake) {
			size_t n = S.nwake ? S.nwake * 2 : 64;
			struct wake_rec *w;

			while (n <= S.gen)
				n *= 2;
			w = realloc(S.wake, n * sizeof(*w));
			if (w) {
				memset(w + S.nwake, 0,
				       (n - S.nwake) * sizeof(*w));
				S.wake = w;
				S.nwake = n;
			}
		}
		if (S.gen < S.nwake) {
			struct wake_rec *w = &S.wake[S.gen];

			w->release_ns = r.release_ns;
			w->sent_ns = now;
			w->min_woke = INT64_MAX;
			w->max_woke = INT64_MIN;
			w->need = need;
		}
	}
	/* all replies go out back to back, before anything else happens */
	for (i = 0; i < S.nhosts; i++) {
		struct conn *c = S.hosts[i].conn;

		if (!c || !c->deferred)
			continue;
		c->deferred = false;
		if (c->deferred_case)
			conn_reply(c, S.xid[i], SUCCESS,
				   (xdrproc_t)xdr_dt_coord_case_res, &cr);
		else
			conn_reply(c, S.xid[i], SUCCESS,
				   (xdrproc_t)xdr_dt_coord_barrier_res, &r);
		c->deferred_case = false;
	}
	if (S.verbose)
		logmsg("barrier '%s' #%" PRIu64 " released, margin %" PRIu64
		       " us", S.bname, S.gen, m / 1000);
	S.released++;
	S.pending = false;
	S.pending_case = false;
	S.arrived = 0;
	S.gen++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* |a - b| <= lim, computed without overflow */
static bool within(int64_t a, int64_t b, uint64_t lim)
{
	uint64_t d = a > b ? (uint64_t)a - (uint64_t)b
			   : (uint64_t)b - (uint64_t)a;

	return d <= lim;
}

/* a host's report on barrier seq (= gen + 1) */
static void wake_report(int host, const dt_coord_wake *p)
{
	struct wake_rec *w;
	uint64_t gen;

	if (!p->seq || p->seq > S.gen || p->seq - 1 >= S.nwake)
		return;
	gen = p->seq - 1;
	w = &S.wake[gen];
	if (!w->release_ns || (w->mask & (1ULL << host)) ||
	    !(w->need & (1ULL << host)))
		return;
	/*
	 * The times come from the network: one far from the release is
	 * garbage, and the differences taken below must not overflow.
	 */
	if (!within(p->recv_ns, w->release_ns, 3600 * NSEC) ||
	    !within(p->woke_ns, w->release_ns, 3600 * NSEC))
		return;
	w->mask |= 1ULL << host;
	w->reports++;
	if (p->woke_ns < w->min_woke)
		w->min_woke = p->woke_ns;
	if (p->woke_ns > w->max_woke)
		w->max_woke = p->woke_ns;
	if (p->unc_ns > S.unc_max && p->unc_ns < NSEC)
		S.unc_max = p->unc_ns;
	if (p->recv_ns > w->release_ns)
		S.late++;
	if (S.verbose)
		logmsg("host %d on barrier #%" PRIu64 ": reply after %" PRId64
		       " us, woke %+" PRId64 " us from release, unc %" PRIu64
		       " us", host, gen, (p->recv_ns - w->sent_ns) / 1000,
		       (p->woke_ns - w->release_ns) / 1000,
		       (uint64_t)p->unc_ns / 1000);
	S.delivery[S.ndelivery++ % DELIVERY_WINDOW] = p->recv_ns - w->sent_ns;
	if (w->mask == w->need) {
		if (S.nskews == S.skews_cap) {
			size_t n = S.skews_cap ? S.skews_cap * 2 : 64;
			uint64_t *s = realloc(S.skews, n * sizeof(*s));

			if (!s)
				return;
			S.skews = s;
			S.skews_cap = n;
		}
		S.skews[S.nskews++] = (uint64_t)(w->max_woke - w->min_woke);
	}
}

static void skew_stats(dt_coord_skew_res *r)
{
	uint64_t *s;
	size_t n = S.nskews;

	r->barriers = (unsigned int)n;
	r->unc_ns = S.unc_max;
	r->late = S.late;
	r->margin_ns = margin_ns();
	if (!n)
		return;
	s = malloc(n * sizeof(*s));
	if (!s)
		return;
	memcpy(s, S.skews, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u64);
	/* nearest rank */
	r->p50_ns = s[(n * 50 + 99) / 100 - 1];
	r->p99_ns = s[(n * 99 + 99) / 100 - 1];
	r->max_ns = s[n - 1];
	free(s);
}

/* ---- storage -------------------------------------------------------- */

static struct key *key_find(const char *name, bool create)
{
	unsigned int i;
	struct key *k;

	for (i = 0; i < S.nkeys; i++)
		if (!strcmp(S.keys[i].name, name))
			return &S.keys[i];
	if (!create || S.nkeys >= S.max_keys)
		return NULL;
	if (!S.keys) {
		S.keys = calloc(S.max_keys, sizeof(*S.keys));
		if (!S.keys)
			return NULL;
	}
	k = &S.keys[S.nkeys++];
	snprintf(k->name, sizeof(k->name), "%s", name);
	return k;
}

/* ---- requests --------------------------------------------------------- */

static bool token_ok(const char *t)
{
	size_t n = strlen(t), i;
	unsigned char d = 0;

	if (n != S.token_len)
		return false;
	for (i = 0; i < n; i++)
		d |= (unsigned char)(t[i] ^ S.token[i]);
	return d == 0;
}

/* the request's host must be the one this connection joined as */
static bool own_host(struct conn *c, int host)
{
	return c->host >= 0 && c->host == host &&
	       S.hosts[host].state == H_JOINED && S.hosts[host].conn == c;
}

/* names end up in logs and messages: printable ASCII only */
static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

/* a message from the network, kept for logs and replies */
static void printable_copy(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = src[i] < 0x20 || src[i] > 0x7e ? '?' : src[i];
	dst[i] = '\0';
}

static void sanitize(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '-' ||
		      *s == '_'))
			*s = '_';
}

static void do_join(struct conn *c, dt_coord_join_args *a,
		    dt_coord_join_res *r, char *msg, size_t msglen)
{
	struct host *h;
	int i;

	if (c->host >= 0) {
		r->status = DT_COORD_INVAL;
		snprintf(msg, msglen, "this connection already joined as "
			 "host %d", c->host);
		return;
	}
	if (!a->host[0] || !a->run_id[0] || !a->test[0] || !a->tcase[0] ||
	    !printable(a->host) || !printable(a->run_id) ||
	    !printable(a->test) || !printable(a->tcase)) {
		r->status = DT_COORD_INVAL;
		snprintf(msg, msglen, "JOIN needs a host name, run id, test "
			 "and case in printable ASCII");
		return;
	}
	if (S.joined >= S.nhosts) {
		r->status = DT_COORD_FULL;
		snprintf(msg, msglen, "run already has its %d hosts; '%s' "
			 "not admitted", S.nhosts, a->host);
		return;
	}
	if (S.joined && (strcmp(a->run_id, S.run_id) ||
			 strcmp(a->test, S.test) ||
			 strcmp(a->tcase, S.tcase))) {
		r->status = DT_COORD_MISMATCH;
		snprintf(msg, msglen, "host '%s' joins run '%s' test '%s' case "
			 "'%s' but this coordinator runs '%s' '%s' '%s'",
			 a->host, a->run_id, a->test, a->tcase, S.run_id,
			 S.test, S.tcase);
		return;
	}
	for (i = 0; i < S.joined; i++) {
		if (!strcmp(S.hosts[i].name, a->host)) {
			r->status = DT_COORD_EXISTS;
			snprintf(msg, msglen, "host name '%s' already joined "
				 "as host %d", a->host, i);
			return;
		}
	}
	if (!S.joined) {
		snprintf(S.run_id, sizeof(S.run_id), "%s", a->run_id);
		snprintf(S.test, sizeof(S.test), "%s", a->test);
		snprintf(S.tcase, sizeof(S.tcase), "%s", a->tcase);
		if (S.scratch_opt[0]) {
			snprintf(S.scratch, sizeof(S.scratch), "%s",
				 S.scratch_opt);
		} else {
			snprintf(S.scratch, sizeof(S.scratch),
				 "dentrace.%.60s.%.60s.%.60s", S.run_id, S.test,
				 S.tcase);
			sanitize(S.scratch + strlen("dentrace."));
		}
	}
	i = S.joined++;
	h = &S.hosts[i];
	h->state = H_JOINED;
	snprintf(h->name, sizeof(h->name), "%s", a->host);
	h->threads = a->threads;
	h->conn = c;
	h->rtt_ns = a->rtt_ns < NSEC ? a->rtt_ns : NSEC;
	c->host = i;
	r->status = DT_COORD_OK;
	r->host = i;
	r->hosts = S.nhosts;
	r->seed = S.seed;
	r->scratch = S.scratch;
	if (S.nroles)
		r->role = S.roles[i < S.nroles ? i : S.nroles - 1];
	else
		r->role = i == 0 ? "leader" : "peer";
	r->timeout_ms = (u_int)(S.timeout_ns / 1000000);
	logmsg("host %d '%s' joined from %s (%d threads, role %s)", i,
	       h->name, c->peer, h->threads, r->role);
}

/* returns true when the reply is deferred */
static bool do_barrier(struct conn *c, uint32_t xid,
		       dt_coord_barrier_args *a, dt_coord_barrier_res *r,
		       char *msg, size_t msglen)
{
	int hi = a->host;
	char l1[DT_COORD_NAME_MAX + 32];

	if (!own_host(c, hi)) {
		r->status = DT_COORD_DENIED;
		snprintf(msg, msglen, "BARRIER for host %d on a connection "
			 "that did not join as that host", hi);
		return false;
	}
	wake_report(hi, &a->prev);
	if (a->rtt_ns && a->rtt_ns < NSEC)
		S.hosts[hi].rtt_ns = a->rtt_ns;
	if (!a->name[0] || !printable(a->name)) {
		r->status = DT_COORD_INVAL;
		snprintf(msg, msglen, "BARRIER needs a name in printable "
			 "ASCII");
		return false;
	}
	/*
	 * A host of the case gave it up (or the others already wait at the
	 * next case start): this barrier cannot pass, say why at once.
	 */
	if (!S.failed && (!S.pending || S.pending_case))
		barrier_check_gone(a->name);
	if (S.failed) {
		r->status = S.fail_status;
		snprintf(msg, msglen, "%s", S.fail_msg);
		r->missing.missing_len = S.fail_nmissing;
		r->missing.missing_val = S.fail_missing;
		return false;
	}
	if (a->gen != S.gen) {
		char m2[DT_COORD_MSG_MAX];

		snprintf(m2, sizeof(m2), "host %d (%s) arrived at barrier '%s' "
			 "#%" PRIu64 " but the run is at barrier #%" PRIu64, hi,
			 S.hosts[hi].name, a->name, (uint64_t)a->gen, S.gen);
		r->status = DT_COORD_MISMATCH;
		snprintf(msg, msglen, "%s", m2);
		barrier_fail(DT_COORD_MISMATCH, m2, &hi, 1);
		return false;
	}
	if (!S.pending) {
		S.pending = true;
		S.arrived = 0;
		snprintf(S.bname, sizeof(S.bname), "%s", a->name);
		S.deadline_ns = mono_ns() + S.timeout_ns;
	} else if (strcmp(a->name, S.bname)) {
		char m2[DT_COORD_MSG_MAX];
		int first = S.arrived ? __builtin_ctzll(S.arrived) : 0;

		snprintf(m2, sizeof(m2), "host %d (%s) arrived at barrier "
			 "'%s' #%" PRIu64 " while %s waits at '%s'", hi,
			 S.hosts[hi].name, a->name, S.gen,
			 host_label(first, l1, sizeof(l1)), S.bname);
		barrier_fail(DT_COORD_MISMATCH, m2, &hi, 1);
		r->status = DT_COORD_MISMATCH;
		snprintf(msg, msglen, "%s", m2);
		return false;
	}
	S.arrived |= 1ULL << hi;
	S.xid[hi] = xid;
	if (S.verbose)
		logmsg("host %d arrived at barrier '%s' #%" PRIu64, hi,
		       S.bname, S.gen);
	c->deferred = true;
	c->deferred_xid = xid;
	if (barrier_check_gone(S.bname))
		return true;		/* answered by barrier_fail */
	if ((S.arrived & S.members) == S.members)
		barrier_release(S.members);
	return true;
}

static void do_post(struct conn *c, dt_coord_post_args *a, dt_coord_res *r,
		    char *msg, size_t msglen)
{
	uint32_t len = a->value.value_len;
	struct key *k;
	uint8_t *v;
	uint64_t old;

	if (!own_host(c, a->host)) {
		r->status = DT_COORD_DENIED;
		snprintf(msg, msglen, "POST for host %d on a connection that "
			 "did not join as that host", a->host);
		return;
	}
	if (!a->key[0] || !printable(a->key)) {
		r->status = DT_COORD_INVAL;
		snprintf(msg, msglen, "POST needs a key in printable ASCII");
		return;
	}
	if (len > S.max_value) {
		r->status = DT_COORD_TOOBIG;
		snprintf(msg, msglen, "POST '%s': %" PRIu32 " bytes exceed the "
			 "limit of %" PRIu32, a->key, len, S.max_value);
		return;
	}
	k = key_find(a->key, true);
	if (!k) {
		r->status = DT_COORD_FULL;
		snprintf(msg, msglen, "POST '%s': the run already stores %u "
			 "keys (limit)", a->key, S.nkeys);
		return;
	}
	old = (k->set & (1ULL << a->host)) ? k->len[a->host] : 0;
	if (S.bytes - old + len > S.max_bytes) {
		r->status = DT_COORD_FULL;
		snprintf(msg, msglen, "POST '%s': %" PRIu32 " more bytes exceed "
			 "the store limit of %" PRIu64, a->key, len,
			 S.max_bytes);
		return;
	}
	v = malloc(len ? len : 1);
	if (!v) {
		r->status = DT_COORD_FULL;
		snprintf(msg, msglen, "POST '%s': out of memory", a->key);
		return;
	}
	if (len)	/* an empty opaque decodes to NULL */
		memcpy(v, a->value.value_val, len);
	free(k->val[a->host]);
	k->val[a->host] = v;
	k->len[a->host] = len;
	k->set |= 1ULL << a->host;
	S.bytes = S.bytes - old + len;
	S.posts++;
	r->status = DT_COORD_OK;
}

static void do_fetch(dt_coord_fetch_args *a, dt_coord_fetch_res *r,
		     dt_coord_entry *ent)
{
	struct key *k = key_find(a->key, false);
	unsigned int n = 0;
	int i;

	r->status = DT_COORD_OK;
	for (i = 0; k && i < S.nhosts; i++) {
		if (!(k->set & (1ULL << i)))
			continue;
		ent[n].host = i;
		ent[n].value.value_len = k->len[i];
		ent[n].value.value_val = (char *)k->val[i];
		n++;
	}
	r->entries.entries_len = n;
	r->entries.entries_val = ent;
}

static void check_finished(void)
{
	int i;

	if (S.joined < S.nhosts)
		return;
	for (i = 0; i < S.nhosts; i++)
		if (S.hosts[i].state == H_JOINED)
			return;
	S.finished = true;
}

static void do_leave(struct conn *c, dt_coord_leave_args *a,
		     dt_coord_res *r, char *msg, size_t msglen)
{
	struct host *h;

	if (!own_host(c, a->host)) {
		r->status = DT_COORD_DENIED;
		snprintf(msg, msglen, "LEAVE for host %d on a connection that "
			 "did not join as that host", a->host);
		return;
	}
	h = &S.hosts[a->host];
	wake_report(a->host, &a->prev);
	h->state = H_LEFT;
	printable_copy(h->why, sizeof(h->why), a->reason);
	logmsg("host %d '%s' left%s%s", a->host, h->name,
	       a->reason[0] ? ": " : "", a->reason);
	r->status = DT_COORD_OK;
	host_out();
	check_finished();
}

/* returns true when the reply is deferred */
static bool do_case(struct conn *c, uint32_t xid, dt_coord_case_args *a,
		    dt_coord_case_res *r, char *msg, size_t msglen)
{
	int hi = a->host;
	struct host *h;

	if (!own_host(c, hi)) {
		r->status = DT_COORD_DENIED;
		snprintf(msg, msglen, "CASE for host %d on a connection that "
			 "is not that host's (%s)", hi, hi >= 0 &&
			 hi < S.nhosts && S.hosts[hi].why[0] ?
			 S.hosts[hi].why : "not joined there");
		return false;
	}
	h = &S.hosts[hi];
	wake_report(hi, &a->prev);
	if (!a->tcase[0] || !printable(a->tcase) || a->epoch <= h->epoch) {
		r->status = DT_COORD_INVAL;
		snprintf(msg, msglen, "CASE needs a case name in printable "
			 "ASCII and a case number above %" PRIu64, h->epoch);
		return false;
	}
	if (S.pending_case && a->epoch != S.pending_epoch) {
		r->status = DT_COORD_MISMATCH;
		snprintf(msg, msglen, "host %d (%s) starts case '%s' #%" PRIu64
			 " while the others wait at the start of '%s' #%"
			 PRIu64, hi, h->name, a->tcase, (uint64_t)a->epoch,
			 S.bname, S.pending_epoch);
		return false;
	}
	/* it is done with its case: normally, or it says how it gave up */
	if (!h->quit) {
		h->quit = true;
		if (a->ended[0])
			printable_copy(h->quit_why, sizeof(h->quit_why),
				       a->ended);
		else
			snprintf(h->quit_why, sizeof(h->quit_why), "went on "
				 "to case '%s'", a->tcase);
	}
	if (S.pending && !S.pending_case)
		barrier_check_gone(S.bname);
	if (!S.pending) {
		S.pending = true;
		S.pending_case = true;
		S.pending_epoch = a->epoch;
		S.arrived = 0;
		snprintf(S.bname, sizeof(S.bname), "%s", a->tcase);
		S.deadline_ns = mono_ns() + S.timeout_ns;
	}
	S.arrived |= 1ULL << hi;
	S.xid[hi] = xid;
	c->deferred = true;
	c->deferred_case = true;
	c->deferred_xid = xid;
	if (S.verbose)
		logmsg("host %d at the start of case '%s' #%" PRIu64, hi,
		       S.bname, S.pending_epoch);
	case_try_release();
	return true;
}

/* a host back on a new connection: the old one is closed, its case lost */
static void do_rejoin(struct conn *c, dt_coord_rejoin_args *a,
		      dt_coord_res *r, char *msg, size_t msglen)
{
	int hi = a->host;
	struct host *h;
	struct conn *old;

	if (c->host >= 0 || hi < 0 || hi >= S.nhosts ||
	    S.hosts[hi].state != H_JOINED ||
	    strcmp(S.hosts[hi].name, a->name)) {
		r->status = DT_COORD_DENIED;
		snprintf(msg, msglen, "REJOIN of host %d '%.64s': not a host "
			 "of the run on another connection (%s)", hi, a->name,
			 hi >= 0 && hi < S.nhosts && S.hosts[hi].why[0] ?
			 S.hosts[hi].why : "no such host");
		return;
	}
	h = &S.hosts[hi];
	old = h->conn;
	if (old) {
		/* its arrival at a barrier went with the case process */
		if (old->deferred && S.pending)
			S.arrived &= ~(1ULL << hi);
		old->host = -1;
		conn_mark_dead(old, "replaced by a new connection");
	}
	h->conn = c;
	c->host = hi;
	if (!h->quit) {
		h->quit = true;
		printable_copy(h->quit_why, sizeof(h->quit_why),
			       a->ended[0] ? a->ended : "lost its connection");
	}
	logmsg("host %d '%s' rejoined from %s: %s", hi, h->name, c->peer,
	       h->quit_why);
	r->status = DT_COORD_OK;
	host_out();
}

union args {
	dt_coord_join_args join;
	dt_coord_barrier_args barrier;
	dt_coord_clock_args clock;
	dt_coord_post_args post;
	dt_coord_fetch_args fetch;
	dt_coord_skew_args skew;
	dt_coord_leave_args leave;
	dt_coord_case_args tcase;
	dt_coord_rejoin_args rejoin;
};

union res {
	dt_coord_join_res join;
	dt_coord_barrier_res barrier;
	dt_coord_clock_res clock;
	dt_coord_res post;
	dt_coord_fetch_res fetch;
	dt_coord_skew_res skew;
	dt_coord_res leave;
	dt_coord_case_res tcase;
	dt_coord_res rejoin;
};

static const struct proc {
	const char *name;
	xdrproc_t xargs, xres;
} procs[] = {
	[DT_COORD_NULL] = { "NULL", (xdrproc_t)xdr_nothing,
			    (xdrproc_t)xdr_nothing },
	[DT_COORD_JOIN] = { "JOIN", (xdrproc_t)xdr_dt_coord_join_args,
			    (xdrproc_t)xdr_dt_coord_join_res },
	[DT_COORD_BARRIER] = { "BARRIER",
			       (xdrproc_t)xdr_dt_coord_barrier_args,
			       (xdrproc_t)xdr_dt_coord_barrier_res },
	[DT_COORD_CLOCK] = { "CLOCK", (xdrproc_t)xdr_dt_coord_clock_args,
			     (xdrproc_t)xdr_dt_coord_clock_res },
	[DT_COORD_POST] = { "POST", (xdrproc_t)xdr_dt_coord_post_args,
			    (xdrproc_t)xdr_dt_coord_res },
	[DT_COORD_FETCH] = { "FETCH", (xdrproc_t)xdr_dt_coord_fetch_args,
			     (xdrproc_t)xdr_dt_coord_fetch_res },
	[DT_COORD_SKEW] = { "SKEW", (xdrproc_t)xdr_dt_coord_skew_args,
			    (xdrproc_t)xdr_dt_coord_skew_res },
	[DT_COORD_LEAVE] = { "LEAVE", (xdrproc_t)xdr_dt_coord_leave_args,
			     (xdrproc_t)xdr_dt_coord_res },
	[DT_COORD_CASE] = { "CASE", (xdrproc_t)xdr_dt_coord_case_args,
			    (xdrproc_t)xdr_dt_coord_case_res },
	[DT_COORD_REJOIN] = { "REJOIN", (xdrproc_t)xdr_dt_coord_rejoin_args,
			      (xdrproc_t)xdr_dt_coord_res },
};

static const char *args_token(u_int proc, union args *a)
{
	switch (proc) {
	case DT_COORD_JOIN:	return a->join.token;
	case DT_COORD_BARRIER:	return a->barrier.token;
	case DT_COORD_CLOCK:	return a->clock.token;
	case DT_COORD_POST:	return a->post.token;
	case DT_COORD_FETCH:	return a->fetch.token;
	case DT_COORD_SKEW:	return a->skew.token;
	case DT_COORD_LEAVE:	return a->leave.token;
	case DT_COORD_CASE:	return a->tcase.token;
	case DT_COORD_REJOIN:	return a->rejoin.token;
	}
	return "";
}

/* every result starts with its status; strings must not be NULL */
static void res_init(u_int proc, union res *r, char *msg)
{
	memset(r, 0, sizeof(*r));
	switch (proc) {
	case DT_COORD_JOIN:
		r->join.msg = msg;
		r->join.scratch = "";
		r->join.role = "";
		break;
	case DT_COORD_BARRIER:
		r->barrier.msg = msg;
		break;
	case DT_COORD_POST:
	case DT_COORD_LEAVE:
	case DT_COORD_REJOIN:
		r->post.msg = msg;
		break;
	case DT_COORD_CASE:
		r->tcase.msg = msg;
		r->tcase.dropped = "";
		break;
	case DT_COORD_FETCH:
		r->fetch.msg = msg;
		break;
	case DT_COORD_SKEW:
		r->skew.msg = msg;
		break;
	}
}

static void res_set_status(u_int proc, union res *r, dt_coord_status st)
{
	switch (proc) {
	case DT_COORD_JOIN:	r->join.status = st; break;
	case DT_COORD_BARRIER:	r->barrier.status = st; break;
	case DT_COORD_CLOCK:	r->clock.status = st; break;
	case DT_COORD_POST:
	case DT_COORD_LEAVE:
	case DT_COORD_REJOIN:	r->post.status = st; break;
	case DT_COORD_CASE:	r->tcase.status = st; break;
	case DT_COORD_FETCH:	r->fetch.status = st; break;
	case DT_COORD_SKEW:	r->skew.status = st; break;
	}
}

static void handle_record(struct conn *c)
{
	char cred[2 * MAX_AUTH_BYTES];
	char msg[DT_COORD_MSG_MAX];
	dt_coord_entry ent[DT_COORD_HOSTS_MAX];
	struct rpc_msg m;
	union args a;
	union res r;
	const struct proc *p;
	u_int proc;
	XDR x;
	bool deferred = false;

	memset(&m, 0, sizeof(m));
	m.rm_call.cb_cred.oa_base = cred;
	m.rm_call.cb_verf.oa_base = cred + MAX_AUTH_BYTES;
	if (c->rec_len >= 12) {
		uint32_t w[3];

		memcpy(w, c->rec, sizeof(w));
		/* libtirpc's decoder refuses these: answer them here */
		if (ntohl(w[1]) == CALL && ntohl(w[2]) != 2) {
			S.bad++;
			logbad("%s: RPC version %u refused", c->peer,
			       ntohl(w[2]));
			conn_reply(c, ntohl(w[0]), -1, NULL, NULL);
			return;
		}
	}
	xdrmem_create(&x, (char *)c->rec, (u_int)c->rec_len, XDR_DECODE);
	if (!xdr_callmsg(&x, &m) || m.rm_direction != CALL) {
		xdr_destroy(&x);
		S.bad++;
		logbad("%s: %zu-byte record is not an RPC call; closing",
		       c->peer, c->rec_len);
		conn_mark_dead(c, "malformed RPC call");
		return;
	}
	if (m.rm_call.cb_rpcvers != 2) {
		xdr_destroy(&x);
		S.bad++;
		logbad("%s: RPC version %u refused", c->peer,
		       (unsigned int)m.rm_call.cb_rpcvers);
		conn_reply(c, m.rm_xid, -1, NULL, NULL);
		return;
	}
	if (m.rm_call.cb_prog != DT_COORD_PROG ||
	    m.rm_call.cb_vers != DT_COORD_V1) {
		xdr_destroy(&x);
		S.bad++;
		logbad("%s: program %#x version %u refused", c->peer,
		       (unsigned int)m.rm_call.cb_prog,
		       (unsigned int)m.rm_call.cb_vers);
		conn_reply(c, m.rm_xid, m.rm_call.cb_prog != DT_COORD_PROG ?
			   PROG_UNAVAIL : PROG_MISMATCH, NULL, NULL);
		return;
	}
	proc = m.rm_call.cb_proc;
	if (proc >= sizeof(procs) / sizeof(procs[0]) || !procs[proc].name) {
		xdr_destroy(&x);
		S.bad++;
		logbad("%s: procedure %u refused", c->peer, proc);
		conn_reply(c, m.rm_xid, PROC_UNAVAIL, NULL, NULL);
		return;
	}
	p = &procs[proc];
	memset(&a, 0, sizeof(a));
	if (!p->xargs(&x, &a)) {
		xdr_destroy(&x);
		xdr_free(p->xargs, &a);
		S.bad++;
		logbad("%s: %s with undecodable arguments (%zu bytes)",
		       c->peer, p->name, c->rec_len);
		conn_reply(c, m.rm_xid, GARBAGE_ARGS, NULL, NULL);
		return;
	}
	xdr_destroy(&x);
	if (proc == DT_COORD_NULL) {
		conn_reply(c, m.rm_xid, SUCCESS, (xdrproc_t)xdr_nothing, NULL);
		return;
	}
	msg[0] = '\0';
	res_init(proc, &r, msg);
	if (!token_ok(args_token(proc, &a))) {
		S.denied++;
		res_set_status(proc, &r, DT_COORD_DENIED);
		snprintf(msg, sizeof(msg), "%s from %s: wrong run token; "
			 "request ignored", p->name, c->peer);
		logbad("%s", msg);
		goto reply;
	}
	S.last_auth_ns = mono_ns();
	switch (proc) {
	case DT_COORD_JOIN:
		do_join(c, &a.join, &r.join, msg, sizeof(msg));
		break;
	case DT_COORD_BARRIER:
		deferred = do_barrier(c, m.rm_xid, &a.barrier, &r.barrier, msg,
				      sizeof(msg));
		break;
	case DT_COORD_CLOCK:
		r.clock.status = DT_COORD_OK;
		r.clock.now_ns = real_ns();
		break;
	case DT_COORD_POST:
		do_post(c, &a.post, &r.post, msg, sizeof(msg));
		break;
	case DT_COORD_FETCH:
		do_fetch(&a.fetch, &r.fetch, ent);
		break;
	case DT_COORD_SKEW:
		if (a.skew.host >= 0 && own_host(c, a.skew.host))
			wake_report(a.skew.host, &a.skew.prev);
		r.skew.status = DT_COORD_OK;
		skew_stats(&r.skew);
		break;
	case DT_COORD_LEAVE:
		do_leave(c, &a.leave, &r.leave, msg, sizeof(msg));
		break;
	case DT_COORD_CASE:
		deferred = do_case(c, m.rm_xid, &a.tcase, &r.tcase, msg,
				   sizeof(msg));
		break;
	case DT_COORD_REJOIN:
		do_rejoin(c, &a.rejoin, &r.rejoin, msg, sizeof(msg));
		break;
	}
reply:
	if (!deferred)
		conn_reply(c, m.rm_xid, SUCCESS, p->xres, &r);
	xdr_free(p->xargs, &a);
}

/*
 * Read what the connection sent: returns 1 when a whole record is in
 * c->rec, 0 when more is needed, -1 when the connection is done for.
 */
static int conn_read(struct conn *c)
{
	ssize_t n;

	for (;;) {
		if (!c->in_frag) {
			uint32_t v;

			n = recv(c->fd, c->hdr + c->hdr_have, 4 - c->hdr_have,
				 MSG_DONTWAIT);
			if (n == 0)
				return -1;
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return errno == EAGAIN ||
				       errno == EWOULDBLOCK ? 0 : -1;
			}
			if (!c->partial_since)
				c->partial_since = mono_ns();
			c->hdr_have += (unsigned int)n;
			if (c->hdr_have < 4)
				continue;
			memcpy(&v, c->hdr, 4);
			v = ntohl(v);
			c->hdr_have = 0;
			c->in_frag = true;
			c->frag_last = v >> 31;
			c->frag_left = v & 0x7fffffffu;
			if (c->frag_left > MAX_RECORD - c->rec_len) {
				S.bad++;
				logbad("%s: record over %d bytes; closing",
				       c->peer, MAX_RECORD);
				return -1;
			}
			if (c->rec_len + c->frag_left > c->rec_cap) {
				size_t cap = c->rec_len + c->frag_left;
				uint8_t *b;

				if (cap < 4096)
					cap = 4096;
				b = realloc(c->rec, cap);
				if (!b)
					return -1;
				c->rec = b;
				c->rec_cap = cap;
			}
		}
		while (c->frag_left) {
			n = recv(c->fd, c->rec + c->rec_len, c->frag_left,
				 MSG_DONTWAIT);
			if (n == 0)
				return -1;
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return errno == EAGAIN ||
				       errno == EWOULDBLOCK ? 0 : -1;
			}
			c->rec_len += (size_t)n;
			c->frag_left -= (uint32_t)n;
		}
		c->in_frag = false;
		if (c->frag_last) {
			c->partial_since = 0;
			return 1;
		}
	}
}

static void conn_mark_dead(struct conn *c, const char *why)
{
	struct host *h;

	if (c->dead)
		return;
	c->dead = true;
	c->deferred = false;
	if (c->host < 0)
		return;
	h = &S.hosts[c->host];
	h->conn = NULL;
	if (h->state != H_JOINED)
		return;
	h->state = H_DEAD;
	snprintf(h->why, sizeof(h->why), "connection lost (%s)", why);
	logmsg("host %d '%s' died: %s", c->host, h->name, h->why);
	host_out();
	check_finished();
}

static void conn_input(struct conn *c)
{
	int i, rc;

	for (i = 0; i < 16 && !c->dead && !c->deferred && !c->out; i++) {
		rc = conn_read(c);
		if (rc < 0) {
			conn_mark_dead(c, c->in_frag || c->hdr_have ?
				       "closed inside a record" : "closed");
			return;
		}
		if (rc == 0)
			return;
		handle_record(c);
		c->rec_len = 0;
		if (c->rec_cap > 65536) {
			free(c->rec);
			c->rec = NULL;
			c->rec_cap = 0;
		}
	}
}

static void conn_accept(void)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct conn *c;
	int fd, one = 1, i, slot = -1, oldest = -1;

	fd = accept4(S.lfd, (struct sockaddr *)&ss, &sl,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	for (i = 0; i < MAX_CONNS; i++) {
		if (!S.conns[i]) {
			slot = i;
			break;
		}
		if (S.conns[i]->host < 0 && !S.conns[i]->out &&
		    (oldest < 0 ||
		     S.conns[i]->since_ns < S.conns[oldest]->since_ns))
			oldest = i;
	}
	if (slot < 0) {
		if (oldest < 0) {
			close(fd);
			return;
		}
		/* full: drop the oldest connection that never joined */
		logmsg("%s: too many connections, dropping it",
		       S.conns[oldest]->peer);
		conn_free(S.conns[oldest]);
		S.conns[oldest] = NULL;
		slot = oldest;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->fd = fd;
	c->host = -1;
	c->since_ns = mono_ns();
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		char a[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(c->peer, sizeof(c->peer), "[%s]:%u", a,
			 ntohs(s6->sin6_port));
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(c->peer, sizeof(c->peer), "%s:%u", a,
			 ntohs(s4->sin_port));
	}
	S.conns[slot] = c;
}

/* ---- setup and the loop ---------------------------------------------- */

static void on_signal(int sig)
{
	got_signal = sig;
}

static int do_listen(void)
{
	char host[256], port[32], a[INET6_ADDRSTRLEN];
	struct addrinfo hints, *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd, one = 1, rc;

	if (dt_coord_split_addr(S.listen_spec, host, sizeof(host), port,
		       sizeof(port))) {
		logmsg("--listen %s: expected ADDR:PORT or [ADDR6]:PORT",
		       S.listen_spec);
		return -EINVAL;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		logmsg("--listen %s: %s (a numeric address is needed)",
		       S.listen_spec, gai_strerror(rc));
		return -EINVAL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		rc = -errno;
		freeaddrinfo(ai);
		logmsg("socket for %s: %s", S.listen_spec, strerror(-rc));
		return rc;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ai->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
		rc = -errno;
		freeaddrinfo(ai);
		close(fd);
		logmsg("bind/listen on %s: %s", S.listen_spec, strerror(-rc));
		return rc;
	}
	freeaddrinfo(ai);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		printf("listening [%s]:%u\n", a, ntohs(s6->sin6_port));
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		printf("listening %s:%u\n", a, ntohs(s4->sin_port));
	}
	fflush(stdout);
	S.lfd = fd;
	return 0;
}

static int read_token(const char *path)
{
	char buf[DT_COORD_TOKEN_MAX + 64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		logmsg("--token-file %s: %s", path, strerror(errno));
		return -errno;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		logmsg("--token-file %s: %s", path, strerror(errno));
		return -EIO;
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
			 buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
	if (n == 0 || n > DT_COORD_TOKEN_MAX || strlen(buf) != (size_t)n) {
		logmsg("--token-file %s: the token must be 1..%d bytes of "
		       "text", path, DT_COORD_TOKEN_MAX);
		return -EINVAL;
	}
	memcpy(S.token, buf, (size_t)n + 1);
	S.token_len = (size_t)n;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s --hosts N --listen ADDR:PORT --token-file FILE [options]\n"
"  --hosts N          hosts that make up the run (1..%d)\n"
"  --listen A:P       bind only there; port 0 picks one (printed)\n"
"  --token-file F     the run token; requests without it are refused\n"
"  --seed S           the run seed handed to every host (default: random)\n"
"  --timeout SEC      a barrier fails if incomplete after SEC (default 60)\n"
"  --idle SEC         exit after SEC without requests (default 600)\n"
"  --margin-ms MS     minimum barrier release margin (default 10)\n"
"  --roles R0,R1,..   role of the i-th host to join (the last repeats)\n"
"  --scratch NAME     scratch directory name (default from run/test/case)\n"
"  --max-keys N       keys stored (default 1024)\n"
"  --max-bytes N      bytes stored over all values (default 256 MiB)\n"
"  --max-value N      bytes of one value (default and maximum %d)\n"
"  --verbose          log every barrier release and wake report\n"
"  --skew-file F      at exit, write each barrier's start skew to F: lines\n"
"                     \"<barrier> <skew_ns>\" (lab/runpage: histograms)\n"
"stdout: \"listening ADDR:PORT\" when ready, \"summary: ...\" at exit.\n"
"exit: 0 all hosts left, 1 run failed or signal, 2 idle limit, 64 usage\n",
		program_invocation_short_name, DT_COORD_HOSTS_MAX,
		DT_COORD_VALUE_MAX);
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		return false;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

static bool parse_secs(const char *s, uint64_t *ns)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || *end || !(d > 0) || d > 1e6)
		return false;
	*ns = (uint64_t)(d * 1e9);
	return true;
}

static int parse_roles(char *list)
{
	char *save = NULL, *t;

	for (t = strtok_r(list, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (S.nroles >= DT_COORD_HOSTS_MAX ||
		    strlen(t) > DT_COORD_NAME_MAX)
			return -EINVAL;
		S.roles[S.nroles++] = t;
	}
	return S.nroles ? 0 : -EINVAL;
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hosts", required_argument, NULL, 'n' },
		{ "listen", required_argument, NULL, 'l' },
		{ "token-file", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "idle", required_argument, NULL, 'i' },
		{ "margin-ms", required_argument, NULL, 'm' },
		{ "roles", required_argument, NULL, 'r' },
		{ "scratch", required_argument, NULL, 'S' },
		{ "max-keys", required_argument, NULL, 'K' },
		{ "max-bytes", required_argument, NULL, 'B' },
		{ "max-value", required_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "skew-file", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *token_file = NULL;
	bool seeded = false;
	uint64_t v;
	int o;

	S.timeout_ns = 60 * NSEC;
	S.idle_ns = 600 * NSEC;
	S.margin_min_ns = 10 * 1000000ULL;
	S.max_keys = 1024;
	S.max_bytes = 256ULL << 20;
	S.max_value = DT_COORD_VALUE_MAX;
	int li = -1;

	while ((o = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		switch (o) {
		case 'n':
			if (!parse_u64(optarg, &v) || !v ||
			    v > DT_COORD_HOSTS_MAX)
				goto bad;
			S.nhosts = (int)v;
			break;
		case 'l':
			S.listen_spec = optarg;
			break;
		case 't':
			token_file = optarg;
			break;
		case 's':
			if (!parse_u64(optarg, &S.seed))
				goto bad;
			seeded = true;
			break;
		case 'T':
			if (!parse_secs(optarg, &S.timeout_ns))
				goto bad;
			break;
		case 'i':
			if (!parse_secs(optarg, &S.idle_ns))
				goto bad;
			break;
		case 'm':
			if (!parse_u64(optarg, &v) || v > 1000)
				goto bad;
			S.margin_min_ns = v * 1000000ULL;
			break;
		case 'r':
			if (parse_roles(optarg))
				goto bad;
			break;
		case 'S':
			if (!*optarg || strlen(optarg) > DT_COORD_NAME_MAX ||
			    strchr(optarg, '/'))
				goto bad;
			snprintf(S.scratch_opt, sizeof(S.scratch_opt), "%s",
				 optarg);
			break;
		case 'K':
			if (!parse_u64(optarg, &v) || !v || v > 1000000)
				goto bad;
			S.max_keys = (unsigned int)v;
			break;
		case 'B':
			if (!parse_u64(optarg, &v))
				goto bad;
			S.max_bytes = v;
			break;
		case 'V':
			if (!parse_u64(optarg, &v) || v > DT_COORD_VALUE_MAX)
				goto bad;
			S.max_value = (uint32_t)v;
			break;
		case 'k':
			S.skew_file = optarg;
			break;
		case 'v':
			S.verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc || !S.nhosts || !S.listen_spec || !token_file) {
		logmsg("--hosts, --listen and --token-file are required");
		usage(stderr);
		return -EINVAL;
	}
	if (read_token(token_file))
		return -EINVAL;
	if (!seeded) {
		S.seed = (uint64_t)real_ns() ^ ((uint64_t)getpid() << 32);
		logmsg("seed %" PRIu64, S.seed);
	}
	return 0;
bad:
	logmsg("bad value for --%s: '%s'", li >= 0 ? opts[li].name : "?",
	       optarg);
	usage(stderr);
	return -EINVAL;
}

/* every barrier's skew (max - min woke over the hosts), one a line */
static void write_skews(void)
{
	FILE *f;
	size_t i;

	if (!S.skew_file)
		return;
	f = fopen(S.skew_file, "w");
	if (!f) {
		logmsg("--skew-file %s: %s", S.skew_file, strerror(errno));
		return;
	}
	for (i = 0; i < S.nskews; i++)
		fprintf(f, "%zu %" PRIu64 "\n", i + 1, S.skews[i]);
	if (fclose(f) != 0)
		logmsg("--skew-file %s: %s", S.skew_file, strerror(errno));
}

static void summary(const char *status)
{
	dt_coord_skew_res r;
	int i, left = 0, died = 0;

	memset(&r, 0, sizeof(r));
	skew_stats(&r);
	write_skews();
	for (i = 0; i < S.nhosts; i++) {
		left += S.hosts[i].state == H_LEFT;
		died += S.hosts[i].state == H_DEAD;
	}
	printf("summary: status=%s seed=%" PRIu64 " joined=%d/%d left=%d"
	       " died=%d barriers=%" PRIu64 " failed=%" PRIu64 " skew_n=%u"
	       " skew_p50_ns=%llu skew_p99_ns=%llu skew_max_ns=%llu"
	       " unc_max_ns=%llu late=%u margin_ns=%llu posts=%" PRIu64
	       " keys=%u bytes=%" PRIu64 " denied=%" PRIu64 " bad=%" PRIu64
	       "\n", status, S.seed, S.joined, S.nhosts, left, died,
	       S.released, S.failures, r.barriers,
	       (unsigned long long)r.p50_ns, (unsigned long long)r.p99_ns,
	       (unsigned long long)r.max_ns, (unsigned long long)r.unc_ns,
	       r.late, (unsigned long long)r.margin_ns, S.posts, S.nkeys,
	       S.bytes, S.denied, S.bad);
	if (S.failed)
		printf("failure: %s\n", S.fail_msg);
	fflush(stdout);
}

/* write out what is still queued, for at most FLUSH_NS */
static void flush_all(void)
{
	uint64_t end = mono_ns() + FLUSH_NS;
	int i;

	for (;;) {
		struct pollfd pf[MAX_CONNS];
		nfds_t n = 0;
		uint64_t now;

		for (i = 0; i < MAX_CONNS; i++) {
			struct conn *c = S.conns[i];

			if (!c || c->dead || !c->out)
				continue;
			if (conn_flush(c) || !c->out)
				continue;
			pf[n].fd = c->fd;
			pf[n].events = POLLOUT;
			n++;
		}
		now = mono_ns();
		if (!n || now >= end)
			return;
		poll(pf, n, (int)((end - now) / 1000000) + 1);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t block, orig;
	const char *status = NULL;
	int exit_code = 0, i;

	if (parse_args(argc, argv))
		return 64;
	S.members = all_hosts();
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &orig);
	if (do_listen())
		return 64;
	S.last_auth_ns = mono_ns();

	while (!S.finished) {
		struct pollfd pf[MAX_CONNS + 1];
		struct conn *pc[MAX_CONNS + 1];
		uint64_t now = mono_ns(), wake;
		struct timespec ts;
		nfds_t n = 0;
		int rc;

		if (got_signal) {
			logmsg("signal %d: stopping", (int)got_signal);
			status = "signal";
			exit_code = 1;
			break;
		}
		if (S.pending && now >= S.deadline_ns)
			barrier_timeout();
		if (!S.pending && now - S.last_auth_ns >= S.idle_ns) {
			logmsg("idle for %.3g s: stopping",
			       (double)S.idle_ns / 1e9);
			status = "idle";
			exit_code = 2;
			break;
		}
		wake = S.pending ? S.deadline_ns : S.last_auth_ns + S.idle_ns;

		pf[n].fd = S.lfd;
		pf[n].events = POLLIN;
		pc[n++] = NULL;
		for (i = 0; i < MAX_CONNS; i++) {
			struct conn *c = S.conns[i];

			if (!c)
				continue;
			if (!c->dead && c->partial_since &&
			    now - c->partial_since > STALL_NS) {
				S.bad++;
				logbad("%s: partial record stalled; closing",
				       c->peer);
				conn_mark_dead(c, "stalled inside a record");
			}
			if (c->dead) {
				S.conns[i] = NULL;
				conn_free(c);
				continue;
			}
			if (c->partial_since &&
			    c->partial_since + STALL_NS + 1 < wake)
				wake = c->partial_since + STALL_NS + 1;
			pf[n].fd = c->fd;
			pf[n].events = POLLRDHUP;
			if (c->out)
				pf[n].events |= POLLOUT;
			else if (!c->deferred)
				pf[n].events |= POLLIN;
			pc[n++] = c;
		}
		if (S.finished)
			break;
		now = mono_ns();
		wake = wake > now ? wake - now : 0;
		ts.tv_sec = (time_t)(wake / NSEC);
		ts.tv_nsec = (long)(wake % NSEC);
		rc = ppoll(pf, n, &ts, &orig);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			logmsg("poll: %s", strerror(errno));
			status = "error";
			exit_code = 1;
			break;
		}
		for (i = 1; i < (int)n && !S.finished; i++) {
			struct conn *c = pc[i];
			short ev = pf[i].revents;

			if (!ev || c->dead)
				continue;
			if (ev & POLLOUT)
				conn_flush(c);
			if (c->dead)
				continue;
			if (ev & (POLLIN | POLLRDHUP | POLLHUP | POLLERR)) {
				if (!c->deferred && !c->out) {
					conn_input(c);
				} else if (ev & (POLLRDHUP | POLLHUP |
						 POLLERR)) {
					/* gone while we owe or send a reply */
					conn_mark_dead(c, "closed");
				}
			}
		}
		if (pf[0].revents & POLLIN)
			conn_accept();
	}
	if (S.finished) {
		status = S.failed || S.failures ? "failed" : "ok";
		for (i = 0; i < S.nhosts; i++)
			if (S.hosts[i].state == H_DEAD ||
			    (S.hosts[i].state == H_LEFT && S.hosts[i].why[0]))
				status = "failed";
		exit_code = strcmp(status, "ok") ? 1 : 0;
	}
	flush_all();
	summary(status);
	for (i = 0; i < MAX_CONNS; i++)
		if (S.conns[i])
			conn_free(S.conns[i]);
	close(S.lfd);
	return exit_code;
}
