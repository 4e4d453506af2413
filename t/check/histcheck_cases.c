/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_check_history on hand-made histories: for every op kind a known-good
 * history (consistent) and a known-bad one (a violation, with the class of
 * the violation and, where it is unambiguous, the event it names), the
 * staleness bound on both sides, an overlapping history that needs a
 * linearization order other than the start order, the budget running out
 * (inconclusive, never consistent), directory renames moving the paths
 * below them, and removed directories' paths left out and counted.
 */
#include <inttypes.h>

#include "oracle_ev.h"
#include "check/histcheck.h"

#define SETUP 0xffff

/* an exclusive create, as dt_create(..., true, ...) records it */
static size_t ev_excl(struct dt_history *h, unsigned thread, const char *name,
		      int result, uint64_t fileid, uint64_t start, uint64_t end)
{
	size_t i = ev(h, thread, DT_OP_CREATE, name, NULL, result, fileid,
		      start, end);

	h->ev[i].flags |= DT_EVF_EXCL;
	return i;
}

/*
 * Judge h with o; want status want (and, for a violation, what_has in the
 * verdict's what and the verdict at event want_ev unless NO_EVENT: the
 * first event of the shrunk counterexample).
 */
static void judge(struct dt_history *h, const struct dt_check_opts *o,
		  int want, const char *what_has, size_t want_ev,
		  const char *name)
{
	struct dt_check_result r;
	int rc = dt_check_history(h, o, &r);
	bool pass = rc == want && r.status == want;

	if (pass && want == DT_CHECK_VIOLATION) {
		pass = r.verdict.violations > 0 &&
		       (!what_has || strstr(r.verdict.what, what_has)) &&
		       (want_ev == NO_EVENT || r.verdict.event == want_ev) &&
		       r.ncex > 0 && r.cex_text;
	}
	ok(pass, "%s: %s", name, dt_check_status_name(want));
	if (!pass)
		diag("  got rc %d status %s, event %zu (want %zu)", rc,
		     dt_check_status_name(r.status), r.verdict.event, want_ev);
	if (r.status != DT_CHECK_CONSISTENT || !pass) {
		(pass ? note : diag)("  what:     %s", r.verdict.what);
		(pass ? note : diag)("  expected: %s", r.verdict.expected);
		(pass ? note : diag)("  observed: %s", r.verdict.observed);
		if (r.cex_text)
			(pass ? note : diag)("  counterexample (%zu events):\n%s",
					     r.ncex, r.cex_text);
	}
	dt_check_result_free(&r);
	dt_history_free(h);
}

static const struct dt_check_opts strict = { 0 };

static void rename_cases(void)
{
	struct dt_history h = { 0 };

	/* a -> b; a's lookup then b's lookup, both inside the rename, both
	 * ENOENT: the file had neither name in between */
	ev_excl(&h, SETUP, "s/a", 0, 5, 0, 10);
	ev(&h, SETUP, DT_OP_LOOKUP, "s/b", NULL, -ENOENT, 0, 11, 12);
	ev(&h, 1, DT_OP_RENAME, "s/a", "s/b", 0, 0, 100, 200);
	ev(&h, 2, DT_OP_LOOKUP, "s/a", NULL, -ENOENT, 0, 120, 130);
	ev(&h, 2, DT_OP_LOOKUP, "s/b", NULL, -ENOENT, 0, 140, 150);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", 2,
	      "lost rename window (neither name exists)");

	ev_excl(&h, SETUP, "s/a", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_RENAME, "s/a", "s/b", 0, 0, 100, 200);
	ev(&h, 2, DT_OP_LOOKUP, "s/a", NULL, -ENOENT, 0, 120, 130);
	ev(&h, 2, DT_OP_LOOKUP, "s/b", NULL, 0, 5, 140, 150);
	ev(&h, 3, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 110, 115);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "rename seen in one order by every reader");

	/* rename ENOENT while a surely exists */
	ev_excl(&h, SETUP, "s/a", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_RENAME, "s/a", "s/b", -ENOENT, 0, 100, 200);
	ev(&h, 2, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 300, 310);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", 0,
	      "rename ENOENT while its source exists");

	/* rename between two links of one file: nothing happens (POSIX) */
	ev_excl(&h, SETUP, "s/a", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_LINK, "s/a", "s/b", 0, 0, 20, 30);
	ev(&h, 1, DT_OP_RENAME, "s/a", "s/b", 0, 0, 40, 50);
	ev(&h, 2, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 60, 70);
	ev(&h, 2, DT_OP_LOOKUP, "s/b", NULL, 0, 5, 60, 70);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "rename between hard links of one file is a no-op");

	/*
	 * rename onto a name the history never saw before: a file this
	 * history created has one name, so the rename cannot be the no-op
	 * between two links of one file; its old name must be gone
	 */
	ev_excl(&h, 1, "s/a", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_RENAME, "s/a", "s/b", 0, 0, 20, 30);
	ev(&h, 2, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 40, 50);
	ev(&h, 2, DT_OP_LOOKUP, "s/b", NULL, 0, 5, 60, 70);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "rename of a created file to an unseen name leaves the source");
	ev_excl(&h, 1, "s/a", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_RENAME, "s/a", "s/b", 0, 0, 20, 30);
	ev(&h, 2, DT_OP_LOOKUP, "s/a", NULL, -ENOENT, 0, 40, 50);
	ev(&h, 2, DT_OP_LOOKUP, "s/b", NULL, 0, 5, 40, 50);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "rename of a created file to an unseen name moves it");
	/* a link gives the file a second name: then the no-op is allowed */
	ev_excl(&h, 1, "s/a", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_LINK, "s/a", "s/c", 0, 0, 12, 14);
	ev(&h, 1, DT_OP_RENAME, "s/c", "s/a", 0, 0, 20, 30);
	ev(&h, 2, DT_OP_LOOKUP, "s/c", NULL, 0, 5, 40, 50);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "rename between a file and its link made in the history");
	/*
	 * two names of a file set up outside the history, fileids not
	 * recorded: rename between them is POSIX's no-op, both stay (the
	 * search never tried that outcome after backtracking: a false
	 * violation)
	 */
	ev(&h, 1, DT_OP_LINK, "s/a", "s/b", 0, 0, 0, 10);
	ev(&h, 1, DT_OP_RENAME, "s/a", "s/b", 0, 0, 20, 30);
	ev(&h, 2, DT_OP_LOOKUP, "s/a", NULL, 0, 0, 40, 50);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "rename between two links of unknown fileid is a no-op");
	/* onto a created file from an unseen name: not one file either */
	ev_excl(&h, 1, "s/t", 0, 7, 0, 10);
	ev(&h, 1, DT_OP_RENAME, "s/u", "s/t", 0, 0, 20, 30);
	ev(&h, 2, DT_OP_LOOKUP, "s/u", NULL, 0, 7, 40, 50);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "rename onto a created file from an unseen name leaves the source");

	/* rename over an existing file: the target is replaced, never
	 * absent */
	ev_excl(&h, SETUP, "s/t", 0, 1, 0, 10);
	ev_excl(&h, 1, "s/tmp", 0, 2, 20, 30);
	ev(&h, 1, DT_OP_RENAME, "s/tmp", "s/t", 0, 0, 40, 50);
	ev(&h, 2, DT_OP_LOOKUP, "s/t", NULL, -ENOENT, 0, 44, 46);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "rename over a file lets the target vanish");
}

