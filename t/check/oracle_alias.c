/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_oracle_alias: the names of one file are one file on one client.  Fed
 * what a correct client shows, and what a client with two in-core inodes
 * for one file shows (the change through one name, the old size and link
 * count through another), and the misuses.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dentrace.h"
#include "tap.h"

#define MAXSEEN 32

struct seen {
	struct dt_alias_seen s[MAXSEEN];
	size_t n;
};

static size_t stat_of(struct seen *l, unsigned host, unsigned thread,
		      const char *name, int result, uint64_t fileid,
		      uint64_t size, uint32_t nlink, uint64_t start,
		      uint64_t end)
{
	struct dt_alias_seen *e = &l->s[l->n];

	if (l->n >= MAXSEEN)
		bail_out("more than %d entries", MAXSEEN);
	*e = (struct dt_alias_seen){
		.host = (uint16_t)host, .thread = (uint16_t)thread,
		.result = result, .fileid = fileid, .size = size,
		.nlink = nlink, .start_ns = start, .end_ns = end,
	};
	snprintf(e->name, sizeof(e->name), "%s", name);
	return l->n++;
}

static size_t change_of(struct seen *l, unsigned host, const char *name,
			uint64_t size, uint32_t nlink, uint64_t start,
			uint64_t end)
{
	size_t i = stat_of(l, host, 0, name, 0, 0, size, nlink, start, end);

	l->s[i].change = true;
	return i;
}

/* rc and the verdict: count, first bad entry, a word of its what */
static void verdict_is(int rc, const struct dt_verdict *v, int want,
		       size_t event, const char *what, const char *name)
{
	if (!ok(rc == want && v->violations == want, "%s", name))
		diag("rc %d violations %d, want %d", rc, v->violations, want);
	if (!want)
		return;
	if (!ok(v->event == event, "  first bad entry is %zu", event))
		diag("got %zu", v->event);
	if (!ok(strstr(v->what, what) != NULL, "  what says \"%s\"", what))
		diag("what: %s", v->what);
	ok(v->expected[0] && v->observed[0], "  expected and observed given");
	note("what: %s", v->what);
	note("expected: %s", v->expected);
	note("observed: %s", v->observed);
}

