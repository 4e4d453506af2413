/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_rename_one_source: K workers rename one file src to a name of
 * their own.  Exactly one wins, the others get ENOENT; afterwards src is
 * gone and the file sits under the winner's name only.
 */
#include "oracle_ev.h"
#include "check/oracle_race.h"

#define SRC "s/src.3"
#define FID 7
#define K 4

static const char *dst(int t)
{
	static const char *const name[K] = {
		"s/dst.3.0", "s/dst.3.1", "s/dst.3.2", "s/dst.3.3",
	};

	return name[t];
}

/*
 * create src [0,10]; thread t renames src -> dst(t) over [100+t, 200+t];
 * winner gets 0, the rest loser_err.  The race is over at 203.
 */
static void race(struct dt_history *h, int winner, int loser_err)
{
	ev(h, 0xffff, DT_OP_CREATE, SRC, NULL, 0, FID, 0, 10);
	for (int t = 0; t < K; t++)
		ev(h, t, DT_OP_RENAME, SRC, dst(t), t == winner ? 0 : loser_err,
		   0, 100 + t, 200 + t);
}

static size_t look(struct dt_history *h, const char *name, int result,
		   uint64_t fid, uint64_t s, uint64_t e)
{
	return ev(h, 9, DT_OP_LOOKUP, name, NULL, result, fid, s, e);
}

