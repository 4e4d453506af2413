/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Histories: what each recorded operation saw (who, when it started and
 * returned, what it answered), the input of every oracle and of the
 * general history checker.  A text dump is the evidence attached to a
 * failure; a binary form ships a history between hosts.
 */
#ifndef DT_CHECK_HISTORY_H
#define DT_CHECK_HISTORY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/base.h"

enum dt_opcode {
	DT_OP_LOOKUP, DT_OP_CREATE, DT_OP_MKDIR, DT_OP_RMDIR, DT_OP_UNLINK,
	DT_OP_RENAME, DT_OP_LINK, DT_OP_READDIR, DT_OP_OPEN, DT_OP_READ,
	DT_OP_CLOSE, DT_OP__COUNT
};

const char *dt_op_name(enum dt_opcode op);

#define DT_EV_NAME 96

/* dt_event.flags: what the op was asked to do beyond its opcode */
#define DT_EVF_EXCL	0x01	/* CREATE or OPEN with O_EXCL (exclusive) */
#define DT_EVF_CREAT	0x02	/* OPEN with O_CREAT (may create the name) */
/* RENAME with RENAME_NOREPLACE: the exclusive rename ("rename!") */
#define DT_EVF_NOREPLACE DT_EVF_EXCL
#define DT_EVF__ALL	0x0f	/* the bits a history may carry (histio) */
/* harness-local, never shipped: the start was moved back (widen_reads) */
#define DT_EVF_WIDENED	0x80
/* harness-local: the case's scratch directory, made before its first op */
#define DT_EVF_SCRATCH	0x40

struct dt_event {
	uint16_t host;		/* client host index (0 when alone) */
	uint16_t thread;	/* worker index; 0xffff = setup thread */
	uint8_t op;		/* enum dt_opcode */
	uint8_t flags;		/* DT_EVF_* */
	int32_t result;		/* 0 or -errno (READ: bytes) */
	uint64_t start_ns;	/* when the call was made */
	uint64_t end_ns;	/* when it returned */
	uint64_t fileid;	/* what it saw (lookup/create), 0 = none */
	char name[DT_EV_NAME];	/* path operated on */
	char name2[DT_EV_NAME];	/* rename/link target */
	struct dt_dirlist *list; /* READDIR: the listing (owned) */
};

struct dt_history {
	struct dt_event *ev;
	size_t n, cap;
};

/* Append a copy of *e; takes ownership of e->list.  Returns 0 or -ENOMEM. */
int dt_history_add(struct dt_history *h, const struct dt_event *e);
/* Append all of src to dst (moving readdir lists) and empty src. */
int dt_history_move(struct dt_history *dst, struct dt_history *src);
void dt_history_free(struct dt_history *h);
/* Sort by start time (stable), the order oracles expect. */
void dt_history_sort(struct dt_history *h);
/*
 * Reads (lookup, readdir, open) that may show a state up to ns old: with
 * ns > 0 their start moves back by ns (and they are marked); with ns < 0
 * the marked ones move forward again.  The oracles judge intervals, so a
 * widened read may match any state of [start - ns, end]: the staleness a
 * caching client is allowed.  Keeps the history sorted by start.
 */
void dt_history_widen_reads(struct dt_history *h, int64_t ns);
/*
 * The origin of the relative times in evidence (dumps, verdicts): the
 * earliest start, the scratch directory's MKDIR (DT_EVF_SCRATCH) aside, so
 * a verdict given before that event was added reads like the dump.
 */
uint64_t dt_history_t0(const struct dt_history *h);
/* Write the history as text lines (one event per line) for evidence. */
int dt_history_dump(const struct dt_history *h, const char *path);

/*
 * One event as dt_history_dump writes it, for whoever prints events in
 * that form (the history checker's counterexamples, which dtcheck reads
 * back): a name escaped to one token, and the line up to its end time (no
 * listing, no newline).
 */
void dt_history_put_name(FILE *f, const char *s);
void dt_history_put_head(FILE *f, const struct dt_history *h, size_t i,
			 uint64_t t0);

/*
 * Binary form (histio.c) to ship a history between hosts: encode
 * allocates *out (free() it); decode appends to h and returns -EBADMSG for
 * anything malformed, never reading outside buf.
 */
int dt_history_encode(const struct dt_history *h, void **out, size_t *outlen);
int dt_history_decode(const void *buf, size_t len, struct dt_history *h);

#endif /* DT_CHECK_HISTORY_H */
