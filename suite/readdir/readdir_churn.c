/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Readdir under churn: while half the workers create and unlink names in a
 * directory, the other half list it in full, again and again.  A listing
 * never has a duplicate name, always has every entry that existed for the
 * whole listing (the stable ones, and churn names that stayed), never has
 * a name that could not have existed during it, and its fileids agree with
 * the fileids the names were created with.  Enough stable entries make a
 * listing take several READDIR round trips, so cookies are exercised.
 */
#include <errno.h>

#include "dentrace.h"

#define STABLE 300
#define CHURN 64
/* each listing is kept in the history: bound them (330 names each) */
#define MAX_LISTINGS 300

static void churn_worker(struct dt_worker *w)
{
	char name[DT_PATH_MAX], dir[DT_PATH_MAX];
	int churners = w->ngworkers / 2;

	dt_pathbuf(w->run, dir, sizeof(dir), "d");
	for (long k = 0; dt_worker_continue(w, k); k++) {
		if (w->gid >= churners) {
			if (k >= MAX_LISTINGS)
				break;
			dt_readdir(w, dir);
			continue;
		}
		/* each churner owns its names: creates and unlinks succeed */
		long n = (long)(dt_rand(&w->rng) % (CHURN / churners));
		dt_pathbuf(w->run, name, sizeof(name), "d/c.%d.%ld", w->gid, n);
		if (dt_create(w, name, true, NULL) == -EEXIST)
			dt_unlink(w, name);
	}
}

static void run_churn(struct dt_run *r)
{
	struct dt_worker *s = dt_setup_worker(r);
	char dir[DT_PATH_MAX];
	struct dt_verdict v;
	long listings = 0;

	dt_pathbuf(r, dir, sizeof(dir), "d");
	if (dt_leader(r)) {
		dt_must(r, dt_mkdir(s, dir), "mkdir %s", dir);
		for (int i = 0; i < STABLE; i++)
			dt_must(r, dt_create(s, dt_path(r, "d/stable.%d", i),
					     true, NULL), "create stable.%d", i);
	}
	dt_run_workers(r, r->threads < 2 ? 2 : r->threads, churn_worker, NULL);
	if (dt_oracle_readdir(&r->hist, dir, &v))
		dt_fail_verdict(r, "readdir under churn", &v);
	for (size_t i = 0; i < r->hist.n; i++) {
		const struct dt_event *e = &r->hist.ev[i];

		if (e->op == DT_OP_READDIR && e->result < 0) {
			dt_fail(r, "readdir", ">= 0", dt_strerr(e->result),
				"listing %s failed", e->name);
			break;
		}
		listings += e->op == DT_OP_READDIR;
	}
	dt_diag(r, "listings", "%ld", listings);
	if (!listings)
		dt_broken(r, "no listing ran");
}

static const struct dt_case cases[] = {
	{ "churn", run_churn },
	{ NULL }
};

static const struct dt_test test = {
	.name = "readdir_churn",
	.desc = "full listings during creates/unlinks: no dup, none missing",
	.tags = "quick race readdir",
	.threads = 4,
	.duration = 2,
	.timeout = 90,
	.cases = cases,
};

DT_TEST_MAIN(test)
