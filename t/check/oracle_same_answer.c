/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_same_answer: N threads look up one uncached name at once and
 * must all get the same answer (the d_alloc_parallel "in-lookup" case).
 */
#include "oracle_ev.h"

#define X "s/x"

/* eight overlapping lookups of X, all the same answer */
static void agreeing(struct dt_history *h, int result, uint64_t fid)
{
	for (unsigned t = 0; t < 8; t++)
		ev(h, t, DT_OP_LOOKUP, X, NULL, result, result ? 0 : fid,
		   100 + t, 200 + t);
}

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	/* good: all found, same fileid; other names and ops do not count */
	agreeing(&h, 0, 42);
	ev(&h, 9, DT_OP_LOOKUP, "s/y", NULL, -ENOENT, 0, 120, 130);
	ev(&h, 9, DT_OP_LOOKUP, "s/x2", NULL, 0, 9, 120, 130);
	ev(&h, 9, DT_OP_LOOKUP, "s", NULL, 0, 1, 120, 130);
	ev(&h, 9, DT_OP_CREATE, X, NULL, 0, 99, 10, 20);
	ev(&h, 9, DT_OP_OPEN, X, NULL, -ENOENT, 0, 120, 130);
	rc = dt_oracle_same_answer(&h, X, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: 8 lookups found the same fileid");
	dt_history_free(&h);

	agreeing(&h, -ENOENT, 0);
	rc = dt_oracle_same_answer(&h, X, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: 8 lookups all ENOENT");
	dt_history_free(&h);

	/* a backend that cannot report a fileid does not disagree */
	agreeing(&h, 0, 42);
	ev(&h, 8, DT_OP_LOOKUP, X, NULL, 0, 0, 105, 205);
	rc = dt_oracle_same_answer(&h, X, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: an unknown fileid (0) agrees");
	dt_history_free(&h);

	/* bad: two threads' lookups instantiated two different inodes */
	agreeing(&h, 0, 42);
	bad = ev(&h, 8, DT_OP_LOOKUP, X, NULL, 0, 43, 105, 205);
	rc = dt_oracle_same_answer(&h, X, &v);
	verdict_is(rc, &v, 1, bad, "disagree", "bad: one lookup saw another fileid");
	ok(strstr(v.observed, "fileid 43") && strstr(v.expected, "fileid 42") &&
	   strstr(v.expected, "8 of 9"),
	   "  verdict names both answers and the majority");
	dt_history_free(&h);

	/* bad: one lookup got ENOENT among successes (the masked race) */
	agreeing(&h, 0, 42);
	bad = ev(&h, 8, DT_OP_LOOKUP, X, NULL, -ENOENT, 0, 105, 205);
	rc = dt_oracle_same_answer(&h, X, &v);
	verdict_is(rc, &v, 1, bad, "disagree", "bad: one ENOENT among successes");
	ok(strstr(v.observed, "ENOENT") && strstr(v.observed, "t8"),
	   "  observed names the thread and the errno");
	dt_history_free(&h);

	/* bad: the odd one is the first event: the majority is the reference */
	bad = ev(&h, 8, DT_OP_LOOKUP, X, NULL, -ENOENT, 0, 90, 190);
	agreeing(&h, 0, 42);
	rc = dt_oracle_same_answer(&h, X, &v);
	verdict_is(rc, &v, 1, bad, "disagree",
		   "bad: the first lookup is the odd one, counted once");
	dt_history_free(&h);

	/* bad: ESTALE among ENOENTs */
	agreeing(&h, -ENOENT, 0);
	bad = ev(&h, 8, DT_OP_LOOKUP, X, NULL, -ESTALE, 0, 105, 205);
	rc = dt_oracle_same_answer(&h, X, &v);
	verdict_is(rc, &v, 1, bad, "disagree", "bad: ESTALE among ENOENTs");
	dt_history_free(&h);

	/* bad: three answers: every minority lookup counts */
	agreeing(&h, 0, 42);
	bad = ev(&h, 8, DT_OP_LOOKUP, X, NULL, -ENOENT, 0, 105, 205);
	ev(&h, 9, DT_OP_LOOKUP, X, NULL, -ENOENT, 0, 105, 205);
	ev(&h, 10, DT_OP_LOOKUP, X, NULL, -EIO, 0, 105, 205);
	rc = dt_oracle_same_answer(&h, X, &v);
	verdict_is(rc, &v, 3, bad, "disagree", "bad: 2 ENOENT + 1 EIO = 3 violations");
	dt_history_free(&h);

	/* misuse: no lookup of the name must not read as a pass */
	agreeing(&h, 0, 42);
	rc = dt_oracle_same_answer(&h, "s/other", &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no LOOKUP", "no lookups of the name is flagged");
	dt_history_free(&h);

	rc = dt_oracle_same_answer(&h, X, &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no LOOKUP", "empty history is flagged");

	return done();
}
