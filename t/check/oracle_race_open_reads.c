/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_open_reads: a file opened before its name is unlinked stays
 * readable, whole, until it is closed.
 */
#include "oracle_ev.h"
#include "check/oracle_race.h"

#define P "s/f."
#define F0 "s/f.0.0"
#define F1 "s/f.0.1"
#define SIZE 5000
/* a READ's request as dt_pread records it: offset 0, one byte more than
 * the file holds (so a long file shows) */
#define REQ "0+5001"

/* thread t's timeline on file f, unlinked by the other thread at [40,50] */
static void reader(struct dt_history *h, unsigned t, const char *f,
		   int read_after)
{
	ev(h, t, DT_OP_CREATE, f, NULL, 0, 0, 0, 5);
	ev(h, t, DT_OP_OPEN, f, NULL, 0, 0, 10, 15);
	ev(h, t, DT_OP_READ, "", REQ, SIZE, 0, 20, 30);
	ev(h, t ^ 1, DT_OP_UNLINK, f, NULL, 0, 0, 40, 50);
	ev(h, t, DT_OP_READ, "", REQ, read_after, 0, 60, 70);
	ev(h, t, DT_OP_CLOSE, "", NULL, 0, 0, 80, 90);
}

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	/* good */
	reader(&h, 0, F0, SIZE);
	reader(&h, 1, F1, SIZE);
	rc = dt_oracle_open_reads(&h, P, SIZE, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: two threads read their unlinked files");
	dt_history_sort(&h);
	rc = dt_oracle_open_reads(&h, P, SIZE, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: same history sorted by start");
	dt_history_free(&h);

	/*
	 * a caching client: OPENs widened by a stale bound longer than the
	 * run (starts moved back before every other op); the thread's order
	 * holds, and a failed read after the unlink is still caught
	 */
	reader(&h, 0, F0, SIZE);
	reader(&h, 1, F1, SIZE);
	for (size_t i = 0; i < h.n; i++)
		h.ev[i].start_ns += 1000, h.ev[i].end_ns += 1000;
	dt_history_widen_reads(&h, 1000);
	rc = dt_oracle_open_reads(&h, P, SIZE, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: widened OPENs keep each thread's order");
	dt_history_free(&h);
	reader(&h, 0, F0, SIZE);
	bad = ev(&h, 0, DT_OP_OPEN, "s/f.1.0", NULL, 0, 0, 100, 105);
	bad = ev(&h, 0, DT_OP_READ, "", NULL, -ESTALE, 0, 160, 170);
	ev(&h, 1, DT_OP_UNLINK, "s/f.1.0", NULL, 0, 0, 120, 130);
	for (size_t i = 0; i < h.n; i++)
		h.ev[i].start_ns += 1000, h.ev[i].end_ns += 1000;
	dt_history_widen_reads(&h, 1000);
	bad = 0;
	for (size_t i = 0; i < h.n; i++)
		if (h.ev[i].op == DT_OP_READ && h.ev[i].result == -ESTALE)
			bad = i;
	rc = dt_oracle_open_reads(&h, P, SIZE, &v);
	verdict_is(rc, &v, 1, bad, "a read of open", "bad: widened history, ESTALE read after unlink caught");
	dt_history_free(&h);

	/* reads outside an open of ours are not judged */
	reader(&h, 0, F0, SIZE);
	ev(&h, 0, DT_OP_READ, "", NULL, -EBADF, 0, 100, 110);	/* after close */
	ev(&h, 2, DT_OP_OPEN, "s/g.0", NULL, 0, 0, 10, 15);	/* other prefix */
	ev(&h, 2, DT_OP_READ, "", NULL, -EIO, 0, 20, 30);
	ev(&h, 3, DT_OP_OPEN, F0, NULL, -ENOENT, 0, 60, 65);	/* failed open */
	ev(&h, 3, DT_OP_READ, "", NULL, -EBADF, 0, 70, 75);
	ev(&h, 0, DT_OP_OPEN, "s/g.1", NULL, 0, 0, 200, 210);	/* ends ours */
	ev(&h, 0, DT_OP_READ, "", NULL, 1, 0, 220, 230);
	rc = dt_oracle_open_reads(&h, P, SIZE, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: other files' reads ignored");
	dt_history_free(&h);

	/* hosts keep their threads apart: h1 t0 is not h0 t0 */
	reader(&h, 0, F0, SIZE);
	ev(&h, 5, DT_OP_OPEN, F1, NULL, 0, 0, 10, 15);
	h.ev[h.n - 1].host = 1;
	ev(&h, 5, DT_OP_READ, "", NULL, -EIO, 0, 20, 30);	/* h0 t5 */
	rc = dt_oracle_open_reads(&h, P, SIZE, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: a read on another host's thread is not ours");
	dt_history_free(&h);

	/* bad: stale handle after the unlink (what NFSv3 without state does) */
	reader(&h, 0, F0, SIZE);
	reader(&h, 1, F1, -ESTALE);
	bad = 10;
	rc = dt_oracle_open_reads(&h, P, SIZE, &v);
	verdict_is(rc, &v, 1, bad, "after its name was unlinked", "bad: ESTALE read after the unlink");
	ok(strstr(v.what, F1) && strstr(v.expected, "#7 "),
	   "  verdict names the file and its open");
	is_int(dt_oracle_open_reads(&h, P, SIZE, NULL), 1,
	       "  a NULL verdict still gets the count");
	dt_history_free(&h);

	/* bad: the data is gone (server freed it: 0 bytes), or too much */
	reader(&h, 0, F0, 0);
	reader(&h, 1, F1, SIZE + 1);
	rc = dt_oracle_open_reads(&h, P, SIZE, &v);
	verdict_is(rc, &v, 2, 4, "returned 0 of 5000", "bad: empty read + long read = 2");
	dt_history_free(&h);

	/* bad: a read before the unlink fails too */
	reader(&h, 0, F0, SIZE);
	h.ev[2].result = -EIO;
	rc = dt_oracle_open_reads(&h, P, SIZE, &v);
	verdict_is(rc, &v, 1, 2, "failed", "bad: EIO read before the unlink");
	ok(!strstr(v.what, "unlinked"), "  not said to be after the unlink");
	dt_history_free(&h);

	/* bad: close fails */
	reader(&h, 0, F0, SIZE);
	h.ev[5].result = -ESTALE;
	rc = dt_oracle_open_reads(&h, P, SIZE, &v);
	verdict_is(rc, &v, 1, 5, "close", "bad: CLOSE returns ESTALE");
	dt_history_free(&h);

	/* misuse: the unlink came after the close: nothing tested */
	ev(&h, 0, DT_OP_OPEN, F0, NULL, 0, 0, 10, 15);
	ev(&h, 0, DT_OP_READ, "", NULL, SIZE, 0, 20, 30);
	ev(&h, 0, DT_OP_CLOSE, "", NULL, 0, 0, 30, 35);
	ev(&h, 1, DT_OP_UNLINK, F0, NULL, 0, 0, 40, 50);
	/* a read overlapping the unlink is no proof either */
	ev(&h, 1, DT_OP_OPEN, F1, NULL, 0, 0, 10, 15);
	ev(&h, 0, DT_OP_UNLINK, F1, NULL, 0, 0, 40, 50);
	ev(&h, 1, DT_OP_READ, "", NULL, SIZE, 0, 50, 60);
	rc = dt_oracle_open_reads(&h, P, SIZE, &v);
	verdict_is(rc, &v, 1, NO_EVENT, "nothing tested", "no read after an unlink is flagged");
	dt_history_free(&h);

	/* misuse: no open of the prefix */
	reader(&h, 0, F0, SIZE);
	rc = dt_oracle_open_reads(&h, "s/h.", SIZE, &v);
	verdict_is(rc, &v, 1, NO_EVENT, "no successful OPEN", "wrong prefix is flagged");
	dt_history_free(&h);

	return done();
}
