/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A generator of histories that are linearizable by construction, for the
 * history checker's self-test (t/check/histcheck_gen.c) and its benchmark (the
 * same file built with -DHISTCHECK_BENCH).
 *
 * T threads issue random ops on a small set of paths in one directory
 * ("g/f<i>" files, "g/d<i>" empty dirs): lookups, opens, exclusive and
 * plain creates, unlinks, mkdir/rmdir, listings of g, and (optionally)
 * renames (some with RENAME_NOREPLACE) and links among the files.  Each op gets a random interval
 * (threads issue back to back with random gaps, so about T ops overlap)
 * and a linearization point inside it; the ops are applied to a sequential
 * model in the order of those points, which gives every result, fileid and
 * listing.  Fileids of removed files are reused now and then (tmpfs does).
 * A setup thread first looks up every path (ENOENT), so every state the
 * checker infers is pinned by the history itself.
 */
#ifndef DT_HISTGEN_H
#define DT_HISTGEN_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dentrace.h"

struct gen_opts {
	int threads;
	long ops;		/* worker ops (the setup adds one per path) */
	int nfiles, ndirs;
	bool renames;		/* renames and links among the files */
	uint64_t seed;
	uint64_t max_dur;	/* ns an op takes: 1 .. max_dur */
	uint64_t max_gap;	/* ns between a thread's ops: 1 .. max_gap */
};

struct gen_op {
	uint64_t s, e, lin;
	uint32_t seq;
	uint16_t thread;
	uint8_t op, excl;
	int16_t a, b;		/* path indexes: files 0..nf-1, dirs nf.. */
};

