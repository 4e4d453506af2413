/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by the perf tests (suite/perf/): paths built before the
 * timed loop (a snprintf per op would cost as much as a tmpfs stat), and
 * untimed setup through the case's own connection.
 */
#ifndef DT_PERF_COMMON_H
#define DT_PERF_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dentrace.h"

/* An integer knob from the environment, def when unset or bad. */
static inline long perf_env_long(const char *name, long def, long lo, long hi)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	v = strtol(s, &end, 10);
	if (end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "dentrace: %s='%s' ignored (want %ld..%ld)\n",
			name, s, lo, hi);
		return def;
	}
	return v;
}

struct perf_paths {
	int n;
	char (*p)[DT_EV_NAME];
};

/* n paths "<scratch>/<fmt with a, k>" for k = 0 .. n-1; 0 or -errno */
static inline int perf_paths_make(struct dt_run *r, struct perf_paths *pp,
				  int n, const char *fmt, long a)
{
	pp->n = n;
	pp->p = calloc((size_t)n, sizeof(*pp->p));
	if (!pp->p)
		return -ENOMEM;
	for (int k = 0; k < n; k++) {
		char name[DT_EV_NAME];

		snprintf(name, sizeof(name), fmt, a, k);
		if ((size_t)snprintf(pp->p[k], sizeof(pp->p[k]), "%s/%s",
				     r->scratch, name) >= sizeof(pp->p[k])) {
			free(pp->p);
			pp->p = NULL;
			return -ENAMETOOLONG;
		}
	}
	return 0;
}

static inline void perf_paths_free(struct perf_paths *pp)
{
	free(pp->p);
	pp->p = NULL;
	pp->n = 0;
}

#define PERF_OPS(r) ((r)->target->ops)

/* Create every path of pp through the case's connection (untimed). */
static inline void perf_create_all(struct dt_run *r, const struct perf_paths *pp)
{
	for (int k = 0; k < pp->n; k++)
		dt_must(r, PERF_OPS(r)->create(r->conn, pp->p[k], true, NULL),
			"create %s", pp->p[k]);
}

/* Unlink every path of pp, ENOENT is fine (untimed). */
static inline void perf_unlink_all(struct dt_run *r, const struct perf_paths *pp)
{
	for (int k = 0; k < pp->n; k++) {
		int rc = PERF_OPS(r)->unlink(r->conn, pp->p[k]);

		if (rc != -ENOENT)
			dt_must(r, rc, "unlink %s", pp->p[k]);
	}
}

/* Spread workers over a name set: worker g starts at a different name. */
static inline int perf_pick(const struct dt_worker *w, uint64_t i, int n)
{
	return (int)(((uint64_t)w->gid * 7919u + i) % (uint64_t)n);
}

#endif /* DT_PERF_COMMON_H */
