/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Same-name lookup storm: N threads look up one uncached name at the same
 * moment.  Since Linux 4.7 such lookups meet in d_alloc_parallel(): one
 * thread does the lookup, the others wait on the in-lookup dentry.  A bug
 * there (the d_unhashed() check in the in-lookup hash scan that shipped
 * with 4.7) shows as a hang or as threads disagreeing about the answer.
 *
 * Oracle: every lookup of one name returns the same result and fileid, and
 * (present case) the fileid the name was created with.
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

static const struct dt_case cases[] = {
	{ "absent", run_absent },
	{ "present", run_present },
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
