/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Multi-host runs: the glue between a case and the coordinator (coord.h).
 *
 * Every host runs the same cases in the same order, so the barrier names
 * built here ("<case>:<step>:<n>") match across hosts without negotiation.
 * A failed barrier (a host died, left, gave the case up or timed out)
 * ends the case as BROKEN naming the cause: the other hosts get a
 * verdict, not a hang.  Each case starts with a case start among the
 * hosts still in the run (dt_mh_case_start), so one host's failed or
 * hung case costs the others that case only: they go on with the next.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord/coord.h"
#include "core/internal.h"

/* values posted per chunk: below the coordinator's 1 MiB limit */
#define CHUNK (768 * 1024)

bool dt_leader(const struct dt_run *r)
{
	return r->host == 0;
}

bool dt_mh_active(void)
{
	return dt_coord_handle != NULL;
}

static unsigned long seq;	/* barriers passed in this case process */

void dt_mh_barrier(struct dt_run *r, const char *step)
{
	char name[DT_COORD_STR_LIMIT + 1];
	int rc;

	snprintf(name, sizeof(name), "%s:%s:%lu", r->tcase->name, step,
		 seq++);
	/* what a hard timeout reports if another host never arrives */
	snprintf(dt_shared->waiting_at, sizeof(dt_shared->waiting_at), "%s",
		 name);
	__atomic_store_n(&dt_shared->waiting_since_ns, dt_now_ns(),
			 __ATOMIC_RELEASE);
	rc = dt_coord_barrier(dt_coord_handle, name, NULL);
	__atomic_store_n(&dt_shared->waiting_since_ns, 0, __ATOMIC_RELEASE);
	if (rc < 0)	/* the message names the barrier */
		dt_broken(r, "%s", dt_coord_error(dt_coord_handle));
}

struct agree {
	bool all;
	int hosts;
};

static int agree_cb(void *arg, int host, const void *buf, size_t len)
{
	struct agree *a = arg;

	(void)host;
	a->hosts++;
	if (len != 1 || *(const char *)buf != '1')
		a->all = false;
	return 0;
}

bool dt_mh_agree(struct dt_run *r, bool go)
{
	/*
	 * Two keys by parity: a fast host cannot overwrite its answer for
	 * round n+2 before every host passed round n+1's barrier, which is
	 * after they all fetched round n.
	 */
	static unsigned long n;
	char key[16];
	struct agree a = { .all = true };
	int rc;

	snprintf(key, sizeof(key), "go%lu", n++ & 1);
	rc = dt_coord_post(dt_coord_handle, key, go ? "1" : "0", 1);
	if (rc < 0)
		dt_broken(r, "post %s: %s", key,
			  dt_coord_error(dt_coord_handle));
	dt_mh_barrier(r, "round");
	rc = dt_coord_fetch(dt_coord_handle, key, agree_cb, &a);
	if (rc < 0 || a.hosts != r->nhosts)
		dt_broken(r, "fetch %s: %s (%d of %d hosts)", key,
			  rc < 0 ? dt_coord_error(dt_coord_handle) : "short",
			  a.hosts, r->nhosts);
	return a.all;
}

/* ---- scratch directory: the leader's, shared by all ------------------- */

static int scratch_cb(void *arg, int host, const void *buf, size_t len)
{
	struct dt_run *r = arg;

	if (host == 0 && len < sizeof(r->scratch)) {
		memcpy(r->scratch, buf, len);
		r->scratch[len] = 0;
	}
	return 0;
}

void dt_mh_share_scratch(struct dt_run *r)
{
	int rc;

	if (dt_leader(r)) {
		rc = dt_coord_post(dt_coord_handle, "scratch", r->scratch,
				   strlen(r->scratch));
		if (rc < 0)
			dt_broken(r, "post scratch: %s",
				  dt_coord_error(dt_coord_handle));
	}
	dt_mh_barrier(r, "scratch");
	if (!dt_leader(r)) {
		r->scratch[0] = 0;
		rc = dt_coord_fetch(dt_coord_handle, "scratch", scratch_cb, r);
		if (rc < 0 || !r->scratch[0])
			dt_broken(r, "fetch the leader's scratch dir: %s",
				  rc < 0 ? dt_coord_error(dt_coord_handle)
					 : "none posted");
	}
}

