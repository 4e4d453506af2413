/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parallel lookups of different names in one directory.  Since Linux 4.7
 * lookups in one directory take its i_rwsem shared and meet only per name
 * (d_alloc_parallel), so workers asking for different names must not
 * serialise, and none may get another's answer.  The leader creates the
 * names; every worker of every host then looks names up in a pattern
 * where, at each step, the workers ask for different names; every eighth
 * lookup asks for a name nobody creates.
 *
 * Oracles: each found name has the fileid it was created with and no
 * created name is ENOENT (dt_oracle_name_lifetime); names never created
 * are ENOENT (dt_oracle_never_created).  The aggregate lookup rate is
 * reported, not asserted (lookup throughput is perf's business).
 */
#include <errno.h>

#include "dentrace.h"

#define NAMES 200
/* one lookup in ABSENT_EVERY asks for a name nobody creates */
#define ABSENT_EVERY 8

static void lookup_worker(struct dt_worker *w)
{
	char name[DT_PATH_MAX];

	for (long k = 0; dt_worker_continue(w, k); k++) {
		/* distinct gids take distinct names at the same step */
		long i = (k * w->ngworkers + w->gid) % NAMES;

		if ((k + w->gid) % ABSENT_EVERY == 0)
			dt_pathbuf(w->run, name, sizeof(name), "d/nx.%ld", i);
		else
			dt_pathbuf(w->run, name, sizeof(name), "d/f.%ld", i);
		dt_lookup(w, name, NULL);
	}
}

static void run_parallel(struct dt_run *r)
{
	struct dt_worker *s = dt_setup_worker(r);
	uint64_t t0 = UINT64_MAX, t1 = 0;
	long found = 0, absent = 0, other = 0;
	struct dt_verdict v;

	if (dt_leader(r)) {
		dt_must(r, dt_mkdir(s, dt_path(r, "d")), "mkdir d");
		for (int i = 0; i < NAMES; i++)
			dt_must(r, dt_create(s, dt_path(r, "d/f.%d", i), true,
					     NULL), "create d/f.%d", i);
	}
	dt_run_workers(r, r->threads, lookup_worker, NULL);

	if (dt_oracle_name_lifetime(&r->hist, &v))
		dt_fail_verdict(r, "lookup of a created name", &v);
	if (dt_oracle_never_created(&r->hist, &v))
		dt_fail_verdict(r, "lookup of a name never created", &v);

	for (size_t i = 0; i < r->hist.n; i++) {
		const struct dt_event *e = &r->hist.ev[i];

		if (e->op != DT_OP_LOOKUP || e->thread == 0xffff)
			continue;
		found += e->result == 0;
		absent += e->result == -ENOENT;
		other += e->result && e->result != -ENOENT;
		t0 = e->start_ns < t0 ? e->start_ns : t0;
		t1 = e->end_ns > t1 ? e->end_ns : t1;
	}
	if (!found && !absent && !other)
		dt_broken(r, "no lookup ran: duration too short?");
	dt_diag(r, "lookups", "%ld found, %ld ENOENT, %ld other (%d workers x %d hosts)",
		found, absent, other, r->threads, r->nhosts);
	dt_diag(r, "lookup_rate", "%.0f/s",
		(double)(found + absent + other) /
		((double)(t1 - t0 + 1) / 1e9));
}

static const struct dt_case cases[] = {
	{ "names", run_parallel },
	{ NULL }
};

static const struct dt_test test = {
	.name = "lookup_parallel",
	.desc = "workers look up different names of one directory at once",
	.tags = "quick race lookup",
	.guards = "shared i_rwsem for lookups, d_alloc_parallel (Linux 4.7)",
	.threads = 8,
	.duration = 2,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
