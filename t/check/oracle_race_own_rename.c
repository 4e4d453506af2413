/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_own_rename: after a host's rename of a returned, that host's
 * lookups of a answer ENOENT until someone brings a back.
 */
#include "oracle_ev.h"
#include "check/oracle_race.h"

static size_t on(struct dt_history *h, size_t i, unsigned host)
{
	h->ev[i].host = (uint16_t)host;
	return i;
}

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	/* good: the renaming host gets ENOENT; another host may still find
	 * a (its cache); a lookup racing the rename may find; after another
	 * host re-creates a, found again */
	ev(&h, 0, DT_OP_LOOKUP, "s/b", NULL, -ENOENT, 0, 10, 20);
	ev(&h, 0, DT_OP_RENAME, "s/a", "s/b", 0, 0, 100, 200);
	ev(&h, 1, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 150, 250);
	ev(&h, 1, DT_OP_LOOKUP, "s/a", NULL, -ENOENT, 0, 300, 310);
	on(&h, ev(&h, 1, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 300, 310), 1);
	on(&h, ev(&h, 2, DT_OP_CREATE, "s/a", NULL, 0, 9, 400, 410), 1);
	ev(&h, 1, DT_OP_LOOKUP, "s/a", NULL, 0, 9, 500, 510);
	rc = dt_oracle_own_rename(&h, 0, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: own lookups after the rename get ENOENT");
	dt_history_free(&h);

	/* bad: the renaming host finds the old name, by lookup and by open */
	ev(&h, 0, DT_OP_LOOKUP, "s/b", NULL, -ENOENT, 0, 10, 20);
	ev(&h, 0, DT_OP_RENAME, "s/a", "s/b", 0, 0, 100, 200);
	bad = ev(&h, 1, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 300, 310);
	ev(&h, 2, DT_OP_OPEN, "s/a", NULL, 0, 5, 320, 330);
	rc = dt_oracle_own_rename(&h, 0, &v);
	verdict_is(rc, &v, 2, bad, "after its own rename",
		   "bad: the renaming host finds the old name = 2");
	is_int(dt_oracle_own_rename(&h, 0, NULL), 2,
	       "  a NULL verdict still gets the count");
	dt_history_free(&h);

	/*
	 * widened reads, as dt_run_workers gives them: the lookup began
	 * at 1300, after the rename; its start is moved 150 early
	 */
	ev(&h, 0, DT_OP_LOOKUP, "s/b", NULL, -ENOENT, 0, 1010, 1020);
	ev(&h, 0, DT_OP_RENAME, "s/a", "s/b", 0, 0, 1100, 1200);
	bad = ev(&h, 1, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 1300, 1360);
	dt_history_widen_reads(&h, 150);
	ok(h.ev[bad].start_ns == 1150, "  the lookup now starts at 1150");
	rc = dt_oracle_own_rename(&h, 150, &v);
	ev_widen_ns = 150;
	verdict_is(rc, &v, 1, bad, "after its own rename",
		   "bad: a widened read is judged by when it really began");
	ev_widen_ns = 0;
	is_int(dt_oracle_own_rename(&h, 0, NULL), 1,
	       "  without the widening it races the rename: nothing judged (1)");
	dt_history_free(&h);

	/* bad: another errno is not ENOENT */
	ev(&h, 0, DT_OP_RENAME, "s/a", "s/b", 0, 0, 100, 200);
	bad = ev(&h, 1, DT_OP_LOOKUP, "s/a", NULL, -ESTALE, 0, 300, 310);
	rc = dt_oracle_own_rename(&h, 0, &v);
	verdict_is(rc, &v, 1, bad, "after its own rename", "bad: ESTALE for the old name");
	dt_history_free(&h);

	/* misuse: no lookup after a rename by its host */
	ev(&h, 0, DT_OP_RENAME, "s/a", "s/b", 0, 0, 100, 200);
	on(&h, ev(&h, 1, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 300, 310), 1);
	rc = dt_oracle_own_rename(&h, 0, &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no lookup", "nothing to judge is flagged");
	dt_history_free(&h);

	return done();
}
