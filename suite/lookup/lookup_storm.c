/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Same-name lookup storm: N threads look up one uncached name at the same
 * moment.  Since Linux 4.7 such lookups meet in d_alloc_parallel(): one
 * thread does the lookup, the others wait on the in-lookup dentry.  A bug
 * there (the d_unhashed() check in the in-lookup hash scan that shipped
 * with 4.7) shows as a hang or as threads disagreeing about the answer.
 *
 * Oracle: every lookup of one name returns the same result and fileid, and
 * (present case) the fileid the name was created with; (renamed case) a
 * host that renamed the name after the storm no longer finds it.
 */
#include <errno.h>

#include "dentrace.h"

/* rounds are lock-stepped and judged per name: a few hundred suffice */
#define MAX_ROUNDS 300

/* A new name every round, so no cache can have seen it. */
static void storm_absent(struct dt_worker *w)
{
	char name[DT_PATH_MAX];

	for (long k = 0; k < MAX_ROUNDS && dt_worker_round(w, k); k++) {
		dt_pathbuf(w->run, name, sizeof(name), "absent.%ld", k);
		dt_lookup(w, name, NULL);
	}
}

static void storm_present(struct dt_worker *w)
{
	char name[DT_PATH_MAX];

	for (long k = 0; k < MAX_ROUNDS && dt_worker_round(w, k); k++) {
		dt_pathbuf(w->run, name, sizeof(name), "present.%ld", k);
		/* worker 0 of the run creates it; the others find it after */
		if (w->gid == 0)
			dt_create(w, name, true, NULL);
		dt_worker_sync(w);
		dt_lookup(w, name, NULL);
	}
}

/*
 * A storm, then the name renamed away by one of the hosts that stormed:
 * every lookup of the old name by that host afterwards must fail.  A
 * client's own rename is in its own dcache at once (no cache bound
 * excuses it); lookups of one name that do not wait for each other leave
 * one dentry per lookup, and the rename moves only one of them.  Round
 * k: host k creates the name (so the storm's hosts have not seen it),
 * host k+1 renames it.
 */
static void storm_renamed(struct dt_worker *w)
{
	struct dt_run *r = w->run;
	char name[DT_PATH_MAX], to[DT_PATH_MAX];

	for (long k = 0; k < MAX_ROUNDS && dt_worker_round(w, k); k++) {
		int creator = (int)(k % r->nhosts);
		int renamer = (int)((k + 1) % r->nhosts);

		dt_pathbuf(r, name, sizeof(name), "renamed.%ld", k);
		dt_pathbuf(r, to, sizeof(to), "renamed.%ld.to", k);
		if (r->host == creator && w->id == 0)
			dt_create(w, name, true, NULL);
		dt_worker_sync(w);
		/*
		 * One lookup per host of the rename's target (absent) first:
		 * the host takes in the directory's change (the create) now,
		 * so what the storm caches is current and trusted by later
		 * lookups, as on any busy client, instead of revalidated by
		 * all of them; and the history says the target was absent.
		 */
		if (w->id == 0)
			dt_lookup(w, to, NULL);
		dt_worker_sync(w);
		dt_lookup(w, name, NULL);
		dt_worker_sync(w);
		if (r->host == renamer && w->id == 0)
			dt_rename(w, name, to);
		dt_worker_sync(w);
		dt_lookup(w, name, NULL);
		dt_lookup(w, to, NULL);
	}
}

static void judge(struct dt_run *r, const char *fmt)
{
	struct dt_verdict v;
	char name[DT_PATH_MAX];
	long rounds = 0;

	for (size_t i = 0; i < r->hist.n; i++)
		rounds += r->hist.ev[i].op == DT_OP_LOOKUP &&
			  r->hist.ev[i].thread == 0 && r->hist.ev[i].host == 0;
	for (long k = 0; k < rounds; k++) {
		dt_pathbuf(r, name, sizeof(name), fmt, k);
		if (dt_oracle_same_answer(&r->hist, name, &v)) {
			dt_fail_verdict(r, "lookup storm", &v);
			break;
		}
	}
	if (dt_oracle_name_lifetime(&r->hist, &v))
		dt_fail_verdict(r, "name lifetime", &v);
	dt_diag(r, "rounds", "%ld", rounds);
	if (rounds == 0)
		dt_broken(r, "no round ran: duration too short?");
}

static void run_absent(struct dt_run *r)
{
	dt_run_workers(r, r->threads, storm_absent, NULL);
	judge(r, "absent.%ld");
	/* and the common answer must be ENOENT: nothing was created */
	struct dt_verdict v;

	if (dt_oracle_never_created(&r->hist, &v))
		dt_fail_verdict(r, "lookup of a name never created", &v);
}

static void run_present(struct dt_run *r)
{
	dt_run_workers(r, r->threads, storm_present, NULL);
	judge(r, "present.%ld");
	/*
	 * Agreeing is not enough: the name was created before the storm, so
	 * the common answer must be "found" (a failed create makes no round).
	 */
	for (size_t i = 0; i < r->hist.n; i++) {
		const struct dt_event *e = &r->hist.ev[i];

		if (e->op == DT_OP_CREATE && e->result < 0)
			dt_broken(r, "create %s for the round: %s", e->name,
				  dt_strerr(e->result));
		if (e->op == DT_OP_LOOKUP && e->result != 0) {
			dt_fail(r, "lookup", "0 (created before the storm)",
				dt_strerr(e->result), "lookup of %s", e->name);
			break;
		}
	}
}

static void run_renamed(struct dt_run *r)
{
	struct dt_verdict v;
	long rounds = 0;

	dt_run_workers(r, r->threads, storm_renamed, NULL);
	for (size_t i = 0; i < r->hist.n; i++) {
		const struct dt_event *e = &r->hist.ev[i];

		if (e->op != DT_OP_RENAME)
			continue;
		rounds++;
		/* the name was created before the storm and nobody else
		   touched it: the target refused a plain rename */
		if (e->result && !r->failures)
			dt_fail(r, "rename after the storm", "0",
				dt_strerr(e->result), "rename of %s to %s",
				e->name, e->name2);
	}
	/* the reads in r->hist start earlier by dt_read_widen_ns */
	if (dt_oracle_own_rename(&r->hist, dt_read_widen_ns(r), &v))
		dt_fail_verdict(r, "own rename", &v);
	dt_diag(r, "rounds", "%ld", rounds);
	if (rounds == 0)
		dt_broken(r, "no round ran: duration too short?");
}

static const struct dt_case cases[] = {
	{ "absent", run_absent },
	{ "present", run_present },
	{ "renamed", run_renamed },
	{ NULL }
};

static const struct dt_test test = {
	.name = "lookup_storm",
	.desc = "N threads look up one uncached name at once: one answer",
	.tags = "quick race lookup",
	.guards = "d_alloc_parallel in-lookup hash (Linux 4.7)",
	.threads = 8,
	.duration = 2,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
