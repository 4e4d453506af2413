/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hand-made histories for the oracle self-tests: one call per event, times
 * in plain nanoseconds so a test reads like a timeline.
 */
#ifndef DT_ORACLE_EV_H
#define DT_ORACLE_EV_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dentrace.h"
#include "tap.h"

#define NO_EVENT SIZE_MAX

/*
 * The history the last ev()/ev_rd() appended to: verdict_is() exports it
 * when DT_BAD_HISTORY_DIR is set, so that checker_vs_oracles can judge
 * every bad history (and every good one) with the general checker.
 */
static struct dt_history *ev_last;

/*
 * How far the test widened ev_last's reads for its oracle
 * (dt_history_widen_reads, as dt_run_workers does for a caching or
 * multi-host run).  The exported history has them un-widened: the general
 * checker gets the recorded times, as lib/core/case.c gives it.
 */
static uint64_t ev_widen_ns;

/*
 * Write ev_last as "<dir>/<n>" (a bad history) or "<dir>/g<n>" (a good
 * one: checker_vs_oracles checks the checker does not flag those): the
 * test name, '\n', histio form
 */
static inline void export_history(const char *name, bool good)
{
	static unsigned n;
	const char *dir = getenv("DT_BAD_HISTORY_DIR");
	char path[4096];
	void *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!dir || !ev_last)
		return;
	snprintf(path, sizeof(path), "%s/%s%03u", dir, good ? "g" : "", n++);
	dt_history_widen_reads(ev_last, -(int64_t)ev_widen_ns);
	if (dt_history_encode(ev_last, &buf, &len) < 0 ||
	    !(f = fopen(path, "w")))
		bail_out("export bad history to %s", path);
	dt_history_widen_reads(ev_last, (int64_t)ev_widen_ns);
	fprintf(f, "%s\n", name);
	fwrite(buf, 1, len, f);
	if (fclose(f))
		bail_out("write %s", path);
	free(buf);
}

/* Append one event; returns its index.  name2 may be NULL. */
static inline size_t ev(struct dt_history *h, unsigned thread,
			enum dt_opcode op, const char *name, const char *name2,
			int result, uint64_t fileid, uint64_t start,
			uint64_t end)
{
	struct dt_event e;

	memset(&e, 0, sizeof(e));
	e.thread = (uint16_t)thread;
	e.op = (uint8_t)op;
	e.result = result;
	e.fileid = fileid;
	e.start_ns = start;
	e.end_ns = end;
	snprintf(e.name, sizeof(e.name), "%s", name);
	if (name2)
		snprintf(e.name2, sizeof(e.name2), "%s", name2);
	if (dt_history_add(h, &e))
		bail_out("dt_history_add: out of memory");
	ev_last = h;
	return h->n - 1;
}

/* A READDIR of dir whose listing is spec: "a:12,b:13" (NULL = no list) */
static inline size_t ev_rd(struct dt_history *h, unsigned thread,
			   const char *dir, int result, uint64_t start,
			   uint64_t end, const char *spec)
{
	struct dt_dirlist *l = NULL;
	struct dt_event e;

	if (spec) {
		char *copy = strdup(spec), *tok, *save = NULL;

		l = calloc(1, sizeof(*l));
		if (!copy || !l)
			bail_out("out of memory");
		for (tok = strtok_r(copy, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			char *colon = strrchr(tok, ':');
			uint64_t fid = 0;

			if (colon) {
				*colon = '\0';
				fid = strtoull(colon + 1, NULL, 10);
			}
			if (dt_dirlist_add(l, tok, fid))
				bail_out("out of memory");
		}
		free(copy);
	}
	memset(&e, 0, sizeof(e));
	e.thread = (uint16_t)thread;
	e.op = DT_OP_READDIR;
	e.result = result;
	e.start_ns = start;
	e.end_ns = end;
	snprintf(e.name, sizeof(e.name), "%s", dir);
	e.list = l;
	if (dt_history_add(h, &e))
		bail_out("dt_history_add: out of memory");
	ev_last = h;
	return h->n - 1;
}

/* Show what the oracle said, for people reading prove -v */
static inline void show(const struct dt_verdict *v)
{
	if (!v->violations)
		return;
	if (v->event == NO_EVENT)
		note("  %d violation(s), no event", v->violations);
	else
		note("  %d violation(s), first at event %zu", v->violations,
		     v->event);
	note("  what:     %s", v->what);
	note("  expected: %s", v->expected);
	note("  observed: %s", v->observed);
}

/*
 * The oracle returned rc with verdict v: it must have found exactly want
 * violations, the first at event want_ev, described with what_has in
 * v->what (when want > 0).
 */
static inline bool verdict_is(int rc, const struct dt_verdict *v, int want,
			      size_t want_ev, const char *what_has,
			      const char *name)
{
	bool pass = rc == want && v->violations == want;

	export_history(name, !want);
	if (want)
		pass = pass && v->event == want_ev &&
		       (!what_has || strstr(v->what, what_has));
	ok(pass, "%s", name);
	if (!pass) {
		diag("  rc %d, violations %d (want %d), event %zu (want %zu)",
		     rc, v->violations, want, v->event, want_ev);
		diag("  what: %s\n  expected: %s\n  observed: %s", v->what,
		     v->expected, v->observed);
		if (want && what_has)
			diag("  (what should contain '%s')", what_has);
	} else {
		show(v);
	}
	return pass;
}

#endif /* DT_ORACLE_EV_H */