static void create_cases(void)
{
	struct dt_history h = { 0 };

	ev(&h, SETUP, DT_OP_LOOKUP, "s/x", NULL, -ENOENT, 0, 0, 10);
	ev_excl(&h, 1, "s/x", 0, 1, 20, 30);
	ev_excl(&h, 2, "s/x", 0, 2, 22, 32);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "two exclusive creates both succeed");

	ev(&h, SETUP, DT_OP_LOOKUP, "s/x", NULL, -ENOENT, 0, 0, 10);
	ev_excl(&h, 1, "s/x", 0, 1, 20, 30);
	ev_excl(&h, 2, "s/x", -EEXIST, 0, 22, 32);
	ev(&h, 3, DT_OP_LOOKUP, "s/x", NULL, 0, 1, 40, 50);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "exclusive create: one winner, EEXIST for the other");

	/* non-exclusive: opening an existing file is fine, if it is the
	 * same file */
	ev_excl(&h, SETUP, "s/x", 0, 1, 0, 10);
	ev(&h, 1, DT_OP_CREATE, "s/x", NULL, 0, 1, 20, 30);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "non-exclusive create of an existing file");
	ev_excl(&h, SETUP, "s/x", 0, 1, 0, 10);
	ev(&h, 1, DT_OP_CREATE, "s/x", NULL, 0, 9, 20, 30);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "non-exclusive create returns another file");

	/* EEXIST from an exclusive create while the name surely is absent */
	ev(&h, SETUP, DT_OP_LOOKUP, "s/x", NULL, -ENOENT, 0, 0, 10);
	ev_excl(&h, 1, "s/x", -EEXIST, 0, 20, 30);
	ev(&h, 2, DT_OP_LOOKUP, "s/x", NULL, -ENOENT, 0, 40, 50);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "EEXIST for an absent name");

	/* mkdir: two winners */
	ev(&h, 1, DT_OP_MKDIR, "s/d", NULL, 0, 0, 20, 30);
	ev(&h, 2, DT_OP_MKDIR, "s/d", NULL, 0, 0, 22, 32);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "two mkdirs both succeed");
	ev(&h, 1, DT_OP_MKDIR, "s/d", NULL, 0, 0, 20, 30);
	ev(&h, 2, DT_OP_MKDIR, "s/d", NULL, -EEXIST, 0, 22, 32);
	ev(&h, 2, DT_OP_RMDIR, "s/d", NULL, 0, 0, 40, 50);
	ev(&h, 1, DT_OP_RMDIR, "s/d", NULL, -ENOENT, 0, 60, 70);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "mkdir EEXIST, rmdir, rmdir ENOENT");
	ev(&h, 1, DT_OP_MKDIR, "s/d", NULL, 0, 0, 20, 30);
	ev(&h, 2, DT_OP_RMDIR, "s/d", NULL, 0, 0, 40, 50);
	ev(&h, 1, DT_OP_RMDIR, "s/d", NULL, 0, 0, 60, 70);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "rmdir succeeds twice");
}

static void unlink_cases(void)
{
	struct dt_history h = { 0 };

	ev_excl(&h, SETUP, "s/v", 0, 3, 0, 10);
	ev(&h, 1, DT_OP_UNLINK, "s/v", NULL, 0, 0, 20, 30);
	ev(&h, 2, DT_OP_UNLINK, "s/v", NULL, 0, 0, 25, 35);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "unlink succeeds twice");

	ev_excl(&h, SETUP, "s/v", 0, 3, 0, 10);
	ev(&h, 1, DT_OP_UNLINK, "s/v", NULL, 0, 0, 20, 30);
	ev(&h, 2, DT_OP_UNLINK, "s/v", NULL, -ENOENT, 0, 25, 35);
	ev(&h, 3, DT_OP_OPEN, "s/v", NULL, -ENOENT, 0, 40, 41);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "one unlink winner, ENOENT for the other");

	/* stale lookup: found 60 ns after the unlink returned */
	for (int k = 0; k < 3; k++) {
		static const uint64_t delta[] = { 0, 40, 10 };
		static const int want[] = { DT_CHECK_VIOLATION,
					    DT_CHECK_CONSISTENT,
					    DT_CHECK_VIOLATION };
		struct dt_check_opts o = { .stale_ns = delta[k] };

		ev_excl(&h, SETUP, "s/v", 0, 7, 0, 10);
		ev(&h, 1, DT_OP_UNLINK, "s/v", NULL, 0, 0, 20, 30);
		/* another host: a client sees its own unlink at once */
		h.ev[ev(&h, 2, DT_OP_LOOKUP, "s/v", NULL, 0, 7, 50, 60)].host = 1;
		judge(&h, &o, want[k], "not linearizable", 1,
		      dt_fmt("stale lookup 20 ns after the unlink, stale %" PRIu64
			     " ns", delta[k]));
	}
	/* ENOTEMPTY needs the directory to exist */
	ev(&h, 1, DT_OP_MKDIR, "s/d", NULL, 0, 0, 0, 10);
	ev(&h, 1, DT_OP_RMDIR, "s/d", NULL, -ENOTEMPTY, 0, 20, 30);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "rmdir ENOTEMPTY of an existing dir");
	ev(&h, 1, DT_OP_LOOKUP, "s/d", NULL, -ENOENT, 0, 0, 10);
	ev(&h, 1, DT_OP_RMDIR, "s/d", NULL, -ENOTEMPTY, 0, 20, 30);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "rmdir ENOTEMPTY of an absent dir");
}

/* open with O_CREAT ("open+", "open+!") writes the name like a create */
static size_t ev_open(struct dt_history *h, unsigned thread, const char *name,
		      uint8_t flags, int result, uint64_t start, uint64_t end)
{
	size_t i = ev(h, thread, DT_OP_OPEN, name, NULL, result, 0, start, end);

	h->ev[i].flags |= flags;
	return i;
}

