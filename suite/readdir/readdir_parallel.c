/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parallel readdir: every worker of every host lists one directory of a
 * couple of thousand entries in full at the same moment, round after
 * round.  Since Linux 4.7 readdir takes the directory's i_rwsem shared,
 * so listings of one directory really run side by side (and met d_lock
 * contention on tmpfs); on NFS they are concurrent READDIR streams with
 * their own cookies against one server directory.
 *
 * Oracle: nothing changes the directory while it is listed, so every
 * listing is exact (dt_oracle_readdir): every entry once, nothing else,
 * fileids as created.
 */
#include <errno.h>

#include "dentrace.h"

#define ENTRIES 2000
/* each listing stays in the history (2000 names): bound the rounds */
#define MAX_ROUNDS 20
/* and play a few whatever the duration: one round is hardly a race */
#define MIN_ROUNDS 3

/* the leader host's workers create the entries, split by worker */
static void create_worker(struct dt_worker *w)
{
	char name[DT_PATH_MAX];

	if (!dt_leader(w->run))
		return;
	for (long i = w->id; i < ENTRIES; i += w->nworkers) {
		dt_pathbuf(w->run, name, sizeof(name), "d/e.%ld", i);
		/* a failure is recorded; the case calls it broken after */
		if (dt_create(w, name, true, NULL) < 0)
			break;
	}
}

static void list_worker(struct dt_worker *w)
{
	long min_rounds = w->run->iterations < MIN_ROUNDS ?
			  w->run->iterations : MIN_ROUNDS;
	char dir[DT_PATH_MAX];

	dt_pathbuf(w->run, dir, sizeof(dir), "d");
	for (long k = 0; k < MAX_ROUNDS; k++) {
		/* every worker gets the same answer: all stop together */
		if (!dt_worker_round(w, k) && k >= min_rounds)
			break;
		dt_readdir(w, dir);
	}
}

/* unrecorded: the verdict is in; the harness's cleanup is one thread */
static void remove_worker(struct dt_worker *w)
{
	const struct dt_backend_ops *ops = w->run->target->ops;
	char name[DT_PATH_MAX];

	if (!dt_leader(w->run))
		return;
	for (long i = w->id; i < ENTRIES; i += w->nworkers) {
		dt_pathbuf(w->run, name, sizeof(name), "d/e.%ld", i);
		ops->unlink(w->conn, name);
	}
}

static void run_parallel(struct dt_run *r)
{
	struct dt_worker *s = dt_setup_worker(r);
	char dir[DT_PATH_MAX];
	struct dt_verdict v;
	long creates = 0, listings = 0, failed = 0;
	uint64_t busy = 0, t[4];

	dt_pathbuf(r, dir, sizeof(dir), "d");
	if (dt_leader(r))
		dt_must(r, dt_mkdir(s, dir), "mkdir %s", dir);
	t[0] = dt_now_ns();
	dt_run_workers(r, r->threads, create_worker, NULL);
	t[1] = dt_now_ns();
	for (size_t i = 0; i < r->hist.n; i++) {
		const struct dt_event *e = &r->hist.ev[i];

		if (e->op != DT_OP_CREATE)
			continue;
		if (e->result < 0)
			dt_broken(r, "creating %s: %s", e->name,
				  dt_strerr(e->result));
		creates++;
	}
	if (creates != ENTRIES)
		dt_broken(r, "created %ld of %d entries", creates, ENTRIES);

	dt_run_workers(r, r->threads, list_worker, NULL);
	t[2] = dt_now_ns();
	if (dt_oracle_readdir(&r->hist, dir, &v))
		dt_fail_verdict(r, "parallel listings", &v);
	for (size_t i = 0; i < r->hist.n; i++) {
		const struct dt_event *e = &r->hist.ev[i];

		if (e->op != DT_OP_READDIR)
			continue;
		listings++;
		busy += e->end_ns - e->start_ns;
		if (e->result < 0 && !failed++)
			dt_fail(r, "readdir", ">= 0", dt_strerr(e->result),
				"listing %s (h%u t%u) failed", e->name,
				e->host, e->thread);
	}
	dt_diag(r, "listings", "%ld (%d workers x %d hosts)", listings,
		r->threads, r->nhosts);
	if (failed)
		dt_diag(r, "failed_listings", "%ld", failed);
	if (listings)
		dt_diag(r, "listing_ms_mean", "%.1f",
			(double)busy / 1e6 / (double)listings);
	if (!listings)
		dt_broken(r, "no listing ran: duration too short?");
	dt_run_workers(r, r->threads, remove_worker, NULL);
	t[3] = dt_now_ns();
	dt_diag(r, "phases_s", "create %.2f list %.2f remove %.2f",
		(double)(t[1] - t[0]) / 1e9, (double)(t[2] - t[1]) / 1e9,
		(double)(t[3] - t[2]) / 1e9);
}

static const struct dt_case cases[] = {
	{ "parallel", run_parallel },
	{ NULL }
};

static const struct dt_test test = {
	.name = "readdir_parallel",
	.desc = "all workers list one 2000-entry directory at once: exact",
	.tags = "quick race readdir",
	.threads = 4,
	.duration = 1,
	.timeout = 90,
	.cases = cases,
};

DT_TEST_MAIN(test)
