/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_no_dir_loop: renames of A into B race renames of B into A.
 * One wins; the others fail with ENOENT (source or target parent gone) or,
 * for the other directory, EINVAL (its target is now inside it).  Both
 * winning would be a loop, cut off from the tree.
 */
#include "oracle_ev.h"
#include "check/oracle_race.h"

#define A "s/A.1"
#define B "s/B.1"
#define FA 11
#define FB 12

/* thread t's target: even threads move A into B, odd ones B into A */
static const char *from(int t)
{
	return t % 2 ? B : A;
}

static const char *to(int t)
{
	static const char *const name[] = {
		B "/a.0", A "/b.1", B "/a.2", A "/b.3",
	};

	return name[t];
}

/*
 * mkdir A, B [0,10]; lookups A, B [20,30]; thread t renames over
 * [100+t, 200+t] with result res[t] (events 4..7).
 */
static void race(struct dt_history *h, const int res[4])
{
	ev(h, 0xffff, DT_OP_MKDIR, A, NULL, 0, 0, 0, 10);
	ev(h, 0xffff, DT_OP_MKDIR, B, NULL, 0, 0, 0, 10);
	ev(h, 0, DT_OP_LOOKUP, A, NULL, 0, FA, 20, 30);
	ev(h, 0, DT_OP_LOOKUP, B, NULL, 0, FB, 20, 30);
	for (int t = 0; t < 4; t++)
		ev(h, t, DT_OP_RENAME, from(t), to(t), res[t], 0, 100 + t,
		   200 + t);
}

static size_t look(struct dt_history *h, const char *name, int result,
		   uint64_t fid, uint64_t s, uint64_t e)
{
	return ev(h, 9, DT_OP_LOOKUP, name, NULL, result, fid, s, e);
}