static void open_creat_cases(void)
{
	struct dt_history h = { 0 };

	ev(&h, SETUP, DT_OP_LOOKUP, "s/o", NULL, -ENOENT, 0, 0, 10);
	ev_open(&h, 1, "s/o", DT_EVF_CREAT, 0, 20, 30);
	ev(&h, 2, DT_OP_LOOKUP, "s/o", NULL, 0, 7, 40, 50);
	ev_open(&h, 2, "s/o", DT_EVF_CREAT, 0, 60, 70);	/* opens it */
	ev_open(&h, 3, "s/o", DT_EVF_CREAT | DT_EVF_EXCL, -EEXIST, 60, 70);
	ev(&h, 1, DT_OP_UNLINK, "s/o", NULL, 0, 0, 80, 90);
	ev_open(&h, 3, "s/o", DT_EVF_CREAT | DT_EVF_EXCL, 0, 100, 110);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "open O_CREAT creates, O_EXCL after the unlink creates again");

	ev(&h, SETUP, DT_OP_LOOKUP, "s/o", NULL, -ENOENT, 0, 0, 10);
	ev_open(&h, 1, "s/o", DT_EVF_CREAT, 0, 20, 30);
	ev(&h, 2, DT_OP_LOOKUP, "s/o", NULL, -ENOENT, 0, 40, 50);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "name lost after an open O_CREAT returned");

	ev_open(&h, 1, "s/o", DT_EVF_CREAT, 0, 20, 30);
	ev_open(&h, 2, "s/o", DT_EVF_CREAT | DT_EVF_EXCL, 0, 40, 50);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "open O_CREAT|O_EXCL succeeds on a name that exists");

	/* stale bound: a write is never widened, unlike a plain open */
	ev(&h, SETUP, DT_OP_LOOKUP, "s/o", NULL, -ENOENT, 0, 0, 10);
	ev(&h, 1, DT_OP_CREATE, "s/o", NULL, 0, 0, 20, 30);
	ev_open(&h, 2, "s/o", DT_EVF_CREAT | DT_EVF_EXCL, 0, 40, 50);
	judge(&h, &(struct dt_check_opts){ .stale_ns = 1000 },
	      DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "open O_EXCL is judged as written even with a stale bound");

	ev(&h, SETUP, DT_OP_LOOKUP, "s/o", NULL, -ENOENT, 0, 0, 10);
	ev(&h, 1, DT_OP_CREATE, "s/o", NULL, 0, 0, 20, 30);
	h.ev[ev(&h, 2, DT_OP_OPEN, "s/o", NULL, -ENOENT, 0, 40, 50)].host = 1;
	judge(&h, &(struct dt_check_opts){ .stale_ns = 1000 },
	      DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "plain open may be stale within the bound (another host's create)");
}

static void link_cases(void)
{
	struct dt_history h = { 0 };

	ev_excl(&h, SETUP, "s/src", 0, 4, 0, 10);
	ev(&h, 1, DT_OP_LINK, "s/src", "s/dst", 0, 0, 20, 30);
	ev(&h, 2, DT_OP_LINK, "s/src", "s/dst", -EEXIST, 0, 22, 32);
	ev(&h, 2, DT_OP_LOOKUP, "s/dst", NULL, 0, 4, 40, 50);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "link: one winner, the new name is the same file");

	ev_excl(&h, SETUP, "s/src", 0, 4, 0, 10);
	ev(&h, 1, DT_OP_LINK, "s/src", "s/dst", 0, 0, 20, 30);
	ev(&h, 2, DT_OP_LOOKUP, "s/dst", NULL, 0, 8, 40, 50);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", 0,
	      "link: the new name is another file");

	ev_excl(&h, SETUP, "s/src", 0, 4, 0, 10);
	ev_excl(&h, SETUP, "s/dst", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_LINK, "s/src", "s/dst", 0, 0, 20, 30);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "link over an existing name succeeds");
}

static void readdir_cases(void)
{
	struct dt_history h = { 0 };

	ev_excl(&h, SETUP, "s/d/a", 0, 1, 0, 10);
	ev_excl(&h, SETUP, "s/d/b", 0, 2, 0, 10);
	ev_rd(&h, 1, "s/d", 1, 20, 30, "a:1");
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", 1,
	      "readdir misses a name present throughout");

	ev_excl(&h, SETUP, "s/d/a", 0, 1, 0, 10);
	ev_rd(&h, 1, "s/d", 2, 20, 30, "a:1,a:1");
	judge(&h, &strict, DT_CHECK_VIOLATION, "duplicate", 1,
	      "readdir lists a name twice");

	/* the name removed and made again during the listing: two files */
	ev_excl(&h, SETUP, "s/d/a", 0, 1, 0, 10);
	ev(&h, 2, DT_OP_UNLINK, "s/d/a", NULL, 0, 0, 20, 22);
	ev_excl(&h, 2, "s/d/a", 0, 3, 24, 26);
	ev_rd(&h, 1, "s/d", 2, 20, 30, "a:1,a:3");
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "readdir lists a re-made name twice, two fileids");

	ev_excl(&h, SETUP, "s/d/a", 0, 1, 0, 10);
	ev_rd(&h, 1, "s/d", 2, 20, 30, "a:1,a:3,a:1");
	judge(&h, &strict, DT_CHECK_VIOLATION, "duplicate", 1,
	      "readdir lists one file twice among another");

	/* ghost: not listed before or after, nothing made it */
	ev_excl(&h, SETUP, "s/d/a", 0, 1, 0, 10);
	ev_rd(&h, 1, "s/d", 1, 20, 30, "a:1");
	ev_rd(&h, 1, "s/d", 2, 40, 50, "a:1,ghost:9");
	ev_rd(&h, 1, "s/d", 1, 60, 70, "a:1");
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", 1,
	      "readdir lists a name that never existed");

	ev_excl(&h, SETUP, "s/d/a", 0, 1, 0, 10);
	ev(&h, 2, DT_OP_LOOKUP, "s/d/a", NULL, 0, 1, 12, 15);
	ev_rd(&h, 1, "s/d", 1, 20, 30, "a:2");
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "fileid of a lookup and of the listing differ");

	/* churn during the listing: either way is fine */
	ev_excl(&h, SETUP, "s/d/a", 0, 1, 0, 10);
	ev_excl(&h, SETUP, "s/d/c", 0, 3, 0, 10);
	ev_excl(&h, 2, "s/d/n", 0, 4, 22, 24);
	ev(&h, 3, DT_OP_UNLINK, "s/d/c", NULL, 0, 0, 22, 24);
	ev_rd(&h, 1, "s/d", 2, 20, 30, "a:1,n:4");
	ev_rd(&h, 1, "s/d", 2, 20, 30, "a:1,c:3");
	ev_rd(&h, 4, "s/d", 3, 20, 30, "a:1,c:3,n:4");
	ev_rd(&h, 5, "s/d", 1, 20, 30, "a:1");
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "entries added and removed during a listing may be in it or not");
}

static void error_cases(void)
{
	struct dt_history h = { 0 };
	struct dt_check_opts accept = { .accept_errors = true };

	ev_excl(&h, SETUP, "s/x", 0, 1, 0, 10);
	ev(&h, 1, DT_OP_LOOKUP, "s/x", NULL, -ESTALE, 0, 20, 30);
	judge(&h, &strict, DT_CHECK_VIOLATION, "unexpected error", 1,
	      "ESTALE to a lookup");
	ev_excl(&h, SETUP, "s/x", 0, 1, 0, 10);
	ev(&h, 1, DT_OP_LOOKUP, "s/x", NULL, -ESTALE, 0, 20, 30);
	judge(&h, &accept, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "ESTALE to a lookup with accept_errors: no information");
	ev_excl(&h, SETUP, "s/x", 0, 1, 0, 10);
	ev(&h, 1, DT_OP_UNLINK, "s/x", NULL, -EIO, 0, 20, 30);
	judge(&h, &strict, DT_CHECK_VIOLATION, "unexpected error", 1,
	      "EIO to an unlink");
}

