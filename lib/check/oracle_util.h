/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every oracle (lib/oracle*.c) needs to write a verdict: counting
 * violations while keeping the earliest, describing an event the way
 * dt_history_dump numbers it, and a sorted set of paths (renamed
 * directories, whose children change without events of their own).
 * Internal to the library; tests see only dentrace.h.
 */
#ifndef DENTRACE_ORACLE_UTIL_H
#define DENTRACE_ORACLE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/oracle.h"

/* v->event when a violation is about the history as a whole */
#define DT_NO_EVENT SIZE_MAX
/* room for dt_judge_evdesc() of any event: two full names, every number */
#define DT_EVLEN 400

/* one oracle call: the history, its verdict, the dump's time origin */
struct dt_judge {
	const struct dt_history *h;
	struct dt_verdict *v;
	uint64_t t0;		/* times in messages are relative to this */
};

/* clear *v and take the earliest start as t0, as dt_history_dump does */
void dt_judge_init(struct dt_judge *j, const struct dt_history *h,
		   struct dt_verdict *v);

/*
 * Count one violation.  Returns true when the caller should describe it:
 * the verdict keeps the earliest bad event, which in a sorted history is
 * the earliest in time and the one a person should read first (a
 * whole-history complaint only until a real event turns up).
 */
bool dt_judge_flag(struct dt_judge *j, size_t ev);

/*
 * Tell the violation hook about one more violation at event ev without
 * counting it in the verdict: for a judge that counts its violations
 * itself (the history checker: one per component whose search failed).
 */
void dt_judge_tell(const struct dt_judge *j, size_t ev);

/*
 * Out of memory: count a violation and return -ENOMEM, so that a caller
 * looking only at v->violations cannot mistake "could not judge" for
 * "consistent".
 */
int dt_judge_oom(struct dt_judge *j);

/* "#12 h0 t3 LOOKUP(d/x) = ENOENT fileid 0 @[+100,+180]ns" */
const char *dt_judge_evdesc(const struct dt_judge *j, size_t i, char *buf,
			    size_t len);

/* vsnprintf into one of struct dt_verdict's 256-byte strings */
void dt_say(char dst[256], const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline uint64_t dt_ev_end(const struct dt_event *e)
{
	/* a recorder bug must not make an interval run backwards */
	return e->end_ns < e->start_ns ? e->start_ns : e->end_ns;
}

/* qsort that accepts the NULL base of an empty array */
void dt_sort_n(void *base, size_t n, size_t size,
	       int (*cmp)(const void *, const void *));

/* a set of paths: push them all, sort once, then ask */
struct dt_pathset {
	const char **p;
	size_t n, cap;
};

int dt_pathset_push(struct dt_pathset *s, const char *path); /* 0/-ENOMEM */
void dt_pathset_sort(struct dt_pathset *s);
/* is path in the (sorted) set? */
bool dt_pathset_has(const struct dt_pathset *s, const char *path);
/* is a proper ancestor of path ("d" for "d/x") in the (sorted) set? */
bool dt_pathset_covers(const struct dt_pathset *s, const char *path);
void dt_pathset_free(struct dt_pathset *s);

#endif
