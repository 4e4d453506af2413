/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Coherence oracles: lookups of names nothing made, and bounded staleness
 * of what one client sees of another client's changes.
 *
 * The model is the one of lib/check/oracle.c (read it first): a name is a
 * register written by successful mutations, each of which took effect at
 * one unknown instant inside its [start_ns, end_ns].  The strict rule lets
 * a read over [s, e] see the value mutation M wrote iff M.start <= e and no
 * mutation M' has M'.start > M.end and M'.end < s.  Write deadline(M) for
 * the earliest end among the mutations that began after M ended: the read
 * may see M's value iff M.start <= e and s <= deadline(M).
 *
 * A client that caches answers from an older state.  With a bound B the
 * read is judged as if it began at s - B, so it needs a staleness of
 * s - max(deadline(M)) over the mutations M whose value it saw: that is
 * the quantity measured here, and a violation is a read that needs more
 * than B.  The start side (M.start <= e) is never relaxed: no cache can
 * answer with a state that did not exist yet.
 *
 * Every read needs the best deadline among the mutations of its value
 * class that began by e: prefix maxima over the mutations sorted by start
 * (one per class: removals, adds of any file, adds of an unknown file, and
 * per fileid), so each read costs a few binary searches.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errname.h"
#include "check/oracle_coherence.h"
#include "check/oracle_util.h"

/* no such mutation */
#define NONE SIZE_MAX
/* a deadline no read reaches: nothing replaced the state */
#define FOREVER UINT64_MAX
/* the state from before the history, as a source of what a read saw */
#define INIT (SIZE_MAX - 1)

/* a duration in the unit a person reads best: "850 ns", "12.345 ms" */
static const char *dur(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.3f us", (double)ns / 1e3);
	else if (ns < 10000000000ull)
		snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
	return buf;
}

/* ---- what the history says about each name ------------------------------ */

enum sref_kind {
	S_ADD,		/* a successful mutation that makes the name present */
	S_REMOVE,	/* ... that makes it absent */
	S_EXISTS,	/* a failure that proves the name existed (EEXIST) */
	S_READ,		/* a LOOKUP/OPEN to judge */
};

struct sref {
	const char *name;
	const char *from;	/* S_ADD by rename/link: the file's old name */
	uint64_t start, end;
	uint64_t fileid;	/* S_ADD: the file now named, 0 = unknown */
	size_t ev;
	int kind;
};

struct srefs {
	struct sref *r;
	size_t n, cap;
};