/* the lookups after the race, as they should be when thread w won */
static void after(struct dt_history *h, int w)
{
	bool a_moved = w % 2 == 0;

	look(h, A, a_moved ? -ENOENT : 0, a_moved ? 0 : FA, 300, 310);
	look(h, B, a_moved ? 0 : -ENOENT, a_moved ? FB : 0, 300, 310);
	for (int t = 0; t < 4; t++)
		look(h, to(t), t == w ? 0 : -ENOENT,
		     t == w ? (a_moved ? FA : FB) : 0, 300, 310);
}

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	/* good: A moved into B; B's movers fail EINVAL or ENOENT */
	race(&h, (int[]){ 0, -EINVAL, -ENOENT, -ENOENT });
	after(&h, 0);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: A into B wins, EINVAL/ENOENT losers");
	rc = dt_oracle_no_dir_loop(&h, B, A, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: same with a and b swapped");
	dt_history_sort(&h);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: same history sorted by start");
	dt_history_free(&h);

	/* good: B moved into A (a later starter may win) */
	race(&h, (int[]){ -ENOENT, -ENOENT, -EINVAL, 0 });
	after(&h, 3);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: B into A wins");
	dt_history_free(&h);

	/* good: lookups while the renames run are not judged here */
	race(&h, (int[]){ 0, -ENOENT, -ENOENT, -ENOENT });
	look(&h, A, 0, FA, 150, 160);
	look(&h, to(1), 0, FB, 150, 160);
	look(&h, A, 0, FA, 203, 210);		/* starts at the last end */
	after(&h, 0);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: overlapping lookups not judged");
	dt_history_free(&h);

	/* good: the round is torn down afterwards */
	race(&h, (int[]){ 0, -EINVAL, -ENOENT, -EINVAL });
	after(&h, 0);
	ev(&h, 0, DT_OP_RMDIR, to(0), NULL, 0, 0, 400, 410);
	look(&h, to(0), -ENOENT, 0, 420, 430);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: lookups after the teardown not judged");
	dt_history_free(&h);

	/* good: movers of one direction share a target name */
	race(&h, (int[]){ 0, -EINVAL, -ENOENT, -ENOENT });
	snprintf(h.ev[6].name2, sizeof(h.ev[6].name2), "%s", to(0));
	after(&h, 0);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: a loser's target is the winner's name");
	dt_history_free(&h);

	/* bad: both directions won: the loop */
	race(&h, (int[]){ 0, 0, -ENOENT, -ENOENT });
	look(&h, A, -ENOENT, 0, 300, 310);
	look(&h, B, -ENOENT, 0, 300, 310);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 1, 5, "loop", "bad: both renames succeeded (loop)");
	ok(strstr(v.expected, "#4 ") && strstr(v.observed, "#5 "),
	   "  verdict names both renames");
	dt_history_free(&h);

	/* bad: the replies say one won, the tree says both moved */
	race(&h, (int[]){ 0, -EINVAL, -ENOENT, -ENOENT });
	bad = h.n + 1;
	look(&h, A, -ENOENT, 0, 300, 310);
	look(&h, B, -ENOENT, 0, 300, 310);
	look(&h, to(0), -ENOENT, 0, 300, 310);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 2, bad, "lost after the race",
		   "bad: both directories unreachable = 2");
	dt_history_free(&h);

	/* bad: the other nesting shows up too */
	race(&h, (int[]){ 0, -EINVAL, -ENOENT, -ENOENT });
	after(&h, 0);
	bad = look(&h, to(1), 0, FB, 320, 330);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 1, bad, "found after the race",
		   "bad: A/b.1 found although its rename failed");
	dt_history_free(&h);

	/* bad: the moved directory is not the one that was A */
	race(&h, (int[]){ 0, -EINVAL, -ENOENT, -ENOENT });
	after(&h, 0);
	bad = look(&h, to(0), 0, FB, 320, 330);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 1, bad, "fileid mismatch", "bad: B/a.0 holds B's fileid");
	dt_history_free(&h);

	/* bad: A moved twice */
	race(&h, (int[]){ 0, -EINVAL, 0, -ENOENT });
	after(&h, 0);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 1, 6, "moved twice", "bad: two winners, one direction");
	dt_history_free(&h);

	/* bad: nobody won */
	race(&h, (int[]){ -EINVAL, -EINVAL, -ENOENT, -ENOENT });
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 1, 4, "no winner", "bad: all four failed");
	is_int(dt_oracle_no_dir_loop(&h, A, B, NULL), 1,
	       "  a NULL verdict still gets the count");
	dt_history_free(&h);

	/* bad: EINVAL for the winner's own direction: its source is gone */
	race(&h, (int[]){ 0, -ENOENT, -EINVAL, -ENOENT });
	after(&h, 0);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 1, 6, "failed wrongly", "bad: EINVAL for a vanished source");
	ok(strstr(v.expected, "ENOENT") && !strstr(v.expected, "EINVAL"),
	   "  only ENOENT expected there");
	dt_history_free(&h);

	/* bad: errnos POSIX does not give for this race */
	race(&h, (int[]){ 0, -EXDEV, -ENOENT, -ENOENT });
	after(&h, 0);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 1, 5, "failed wrongly", "bad: EXDEV loser");
	dt_history_free(&h);

	race(&h, (int[]){ -ESTALE, -ENOTEMPTY, -ENOENT, 0 });
	after(&h, 3);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 2, 4, "failed wrongly", "bad: ESTALE + ENOTEMPTY = 2");
	dt_history_free(&h);

	/* bad: ESTALE to a lookup after the race */
	race(&h, (int[]){ 0, -EINVAL, -ENOENT, -ENOENT });
	after(&h, 0);
	bad = look(&h, B, -ESTALE, 0, 320, 330);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 1, bad, "ESTALE", "bad: ESTALE lookup after the race");
	dt_history_free(&h);

	/* misuse: the winner's target was never looked up */
	race(&h, (int[]){ 0, -EINVAL, -ENOENT, -ENOENT });
	look(&h, A, -ENOENT, 0, 300, 310);
	look(&h, B, 0, FB, 300, 310);
	rc = dt_oracle_no_dir_loop(&h, A, B, &v);
	verdict_is(rc, &v, 1, NO_EVENT, "not checked", "no lookup of the winner's target is flagged");
	dt_history_free(&h);

	/* misuse: wrong names */
	race(&h, (int[]){ 0, -EINVAL, -ENOENT, -ENOENT });
	after(&h, 0);
	rc = dt_oracle_no_dir_loop(&h, "s/A.2", "s/B.2", &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no RENAME", "names nobody renamed are flagged");
	rc = dt_oracle_no_dir_loop(&h, A, A "/x", &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no loop race", "nested names are flagged");
	rc = dt_oracle_no_dir_loop(&h, A, A, &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no loop race", "one name twice is flagged");
	dt_history_free(&h);

	return done();
}
