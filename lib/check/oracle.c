/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Oracles: judge a recorded history against POSIX directory semantics.
 *
 * The model.  A name is a register whose value is "absent" or "present with
 * fileid F".  Only successful mutations write it: CREATE, MKDIR, LINK to it
 * and RENAME to it write "present"; UNLINK, RMDIR and RENAME away from it
 * write "absent".  Each op took effect at one instant inside its
 * [start_ns, end_ns], and we do not know which.  A read over [s, e] (a
 * LOOKUP, an OPEN, one entry of a READDIR) may legitimately see the value
 * written by mutation M iff
 *
 *   - M may have taken effect before the read did:  M.start <= e, and
 *   - no other mutation surely took effect after M and before the read
 *     began: there is no M' with M'.start > M.end and M'.end < s.
 *
 * The value from before any mutation is visible iff no mutation ended
 * before s.  For a create C followed by an unlink U that do not overlap this
 * is exactly "maybe present over [C.start, U.end], surely present over
 * [C.end, U.start]"; it also gives overlapping mutations (racing creates,
 * rename over an existing name) the benefit of every possible order, so a
 * flagged read is one that no ordering of the recorded intervals explains.
 *
 * The value before the history: absent, unless the history shows the name
 * existed first (a successful removal or an EEXIST that may have happened
 * before every create ended); then it is unknown and explains anything.
 * Tests must therefore record their setup (dt_setup_worker): a name made by
 * an unrecorded call and recreated later would look "found before creation".
 *
 * Clocks.  Comparisons use the raw timestamps.  That is sound for events of
 * one host.  Across hosts it is only as good as clock agreement, and a
 * kernel client may legitimately answer from its caches for as long as its
 * mount options allow; such histories need a slack these calls do not take.
 *
 * Cost: every oracle sorts what it needs once (O(n log n)) and answers each
 * read with a few binary searches, however long the ops took.
 *
 * Not modelled, so tests must not rely on them: OPEN with O_CREAT (recorded
 * as an OPEN, judged as a lookup), rename between two hard links of one
 * file (POSIX: a no-op; judged as a move).
 *
 * Out of memory: the oracle returns -ENOMEM and still reports one violation,
 * so that a caller looking only at v->violations cannot mistake "could not
 * judge" for "consistent".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/oracle.h"
#include "base/errname.h"
#include "check/oracle_util.h"

/* ---- name registers ---------------------------------------------------- */

enum ref_kind {
	K_ADD,		/* a successful mutation that makes the name present */
	K_REMOVE,	/* a successful mutation that makes it absent */
	K_EXISTS,	/* a failure that proves the name existed (EEXIST) */
	K_OBSERVE,	/* a read to judge */
};

struct lref {
	const char *name;	/* key: a path, or a bare child name */
	uint64_t start;
	size_t ev;
	uint64_t fileid;	/* K_ADD: the file now named, 0 = unknown */
	int kind;
};

struct refs {
	struct lref *r;
	size_t n, cap;
};