/* a rename with RENAME_NOREPLACE, as dt_rename_noreplace records it */
static size_t ev_rnr(struct dt_history *h, unsigned thread, const char *from,
		     const char *to, int result, uint64_t start, uint64_t end)
{
	size_t i = ev(h, thread, DT_OP_RENAME, from, to, result, 0, start, end);

	h->ev[i].flags |= DT_EVF_NOREPLACE;
	return i;
}

/*
 * RENAME_NOREPLACE: the move happens only if the target is absent, checked
 * in the same atomic step; EEXIST says the target was there.  Each bad one
 * was passed as consistent when the flag was not modelled (a plain rename
 * may replace).
 */
static void noreplace_cases(void)
{
	struct dt_history h = { 0 };

	/* good: one of two racing no-replace renames onto t wins */
	ev_excl(&h, 1, "s/a", 0, 5, 0, 10);
	ev_excl(&h, 2, "s/b", 0, 6, 0, 10);
	ev_rnr(&h, 1, "s/a", "s/t", 0, 100, 200);
	ev_rnr(&h, 2, "s/b", "s/t", -EEXIST, 100, 200);
	ev(&h, 1, DT_OP_LOOKUP, "s/t", NULL, 0, 5, 300, 310);
	ev(&h, 2, DT_OP_LOOKUP, "s/b", NULL, 0, 6, 300, 310);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "no-replace renames onto one name: one moves, one EEXIST");

	/* bad: both succeeded: the second replaced the first's file */
	ev_excl(&h, 1, "s/a", 0, 5, 0, 10);
	ev_excl(&h, 2, "s/b", 0, 6, 0, 10);
	ev(&h, SETUP, DT_OP_LOOKUP, "s/t", NULL, -ENOENT, 0, 0, 10);
	ev_rnr(&h, 1, "s/a", "s/t", 0, 100, 200);
	ev_rnr(&h, 2, "s/b", "s/t", 0, 100, 200);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "two no-replace renames onto one name both succeed");

	/* bad: it replaced a target that was there throughout */
	ev_excl(&h, 1, "s/a", 0, 5, 0, 10);
	ev_excl(&h, 2, "s/t", 0, 6, 0, 10);
	ev_rnr(&h, 1, "s/a", "s/t", 0, 100, 200);
	ev(&h, 2, DT_OP_LOOKUP, "s/t", NULL, 0, 5, 300, 310);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "a no-replace rename replaces an existing target");

	/* bad: EEXIST although the target was surely absent */
	ev_excl(&h, 1, "s/a", 0, 5, 0, 10);
	ev(&h, 2, DT_OP_LOOKUP, "s/t", NULL, -ENOENT, 0, 20, 30);
	ev_rnr(&h, 1, "s/a", "s/t", -EEXIST, 100, 200);
	ev(&h, 2, DT_OP_LOOKUP, "s/t", NULL, -ENOENT, 0, 300, 310);
	judge(&h, &strict, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "a no-replace rename says EEXIST for an absent target");

	/* EINVAL (the flag not supported, Linux's NFS client): no information */
	ev_excl(&h, 1, "s/a", 0, 5, 0, 10);
	ev_excl(&h, 2, "s/t", 0, 6, 0, 10);
	ev_rnr(&h, 1, "s/a", "s/t", -EINVAL, 100, 200);
	ev(&h, 2, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 300, 310);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "EINVAL to a no-replace rename changes nothing and tells nothing");
}

/*
 * Handle lifetime: a READ or CLOSE on the file its thread opened must not
 * fail, whatever happened to the name (unlinked, renamed over); the
 * counterexample is the OPEN and the failed op.  Each bad one was passed
 * as consistent before READ and CLOSE were judged.
 */
static void handle_cases(void)
{
	struct dt_history h = { 0 };
	struct dt_check_opts accept = { .accept_errors = true };
	struct dt_check_result r;

	/* good: open, name unlinked by another thread, read, close */
	ev_excl(&h, 1, "s/f", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_OPEN, "s/f", NULL, 0, 0, 20, 30);
	ev(&h, 2, DT_OP_UNLINK, "s/f", NULL, 0, 0, 40, 50);
	ev(&h, 1, DT_OP_READ, "", NULL, 100, 0, 60, 70);
	ev(&h, 1, DT_OP_CLOSE, "", NULL, 0, 0, 80, 90);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "read and close of an open file after its unlink succeed");

	/* bad: ESTALE to the read after the unlink (NFSv3 without state) */
	ev_excl(&h, 1, "s/f", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_OPEN, "s/f", NULL, 0, 0, 20, 30);
	ev(&h, 2, DT_OP_UNLINK, "s/f", NULL, 0, 0, 40, 50);
	ev(&h, 1, DT_OP_READ, "", NULL, -ESTALE, 0, 60, 70);
	ev(&h, 1, DT_OP_CLOSE, "", NULL, 0, 0, 80, 90);
	dt_check_history(&h, &strict, &r);
	ok(r.ncex == 2 && r.cex[0] == 1 && r.cex[1] == 3 &&
	   strstr(r.verdict.expected, "#1 ") &&
	   strstr(r.verdict.what, "s/f") && strstr(r.verdict.what, "ESTALE"),
	   "  the verdict names the file, the errno and its OPEN; the "
	   "counterexample is the OPEN and the READ");
	dt_check_result_free(&r);
	judge(&h, &strict, DT_CHECK_VIOLATION, "handle lifetime", 3,
	      "ESTALE to a read of an open file after its unlink");

	/* bad: the close fails after a rename over the name */
	ev_excl(&h, 1, "s/f", 0, 5, 0, 10);
	ev_excl(&h, 2, "s/g", 0, 6, 0, 10);
	ev(&h, 1, DT_OP_OPEN, "s/f", NULL, 0, 0, 20, 30);
	ev(&h, 2, DT_OP_RENAME, "s/g", "s/f", 0, 0, 40, 50);
	ev(&h, 1, DT_OP_READ, "", NULL, 100, 0, 60, 70);
	ev(&h, 1, DT_OP_CLOSE, "", NULL, -EIO, 0, 80, 90);
	judge(&h, &strict, DT_CHECK_VIOLATION, "close of open s/f failed", 5,
	      "EIO to the close of a file renamed over");

	/* the same with accept_errors: no information */
	ev_excl(&h, 1, "s/f", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_OPEN, "s/f", NULL, 0, 0, 20, 30);
	ev(&h, 1, DT_OP_READ, "", NULL, -ESTALE, 0, 60, 70);
	judge(&h, &accept, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "a failed read with accept_errors: no information");

	/* not on an open handle: after the close, after a failed open, of
	   another thread or another host's same thread number */
	ev_excl(&h, 1, "s/f", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_OPEN, "s/f", NULL, 0, 0, 20, 30);
	ev(&h, 1, DT_OP_CLOSE, "", NULL, 0, 0, 40, 50);
	ev(&h, 1, DT_OP_READ, "", NULL, -EBADF, 0, 60, 70);
	ev(&h, 2, DT_OP_OPEN, "s/x", NULL, -ENOENT, 0, 20, 30);
	ev(&h, 2, DT_OP_READ, "", NULL, -EBADF, 0, 40, 50);
	ev(&h, 3, DT_OP_READ, "", NULL, -EBADF, 0, 40, 50);
	h.ev[ev(&h, 1, DT_OP_READ, "", NULL, -EIO, 0, 35, 38)].host = 1;
	dt_check_history(&h, &strict, &r);
	ok(r.ignored == 4, "  reads on no open handle are not judged "
	   "(ignored %zu, want 4)", r.ignored);
	dt_check_result_free(&r);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "failed reads outside an open of their thread are not judged");

	/*
	 * a caching client's OPEN widened back past the thread's previous
	 * CLOSE: the thread's order is by end, so the read is on the new
	 * handle and its failure counts
	 */
	ev_excl(&h, 1, "s/f", 0, 5, 0, 10);
	ev(&h, 1, DT_OP_OPEN, "s/f", NULL, 0, 0, 20, 30);
	ev(&h, 1, DT_OP_CLOSE, "", NULL, 0, 0, 40, 50);
	ev(&h, 1, DT_OP_OPEN, "s/f", NULL, 0, 0, 5, 60);
	ev(&h, 1, DT_OP_READ, "", NULL, -ESTALE, 0, 70, 80);
	judge(&h, &strict, DT_CHECK_VIOLATION, "handle lifetime", 4,
	      "a read after a widened reopen is on the new handle");
}

