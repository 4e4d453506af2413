/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Layer "coord": cross-machine coordination.  The protocol (coord.x, ONC
 * RPC over TCP with libtirpc, no rpcbind), its daemon (coordd.c, the
 * dtcoordd program) and this client side.  It moves bytes, barriers and
 * clock offsets; it knows nothing of tests, histories or verdicts (core's
 * multihost.c is the glue).  May call: base, libtirpc.
 *
 * One host of a multi-host run joins the coordinator, gets its host index,
 * the run's seed, scratch directory name and its role, meets the other hosts
 * at barriers and exchanges observations (posted values) with them.
 *
 * A barrier is released with a timestamp on the coordinator's clock; every
 * host converts it to its own CLOCK_REALTIME with its measured clock offset
 * and waits for it, spinning on the clock for the last stretch (see
 * dt_coord_set_spin), so that the hosts really start together.  Each
 * host reports when it woke; the coordinator turns that into start-skew
 * statistics (dt_coord_skew).
 *
 * All calls on one struct dt_coord are serialised by an internal lock (a
 * barrier holds it while it waits).  Calls return 0 (fetch: a count) or
 * -errno; dt_coord_error() then says what was done to what:
 *   -EACCES     wrong token (the coordinator ignored the request)
 *   -ETIMEDOUT  a barrier was not complete at the coordinator's deadline
 *               (the message names the missing hosts), or no answer at all
 *   -ECONNRESET a host left or died, so the barrier cannot pass
 *   -ENOSPC     the run already has all its hosts, or a storage cap is hit
 *   -EMSGSIZE   a value above DT_COORD_VALUE_LIMIT or the daemon's limit
 *   -EPROTO     other run/test/case, barrier order differs between hosts
 *   -EEXIST     the host name already joined this run
 *   -EINVAL     bad argument; -ECONNREFUSED/-EHOSTUNREACH/-EIO: transport
 */
#ifndef DENTRACE_COORD_H
#define DENTRACE_COORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DT_COORD_VALUE_LIMIT	(1u << 20)	/* bytes of one posted value */
#define DT_COORD_HOSTS_LIMIT	64		/* hosts in one run */
#define DT_COORD_STR_LIMIT	255		/* names, keys, scratch, role */
#define DT_COORD_TOKEN_LIMIT	256		/* bytes of the run token */

struct dt_coord;

struct dt_coord_info {
	int host;			/* 0 .. hosts-1, in join order */
	int hosts;			/* hosts that make up the run */
	uint64_t seed;			/* the run's seed (same on every host) */
	char scratch[DT_COORD_STR_LIMIT + 1];	/* shared scratch dir name */
	char role[DT_COORD_STR_LIMIT + 1];	/* "leader", "peer" or --roles */
	unsigned int timeout_ms;	/* the coordinator's barrier timeout */
};

/*
 * Split "host:port", "[v6addr]:port" into host and port (both non-empty,
 * within hlen/plen); -EINVAL otherwise.  dtcoordd's --listen and
 * dt_coord_join take the same form.
 */
int dt_coord_split_addr(const char *spec, char *host, size_t hlen,
			char *port, size_t plen);

/*
 * Connect to the coordinator at addr_port ("127.0.0.1:4000",
 * "[::1]:4000", "host.example:4000"), estimate the clock offset and join
 * the run.  On failure *out is NULL and dt_coord_error(NULL) gives the
 * message (per thread).
 */
int dt_coord_join(const char *addr_port, const char *token,
		  const char *run_id, const char *test, const char *tcase,
		  const char *hostname, int threads, struct dt_coord **out,
		  struct dt_coord_info *info);

/*
 * Wait until every host of the run arrived at its next barrier (hosts must
 * pass barriers in the same order with the same names), then spin until the
 * release time and return.  *release_ns (optional) gets the release time on
 * the local CLOCK_REALTIME.  Fails when a host is missing at the deadline
 * (-ETIMEDOUT), left, died or gave up the case (-ECONNRESET); after one
 * failure every later barrier of the case fails at once (of the run, for
 * hosts that never call dt_coord_case).
 */
int dt_coord_barrier(struct dt_coord *c, const char *name,
		     uint64_t *release_ns);

/*
 * Start the case numbered epoch (1, 2, ... in run order; name tcase): a
 * barrier among the hosts still in the run that re-synchronizes them.
 * ended: how this host's previous case ended when it did not pass every
 * barrier of it (NULL or "" otherwise); the hosts still waiting inside
 * that case get their barrier failed naming this host and ended.  A host
 * that does not reach a case start within the coordinator's timeout is
 * dropped from the run, and the others start without it.
 *
 * On success *ci says who takes part: from here until the next case
 * start, dt_coord_fetch() numbers the hosts by their rank among them
 * (0 .. ci->hosts-1) and leaves out the values of hosts not taking part.
 * Barriers of the case fail at once, naming the host, when a host of the
 * case gave it up; a failed barrier no longer fails the later cases.
 */
struct dt_coord_case_info {
	uint64_t members;		/* bit i: host i (join index) takes part */
	int host;			/* this host's rank among them */
	int hosts;			/* how many take part */
	char dropped[DT_COORD_STR_LIMIT * 4 + 4];	/* out of the run, why */
};
int dt_coord_case(struct dt_coord *c, uint64_t epoch, const char *tcase,
		  const char *ended, struct dt_coord_case_info *ci);