/* ---- history exchange ------------------------------------------------- */

struct collect {
	int nhosts;
	size_t *nchunks;		/* per host */
	unsigned char **buf;		/* per host, concatenated chunks */
	size_t *len;
	int err;
};

static int count_cb(void *arg, int host, const void *buf, size_t len)
{
	struct collect *c = arg;
	char tmp[32];

	if (host < 0 || host >= c->nhosts || len >= sizeof(tmp))
		return c->err = -EBADMSG;
	memcpy(tmp, buf, len);
	tmp[len] = 0;
	c->nchunks[host] = strtoul(tmp, NULL, 10);
	return 0;
}

static int chunk_cb(void *arg, int host, const void *buf, size_t len)
{
	struct collect *c = arg;
	unsigned char *np;

	if (host < 0 || host >= c->nhosts)
		return c->err = -EBADMSG;
	np = realloc(c->buf[host], c->len[host] + len + 1);
	if (!np)
		return c->err = -ENOMEM;
	memcpy(np + c->len[host], buf, len);
	c->buf[host] = np;
	c->len[host] += len;
	return 0;
}

/*
 * Replace the local history h by the merged history of all hosts, on the
 * coordinator's time line.
 */
void dt_mh_exchange(struct dt_run *r, struct dt_history *h)
{
	struct collect c = { .nhosts = r->nhosts };
	void *enc = NULL;
	size_t enclen, nchunks, maxchunks = 0;
	char key[32], val[32];
	int rc;

	for (size_t i = 0; i < h->n; i++) {
		h->ev[i].host = (uint16_t)r->host;
		h->ev[i].start_ns = (uint64_t)dt_coord_to_global(
			dt_coord_handle, h->ev[i].start_ns);
		h->ev[i].end_ns = (uint64_t)dt_coord_to_global(
			dt_coord_handle, h->ev[i].end_ns);
	}
	rc = dt_history_encode(h, &enc, &enclen);
	if (rc < 0)
		dt_broken(r, "encode history: %s", dt_strerr(rc));
	nchunks = (enclen + CHUNK - 1) / CHUNK;
	for (size_t i = 0; i < nchunks; i++) {
		size_t off = i * CHUNK;
		size_t len = enclen - off < CHUNK ? enclen - off : CHUNK;

		snprintf(key, sizeof(key), "h%zu", i);
		rc = dt_coord_post(dt_coord_handle, key,
				   (char *)enc + off, len);
		if (rc < 0)
			dt_broken(r, "post history chunk %zu: %s", i,
				  dt_coord_error(dt_coord_handle));
	}
	free(enc);
	snprintf(val, sizeof(val), "%zu", nchunks);
	rc = dt_coord_post(dt_coord_handle, "hn", val, strlen(val));
	if (rc < 0)
		dt_broken(r, "post history size: %s",
			  dt_coord_error(dt_coord_handle));
	dt_mh_barrier(r, "history");

	c.nchunks = calloc((size_t)c.nhosts, sizeof(*c.nchunks));
	c.buf = calloc((size_t)c.nhosts, sizeof(*c.buf));
	c.len = calloc((size_t)c.nhosts, sizeof(*c.len));
	if (!c.nchunks || !c.buf || !c.len)
		dt_broken(r, "history exchange: out of memory");
	rc = dt_coord_fetch(dt_coord_handle, "hn", count_cb, &c);
	if (rc != c.nhosts || c.err)
		dt_broken(r, "fetch history sizes: %d of %d hosts posted",
			  rc, c.nhosts);
	for (int k = 0; k < c.nhosts; k++)
		if (c.nchunks[k] > maxchunks)
			maxchunks = c.nchunks[k];
	/*
	 * Chunk keys are reused from case to case: a host that posted fewer
	 * chunks this time may still have an old value under a higher key,
	 * so take from each host only the chunks it announced.
	 */
	for (size_t i = 0; i < maxchunks; i++) {
		struct collect one = c;
		size_t *saved = malloc((size_t)c.nhosts * sizeof(*saved));

		if (!saved)
			dt_broken(r, "history exchange: out of memory");
		memcpy(saved, c.len, (size_t)c.nhosts * sizeof(*saved));
		snprintf(key, sizeof(key), "h%zu", i);
		rc = dt_coord_fetch(dt_coord_handle, key, chunk_cb, &one);
		if (rc < 0 || one.err)
			dt_broken(r, "fetch history chunk %zu: %s", i,
				  rc < 0 ? dt_coord_error(dt_coord_handle)
					 : dt_strerr(one.err));
		c.buf = one.buf;
		for (int k = 0; k < c.nhosts; k++)
			if (i >= c.nchunks[k])
				c.len[k] = saved[k];	/* stale: drop it */
		free(saved);
	}
	dt_history_free(h);
	for (int k = 0; k < c.nhosts; k++) {
		rc = c.len[k] ? dt_history_decode(c.buf[k], c.len[k], h) : 0;
		free(c.buf[k]);
		if (rc < 0)
			dt_broken(r, "decode history of host %d: %s", k,
				  dt_strerr(rc));
	}
	free(c.buf);
	free(c.len);
	free(c.nchunks);
	dt_history_sort(h);
}