/*
 * Overlapping ops whose only linearization is not their start order:
 * create(x=5) starts first but must come after the ENOENT lookup;
 * the unlink must come after the lookup that found 5 and before the
 * second create; the rename after that.
 */
static void overlap_case(void)
{
	struct dt_history h = { 0 };
	struct dt_check_result r;

	ev_excl(&h, 1, "s/x", 0, 5, 0, 100);
	ev(&h, 2, DT_OP_LOOKUP, "s/x", NULL, -ENOENT, 0, 1, 2);
	ev(&h, 3, DT_OP_UNLINK, "s/x", NULL, 0, 0, 3, 50);
	ev(&h, 4, DT_OP_LOOKUP, "s/x", NULL, 0, 5, 4, 10);
	ev_excl(&h, 5, "s/x", 0, 6, 5, 80);
	ev(&h, 6, DT_OP_LOOKUP, "s/x", NULL, -ENOENT, 0, 11, 12);
	ev(&h, 7, DT_OP_RENAME, "s/x", "s/y", 0, 0, 6, 120);
	ev(&h, 8, DT_OP_LOOKUP, "s/y", NULL, 0, 6, 121, 130);
	ev(&h, 8, DT_OP_LOOKUP, "s/x", NULL, -ENOENT, 0, 131, 140);
	int rc = dt_check_history(&h, &strict, &r);

	ok(rc == DT_CHECK_CONSISTENT && r.steps > h.n,
	   "overlapping history: found the one order (%" PRIu64 " steps)",
	   r.steps);
	if (rc != DT_CHECK_CONSISTENT)
		diag("  %s: %s / %s / %s", dt_check_status_name(rc),
		     r.verdict.what, r.verdict.expected, r.verdict.observed);
	dt_check_result_free(&r);

	/* the same with a tiny budget: inconclusive, never "consistent" */
	struct dt_check_opts tiny = { .budget = 3 };

	rc = dt_check_history(&h, &tiny, &r);
	ok(rc == DT_CHECK_INCONCLUSIVE && strstr(r.verdict.what, "budget"),
	   "budget exhausted: inconclusive (%s)", r.verdict.what);
	dt_check_result_free(&r);
	dt_history_free(&h);
}

/* s/d with s/d/f (fileid 1) renamed to s/e over [10,20] */
static void dir_moved(struct dt_history *h)
{
	ev(h, SETUP, DT_OP_MKDIR, "s/d", NULL, 0, 0, 0, 1);
	ev_excl(h, SETUP, "s/d/f", 0, 1, 2, 3);
	ev(h, 1, DT_OP_RENAME, "s/d", "s/e", 0, 0, 10, 20);
}

/* directories renamed: the paths below them move with them */
static void dir_rename_case(void)
{
	struct dt_history h = { 0 };
	struct dt_check_result r;

	dir_moved(&h);
	ev(&h, 2, DT_OP_LOOKUP, "s/d/f", NULL, -ENOENT, 0, 30, 40);
	ev(&h, 2, DT_OP_LOOKUP, "s/e/f", NULL, 0, 1, 30, 40);
	ev(&h, 2, DT_OP_LOOKUP, "s/e", NULL, 0, 0, 30, 40);
	ev(&h, 2, DT_OP_LOOKUP, "s/d", NULL, -ENOENT, 0, 30, 40);
	ev(&h, 2, DT_OP_CREATE, "s/d/g", NULL, -ENOENT, 0, 30, 40);
	int rc = dt_check_history(&h, &strict, &r);

	ok(rc == DT_CHECK_CONSISTENT && r.not_judged == 0 &&
	   r.excluded_names == 0 && r.judged == 8,
	   "directory rename: the paths below it judged (%zu judged, %zu not "
	   "judged, %zu paths left out)", r.judged, r.not_judged,
	   r.excluded_names);
	dt_check_result_free(&r);
	dt_history_free(&h);

	dir_moved(&h);
	ev(&h, 2, DT_OP_LOOKUP, "s/d/f", NULL, 0, 1, 30, 40);
	judge(&h, &strict, DT_CHECK_VIOLATION, "lookup of s/d/f", NO_EVENT,
	      "bad: a file found at its old path below a renamed dir");

	dir_moved(&h);
	ev(&h, 2, DT_OP_LOOKUP, "s/e/f", NULL, -ENOENT, 0, 30, 40);
	judge(&h, &strict, DT_CHECK_VIOLATION, "lookup of s/e/f", NO_EVENT,
	      "bad: a file missing at its new path below a renamed dir");

	dir_moved(&h);
	ev(&h, 2, DT_OP_LOOKUP, "s/e/f", NULL, 0, 2, 30, 40);
	judge(&h, &strict, DT_CHECK_VIOLATION, "lookup of s/e/f", NO_EVENT,
	      "bad: another file at the new path below a renamed dir");

	/* the directory itself is still judged */
	dir_moved(&h);
	ev(&h, 2, DT_OP_LOOKUP, "s/d", NULL, 0, 0, 30, 40);
	judge(&h, &strict, DT_CHECK_VIOLATION, NULL, NO_EVENT,
	      "the renamed directory itself is judged");

	/* renamed over a directory that is not empty */
	dir_moved(&h);
	ev(&h, SETUP, DT_OP_MKDIR, "s/x", NULL, 0, 0, 0, 1);
	ev_excl(&h, SETUP, "s/x/g", 0, 7, 2, 3);
	ev(&h, 1, DT_OP_RENAME, "s/x", "s/e", 0, 0, 30, 40);
	judge(&h, &strict, DT_CHECK_VIOLATION, "rename of s/x", NO_EVENT,
	      "bad: a directory renamed over one that is not empty");

	/* and back: the file follows both moves */
	dir_moved(&h);
	ev(&h, 1, DT_OP_RENAME, "s/e", "s/d", 0, 0, 30, 40);
	ev(&h, 2, DT_OP_LOOKUP, "s/d/f", NULL, 0, 1, 50, 60);
	ev(&h, 2, DT_OP_LOOKUP, "s/e/f", NULL, -ENOENT, 0, 50, 60);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "good: renamed there and back, the file follows");

	/* removed directories: the paths below them are still left out */
	ev(&h, SETUP, DT_OP_MKDIR, "s/d", NULL, 0, 0, 0, 1);
	ev_excl(&h, SETUP, "s/d/f", 0, 1, 2, 3);
	ev(&h, 1, DT_OP_UNLINK, "s/d/f", NULL, 0, 0, 10, 20);
	ev(&h, 1, DT_OP_RMDIR, "s/d", NULL, 0, 0, 30, 40);
	ev(&h, 2, DT_OP_LOOKUP, "s/d/f", NULL, -ENOENT, 0, 50, 60);
	rc = dt_check_history(&h, &strict, &r);
	ok(rc == DT_CHECK_CONSISTENT && r.not_judged == 3 &&
	   r.excluded_names == 1,
	   "rmdir: %zu events below it not judged, %zu paths left out",
	   r.not_judged, r.excluded_names);
	dt_check_result_free(&r);
	dt_history_free(&h);
}

