/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The settle check: after a multi-host case's load has ended on every
 * host and the mount's staleness bound has passed, every host looks up
 * the names the case touched and lists their directories; all those
 * views must agree.
 *
 * Why agreement is the truth test: once nobody changes the namespace and
 * the bound has passed, a correct client may no longer show any older
 * state: every lookup and every listing, on every host, shows the
 * server's directory as it is.  No host can read the server without its
 * own client cache in between (the POSIX backend goes through the
 * kernel), so the judge does not pick one view as the truth: two views
 * that differ prove that at least one is stale, and the verdict names
 * both.  Two kinds of pair are compared: the same name on two hosts (the
 * leader, host 0, is named "expected" for a stable report, not because it
 * is right), and one host's lookup of a name against the same host's
 * listing of its directory (a listing is read from the server when the
 * directory changed, while a dentry is trusted on its verifier: a client
 * that stamped a dentry with the wrong directory version keeps it, and
 * its listing shows the truth).  The gap: a stale answer that every host
 * shares in every view passes.
 *
 * Everything here is pure (plan from a history, encode, decode, judge):
 * core/settle.c does the reads, the waiting and the exchange, and
 * t/check/settle.c feeds the judge bad views.
 */
#ifndef DT_CHECK_SETTLE_H
#define DT_CHECK_SETTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "check/history.h"
#include "check/oracle.h"

/* a round's reads stay small next to the case's timeout (UML: ~1 ms each) */
#define DT_SETTLE_MAX_NAMES 384
#define DT_SETTLE_MAX_DIRS 16

/* what to read: the same on every host (made from the merged history) */
struct dt_settle_plan {
	size_t nnames, ndirs;
	char *name[DT_SETTLE_MAX_NAMES];	/* sorted; malloc'ed */
	size_t dir_of[DT_SETTLE_MAX_NAMES];	/* index into dir[], or SIZE_MAX */
	char *dir[DT_SETTLE_MAX_DIRS];		/* malloc'ed */
	size_t touched;		/* distinct names in the history */
	size_t changed;		/* of them, names some op may have changed */
	/* dt_settle_same_tick: the name's two marks (indexes; SIZE_MAX none) */
	size_t tick_mark[DT_SETTLE_MAX_NAMES][2];
};

/*
 * The names under scratch that h's events name (both names of a rename
 * or link) and their directories (scratch itself among them).  Names an
 * op may have changed come first (a stale answer needs a change), then
 * names only looked at, each group sorted, up to DT_SETTLE_MAX_NAMES.
 * Returns 0 or -ENOMEM.
 */
int dt_settle_plan(const struct dt_history *h, const char *scratch,
		   struct dt_settle_plan *p);
void dt_settle_plan_free(struct dt_settle_plan *p);

/*
 * One server clock tick, two changes: a client that tells a directory's
 * versions apart by its timestamps (NFSv3's wcc data and attributes;
 * NFSv4 over a server filesystem without a change counter) takes two
 * changes of the directory within one tick of the server's clock for one.
 * When a test makes two hosts change one directory at once, the file one
 * change made or moved being mark1 and the other's mark2, the host whose
 * change came first at the server cannot know, from the second change's
 * reply or a later look at the directory, that another change followed
 * within the tick: a correct client keeps its old answers for the names
 * the other change touched, for good.  So a disagreement on name is
 * excused when some host found mark1 and some host found mark2 with one
 * and the same ctime on the server (the two changes fell in one tick).
 * All three must be names of the plan; returns 0, or -ENOENT when one is
 * not (nothing is excused then).
 */
int dt_settle_same_tick(struct dt_settle_plan *p, const char *name,
			const char *mark1, const char *mark2);

/* one host's answer for one name */
struct dt_settle_look {
	int rc;			/* lookup: 0 or -errno */
	uint64_t fileid;	/* when found; 0 = the backend cannot say */
	int listed;		/* in its directory's listing: 1, 0; -1 not read */
	uint64_t ctime_ns;	/* when found; 0 = the backend cannot say */
};

/* one host's listing of one directory (".nfs*" silly-renames left out) */
struct dt_settle_list {
	int rc;			/* readdir: 0 or -errno */
	uint32_t count;
	uint64_t digest;	/* of the sorted names */
};

struct dt_settle_view {
	bool listed;		/* this round listed the directories */
	struct dt_settle_look look[DT_SETTLE_MAX_NAMES];
	struct dt_settle_list list[DT_SETTLE_MAX_DIRS];
};

/* FNV-1a of NUL-terminated names, the NUL included (so "ab","c" and
 * "a","bc" differ), continued from h: the digests the hosts compare */
#define DT_SETTLE_FNV_SEED 1469598103934665603ull
uint64_t dt_settle_fnv(uint64_t h, const char *name);

/*
 * A listing into its count and digest, and each planned name of that
 * directory (dir index d) marked listed or not in v.
 */
void dt_settle_take_list(const struct dt_settle_plan *p, size_t d, int rc,
			 const struct dt_dirlist *l, struct dt_settle_view *v);

/* text form for the coordinator: returns the length, or -ENOSPC */
int dt_settle_encode(const struct dt_settle_plan *p,
		     const struct dt_settle_view *v, char *buf, size_t len);
/* -EBADMSG when buf is not a view of p's shape */
int dt_settle_decode(const struct dt_settle_plan *p, const char *buf,
		     size_t len, struct dt_settle_view *v);

/*
 * Judge the views of nhosts hosts (views[h] is host h's): every name's
 * answer equal on all hosts (result, and fileid where both found it),
 * every listing equal (result, count, digest), and where a round listed,
 * each host's lookups equal to its own listing (found <=> listed).
 * Names dt_settle_same_tick excuses are left out of the first and the
 * last comparison; *excused (when not NULL) counts them.
 * Returns the number of disagreements (v->violations), v naming the
 * first; 0 when all agree.
 */
int dt_settle_judge(const struct dt_settle_plan *p,
		    const struct dt_settle_view *views, int nhosts,
		    struct dt_verdict *v, size_t *excused);

#endif /* DT_CHECK_SETTLE_H */
