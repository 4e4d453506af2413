/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Coherence across clients: after worker A (gid 0) changes a name, every
 * other worker B (gid 1.., each on its own connection; on other hosts in
 * a multi-host run) polls the name until it shows the change.  Each case
 * starts B from a different cached state:
 *
 *   positive  B looked the name up (ENOENT: a negative entry), A creates
 *             it, B polls until found (with the created fileid)
 *   positive_aged  the same, but between B's lookup and A's create of x
 *             A creates another name y and B looks y up: B's client has
 *             seen the directory change since it cached x's negative
 *             entry (the entry is older than the directory as B knows
 *             it), and that entry must still give way to A's create
 *   negative  A creates and unlinks a name B never asked about; B polls
 *             (from the barrier after the unlink returned: its window is
 *             that barrier's latency) until ENOENT
 *   unlink    B looked the name up (found: a positive entry), A unlinks
 *             it, B polls until ENOENT
 *   rename    B looked up x (found) and y (ENOENT), A renames x to y, B
 *             polls until y is found (with x's fileid) and x is ENOENT
 *
 * each repeated (fresh names every time) for the duration, at least
 * three times.  A and B meet only at dt_worker_round barriers; B's polls
 * run back to back, then paced, for at most bound + 2 s.
 *
 * Oracle (dt_oracle_staleness): a lookup that saw the old state must not
 * have begun more than the allowed bound after A's op returned.  The
 * windows are reported per case (p50 and max over every change and
 * observer): from the end of A's op to the start of B's first lookup that
 * saw the new state, and as a lower bound to the end of B's last lookup
 * that saw the old one.
 *
 * The bound is the target's own stale bound, the one every case reports
 * on its "# stale bound" line (core/main.c from backend/mountopts.c): 0
 * for libnfs targets (the backend turns libnfs's directory cache off),
 * for a POSIX target used by one host (one kernel, one dcache) and for a
 * local filesystem; for a kernel NFS mount in a multi-host run, what its
 * options allow (acdirmax plus slack, 0 with actimeo=0 or noac).  The
 * environment variable DT_STALE_BOUND_MS (milliseconds, fractions
 * allowed) overrides it, e.g. DT_STALE_BOUND_MS=0 to demand strict
 * coherence of a caching client.  dt_run_workers has already moved the
 * reads' starts back by the target's bound (and the hosts' clock slack);
 * that part is taken back before the oracle applies this test's bound,
 * so the allowance counts once.  Bounds of seconds make a case take that
 * long per stale change: raise --timeout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dentrace.h"

/* changes per case: at most, and at least whatever the duration */
#define MAX_REPS 100
#define MIN_REPS 3
/* polls per name and change: the first back to back, then paced */
#define MAX_POLLS 2000
#define FAST_POLLS 100
/* how long past the bound an observer keeps polling */
#define POLL_SLACK_NS 2000000000ull

enum change { POSITIVE, POSITIVE_AGED, NEGATIVE, UNLINK, RENAME };

struct coh {
	enum change kind;
	uint64_t bound_ns;
	long min_reps;
};

static bool sees(int rc, bool want_found)
{
	return want_found ? rc == 0 : rc == -ENOENT;
}

/*
 * Look name (and name2, if given) up until each shows the state wanted,
 * for at most bound + slack and MAX_POLLS rounds.  Past FAST_POLLS the
 * polls are paced so that the count lasts the whole time: this bounds the
 * history, not a synchronisation (A and B meet only at barriers).
 */
static void poll_until(struct dt_worker *w, const struct coh *c,
		       const char *name, bool found, const char *name2,
		       bool found2)
{
	uint64_t limit = c->bound_ns + POLL_SLACK_NS;
	uint64_t pace = limit / (MAX_POLLS - FAST_POLLS);
	uint64_t t0 = dt_now_ns();
	bool done = false, done2 = !name2;

	for (long i = 0; i < MAX_POLLS && !(done && done2); i++) {
		if (dt_now_ns() - t0 > limit)
			break;
		if (i >= FAST_POLLS) {
			struct timespec ts = {
				.tv_sec = (time_t)(pace / 1000000000ull),
				.tv_nsec = (long)(pace % 1000000000ull),
			};

			nanosleep(&ts, NULL);
		}
		if (!done)
			done = sees(dt_lookup(w, name, NULL), found);
		if (!done2)
			done2 = sees(dt_lookup(w, name2, NULL), found2);
	}
}

static void coherence_worker(struct dt_worker *w)
{
	const struct coh *c = w->arg;
	char x[DT_PATH_MAX], y[DT_PATH_MAX];
	bool a = w->gid == 0;

	for (long k = 0; k < MAX_REPS; k++) {
		/* every worker gets the same answer: all stop together */
		if (!dt_worker_round(w, k) && k >= c->min_reps)
			break;
		dt_pathbuf(w->run, x, sizeof(x), "d/x.%ld", k);
		dt_pathbuf(w->run, y, sizeof(y), "d/y.%ld", k);
		/* the rounds inside one change are all played */
		switch (c->kind) {
		case POSITIVE:
			if (!a)
				dt_lookup(w, x, NULL);
			dt_worker_round(w, k);
			if (a)
				dt_create(w, x, true, NULL);
			else
				poll_until(w, c, x, true, NULL, false);
			break;
		case POSITIVE_AGED:
			if (!a)
				dt_lookup(w, x, NULL);
			dt_worker_round(w, k);
			if (a)
				dt_create(w, y, true, NULL);
			dt_worker_round(w, k);
			/* the lookup's reply carries the changed directory */
			if (!a)
				dt_lookup(w, y, NULL);
			dt_worker_round(w, k);
			if (a)
				dt_create(w, x, true, NULL);
			else
				poll_until(w, c, x, true, NULL, false);
			break;
		case NEGATIVE:
			if (a)
				dt_create(w, x, true, NULL);
			dt_worker_round(w, k);
			if (a)
				dt_unlink(w, x);
			dt_worker_round(w, k);
			if (!a)
				poll_until(w, c, x, false, NULL, false);
			break;
		case UNLINK:
			if (a)
				dt_create(w, x, true, NULL);
			dt_worker_round(w, k);
			if (!a)
				dt_lookup(w, x, NULL);
			dt_worker_round(w, k);
			if (a)
				dt_unlink(w, x);
			else
				poll_until(w, c, x, false, NULL, false);
			break;
		case RENAME:
			if (a)
				dt_create(w, x, true, NULL);
			dt_worker_round(w, k);
			if (!a) {
				dt_lookup(w, x, NULL);
				dt_lookup(w, y, NULL);
			}
			dt_worker_round(w, k);
			if (a)
				dt_rename(w, x, y);
			else
				poll_until(w, c, y, true, x, false);
			break;
		}
	}
}

static uint64_t stale_bound(struct dt_run *r, char *why, size_t len)
{
	const char *env = getenv("DT_STALE_BOUND_MS");

	if (env && *env) {
		char *end;
		double ms = strtod(env, &end);

		if (*end || !(ms >= 0) || ms > 1e9)
			dt_broken(r, "DT_STALE_BOUND_MS=%s: not a number of milliseconds",
				  env);
		snprintf(why, len, "DT_STALE_BOUND_MS");
		return (uint64_t)(ms * 1e6);
	}
	snprintf(why, len, "the target's own, as the # stale bound line says");
	return r->stale_ns;
}

/* The writer (host 0, thread 0) makes every change; the others look. */
static bool writer_change(const struct dt_event *e)
{
	return !e->host && !e->thread && e->op != DT_OP_LOOKUP;
}

static void run_change(struct dt_run *r, enum change kind, int change_op)
{
	struct dt_worker *s = dt_setup_worker(r);
	struct coh c = { .kind = kind };
	struct dt_stale_stats st;
	struct dt_verdict v;
	char why[160];
	int n = r->threads;
	long changes = 0, failed = 0;

	c.bound_ns = stale_bound(r, why, sizeof(why));
	c.min_reps = r->iterations < MIN_REPS ? r->iterations : MIN_REPS;
	/*
	 * Each change may take the bound plus the observers' slack to be
	 * seen: a bound that leaves no room for the changes the case needs
	 * within its timeout (the default caching of a kernel mount: acdirmax
	 * 60 s) cannot be judged here; say so rather than time out.
	 */
	{
		double need_s = (double)c.min_reps *
				(double)(c.bound_ns + POLL_SLACK_NS) / 1e9 +
				r->duration;

		if (need_s > 0.8 * r->timeout_s)
			dt_skip(r, "stale bound %.1f s (%s): %ld changes may "
				"take %.0f s, more than this case's timeout "
				"of %d s allows; run with --timeout %.0f to "
				"judge it", (double)c.bound_ns / 1e9, why,
				c.min_reps, need_s, r->timeout_s,
				need_s / 0.8 + 1);
	}
	/* one writer and at least one observer in the run */
	if (n * r->nhosts < 2)
		n = 2;
	if (dt_leader(r))
		dt_must(r, dt_mkdir(s, dt_path(r, "d")), "mkdir d");
	dt_run_workers(r, n, coherence_worker, &c);

	/* A changes names only it touches: each change must succeed */
	for (size_t i = 0; i < r->hist.n; i++) {
		const struct dt_event *e = &r->hist.ev[i];

		if (!writer_change(e))
			continue;
		if (e->result < 0 && !failed++)
			dt_fail(r, dt_op_name((enum dt_opcode)e->op), "0",
				dt_strerr(e->result),
				"the writer's %s of %s (nobody else changes it)",
				dt_op_name((enum dt_opcode)e->op), e->name);
		changes += e->op == change_op && !e->result;
	}
	if (failed)
		dt_diag(r, "failed_changes", "%ld", failed);
	else if (!changes)
		dt_broken(r, "no change was made: duration too short?");

	/*
	 * The reads come back widened by the target's bound (and the clock
	 * slack): take the bound back out so that c.bound_ns, not both,
	 * is what the oracle allows.
	 */
	dt_history_widen_reads(&r->hist, -(int64_t)r->stale_ns);
	/*
	 * The observers' clocks agree with the writer's only to the clock
	 * slack: a lookup that found a name a few microseconds "before" its
	 * create began on another host is no violation.  The writer's
	 * changes may have begun that much earlier (make run of
	 * 2026-12-04: kv4pos, found 11 us before the create).
	 */
	if (r->nhosts > 1 && r->clock_slack_ns) {
		for (size_t i = 0; i < r->hist.n; i++) {
			struct dt_event *e = &r->hist.ev[i];

			if (!writer_change(e))
				continue;
			e->start_ns = e->start_ns > r->clock_slack_ns ?
				      e->start_ns - r->clock_slack_ns : 0;
		}
		dt_history_sort(&r->hist);
	}
	if (dt_oracle_staleness(&r->hist, c.bound_ns, change_op, &v, &st))
		dt_fail_verdict(r, "staleness bound", &v);
	dt_diag(r, "stale_bound_ms", "%.3f (%s)", (double)c.bound_ns / 1e6,
		why);
	dt_diag(r, "changes", "%ld x %d observers", changes, n * r->nhosts - 1);
	dt_diag(r, "stale_window_ms", "p50 %.3f max %.3f (%zu windows, %zu never converged)",
		(double)st.win_p50_ns / 1e6, (double)st.win_max_ns / 1e6,
		st.windows, st.unconverged);
	dt_diag(r, "stale_window_low_ms", "p50 %.3f max %.3f",
		(double)st.low_p50_ns / 1e6, (double)st.low_max_ns / 1e6);
	dt_diag(r, "stale_reads", "%zu of %zu lookups (latest began %.3f ms after the change)",
		st.stale_reads, st.reads, (double)st.stale_max_ns / 1e6);
}

static void run_positive(struct dt_run *r)
{
	run_change(r, POSITIVE, DT_OP_CREATE);
}

static void run_positive_aged(struct dt_run *r)
{
	run_change(r, POSITIVE_AGED, DT_OP_CREATE);
}

static void run_negative(struct dt_run *r)
{
	run_change(r, NEGATIVE, DT_OP_UNLINK);
}

static void run_unlink(struct dt_run *r)
{
	run_change(r, UNLINK, DT_OP_UNLINK);
}

static void run_rename(struct dt_run *r)
{
	run_change(r, RENAME, DT_OP_RENAME);
}

static const struct dt_case cases[] = {
	{ "positive", run_positive },
	{ "positive_aged", run_positive_aged },
	{ "negative", run_negative },
	{ "rename", run_rename },
	{ "unlink", run_unlink },
	{ NULL }
};

static const struct dt_test test = {
	.name = "coherence",
	.desc = "after A's change, B's lookups converge within the bound",
	.tags = "quick coherence",
	.threads = 2,
	.duration = 2,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