static inline uint64_t gen_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline int gen_lin_cmp(const void *x, const void *y)
{
	const struct gen_op *a = x, *b = y;

	if (a->lin != b->lin)
		return a->lin < b->lin ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static inline int gen_start_cmp(const void *x, const void *y)
{
	const struct dt_event *a = x, *b = y;

	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

static inline void gen_path(char *buf, int i, int nf)
{
	if (i < nf)
		snprintf(buf, DT_EV_NAME, "g/f%d", i);
	else
		snprintf(buf, DT_EV_NAME, "g/d%d", i - nf);
}

/* Fill h (empty) with a linearizable history; returns 0 or -ENOMEM. */
static inline int gen_history(const struct gen_opts *o, struct dt_history *h)
{
	const int nf = o->nfiles, np = o->nfiles + o->ndirs;
	struct gen_op *g = calloc((size_t)o->ops, sizeof(*g));
	uint64_t *fid = calloc((size_t)np, sizeof(*fid));
	uint64_t *freed = calloc(64, sizeof(*freed));
	uint64_t rng = o->seed, t0 = 1000, next_fid = 100;
	size_t nfreed = 0;
	char pa[DT_EV_NAME];
	int rc = 0;

	if (!g || !fid || !freed) {
		rc = -ENOMEM;
		goto out;
	}
	/* setup: mkdir g, every path absent */
	{
		struct dt_event e = { .thread = 0xffff, .op = DT_OP_MKDIR,
				      .start_ns = 1, .end_ns = 2 };

		snprintf(e.name, sizeof(e.name), "g");
		if (dt_history_add(h, &e))
			rc = -ENOMEM;
		for (int i = 0; i < np && !rc; i++) {
			struct dt_event l = { .thread = 0xffff,
					      .op = DT_OP_LOOKUP,
					      .result = -ENOENT,
					      .start_ns = 3 + 2 * (uint64_t)i,
					      .end_ns = 4 + 2 * (uint64_t)i };

			gen_path(l.name, i, nf);
			if (dt_history_add(h, &l))
				rc = -ENOMEM;
		}
		t0 = 10 + 2 * (uint64_t)np;
	}
	/* intervals and linearization points, thread by thread */
	{
		long per = o->ops / o->threads, k = 0;

		for (int t = 0; t < o->threads; t++) {
			uint64_t clock = t0 + gen_rand(&rng) % (o->max_gap + 1);
			long mine = t == o->threads - 1 ? o->ops - k : per;

			for (long j = 0; j < mine; j++, k++) {
				struct gen_op *p = &g[k];
				unsigned r = (unsigned)(gen_rand(&rng) % 100);

				p->s = clock;
				p->e = p->s + 1 + gen_rand(&rng) % o->max_dur;
				p->lin = p->s + gen_rand(&rng) % (p->e - p->s + 1);
				clock = p->e + 1 + gen_rand(&rng) % o->max_gap;
				p->seq = (uint32_t)k;
				p->thread = (uint16_t)t;
				p->a = (int16_t)(gen_rand(&rng) % (uint64_t)nf);
				p->b = -1;
				if (!o->renames && r >= 76)
					r = (unsigned)(gen_rand(&rng) % 76);
				if (r < 30) {
					p->op = DT_OP_LOOKUP;
					if (o->ndirs && r < 4)
						p->a = (int16_t)(nf + (int)(gen_rand(&rng) % (uint64_t)o->ndirs));
				} else if (r < 36) {
					p->op = DT_OP_OPEN;
				} else if (r < 48) {
					p->op = DT_OP_CREATE;
					p->excl = r < 44;
				} else if (r < 60) {
					p->op = DT_OP_UNLINK;
				} else if (r < 63) {
					p->op = DT_OP_READDIR;
				} else if (r < 76) {
					p->op = r < 70 ? DT_OP_MKDIR : DT_OP_RMDIR;
					if (!o->ndirs)
						p->op = DT_OP_LOOKUP;
					else
						p->a = (int16_t)(nf + (int)(gen_rand(&rng) % (uint64_t)o->ndirs));
				} else {
					p->op = r < 90 ? DT_OP_RENAME : DT_OP_LINK;
					/* RENAME_NOREPLACE */
					p->excl = r >= 86 && r < 90;
					p->b = (int16_t)(gen_rand(&rng) % (uint64_t)(nf - 1));
					if (p->b >= p->a)
						p->b++;
				}
			}
		}
	}
	qsort(g, (size_t)o->ops, sizeof(*g), gen_lin_cmp);
	/* the sequential model, in linearization order; fid 0 = absent */
	for (long k = 0; k < o->ops && !rc; k++) {
		struct gen_op *p = &g[k];
		struct dt_event e = { .thread = p->thread, .op = p->op,
				      .start_ns = p->s, .end_ns = p->e };
		uint64_t *fa = &fid[p->a];

		gen_path(e.name, p->a, nf);
		if (p->b >= 0)
			gen_path(e.name2, p->b, nf);
		switch (p->op) {
		case DT_OP_LOOKUP:
			e.result = *fa ? 0 : -ENOENT;
			e.fileid = *fa;
			break;
		case DT_OP_OPEN:	/* dt_open records no fileid */
			e.result = *fa ? 0 : -ENOENT;
			break;
		case DT_OP_CREATE:
			e.flags = p->excl ? DT_EVF_EXCL : 0;
			if (*fa && p->excl) {
				e.result = -EEXIST;
				break;
			}
			if (!*fa) {
				/* now and then a freed fileid, as tmpfs does */
				if (nfreed && gen_rand(&rng) % 4 == 0)
					*fa = freed[--nfreed];
				else
					*fa = next_fid++;
			}
			e.fileid = *fa;
			break;
		case DT_OP_UNLINK:
		case DT_OP_RMDIR:
			e.result = *fa ? 0 : -ENOENT;
			if (*fa && nfreed < 64)
				freed[nfreed++] = *fa;
			*fa = 0;
			break;
		case DT_OP_MKDIR:	/* dt_mkdir records no fileid */
			e.result = *fa ? -EEXIST : 0;
			if (!*fa)
				*fa = next_fid++;
			break;
		case DT_OP_RENAME:
			e.flags = p->excl ? DT_EVF_NOREPLACE : 0;
			if (!*fa) {
				e.result = -ENOENT;
			} else if (p->excl && fid[p->b]) {
				e.result = -EEXIST;	/* even the same file */
			} else if (fid[p->b] != *fa) {
				if (fid[p->b] && nfreed < 64)
					freed[nfreed++] = fid[p->b];
				fid[p->b] = *fa;
				*fa = 0;
			}	/* else: two links of one file, nothing */
			break;
		case DT_OP_LINK:
			e.result = !*fa ? -ENOENT : fid[p->b] ? -EEXIST : 0;
			if (!e.result)
				fid[p->b] = *fa;
			break;
		case DT_OP_READDIR:
			snprintf(e.name, sizeof(e.name), "g");
			e.list = calloc(1, sizeof(*e.list));
			if (!e.list) {
				rc = -ENOMEM;
				break;
			}
			for (int i = 0; i < np && !rc; i++) {
				if (!fid[i])
					continue;
				gen_path(pa, i, nf);
				if (dt_dirlist_add(e.list, pa + 2, fid[i]))
					rc = -ENOMEM;
			}
			e.result = (int)e.list->n;
			break;
		}
		if (dt_history_add(h, &e))
			rc = -ENOMEM;
	}
	/* recorded histories come sorted by start */
	if (!rc && h->n > 1)
		qsort(h->ev, h->n, sizeof(*h->ev), gen_start_cmp);
out:
	free(g);
	free(fid);
	free(freed);
	return rc;
}

#endif /* DT_HISTGEN_H */