/* A into B races B into A (dir_loop): one may win, never both */
static void dir_loop(struct dt_history *h, int res_ab, int res_ba)
{
	ev(h, SETUP, DT_OP_MKDIR, "s/A", NULL, 0, 0, 0, 1);
	ev(h, SETUP, DT_OP_MKDIR, "s/B", NULL, 0, 0, 0, 1);
	ev(h, 0, DT_OP_LOOKUP, "s/A", NULL, 0, 11, 2, 3);
	ev(h, 0, DT_OP_LOOKUP, "s/B", NULL, 0, 12, 2, 3);
	ev(h, 1, DT_OP_RENAME, "s/A", "s/B/a", res_ab, 0, 100, 200);
	ev(h, 2, DT_OP_RENAME, "s/B", "s/A/b", res_ba, 0, 100, 200);
}

static void dir_loop_case(void)
{
	struct dt_history h = { 0 };

	dir_loop(&h, 0, -ENOENT);
	ev(&h, 9, DT_OP_LOOKUP, "s/A", NULL, -ENOENT, 0, 300, 310);
	ev(&h, 9, DT_OP_LOOKUP, "s/B/a", NULL, 0, 11, 300, 310);
	ev(&h, 9, DT_OP_LOOKUP, "s/A/b", NULL, -ENOENT, 0, 300, 310);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "good: A into B won, B into A failed ENOENT");

	dir_loop(&h, -EINVAL, 0);
	ev(&h, 9, DT_OP_LOOKUP, "s/A/b", NULL, 0, 12, 300, 310);
	ev(&h, 9, DT_OP_LOOKUP, "s/B/a", NULL, -ENOENT, 0, 300, 310);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "good: B into A won, A into B failed EINVAL");

	dir_loop(&h, 0, 0);
	judge(&h, &strict, DT_CHECK_VIOLATION, "rename of s/", NO_EVENT,
	      "bad: both renames won (a loop): the second target's parent "
	      "was gone");

	dir_loop(&h, 0, -ENOENT);
	ev(&h, 9, DT_OP_LOOKUP, "s/A/b", NULL, 0, 12, 300, 310);
	judge(&h, &strict, DT_CHECK_VIOLATION, "lookup of s/A/b", NO_EVENT,
	      "bad: B found inside A although A moved into B");

	/* into itself */
	ev(&h, SETUP, DT_OP_MKDIR, "s/d", NULL, 0, 0, 0, 1);
	ev(&h, 1, DT_OP_RENAME, "s/d", "s/d/x", -EINVAL, 0, 10, 20);
	ev(&h, 1, DT_OP_RENAME, "s/d", "s/d", 0, 0, 30, 40);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "good: into itself EINVAL; onto itself a no-op");

	ev(&h, SETUP, DT_OP_MKDIR, "s/d", NULL, 0, 0, 0, 1);
	ev(&h, 1, DT_OP_RENAME, "s/d", "s/d/sub/x", 0, 0, 10, 20);
	judge(&h, &strict, DT_CHECK_VIOLATION, "into itself", 1,
	      "bad: a directory renamed into itself succeeded");

	ev(&h, SETUP, DT_OP_MKDIR, "s/d", NULL, 0, 0, 0, 1);
	ev(&h, SETUP, DT_OP_MKDIR, "s/d/sub", NULL, 0, 0, 2, 3);
	ev(&h, 1, DT_OP_RENAME, "s/d/sub", "s/d", 0, 0, 10, 20);
	judge(&h, &strict, DT_CHECK_VIOLATION, "into itself", 2,
	      "bad: a directory renamed onto its own parent succeeded");

	/* EEXIST / ENOTEMPTY: the target is there (a dir not empty) */
	ev(&h, SETUP, DT_OP_MKDIR, "s/d", NULL, 0, 0, 0, 1);
	ev(&h, SETUP, DT_OP_MKDIR, "s/t", NULL, 0, 0, 0, 1);
	ev_excl(&h, SETUP, "s/t/f", 0, 3, 2, 3);
	ev(&h, 1, DT_OP_RENAME, "s/d", "s/t", -EEXIST, 0, 10, 20);
	ev(&h, 2, DT_OP_RENAME, "s/d", "s/t", -ENOTEMPTY, 0, 10, 20);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "good: rename onto a dir with a file in it: EEXIST, ENOTEMPTY");

	ev(&h, SETUP, DT_OP_MKDIR, "s/d", NULL, 0, 0, 0, 1);
	ev(&h, 2, DT_OP_LOOKUP, "s/t", NULL, -ENOENT, 0, 2, 3);
	ev(&h, 1, DT_OP_RENAME, "s/d", "s/t", -EEXIST, 0, 10, 20);
	ev(&h, 2, DT_OP_LOOKUP, "s/t", NULL, -ENOENT, 0, 30, 40);
	judge(&h, &strict, DT_CHECK_VIOLATION, "rename of s/t", NO_EVENT,
	      "bad: rename EEXIST onto a name that was never there");
}

/* clocks: two hosts 30 ns apart are only ordered with a skew below that */
static void skew_case(void)
{
	struct dt_history h = { 0 };
	struct dt_check_opts skew = { .skew_ns = 100 };
	struct dt_check_result r;
	size_t i;

	ev_excl(&h, SETUP, "s/x", 0, 1, 0, 10);
	ev(&h, 1, DT_OP_UNLINK, "s/x", NULL, 0, 0, 20, 30);
	i = ev(&h, 1, DT_OP_LOOKUP, "s/x", NULL, 0, 1, 60, 70);
	h.ev[i].host = 1;
	ok(dt_check_history(&h, &strict, &r) == DT_CHECK_VIOLATION &&
	   r.multi_host, "two hosts, no skew: the late lookup is wrong");
	dt_check_result_free(&r);
	ok(dt_check_history(&h, &skew, &r) == DT_CHECK_CONSISTENT,
	   "two hosts, skew 100 ns covers it");
	dt_check_result_free(&r);
	dt_history_free(&h);
}

