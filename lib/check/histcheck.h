/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The general history checker: is a whole history of namespace operations
 * explained by one sequential directory?  The per-test oracles in
 * dentrace.h each check one invariant of one test; this checks every
 * recorded op of any test against one model, and is the reference for what
 * that model says.
 *
 * ---- The sequential model ----------------------------------------------
 *
 * A map path -> state, for every path the history names (paths relative to
 * the target root, "s/d/f.1"; a READDIR of D names D and D/<entry>):
 *
 *   UNKNOWN             the initial state of every path: histories do not
 *                       always hold the setup.  The first op linearized on
 *                       the path fixes it to whatever that op needs.
 *   ABSENT
 *   PRESENT(F, type)    fileid F (0 = not known yet; the first op that
 *                       sees a fileid fixes it), type file, dir or unknown.
 *
 * An event's fileid 0 means "not known" and matches any fileid.  Fileids
 * need not be unique over time (tmpfs and ext4 reuse inode numbers): only
 * the state of a path says which file it names now.
 *
 *   LOOKUP, OPEN     found F: PRESENT(F).  ENOENT: ABSENT.  OPEN EISDIR:
 *    (no O_CREAT)    PRESENT dir.
 *   OPEN O_CREAT     ("open+") as a non-exclusive create whose fileid is
 *                    not known; with O_EXCL ("open+!") as an exclusive
 *                    create.  EEXIST (exclusive): PRESENT.  EISDIR:
 *                    PRESENT dir.  ENOENT (a missing parent): no
 *                    information.
 *   CREATE (excl,    success: ABSENT -> PRESENT(F, file).  EEXIST: PRESENT.
 *    "create!")      EISDIR: PRESENT dir.
 *   CREATE (not      success: ABSENT -> PRESENT(F, file), or PRESENT(G,
 *    exclusive)      not dir) with G == F: unchanged.
 *   MKDIR            as an exclusive create of a dir.
 *   UNLINK, RMDIR    success: PRESENT (not dir / not file) -> ABSENT.
 *                    ENOENT: ABSENT.  ENOTEMPTY, EISDIR, ENOTDIR: PRESENT
 *                    (of the type the error names), unchanged.
 *   RENAME a -> b    success: a PRESENT(F) -> a ABSENT, b PRESENT(F) (b's
 *                    old entry replaced; file over dir or dir over file
 *                    cannot succeed).  When a and b name the same file
 *                    (equal fileids, or unknown ones) POSIX says nothing
 *                    happens: both stay.  ENOENT: a ABSENT.  EEXIST,
 *                    ENOTEMPTY: b PRESENT (a directory not empty, or for
 *                    NFSv4 of a type a cannot replace).  EISDIR, ENOTDIR,
 *                    EBUSY: no change, nothing to check.  EINVAL: no
 *                    change, but only if b's directory can be inside a:
 *                    b below a, or a rename of the history moves b's
 *                    directory (or an ancestor) to a or below it (a
 *                    client may have resolved it before the move); else
 *                    a violation.  EXDEV: no change, but a violation
 *                    when a and b lie in one directory or below it
 *                    through directories the history made (mkdir makes a
 *                    directory on its parent's filesystem; no test
 *                    mounts inside its scratch).  Renaming a directory
 *                    moves the paths below it (see "Directories" below).
 *                    Success with b below a (into itself) or a below b
 *                    (onto its own non-empty ancestor) is a violation by
 *                    itself: POSIX answers EINVAL / ENOTEMPTY.
 *   RENAME a -> b    (renameat2 RENAME_NOREPLACE, "rename!") success:
 *    NOREPLACE       a PRESENT(F), b ABSENT -> a ABSENT, b PRESENT(F), b's
 *                    absence checked in the same atomic step.  EEXIST:
 *                    b PRESENT.  ENOENT: a ABSENT.  EINVAL (the flag not
 *                    supported: Linux's NFS client) and the other
 *                    no-change errors: nothing to check.
 *   LINK a -> b      success: a PRESENT(F, not dir), b ABSENT ->
 *                    b PRESENT(F).  EEXIST: b PRESENT.  ENOENT: a ABSENT.
 *                    EPERM: a PRESENT dir.  EXDEV: as for RENAME.
 *   READDIR D        success: D PRESENT dir, and for every path D/x the
 *                    history knows (any op on it, or listed in any listing
 *                    of D) one atomic read of D/x at its own point inside
 *                    the listing's interval: listed with fileid F ->
 *                    PRESENT(F) (F 0 = any), not listed -> ABSENT.  That is
 *                    exactly POSIX's leeway for entries added or removed
 *                    during a listing.  A name listed twice in one listing
 *                    is a violation by itself, unless with two different
 *                    fileids (one file removed, another made under the
 *                    name during the listing: then PRESENT, any fileid).
 *                    ENOENT: D ABSENT; ENOTDIR: D PRESENT, not a dir.
 *
 *   READ, CLOSE      handle lifetime, apart from the path map: on a file
 *                    its thread opened (the thread's latest successful
 *                    OPEN not yet closed, in the thread's order by end
 *                    time: events carry no handle, and tests hold one file
 *                    open per thread) any error (ESTALE, EIO, ...) is a
 *                    violation: POSIX keeps an open file usable after its
 *                    name is unlinked or renamed over, until it is closed.
 *                    CLOSE ends the handle.  A READ or CLOSE on no handle
 *                    the history opened (after a failed OPEN, after the
 *                    CLOSE) is not judged (ignored).  Bytes: no op of a
 *                    history writes file data (tests read what their
 *                    setup wrote before the open), so a READ with the
 *                    same request ("offset+length" in name2) as the
 *                    handle's first READ returns as many bytes: a file
 *                    emptied or grown under an open handle is a
 *                    violation.
 *                    NFSv3 has no open state (RFC 1813): there another
 *                    client's REMOVE may free the file, and such a
 *                    violation is the protocol's limit; the target's xfail
 *                    list (open_unlinked on v3 mounts) reports it as TODO.
 *
 * Any other errno (ESTALE, EIO, ...) is a violation of class "unexpected
 * error"; with accept_errors it is counted as "no information" instead
 * (a failed READ or CLOSE on an open handle too).
 *
 * Linearizability: every op takes effect at one instant inside its
 * [start, end], and the sequence of those instants is a run of the model
 * (Herlihy & Wing).  Two options weaken it, both stated as intervals:
 *
 *   stale_ns (delta)  Delta-atomicity for caching clients: a read (LOOKUP,
 *                     OPEN, READDIR) may return any state that held at some
 *                     instant of [start - delta, end].  Implemented by
 *                     opening the read's interval to start - delta.  Writes
 *                     and failed writes (EEXIST from a create) are judged
 *                     as written: the server decides them.  A client reads
 *                     its own changes: a LOOKUP or OPEN is not opened back
 *                     past the end of the latest change of its path by its
 *                     own host (event host) that ended before it began
 *                     (read your writes: one kernel's dcache serves all
 *                     of a host's threads).  Listings keep the whole
 *                     window (a readdir cache may lag the host's own
 *                     changes until revalidated).
 *   skew_ns           clock error between hosts.  When the history holds
 *                     more than one host, every interval is widened by
 *                     skew_ns / 2 on each side: two events of different
 *                     hosts are ordered only when more than skew_ns apart.
 *
 * Directories.  A successful rename a -> b moves every path the history
 * names below a to the same suffix below b (a/s -> b/s; the counterparts
 * are made once, so two directories renamed into each other stay finite;
 * a counterpart not made is not tracked, which only loses knowledge): in
 * the same atomic step b/s takes a/s's state and a/s becomes ABSENT, and
 * no b/s may be PRESENT (the target is an empty directory or nothing).
 * When b's parent is itself moved in the history, it must be PRESENT and
 * not a file at that step (a rename into a directory that moved away
 * fails: this is how two directories renamed into each other are caught).
 * Below a moved directory, ENOENT from create, mkdir, and from rename or
 * link onto such a path (the parent may have moved away) is no
 * information.  Paths below a removed directory (rmdir) and every path a
 * rename or link connects to them are still left out and counted
 * (not_judged), never silently; so are all of a rename's moved paths when
 * it would make more than 4x the history's paths.
 *
 * ---- How it is checked -----------------------------------------------------
 *
 * Split (P-compositionality): only RENAME and LINK touch two paths, so
 * union-find over the paths their successful events connect gives
 * independent components; each is checked on its own.  Failed renames and
 * links touch one path.  READDIRs become per-path reads first, so a listing
 * does not tie its directory's paths together.
 *
 * Reads in a quiet gap collapse: a read of x that overlaps no op changing x
 * sees the same state as every other such read between the same changes
 * of x; identical observations there are judged once.  Long runs of
 * lookups and listings of paths nobody touches cost one read per gap.
 *
 * Search (per component): Wing & Gong's linearization DFS in Lowe's
 * just-in-time form: the ops that may go next are the calls before the
 * first return in a doubly linked list of call/return entries (dancing
 * links, so undo is O(1)); an op that must precede an unlinearized one is
 * never tried early.  Memoization of failed configurations: the key is a
 * 128-bit hash of (linearized set, model state), both kept incrementally
 * (XOR of per-op and per-path hashes), so a configuration costs 16 bytes
 * however many ops the component has; a collision (~2^-100 here) could
 * only turn "consistent" into a reported violation, never the reverse.
 * Fast path: a read that matches the current state exactly and changes
 * nothing is linearized at once without a branch point (moving such a read
 * earlier never invalidates a linearization), so a component whose
 * changes are ordered in real time is checked in one pass.  A component
 * that needs more than budget search steps is INCONCLUSIVE, named in the
 * result: never claimed consistent.
 *
 * Counterexample: the first violating component is shrunk under a budget
 * to a small set that is still not linearizable, by moves that keep it a
 * proof against the whole history: drop reads (ops that change nothing;
 * dropping them only removes constraints), drop a time prefix of changes
 * that all ended before every kept op started (the paths become UNKNOWN,
 * which admits every state they could have had), and drop a time suffix of
 * changes that all started after every kept op ended.
 */
#ifndef DENTRACE_HISTCHECK_H
#define DENTRACE_HISTCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/oracle.h"

enum dt_check_status {
	DT_CHECK_CONSISTENT = 0,	/* a linearization exists for every component */
	DT_CHECK_VIOLATION = 1,		/* some component has none (or a direct violation) */
	DT_CHECK_INCONCLUSIVE = 2,	/* no violation found, a search ran out of budget */
};

/* search steps per component when dt_check_opts.budget is 0 */
#define DT_CHECK_DEFAULT_BUDGET 20000000ull
/* search steps for shrinking a counterexample when shrink_budget is 0 */
#define DT_CHECK_DEFAULT_SHRINK 20000000ull

struct dt_check_opts {
	uint64_t stale_ns;	/* delta for reads of caching clients */
	uint64_t skew_ns;	/* cross-host clock error (multi-host only) */
	bool accept_errors;	/* unexpected errors are "no information" */
	/* a path whose first change is a create (create, mkdir, open+) did
	   not exist before it: the history holds the whole life of the names
	   it creates (a fresh scratch dir), as the oracles assume.  And a
	   directory whose first change is a successful MKDIR (never moved)
	   was empty then: a path right below it starts ABSENT, so a name
	   nothing in the history makes is never found (the NFS client's
	   ".nfs" silly-rename names aside) */
	bool fresh_creates;
	uint64_t budget;	/* search steps per component, 0 = default */
	uint64_t shrink_budget;	/* steps for the counterexample, 0 = default */
	bool no_shrink;		/* report the whole violating component */
	uint64_t deadline_ns;	/* dt_now_ns() at which a search gives up
				   (inconclusive), 0 = never */
};

/* One component, for the report (the largest and the bad ones). */
struct dt_check_component {
	char name[DT_EV_NAME];	/* its first path */
	size_t names;		/* paths in it */
	size_t ops;		/* ops judged (after collapsing reads) */
	uint64_t steps;		/* search steps taken */
	int status;		/* enum dt_check_status */
};

#define DT_CHECK_MAX_COMPONENTS 12

struct dt_check_result {
	int status;			/* enum dt_check_status */
	/* the first violation, or what was inconclusive (dt_verdict style) */
	struct dt_verdict verdict;

	size_t events;			/* events in the history */
	size_t judged;			/* events the model judged */
	size_t not_judged;		/* below renamed/removed dirs: left out */
	size_t ignored;			/* READ, CLOSE on no open handle,
					   unknown opcodes */
	size_t errors_accepted;		/* unexpected errors taken as no information */
	size_t entries_not_judged;	/* listing entries of left-out paths */
	size_t names, excluded_names;
	size_t ops;			/* per-path ops after splitting listings */
	size_t reads_collapsed;		/* reads judged by an identical one */
	size_t components, largest;	/* largest: ops in the biggest component */
	size_t violating, inconclusive;	/* components (+ direct violations) */
	uint64_t steps;			/* search steps, all components */
	uint64_t shrink_steps;
	bool multi_host;

	/* the components worth showing: bad ones first, then the largest */
	struct dt_check_component comp[DT_CHECK_MAX_COMPONENTS];
	size_t ncomp;

	/* shrunk counterexample: event indexes (ascending) and their text */
	size_t *cex;
	size_t ncex;
	char *cex_text;			/* one line per event, dump style */
};

/*
 * Judge h (need not be sorted).  Returns the status (>= 0), or -ENOMEM
 * (then res->status is INCONCLUSIVE and the verdict says why).  Free
 * res with dt_check_result_free().  o may be NULL (defaults).
 */
int dt_check_history(const struct dt_history *h, const struct dt_check_opts *o,
		     struct dt_check_result *res);
void dt_check_result_free(struct dt_check_result *res);
const char *dt_check_status_name(int status);	/* "consistent", ... */

/*
 * Parse the --check-history / DT_CHECK_HISTORY value: "" or "1" (on),
 * "stale:MS", "stale:MS,skew:MS", "0"/"off" (off).  Returns 1 on, 0 off,
 * -EINVAL when malformed.
 */
int dt_check_parse_spec(const char *spec, struct dt_check_opts *o);

/*
 * The model's coverage, one row per operation a test can record (with the
 * variants its flags make): whether the model judges it and how.  The
 * table ends with a row whose op is NULL.  dtcheck --coverage prints it.
 */
struct dt_check_coverage {
	const char *op;		/* as the dump writes it ("open+!") */
	bool modelled;
	const char *how;
};
extern const struct dt_check_coverage dt_check_coverage[];

#endif /* DENTRACE_HISTCHECK_H */
