/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_readdir: a listing under churn has no duplicates, contains
 * every entry that existed throughout it, nothing that did not exist
 * during it, and the fileids the entries were created with.
 */
#include "oracle_ev.h"

#define D "s/d"

/*
 * Before the listings: a(1), b(2), c(3) and the directory sub are created,
 * plus names that are NOT entries of s/d: s/d/sub/deep and s/dd/z.
 * During the listing [90,120]: n(4) is created and c is unlinked.
 */
static void setup(struct dt_history *h)
{
	ev(h, 0xffff, DT_OP_MKDIR, D, NULL, 0, 0, 0, 1);
	ev(h, 0xffff, DT_OP_CREATE, D "/a", NULL, 0, 1, 0, 10);
	ev(h, 0xffff, DT_OP_CREATE, D "/b", NULL, 0, 2, 0, 10);
	ev(h, 0xffff, DT_OP_CREATE, D "/c", NULL, 0, 3, 0, 10);
	ev(h, 0xffff, DT_OP_MKDIR, D "/sub", NULL, 0, 0, 0, 10);
	ev(h, 0xffff, DT_OP_CREATE, D "/sub/deep", NULL, 0, 50, 20, 30);
	ev(h, 0xffff, DT_OP_CREATE, "s/dd/z", NULL, 0, 60, 20, 30);
	ev(h, 1, DT_OP_CREATE, D "/n", NULL, 0, 4, 100, 110);
	ev(h, 2, DT_OP_UNLINK, D "/c", NULL, 0, 0, 100, 110);
}

static size_t rd(struct dt_history *h, uint64_t s, uint64_t e,
		 const char *spec)
{
	return ev_rd(h, 3, D, 0, s, e, spec);
}

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	setup(&h);
	rd(&h, 90, 120, "a:1,b:2,sub:0");		/* n, c: during */
	rd(&h, 90, 120, "c:3,b:2,a:1,n:4,sub:0");	/* any order */
	rd(&h, 90, 120, "a:1,b:0,sub:0,c:3");		/* unknown fileid */
	rd(&h, 90, 120, "a:1,b:2,sub:0,.nfs0000000000001:77");
	rd(&h, 200, 210, "a:1,b:2,n:4,sub:0");
	rd(&h, 20, 30, "a:1,b:2,c:3,sub:0");
	ev_rd(&h, 3, D, -EIO, 90, 120, NULL);		/* failed: not judged */
	ev_rd(&h, 3, "s/dd", 0, 90, 120, "q:1");	/* another directory */
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: listings under churn");
	dt_history_sort(&h);
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: the same, sorted by start");
	dt_history_free(&h);

	/* the listing of the target root ("") */
	ev(&h, 0, DT_OP_CREATE, "top", NULL, 0, 8, 0, 10);
	ev(&h, 0, DT_OP_MKDIR, "s", NULL, 0, 0, 0, 10);
	ev(&h, 0, DT_OP_CREATE, "s/x", NULL, 0, 9, 0, 10);
	ev_rd(&h, 3, "", 0, 20, 30, "s:0,top:8");
	rc = dt_oracle_readdir(&h, "", &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: listing of the target root");
	bad = ev_rd(&h, 3, "", 0, 20, 30, "s:0");
	rc = dt_oracle_readdir(&h, "", &v);
	verdict_is(rc, &v, 1, bad, "missing", "bad: root listing misses top");
	dt_history_free(&h);

	/* bad: a name listed twice (cookie reuse across READDIR calls) */
	setup(&h);
	bad = rd(&h, 90, 120, "a:1,b:2,sub:0,a:1");
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 1, bad, "duplicate", "bad: duplicate entry");
	dt_history_free(&h);

	/*
	 * good: c is unlinked and created again during the listing: two
	 * entries, so a listing may meet both; bad: the same for a name
	 * that stayed one entry throughout.
	 */
	setup(&h);
	ev(&h, 1, DT_OP_CREATE, D "/c", NULL, 0, 5, 112, 115);
	rd(&h, 90, 120, "a:1,b:2,c:3,sub:0,c:5");
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: a re-created name listed twice");
	bad = rd(&h, 90, 120, "a:1,b:2,b:2,sub:0");
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 1, bad, "duplicate", "bad: a stable name listed twice beside it");
	dt_history_free(&h);

	/* bad: an entry present throughout is missing */
	setup(&h);
	bad = rd(&h, 90, 120, "a:1,sub:0");
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 1, bad, "missing", "bad: stable entry b missing");
	ok(strstr(v.what, " b,") != NULL, "  the verdict names b");
	dt_history_free(&h);

	/* bad: a new entry whose create completed before the listing */
	setup(&h);
	bad = rd(&h, 200, 210, "a:1,b:2,sub:0");
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 1, bad, "missing", "bad: entry created before the listing missing");
	dt_history_free(&h);

	/* bad: a name nothing ever created */
	setup(&h);
	bad = rd(&h, 90, 120, "a:1,b:2,sub:0,zz:9");
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 1, bad, "invented", "bad: invented name");
	dt_history_free(&h);

	/* bad: listed after its unlink completed */
	setup(&h);
	bad = rd(&h, 200, 210, "a:1,b:2,c:3,n:4,sub:0");
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 1, bad, "invented", "bad: unlinked entry still listed");
	ok(strstr(v.expected, "unlink(s/d/c)") != NULL,
	   "  expected names the unlink");
	dt_history_free(&h);

	/* bad: listed before its create began */
	setup(&h);
	bad = rd(&h, 20, 30, "a:1,b:2,c:3,sub:0,n:4");
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 1, bad, "invented", "bad: entry listed before its create");
	dt_history_free(&h);

	/* bad: readdir and create disagree on the fileid */
	setup(&h);
	bad = rd(&h, 90, 120, "a:1,b:7,sub:0");
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 1, bad, "fileid mismatch", "bad: wrong fileid");
	dt_history_free(&h);

	/* bad: a deeper name leaking into the listing is invented */
	setup(&h);
	bad = rd(&h, 90, 120, "a:1,b:2,sub:0,deep:50");
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 1, bad, "invented", "bad: grandchild listed as a child");
	dt_history_free(&h);

	/* all counted: two listings, four problems */
	setup(&h);
	rd(&h, 90, 120, "a:1,b:2,sub:0");
	bad = rd(&h, 90, 120, "a:1,a:1,sub:0");	/* duplicate + missing b */
	rd(&h, 200, 210, "a:1,b:2,n:9,sub:0,c:3"); /* fileid + invented */
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 4, bad, NULL, "bad: 4 problems in 2 listings, all counted");
	dt_history_free(&h);

	/* misuse: no listing of the directory */
	setup(&h);
	rc = dt_oracle_readdir(&h, D, &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no READDIR", "no readdir of dir is flagged");
	dt_history_free(&h);

	return done();
}
