/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_no_move_into_self: renaming a directory to a name inside
 * itself fails with EINVAL, and nothing else.
 */
#include "oracle_ev.h"
#include "check/oracle_race.h"

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	/* good, with renames that only look similar */
	ev(&h, 0, DT_OP_RENAME, "s/d.0", "s/d.0/x.0", -EINVAL, 0, 100, 200);
	ev(&h, 1, DT_OP_RENAME, "s/d.0", "s/d.0/sub/x.1", -EINVAL, 0, 100, 200);
	ev(&h, 2, DT_OP_RENAME, "s/d.0", "s/d.0x/y", 0, 0, 300, 310);
	ev(&h, 2, DT_OP_RENAME, "s/d.0x/y", "s/d.0", 0, 0, 320, 330);
	ev(&h, 2, DT_OP_RENAME, "s/d.0", "s/d.0", 0, 0, 340, 350);
	ev(&h, 2, DT_OP_RENAME, "s/d.0/sub", "s/d.0/sub2", 0, 0, 360, 370);
	ev(&h, 2, DT_OP_RENAME, "s/d.0/sub2", "s/d.0", -ENOTEMPTY, 0, 380, 390);
	rc = dt_oracle_no_move_into_self(&h, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: into-self renames get EINVAL, others ignored");
	dt_history_free(&h);

	/* bad: the directory moved under itself */
	ev(&h, 0, DT_OP_RENAME, "s/d.0", "s/d.0/x.0", -EINVAL, 0, 100, 200);
	bad = ev(&h, 1, DT_OP_RENAME, "s/d.0", "s/d.0/sub/x.1", 0, 0, 100, 200);
	rc = dt_oracle_no_move_into_self(&h, &v);
	verdict_is(rc, &v, 1, bad, "moved under itself", "bad: rename into itself succeeded");
	is_int(dt_oracle_no_move_into_self(&h, NULL), 1,
	       "  a NULL verdict still gets the count");
	dt_history_free(&h);

	/* bad: other errnos */
	bad = ev(&h, 0, DT_OP_RENAME, "s/d.0", "s/d.0/x.0", -ENOENT, 0, 100, 200);
	ev(&h, 1, DT_OP_RENAME, "s/d.0", "s/d.0/sub/x.1", -EEXIST, 0, 100, 200);
	ev(&h, 2, DT_OP_RENAME, "s/d.0", "s/d.0/sub/x.2", -ESTALE, 0, 100, 200);
	rc = dt_oracle_no_move_into_self(&h, &v);
	verdict_is(rc, &v, 3, bad, "failed wrongly", "bad: ENOENT, EEXIST, ESTALE = 3");
	ok(strstr(v.expected, "EINVAL") != NULL, "  EINVAL expected");
	dt_history_free(&h);

	/* misuse: nothing to judge */
	ev(&h, 0, DT_OP_RENAME, "s/d.0", "s/e.0", 0, 0, 100, 200);
	rc = dt_oracle_no_move_into_self(&h, &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no RENAME", "no into-self rename is flagged");
	dt_history_free(&h);

	return done();
}
