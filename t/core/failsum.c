/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Failures summarized by kind (lib/core/failsum.c): an oracle that counts
 * several kinds of violation, and plain dt_fail() calls well past the
 * "failures:" list's first ten, all land in failure_summary with their
 * counts and first and last examples; the first failure stays in full.
 * A second oracle in the same case counts only its own violations, and
 * the history checker tells every bad component by the op it could not
 * place, not only the first.
 */
#include "check/histcheck.h"
#include "check/oracle_ev.h"
#include "core/internal.h"

static const char *after(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? p + strlen(key) : NULL;
}

/* the count printed under the kind line "kind: "<kind>"" */
static long count_of(const char *yaml, const char *kind)
{
	char want[256];
	const char *p;

	snprintf(want, sizeof(want), "- kind: \"%s\"\n      count: ", kind);
	p = after(yaml, want);
	return p ? strtol(p, NULL, 10) : -1;
}

int main(void)
{
	struct dt_history h = { 0 };
	struct dt_run r = { 0 };
	struct dt_verdict v;

	dt_shared = calloc(1, sizeof(*dt_shared));
	if (!dt_shared)
		bail_out("out of memory");
	dt_failsum_watch_oracles();

	/* s/x: created [0,10], unlinked [100,110]; three kinds of wrong reads */
	ev(&h, 0, DT_OP_CREATE, "s/x", NULL, 0, 5, 0, 10);
	ev(&h, 0, DT_OP_UNLINK, "s/x", NULL, 0, 0, 100, 110);
	for (int i = 0; i < 5; i++)	/* found after removal, 5 times */
		ev(&h, 1, DT_OP_LOOKUP, "s/x", NULL, 0, 5, 200 + 10 * i,
		   205 + 10 * i);
	for (int i = 0; i < 3; i++)	/* lost while present, 3 times */
		ev(&h, 2, DT_OP_LOOKUP, "s/x", NULL, -ENOENT, 0, 20 + i,
		   30 + i);
	ev(&h, 3, DT_OP_OPEN, "s/x", NULL, -ESTALE, 0, 40, 50);
	ok(dt_oracle_name_lifetime(&h, &v) == 9, "the oracle counts 9");
	dt_fail_verdict(&r, "name lifetime", &v);

	/* a second oracle of the same case, 2 violations of one kind: its
	   kinds start from 0, whatever the first one's left */
	struct dt_history h2 = { 0 };

	ev(&h2, 0, DT_OP_CREATE, "s/y", NULL, 0, 7, 0, 10);
	ev(&h2, 0, DT_OP_UNLINK, "s/y", NULL, 0, 0, 100, 110);
	ev(&h2, 1, DT_OP_LOOKUP, "s/y", NULL, 0, 7, 200, 205);
	ev(&h2, 1, DT_OP_LOOKUP, "s/y", NULL, 0, 7, 210, 215);
	ok(dt_oracle_name_lifetime(&h2, &v) == 2, "the second oracle counts 2");
	dt_fail_verdict(&r, "second oracle", &v);

	/* the checker: two names, each found after its removal (one by a
	   lookup, one by an open): two bad components, two kinds */
	struct dt_history h3 = { 0 };
	struct dt_check_result res;

	ev(&h3, 0, DT_OP_CREATE, "s/a", NULL, 0, 8, 0, 10);
	ev(&h3, 0, DT_OP_UNLINK, "s/a", NULL, 0, 0, 100, 110);
	ev(&h3, 1, DT_OP_LOOKUP, "s/a", NULL, 0, 8, 200, 205);
	ev(&h3, 0, DT_OP_CREATE, "s/b", NULL, 0, 9, 300, 310);
	ev(&h3, 0, DT_OP_UNLINK, "s/b", NULL, 0, 0, 400, 410);
	ev(&h3, 1, DT_OP_OPEN, "s/b", NULL, 0, 0, 500, 505);
	ok(dt_check_history(&h3, NULL, &res) == DT_CHECK_VIOLATION &&
	   res.verdict.violations == 2, "the checker: 2 bad components");
	dt_fail_verdict(&r, "history checker", &res.verdict);
	dt_check_result_free(&res);

	/* a worker's own checks, 25 times: past the ten kept in full */
	for (int i = 0; i < 25; i++)
		dt_fail(&r, "create", "0", i % 5 ? "EIO" : "ESTALE",
			"create s/f.%d for the round", i);
	dt_failsum_render();
	note("failures list:\n%.*s", (int)dt_shared->fail_len, dt_shared->fail);
	note("summary:\n%.*s", (int)dt_shared->diag_len, dt_shared->diag);

	const char *y = dt_shared->diag;
	ok(count_of(y, "name lifetime: lookup found") == 5,
	   "found after removal: 5 of one kind");
	ok(count_of(y, "name lifetime: lookup ENOENT") == 3,
	   "lost while present: 3 of another");
	ok(count_of(y, "name lifetime: open ESTALE") == 1,
	   "ESTALE on open: 1 of a third");
	ok(count_of(y, "second oracle: lookup found") == 2,
	   "a second oracle's kind counts its own 2 (%ld)",
	   count_of(y, "second oracle: lookup found"));
	ok(count_of(y, "history checker: lookup found") == 1 &&
	   count_of(y, "history checker: open found") == 1 &&
	   strstr(y, "first: \"#5 h0 t1 open(s/b) = 0 fileid 0\""),
	   "the checker's bad components by kind: 1 lookup, 1 open");
	ok(count_of(y, "create: EIO") == 20 && count_of(y, "create: ESTALE") == 5,
	   "dt_fail by op and observed answer: 20 EIO, 5 ESTALE");
	ok(strstr(y, "first: \"create s/f.0 for the round\"") &&
	   strstr(y, "last: \"create s/f.20 for the round\"") &&
	   strstr(y, "first: \"create s/f.1 for the round\"") &&
	   strstr(y, "last: \"create s/f.24 for the round\"") &&
	   strstr(y, "first: \"#2 h0 t1 lookup(s/x) = 0 fileid 5\"") &&
	   strstr(y, "last: \"#6 h0 t1 lookup(s/x) = 0 fileid 5\""),
	   "first and last example of each kind");
	ok(strstr(dt_shared->fail, "failures:\n    - at:") &&
	   strstr(dt_shared->fail, "found after removal") &&
	   strstr(dt_shared->fail, "more_failures: true"),
	   "the first failure in full, then the list is capped");
	ok(dt_shared->failures == 28, "every failure counted (%d)",
	   dt_shared->failures);

	/* bounded: many kinds collapse into "other kinds" */
	for (int i = 0; i < 40; i++) {
		char op[16];

		snprintf(op, sizeof(op), "op%c", 'a' + i % 26);
		dt_fail(&r, i < 26 ? op : "more", "x", "y", "kind %d", i);
	}
	dt_shared->diag_len = 0;
	dt_failsum_render();
	ok(after(dt_shared->diag, "failure_summary_other_kinds: ") &&
	   dt_shared->diag_len < 16 * 1024,
	   "at most 16 kinds, the rest counted as other kinds (%zu bytes)",
	   dt_shared->diag_len);
	dt_history_free(&h);
	dt_history_free(&h2);
	dt_history_free(&h3);
	free(dt_shared);
	return done();
}