static int refs_push(struct refs *R, const char *name, size_t ev,
		     const struct dt_event *e, int kind, uint64_t fileid)
{
	if (!name || !*name)
		return 0;
	if (R->n == R->cap) {
		size_t cap = R->cap ? R->cap * 2 : 1024;
		struct lref *r = realloc(R->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		R->r = r;
		R->cap = cap;
	}
	R->r[R->n++] = (struct lref){
		.name = name, .start = e->start_ns, .ev = ev,
		.fileid = fileid, .kind = kind,
	};
	return 0;
}

static int lref_cmp(const void *a, const void *b)
{
	const struct lref *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->kind - y->kind;
}

struct mut {
	uint64_t start, end, fileid;
	size_t ev;
	bool add;
};

#define NONE SIZE_MAX

struct life {
	const char *name;
	size_t m, nm;		/* ls->mut[m .. m + nm), sorted by start */
	size_t f, nf;		/* ls->fent[f .. f + nf): adds with a fileid */
	size_t o, no;		/* ls->obs[o .. o + no), event indexes */
	size_t nadd;
	size_t first_add;	/* index into ls->mut of the earliest add */
	bool init_unknown;	/* existed before the history, maybe */
};

/* an add that names a known fileid, for "was it this file?" queries */
struct fent {
	uint64_t fileid, start;
	size_t idx;		/* into ls->mut */
	size_t best;		/* latest-ending add of fileid up to here */
};

/*
 * Per-mutation indexes, aligned with ls->mut.  A read over [s, e] has as
 * candidates the mutations with start <= e and end >= T, where T is the
 * latest start among the mutations that ended before s.  With mutations
 * sorted by start, "start <= e" is a prefix; "some candidate is a removal"
 * is then "the latest-ending removal of that prefix ends at or after T".
 * Every read costs a few binary searches, whatever the op durations: one
 * op that hung for seconds must not make the oracle quadratic.
 */
struct lifeset {
	struct life *life;
	size_t nlife;
	struct mut *mut;
	size_t nmut;
	uint64_t *ends;		/* per life: mutation ends, ascending */
	size_t *tmax;		/* ... latest-starting of the k+1 first ends */
	size_t *pm_add;		/* latest-ending add among mut[m .. k] */
	size_t *pm_rm;		/* latest-ending removal among mut[m .. k] */
	size_t *pm_wild;	/* latest-ending add of unknown fileid */
	struct fent *fent;
	size_t nfent;
	size_t *obs;
	size_t nobs;
};

static void lifeset_free(struct lifeset *ls)
{
	free(ls->life);
	free(ls->mut);
	free(ls->ends);
	free(ls->tmax);
	free(ls->pm_add);
	free(ls->pm_rm);
	free(ls->pm_wild);
	free(ls->fent);
	free(ls->obs);
	memset(ls, 0, sizeof(*ls));
}

struct endkey {
	uint64_t end;
	size_t idx;
};

static int endkey_cmp(const void *a, const void *b)
{
	const struct endkey *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int fent_cmp(const void *a, const void *b)
{
	const struct fent *x = a, *y = b;

	if (x->fileid != y->fileid)
		return x->fileid < y->fileid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* the later-ending of two mutation indexes (NONE loses) */
static size_t later_end(const struct lifeset *ls, size_t a, size_t b)
{
	if (a == NONE)
		return b;
	if (b == NONE)
		return a;
	return ls->mut[b].end > ls->mut[a].end ? b : a;
}

static void life_index(struct lifeset *ls, struct life *L, struct endkey *tmp)
{
	size_t k, best = 0, ra = NONE, rr = NONE, rw = NONE;

	for (k = 0; k < L->nm; k++) {
		tmp[k].end = ls->mut[L->m + k].end;
		tmp[k].idx = L->m + k;
	}
	dt_sort_n(tmp, L->nm, sizeof(*tmp), endkey_cmp);
	for (k = 0; k < L->nm; k++) {
		size_t idx = tmp[k].idx;

		if (!k || ls->mut[idx].start > ls->mut[best].start)
			best = idx;
		ls->ends[L->m + k] = tmp[k].end;
		ls->tmax[L->m + k] = best;
	}

	L->f = ls->nfent;
	for (k = L->m; k < L->m + L->nm; k++) {
		const struct mut *mu = &ls->mut[k];

		if (mu->add) {
			ra = later_end(ls, ra, k);
			if (!mu->fileid)
				rw = later_end(ls, rw, k);
			else
				ls->fent[ls->nfent++] = (struct fent){
					.fileid = mu->fileid,
					.start = mu->start, .idx = k,
				};
		} else {
			rr = later_end(ls, rr, k);
		}
		ls->pm_add[k] = ra;
		ls->pm_rm[k] = rr;
		ls->pm_wild[k] = rw;
	}
	L->nf = ls->nfent - L->f;
	dt_sort_n(ls->fent + L->f, L->nf, sizeof(*ls->fent), fent_cmp);
	for (k = L->f; k < L->f + L->nf; k++) {
		struct fent *fe = &ls->fent[k];

		fe->best = k > L->f && ls->fent[k - 1].fileid == fe->fileid ?
			   later_end(ls, ls->fent[k - 1].best, fe->idx) :
			   fe->idx;
	}
}

/* r[] must be sorted by lref_cmp */
static int lifeset_build(struct lifeset *ls, const struct dt_history *h,
			 const struct lref *r, size_t n)
{
	struct endkey *tmp;
	size_t a, b, i;

	memset(ls, 0, sizeof(*ls));
	if (!n)
		return 0;
	ls->life = malloc(n * sizeof(*ls->life));
	ls->mut = malloc(n * sizeof(*ls->mut));
	ls->ends = malloc(n * sizeof(*ls->ends));
	ls->tmax = malloc(n * sizeof(*ls->tmax));
	ls->pm_add = malloc(n * sizeof(*ls->pm_add));
	ls->pm_rm = malloc(n * sizeof(*ls->pm_rm));
	ls->pm_wild = malloc(n * sizeof(*ls->pm_wild));
	ls->fent = malloc(n * sizeof(*ls->fent));
	ls->obs = malloc(n * sizeof(*ls->obs));
	tmp = malloc(n * sizeof(*tmp));
	if (!ls->life || !ls->mut || !ls->ends || !ls->tmax || !ls->pm_add ||
	    !ls->pm_rm || !ls->pm_wild || !ls->fent || !ls->obs || !tmp) {
		free(tmp);
		lifeset_free(ls);
		return -ENOMEM;
	}

	for (a = 0; a < n; a = b) {
		struct life *L = &ls->life[ls->nlife++];
		uint64_t min_add_end = UINT64_MAX, min_proof = UINT64_MAX;

		for (b = a + 1; b < n && !strcmp(r[b].name, r[a].name); b++)
			;
		memset(L, 0, sizeof(*L));
		L->name = r[a].name;
		L->m = ls->nmut;
		L->o = ls->nobs;
		for (i = a; i < b; i++) {
			const struct dt_event *e = &h->ev[r[i].ev];
			struct mut *m;

			switch (r[i].kind) {
			case K_ADD:
			case K_REMOVE:
				m = &ls->mut[ls->nmut++];
				m->start = e->start_ns;
				m->end = dt_ev_end(e);
				m->fileid = r[i].fileid;
				m->ev = r[i].ev;
				m->add = r[i].kind == K_ADD;
				if (m->add) {
					if (!L->nadd++)
						L->first_add = ls->nmut - 1;
					if (m->end < min_add_end)
						min_add_end = m->end;
				} else if (m->start < min_proof) {
					min_proof = m->start;
				}
				break;
			case K_EXISTS:
				if (e->start_ns < min_proof)
					min_proof = e->start_ns;
				break;
			case K_OBSERVE:
				ls->obs[ls->nobs++] = r[i].ev;
				break;
			}
		}
		L->nm = ls->nmut - L->m;
		L->no = ls->nobs - L->o;
		/* existed before every create could have happened */
		L->init_unknown = min_proof != UINT64_MAX &&
				  min_proof <= min_add_end;
		life_index(ls, L, tmp);
	}
	free(tmp);
	return 0;
}

struct seen {
	bool absent;		/* some instant in [s,e] may have had no name */
	bool present;		/* some instant may have had the name */
	bool fid_ok;		/* ... with the fileid asked about */
	size_t add;		/* a candidate add (mut index), for messages */
	size_t last;		/* latest-starting mutation ended before s */
	bool has_add, has_last;
};

/* is mutation idx (NONE: none) a candidate, i.e. did it end at or after T */
static bool cand(const struct lifeset *ls, size_t idx, uint64_t T)
{
	return idx != NONE && ls->mut[idx].end >= T;
}

/* What a read of L over [s, e] may legitimately see; fid 0 = any fileid */
static void life_query(const struct lifeset *ls, const struct life *L,
		       uint64_t s, uint64_t e, uint64_t fid, struct seen *q)
{
	const struct mut *m = ls->mut + L->m;
	const uint64_t *ends = ls->ends + L->m;
	size_t lo = 0, hi = L->nm, p;
	uint64_t T = 0;

	memset(q, 0, sizeof(*q));
	/* how many mutations surely happened before the read began */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ends[mid] < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {
		/* none: the value from before the history is visible */
		q->absent = true;
		if (L->init_unknown)
			q->present = q->fid_ok = true;
	} else {
		q->last = ls->tmax[L->m + lo - 1];
		q->has_last = true;
		T = ls->mut[q->last].start;
	}

	/* p = how many mutations may have happened before the read ended */
	lo = 0;
	hi = L->nm;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m[mid].start <= e)
			lo = mid + 1;
		else
			hi = mid;
	}
	p = lo;
	if (!p)
		return;
	p += L->m - 1;		/* the prefix's last mutation, in ls->mut */
	if (cand(ls, ls->pm_rm[p], T))
		q->absent = true;
	if (cand(ls, ls->pm_add[p], T)) {
		q->present = true;
		q->has_add = true;
		q->add = ls->pm_add[p];
		if (!fid || cand(ls, ls->pm_wild[p], T)) {
			q->fid_ok = true;
		} else {
			const struct fent *fe = ls->fent + L->f;

			/* entries of fileid fid that may precede e */
			lo = 0;
			hi = L->nf;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (fe[mid].fileid < fid ||
				    (fe[mid].fileid == fid &&
				     fe[mid].start <= e))
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo && fe[lo - 1].fileid == fid &&
			    cand(ls, fe[lo - 1].best, T))
				q->fid_ok = true;
		}
	}
}

