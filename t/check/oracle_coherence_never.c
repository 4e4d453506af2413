/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_never_created: a lookup of a name that nothing in the history
 * made answers ENOENT; names the history made, proved to exist or moved
 * under a renamed directory are not its business.
 */
#include "oracle_ev.h"
#include "check/oracle_coherence.h"

static size_t look(struct dt_history *h, const char *name, int result,
		   uint64_t fid, uint64_t s, uint64_t e)
{
	return ev(h, 1, DT_OP_LOOKUP, name, NULL, result, fid, s, e);
}

/* s/d with files a (fileid 1) and b; s/m renamed to s/n; s/e exists */
static void setup(struct dt_history *h)
{
	ev(h, 0xffff, DT_OP_MKDIR, "s/d", NULL, 0, 0, 0, 1);
	ev(h, 0xffff, DT_OP_CREATE, "s/d/a", NULL, 0, 1, 1, 2);
	ev(h, 0xffff, DT_OP_CREATE, "s/d/b", NULL, 0, 2, 1, 2);
	ev(h, 0xffff, DT_OP_UNLINK, "s/d/b", NULL, 0, 0, 3, 4);
	ev(h, 0xffff, DT_OP_MKDIR, "s/m", NULL, 0, 0, 0, 1);
	ev(h, 0xffff, DT_OP_RENAME, "s/m", "s/n", 0, 0, 5, 6);
	ev(h, 0xffff, DT_OP_CREATE, "s/e", NULL, -EEXIST, 0, 5, 6);
	ev(h, 0xffff, DT_OP_LINK, "s/d/a", "s/d/l", 0, 0, 5, 6);
}

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	rc = dt_oracle_never_created(&h, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: an empty history");

	setup(&h);
	look(&h, "s/d/nx.1", -ENOENT, 0, 10, 20);
	look(&h, "s/d/nx.1", -ENOENT, 0, 30, 40);
	ev(&h, 2, DT_OP_OPEN, "s/d/nx.2", NULL, -ENOENT, 0, 10, 20);
	look(&h, "s/d/a", 0, 1, 10, 20);	/* made: not judged here */
	look(&h, "s/d/a", -ESTALE, 0, 10, 20);
	look(&h, "s/d/b", 0, 2, 10, 20);	/* removed: existed */
	look(&h, "s/d/l", 0, 1, 10, 20);	/* link target */
	look(&h, "s/e", 0, 7, 10, 20);		/* EEXIST proves it */
	look(&h, "s/n/inner", 0, 9, 10, 20);	/* moved with s/m */
	look(&h, "s/m/inner", 0, 9, 1, 2);
	look(&h, "s/d/a/x", -ENOTDIR, 0, 10, 20);	/* a is a file */
	rc = dt_oracle_never_created(&h, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: absent names answer ENOENT");
	rc = dt_oracle_never_created(&h, NULL);
	is_int(rc, 0, "good: NULL verdict is allowed");

	bad = look(&h, "s/d/nx.3", 0, 44, 10, 20);
	rc = dt_oracle_never_created(&h, &v);
	verdict_is(rc, &v, 1, bad, "found a name nothing created",
		   "bad: a never-created name found");
	dt_history_free(&h);

	setup(&h);
	bad = look(&h, "s/d/nx.4", -ESTALE, 0, 10, 20);
	rc = dt_oracle_never_created(&h, &v);
	verdict_is(rc, &v, 1, bad, "returned ESTALE",
		   "bad: ESTALE for a never-created name");
	dt_history_free(&h);

	/* ENOTDIR only where a made name could be a file in the path */
	setup(&h);
	bad = look(&h, "s/q/x", -ENOTDIR, 0, 10, 20);
	rc = dt_oracle_never_created(&h, &v);
	verdict_is(rc, &v, 1, bad, "ENOTDIR",
		   "bad: ENOTDIR below a name nothing made");
	dt_history_free(&h);

	/* a failed create proves nothing; the first bad event is reported */
	ev(&h, 0, DT_OP_CREATE, "s/f", NULL, -EIO, 0, 0, 1);
	look(&h, "s/f", -ENOENT, 0, 10, 20);
	bad = look(&h, "s/f", 0, 3, 5, 6);
	look(&h, "s/g", 0, 3, 30, 40);
	rc = dt_oracle_never_created(&h, &v);
	verdict_is(rc, &v, 2, bad, "s/f",
		   "bad: two found, the earliest event reported");
	dt_history_sort(&h);
	rc = dt_oracle_never_created(&h, &v);
	verdict_is(rc, &v, 2, 1, "s/f", "bad: the same, sorted by start");
	dt_history_free(&h);

	/* a name that is a prefix of a made one is still never made (in
	 * the scratch dir s the case made empty, as the harness records) */
	ev(&h, 0xffff, DT_OP_MKDIR, "s", NULL, 0, 0, 0, 0);
	ev(&h, 0, DT_OP_CREATE, "s/abc", NULL, 0, 1, 0, 1);
	bad = look(&h, "s/ab", 0, 1, 10, 20);
	look(&h, "s/abcd", -ENOENT, 0, 10, 20);
	rc = dt_oracle_never_created(&h, &v);
	verdict_is(rc, &v, 1, bad, "s/ab", "bad: a prefix of a made name");
	dt_history_free(&h);
	return done();
}
