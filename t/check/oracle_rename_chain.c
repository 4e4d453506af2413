/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_rename_chain: one writer renames a file s/f.0 -> s/f.1 -> ...
 * while readers look the chain names up.  The file must never vanish
 * (lost), never show under a name it has left or not reached (two names),
 * and lookups may only answer 0 or ENOENT.
 */
#include "oracle_ev.h"

#define P "s/f."
#define FID 7

/*
 * The writer's timeline (thread 0), after the case made its scratch
 * directory s (empty; the setup thread, as the harness records it):
 *   create f.0 [0,10]; f.0->f.1 [100,110]; f.1->f.2 [200,210];
 *   f.2->f.3 [300,310]
 */
static void writer(struct dt_history *h)
{
	ev(h, 0xffff, DT_OP_MKDIR, "s", NULL, 0, 0, 0, 0);
	ev(h, 0, DT_OP_CREATE, P "0", NULL, 0, FID, 0, 10);
	ev(h, 0, DT_OP_RENAME, P "0", P "1", 0, 0, 100, 110);
	ev(h, 0, DT_OP_RENAME, P "1", P "2", 0, 0, 200, 210);
	ev(h, 0, DT_OP_RENAME, P "2", P "3", 0, 0, 300, 310);
}

static void look(struct dt_history *h, const char *name, int result,
		 uint64_t fid, uint64_t s, uint64_t e)
{
	ev(h, 1, DT_OP_LOOKUP, name, NULL, result, fid, s, e);
}

/* Readers that did everything right, including the boundary cases */
static void good_readers(struct dt_history *h)
{
	look(h, P "0", 0, FID, 20, 30);
	look(h, P "0", -ENOENT, 0, 105, 120);	/* overlaps the rename out */
	look(h, P "0", 0, FID, 95, 108);	/* ditto, saw it before */
	look(h, P "1", -ENOENT, 0, 50, 60);	/* not there yet */
	look(h, P "1", -ENOENT, 0, 95, 105);	/* overlaps the arrival */
	look(h, P "1", 0, FID, 95, 105);
	look(h, P "1", 0, FID, 150, 160);
	look(h, P "1", -ENOENT, 0, 205, 215);
	look(h, P "1", 0, FID, 110, 200);	/* exactly the boundaries */
	look(h, P "2", 0, FID, 250, 260);
	look(h, P "3", 0, FID, 400, 410);
	look(h, P "9", -ENOENT, 0, 400, 410);	/* never reached */
	look(h, P "1x", -ESTALE, 0, 150, 160);	/* not a chain name */
	look(h, "s/f.", -ESTALE, 0, 150, 160);	/* not a chain name */
	look(h, "s/g.1", -EIO, 0, 150, 160);	/* another chain */
}

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	writer(&h);
	good_readers(&h);
	rc = dt_oracle_rename_chain(&h, P, FID, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: readers follow the chain");
	rc = dt_oracle_rename_chain(&h, P, 0, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: fileid 0 = the create's fileid");
	dt_history_sort(&h);
	rc = dt_oracle_rename_chain(&h, P, FID, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: same history sorted by start");
	dt_history_free(&h);

	/* the writer unlinks the last name: lookups after that are ENOENT */
	writer(&h);
	ev(&h, 0, DT_OP_UNLINK, P "3", NULL, 0, 0, 500, 510);
	look(&h, P "3", -ENOENT, 0, 600, 610);
	rc = dt_oracle_rename_chain(&h, P, FID, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: ENOENT after the final unlink");
	dt_history_free(&h);

	/* bad: lookup of f.1 said ENOENT while the file was surely there */
	writer(&h);
	good_readers(&h);
	bad = h.n;
	look(&h, P "1", -ENOENT, 0, 150, 160);
	rc = dt_oracle_rename_chain(&h, P, FID, &v);
	verdict_is(rc, &v, 1, bad, "lost", "bad: ENOENT while surely there (lost)");
	ok(strstr(v.expected, "#2 ") != NULL,
	   "  expected names the rename that brought it there");
	dt_history_free(&h);

	/* bad: found under the name it had left */
	writer(&h);
	good_readers(&h);
	bad = h.n;
	look(&h, P "0", 0, FID, 150, 160);
	rc = dt_oracle_rename_chain(&h, P, FID, &v);
	verdict_is(rc, &v, 1, bad, "two names", "bad: found at the old name too");
	dt_history_free(&h);

	/* bad: found under a name it had not reached yet */
	writer(&h);
	bad = h.n;
	look(&h, P "2", 0, FID, 150, 160);
	rc = dt_oracle_rename_chain(&h, P, FID, &v);
	verdict_is(rc, &v, 1, bad, "two names", "bad: found at the next name early");
	dt_history_free(&h);

	/* bad: found under a chain name it never reached */
	writer(&h);
	bad = h.n;
	look(&h, P "7", 0, FID, 150, 160);
	rc = dt_oracle_rename_chain(&h, P, FID, &v);
	verdict_is(rc, &v, 1, bad, "ghost", "bad: found where it never was");
	dt_history_free(&h);

	/* bad: stale file handle surfaced to a path lookup */
	writer(&h);
	bad = h.n;
	look(&h, P "2", -ESTALE, 0, 250, 260);
	rc = dt_oracle_rename_chain(&h, P, FID, &v);
	verdict_is(rc, &v, 1, bad, "ESTALE", "bad: ESTALE from a lookup");
	dt_history_free(&h);

	/* bad: found with another fileid (a stale dentry to another inode) */
	writer(&h);
	bad = h.n;
	look(&h, P "1", 0, FID + 1, 150, 160);
	rc = dt_oracle_rename_chain(&h, P, FID, &v);
	verdict_is(rc, &v, 1, bad, "fileid", "bad: found with a wrong fileid");
	dt_history_free(&h);

	/* bad: the writer's rename failed */
	writer(&h);
	bad = ev(&h, 0, DT_OP_RENAME, P "3", P "4", -ENOENT, 0, 400, 410);
	rc = dt_oracle_rename_chain(&h, P, FID, &v);
	verdict_is(rc, &v, 1, bad, "rename failed", "bad: the writer's rename failed");
	dt_history_free(&h);

	/* several at once: all counted, the earliest event described */
	writer(&h);
	bad = h.n;
	look(&h, P "1", -ENOENT, 0, 150, 160);
	look(&h, P "2", -EIO, 0, 250, 260);
	look(&h, P "0", 0, FID, 300, 310);
	rc = dt_oracle_rename_chain(&h, P, FID, &v);
	verdict_is(rc, &v, 3, bad, "lost", "bad: lost + EIO + two names = 3");
	dt_history_free(&h);

	/* misuse: a prefix nothing uses */
	writer(&h);
	rc = dt_oracle_rename_chain(&h, "s/h.", FID, &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no event", "wrong prefix is flagged");
	dt_history_free(&h);

	return done();
}