/*
 * Come back on a new connection under this host's index and name, after
 * a case process was killed inside a call (the old connection's stream
 * may hold half a call); the old connection is closed.  ended says how
 * the case was given up: the other hosts' barriers of that case fail
 * naming this host and ended, at once.  The next dt_coord_case() joins
 * the run's next case as usual.
 */
int dt_coord_rejoin(struct dt_coord *c, const char *ended);

/*
 * How the last stretch before a release is waited: sleep (absolute
 * CLOCK_REALTIME) until spin_ns before the release, then busy-spin on
 * clock_gettime(), yielding the CPU between reads.  spin_ns < 0 spins the
 * whole wait.  Default 1 ms, or $DT_COORD_SPIN_US (microseconds, negative =
 * spin all the way) when set at join time.
 */
void dt_coord_set_spin(struct dt_coord *c, int64_t spin_ns);

/*
 * Measure the clock offset again (best of several round trips) and return
 * it: coordinator time = local CLOCK_REALTIME + *offset_ns, within
 * +-*uncertainty_ns.  Either pointer may be NULL.  The estimate is made at
 * join and renewed before a barrier when it is older than 30 s.
 */
int dt_coord_offset(struct dt_coord *c, int64_t *offset_ns,
		    uint64_t *uncertainty_ns);

/* Local CLOCK_REALTIME ns -> the coordinator's time line. */
int64_t dt_coord_to_global(const struct dt_coord *c, uint64_t local_ns);

/*
 * Post value buf[0..len) under key for this host (replaces what this host
 * posted under key before).  len <= DT_COORD_VALUE_LIMIT.
 */
int dt_coord_post(struct dt_coord *c, const char *key, const void *buf,
		  size_t len);

/*
 * Call fn once per host that posted under key, in host order.  The buffer
 * is valid during the call only.  Returns the number of values, or -errno,
 * or the first negative value fn returned (which stops the walk).  Use a
 * barrier between the posts and the fetch to see every host's value.
 */
typedef int (*dt_coord_fetch_fn)(void *arg, int host, const void *buf,
				 size_t len);
int dt_coord_fetch(struct dt_coord *c, const char *key, dt_coord_fetch_fn fn,
		   void *arg);

struct dt_coord_skew {
	unsigned int barriers;		/* barriers every host reported on */
	uint64_t p50_ns, p99_ns, max_ns;	/* start skew over them */
	uint64_t unc_ns;		/* worst clock offset uncertainty */
	unsigned int late;		/* releases a host learned too late */
	uint64_t margin_ns;		/* release margin now in use */
};

/*
 * Start skew across hosts (max - min wake time per barrier, on the
 * coordinator's time line) over the barriers of this run that every host
 * reported on.  A host reports a barrier at its next call, so the other
 * hosts' reports on the very last barrier may still be missing; the
 * daemon's summary line at exit has everything.  The true skew can be
 * larger by up to twice unc_ns (the offset estimates' error).
 */
int dt_coord_skew_stats(struct dt_coord *c, struct dt_coord_skew *s);
int dt_coord_skew(struct dt_coord *c, uint64_t *p50, uint64_t *p99,
		  uint64_t *max);

/*
 * This host's side of the start skew: how late it woke after each
 * barrier's release instant (its own clock, so free of the offset
 * estimate's error), over the barriers this handle (in this process)
 * passed; its clock offset to the coordinator and that estimate's
 * uncertainty; and whether the waits ran at real-time priority (see
 * rt_raise() in client.c).  barriers == 0: none passed yet.
 */
struct dt_coord_wake_stats {
	unsigned int barriers;
	uint64_t p50_ns, p99_ns, max_ns;
	int64_t offset_ns;
	uint64_t unc_ns;
	bool rt;
};
int dt_coord_wake_stats(struct dt_coord *c, struct dt_coord_wake_stats *w);

/* The host index and run data this handle joined with. */
const struct dt_coord_info *dt_coord_info(const struct dt_coord *c);

/*
 * Tell the coordinator this host is done (reason NULL or "" = finished
 * normally; anything else makes the other hosts' barriers fail naming it),
 * close the connection and free c.  NULL is a no-op.
 */
void dt_coord_leave_reason(struct dt_coord *c, const char *reason);
void dt_coord_leave(struct dt_coord *c);

/*
 * A process that forks children which use c one at a time (the harness's
 * case children) copies the state they advanced back with these: the
 * child calls dt_coord_sync_get() into shared memory before it exits, the
 * parent dt_coord_sync_set() after.  The blob is dt_coord_sync_size()
 * bytes.  dt_coord_sync_get() fails (-EBUSY) while another thread is in
 * a call: the connection is mid-call, the parent must dt_coord_rejoin().
 */
size_t dt_coord_sync_size(void);
int dt_coord_sync_get(struct dt_coord *c, void *buf);
void dt_coord_sync_set(struct dt_coord *c, const void *buf);

/* Last error message of c; dt_coord_error(NULL): last join error. */
const char *dt_coord_error(const struct dt_coord *c);

/* Read a run token from a file (trailing white space stripped). */
int dt_coord_read_token(const char *path, char *buf, size_t len);

#endif /* DENTRACE_COORD_H */