/* ---- the hosts' own judgments, summed for the agreement mode ---------- */

/*
 * One key for every case, its value "<failures> <case>": a count left by
 * an earlier case (a host that gave this one up) does not pass for this
 * case's, and the coordinator's key table does not grow with the cases.
 */
#define FAILURES_KEY "test_failures"

void dt_mh_post_failures(struct dt_run *r, int failures)
{
	char val[DT_COORD_STR_LIMIT + 32];
	int rc;

	snprintf(val, sizeof(val), "%d %s", failures, r->tcase->name);
	rc = dt_coord_post(dt_coord_handle, FAILURES_KEY, val, strlen(val));
	if (rc < 0)
		dt_broken(r, "post %s: %s", FAILURES_KEY,
			  dt_coord_error(dt_coord_handle));
}

struct failures_sum {
	const char *tcase;
	int sum, posted;
	char *by_host;
	size_t len, used;
};

static int failures_cb(void *arg, int host, const void *buf, size_t len)
{
	struct failures_sum *f = arg;
	char val[DT_COORD_STR_LIMIT + 32], *end;
	long n;

	if (len >= sizeof(val))
		return 0;
	memcpy(val, buf, len);
	val[len] = 0;
	n = strtol(val, &end, 10);
	if (end == val || *end != ' ' || strcmp(end + 1, f->tcase) || n < 0 ||
	    n > INT32_MAX - f->sum)
		return 0;	/* another case's, or not ours to read */
	f->posted++;
	f->sum += (int)n;
	if (n && f->used < f->len)
		f->used += (size_t)snprintf(f->by_host + f->used,
					    f->len - f->used, "%shost %d: %ld",
					    f->used ? ", " : "", host, n);
	return 0;
}

int dt_mh_sum_failures(struct dt_run *r, int *posted, char *by_host,
		       size_t len)
{
	struct failures_sum f = { .tcase = r->tcase->name, .by_host = by_host,
				  .len = len };

	if (len)
		by_host[0] = 0;
	if (dt_coord_fetch(dt_coord_handle, FAILURES_KEY, failures_cb, &f) < 0)
		dt_broken(r, "fetch %s: %s", FAILURES_KEY,
			  dt_coord_error(dt_coord_handle));
	*posted = f.posted;
	return f.sum;
}

/* this host's part of the skew, on its own clock */
static void report_host_wake(struct dt_run *r)
{
	struct dt_coord_wake_stats w;

	if (dt_coord_wake_stats(dt_coord_handle, &w) < 0 || !w.barriers)
		return;
	dt_diag(r, "host_wake_late_us", "host %d: p50 %.1f p99 %.1f max %.1f "
		"over %u barriers, clock offset %+.1f +- %.1f, wait at %s "
		"priority", r->host, w.p50_ns / 1e3, w.p99_ns / 1e3,
		w.max_ns / 1e3, w.barriers, w.offset_ns / 1e3, w.unc_ns / 1e3,
		w.rt ? "real-time" : "normal");
}

