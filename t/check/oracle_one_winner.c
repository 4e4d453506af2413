/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_one_winner: of K racing unlinks / exclusive creates / links /
 * renames of one name exactly one succeeds, the others fail cleanly.
 */
#include "oracle_ev.h"

#define X "s/x"

static const int enoent[] = { ENOENT, 0 };
static const int eexist[] = { EEXIST, 0 };

/* K ops of X: the winners listed get 0, the rest loser */
static void race(struct dt_history *h, enum dt_opcode op, int k,
		 unsigned winner_mask, int loser)
{
	for (int t = 0; t < k; t++) {
		size_t i = ev(h, t, op, X, NULL,
			      (winner_mask >> t) & 1 ? 0 : loser, 0, 100 + t,
			      200 + t);

		/* the race is of exclusive creates: dt_create(w, p, true)
		 * records them with DT_EVF_EXCL, as here */
		if (op == DT_OP_CREATE)
			h->ev[i].flags |= DT_EVF_EXCL;
	}
}

/* 4 exclusive creates of s/srcT, then their no-replace renames onto X */
static void noreplace_race(struct dt_history *h, unsigned winner_mask)
{
	for (int t = 0; t < 4; t++) {
		char src[32];
		size_t i;

		snprintf(src, sizeof(src), "s/src%d", t);
		i = ev(h, t, DT_OP_CREATE, src, NULL, 0, 10 + (uint64_t)t,
		       10, 20);
		h->ev[i].flags |= DT_EVF_EXCL;
	}
	for (int t = 0; t < 4; t++) {
		char src[32];
		size_t i;

		snprintf(src, sizeof(src), "s/src%d", t);
		i = ev(h, t, DT_OP_RENAME, src, X,
		       (winner_mask >> t) & 1 ? 0 : -EEXIST, 0, 100, 200);
		h->ev[i].flags |= DT_EVF_NOREPLACE;
	}
}

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	/* good */
	race(&h, DT_OP_UNLINK, 8, 1u << 3, -ENOENT);
	ev(&h, 9, DT_OP_UNLINK, "s/x2", NULL, 0, 0, 100, 200);
	ev(&h, 9, DT_OP_LOOKUP, X, NULL, 0, 5, 50, 60);
	rc = dt_oracle_one_winner(&h, DT_OP_UNLINK, X, enoent, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: 8 unlinks, 1 winner, 7 ENOENT");
	dt_history_free(&h);

	race(&h, DT_OP_MKDIR, 6, 1u << 0, -EEXIST);
	rc = dt_oracle_one_winner(&h, DT_OP_MKDIR, X, eexist, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: 6 mkdirs, 1 winner, 5 EEXIST");
	dt_history_free(&h);

	/* links from different sources contend for the target name */
	for (int t = 0; t < 4; t++) {
		char src[32];

		snprintf(src, sizeof(src), "s/src%d", t);
		ev(&h, t, DT_OP_LINK, src, X, t == 2 ? 0 : -EEXIST, 0, 100, 200);
	}
	rc = dt_oracle_one_winner(&h, DT_OP_LINK, X, eexist, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: 4 links to one name, 1 winner");
	dt_history_free(&h);

	/* renames of one source to different targets */
	for (int t = 0; t < 4; t++) {
		char dst[32];

		snprintf(dst, sizeof(dst), "s/dst%d", t);
		ev(&h, t, DT_OP_RENAME, X, dst, t == 1 ? 0 : -ENOENT, 0, 100, 200);
	}
	rc = dt_oracle_one_winner(&h, DT_OP_RENAME, X, enoent, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: 4 renames of one source, 1 winner");
	dt_history_free(&h);

	/*
	 * renames with RENAME_NOREPLACE of different sources onto one name
	 * contend for that name: one moves, the others get EEXIST.  Each
	 * source was created in the history (so the checker knows them).
	 */
	noreplace_race(&h, 1u << 2);
	rc = dt_oracle_one_winner(&h, DT_OP_RENAME, X, eexist, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: 4 no-replace renames onto one name, 1 winner");
	dt_history_free(&h);

	/* bad: two no-replace renames onto one name both succeeded */
	noreplace_race(&h, (1u << 0) | (1u << 3));
	rc = dt_oracle_one_winner(&h, DT_OP_RENAME, X, eexist, &v);
	verdict_is(rc, &v, 1, 7, "two winners", "bad: two RENAME_NOREPLACE winners onto one name");
	dt_history_free(&h);

	/* bad: two unlinks both succeeded */
	race(&h, DT_OP_UNLINK, 8, (1u << 1) | (1u << 5), -ENOENT);
	bad = 5;
	rc = dt_oracle_one_winner(&h, DT_OP_UNLINK, X, enoent, &v);
	verdict_is(rc, &v, 1, bad, "two winners", "bad: two unlink winners");
	ok(strstr(v.expected, "#1 ") && strstr(v.observed, "#5 "),
	   "  verdict names both winners");
	dt_history_free(&h);

	/* bad: everybody lost.  The name's creation is recorded as a live
	 * run records it (unlink_race's first worker creates it with
	 * dt_create, exclusive), appended so the race keeps events 0..7 */
	race(&h, DT_OP_UNLINK, 8, 0, -ENOENT);
	h.ev[ev(&h, 0, DT_OP_CREATE, X, NULL, 0, 5, 10, 20)].flags |=
		DT_EVF_EXCL;
	rc = dt_oracle_one_winner(&h, DT_OP_UNLINK, X, enoent, &v);
	verdict_is(rc, &v, 1, 0, "no winner", "bad: zero winners");
	is_int(dt_oracle_one_winner(&h, DT_OP_UNLINK, X, enoent, NULL), 1,
	       "  a NULL verdict still gets the count");
	dt_history_free(&h);

	/* a successful lookup is not a winner of an unlink race */
	race(&h, DT_OP_UNLINK, 4, 0, -ENOENT);
	ev(&h, 9, DT_OP_LOOKUP, X, NULL, 0, 5, 50, 60);
	rc = dt_oracle_one_winner(&h, DT_OP_UNLINK, X, enoent, &v);
	verdict_is(rc, &v, 1, 0, "no winner",
		   "bad: zero winners, other ops on the name ignored");
	dt_history_free(&h);

	/* bad: a loser got EIO */
	race(&h, DT_OP_UNLINK, 8, 1u << 0, -ENOENT);
	h.ev[6].result = -EIO;
	rc = dt_oracle_one_winner(&h, DT_OP_UNLINK, X, enoent, &v);
	verdict_is(rc, &v, 1, 6, "failed wrongly", "bad: one EIO loser");
	ok(strstr(v.observed, "EIO") && strstr(v.expected, "ENOENT"),
	   "  verdict shows EIO against the allowed errnos");
	dt_history_free(&h);

	/* bad: the NFS stale-handle race surfaces as ESTALE to a loser */
	race(&h, DT_OP_UNLINK, 8, 1u << 7, -ENOENT);
	h.ev[2].result = -ESTALE;
	rc = dt_oracle_one_winner(&h, DT_OP_UNLINK, X, enoent, &v);
	verdict_is(rc, &v, 1, 2, "failed wrongly", "bad: one ESTALE loser");
	dt_history_free(&h);

	/* bad: two winners and an ESTALE: each counts */
	race(&h, DT_OP_UNLINK, 8, (1u << 3) | (1u << 4), -ENOENT);
	h.ev[6].result = -ESTALE;
	rc = dt_oracle_one_winner(&h, DT_OP_UNLINK, X, enoent, &v);
	verdict_is(rc, &v, 2, 4, "two winners", "bad: two winners + ESTALE = 2");
	dt_history_free(&h);

	/* bad: three winners = two violations */
	race(&h, DT_OP_CREATE, 5, 0x7, -EEXIST);
	rc = dt_oracle_one_winner(&h, DT_OP_CREATE, X, eexist, &v);
	verdict_is(rc, &v, 2, 1, "two winners", "bad: three create winners = 2");
	dt_history_free(&h);

	/* bad: a loser's errno not in allowed (EEXIST where ENOENT expected) */
	race(&h, DT_OP_UNLINK, 3, 1u << 0, -EEXIST);
	rc = dt_oracle_one_winner(&h, DT_OP_UNLINK, X, enoent, &v);
	verdict_is(rc, &v, 2, 1, "failed wrongly", "bad: losers with a wrong errno");
	dt_history_free(&h);

	/* NULL allowed: no loser may fail in any way */
	race(&h, DT_OP_UNLINK, 2, 1u << 0, -ENOENT);
	rc = dt_oracle_one_winner(&h, DT_OP_UNLINK, X, NULL, &v);
	verdict_is(rc, &v, 1, 1, "failed wrongly", "NULL allowed[]: every failure is wrong");
	dt_history_free(&h);

	/* misuse: nothing raced */
	race(&h, DT_OP_UNLINK, 2, 1u << 0, -ENOENT);
	rc = dt_oracle_one_winner(&h, DT_OP_RMDIR, X, enoent, &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no winner", "no events of the op is flagged");
	dt_history_free(&h);

	return done();
}
