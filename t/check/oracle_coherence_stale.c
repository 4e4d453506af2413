/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_staleness: a read that saw the old state is flagged iff it
 * began more than the bound after the change returned; reads overlapping
 * the change, or within the bound, are not.  The windows it measures are
 * checked on hand-made timelines.
 */
#include <time.h>

#include "oracle_ev.h"
#include "check/oracle_coherence.h"

#define X "s/d/x"
#define Y "s/d/y"

/* writer thread 0, observers 1.. */
static size_t look(struct dt_history *h, unsigned th, const char *name,
		   int result, uint64_t fid, uint64_t s, uint64_t e)
{
	return ev(h, th, DT_OP_LOOKUP, name, NULL, result, fid, s, e);
}

static int stale(const struct dt_history *h, uint64_t bound,
		 struct dt_verdict *v)
{
	return dt_oracle_staleness(h, bound, DT_OP__COUNT, v, NULL);
}

/* x created [0,10] fileid 5, unlinked [100,110] */
static void life(struct dt_history *h)
{
	ev(h, 0, DT_OP_CREATE, X, NULL, 0, 5, 0, 10);
	ev(h, 0, DT_OP_UNLINK, X, NULL, 0, 0, 100, 110);
}

static void strict(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: an empty history");

	life(&h);
	look(&h, 1, X, -ENOENT, 0, 5, 8);	/* overlaps the create */
	look(&h, 1, X, 0, 5, 5, 8);
	look(&h, 1, X, -ENOENT, 0, 0, 10);	/* exactly the create */
	look(&h, 1, X, 0, 5, 10, 20);		/* starts as it returned */
	look(&h, 1, X, 0, 5, 50, 60);
	look(&h, 1, X, 0, 5, 105, 108);		/* overlaps the unlink */
	look(&h, 1, X, -ENOENT, 0, 105, 108);
	look(&h, 1, X, 0, 5, 110, 115);		/* starts as it returned */
	look(&h, 1, X, -ENOENT, 0, 111, 115);
	look(&h, 1, X, 0, 0, 50, 60);		/* fileid unknown */
	look(&h, 2, "s/d/other", 0, 9, 50, 60);	/* never mutated */
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: bound 0, nothing stale");
	dt_history_sort(&h);
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: the same, sorted by start");
	dt_history_free(&h);

	life(&h);
	bad = look(&h, 1, X, -ENOENT, 0, 11, 12);
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 1, bad, "stale",
		   "bad: ENOENT 1 ns after the create returned, bound 0");
	dt_history_free(&h);

	life(&h);
	bad = look(&h, 1, X, 0, 5, 111, 112);
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 1, bad, "stale",
		   "bad: found 1 ns after the unlink returned, bound 0");
	dt_history_free(&h);

	life(&h);
	bad = look(&h, 1, X, 0, 7, 20, 30);
	rc = stale(&h, 1000, &v);
	verdict_is(rc, &v, 1, bad, "fileid mismatch",
		   "bad: found as another file (no bound excuses it)");
	dt_history_free(&h);

	life(&h);
	bad = ev(&h, 1, DT_OP_LOOKUP, "s/d/y", NULL, 0, 3, 1, 2);
	ev(&h, 0, DT_OP_CREATE, "s/d/y", NULL, 0, 3, 50, 60);
	rc = stale(&h, 1000, &v);
	verdict_is(rc, &v, 1, bad, "found before creation",
		   "bad: found before the create began");
	dt_history_free(&h);

	life(&h);
	bad = look(&h, 1, X, -ESTALE, 0, 20, 30);
	rc = stale(&h, 1000, &v);
	verdict_is(rc, &v, 1, bad, "returned ESTALE",
		   "bad: ESTALE from a path lookup");
	dt_history_free(&h);
}

