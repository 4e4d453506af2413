/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Oracles for contended renames and for files read across an unlink.
 *
 * Same contract as the oracles in dentrace.h: pure functions over a
 * recorded history (in any order), returning the number of violations and
 * describing the first in *v (v may be NULL).  An oracle that finds
 * nothing to judge (wrong name passed, the test did not look) says so as a
 * violation: a check that judged nothing must not read as a pass.  Out of
 * memory: -ENOMEM, with one violation recorded.
 *
 * "After the race" means: a LOOKUP that started after every rename of the
 * race had returned, and returned before any later successful mutation of
 * the names involved.  Across hosts that relies on the coordinator's clock
 * correction being better than the round barrier's round trip.
 */
#ifndef DT_ORACLE_RACE_H
#define DT_ORACLE_RACE_H

#include <stddef.h>

#include "check/oracle.h"

/*
 * K renames of one file src to distinct names.  Exactly one succeeds and
 * the others fail with ENOENT (their source is gone).  After the race src
 * is absent, the winner's target is present (with src's fileid, when the
 * history knows it from a CREATE or LOOKUP of src before the race) and
 * every loser's target is absent; a lookup there answers 0 or ENOENT only.
 */
int dt_oracle_rename_one_source(const struct dt_history *h, const char *src,
				struct dt_verdict *v);

/*
 * Two directories a and b, side by side; renames of a to a name inside b
 * race renames of b to a name inside a.  Whatever the interleaving, the
 * first rename to take effect finds both in place and succeeds; after it
 * every other rename must fail:
 *  - one with the winner's source: ENOENT (its source is gone), nothing else;
 *  - one of the other directory: EINVAL (its target now lies inside its
 *    source) or ENOENT (its target's parent vanished from where it looked).
 * Two winners in opposite directions is the loop: neither directory is
 * reachable any more.  After the race the winner's source is absent, the
 * other directory present, the winner's target present (with the moved
 * directory's fileid, when a LOOKUP before the race knew it), and every
 * loser's target absent; a and b, and the winner's target, must be looked
 * up after the race.
 */
int dt_oracle_no_dir_loop(const struct dt_history *h, const char *a,
			  const char *b, struct dt_verdict *v);

/*
 * Every RENAME whose target lies inside its own source (d -> d/x,
 * d -> d/sub/x) fails with EINVAL.  The test keeps the source and the
 * target's parent in place, so ENOENT is a violation too.
 */
int dt_oracle_no_move_into_self(const struct dt_history *h,
				struct dt_verdict *v);

/*
 * A file stays readable while open, also once its name is unlinked (POSIX;
 * silly rename on an NFS client; an OPEN stateid on NFSv4).  For every
 * successful OPEN of a name starting with prefix, each READ the same
 * thread makes before its CLOSE (or its next OPEN) returns exactly size
 * bytes: the test reads the whole file at offset 0 with room for one byte
 * more.  The CLOSE returns 0.  At least one of these READs must start
 * after a successful UNLINK of the open name returned, or nothing was
 * tested.  Contract: a thread has one file open at a time.
 */
int dt_oracle_open_reads(const struct dt_history *h, const char *prefix,
			 size_t size, struct dt_verdict *v);

/*
 * A host sees its own renames.  For every successful RENAME a -> b (a and
 * b differ) by host H: every LOOKUP or OPEN (without O_CREAT) of a by H
 * that started after the rename returned, and before any later successful
 * change that could bring a back began (a create, mkdir, open with
 * O_CREAT of a, a link or rename to a, by any host), answers ENOENT.  One
 * kernel serves all of a host's threads: whatever bound a caching client
 * has for other clients' changes, its own rename is in its caches at once.
 * widen_ns: how much earlier than recorded the reads of h start (the
 * history dt_run_workers returns: dt_read_widen_ns; 0 for raw times).
 * No such lookup at all is a violation: nothing was judged.
 */
int dt_oracle_own_rename(const struct dt_history *h, uint64_t widen_ns,
			 struct dt_verdict *v);

#endif /* DT_ORACLE_RACE_H */