/* ev() on host "host" */
static size_t ev_on(struct dt_history *h, unsigned host, unsigned thread,
		    enum dt_opcode op, const char *name, const char *name2,
		    int result, uint64_t fileid, uint64_t start, uint64_t end)
{
	size_t i = ev(h, thread, op, name, name2, result, fileid, start, end);

	h->ev[i].host = (uint16_t)host;
	return i;
}

/*
 * Read your own changes: the stale bound covers other hosts' changes, not
 * the reader's own host's (one kernel, one dcache).  Host 2 only makes
 * the history a multi-host one where host 1 has no part.
 */
static void own_changes_case(void)
{
	const struct dt_check_opts stale = { .stale_ns = 1000 };
	struct dt_history h = { 0 };

	for (unsigned reader = 0; reader < 2; reader++) {
		/* b absent first, else "a and b were links of one file"
		   (a rename that does nothing) explains a found a */
		ev_excl(&h, SETUP, "s/a", 0, 5, 0, 10);
		ev(&h, SETUP, DT_OP_LOOKUP, "s/b", NULL, -ENOENT, 0, 11, 12);
		ev_on(&h, 0, 1, DT_OP_RENAME, "s/a", "s/b", 0, 0, 100, 200);
		ev_on(&h, reader, 2, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 300, 310);
		ev_on(&h, 2, 3, DT_OP_LOOKUP, "s/b", NULL, 0, 5, 400, 410);
		judge(&h, &stale, reader ? DT_CHECK_CONSISTENT : DT_CHECK_VIOLATION,
		      "not linearizable", NO_EVENT,
		      reader ? "another host finds a renamed name within the stale bound"
			     : "the renaming host finds the old name after its rename");
	}

	ev_excl(&h, SETUP, "s/a", 0, 5, 0, 10);
	ev_on(&h, 0, 1, DT_OP_UNLINK, "s/a", NULL, 0, 0, 100, 200);
	ev_on(&h, 0, 2, DT_OP_OPEN, "s/a", NULL, 0, 5, 300, 310);
	ev_on(&h, 2, 3, DT_OP_LOOKUP, "s/b", NULL, -ENOENT, 0, 400, 410);
	judge(&h, &stale, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "the unlinking host opens the name after its unlink");

	ev_on(&h, 0, 1, DT_OP_CREATE, "s/a", NULL, 0, 5, 100, 200);
	ev_on(&h, 0, 2, DT_OP_LOOKUP, "s/a", NULL, -ENOENT, 0, 300, 310);
	ev_on(&h, 2, 3, DT_OP_LOOKUP, "s/b", NULL, -ENOENT, 0, 400, 410);
	judge(&h, &stale, DT_CHECK_VIOLATION, "not linearizable", NO_EVENT,
	      "the creating host misses its own create");

	/* later changes by others stay visible, stale or not */
	for (int found = 0; found < 2; found++) {
		ev_excl(&h, SETUP, "s/a", 0, 5, 0, 10);
		ev_on(&h, 0, 1, DT_OP_UNLINK, "s/a", NULL, 0, 0, 100, 200);
		ev_on(&h, 2, 3, DT_OP_CREATE, "s/a", NULL, 0, 9, 250, 260);
		ev_on(&h, 0, 2, DT_OP_LOOKUP, "s/a", NULL, found ? 0 : -ENOENT,
		      found ? 9 : 0, 300, 310);
		judge(&h, &stale, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
		      found ? "own unlink, then another host's create is seen"
			    : "own unlink, another host's create not seen yet (stale)");
	}

	/* a lookup that began before its host's unlink returned may find */
	ev_excl(&h, SETUP, "s/a", 0, 5, 0, 10);
	ev_on(&h, 0, 1, DT_OP_UNLINK, "s/a", NULL, 0, 0, 100, 200);
	ev_on(&h, 0, 2, DT_OP_LOOKUP, "s/a", NULL, 0, 5, 150, 250);
	ev_on(&h, 2, 3, DT_OP_LOOKUP, "s/b", NULL, -ENOENT, 0, 400, 410);
	judge(&h, &stale, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "a lookup overlapping its host's unlink may still find");

	/* listings keep the whole stale window (readdir caches) */
	ev_excl(&h, SETUP, "s/d/a", 0, 5, 0, 10);
	ev_on(&h, 0, 1, DT_OP_UNLINK, "s/d/a", NULL, 0, 0, 100, 200);
	h.ev[ev_rd(&h, 2, "s/d", 1, 300, 310, "a:5")].host = 0;
	ev_on(&h, 2, 3, DT_OP_LOOKUP, "s/b", NULL, -ENOENT, 0, 400, 410);
	judge(&h, &stale, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "a listing after its host's unlink may be stale");
}

/*
 * fresh_creates: a directory the history made (its first change a
 * successful MKDIR) was empty then, so a name right below it that nothing
 * in the history makes is absent: finding or listing it is a violation.
 * Without fresh_creates (a history that may miss setup) it is unknown.
 */
static void made_empty_cases(void)
{
	struct dt_history h = { 0 };
	const struct dt_check_opts fresh = { .fresh_creates = true };

	ev(&h, SETUP, DT_OP_MKDIR, "s", NULL, 0, 0, 0, 5);
	ev_excl(&h, SETUP, "s/a", 0, 1, 6, 10);
	ev(&h, 1, DT_OP_LOOKUP, "s/b", NULL, 0, 1, 20, 30);
	judge(&h, &fresh, DT_CHECK_VIOLATION, "not linearizable", 2,
	      "made empty: a name nothing made is found");

	ev(&h, SETUP, DT_OP_MKDIR, "s", NULL, 0, 0, 0, 5);
	ev_excl(&h, SETUP, "s/a", 0, 1, 6, 10);
	ev(&h, 1, DT_OP_LOOKUP, "s/b", NULL, 0, 1, 20, 30);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "the same without fresh_creates: s/b may be a fixture");

	ev(&h, SETUP, DT_OP_MKDIR, "s", NULL, 0, 0, 0, 5);
	ev(&h, SETUP, DT_OP_MKDIR, "s/d", NULL, 0, 0, 6, 8);
	ev_excl(&h, SETUP, "s/d/a", 0, 1, 9, 10);
	ev_rd(&h, 1, "s/d", 2, 20, 30, "a:1,zz:9");
	judge(&h, &fresh, DT_CHECK_VIOLATION, "not linearizable", 3,
	      "made empty: a listing shows a name nothing made");

	/* the NFS client's silly rename of an open, removed file */
	ev(&h, SETUP, DT_OP_MKDIR, "s", NULL, 0, 0, 0, 5);
	ev_excl(&h, SETUP, "s/a", 0, 1, 6, 10);
	ev_rd(&h, 1, "s", 2, 20, 30, "a:1,.nfs000000000000000100000001:7");
	judge(&h, &fresh, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "made empty: a .nfs silly-rename entry is the client's own");

	/* a name made by a create of the history may be found after it */
	ev(&h, SETUP, DT_OP_MKDIR, "s", NULL, 0, 0, 0, 5);
	ev(&h, 2, DT_OP_LOOKUP, "s/a", NULL, -ENOENT, 0, 6, 8);
	ev_excl(&h, 1, "s/a", 0, 1, 10, 20);
	ev(&h, 2, DT_OP_LOOKUP, "s/a", NULL, 0, 1, 15, 30);
	ev(&h, 2, DT_OP_UNLINK, "s/b", NULL, -ENOENT, 0, 15, 30);
	judge(&h, &fresh, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "made empty: names made in it, and absent ones");

	/* the first change is an unlink: something outside made it */
	ev(&h, SETUP, DT_OP_MKDIR, "s", NULL, 0, 0, 0, 5);
	ev(&h, 1, DT_OP_UNLINK, "s/a", NULL, 0, 0, 10, 20);
	judge(&h, &fresh, DT_CHECK_VIOLATION, "not linearizable", 1,
	      "made empty: an unlink of a name nothing made succeeds");

	/* a directory renamed in: its names come with it (unknown) */
	ev(&h, SETUP, DT_OP_MKDIR, "s", NULL, 0, 0, 0, 5);
	ev(&h, 1, DT_OP_RENAME, "t", "s/m", 0, 0, 10, 20);
	ev(&h, 1, DT_OP_LOOKUP, "s/m/old", NULL, 0, 4, 30, 40);
	judge(&h, &fresh, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "made empty: a directory renamed into it brings its names");

	/* a directory made again (the first MKDIR failed): not made empty */
	ev(&h, SETUP, DT_OP_MKDIR, "s", NULL, -EEXIST, 0, 0, 5);
	ev(&h, 1, DT_OP_LOOKUP, "s/f", NULL, 0, 4, 30, 40);
	judge(&h, &fresh, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "made empty: not when the history's MKDIR found it there");
}