static void bounded(void)
{
	struct dt_history h = { 0 };
	struct dt_stale_stats st;
	struct dt_verdict v;
	size_t bad;
	int rc;

	/* bound 5: stale by 5 is fine, by 6 is not */
	life(&h);
	look(&h, 1, X, -ENOENT, 0, 15, 20);
	look(&h, 1, X, 0, 5, 115, 120);
	look(&h, 1, X, 0, 5, 112, 113);
	rc = dt_oracle_staleness(&h, 5, DT_OP__COUNT, &v, &st);
	verdict_is(rc, &v, 0, 0, NULL, "good: stale within the bound (5 ns)");
	is_int(st.reads, 3, "three reads judged");
	is_int(st.stale_reads, 3, "all three stale");
	is_int(st.stale_max_ns, 5, "the stalest began 5 ns after");
	bad = look(&h, 1, X, 0, 5, 116, 117);
	look(&h, 1, X, -ENOENT, 0, 16, 17);
	rc = stale(&h, 5, &v);
	verdict_is(rc, &v, 2, bad, "stale",
		   "bad: stale by 6 with bound 5, the earliest event reported");
	rc = stale(&h, 6, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: the same with bound 6");
	dt_history_free(&h);

	/*
	 * x created again [200,210] fileid 6: finding the first file (5)
	 * after the second create is stale since the unlink, not since
	 * the create.
	 */
	life(&h);
	ev(&h, 0, DT_OP_CREATE, X, NULL, 0, 6, 200, 210);
	look(&h, 1, X, 0, 5, 250, 260);
	rc = dt_oracle_staleness(&h, 140, DT_OP__COUNT, &v, &st);
	verdict_is(rc, &v, 0, 0, NULL, "good: old file 140 after the unlink");
	is_int(st.stale_max_ns, 140, "stale since the unlink returned");
	bad = look(&h, 1, X, 0, 5, 251, 260);
	rc = stale(&h, 140, &v);
	verdict_is(rc, &v, 1, bad, "stale", "bad: old file 141 after");
	dt_history_free(&h);
}

/* a rename carries the file: y must be found with x's fileid */
static void renames(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	ev(&h, 0, DT_OP_CREATE, X, NULL, 0, 5, 0, 10);
	ev(&h, 0, DT_OP_RENAME, X, Y, 0, 0, 100, 110);
	look(&h, 1, Y, 0, 5, 120, 130);
	look(&h, 1, Y, -ENOENT, 0, 105, 108);
	look(&h, 1, X, 0, 5, 105, 108);
	look(&h, 1, X, -ENOENT, 0, 110, 115);
	look(&h, 1, Y, -ENOENT, 0, 50, 60);
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: rename seen at once");
	bad = look(&h, 1, Y, 0, 6, 120, 130);
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 1, bad, "fileid mismatch",
		   "bad: target found as another file");
	dt_history_free(&h);

	ev(&h, 0, DT_OP_CREATE, X, NULL, 0, 5, 0, 10);
	ev(&h, 0, DT_OP_RENAME, X, Y, 0, 0, 100, 110);
	bad = look(&h, 1, X, 0, 5, 150, 160);
	look(&h, 1, Y, -ENOENT, 0, 150, 160);
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 2, bad, "stale",
		   "bad: source found and target absent after the rename");
	rc = stale(&h, 40, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: the same within bound 40");
	dt_history_free(&h);

	/* the source's create still ran when the rename began: fileid open */
	ev(&h, 0, DT_OP_CREATE, X, NULL, 0, 5, 0, 110);
	ev(&h, 0, DT_OP_RENAME, X, Y, 0, 0, 100, 120);
	look(&h, 1, Y, 0, 9, 130, 140);
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 0, 0, NULL,
		   "good: fileid unknown when the source's create overlaps");
	dt_history_free(&h);

	/* a chain passes the fileid on: x -> y -> z */
	ev(&h, 0, DT_OP_CREATE, X, NULL, 0, 5, 0, 10);
	ev(&h, 0, DT_OP_RENAME, X, Y, 0, 0, 100, 110);
	ev(&h, 0, DT_OP_RENAME, Y, "s/d/z", 0, 0, 200, 210);
	look(&h, 1, "s/d/z", 0, 5, 220, 230);
	bad = look(&h, 1, "s/d/z", 0, 6, 230, 240);
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 1, bad, "fileid mismatch",
		   "bad: chain target found as another file");
	dt_history_free(&h);

	/* names below a renamed directory are not judged */
	ev(&h, 0, DT_OP_MKDIR, "s/m", NULL, 0, 0, 0, 10);
	ev(&h, 0, DT_OP_CREATE, "s/m/f", NULL, 0, 5, 10, 20);
	ev(&h, 0, DT_OP_RENAME, "s/m", "s/n", 0, 0, 100, 110);
	look(&h, 1, "s/m/f", 0, 5, 200, 210);
	look(&h, 1, "s/n/f", 0, 5, 200, 210);
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: below a renamed directory");
	dt_history_free(&h);
}

/* an unknown state before the history explains anything until replaced */
static void unknown_start(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	ev(&h, 0, DT_OP_CREATE, X, NULL, -EEXIST, 0, 0, 10);
	ev(&h, 0, DT_OP_UNLINK, X, NULL, 0, 0, 100, 110);
	look(&h, 1, X, 0, 77, 20, 30);
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 0, 0, NULL, "good: existed before the history");
	bad = look(&h, 1, X, 0, 77, 120, 130);
	rc = stale(&h, 0, &v);
	verdict_is(rc, &v, 1, bad, "stale", "bad: ... and after its unlink");
	dt_history_free(&h);
}

