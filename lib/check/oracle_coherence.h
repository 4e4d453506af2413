/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Oracles for what one client sees of another client's changes: names
 * nobody made, and staleness bounded by what the client may cache.
 *
 * Same contract as the oracles in dentrace.h: pure functions over a
 * history, the number of violations returned and the first one described
 * in *v (v may be NULL), -ENOMEM with one violation when they could not
 * judge.
 */
#ifndef DENTRACE_ORACLE_COHERENCE_H
#define DENTRACE_ORACLE_COHERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "check/oracle.h"

/*
 * Names nothing made: every LOOKUP/OPEN of a name that no event of the
 * history creates, links, renames to or from, removes or finds existing
 * (EEXIST), and that lies below no directory the history renames, returns
 * ENOENT.  ENOTDIR is accepted too when an ancestor of the name is a name
 * the history made (it may be a file).  dt_oracle_name_lifetime leaves
 * such names alone; tests that record their setup (dt_setup_worker) use
 * this one for their absent names.
 */
int dt_oracle_never_created(const struct dt_history *h,
			    struct dt_verdict *v);

/* What dt_oracle_staleness measured (times in ns). */
struct dt_stale_stats {
	size_t reads;		/* LOOKUPs/OPENs judged */
	size_t stale_reads;	/* began after their state was replaced */
	uint64_t stale_max_ns;	/* ... the latest: how long after */
	/*
	 * Windows, one per (change, observer): an observer is a (host,
	 * thread) other than the one that made the change, that looked the
	 * changed name up after the change began.
	 */
	size_t windows;
	size_t unconverged;	/* the observer never saw the new state */
	/* change end -> start of the observer's first fresh read (0 when it
	 * began before the change returned); converged windows only */
	uint64_t win_p50_ns, win_max_ns;
	/* change end -> end of the observer's last read of the old state:
	 * the window is at least this long; every window */
	uint64_t low_p50_ns, low_max_ns;
};

/*
 * Bounded staleness.  The strict model (dt_oracle_name_lifetime) lets a
 * read over [s, e] see the state a mutation M left iff M began by e and no
 * other mutation began after M ended and ended before s.  A client that
 * caches may answer from a state up to bound_ns old: the read is judged as
 * if it began at s - bound_ns.  So a read that saw the old state is flagged
 * iff it began more than bound_ns after the change that replaced that
 * state had returned; a read overlapping the change, or seeing a state
 * that never existed before it ended (found before creation, a fileid the
 * name never had), or returning anything but 0 or ENOENT, is judged as in
 * the strict model.  bound_ns = 0 is the strict model itself.
 *
 * Names the history never mutates, and names below a renamed directory,
 * are not judged (see dt_oracle_never_created).  A rename carries the
 * source's fileid to the target when the source's last create is known.
 *
 * Windows are measured for the successful events of change_op (CREATE,
 * UNLINK, RENAME, ...; DT_OP__COUNT for every mutation) and summarised in
 * *st (may be NULL).  Cost: O(n log n) to judge; the windows add, per
 * name, its changes times its observers.
 */
int dt_oracle_staleness(const struct dt_history *h, uint64_t bound_ns,
			int change_op, struct dt_verdict *v,
			struct dt_stale_stats *st);

#endif /* DENTRACE_ORACLE_COHERENCE_H */
