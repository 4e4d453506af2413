/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_name_lifetime: lookups and opens of names that are created and
 * unlinked under them must agree with the create/unlink intervals.
 */
#include "oracle_ev.h"

#define X "s/x"

/*
 * s/x lives twice (writer thread 0):
 *   create [0,10] fileid 5; unlink [100,110];
 *   create [200,210] fileid 6; unlink [300,310]
 */
static void churn(struct dt_history *h)
{
	ev(h, 0, DT_OP_CREATE, X, NULL, 0, 5, 0, 10);
	ev(h, 0, DT_OP_UNLINK, X, NULL, 0, 0, 100, 110);
	ev(h, 0, DT_OP_CREATE, X, NULL, 0, 6, 200, 210);
	ev(h, 0, DT_OP_UNLINK, X, NULL, 0, 0, 300, 310);
}

static size_t look(struct dt_history *h, const char *name, int result,
		   uint64_t fid, uint64_t s, uint64_t e)
{
	return ev(h, 1, DT_OP_LOOKUP, name, NULL, result, fid, s, e);
}

static void good_readers(struct dt_history *h)
{
	look(h, X, 0, 5, 20, 30);
	look(h, X, -ENOENT, 0, 5, 8);		/* overlaps the create */
	look(h, X, 0, 5, 5, 8);
	look(h, X, 0, 5, 105, 108);		/* overlaps the unlink */
	look(h, X, -ENOENT, 0, 105, 108);
	look(h, X, -ENOENT, 0, 120, 130);
	look(h, X, 0, 6, 205, 215);
	look(h, X, -ENOENT, 0, 205, 215);
	look(h, X, 0, 6, 150, 250);		/* spans the gap */
	look(h, X, -ENOENT, 0, 150, 250);
	look(h, X, 0, 5, 90, 205);		/* either life */
	look(h, X, 0, 6, 90, 205);
	look(h, X, 0, 5, 10, 100);		/* exactly the boundaries */
	look(h, X, -ENOENT, 0, 400, 410);
	look(h, X, -ENOENT, 0, 310, 320);
	ev(h, 2, DT_OP_OPEN, X, NULL, 0, 0, 20, 30);
	ev(h, 2, DT_OP_OPEN, X, NULL, -ENOENT, 0, 150, 160);
	/* names the history never creates are not judged */
	look(h, "s/fixture", 0, 99, 20, 30);
	look(h, "s/fixture", -ESTALE, 0, 20, 30);
}

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	churn(&h);
	good_readers(&h);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: create/unlink twice, readers agree");
	dt_history_sort(&h);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: the same, sorted by start");
	dt_history_free(&h);

	/* existed before the history (unlink first): early finds are fine */
	ev(&h, 0, DT_OP_UNLINK, "s/y", NULL, 0, 0, 50, 60);
	ev(&h, 0, DT_OP_CREATE, "s/y", NULL, 0, 9, 150, 160);
	look(&h, "s/y", 0, 3, 10, 20);
	look(&h, "s/y", -ENOENT, 0, 100, 110);
	look(&h, "s/y", 0, 9, 200, 210);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: a name that predates the history");
	dt_history_free(&h);

	/* rename over an existing name: either file, never ENOENT */
	ev(&h, 0, DT_OP_CREATE, "s/a", NULL, 0, 11, 0, 10);
	ev(&h, 0, DT_OP_CREATE, "s/b", NULL, 0, 12, 0, 10);
	ev(&h, 0, DT_OP_RENAME, "s/b", "s/a", 0, 0, 100, 110);
	look(&h, "s/a", 0, 11, 105, 108);
	look(&h, "s/a", 0, 12, 105, 108);
	look(&h, "s/a", 0, 12, 120, 130);
	look(&h, "s/b", -ENOENT, 0, 120, 130);
	look(&h, "s/b", 0, 12, 50, 105);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: rename over an existing name");
	dt_history_free(&h);

	/* racing unlink and re-create: after both, either state is possible */
	ev(&h, 0, DT_OP_CREATE, "s/c", NULL, 0, 30, 0, 10);
	ev(&h, 0, DT_OP_UNLINK, "s/c", NULL, 0, 0, 100, 200);
	ev(&h, 1, DT_OP_CREATE, "s/c", NULL, 0, 31, 120, 140);
	look(&h, "s/c", -ENOENT, 0, 210, 220);
	look(&h, "s/c", 0, 31, 210, 220);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: overlapping unlink and create");
	dt_history_free(&h);

	/* the parent was renamed: names below it change without events */
	ev(&h, 0, DT_OP_MKDIR, "s/d", NULL, 0, 0, 0, 10);
	ev(&h, 0, DT_OP_CREATE, "s/d/z", NULL, 0, 20, 20, 30);
	ev(&h, 0, DT_OP_RENAME, "s/d", "s/e", 0, 0, 100, 110);
	ev(&h, 0, DT_OP_CREATE, "s/e/z", NULL, -EEXIST, 0, 150, 160);
	look(&h, "s/d/z", -ENOENT, 0, 120, 130);
	look(&h, "s/e/z", 0, 20, 120, 130);
	look(&h, "s/d", -ENOENT, 0, 120, 130);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: a renamed parent is not misjudged");
	dt_history_free(&h);

	/* bad: found after the unlink surely completed */
	churn(&h);
	good_readers(&h);
	bad = look(&h, X, 0, 5, 120, 130);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 1, bad, "found after removal",
		   "bad: lookup found the name after its unlink completed");
	ok(strstr(v.expected, "unlink(s/x)") != NULL,
	   "  expected names the unlink");
	dt_history_free(&h);

	/* bad: ESTALE to a path lookup */
	churn(&h);
	bad = look(&h, X, -ESTALE, 0, 20, 30);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 1, bad, "ESTALE", "bad: ESTALE on lookup");
	dt_history_free(&h);

	/* bad: ESTALE even when the lookup overlaps the unlink */
	churn(&h);
	bad = look(&h, X, -ESTALE, 0, 95, 115);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 1, bad, "ESTALE", "bad: ESTALE on a lookup racing the unlink");
	dt_history_free(&h);

	/* bad: ENOENT while surely present */
	churn(&h);
	bad = look(&h, X, -ENOENT, 0, 20, 30);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 1, bad, "lost", "bad: ENOENT while surely present");
	dt_history_free(&h);

	/* bad: found before it was created */
	ev(&h, 0, DT_OP_CREATE, "s/z", NULL, 0, 40, 50, 60);
	bad = look(&h, "s/z", 0, 40, 10, 20);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 1, bad, "before creation", "bad: found before creation");
	dt_history_free(&h);

	/* bad: after re-create, found as the old inode (stale dentry) */
	churn(&h);
	bad = look(&h, X, 0, 5, 220, 230);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 1, bad, "fileid", "bad: re-created name found with the old fileid");
	dt_history_free(&h);

	/* bad: rename over must never expose ENOENT for the target */
	ev(&h, 0, DT_OP_CREATE, "s/a", NULL, 0, 11, 0, 10);
	ev(&h, 0, DT_OP_CREATE, "s/b", NULL, 0, 12, 0, 10);
	ev(&h, 0, DT_OP_RENAME, "s/b", "s/a", 0, 0, 100, 110);
	bad = look(&h, "s/a", -ENOENT, 0, 102, 104);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 1, bad, "lost", "bad: rename over exposed ENOENT for the target");
	dt_history_free(&h);

	/* bad: the source of a completed rename still found */
	ev(&h, 0, DT_OP_CREATE, "s/b", NULL, 0, 12, 0, 10);
	ev(&h, 0, DT_OP_RENAME, "s/b", "s/a", 0, 0, 100, 110);
	bad = look(&h, "s/b", 0, 12, 120, 130);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 1, bad, "found after removal", "bad: rename source still found");
	dt_history_free(&h);

	/* bad: opens are judged like lookups */
	churn(&h);
	bad = ev(&h, 2, DT_OP_OPEN, X, NULL, -ENOENT, 0, 20, 30);
	ev(&h, 2, DT_OP_OPEN, X, NULL, -EIO, 0, 220, 230);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 2, bad, "lost", "bad: open ENOENT while present + open EIO = 2");
	dt_history_free(&h);

	/* bad: mkdir'ed and rmdir'ed directories too */
	ev(&h, 0, DT_OP_MKDIR, "s/dir", NULL, 0, 0, 0, 10);
	ev(&h, 0, DT_OP_RMDIR, "s/dir", NULL, 0, 0, 100, 110);
	bad = look(&h, "s/dir", 0, 0, 120, 130);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 1, bad, "found after removal", "bad: directory found after rmdir");
	dt_history_free(&h);

	/* bad: a link's new name lost while surely present */
	ev(&h, 0, DT_OP_CREATE, "s/l1", NULL, 0, 50, 0, 10);
	ev(&h, 0, DT_OP_LINK, "s/l1", "s/l2", 0, 0, 20, 30);
	ev(&h, 0, DT_OP_UNLINK, "s/l1", NULL, 0, 0, 40, 50);
	look(&h, "s/l2", 0, 50, 60, 70);
	bad = look(&h, "s/l2", -ENOENT, 0, 60, 70);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 1, bad, "lost", "bad: hard link lost after unlinking the other name");
	dt_history_free(&h);

	/* all violations counted, earliest described */
	churn(&h);
	bad = look(&h, X, -ENOENT, 0, 20, 30);
	look(&h, X, 0, 5, 120, 130);
	look(&h, X, 0, 5, 220, 230);
	look(&h, X, -ESTALE, 0, 250, 260);
	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 4, bad, "lost", "bad: four different violations, all counted");
	dt_history_free(&h);

	rc = dt_oracle_name_lifetime(&h, &v);
	verdict_is(rc, &v, 0, 0, NULL, "empty history: nothing to judge");

	return done();
}
