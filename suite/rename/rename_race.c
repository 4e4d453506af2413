/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Racing renames.
 *
 * one_source: each round gid 0 creates src.k, then every worker of the
 * run renames src.k to its own dst.k.<gid> at the same moment.  Exactly
 * one succeeds; the others get ENOENT.  Afterwards the file is under the
 * winner's name only (same fileid), src.k is gone, the losers' names were
 * never made.
 *
 * one_client: as one_source, but in each round only the workers of one
 * client race (the clients take turns: round k is client k % hosts's),
 * and that client made src.k, so its racers share the client's one cached
 * dentry for the name.  In one_source the other clients' renames reach
 * the server too: when one of them wins, every racer on the client that
 * made the name loses with ENOENT and a same-client race (two renames of
 * one dentry on one kernel client) has nothing to show.  Here the winner
 * is always on the racing client.  The other clients only look: after the
 * round their worker 0 looks src.k up (gone, within their stale bound).
 *
 * dir_loop: each round gid 0 makes directories A.k and B.k side by side;
 * even workers rename A.k to B.k/a.<gid>, odd ones B.k to A.k/b.<gid>, all
 * at once.  Done one after the other, the first succeeds and the second
 * would move a directory under itself: EINVAL, or ENOENT when its path
 * is gone.  A server that checks "is the target inside the source" apart
 * from the move itself lets both succeed: A.k and B.k then contain each
 * other and neither can be reached from the tree any more.  Lookups after
 * the round show which happened.  (nfs-ganesha's MDCACHE takes the two
 * directories' locks with a trylock and backs off with sleep(1): some
 * renames of this race take a second there.  Slow, not wrong; the case
 * then plays fewer rounds in its duration.)
 *
 * into_self: the plain case, without a race partner: renaming d.k to
 * d.k/x or d.k/sub/x must fail with EINVAL, however many try at once.
 *
 * noreplace: each round every worker creates its own src.k.<gid>, then
 * all rename theirs onto one dst.k at the same moment with
 * RENAME_NOREPLACE (renameat2): the target's absence is checked in the
 * same atomic step as the move, so exactly one succeeds and the others
 * get EEXIST, their sources left in place; dst.k is the winner's file.
 * A target that does not do the flag (Linux's NFS client answers EINVAL;
 * libnfs: NFS has no such call) skips the case: unsupported is not a
 * verdict on the server.
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

static int nworkers(const struct dt_run *r)
{
	return r->threads < 2 ? 2 : r->threads;
}

/*
 * Rounds played: worker 0 of host 0 renames once in each; in one_client
 * (any_host) worker 0 of the racing client does, one client a round.
 */
static long count_rounds(const struct dt_run *r, bool any_host)
{
	long n = 0;

	for (size_t i = 0; i < r->hist.n; i++)
		n += r->hist.ev[i].op == DT_OP_RENAME &&
		     (any_host || r->hist.ev[i].host == 0) &&
		     r->hist.ev[i].thread == 0;
	return n;
}

/*
 * The round's setup made path.  When it did not, the worker already failed
 * the case for it and the race had nothing to race for: not judged again.
 */
static bool made(const struct dt_run *r, enum dt_opcode op, const char *path)
{
	for (size_t i = 0; i < r->hist.n; i++)
		if (r->hist.ev[i].op == op && !r->hist.ev[i].result &&
		    !strcmp(r->hist.ev[i].name, path))
			return true;
	return false;
}

/*
 * A barrier inside a round.  A round once begun is played to its end, so
 * that each name it made is judged whole (a race without its lookups would
 * read as "not checked"); the end of the run is noticed at the next round.
 */
static void round_sync(struct dt_worker *w, long k)
{
	(void)dt_worker_round(w, k);
}

/* Report the first bad round in full and how many there were. */
struct tally {
	long bad;
	struct dt_verdict first;
};

static void tally_add(struct tally *t, int violations,
		      const struct dt_verdict *v)
{
	if (violations && !t->bad++)
		t->first = *v;
}

static void tally_report(struct dt_run *r, const struct tally *t,
			 const char *oracle, long rounds)
{
	if (!t->bad)
		return;
	dt_fail_verdict(r, oracle, &t->first);
	dt_diag(r, "bad_rounds", "%ld of %ld", t->bad, rounds);
}

/* ---- one_source ----------------------------------------------------------- */

/* the round's file src, exclusively; a failure fails the case */
static void create_for_round(struct dt_worker *w, const char *src)
{
	int rc = dt_create(w, src, true, NULL);

	if (rc < 0)
		dt_fail(w->run, "create", "0", dt_strerr(rc),
			"create %s for the round", src);
}

static void one_source_worker(struct dt_worker *w)
{
	const long rounds = max_rounds(w, 3);
	char src[DT_PATH_MAX], dst[DT_PATH_MAX];

	for (long k = 0; k < rounds && dt_worker_round(w, k); k++) {
		dt_pathbuf(w->run, src, sizeof(src), "src.%ld", k);
		dt_pathbuf(w->run, dst, sizeof(dst), "dst.%ld.%d", k, w->gid);
		if (w->gid == 0)
			create_for_round(w, src);
		round_sync(w, k);
		dt_rename(w, src, dst);
		/* the state the race left: src, and each worker's target */
		round_sync(w, k);
		if (w->gid == 0)
			dt_lookup(w, src, NULL);
		dt_lookup(w, dst, NULL);
	}
}

/* each round's src.k: one winner, whoever raced for it */
static void judge_one_source(struct dt_run *r, long rounds, const char *oracle)
{
	char src[DT_PATH_MAX];
	struct tally t = { 0 };
	struct dt_verdict v;

	for (long k = 0; k < rounds; k++) {
		dt_pathbuf(r, src, sizeof(src), "src.%ld", k);
		if (!made(r, DT_OP_CREATE, src))
			continue;
		tally_add(&t, dt_oracle_rename_one_source(&r->hist, src, &v),
			  &v);
	}
	tally_report(r, &t, oracle, rounds);
	dt_diag(r, "rounds", "%ld", rounds);
	if (!rounds)
		dt_broken(r, "no round ran");
}

static void run_one_source(struct dt_run *r)
{
	dt_run_workers(r, nworkers(r), one_source_worker, NULL);
	judge_one_source(r, count_rounds(r, false), "one rename winner");
}

/* ---- one_client ----------------------------------------------------------- */

static void one_client_worker(struct dt_worker *w)
{
	const struct dt_run *r = w->run;
	const long rounds = max_rounds(w, 3);
	char src[DT_PATH_MAX], dst[DT_PATH_MAX];

	for (long k = 0; k < rounds && dt_worker_round(w, k); k++) {
		bool racing = r->host == (int)(k % r->nhosts);

		dt_pathbuf(w->run, src, sizeof(src), "src.%ld", k);
		dt_pathbuf(w->run, dst, sizeof(dst), "dst.%ld.%d", k, w->gid);
		if (racing && w->id == 0)
			create_for_round(w, src);
		round_sync(w, k);
		if (racing)
			dt_rename(w, src, dst);
		round_sync(w, k);
		if (w->id == 0)
			dt_lookup(w, src, NULL);
		if (racing)
			dt_lookup(w, dst, NULL);
	}
}

static void run_one_client(struct dt_run *r)
{
	dt_run_workers(r, nworkers(r), one_client_worker, NULL);
	judge_one_source(r, count_rounds(r, true),
			 "one rename winner on one client");
}

/* ---- dir_loop ------------------------------------------------------------- */

static void dir_loop_worker(struct dt_worker *w)
{
	char a[DT_PATH_MAX], b[DT_PATH_MAX], to[DT_PATH_MAX];
	const long rounds = max_rounds(w, 3);
	bool move_a = w->gid % 2 == 0;
	int rc;

	for (long k = 0; k < rounds && dt_worker_round(w, k); k++) {
		dt_pathbuf(w->run, a, sizeof(a), "A.%ld", k);
		dt_pathbuf(w->run, b, sizeof(b), "B.%ld", k);
		if (move_a)
			dt_pathbuf(w->run, to, sizeof(to), "B.%ld/a.%d", k,
				   w->gid);
		else
			dt_pathbuf(w->run, to, sizeof(to), "A.%ld/b.%d", k,
				   w->gid);
		if (w->gid == 0) {
			rc = dt_mkdir(w, a);
			if (!rc)
				rc = dt_mkdir(w, b);
			if (rc < 0)
				dt_fail(w->run, "mkdir", "0", dt_strerr(rc),
					"mkdir %s and %s for the round", a, b);
			/* the directories' fileids, to know them once moved */
			dt_lookup(w, a, NULL);
			dt_lookup(w, b, NULL);
		}
		round_sync(w, k);
		dt_rename(w, move_a ? a : b, to);
		round_sync(w, k);
		if (w->gid == 0) {
			dt_lookup(w, a, NULL);
			dt_lookup(w, b, NULL);
		}
		dt_lookup(w, to, NULL);
	}
}

static void run_dir_loop(struct dt_run *r)
{
	char a[DT_PATH_MAX], b[DT_PATH_MAX];
	struct tally t = { 0 };
	struct dt_verdict v;
	long rounds;

	dt_run_workers(r, nworkers(r), dir_loop_worker, NULL);
	rounds = count_rounds(r, false);
	for (long k = 0; k < rounds; k++) {
		dt_pathbuf(r, a, sizeof(a), "A.%ld", k);
		dt_pathbuf(r, b, sizeof(b), "B.%ld", k);
		if (!made(r, DT_OP_MKDIR, a) || !made(r, DT_OP_MKDIR, b))
			continue;
		tally_add(&t, dt_oracle_no_dir_loop(&r->hist, a, b, &v), &v);
	}
	tally_report(r, &t, "no directory loop", rounds);
	dt_diag(r, "rounds", "%ld", rounds);
	if (!rounds)
		dt_broken(r, "no round ran");
}

/* ---- into_self ------------------------------------------------------------ */

static void into_self_worker(struct dt_worker *w)
{
	const long rounds = max_rounds(w, 3);
	char d[DT_PATH_MAX], sub[DT_PATH_MAX], to[DT_PATH_MAX];
	int rc;

	for (long k = 0; k < rounds && dt_worker_round(w, k); k++) {
		dt_pathbuf(w->run, d, sizeof(d), "d.%ld", k);
		dt_pathbuf(w->run, sub, sizeof(sub), "d.%ld/sub", k);
		/* right below itself, and one level further down */
		if (w->gid % 2)
			dt_pathbuf(w->run, to, sizeof(to), "d.%ld/sub/x.%d",
				   k, w->gid);
		else
			dt_pathbuf(w->run, to, sizeof(to), "d.%ld/x.%d", k,
				   w->gid);
		if (w->gid == 0) {
			rc = dt_mkdir(w, d);
			if (!rc)
				rc = dt_mkdir(w, sub);
			if (rc < 0)
				dt_fail(w->run, "mkdir", "0", dt_strerr(rc),
					"mkdir %s and %s for the round", d,
					sub);
		}
		round_sync(w, k);
		dt_rename(w, d, to);
		round_sync(w, k);
		/* still where it was: judged by the name lifetime oracle */
		if (w->gid == 0) {
			dt_lookup(w, d, NULL);
			dt_lookup(w, sub, NULL);
		}
	}
}

static void run_into_self(struct dt_run *r)
{
	struct dt_verdict v;
	long rounds;

	dt_run_workers(r, nworkers(r), into_self_worker, NULL);
	rounds = count_rounds(r, false);
	if (dt_oracle_no_move_into_self(&r->hist, &v))
		dt_fail_verdict(r, "no move into itself", &v);
	if (dt_oracle_name_lifetime(&r->hist, &v))
		dt_fail_verdict(r, "name lifetime", &v);
	dt_diag(r, "rounds", "%ld", rounds);
	if (!rounds)
		dt_broken(r, "no round ran");
}

/* ---- noreplace ------------------------------------------------------------ */

static void noreplace_worker(struct dt_worker *w)
{
	const long rounds = max_rounds(w, 4);
	char src[DT_PATH_MAX], dst[DT_PATH_MAX];

	for (long k = 0; k < rounds && dt_worker_round(w, k); k++) {
		dt_pathbuf(w->run, src, sizeof(src), "src.%ld.%d", k, w->gid);
		dt_pathbuf(w->run, dst, sizeof(dst), "dst.%ld", k);
		create_for_round(w, src);
		round_sync(w, k);
		dt_rename_noreplace(w, src, dst);
		/* the state the race left: the target, each source */
		round_sync(w, k);
		if (w->gid == 0)
			dt_lookup(w, dst, NULL);
		dt_lookup(w, src, NULL);
	}
}

static void run_noreplace(struct dt_run *r)
{
	static const int eexist[] = { EEXIST, 0 };
	char dst[DT_PATH_MAX], why[256];
	struct tally t = { 0 };
	struct dt_verdict v;
	long rounds;
	int rc = dt_rename_noreplace_supported(r, why, sizeof(why));

	if (rc == DT_PROBE_FAILED)
		return;
	if (rc < 0)
		dt_broken(r, "probe RENAME_NOREPLACE: %s", why);
	if (!rc)
		dt_skip(r, "RENAME_NOREPLACE unsupported: %s", why);
	dt_run_workers(r, nworkers(r), noreplace_worker, NULL);
	rounds = count_rounds(r, false);
	for (long k = 0; k < rounds; k++) {
		dt_pathbuf(r, dst, sizeof(dst), "dst.%ld", k);
		tally_add(&t, dt_oracle_one_winner(&r->hist, DT_OP_RENAME, dst,
						   eexist, &v), &v);
	}
	tally_report(r, &t, "one no-replace rename winner", rounds);
	if (dt_oracle_name_lifetime(&r->hist, &v))
		dt_fail_verdict(r, "name lifetime", &v);
	dt_diag(r, "rounds", "%ld", rounds);
	if (!rounds)
		dt_broken(r, "no round ran");
}

static const struct dt_case cases[] = {
	{ "one_source", run_one_source },
	{ "one_client", run_one_client },
	{ "dir_loop", run_dir_loop },
	{ "into_self", run_into_self },
	{ "noreplace", run_noreplace },
	{ NULL }
};

static const struct dt_test test = {
	.name = "rename_race",
	.desc = "racing renames: one winner of one source, among all clients and among one client's workers; no directory loop; never into itself; one no-replace winner per target",
	.tags = "quick race rename",
	.threads = 4,
	.duration = 2,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