static const struct life *life_find(const struct lifeset *ls,
				    const char *name)
{
	size_t lo = 0, hi = ls->nlife;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(name, ls->life[mid].name);

		if (!r)
			return &ls->life[mid];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/*
 * Judge one LOOKUP/OPEN against its name's register.  chain selects the
 * rename-chain wording: there the name is a place one file passes through.
 */
static void judge_read(struct dt_judge *c, const struct lifeset *ls,
		       const struct life *L, size_t i, bool chain)
{
	const struct dt_event *e = &c->h->ev[i];
	struct dt_verdict *v = c->v;
	uint64_t s = e->start_ns, end = dt_ev_end(e);
	char a[DT_EVLEN], b[DT_EVLEN];
	struct seen q;

	if (e->result == 0) {
		life_query(ls, L, s, end, e->fileid, &q);
		if (!q.present) {
			if (!dt_judge_flag(c, i))
				return;
			dt_say(v->observed, "%s", dt_judge_evdesc(c, i, b, sizeof(b)));
			if (q.has_last) {
				dt_say(v->what, chain ?
				    "two names: %s found after the file had left it" :
				    "found after removal: %s",
				    e->name);
				dt_say(v->expected, "absent since %s",
				    dt_judge_evdesc(c, ls->mut[q.last].ev, a, sizeof(a)));
			} else if (L->nadd) {
				dt_say(v->what, chain ?
				    "two names: %s found before the file arrived there" :
				    "found before creation: %s",
				    e->name);
				dt_say(v->expected, "absent until %s",
				    dt_judge_evdesc(c, ls->mut[L->first_add].ev, a,
					   sizeof(a)));
			} else {
				dt_say(v->what, chain ?
				    "ghost: %s found, the file never was there" :
				    "found a name never created: %s",
				    e->name);
				dt_say(v->expected, chain ?
				    "ENOENT: the file never reached %s" :
				    "ENOENT: nothing in the history creates %s",
				    e->name);
			}
		} else if (!q.fid_ok) {
			if (!dt_judge_flag(c, i))
				return;
			dt_say(v->what, "fileid mismatch: %s found as a file it never named",
			    e->name);
			dt_say(v->expected, "fileid %" PRIu64 " (%s)",
			    ls->mut[q.add].fileid,
			    dt_judge_evdesc(c, ls->mut[q.add].ev, a, sizeof(a)));
			dt_say(v->observed, "%s", dt_judge_evdesc(c, i, b, sizeof(b)));
		}
	} else if (e->result == -ENOENT) {
		life_query(ls, L, s, end, 0, &q);
		if (!q.absent && dt_judge_flag(c, i)) {
			dt_say(v->what, chain ?
			    "lost: ENOENT for %s while the file was surely there" :
			    "lost: ENOENT for %s while it surely existed",
			    e->name);
			if (q.has_add)
				dt_say(v->expected, "found: present since %s",
				    dt_judge_evdesc(c, ls->mut[q.add].ev, a, sizeof(a)));
			else
				dt_say(v->expected, "found");
			dt_say(v->observed, "%s", dt_judge_evdesc(c, i, b, sizeof(b)));
		}
	} else if (dt_judge_flag(c, i)) {
		char rb[16];

		dt_say(v->what, "%s of %s returned %s",
		    dt_op_name((enum dt_opcode)e->op), e->name,
		    dt_resname(e->result, rb, sizeof(rb)));
		dt_say(v->expected, "0 or ENOENT: the only answers a path lookup may give");
		dt_say(v->observed, "%s", dt_judge_evdesc(c, i, b, sizeof(b)));
	}
}

/* ---- dt_oracle_same_answer ---------------------------------------------- */

struct answer {
	int32_t result;
	uint64_t fileid;
	size_t ev;
};

static int answer_cmp(const void *a, const void *b)
{
	const struct answer *x = a, *y = b;

	if (x->result != y->result)
		return x->result < y->result ? -1 : 1;
	if (x->fileid != y->fileid)
		return x->fileid < y->fileid ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* fileid 0 on a success means "backend could not say": agrees with any */
static bool same(const struct answer *x, const struct answer *y)
{
	if (x->result != y->result)
		return false;
	return x->result || !x->fileid || !y->fileid || x->fileid == y->fileid;
}

int dt_oracle_same_answer(const struct dt_history *h, const char *name,
			  struct dt_verdict *v)
{
	struct dt_verdict scratch;
	struct answer *ans, *maj = NULL;
	size_t i, n = 0, best = 0, run = 1, nlook = 0;
	struct dt_judge c;
	char a[DT_EVLEN], b[DT_EVLEN];

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &scratch;
	dt_judge_init(&c, h, v);
	for (i = 0; i < h->n; i++)
		if (h->ev[i].op == DT_OP_LOOKUP && !strcmp(h->ev[i].name, name))
			nlook++;
	if (!nlook) {
		/* an oracle that judged nothing must not read as a pass */
		dt_judge_flag(&c, DT_NO_EVENT);
		dt_say(v->what, "no LOOKUP of %s in the history", name);
		dt_say(v->expected, "lookups to compare");
		dt_say(v->observed, "none (wrong name passed to the oracle?)");
		return v->violations;
	}
	ans = malloc(nlook * sizeof(*ans));
	if (!ans)
		return dt_judge_oom(&c);
	for (i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		if (e->op == DT_OP_LOOKUP && !strcmp(e->name, name))
			ans[n++] = (struct answer){
				.result = e->result,
				.fileid = e->result ? 0 : e->fileid,
				.ev = i,
			};
	}

	/*
	 * The reference is the most common answer, not the first: when one
	 * of ten lookups is wrong, that one is the violation, whichever
	 * thread happened to start first.  Vote on the result, then (for
	 * successes) on the fileid among those that know it.  Ties go to
	 * the earliest event.
	 */
	dt_sort_n(ans, n, sizeof(*ans), answer_cmp);
	for (i = 0; i < n; i += run) {
		size_t first = ans[i].ev, k;

		for (run = 1; i + run < n &&
		     ans[i + run].result == ans[i].result; run++)
			;
		for (k = i; k < i + run; k++)
			if (ans[k].ev < first)
				first = ans[k].ev;
		if (!maj || run > best || (run == best && first < maj->ev)) {
			maj = &ans[i];
			best = run;
		}
	}
	if (!maj->result) {
		size_t lo = (size_t)(maj - ans), hi = lo + best;

		best = 0;
		for (i = lo; i < hi; i += run) {
			for (run = 1; i + run < hi &&
			     ans[i + run].fileid == ans[i].fileid; run++)
				;
			/* sorted by ev within a fileid: ans[i] is first */
			if (!ans[i].fileid)
				continue;
			if (!best || run > best || (run == best &&
			    ans[i].ev < maj->ev)) {
				maj = &ans[i];
				best = run;
			}
		}
	}
	for (best = 0, i = 0; i < n; i++)
		best += same(&ans[i], maj);

	for (i = 0; i < n; i++) {
		if (same(&ans[i], maj))
			continue;
		if (!dt_judge_flag(&c, ans[i].ev))
			continue;
		dt_say(v->what, "lookups of %s disagree", name);
		dt_say(v->expected, "like %zu of %zu lookups, e.g. %s", best, n,
		    dt_judge_evdesc(&c, maj->ev, a, sizeof(a)));
		dt_say(v->observed, "%s", dt_judge_evdesc(&c, ans[i].ev, b, sizeof(b)));
	}
	free(ans);
	return v->violations;
}

/* ---- dt_oracle_one_winner ----------------------------------------------- */

static bool allowed_has(const int *allowed, int err)
{
	for (; allowed && *allowed; allowed++)
		if (*allowed == err)
			return true;
	return false;
}

static void allowed_str(const int *allowed, char *buf, size_t len)
{
	size_t off = 0;
	char rb[16];

	buf[0] = '\0';
	for (; allowed && *allowed && off < len; allowed++) {
		int k = snprintf(buf + off, len - off, "%s%s", off ? "|" : "",
				 dt_resname(-*allowed, rb, sizeof(rb)));
		if (k < 0)
			break;
		off += (size_t)k;
	}
}

int dt_oracle_one_winner(const struct dt_history *h, enum dt_opcode op,
			 const char *name, const int *allowed,
			 struct dt_verdict *v)
{
	struct dt_verdict scratch;
	size_t i, nev = 0, winners = 0, first = 0, first_win = 0;
	struct dt_judge c;
	char a[DT_EVLEN], b[DT_EVLEN], al[128];

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &scratch;
	dt_judge_init(&c, h, v);
	allowed_str(allowed, al, sizeof(al));
	for (i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];
		/* a link and a rename that may not replace (RENAME_NOREPLACE)
		   contend for their new name, everything else for name */
		const char *key = op == DT_OP_LINK ||
				  (op == DT_OP_RENAME &&
				   (e->flags & DT_EVF_NOREPLACE)) ?
				  e->name2 : e->name;

		if (e->op != op || strcmp(key, name))
			continue;
		if (!nev++)
			first = i;
		if (e->result == 0) {
			if (!winners++) {
				first_win = i;
				continue;
			}
			if (dt_judge_flag(&c, i)) {
				dt_say(v->what, "two winners: %s of %s succeeded twice",
				    dt_op_name(op), name);
				dt_say(v->expected, "only %s",
				    dt_judge_evdesc(&c, first_win, a, sizeof(a)));
				dt_say(v->observed, "%s", dt_judge_evdesc(&c, i, b, sizeof(b)));
			}
		} else if ((e->result > 0 ||
			    !allowed_has(allowed, -e->result)) &&
			   dt_judge_flag(&c, i)) {
			dt_say(v->what, "a loser of the %s race on %s failed wrongly",
			    dt_op_name(op), name);
			dt_say(v->expected, al[0] ? "0 or %s" : "0%s", al);
			dt_say(v->observed, "%s", dt_judge_evdesc(&c, i, b, sizeof(b)));
		}
	}
	if (!nev) {
		dt_judge_flag(&c, DT_NO_EVENT);
		dt_say(v->what, "no winner: no %s of %s in the history",
		    dt_op_name(op), name);
		dt_say(v->expected, "one successful %s", dt_op_name(op));
		dt_say(v->observed, "no such event (wrong name passed to the oracle?)");
	} else if (!winners && dt_judge_flag(&c, first)) {
		dt_say(v->what, "no winner: all %zu %s calls on %s failed", nev,
		    dt_op_name(op), name);
		dt_say(v->expected, "exactly one of them returns 0");
		dt_say(v->observed, "first: %s", dt_judge_evdesc(&c, first, b, sizeof(b)));
	}
	return v->violations;
}

/* ---- dt_oracle_rename_chain --------------------------------------------- */

static bool chain_name(const char *name, const char *prefix, size_t plen)
{
	size_t k;

	if (strncmp(name, prefix, plen))
		return false;
	/* 1..9 digits and nothing after: f.1 is on the chain, f.1x is not */
	for (k = 0; name[plen + k]; k++)
		if (name[plen + k] < '0' || name[plen + k] > '9' || k >= 9)
			return false;
	return k > 0;
}

int dt_oracle_rename_chain(const struct dt_history *h, const char *prefix,
			   uint64_t fileid, struct dt_verdict *v)
{
	struct dt_verdict scratch;
	size_t plen = strlen(prefix), i, k, nchain = 0;
	struct refs R = { 0 };
	struct lifeset ls;
	struct dt_judge c;
	char b[DT_EVLEN];
	int err = 0;

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &scratch;
	dt_judge_init(&c, h, v);
	/* the file's identity: as given, else as its create saw it */
	for (i = 0; !fileid && i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		if (e->op == DT_OP_CREATE && !e->result && e->fileid &&
		    chain_name(e->name, prefix, plen) &&
		    strspn(e->name + plen, "0") == strlen(e->name + plen))
			fileid = e->fileid;
	}

	for (i = 0; i < h->n && !err; i++) {
		const struct dt_event *e = &h->ev[i];
		bool in1 = chain_name(e->name, prefix, plen);
		bool in2 = e->op == DT_OP_RENAME &&
			   chain_name(e->name2, prefix, plen);

		if (!in1 && !in2)
			continue;
		nchain++;
		switch (e->op) {
		case DT_OP_CREATE:
			if (!e->result)
				err = refs_push(&R, e->name, i, e, K_ADD,
						fileid);
			else if (e->result == -EEXIST)
				err = refs_push(&R, e->name, i, e, K_EXISTS, 0);
			break;
		case DT_OP_UNLINK:
			if (!e->result)
				err = refs_push(&R, e->name, i, e, K_REMOVE, 0);
			break;
		case DT_OP_RENAME:
			if (e->result) {
				if (dt_judge_flag(&c, i)) {
					dt_say(v->what, "the chain's rename failed");
					dt_say(v->expected, "0: the writer renames a file it alone moves");
					dt_say(v->observed, "%s",
					    dt_judge_evdesc(&c, i, b, sizeof(b)));
				}
				break;
			}
			if (!strcmp(e->name, e->name2))
				break;	/* POSIX: a no-op */
			if (in1)
				err = refs_push(&R, e->name, i, e, K_REMOVE, 0);
			if (in2 && !err)
				err = refs_push(&R, e->name2, i, e, K_ADD,
						fileid);
			break;
		case DT_OP_LOOKUP:
		case DT_OP_OPEN:
			err = refs_push(&R, e->name, i, e, K_OBSERVE, 0);
			break;
		default:
			break;
		}
	}
	if (err) {
		free(R.r);
		return dt_judge_oom(&c);
	}
	if (!nchain) {
		dt_judge_flag(&c, DT_NO_EVENT);
		dt_say(v->what, "no event on the chain %s<i> in the history", prefix);
		dt_say(v->expected, "a create of %s0 and renames along the chain",
		    prefix);
		dt_say(v->observed, "none (wrong prefix passed to the oracle?)");
		return v->violations;
	}

	dt_sort_n(R.r, R.n, sizeof(*R.r), lref_cmp);
	if (lifeset_build(&ls, h, R.r, R.n)) {
		free(R.r);
		return dt_judge_oom(&c);
	}
	for (i = 0; i < ls.nlife; i++) {
		const struct life *L = &ls.life[i];

		for (k = 0; k < L->no; k++)
			judge_read(&c, &ls, L, ls.obs[L->o + k], true);
	}
	lifeset_free(&ls);
	free(R.r);
	return v->violations;
}

/* ---- dt_oracle_name_lifetime -------------------------------------------- */

int dt_oracle_name_lifetime(const struct dt_history *h, struct dt_verdict *v)
{
	struct dt_verdict scratch;
	struct refs R = { 0 };
	struct dt_pathset M = { 0 };
	struct lifeset ls;
	struct dt_judge c;
	size_t i, k;
	int err = 0;

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &scratch;
	dt_judge_init(&c, h, v);
	for (i = 0; i < h->n && !err; i++) {
		const struct dt_event *e = &h->ev[i];

		switch (e->op) {
		case DT_OP_CREATE:
		case DT_OP_MKDIR:
			if (!e->result)
				err = refs_push(&R, e->name, i, e, K_ADD,
						e->fileid);
			else if (e->result == -EEXIST)
				err = refs_push(&R, e->name, i, e, K_EXISTS, 0);
			break;
		case DT_OP_UNLINK:
		case DT_OP_RMDIR:
			if (!e->result)
				err = refs_push(&R, e->name, i, e, K_REMOVE, 0);
			break;
		case DT_OP_LINK:
			/* the new name's fileid is the source's: unknown */
			if (!e->result)
				err = refs_push(&R, e->name2, i, e, K_ADD, 0);
			else if (e->result == -EEXIST)
				err = refs_push(&R, e->name2, i, e,
						K_EXISTS, 0);
			break;
		case DT_OP_RENAME:
			if (e->result == -EEXIST || e->result == -ENOTEMPTY)
				err = refs_push(&R, e->name2, i, e,
						K_EXISTS, 0);
			if (e->result || !strcmp(e->name, e->name2))
				break;
			err = refs_push(&R, e->name, i, e, K_REMOVE, 0);
			if (!err)
				err = refs_push(&R, e->name2, i, e, K_ADD, 0);
			if (!err)
				err = dt_pathset_push(&M, e->name);
			if (!err)
				err = dt_pathset_push(&M, e->name2);
			break;
		case DT_OP_LOOKUP:
		case DT_OP_OPEN:
			err = refs_push(&R, e->name, i, e, K_OBSERVE, 0);
			break;
		default:
			break;
		}
	}
	if (err)
		goto out_oom;

	dt_sort_n(R.r, R.n, sizeof(*R.r), lref_cmp);
	dt_pathset_sort(&M);
	if (lifeset_build(&ls, h, R.r, R.n))
		goto out_oom;
	for (i = 0; i < ls.nlife; i++) {
		const struct life *L = &ls.life[i];

		/* only names the history creates, and whose parents stay put */
		if (!L->nadd || !L->no || dt_pathset_covers(&M, L->name))
			continue;
		for (k = 0; k < L->no; k++)
			judge_read(&c, &ls, L, ls.obs[L->o + k], false);
	}
	lifeset_free(&ls);
	free(R.r);
	dt_pathset_free(&M);
	return v->violations;

out_oom:
	free(R.r);
	dt_pathset_free(&M);
	return dt_judge_oom(&c);
}

/* ---- dt_oracle_readdir -------------------------------------------------- */

/* the bare name if path is an entry directly inside dir, else NULL */
static const char *child_of(const char *path, const char *dir, size_t dlen)
{
	const char *rest;

	if (!dlen)
		rest = path;
	else if (!strncmp(path, dir, dlen) && path[dlen] == '/')
		rest = path + dlen + 1;
	else
		return NULL;
	if (!*rest || strchr(rest, '/'))
		return NULL;
	return rest;
}

/* dir is path or lies below it */
static bool is_ancestor_or_self(const char *path, const char *dir)
{
	size_t len = strlen(path);

	return len && !strncmp(dir, path, len) &&
	       (dir[len] == '\0' || dir[len] == '/');
}

static int dirent_cmp(const void *a, const void *b)
{
	const struct dt_dirent *x = *(const struct dt_dirent *const *)a;
	const struct dt_dirent *y = *(const struct dt_dirent *const *)b;

	return strcmp(x->name, y->name);
}

static bool listed(const struct dt_dirent **sorted, size_t n,
		   const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(name, sorted[mid]->name);

		if (!r)
			return true;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

static void judge_listing(struct dt_judge *c, const struct lifeset *ls,
			  const char *dname, size_t ri,
			  const struct dt_dirent **sorted, bool dir_moved)
{
	const struct dt_event *r = &c->h->ev[ri];
	const struct dt_dirlist *l = r->list;
	struct dt_verdict *v = c->v;
	uint64_t s = r->start_ns, e = dt_ev_end(r);
	char a[DT_EVLEN], b[DT_EVLEN];
	struct seen q;
	size_t k;

	for (k = 0; k < l->n; k++)
		sorted[k] = &l->ent[k];
	dt_sort_n(sorted, l->n, sizeof(*sorted), dirent_cmp);

	for (k = 0; k < l->n; k++) {
		const struct dt_dirent *d = sorted[k];
		const struct life *L;

		if (k && !strcmp(d->name, sorted[k - 1]->name)) {
			/*
			 * A name removed and created again during the listing
			 * is two entries, and a cookie-based listing may meet
			 * both: only a name that surely stayed one entry
			 * throughout must not come twice.
			 */
			L = life_find(ls, d->name);
			if (L && !dir_moved) {
				life_query(ls, L, s, e, 0, &q);
				if (q.absent)
					continue;
			}
			if (dt_judge_flag(c, ri)) {
				dt_say(v->what, "duplicate: readdir of %s listed %s twice",
				    dname, d->name);
				dt_say(v->expected, "each name once");
				dt_say(v->observed, "%s (fileids %" PRIu64 ", %" PRIu64 ")",
				    dt_judge_evdesc(c, ri, b, sizeof(b)),
				    sorted[k - 1]->fileid, d->fileid);
			}
			continue;
		}
		if (!strcmp(d->name, ".") || !strcmp(d->name, ".."))
			continue;
		if (dir_moved)
			continue;
		L = life_find(ls, d->name);
		if (!L || (!L->nm && !L->init_unknown)) {
			/*
			 * NFS clients keep unlinked-but-open files as
			 * .nfsXXXX ("silly rename"): real, and never created
			 * by name.
			 */
			if (!strncmp(d->name, ".nfs", 4))
				continue;
			if (dt_judge_flag(c, ri)) {
				dt_say(v->what, "invented: readdir of %s listed %s, which nothing created",
				    dname, d->name);
				dt_say(v->expected, "only names created in the history");
				dt_say(v->observed, "%s", dt_judge_evdesc(c, ri, b, sizeof(b)));
			}
			continue;
		}
		life_query(ls, L, s, e, d->fileid, &q);
		if (!q.present) {
			if (!dt_judge_flag(c, ri))
				continue;
			dt_say(v->what, "invented: readdir of %s listed %s while it did not exist",
			    dname, d->name);
			if (q.has_last)
				dt_say(v->expected, "not listed: removed by %s",
				    dt_judge_evdesc(c, ls->mut[q.last].ev, a, sizeof(a)));
			else
				dt_say(v->expected, "not listed: created later by %s",
				    dt_judge_evdesc(c, ls->mut[L->first_add].ev, a,
					   sizeof(a)));
			dt_say(v->observed, "%s", dt_judge_evdesc(c, ri, b, sizeof(b)));
		} else if (!q.fid_ok && dt_judge_flag(c, ri)) {
			dt_say(v->what, "fileid mismatch: readdir of %s listed %s with fileid %" PRIu64,
			    dname, d->name, d->fileid);
			dt_say(v->expected, "fileid %" PRIu64 " (%s)",
			    ls->mut[q.add].fileid,
			    dt_judge_evdesc(c, ls->mut[q.add].ev, a, sizeof(a)));
			dt_say(v->observed, "%s", dt_judge_evdesc(c, ri, b, sizeof(b)));
		}
	}
	if (dir_moved)
		return;

	for (k = 0; k < ls->nlife; k++) {
		const struct life *L = &ls->life[k];

		if (!L->nm)
			continue;
		life_query(ls, L, s, e, 0, &q);
		if (q.absent || listed(sorted, l->n, L->name))
			continue;
		if (dt_judge_flag(c, ri)) {
			dt_say(v->what, "missing: readdir of %s did not list %s, present throughout",
			    dname, L->name);
			dt_say(v->expected, "%s listed: present since %s", L->name,
			    dt_judge_evdesc(c, ls->mut[q.add].ev, a, sizeof(a)));
			dt_say(v->observed, "%s", dt_judge_evdesc(c, ri, b, sizeof(b)));
		}
	}
}

int dt_oracle_readdir(const struct dt_history *h, const char *dir,
		      struct dt_verdict *v)
{
	struct dt_verdict scratch;
	size_t dlen = strlen(dir), i, nrd = 0, maxlist = 0;
	const struct dt_dirent **sorted = NULL;
	struct refs R = { 0 };
	bool dir_moved = false;
	struct lifeset ls;
	struct dt_judge c;
	int err = 0;

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &scratch;
	dt_judge_init(&c, h, v);
	for (i = 0; i < h->n && !err; i++) {
		const struct dt_event *e = &h->ev[i];
		const char *c1 = child_of(e->name, dir, dlen);
		const char *c2 = child_of(e->name2, dir, dlen);

		switch (e->op) {
		case DT_OP_CREATE:
		case DT_OP_MKDIR:
			if (!e->result)
				err = refs_push(&R, c1, i, e, K_ADD, e->fileid);
			else if (e->result == -EEXIST)
				err = refs_push(&R, c1, i, e, K_EXISTS, 0);
			break;
		case DT_OP_UNLINK:
		case DT_OP_RMDIR:
			if (!e->result)
				err = refs_push(&R, c1, i, e, K_REMOVE, 0);
			break;
		case DT_OP_LINK:
			if (!e->result)
				err = refs_push(&R, c2, i, e, K_ADD, 0);
			else if (e->result == -EEXIST)
				err = refs_push(&R, c2, i, e, K_EXISTS, 0);
			break;
		case DT_OP_RENAME:
			if (e->result == -EEXIST || e->result == -ENOTEMPTY)
				err = refs_push(&R, c2, i, e, K_EXISTS, 0);
			if (e->result || !strcmp(e->name, e->name2))
				break;
			if (is_ancestor_or_self(e->name, dir) ||
			    is_ancestor_or_self(e->name2, dir))
				dir_moved = true;
			err = refs_push(&R, c1, i, e, K_REMOVE, 0);
			if (!err)
				err = refs_push(&R, c2, i, e, K_ADD, 0);
			break;
		case DT_OP_READDIR:
			if (strcmp(e->name, dir))
				break;
			nrd++;
			if (e->list && e->list->n > maxlist)
				maxlist = e->list->n;
			break;
		default:
			break;
		}
	}
	if (err) {
		free(R.r);
		return dt_judge_oom(&c);
	}
	if (!nrd) {
		dt_judge_flag(&c, DT_NO_EVENT);
		dt_say(v->what, "no READDIR of %s in the history", dir);
		dt_say(v->expected, "listings to judge");
		dt_say(v->observed, "none (wrong directory passed to the oracle?)");
		free(R.r);
		return v->violations;
	}

	dt_sort_n(R.r, R.n, sizeof(*R.r), lref_cmp);
	sorted = malloc((maxlist ? maxlist : 1) * sizeof(*sorted));
	if (!sorted || lifeset_build(&ls, h, R.r, R.n)) {
		free(sorted);
		free(R.r);
		return dt_judge_oom(&c);
	}
	for (i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		/* a failed or unrecorded listing says nothing about entries */
		if (e->op != DT_OP_READDIR || e->result < 0 || !e->list ||
		    strcmp(e->name, dir))
			continue;
		judge_listing(&c, &ls, *dir ? dir : "<root>", i, sorted,
			      dir_moved);
	}
	lifeset_free(&ls);
	free(sorted);
	free(R.r);
	return v->violations;
}
