/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-test oracles of oracle.c: each judges one invariant of POSIX
 * directory semantics over a history.  (oracle_race.h and
 * oracle_coherence.h hold the rename/unlink race and cross-client
 * coherence oracles; histcheck.h the general checker.)
 */
#ifndef DT_CHECK_ORACLE_H
#define DT_CHECK_ORACLE_H

#include "check/history.h"

/*
 * Every oracle returns the number of violations found (0 = consistent) and
 * describes the first one in *v.  Oracles are pure: t/ feeds them
 * hand-made bad histories.
 */
struct dt_verdict {
	int violations;
	size_t event;			/* index of the first bad event */
	char what[256];			/* which invariant broke */
	char expected[256];
	char observed[256];
};

/*
 * Every violation an oracle counts, told as it counts it, for whoever
 * summarizes failures by kind (core/failsum.c): begin() when an oracle
 * starts judging, flag() for each violation with its event (SIZE_MAX:
 * about the history as a whole).  Per thread; NULL turns it off.
 */
struct dt_violation_hook {
	void (*begin)(void *arg);
	void (*flag)(void *arg, const struct dt_history *h, size_t ev);
	void *arg;
};
void dt_oracle_set_hook(const struct dt_violation_hook *hook);

/* All LOOKUPs of name agree: same result and, if found, same fileid. */
int dt_oracle_same_answer(const struct dt_history *h, const char *name,
			  struct dt_verdict *v);

/*
 * Exactly one of the events of op on name (UNLINK, CREATE excl, MKDIR,
 * LINK to name2 == name, RENAME from name, RENAME_NOREPLACE to name2 ==
 * name) succeeds; every other returns
 * one of the errnos in allowed[] (0-terminated, positive values).
 */
int dt_oracle_one_winner(const struct dt_history *h, enum dt_opcode op,
			 const char *name, const int *allowed,
			 struct dt_verdict *v);

/*
 * Rename chain: one file (fileid) is created as chain[0] and renamed along
 * prefix.0 -> prefix.1 -> ... by one writer.  Each LOOKUP of a chain name is
 * judged against the writer's intervals: ENOENT while the file was surely
 * there is "lost", finding it where it surely was not (or a different
 * fileid) is "two names", any other errno (ESTALE, EIO) is wrong.
 * A failed rename by the writer is a violation too.
 */
int dt_oracle_rename_chain(const struct dt_history *h, const char *prefix,
			   uint64_t fileid, struct dt_verdict *v);

/*
 * Name lifetime: for every LOOKUP/OPEN of a name created and unlinked in the
 * history, the result must be consistent with the create/unlink intervals
 * (found with the created fileid, or ENOENT, never another errno; found
 * after the unlink surely completed, or ENOENT while surely present, is a
 * violation).
 */
int dt_oracle_name_lifetime(const struct dt_history *h, struct dt_verdict *v);

/*
 * Readdir under churn: for every READDIR of dir: no duplicate names; every
 * name surely present throughout the listing is listed; no name is listed
 * that could not have existed during the listing; listed fileids agree with
 * the fileid the name was created with (when both are known).
 */
int dt_oracle_readdir(const struct dt_history *h, const char *dir,
		      struct dt_verdict *v);

#endif /* DT_CHECK_ORACLE_H */