static int srefs_push(struct srefs *R, const struct dt_history *h, size_t ev,
		      const char *name, int kind, uint64_t fileid,
		      const char *from)
{
	const struct dt_event *e = &h->ev[ev];

	if (!*name)
		return 0;
	if (R->n == R->cap) {
		size_t cap = R->cap ? R->cap * 2 : 1024;
		struct sref *r = realloc(R->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		R->r = r;
		R->cap = cap;
	}
	R->r[R->n++] = (struct sref){
		.name = name, .from = from, .start = e->start_ns,
		.end = dt_ev_end(e), .fileid = fileid, .ev = ev, .kind = kind,
	};
	return 0;
}

static int sref_cmp(const void *a, const void *b)
{
	const struct sref *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->kind - y->kind;
}

/*
 * Every event that says something about a name, and the names renamed
 * (their children change without events of their own).
 */
static int collect(const struct dt_history *h, struct srefs *R,
		   struct dt_pathset *moved)
{
	int err = 0;

	for (size_t i = 0; i < h->n && !err; i++) {
		const struct dt_event *e = &h->ev[i];

		switch (e->op) {
		case DT_OP_CREATE:
		case DT_OP_MKDIR:
			if (!e->result)
				err = srefs_push(R, h, i, e->name, S_ADD,
						 e->fileid, NULL);
			else if (e->result == -EEXIST)
				err = srefs_push(R, h, i, e->name, S_EXISTS,
						 0, NULL);
			break;
		case DT_OP_UNLINK:
		case DT_OP_RMDIR:
			if (!e->result)
				err = srefs_push(R, h, i, e->name, S_REMOVE,
						 0, NULL);
			break;
		case DT_OP_LINK:
			if (!e->result)
				err = srefs_push(R, h, i, e->name2, S_ADD, 0,
						 e->name);
			else if (e->result == -EEXIST)
				err = srefs_push(R, h, i, e->name2, S_EXISTS,
						 0, NULL);
			break;
		case DT_OP_RENAME:
			if (e->result == -EEXIST || e->result == -ENOTEMPTY)
				err = srefs_push(R, h, i, e->name2, S_EXISTS,
						 0, NULL);
			/* POSIX: renaming a name to itself does nothing */
			if (e->result || !strcmp(e->name, e->name2))
				break;
			err = srefs_push(R, h, i, e->name, S_REMOVE, 0, NULL);
			if (!err)
				err = srefs_push(R, h, i, e->name2, S_ADD, 0,
						 e->name);
			if (!err)
				err = dt_pathset_push(moved, e->name);
			if (!err)
				err = dt_pathset_push(moved, e->name2);
			break;
		case DT_OP_LOOKUP:
		case DT_OP_OPEN:
			err = srefs_push(R, h, i, e->name, S_READ, 0, NULL);
			break;
		default:
			break;
		}
	}
	if (err)
		return err;
	dt_sort_n(R->r, R->n, sizeof(*R->r), sref_cmp);
	dt_pathset_sort(moved);
	return 0;
}

/* first index in the sorted refs whose name is >= name */
static size_t group_find(const struct srefs *R, const char *name)
{
	size_t lo = 0, hi = R->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(R->r[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int sref_start_cmp(const void *a, const void *b)
{
	const struct sref *x = *(const struct sref *const *)a;
	const struct sref *y = *(const struct sref *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/*
 * A rename or link moves a known file: give its add the fileid the source
 * name last got, when that add surely came before (an add still running
 * when the rename began might not be the file it moved).  Earliest first,
 * so a chain of renames passes the fileid along.
 */
static int resolve_moves(struct srefs *R)
{
	struct sref **mv;
	size_t n = 0;

	for (size_t i = 0; i < R->n; i++)
		n += R->r[i].kind == S_ADD && R->r[i].from;
	if (!n)
		return 0;
	mv = malloc(n * sizeof(*mv));
	if (!mv)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < R->n; i++)
		if (R->r[i].kind == S_ADD && R->r[i].from)
			mv[n++] = &R->r[i];
	dt_sort_n(mv, n, sizeof(*mv), sref_start_cmp);
	for (size_t k = 0; k < n; k++) {
		struct sref *m = mv[k], *last = NULL;

		for (size_t j = group_find(R, m->from);
		     j < R->n && !strcmp(R->r[j].name, m->from) &&
		     R->r[j].start <= m->start; j++)
			if (R->r[j].kind == S_ADD && R->r[j].ev != m->ev)
				last = &R->r[j];
		if (last && last->end < m->start)
			m->fileid = last->fileid;
	}
	free(mv);
	return 0;
}

/* ---- dt_oracle_never_created -------------------------------------------- */

int dt_oracle_never_created(const struct dt_history *h, struct dt_verdict *v)
{
	struct dt_verdict scratch;
	struct srefs R = { 0 };
	struct dt_pathset moved = { 0 }, made = { 0 };
	struct dt_judge c;
	char b[DT_EVLEN], rb[16];
	int err;

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &scratch;
	dt_judge_init(&c, h, v);
	err = collect(h, &R, &moved);
	for (size_t i = 0; i < R.n && !err; i++)
		if (R.r[i].kind != S_READ &&
		    (!made.n || strcmp(made.p[made.n - 1], R.r[i].name)))
			err = dt_pathset_push(&made, R.r[i].name);
	if (err) {
		free(R.r);
		dt_pathset_free(&moved);
		dt_pathset_free(&made);
		return dt_judge_oom(&c);
	}

	/* refs are sorted by name: made is sorted too */
	for (size_t i = 0; i < R.n; i++) {
		const struct sref *r = &R.r[i];
		const struct dt_event *e = &h->ev[r->ev];
		const char *n = r->name;

		if (r->kind != S_READ || e->result == -ENOENT ||
		    dt_pathset_has(&made, n) || dt_pathset_covers(&moved, n))
			continue;
		if (e->result == -ENOTDIR && dt_pathset_covers(&made, n))
			continue;
		if (!dt_judge_flag(&c, r->ev))
			continue;
		if (!e->result)
			dt_say(v->what, "found a name nothing created: %s", n);
		else
			dt_say(v->what, "%s of %s, a name nothing created, returned %s",
			    dt_op_name((enum dt_opcode)e->op), n,
			    dt_resname(e->result, rb, sizeof(rb)));
		dt_say(v->expected, "ENOENT: no event of the history makes %s", n);
		dt_say(v->observed, "%s", dt_judge_evdesc(&c, r->ev, b, sizeof(b)));
	}
	free(R.r);
	dt_pathset_free(&moved);
	dt_pathset_free(&made);
	return v->violations;
}

/* ---- dt_oracle_staleness ------------------------------------------------- */

/* one mutation of the name being judged, in start order */
struct smut {
	uint64_t start, end, fileid;
	size_t ev;
	bool add;
	uint64_t dl;		/* deadline: earliest end of a later mutation */
	size_t dl_by;		/* ... that mutation (NONE: FOREVER) */
};

/* an add of a known fileid: for "which adds named this file?" */
struct sfent {
	uint64_t fileid, start;
	size_t idx;		/* into the name's mutations */
	size_t best;		/* max deadline of fileid's adds up to here */
};

/* one read, for the windows: who read, in the reader's time order */
struct sread {
	uint32_t who;		/* host << 16 | thread */
	uint64_t start, end, fileid;
	int32_t result;
	size_t ev;
};

/* one (change, observer) window before merging a rename's two names */
struct swin {
	size_t ev;		/* the change */
	uint32_t who;
	bool converged;
	uint64_t hi, lo;
};

/* scratch for one name, sized for the largest */
struct sgroup {
	const char *name;
	struct smut *mut;
	size_t nm, nadd;
	uint64_t *sufend;	/* min end of mut[k..] */
	size_t *sufidx;
	size_t *pm_rm, *pm_add, *pm_wild;	/* best deadline in mut[0..k] */
	struct sfent *fent;
	size_t nf;
	struct sread *rd;
	size_t nr;
	bool init_unknown;
	uint64_t init_dl;	/* the history's first end: init replaced */
	size_t init_by;
	size_t first_add;
};

struct swins {
	struct swin *w;
	size_t n, cap;
};

static int sfent_cmp(const void *a, const void *b)
{
	const struct sfent *x = a, *y = b;

	if (x->fileid != y->fileid)
		return x->fileid < y->fileid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int sread_cmp(const void *a, const void *b)
{
	const struct sread *x = a, *y = b;

	if (x->who != y->who)
		return x->who < y->who ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int swin_cmp(const void *a, const void *b)
{
	const struct swin *x = a, *y = b;

	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->who < y->who ? -1 : x->who > y->who;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t who_of(const struct dt_event *e)
{
	return (uint32_t)e->host << 16 | e->thread;
}

/* of two mutation indexes, the one whose state lasts longer (NONE loses) */
static size_t later_dl(const struct sgroup *g, size_t a, size_t b)
{
	if (a == NONE)
		return b;
	if (b == NONE)
		return a;
	return g->mut[b].dl > g->mut[a].dl ? b : a;
}

/* how many mutations began by t */
static size_t began_by(const struct sgroup *g, uint64_t t)
{
	size_t lo = 0, hi = g->nm;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->mut[mid].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* fill g from the refs of one name: R->r[a .. b) */
static void group_build(struct sgroup *g, const struct srefs *R, size_t a,
			size_t b)
{
	uint64_t min_add_end = FOREVER, min_proof = FOREVER;
	size_t k, ra = NONE, rr = NONE, rw = NONE;

	g->name = R->r[a].name;
	g->nm = g->nadd = g->nf = g->nr = 0;
	g->first_add = NONE;
	for (size_t i = a; i < b; i++) {
		const struct sref *r = &R->r[i];

		switch (r->kind) {
		case S_ADD:
		case S_REMOVE:
			g->mut[g->nm] = (struct smut){
				.start = r->start, .end = r->end,
				.fileid = r->fileid, .ev = r->ev,
				.add = r->kind == S_ADD,
			};
			if (r->kind == S_ADD) {
				if (!g->nadd++)
					g->first_add = g->nm;
				if (r->end < min_add_end)
					min_add_end = r->end;
			} else if (r->start < min_proof) {
				min_proof = r->start;
			}
			g->nm++;
			break;
		case S_EXISTS:
			if (r->start < min_proof)
				min_proof = r->start;
			break;
		case S_READ:
			break;
		}
	}
	/* existed before every create could have happened: unknown */
	g->init_unknown = min_proof != FOREVER && min_proof <= min_add_end;
	if (!g->nm)
		return;

	for (k = g->nm; k-- > 0;) {
		bool take = k == g->nm - 1 || g->mut[k].end < g->sufend[k + 1];

		g->sufend[k] = take ? g->mut[k].end : g->sufend[k + 1];
		g->sufidx[k] = take ? k : g->sufidx[k + 1];
	}
	g->init_dl = g->sufend[0];
	g->init_by = g->sufidx[0];
	for (k = 0; k < g->nm; k++) {
		struct smut *m = &g->mut[k];
		size_t j = began_by(g, m->end);

		m->dl = j < g->nm ? g->sufend[j] : FOREVER;
		m->dl_by = j < g->nm ? g->sufidx[j] : NONE;
	}
	for (k = 0; k < g->nm; k++) {
		const struct smut *m = &g->mut[k];

		if (m->add) {
			ra = later_dl(g, ra, k);
			if (!m->fileid)
				rw = later_dl(g, rw, k);
			else
				g->fent[g->nf++] = (struct sfent){
					.fileid = m->fileid,
					.start = m->start, .idx = k,
				};
		} else {
			rr = later_dl(g, rr, k);
		}
		g->pm_add[k] = ra;
		g->pm_rm[k] = rr;
		g->pm_wild[k] = rw;
	}
	dt_sort_n(g->fent, g->nf, sizeof(*g->fent), sfent_cmp);
	for (k = 0; k < g->nf; k++) {
		struct sfent *f = &g->fent[k];

		f->best = k && g->fent[k - 1].fileid == f->fileid ?
			  later_dl(g, g->fent[k - 1].best, f->idx) : f->idx;
	}
}

/* the add of fileid fid that began by e and lasts longest, or NONE */
static size_t fent_best(const struct sgroup *g, uint64_t fid, uint64_t e)
{
	size_t lo = 0, hi = g->nf;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sfent *f = &g->fent[mid];

		if (f->fileid < fid || (f->fileid == fid && f->start <= e))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && g->fent[lo - 1].fileid == fid)
		return g->fent[lo - 1].best;
	return NONE;
}

struct source {
	size_t idx;		/* mutation index, INIT, or NONE */
	uint64_t dl;
	size_t dl_by;		/* what replaced it (mutation index, NONE) */
};

static void consider(const struct sgroup *g, struct source *s, size_t idx)
{
	uint64_t dl;
	size_t by;

	if (idx == NONE)
		return;
	if (idx == INIT) {
		dl = g->init_dl;
		by = g->init_by;
	} else {
		dl = g->mut[idx].dl;
		by = g->mut[idx].dl_by;
	}
	if (s->idx == NONE || dl > s->dl) {
		s->idx = idx;
		s->dl = dl;
		s->dl_by = by;
	}
}

/*
 * The source of what the read saw that stayed current the longest: its
 * deadline is as late as the read's start can be without needing a stale
 * answer.  s->idx is NONE when no state the name had before e matches.
 */
static void best_source(const struct sgroup *g, const struct dt_event *e,
			struct source *s)
{
	size_t p = began_by(g, e->end_ns < e->start_ns ? e->start_ns :
			    e->end_ns);

	*s = (struct source){ .idx = NONE, .dl_by = NONE };
	if (e->result == -ENOENT) {
		/* absent before the history, or it is unknown */
		consider(g, s, INIT);
		if (p)
			consider(g, s, g->pm_rm[p - 1]);
		return;
	}
	if (g->init_unknown)
		consider(g, s, INIT);
	if (!p)
		return;
	if (!e->fileid) {
		consider(g, s, g->pm_add[p - 1]);
		return;
	}
	consider(g, s, g->pm_wild[p - 1]);
	consider(g, s, fent_best(g, e->fileid, dt_ev_end(e)));
}

static void describe_unexplained(struct dt_judge *c, const struct sgroup *g,
				 size_t i)
{
	const struct dt_event *e = &c->h->ev[i];
	struct dt_verdict *v = c->v;
	size_t p = began_by(g, dt_ev_end(e));
	char a[DT_EVLEN], b[DT_EVLEN];

	dt_say(v->observed, "%s", dt_judge_evdesc(c, i, b, sizeof(b)));
	if (!p || !g->nadd) {
		dt_say(v->what, "found before creation: %s", g->name);
		if (g->nadd)
			dt_say(v->expected, "ENOENT: absent until %s",
			    dt_judge_evdesc(c, g->mut[g->first_add].ev, a, sizeof(a)));
		else
			dt_say(v->expected, "ENOENT: nothing creates %s",
			    g->name);
		return;
	}
	if (g->pm_add[p - 1] == NONE) {
		dt_say(v->what, "found before creation: %s", g->name);
		dt_say(v->expected, "ENOENT: absent until %s",
		    dt_judge_evdesc(c, g->mut[g->first_add].ev, a, sizeof(a)));
		return;
	}
	dt_say(v->what, "fileid mismatch: %s found as a file it never named",
	    g->name);
	dt_say(v->expected, "fileid %" PRIu64 " (%s)",
	    g->mut[g->pm_add[p - 1]].fileid,
	    dt_judge_evdesc(c, g->mut[g->pm_add[p - 1]].ev, a, sizeof(a)));
}

static void judge_reads(struct dt_judge *c, const struct sgroup *g,
			const struct srefs *R, size_t a, size_t b,
			uint64_t bound, struct dt_stale_stats *st)
{
	struct dt_verdict *v = c->v;
	char x[DT_EVLEN], y[DT_EVLEN], rb[16], d1[32], d2[32];

	for (size_t i = a; i < b; i++) {
		const struct dt_event *e;
		struct source s;
		uint64_t need;

		if (R->r[i].kind != S_READ)
			continue;
		e = &c->h->ev[R->r[i].ev];
		st->reads++;
		if (e->result && e->result != -ENOENT) {
			if (!dt_judge_flag(c, R->r[i].ev))
				continue;
			dt_say(v->what, "%s of %s returned %s",
			    dt_op_name((enum dt_opcode)e->op), e->name,
			    dt_resname(e->result, rb, sizeof(rb)));
			dt_say(v->expected, "0 or ENOENT: the only answers a path lookup may give");
			dt_say(v->observed, "%s",
			    dt_judge_evdesc(c, R->r[i].ev, y, sizeof(y)));
			continue;
		}
		best_source(g, e, &s);
		if (s.idx == NONE) {
			if (dt_judge_flag(c, R->r[i].ev))
				describe_unexplained(c, g, R->r[i].ev);
			continue;
		}
		need = e->start_ns > s.dl ? e->start_ns - s.dl : 0;
		if (!need)
			continue;
		st->stale_reads++;
		if (need > st->stale_max_ns)
			st->stale_max_ns = need;
		if (need <= bound || !dt_judge_flag(c, R->r[i].ev))
			continue;
		dt_say(v->what, "stale: %s of %s = %s began %s after the change that replaced that state returned (bound %s)",
		    dt_op_name((enum dt_opcode)e->op), e->name,
		    dt_resname(e->result, rb, sizeof(rb)),
		    dur(need, d1, sizeof(d1)), dur(bound, d2, sizeof(d2)));
		dt_say(v->expected, "%s since %s",
		    g->mut[s.dl_by].add ? "found" : "ENOENT",
		    dt_judge_evdesc(c, g->mut[s.dl_by].ev, x, sizeof(x)));
		dt_say(v->observed, "%s", dt_judge_evdesc(c, R->r[i].ev, y, sizeof(y)));
	}
}

static int swins_push(struct swins *W, const struct swin *w)
{
	if (W->n == W->cap) {
		size_t cap = W->cap ? W->cap * 2 : 256;
		struct swin *p = realloc(W->w, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		W->w = p;
		W->cap = cap;
	}
	W->w[W->n++] = *w;
	return 0;
}

/* did read r see the state mutation m left? */
static bool sees(const struct smut *m, const struct sread *r)
{
	if (!m->add)
		return r->result == -ENOENT;
	return !r->result && (!m->fileid || !r->fileid ||
			      m->fileid == r->fileid);
}

/*
 * The windows of the changes of this name: per observer, its reads from
 * the change on (and the one still running when it began), up to the
 * name's next mutation; the first that saw the new state closes the window.
 */
static int measure_windows(const struct dt_judge *c, struct sgroup *g,
			   const struct srefs *R, size_t a, size_t b,
			   int change_op, struct swins *W)
{
	size_t i, k;

	g->nr = 0;
	for (i = a; i < b; i++) {
		const struct dt_event *e = &c->h->ev[R->r[i].ev];

		if (R->r[i].kind == S_READ)
			g->rd[g->nr++] = (struct sread){
				.who = who_of(e), .start = e->start_ns,
				.end = dt_ev_end(e), .fileid = e->fileid,
				.result = e->result, .ev = R->r[i].ev,
			};
	}
	dt_sort_n(g->rd, g->nr, sizeof(*g->rd), sread_cmp);

	for (k = 0; k < g->nm; k++) {
		const struct smut *m = &g->mut[k];
		const struct dt_event *ce = &c->h->ev[m->ev];
		uint64_t next = k + 1 < g->nm ? g->mut[k + 1].start : FOREVER;
		uint32_t maker = who_of(ce);
		size_t r0, r1;

		if (change_op != DT_OP__COUNT && ce->op != change_op)
			continue;
		for (r0 = 0; r0 < g->nr; r0 = r1) {
			struct swin w = { .ev = m->ev, .who = g->rd[r0].who };
			uint64_t old_end = 0;
			size_t lo = r0, hi;

			for (r1 = r0 + 1; r1 < g->nr && g->rd[r1].who == w.who;
			     r1++)
				;
			if (w.who == maker)
				continue;
			/* the observer's first read that began at the change */
			hi = r1;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (g->rd[mid].start < m->start)
					lo = mid + 1;
				else
					hi = mid;
			}
			/* ... or still ran when it began */
			while (lo > r0 && g->rd[lo - 1].end >= m->start)
				lo--;
			if (lo == r1 || g->rd[lo].start >= next)
				continue;
			for (i = lo; i < r1 && g->rd[i].start < next; i++) {
				const struct sread *r = &g->rd[i];

				if (sees(m, r)) {
					w.converged = true;
					w.hi = r->start > m->end ?
					       r->start - m->end : 0;
					break;
				}
				if ((!r->result || r->result == -ENOENT) &&
				    r->end > old_end)
					old_end = r->end;
			}
			w.lo = old_end > m->end ? old_end - m->end : 0;
			if (w.converged && w.lo > w.hi)
				w.lo = w.hi;
			if (swins_push(W, &w))
				return -ENOMEM;
		}
	}
	return 0;
}

/* per (change, observer): a rename's window is its slower name's */
static int summarise(struct swins *W, struct dt_stale_stats *st)
{
	uint64_t *hi, *lo;
	size_t i, j, nhi = 0, nlo = 0;

	dt_sort_n(W->w, W->n, sizeof(*W->w), swin_cmp);
	hi = malloc((W->n ? W->n : 1) * sizeof(*hi));
	lo = malloc((W->n ? W->n : 1) * sizeof(*lo));
	if (!hi || !lo) {
		free(hi);
		free(lo);
		return -ENOMEM;
	}
	for (i = 0; i < W->n; i = j) {
		struct swin m = W->w[i];

		for (j = i + 1; j < W->n && W->w[j].ev == m.ev &&
		     W->w[j].who == m.who; j++) {
			m.converged = m.converged && W->w[j].converged;
			if (W->w[j].hi > m.hi)
				m.hi = W->w[j].hi;
			if (W->w[j].lo > m.lo)
				m.lo = W->w[j].lo;
		}
		st->windows++;
		if (m.converged)
			hi[nhi++] = m.hi;
		else
			st->unconverged++;
		lo[nlo++] = m.lo;
	}
	dt_sort_n(hi, nhi, sizeof(*hi), u64_cmp);
	dt_sort_n(lo, nlo, sizeof(*lo), u64_cmp);
	if (nhi) {
		st->win_p50_ns = hi[(nhi - 1) / 2];
		st->win_max_ns = hi[nhi - 1];
	}
	if (nlo) {
		st->low_p50_ns = lo[(nlo - 1) / 2];
		st->low_max_ns = lo[nlo - 1];
	}
	free(hi);
	free(lo);
	return 0;
}

static void sgroup_free(struct sgroup *g)
{
	free(g->mut);
	free(g->sufend);
	free(g->sufidx);
	free(g->pm_rm);
	free(g->pm_add);
	free(g->pm_wild);
	free(g->fent);
	free(g->rd);
}

static int sgroup_alloc(struct sgroup *g, size_t n)
{
	memset(g, 0, sizeof(*g));
	if (!n)
		n = 1;
	g->mut = malloc(n * sizeof(*g->mut));
	g->sufend = malloc(n * sizeof(*g->sufend));
	g->sufidx = malloc(n * sizeof(*g->sufidx));
	g->pm_rm = malloc(n * sizeof(*g->pm_rm));
	g->pm_add = malloc(n * sizeof(*g->pm_add));
	g->pm_wild = malloc(n * sizeof(*g->pm_wild));
	g->fent = malloc(n * sizeof(*g->fent));
	g->rd = malloc(n * sizeof(*g->rd));
	if (!g->mut || !g->sufend || !g->sufidx || !g->pm_rm || !g->pm_add ||
	    !g->pm_wild || !g->fent || !g->rd) {
		sgroup_free(g);
		return -ENOMEM;
	}
	return 0;
}

int dt_oracle_staleness(const struct dt_history *h, uint64_t bound_ns,
			int change_op, struct dt_verdict *v,
			struct dt_stale_stats *st)
{
	struct dt_verdict vscratch;
	struct dt_stale_stats sscratch;
	struct srefs R = { 0 };
	struct dt_pathset moved = { 0 };
	struct swins W = { 0 };
	struct sgroup g;
	size_t a, b, biggest = 0;
	struct dt_judge c;
	int err;

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &vscratch;
	if (!st)
		st = &sscratch;
	memset(st, 0, sizeof(*st));
	dt_judge_init(&c, h, v);
	err = collect(h, &R, &moved);
	if (!err)
		err = resolve_moves(&R);
	for (a = 0; a < R.n && !err; a = b) {
		for (b = a + 1; b < R.n && !strcmp(R.r[b].name, R.r[a].name);
		     b++)
			;
		if (b - a > biggest)
			biggest = b - a;
	}
	if (!err)
		err = sgroup_alloc(&g, biggest);
	if (err) {
		free(R.r);
		dt_pathset_free(&moved);
		return dt_judge_oom(&c);
	}

	for (a = 0; a < R.n && !err; a = b) {
		for (b = a + 1; b < R.n && !strcmp(R.r[b].name, R.r[a].name);
		     b++)
			;
		/* unjudged: never mutated, or changed by a parent's rename */
		group_build(&g, &R, a, b);
		if (!g.nm || dt_pathset_covers(&moved, g.name))
			continue;
		judge_reads(&c, &g, &R, a, b, bound_ns, st);
		err = measure_windows(&c, &g, &R, a, b, change_op, &W);
	}
	if (!err)
		err = summarise(&W, st);
	sgroup_free(&g);
	free(W.w);
	free(R.r);
	dt_pathset_free(&moved);
	if (err)
		return dt_judge_oom(&c);
	return v->violations;
}