/*
 * Errnos that need a reason.  EXDEV: two filesystems, impossible for
 * names of one directory or of directories the history made in one.
 * EINVAL from a plain rename: the target's directory inside the source,
 * by path or by a rename of the history (a client that resolved the
 * directory before it moved).
 */
static void errno_reason_cases(void)
{
	struct dt_history h = { 0 };

	ev_excl(&h, SETUP, "s/a", 0, 1, 0, 10);
	ev(&h, 1, DT_OP_RENAME, "s/a", "s/b", -EXDEV, 0, 20, 30);
	judge(&h, &strict, DT_CHECK_VIOLATION, "EXDEV", 1,
	      "rename EXDEV within one directory");

	ev(&h, SETUP, DT_OP_MKDIR, "s/d", NULL, 0, 0, 0, 5);
	ev_excl(&h, SETUP, "s/a", 0, 1, 0, 10);
	ev(&h, 1, DT_OP_LINK, "s/a", "s/d/l", -EXDEV, 0, 20, 30);
	judge(&h, &strict, DT_CHECK_VIOLATION, "EXDEV", 2,
	      "link EXDEV into a directory made in the same one");

	ev_excl(&h, SETUP, "s/a", 0, 1, 0, 10);
	ev(&h, 1, DT_OP_RENAME, "s/a", "t/m/b", -EXDEV, 0, 20, 30);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "rename EXDEV to a directory of unknown origin: may be a mount");

	ev(&h, SETUP, DT_OP_MKDIR, "s/A", NULL, 0, 0, 0, 5);
	ev(&h, 1, DT_OP_RENAME, "s/A", "s/A/in", -EINVAL, 0, 20, 30);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "rename EINVAL: into itself by path");

	ev(&h, SETUP, DT_OP_MKDIR, "s/A", NULL, 0, 0, 0, 5);
	ev(&h, SETUP, DT_OP_MKDIR, "s/B", NULL, 0, 0, 0, 5);
	ev(&h, 1, DT_OP_RENAME, "s/A", "s/B/a", 0, 0, 20, 30);
	ev(&h, 2, DT_OP_RENAME, "s/B", "s/A/b", -EINVAL, 0, 21, 31);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "rename EINVAL: the target's directory moved into the source");

	ev(&h, SETUP, DT_OP_MKDIR, "s/A", NULL, 0, 0, 0, 5);
	ev(&h, SETUP, DT_OP_MKDIR, "s/B", NULL, 0, 0, 0, 5);
	ev(&h, 1, DT_OP_RENAME, "s/A", "s/B/a", 0, 0, 20, 30);
	ev(&h, 2, DT_OP_RENAME, "s/A", "s/B/c", -EINVAL, 0, 21, 31);
	judge(&h, &strict, DT_CHECK_VIOLATION, "EINVAL", 3,
	      "rename EINVAL where the source was moved away (ENOENT)");

	ev(&h, SETUP, DT_OP_MKDIR, "s/A", NULL, 0, 0, 0, 5);
	ev(&h, 2, DT_OP_RENAME, "s/A", "s/A", -EINVAL, 0, 21, 31);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "rename EINVAL of a name onto itself: not judged as a move");
}

/*
 * File data under an open handle: no op of a history writes, so a READ
 * with the request of the handle's first READ ("offset+length", as
 * dt_pread records it) returns as many bytes.
 */
static void read_bytes_cases(void)
{
	struct dt_history h = { 0 };

	ev_excl(&h, SETUP, "s/f", 0, 1, 0, 10);
	ev(&h, 1, DT_OP_OPEN, "s/f", NULL, 0, 1, 20, 30);
	ev(&h, 1, DT_OP_READ, "", "0+101", 100, 0, 40, 50);
	ev(&h, 2, DT_OP_UNLINK, "s/f", NULL, 0, 0, 60, 70);
	ev(&h, 1, DT_OP_READ, "", "0+101", 0, 0, 80, 90);
	judge(&h, &strict, DT_CHECK_VIOLATION, "file data", 4,
	      "read bytes: the same read of an open file returns 0 after an unlink");

	ev_excl(&h, SETUP, "s/f", 0, 1, 0, 10);
	ev(&h, 1, DT_OP_OPEN, "s/f", NULL, 0, 1, 20, 30);
	ev(&h, 1, DT_OP_READ, "", "0+101", 100, 0, 40, 50);
	ev(&h, 1, DT_OP_READ, "", "50+101", 50, 0, 60, 70);
	ev(&h, 1, DT_OP_READ, "", "0+101", 100, 0, 80, 90);
	ev(&h, 1, DT_OP_CLOSE, "", NULL, 0, 0, 91, 92);
	ev(&h, 1, DT_OP_OPEN, "s/f", NULL, 0, 1, 93, 94);
	ev(&h, 1, DT_OP_READ, "", "0+101", 7, 0, 95, 96);
	judge(&h, &strict, DT_CHECK_CONSISTENT, NULL, NO_EVENT,
	      "read bytes: other requests, and another open, are not compared");
}

int main(void)
{
	rename_cases();
	create_cases();
	unlink_cases();
	open_creat_cases();
	link_cases();
	readdir_cases();
	error_cases();
	handle_cases();
	noreplace_cases();
	overlap_case();
	dir_rename_case();
	dir_loop_case();
	skew_case();
	own_changes_case();
	made_empty_cases();
	errno_reason_cases();
	read_bytes_cases();
	return done();
}
