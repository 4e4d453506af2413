/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unlink races.
 *
 * one_winner: K workers unlink one name at the same moment: exactly one
 * succeeds, the others get ENOENT.
 *
 * lookup_vs_unlink: one worker unlinks a name while the others look it up
 * and open it: each sees the file (with the fileid it was created with) or
 * ENOENT, never ESTALE or EIO, and nobody finds it after the unlink
 * returned.
 */
#include <errno.h>
#include <fcntl.h>

#include "dentrace.h"

/* rounds are lock-stepped and judged per name: a few hundred suffice */
#define MAX_ROUNDS 300

static void unlink_storm(struct dt_worker *w)
{
	char name[DT_PATH_MAX];

	for (long k = 0; k < MAX_ROUNDS && dt_worker_round(w, k); k++) {
		dt_pathbuf(w->run, name, sizeof(name), "victim.%ld", k);
		if (w->gid == 0 && dt_create(w, name, true, NULL) < 0)
			dt_fail(w->run, "create", "0", "error",
				"create %s for the round", name);
		dt_worker_sync(w);
		dt_unlink(w, name);
	}
}

static long count_rounds(struct dt_run *r, enum dt_opcode op)
{
	long n = 0;

	for (size_t i = 0; i < r->hist.n; i++)
		n += r->hist.ev[i].op == op && r->hist.ev[i].thread == 0 &&
		     r->hist.ev[i].host == 0 && r->hist.ev[i].result == 0;
	return n;
}

static void run_one_winner(struct dt_run *r)
{
	static const int allowed[] = { ENOENT, 0 };
	char name[DT_PATH_MAX];
	struct dt_verdict v;
	long rounds;

	dt_run_workers(r, r->threads < 2 ? 2 : r->threads, unlink_storm, NULL);
	rounds = count_rounds(r, DT_OP_CREATE);
	for (long k = 0; k < rounds; k++) {
		dt_pathbuf(r, name, sizeof(name), "victim.%ld", k);
		if (dt_oracle_one_winner(&r->hist, DT_OP_UNLINK, name, allowed,
					 &v)) {
			dt_fail_verdict(r, "one unlink winner", &v);
			break;
		}
	}
	dt_diag(r, "rounds", "%ld", rounds);
	if (!rounds)
		dt_broken(r, "no round ran");
}

static void lookup_vs_unlink(struct dt_worker *w)
{
	char name[DT_PATH_MAX];
	struct dt_file *f;

	for (long k = 0; k < MAX_ROUNDS && dt_worker_round(w, k); k++) {
		dt_pathbuf(w->run, name, sizeof(name), "victim.%ld", k);
		if (w->gid == 0)
			dt_create(w, name, true, NULL);
		dt_worker_sync(w);
		if (w->gid == 0) {
			dt_unlink(w, name);
			continue;
		}
		/* probe a few times so some probes straddle the unlink */
		for (int j = 0; j < 4; j++) {
			if ((w->id + j) % 2) {
				dt_lookup(w, name, NULL);
			} else if (dt_open(w, name, O_RDONLY, &f) == 0) {
				dt_close(w, f);
			}
		}
	}
}

static void run_lookup_vs_unlink(struct dt_run *r)
{
	struct dt_verdict v;

	dt_run_workers(r, r->threads < 2 ? 2 : r->threads, lookup_vs_unlink,
		       NULL);
	if (dt_oracle_name_lifetime(&r->hist, &v))
		dt_fail_verdict(r, "lookup/open racing unlink", &v);
	dt_diag(r, "rounds", "%ld", count_rounds(r, DT_OP_UNLINK));
	if (!count_rounds(r, DT_OP_UNLINK))
		dt_broken(r, "no round ran");
}

static const struct dt_case cases[] = {
	{ "one_winner", run_one_winner },
	{ "lookup_vs_unlink", run_lookup_vs_unlink },
	{ NULL }
};

static const struct dt_test test = {
	.name = "unlink_race",
	.desc = "racing unlinks: one winner; racing lookups see file or ENOENT",
	.tags = "quick race unlink",
	.needs = DT_NEED_OPEN,
	.threads = 6,
	.duration = 2,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