static void windows(void)
{
	struct dt_history h = { 0 };
	struct dt_stale_stats st;
	struct dt_verdict v;
	int rc;

	/* create p [100,110] by t0 */
	ev(&h, 0, DT_OP_CREATE, "s/p", NULL, 0, 5, 100, 110);
	look(&h, 1, "s/p", -ENOENT, 0, 90, 95);		/* priming: before */
	look(&h, 1, "s/p", -ENOENT, 0, 100, 105);
	look(&h, 1, "s/p", -ENOENT, 0, 106, 109);
	look(&h, 1, "s/p", 0, 5, 112, 113);		/* fresh: 2 after */
	look(&h, 1, "s/p", 0, 5, 114, 115);
	look(&h, 2, "s/p", 0, 5, 105, 108);		/* fresh at once */
	look(&h, 0, "s/p", 0, 5, 111, 112);		/* the writer: no window */
	rc = dt_oracle_staleness(&h, 0, DT_OP_CREATE, &v, &st);
	verdict_is(rc, &v, 0, 0, NULL, "good: windows of one create");
	is_int(st.windows, 2, "two observers, two windows");
	is_int(st.unconverged, 0, "both converged");
	is_int(st.win_p50_ns, 0, "p50 window 0 (lower median of 0, 2)");
	is_int(st.win_max_ns, 2, "max window 2 ns");
	is_int(st.low_max_ns, 0, "old state last seen before the change returned");
	is_int(st.stale_reads, 0, "no stale read");
	rc = dt_oracle_staleness(&h, 0, DT_OP_UNLINK, &v, &st);
	is_int(st.windows, 0, "no UNLINK: no window");
	dt_history_free(&h);

	/* bound 50: observer 1 stale for a while, observer 3 never sees it */
	ev(&h, 0, DT_OP_CREATE, "s/p", NULL, 0, 5, 100, 110);
	look(&h, 1, "s/p", -ENOENT, 0, 120, 125);
	look(&h, 1, "s/p", -ENOENT, 0, 130, 140);
	look(&h, 1, "s/p", 0, 5, 150, 151);
	look(&h, 3, "s/p", -ENOENT, 0, 120, 130);
	rc = dt_oracle_staleness(&h, 50, DT_OP_CREATE, &v, &st);
	verdict_is(rc, &v, 0, 0, NULL, "good: stale within bound 50");
	is_int(st.windows, 2, "two windows");
	is_int(st.unconverged, 1, "observer 3 never saw the file");
	is_int(st.win_max_ns, 40, "observer 1: fresh read began 40 after");
	is_int(st.low_max_ns, 30, "old state seen until 30 after");
	is_int(st.low_p50_ns, 20, "lower median of the low bounds (20, 30)");
	is_int(st.stale_reads, 3, "three stale reads");
	is_int(st.stale_max_ns, 20, "the stalest began 20 after");
	dt_history_free(&h);

	/* a rename's window is its slower name's */
	ev(&h, 0, DT_OP_CREATE, X, NULL, 0, 5, 0, 10);
	look(&h, 1, X, 0, 5, 50, 60);
	ev(&h, 0, DT_OP_RENAME, X, Y, 0, 0, 100, 110);
	look(&h, 1, Y, 0, 5, 115, 116);
	look(&h, 1, X, 0, 5, 111, 112);
	look(&h, 1, X, -ENOENT, 0, 118, 119);
	rc = dt_oracle_staleness(&h, 10, DT_OP_RENAME, &v, &st);
	verdict_is(rc, &v, 0, 0, NULL, "good: rename stale within bound 10");
	is_int(st.windows, 1, "one rename, one observer: one window");
	is_int(st.win_max_ns, 8, "x's ENOENT came 8 after: the window");
	is_int(st.low_max_ns, 2, "x still found until 2 after");
	rc = dt_oracle_staleness(&h, 10, DT_OP__COUNT, &v, &st);
	is_int(st.windows, 2, "every mutation: the create's window too");
	dt_history_free(&h);
}

/* judging stays O(n log n): many names, and one name changed often */
static void scale(void)
{
	struct dt_history h = { 0 };
	struct dt_stale_stats st;
	struct dt_verdict v;
	struct timespec a, b;
	char name[32];
	uint64_t t = 0;
	double s;
	int rc;

	for (int i = 0; i < 50000; i++) {
		snprintf(name, sizeof(name), "s/n.%d", i);
		ev(&h, 0, DT_OP_CREATE, name, NULL, 0, (uint64_t)i + 1, t,
		   t + 5);
		look(&h, 1, name, 0, (uint64_t)i + 1, t + 6, t + 8);
		t += 10;
	}
	for (int i = 0; i < 50000; i++) {
		ev(&h, 0, i & 1 ? DT_OP_UNLINK : DT_OP_CREATE, "s/hot", NULL,
		   0, 7, t, t + 5);
		look(&h, 1 + (unsigned)(i % 4), "s/hot",
		     i & 1 ? -ENOENT : 0, 7, t + 6, t + 8);
		t += 10;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = dt_oracle_staleness(&h, 0, DT_OP__COUNT, &v, &st);
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	verdict_is(rc, &v, 0, 0, NULL, "good: 200k events");
	is_int(st.windows, 100000, "a window per change");
	/* a figure, not a verdict: speed is shown by benchmarks */
	note("200k events judged in %.2f s", s);
	dt_history_free(&h);
}

int main(void)
{
	strict();
	bounded();
	renames();
	unknown_start();
	windows();
	scale();
	return done();
}