void dt_mh_report_skew(struct dt_run *r)
{
	struct dt_coord_skew s;

	if (dt_coord_skew_stats(dt_coord_handle, &s) < 0 || !s.barriers)
		return;
	dt_diag(r, "hosts", "%d", r->nhosts);
	dt_diag(r, "start_skew_us", "p50 %.1f p99 %.1f max %.1f over %u "
		"barriers (offset uncertainty %.1f)",
		s.p50_ns / 1e3, s.p99_ns / 1e3, s.max_ns / 1e3, s.barriers,
		s.unc_ns / 1e3);
	report_host_wake(r);
}

/* ---- between cases: the harness's side -------------------------------- */

const char *dt_coord_lost;
static char ended[512];		/* how the last case ended, if early */

int dt_mh_case_start(uint64_t epoch, const char *tcase, int *host,
		     int *nhosts)
{
	static char lost[DT_COORD_STR_LIMIT * 4 + 64];
	struct dt_coord_case_info ci;

	if (dt_coord_lost)
		return -1;
	if (dt_coord_case(dt_coord_handle, epoch, tcase, ended, &ci) < 0) {
		snprintf(lost, sizeof(lost), "%s",
			 dt_coord_error(dt_coord_handle));
		dt_coord_leave_reason(dt_coord_handle, lost);
		dt_coord_handle = NULL;
		dt_coord_lost = lost;
		return -1;
	}
	ended[0] = 0;
	if (ci.dropped[0])
		printf("# case %s starts with %d host(s); out of the run: %s\n",
		       tcase, ci.hosts, ci.dropped);
	*host = ci.host;
	*nhosts = ci.hosts;
	return 0;
}

void dt_mh_case_ended(const char *why)
{
	snprintf(ended, sizeof(ended), "%s", why);
}

void dt_mh_case_lost(const char *why)
{
	static char reason[512];

	if (!dt_coord_handle)
		return;
	dt_mh_case_ended(why);
	if (dt_coord_rejoin(dt_coord_handle, why) == 0)
		return;
	/* no way back: tell the others (their barriers fail naming us) */
	snprintf(reason, sizeof(reason), "%s; and no new connection: %s", why,
		 dt_coord_error(dt_coord_handle));
	dt_coord_leave_reason(dt_coord_handle, reason);
	dt_coord_handle = NULL;
	dt_coord_lost = reason;
}

void dt_mh_finish(void)
{
	if (dt_coord_handle)
		dt_coord_leave_reason(dt_coord_handle, ended);
	dt_coord_handle = NULL;
}

/* ---- values between the hosts of a test (dt_barrier, dt_post, dt_peek) -- */

void dt_barrier(struct dt_run *r, const char *name)
{
	if (dt_mh_active())
		dt_mh_barrier(r, name);
}

/* keys are the case's own: a value of one case never answers another's */
static void case_key(struct dt_run *r, const char *key, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s:%s", r->tcase->name, key) >= len)
		dt_broken(r, "key %s of case %s too long", key, r->tcase->name);
}

void dt_post(struct dt_run *r, const char *key, const char *val)
{
	char k[DT_COORD_STR_LIMIT + 1];
	int rc;

	if (!dt_mh_active())
		return;
	case_key(r, key, k, sizeof(k));
	rc = dt_coord_post(dt_coord_handle, k, val, strlen(val));
	if (rc < 0)
		dt_broken(r, "post %s: %s", k, dt_coord_error(dt_coord_handle));
}

struct peek {
	int host;
	char *buf;
	size_t len;
	bool found;
};

static int peek_cb(void *arg, int host, const void *buf, size_t len)
{
	struct peek *p = arg;

	if (host != p->host)
		return 0;
	if (len >= p->len)
		len = p->len - 1;
	memcpy(p->buf, buf, len);
	p->buf[len] = 0;
	p->found = true;
	return 0;
}

int dt_peek(struct dt_run *r, int host, const char *key, char *buf,
	    size_t len)
{
	char k[DT_COORD_STR_LIMIT + 1];
	struct peek p = { .host = host, .buf = buf, .len = len };
	int rc;

	if (!dt_mh_active() || !len)
		return 0;
	case_key(r, key, k, sizeof(k));
	rc = dt_coord_fetch(dt_coord_handle, k, peek_cb, &p);
	if (rc < 0)
		dt_broken(r, "fetch %s: %s", k, dt_coord_error(dt_coord_handle));
	return p.found;
}