/* what every worker looks up once the round's race is over */
static void after(struct dt_history *h, int winner)
{
	look(h, SRC, -ENOENT, 0, 300, 310);
	for (int t = 0; t < K; t++)
		look(h, dst(t), t == winner ? 0 : -ENOENT,
		     t == winner ? FID : 0, 300, 310);
}

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	/* good */
	race(&h, 2, -ENOENT);
	after(&h, 2);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: 4 renames, 1 winner, state after agrees");
	dt_history_sort(&h);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: same history sorted by start");
	dt_history_free(&h);

	/* lookups while renames are in flight may see either state */
	race(&h, 0, -ENOENT);
	look(&h, SRC, 0, FID, 150, 160);
	look(&h, dst(3), 0, FID, 150, 160);	/* not even judged here */
	look(&h, SRC, 0, FID, 150, 203);	/* ends as the race ends */
	look(&h, SRC, 0, FID, 203, 210);	/* starts at its last end */
	after(&h, 0);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: overlapping lookups are not judged");
	dt_history_free(&h);

	/* the backend could not say the fileid: any will do */
	race(&h, 1, -ENOENT);
	after(&h, 1);
	h.ev[0].fileid = 0;
	h.ev[h.n - 3].fileid = 99;
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: unknown create fileid matches any");
	dt_history_free(&h);

	/* the test cleans up later: lookups after that are not the race's */
	race(&h, 1, -ENOENT);
	after(&h, 1);
	ev(&h, 0, DT_OP_UNLINK, dst(1), NULL, 0, 0, 400, 410);
	ev(&h, 0, DT_OP_CREATE, SRC, NULL, 0, FID + 1, 420, 430);
	look(&h, dst(1), -ENOENT, 0, 440, 450);
	look(&h, SRC, 0, FID + 1, 440, 450);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: lookups after a later mutation not judged");
	dt_history_free(&h);

	/* another round in the same history is another race */
	race(&h, 3, -ENOENT);
	after(&h, 3);
	ev(&h, 0, DT_OP_RENAME, "s/src.4", "s/dst.4.0", 0, 0, 400, 410);
	ev(&h, 1, DT_OP_RENAME, "s/src.4", "s/dst.4.1", -ESTALE, 0, 400, 410);
	look(&h, "s/src.4", 0, 5, 500, 510);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: other rounds' names ignored");
	dt_history_free(&h);

	/* no create recorded (another host made it): a lookup before tells */
	for (int t = 0; t < K; t++)
		ev(&h, t, DT_OP_RENAME, SRC, dst(t), t ? -ENOENT : 0, 0, 100, 200);
	look(&h, SRC, 0, FID, 50, 60);
	bad = look(&h, dst(0), 0, FID + 1, 300, 310);
	look(&h, SRC, -ENOENT, 0, 300, 310);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 1, bad, "fileid mismatch",
		   "bad: identity from a lookup before the race");
	dt_history_free(&h);

	/* bad: two renames of one source both succeeded */
	race(&h, 1, -ENOENT);
	h.ev[4].result = 0;			/* thread 3 */
	after(&h, 1);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 1, 4, "two winners", "bad: two winners");
	ok(strstr(v.expected, "#2 ") && strstr(v.observed, "#4 "),
	   "  verdict names both winners");
	dt_history_free(&h);

	/* bad: everybody lost */
	race(&h, -1, -ENOENT);
	look(&h, SRC, 0, FID, 300, 310);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 1, 1, "no winner", "bad: no winner");
	is_int(dt_oracle_rename_one_source(&h, SRC, NULL), 1,
	       "  a NULL verdict still gets the count");
	dt_history_free(&h);

	/* bad: a loser saw a stale handle (the NFS server's race) */
	race(&h, 0, -ENOENT);
	h.ev[3].result = -ESTALE;
	after(&h, 0);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 1, 3, "failed wrongly", "bad: ESTALE loser");
	ok(strstr(v.observed, "ESTALE") && strstr(v.expected, "ENOENT"),
	   "  verdict shows ESTALE against ENOENT");
	dt_history_free(&h);

	/* bad: EEXIST is no answer for a source that is gone */
	race(&h, 0, -EEXIST);
	after(&h, 0);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 3, 2, "failed wrongly", "bad: 3 EEXIST losers = 3");
	dt_history_free(&h);

	/* bad: src still there after the rename that moved it */
	race(&h, 2, -ENOENT);
	after(&h, 2);
	bad = look(&h, SRC, 0, FID, 320, 330);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 1, bad, "found after the race", "bad: src still found");
	ok(strstr(v.expected, "#3 ") != NULL, "  expected names the winner");
	dt_history_free(&h);

	/* bad: the winner's name is empty */
	race(&h, 2, -ENOENT);
	bad = h.n;
	look(&h, dst(2), -ENOENT, 0, 300, 310);
	look(&h, SRC, -ENOENT, 0, 300, 310);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 1, bad, "lost after the race", "bad: the file vanished");
	dt_history_free(&h);

	/* bad: a loser's target exists (its rename did happen) */
	race(&h, 2, -ENOENT);
	after(&h, 2);
	bad = look(&h, dst(0), 0, FID, 320, 330);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 1, bad, "found after the race", "bad: two names after the race");
	dt_history_free(&h);

	/* bad: the winner's name holds another file */
	race(&h, 2, -ENOENT);
	after(&h, 2);
	bad = look(&h, dst(2), 0, FID + 1, 320, 330);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 1, bad, "fileid mismatch", "bad: another file under the winner's name");
	dt_history_free(&h);

	/* bad: ESTALE to a path lookup after the race */
	race(&h, 2, -ENOENT);
	after(&h, 2);
	bad = look(&h, dst(1), -ESTALE, 0, 320, 330);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 1, bad, "ESTALE", "bad: ESTALE from a lookup after the race");
	dt_history_free(&h);

	/* many racers: every loser's target is judged, not just the first few */
	{
		char *dsts[100], buf[32];

		ev(&h, 0xffff, DT_OP_CREATE, SRC, NULL, 0, FID, 0, 10);
		for (int t = 0; t < 100; t++) {
			snprintf(buf, sizeof(buf), "s/dst.3.%d", t);
			dsts[t] = strdup(buf);
			if (!dsts[t])
				bail_out("out of memory");
			ev(&h, t, DT_OP_RENAME, SRC, dsts[t],
			   t == 42 ? 0 : -ENOENT, 0, 100, 200);
		}
		for (int t = 0; t < 100; t++)
			look(&h, dsts[t], t == 42 ? 0 : -ENOENT,
			     t == 42 ? FID : 0, 300, 310);
		look(&h, SRC, -ENOENT, 0, 300, 310);
		rc = dt_oracle_rename_one_source(&h, SRC, &v);
		verdict_is(rc, &v, 0, 0, NULL, "good: 100 racers");
		bad = look(&h, dsts[97], 0, FID, 320, 330);
		rc = dt_oracle_rename_one_source(&h, SRC, &v);
		verdict_is(rc, &v, 1, bad, "found after the race",
			   "bad: the 98th racer's target exists");
		dt_history_free(&h);
		for (int t = 0; t < 100; t++)
			free(dsts[t]);
	}

	/* misuse: the test never looked at src after the race */
	race(&h, 2, -ENOENT);
	look(&h, dst(2), 0, FID, 300, 310);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 1, NO_EVENT, "not checked", "no lookup of src after the race is flagged");
	dt_history_free(&h);

	/*
	 * a caching client (reads widened by its stale bound) looked after
	 * the race, but the bound reaches back into it: nothing to judge,
	 * and not the test's fault
	 */
	race(&h, 2, -ENOENT);
	after(&h, 2);
	dt_history_widen_reads(&h, 1000);
	rc = dt_oracle_rename_one_source(&h, SRC, &v);
	verdict_is(rc, &v, 0, 0, NULL, "lookups after the race within the stale bound: not flagged as missing");
	dt_history_free(&h);

	/* misuse: a name nobody renamed */
	race(&h, 2, -ENOENT);
	after(&h, 2);
	rc = dt_oracle_rename_one_source(&h, "s/src.9", &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no RENAME", "wrong name is flagged");
	dt_history_free(&h);

	return done();
}