int main(void)
{
	struct seen l = { 0 };
	struct dt_verdict v;
	size_t bad;
	int rc;

	/* good: four names, all one fileid; host 0 writes 1003 bytes and
	 * links a fifth name through d0/a; every stat after shows both */
	stat_of(&l, 0, 1, "d0/a", 0, 14, 0, 4, 10, 20);
	stat_of(&l, 0, 2, "d0/b", 0, 14, 0, 4, 11, 21);
	stat_of(&l, 0, 3, "d1/c", 0, 14, 0, 4, 12, 22);
	change_of(&l, 0, "d0/a", 1003, 5, 100, 200);
	stat_of(&l, 0, 1, "d0/b", 0, 14, 1003, 5, 300, 310);
	stat_of(&l, 0, 2, "d1/c", 0, 14, 1003, 5, 300, 310);
	stat_of(&l, 0, 3, "d1/d", 0, 14, 1003, 5, 300, 310);
	/* a stat that overlaps the change may show either state */
	stat_of(&l, 0, 4, "d1/d", 0, 14, 0, 4, 150, 250);
	/* another host lags within its cache bound: not judged */
	stat_of(&l, 1, 0, "d1/d", 0, 14, 0, 4, 300, 310);
	/* a failed stat is the history checker's to judge */
	stat_of(&l, 0, 5, "d1/d", -ESTALE, 0, 0, 0, 320, 330);
	rc = dt_oracle_alias(l.s, l.n, &v);
	verdict_is(rc, &v, 0, 0, "", "good: one file, one client");

	/* bad: the iget_locked class: d1/c and d1/d are another in-core
	 * inode, still showing the file as it was before the change */
	l.n = 0;
	stat_of(&l, 0, 1, "d0/a", 0, 14, 0, 4, 10, 20);
	stat_of(&l, 0, 2, "d1/c", 0, 14, 0, 4, 10, 20);
	change_of(&l, 0, "d0/a", 1003, 5, 100, 200);
	stat_of(&l, 0, 1, "d0/b", 0, 14, 1003, 5, 300, 310);
	stat_of(&l, 0, 2, "d1/d", 0, 14, 0, 4, 305, 315);
	bad = stat_of(&l, 0, 3, "d1/c", 0, 14, 0, 4, 301, 311);
	rc = dt_oracle_alias(l.s, l.n, &v);
	verdict_is(rc, &v, 2, bad, "shows the file as before",
		   "bad: two names still show the old size and link count = 2");
	is_int(dt_oracle_alias(l.s, l.n, NULL), 2,
	       "  a NULL verdict still gets the count");

	/* bad: the size is right, the link count is not */
	l.n = 0;
	change_of(&l, 0, "d0/a", 1003, 5, 100, 200);
	bad = stat_of(&l, 0, 2, "d1/c", 0, 14, 1003, 4, 300, 310);
	rc = dt_oracle_alias(l.s, l.n, &v);
	verdict_is(rc, &v, 1, bad, "shows the file as before",
		   "bad: the old link count alone");

	/* the latest change counts: a second write to 2000 bytes */
	l.n = 0;
	change_of(&l, 0, "d0/a", 1003, 5, 100, 200);
	stat_of(&l, 0, 2, "d1/c", 0, 14, 1003, 5, 210, 220);
	change_of(&l, 0, "d1/c", 2000, 5, 300, 400);
	bad = stat_of(&l, 0, 3, "d0/b", 0, 14, 1003, 5, 500, 510);
	rc = dt_oracle_alias(l.s, l.n, &v);
	verdict_is(rc, &v, 1, bad, "shows the file as before",
		   "bad: the first change's size after the second change");

	/* bad: two fileids for the names of one file, before any change */
	l.n = 0;
	stat_of(&l, 0, 1, "d0/a", 0, 14, 0, 4, 10, 20);
	bad = stat_of(&l, 0, 2, "d1/c", 0, 15, 0, 4, 11, 21);
	change_of(&l, 0, "d0/a", 1003, 5, 100, 200);
	stat_of(&l, 0, 1, "d0/a", 0, 14, 1003, 5, 300, 310);
	rc = dt_oracle_alias(l.s, l.n, &v);
	verdict_is(rc, &v, 1, bad, "two fileids", "bad: two fileids");
	/* one fileid on two devices is two files too */
	l.s[bad].fileid = 14;
	l.s[bad].dev = 7;
	rc = dt_oracle_alias(l.s, l.n, &v);
	verdict_is(rc, &v, 1, bad, "dev 0 and 7", "bad: one fileid, two st_dev");

	/* another host's own change is judged on that host alone */
	l.n = 0;
	stat_of(&l, 0, 1, "d0/a", 0, 14, 0, 4, 10, 20);
	change_of(&l, 1, "d0/a", 1003, 5, 100, 200);
	stat_of(&l, 0, 1, "d0/b", 0, 14, 0, 4, 300, 310);
	bad = stat_of(&l, 1, 1, "d0/b", 0, 14, 0, 4, 300, 310);
	rc = dt_oracle_alias(l.s, l.n, &v);
	verdict_is(rc, &v, 1, bad, "host 1: after its own change",
		   "bad: the changing host's stat, not the other host's");

	/* misuse: nothing after the change, or no change at all */
	l.n = 0;
	stat_of(&l, 0, 1, "d0/a", 0, 14, 0, 4, 10, 20);
	change_of(&l, 0, "d0/a", 1003, 5, 100, 200);
	rc = dt_oracle_alias(l.s, l.n, &v);
	verdict_is(rc, &v, 1, SIZE_MAX, "no stat", "nothing judged is flagged");
	l.n = 0;
	rc = dt_oracle_alias(l.s, l.n, &v);
	verdict_is(rc, &v, 1, SIZE_MAX, "no stat", "  and so is an empty list");

	return done();
}
