/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lookups racing other clients' changes in one directory: every worker of
 * every host creates, renames and removes a few names of its own and,
 * between those, looks up the other workers' names and the directory
 * itself.  So a client's LOOKUP of a name another client is creating or
 * removing is often in flight while a reply to this client's own create,
 * rename or unlink (or its GETATTR of the directory) tells it that the
 * directory changed; and its own renames meet other clients' creates and
 * unlinks at the server's directory lock.  A correct client may answer
 * from a cache only within the mount's staleness bound.
 *
 * Oracles: the general ones every multi-host case gets.  The history
 * checker judges every lookup against the changes around it (within the
 * stale bound); the settle check (check/settle.h) re-reads every name on
 * every host once the load is over and the bound has passed: a client
 * that stamped an old answer as current keeps it until the directory
 * changes again, i.e. forever once the load stops, and disagrees with the
 * other hosts and with its own listing of the directory.
 */
#include <errno.h>

#include "dentrace.h"

/* names per worker: few, so that the others' lookups hit them often */
#define SLOTS 4

static void churn(struct dt_worker *w)
{
	struct dt_run *r = w->run;
	char a[DT_PATH_MAX], b[DT_PATH_MAX];

	for (long i = 0; dt_worker_continue(w, i); i++) {
		uint64_t x = dt_rand(&w->rng);
		int slot = (int)(x % SLOTS);
		int other = (int)((x >> 8) % (uint64_t)w->ngworkers);

		switch ((x >> 16) % 8) {
		case 0:	/* a name of its own appears */
			dt_pathbuf(r, a, sizeof(a), "n.%d.%d", w->gid, slot);
			dt_create(w, a, true, NULL);
			break;
		case 1:	/* ... moves to its other name and back */
			dt_pathbuf(r, a, sizeof(a), "n.%d.%d", w->gid, slot);
			dt_pathbuf(r, b, sizeof(b), "m.%d.%d", w->gid, slot);
			if (dt_rename(w, a, b) == -ENOENT)
				dt_rename(w, b, a);
			break;
		case 2:	/* ... and goes */
			dt_pathbuf(r, a, sizeof(a), "%c.%d.%d",
				   x >> 40 & 1 ? 'm' : 'n', w->gid, slot);
			dt_unlink(w, a);
			break;
		case 3:	/* the directory's attributes, fresh or cached */
			dt_lookup(w, r->scratch, NULL);
			break;
		default: /* another worker's name, likely on another host */
			dt_pathbuf(r, a, sizeof(a), "%c.%d.%d",
				   x >> 40 & 1 ? 'm' : 'n', other, slot);
			dt_lookup(w, a, NULL);
			break;
		}
	}
}

static void run_churn(struct dt_run *r)
{
	dt_run_workers(r, r->threads, churn, NULL);
	dt_diag(r, "ops", "%zu", r->hist.n);
	if (!r->hist.n)
		dt_broken(r, "no op ran: duration too short?");
}

static const struct dt_case cases[] = {
	{ "churn", run_churn },
	{ NULL }
};

static const struct dt_test test = {
	.name = "lookup_churn",
	.desc = "lookups of names other clients create, rename and remove",
	.tags = "quick race lookup coherence",
	.threads = 6,
	.duration = 2,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
