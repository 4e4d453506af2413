/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Symbols shared between the harness's own files; tests do not use these. */
#ifndef DENTRACE_INTERNAL_H
#define DENTRACE_INTERNAL_H

#include <stdio.h>

#include "dentrace.h"

/*
 * What a case child leaves for its parent.  It lives in a MAP_SHARED
 * mapping created before fork(), so it survives the child being killed.
 */
#define DT_DIAG_MAX (64 * 1024)
#define DT_FAIL_MAX (16 * 1024)

struct dt_shared {
	int outcome;			/* enum dt_outcome */
	int failures;
	char reason[512];		/* skip/broken reason for the TAP line */
	size_t diag_len;
	char diag[DT_DIAG_MAX];		/* YAML lines, already indented */
	/*
	 * The "failures:" list apart from the other keys: a failure found
	 * after a diag line (the history checker runs after the test's own
	 * oracles) must still land in the one list, or the YAML breaks.
	 */
	size_t fail_len;
	char fail[DT_FAIL_MAX];
	/* set while the case waits at a multi-host barrier (multihost.c) */
	char waiting_at[256];
	uint64_t waiting_since_ns;	/* dt_now_ns() when it began */
	int coord_synced;		/* coord_sync holds the child's state */
	unsigned char coord_sync[256];
};

extern struct dt_shared *dt_shared;	/* valid inside a case child */

/* Append text to the case's YAML block (thread-safe, truncates). */
void dt_diag_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Append a multi-line string as a YAML literal block under key. */
void dt_diag_block(const char *key, const char *text);

/* Collect kernel stacks and wchan of every task of pid into buf. */
void dt_collect_stacks(pid_t pid, pid_t only_tid, char *buf, size_t len);

/* Finish a case child now with the given outcome (flushes nothing else). */
__attribute__((noreturn)) void dt_case_exit(int outcome);

/* Remove path and everything below it on c; 0 or -errno. */
int dt_remove_tree(const struct dt_backend_ops *ops, struct dt_conn *c,
		   const char *path);

/*
 * One event as dt_history_dump writes it (lib/history.c), for whoever
 * prints events in that form (the history checker's counterexamples,
 * which dtcheck reads back): a name escaped to one token, and the line
 * up to its end time (no listing, no newline).
 */
void dt_history_put_name(FILE *f, const char *s);
void dt_history_put_head(FILE *f, const struct dt_history *h, size_t i,
			 uint64_t t0);

/* Marker that makes a directory a dentrace target / a scratch dir. */
#define DT_TARGET_MARKER ".dentrace-target"
#define DT_SCRATCH_PREFIX "dentrace."

/* multi-host runs (multihost.c); all end the case BROKEN on failure */
struct dt_coord;
extern struct dt_coord *dt_coord_handle;	/* NULL when alone */
bool dt_mh_active(void);
void dt_mh_barrier(struct dt_run *r, const char *step);
bool dt_mh_agree(struct dt_run *r, bool go);
void dt_mh_share_scratch(struct dt_run *r);
void dt_mh_exchange(struct dt_run *r, struct dt_history *h);
void dt_mh_report_skew(struct dt_run *r);

/* set by the harness for the watchdog */
extern double dt_op_timeout;		/* seconds an op may take */

#endif
