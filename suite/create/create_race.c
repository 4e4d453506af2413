/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Racing creates of one name.
 *
 * Each round, every worker of the run (of every host) makes the same new
 * name at the same moment: by an exclusive create (O_CREAT|O_EXCL; NFSv3
 * GUARDED, NFSv4 EXCLUSIVE4), by mkdir, or by link(2) from a file made for
 * the round.  Exactly one succeeds and every other gets EEXIST: a server
 * whose check for an existing name is not atomic with the insert lets two
 * win (and one file silently replaces the other).  After the round a
 * lookup of the name must find it, as the winner made it.
 */
#include <errno.h>
#include <string.h>

#include "dentrace.h"

/* rounds are lock-stepped and judged per name: a few hundred suffice */
#define MAX_ROUNDS 300

/*
 * The history stays below ~50 MB (about 250 bytes an event) however many
 * workers the run has: fewer rounds for more workers.  Every worker gets
 * the same answer, as dt_worker_round() requires.
 */
#define EVENT_BUDGET 200000

static long max_rounds(const struct dt_worker *w, int ops_per_worker)
{
	long n = EVENT_BUDGET / ((long)w->ngworkers * ops_per_worker);

	return n < 1 ? 1 : n > MAX_ROUNDS ? MAX_ROUNDS : n;
}

/*
 * A barrier inside a round.  A round once begun is played to its end, so
 * that a link source made for it is always raced for; the end of the run
 * is noticed at the next round.
 */
static void round_sync(struct dt_worker *w, long k)
{
	(void)dt_worker_round(w, k);
}

enum maker { BY_CREATE, BY_MKDIR, BY_LINK };

static const enum dt_opcode maker_op[] = {
	[BY_CREATE] = DT_OP_CREATE,
	[BY_MKDIR] = DT_OP_MKDIR,
	[BY_LINK] = DT_OP_LINK,
};

static void create_storm(struct dt_worker *w)
{
	const enum maker how = *(const enum maker *)w->arg;
	const long rounds = max_rounds(w, 3);
	char name[DT_PATH_MAX], src[DT_PATH_MAX];
	int rc;

	for (long k = 0; k < rounds && dt_worker_round(w, k); k++) {
		dt_pathbuf(w->run, name, sizeof(name), "new.%ld", k);
		dt_pathbuf(w->run, src, sizeof(src), "src.%ld", k);
		/* the link race needs a file to link: gid 0 makes it */
		if (how == BY_LINK && w->gid == 0) {
			rc = dt_create(w, src, true, NULL);
			if (rc < 0)
				dt_fail(w->run, "create", "0", dt_strerr(rc),
					"create %s, the round's link source",
					src);
		}
		/* released together: the race */
		round_sync(w, k);
		switch (how) {
		case BY_CREATE:
			dt_create(w, name, true, NULL);
			break;
		case BY_MKDIR:
			dt_mkdir(w, name);
			break;
		case BY_LINK:
			dt_link(w, src, name);
			break;
		}
		/* once all are done, the name must be there */
		round_sync(w, k);
		if (w->gid == 0)
			dt_lookup(w, name, NULL);
	}
}

/* rounds played: gid 0 (host 0, worker 0) takes part in every one */
static long count_rounds(const struct dt_run *r, enum dt_opcode op)
{
	long n = 0;

	for (size_t i = 0; i < r->hist.n; i++)
		n += r->hist.ev[i].op == op && r->hist.ev[i].host == 0 &&
		     r->hist.ev[i].thread == 0;
	return n;
}

/* the round's link source exists: else the round tested nothing */
static bool source_made(const struct dt_run *r, const char *src)
{
	for (size_t i = 0; i < r->hist.n; i++)
		if (r->hist.ev[i].op == DT_OP_CREATE &&
		    !r->hist.ev[i].result && !strcmp(r->hist.ev[i].name, src))
			return true;
	return false;
}

static void run_race(struct dt_run *r, enum maker how)
{
	static const int eexist[] = { EEXIST, 0 };
	const enum dt_opcode op = maker_op[how];
	char name[DT_PATH_MAX], src[DT_PATH_MAX];
	struct dt_verdict v, first = { 0 };
	long rounds, bad = 0;

	dt_run_workers(r, r->threads < 2 ? 2 : r->threads, create_storm,
		       &how);
	rounds = count_rounds(r, op);
	for (long k = 0; k < rounds; k++) {
		dt_pathbuf(r, name, sizeof(name), "new.%ld", k);
		dt_pathbuf(r, src, sizeof(src), "src.%ld", k);
		if (how == BY_LINK && !source_made(r, src))
			continue;	/* already failed, by the worker */
		if (dt_oracle_one_winner(&r->hist, op, name, eexist, &v) &&
		    !bad++)
			first = v;
	}
	if (bad) {
		dt_fail_verdict(r, "one winner", &first);
		dt_diag(r, "bad_rounds", "%ld of %ld", bad, rounds);
	}
	/* lookups after the race find the winner's file */
	if (dt_oracle_name_lifetime(&r->hist, &v))
		dt_fail_verdict(r, "name lifetime", &v);
	dt_diag(r, "rounds", "%ld", rounds);
	dt_diag(r, "racers", "%d", (r->threads < 2 ? 2 : r->threads) *
		(r->nhosts > 0 ? r->nhosts : 1));
	if (!rounds)
		dt_broken(r, "no round ran");
}

static void run_create(struct dt_run *r)
{
	run_race(r, BY_CREATE);
}

static void run_mkdir(struct dt_run *r)
{
	run_race(r, BY_MKDIR);
}

static void run_link(struct dt_run *r)
{
	run_race(r, BY_LINK);
}

static const struct dt_case cases[] = {
	{ "create", run_create },
	{ "mkdir", run_mkdir },
	{ "link", run_link },
	{ NULL }
};

static const struct dt_test test = {
	.name = "create_race",
	.desc = "K racing exclusive creates / mkdirs / links of one name: one winner, EEXIST for the rest",
	.tags = "quick race create mkdir link",
	.needs = DT_NEED_LINK,
	.threads = 6,
	.duration = 2,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
