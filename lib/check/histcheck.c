/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The general history checker.  The model, the options and the method are
 * described in histcheck.h, which is the reference; comments here say how.
 *
 * Pipeline: intern every path (pass 0), decide which paths a flat model
 * cannot judge, turn each event into at most one "op" on one or two paths
 * (pass 1) and each listing into one read per known child (pass 2),
 * collapsing reads in quiet gaps; union-find over two-path ops gives the
 * components; each is searched (Lowe's JIT linearization with memo), the
 * first violating one is shrunk into the counterexample.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errname.h"
#include "check/histcheck.h"
#include "check/history.h"
#include "check/oracle_util.h"

#define NONE UINT32_MAX

static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t str_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a, then mixed */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return mix64(h);
}

/* ---- a set of 128-bit keys (memo of failed configurations, collapse) -- */

struct set128 {
	uint64_t *k;		/* pairs; k[2i] == 0 is an empty slot */
	size_t n, cap;		/* cap: slots, a power of two */
};

static void set128_clear(struct set128 *s)
{
	if (s->k && s->n)
		memset(s->k, 0, s->cap * 2 * sizeof(*s->k));
	s->n = 0;
}

static void set128_free(struct set128 *s)
{
	free(s->k);
	memset(s, 0, sizeof(*s));
}

static bool set128_has(const struct set128 *s, uint64_t a, uint64_t b)
{
	a |= 1;
	if (!s->cap)
		return false;
	for (size_t i = (size_t)a & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (!s->k[2 * i])
			return false;
		if (s->k[2 * i] == a && s->k[2 * i + 1] == b)
			return true;
	}
}

/* 1 inserted, 0 was there, -ENOMEM */
static int set128_add(struct set128 *s, uint64_t a, uint64_t b)
{
	a |= 1;
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *k = calloc(cap * 2, sizeof(*k));

		if (!k)
			return -ENOMEM;
		for (size_t j = 0; j < s->cap; j++) {
			uint64_t ka = s->k[2 * j];
			size_t i;

			if (!ka)
				continue;
			for (i = (size_t)ka & (cap - 1); k[2 * i];
			     i = (i + 1) & (cap - 1))
				;
			k[2 * i] = ka;
			k[2 * i + 1] = s->k[2 * j + 1];
		}
		free(s->k);
		s->k = k;
		s->cap = cap;
	}
	for (size_t i = (size_t)a & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (!s->k[2 * i]) {
			s->k[2 * i] = a;
			s->k[2 * i + 1] = b;
			s->n++;
			return 1;
		}
		if (s->k[2 * i] == a && s->k[2 * i + 1] == b)
			return 0;
	}
}

/* ---- paths ------------------------------------------------------------- */

struct name {
	const char *path;	/* in the history, or in the arena */
	uint32_t len;
	uint32_t first_child, next_sibling;	/* direct children known */
	uint32_t uf;		/* union-find parent */
	uint32_t local;		/* index inside its component */
	uint32_t mark;		/* listing stamp (pass 2) */
	uint64_t mark_fid;
	uint32_t mut_off, nmut;	/* its changing ops' intervals (collapse) */
	uint8_t dirty;		/* a dir removed (rmdir) */
	uint8_t excluded;	/* not judged: below a dirty dir */
	uint8_t renamed;	/* a successful rename's source or target */
	uint8_t below_renamed;	/* has a renamed ancestor: moves with it */
	/* fresh_creates: its first change is a successful MKDIR and it never
	   moves: the directory was empty when made */
	uint8_t made_empty;
	uint8_t mkdired;	/* a successful MKDIR of it is in the history */
	/* fresh_creates: its parent was made empty here, and it does not move
	   with a renamed directory: absent until an op of the history makes it */
	uint8_t parent_made_empty;
};

struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	char data[];
};

struct names {
	struct name *v;
	size_t n, cap;
	uint32_t *tab;		/* open addressing: id + 1, 0 empty */
	size_t tabcap;
	struct arena_blk *arena;
};

static char *arena_alloc(struct names *N, size_t len)
{
	struct arena_blk *b = N->arena;

	if (!b || b->cap - b->used < len) {
		size_t cap = len > 65536 ? len : 65536;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = N->arena;
		b->used = 0;
		b->cap = cap;
		N->arena = b;
	}
	b->used += len;
	return b->data + b->used - len;
}

static void names_free(struct names *N)
{
	while (N->arena) {
		struct arena_blk *b = N->arena;

		N->arena = b->next;
		free(b);
	}
	free(N->v);
	free(N->tab);
	memset(N, 0, sizeof(*N));
}

static uint32_t names_find(const struct names *N, const char *p, size_t len)
{
	if (!N->tabcap)
		return NONE;
	for (size_t i = (size_t)str_hash(p, len) & (N->tabcap - 1);;
	     i = (i + 1) & (N->tabcap - 1)) {
		uint32_t id = N->tab[i];

		if (!id)
			return NONE;
		id--;
		if (N->v[id].len == len && !memcmp(N->v[id].path, p, len))
			return id;
	}
}

static int names_grow_tab(struct names *N)
{
	size_t cap = N->tabcap ? N->tabcap * 2 : 1024;
	uint32_t *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (size_t id = 0; id < N->n; id++) {
		size_t i = (size_t)str_hash(N->v[id].path, N->v[id].len) &
			   (cap - 1);

		while (tab[i])
			i = (i + 1) & (cap - 1);
		tab[i] = (uint32_t)id + 1;
	}
	free(N->tab);
	N->tab = tab;
	N->tabcap = cap;
	return 0;
}

/*
 * The id of path p (len bytes); copy: p does not outlive the call, keep a
 * copy.  NONE when out of memory.
 */
static uint32_t names_intern(struct names *N, const char *p, size_t len,
			     bool copy)
{
	uint32_t id = names_find(N, p, len);

	if (id != NONE)
		return id;
	if (N->n >= UINT32_MAX - 1)
		return NONE;
	if ((N->n + 1) * 2 > N->tabcap && names_grow_tab(N))
		return NONE;
	if (N->n == N->cap) {
		size_t cap = N->cap ? N->cap * 2 : 1024;
		struct name *v = realloc(N->v, cap * sizeof(*v));

		if (!v)
			return NONE;
		N->v = v;
		N->cap = cap;
	}
	if (copy) {
		char *c = arena_alloc(N, len + 1);

		if (!c)
			return NONE;
		memcpy(c, p, len);
		c[len] = '\0';
		p = c;
	}
	id = (uint32_t)N->n++;
	memset(&N->v[id], 0, sizeof(N->v[id]));
	N->v[id].path = p;
	N->v[id].len = (uint32_t)len;
	N->v[id].first_child = NONE;
	N->v[id].next_sibling = NONE;
	N->v[id].uf = id;
	N->v[id].local = NONE;
	size_t i = (size_t)str_hash(p, len) & (N->tabcap - 1);

	while (N->tab[i])
		i = (i + 1) & (N->tabcap - 1);
	N->tab[i] = id + 1;
	return id;
}

static uint32_t uf_find(struct names *N, uint32_t x)
{
	while (N->v[x].uf != x) {
		N->v[x].uf = N->v[N->v[x].uf].uf;	/* path halving */
		x = N->v[x].uf;
	}
	return x;
}

static void uf_union(struct names *N, uint32_t a, uint32_t b)
{
	a = uf_find(N, a);
	b = uf_find(N, b);
	if (a != b)
		N->v[a < b ? b : a].uf = a < b ? a : b;
}

/* ---- ops: what the model judges ------------------------------------- */

enum {
	K_READ,		/* observe a: present (fid, tmask) or absent */
	K_CREATE,	/* exclusive create / mkdir: absent -> present */
	K_CREATE_NX,	/* non-exclusive create that succeeded */
	K_REMOVE,	/* unlink / rmdir: present -> absent */
	K_RENAME,	/* a -> b */
	K_LINK,		/* a -> b */
	K_RENAME_NR,	/* a -> b with RENAME_NOREPLACE: b must be absent */
};

enum { T_UNKNOWN = 0, T_FILE = 1, T_DIR = 2 };
#define TM_FILE (1u << T_FILE)
#define TM_DIR (1u << T_DIR)
#define TM_ANY (TM_FILE | TM_DIR)

struct op {
	uint64_t s, e;		/* the interval judged (stale, skew applied) */
	uint64_t fid;		/* seen or created; 0 = not known */
	uint32_t ev;		/* event index in the history */
	uint32_t a, b;		/* paths: global ids, then component-local */
	uint8_t kind;
	uint8_t present;	/* K_READ: present (1) or absent (0) */
	uint8_t tmask;		/* K_READ/K_REMOVE: types allowed; K_CREATE: made */
	uint8_t listing;	/* a read that is one path of a READDIR */
	uint32_t tree;		/* K_RENAME*: index of its struct tree, or NONE */
};

/*
 * A rename that moves the paths below its source (a directory with known
 * children) or must check its target's parent (a directory that is moved
 * in the history).  pairs[off .. off + 2n) are (x, y): x = a/s, y = b/s
 * for every suffix s the history knows below a or b; either may be NONE
 * (a path nobody names).  On the move y takes x's state (UNKNOWN when x is
 * NONE) after checking y was not present (the target is an empty dir or
 * absent), and x becomes absent.  par: b's parent, which must be present
 * and not a file, or NONE.
 */
struct tree {
	uint32_t off, n;
	uint32_t par;
};

static bool op_changes(const struct op *o)
{
	return o->kind != K_READ;
}

/*
 * The paths op o changes beyond a and b: those below its tree move's
 * source and target (NONE entries skipped by the caller); *n of them.
 */
static const uint32_t *op_tree_paths(const struct op *o,
				     const struct tree *trees,
				     const uint32_t *pairs, uint32_t *n)
{
	if (o->tree == NONE) {
		*n = 0;
		return NULL;
	}
	*n = 2 * trees[o->tree].n;
	return pairs + trees[o->tree].off;
}

/* ---- the search ---------------------------------------------------------- */

enum { S_UNKNOWN = 0, S_ABSENT = 1, S_PRESENT = 2 };

/*
 * sole: the file at this path was made by an op of this history under
 * this path (create, mkdir, or moved here by a rename since) and no link
 * gave it a second name, so this path is its only name.  A rename from or
 * onto such a path cannot be POSIX's rename between two links of one
 * file.  A state first seen by a read (set up outside the history) is not
 * sole: the history cannot tell how many names it has.
 */
struct nst {
	uint64_t fid;
	uint8_t kind, type, sole;
};

static bool nst_eq(const struct nst *x, const struct nst *y)
{
	return x->kind == y->kind && x->type == y->type && x->fid == y->fid &&
	       x->sole == y->sole;
}

struct frame {
	uint32_t k;		/* position in the subset */
	uint32_t rank;		/* its place among the candidates tried */
	uint8_t variant, eager, nundo;
	uint32_t uname[2];
	struct nst uold[2];
	uint32_t tree_undo;	/* S->tu entries above this are this op's */
};

/* the old state of a path below a moved directory (undo of a tree move) */
struct tree_undo {
	uint32_t name;
	struct nst old;
};

#define HEAD 0
#define TAIL 1
#define CALL(k) (2 + 2 * (int32_t)(k))
#define RET(k) (3 + 2 * (int32_t)(k))
#define IS_CALL(e) ((e) >= 2 && !((e) & 1))
#define KOF(e) ((uint32_t)(((e) - 2) / 2))

static const uint64_t SEED1 = 0x243f6a8885a308d3ull, SEED2 = 0x13198a2e03707344ull;

struct search {
	const struct op *op;	/* the component's ops (local path ids) */
	const uint32_t *pos;	/* the subset: positions into op, ascending */
	uint32_t n;
	struct nst *st;		/* per local path */
	uint64_t h1, h2;	/* state hash ^ linearized-set hash */
	int32_t *nx, *pv;	/* the call/return list */
	struct frame *fr;
	uint32_t *cand;		/* candidates of the current configuration */
	uint64_t *first_change;	/* per local path: earliest start of a change */
	struct set128 memo;
	uint64_t budget, steps;
	uint64_t deadline;	/* dt_now_ns() to give up at, 0 = never */
	/* where the search got stuck deepest: for the verdict text */
	uint32_t deepest;
	uint32_t blocked;	/* position in the subset, NONE if none */
	struct nst blocked_st[2];
	const struct tree *trees;	/* of the ops' tree moves */
	const uint32_t *pairs;		/* local ids */
	struct tree_undo *tu;		/* undo stack of the tree moves */
	uint32_t ntu;
};

/* one more search step: false while budget and time last */
static bool spent(struct search *S)
{
	if (++S->steps > S->budget)
		return true;
	/* read the clock rarely: a step costs well under a microsecond */
	return S->deadline && !(S->steps & 0xffff) &&
	       dt_now_ns() > S->deadline;
}

static uint64_t st_hash(uint32_t name, const struct nst *s, uint64_t seed)
{
	if (s->kind == S_UNKNOWN)
		return 0;	/* so the all-unknown start hashes to 0 */
	/* one mix over everything: XOR of separately mixed parts would let
	 * two paths holding the same fileid cancel each other out */
	return mix64(mix64(seed ^ ((uint64_t)name << 12 |
				   (uint64_t)s->sole << 8 |
				   (uint64_t)s->kind << 4 | s->type)) ^ s->fid);
}

static uint64_t lin_hash(uint32_t pos, uint64_t seed)
{
	return mix64(seed + 0x51ed27ull * (pos + 1));
}

static void set_state(struct search *S, uint32_t name, const struct nst *v)
{
	struct nst *cur = &S->st[name];

	S->h1 ^= st_hash(name, cur, SEED1) ^ st_hash(name, v, SEED1);
	S->h2 ^= st_hash(name, cur, SEED2) ^ st_hash(name, v, SEED2);
	*cur = *v;
}

static uint8_t single_type(unsigned tmask)
{
	return tmask == TM_FILE ? T_FILE : tmask == TM_DIR ? T_DIR : T_UNKNOWN;
}

static bool fid_conflict(uint64_t x, uint64_t y)
{
	return x && y && x != y;
}

/*
 * One step of the sequential model: may op o go now (variant v) with path
 * states A (and B for two-path ops)?  Fills the new states and *nvar, the
 * number of outcomes the op has from here (a rename onto a path that may
 * be the same file has two: replace, or POSIX's "nothing happens").
 */
static bool model_step(const struct op *o, const struct nst *A,
		       const struct nst *B, int v, struct nst *nA,
		       struct nst *nB, int *nvar)
{
	struct nst src;

	*nvar = 1;
	*nA = *A;
	if (B)
		*nB = *B;
	switch (o->kind) {
	case K_READ:
		if (v)
			return false;
		if (A->kind == S_UNKNOWN) {
			nA->kind = o->present ? S_PRESENT : S_ABSENT;
			nA->fid = o->present ? o->fid : 0;
			nA->type = o->present ? single_type(o->tmask) : T_UNKNOWN;
			return true;
		}
		if (!o->present)
			return A->kind == S_ABSENT;
		if (A->kind != S_PRESENT ||
		    (A->type && !(o->tmask & (1u << A->type))) ||
		    fid_conflict(A->fid, o->fid))
			return false;
		if (!A->fid)
			nA->fid = o->fid;
		if (!A->type)
			nA->type = single_type(o->tmask);
		return true;
	case K_CREATE:
		if (v || A->kind == S_PRESENT)
			return false;
		nA->kind = S_PRESENT;
		nA->fid = o->fid;
		nA->type = single_type(o->tmask);
		nA->sole = 1;
		return true;
	case K_CREATE_NX:
		if (v)
			return false;
		if (A->kind == S_PRESENT &&
		    (A->type == T_DIR || fid_conflict(A->fid, o->fid)))
			return false;
		nA->kind = S_PRESENT;
		nA->type = T_FILE;
		nA->fid = o->fid ? o->fid : A->kind == S_PRESENT ? A->fid : 0;
		/* made here, or opened what was there (of unknown names) */
		nA->sole = A->kind == S_ABSENT ? 1 : A->kind == S_PRESENT ?
			   A->sole : 0;
		return true;
	case K_REMOVE:
		if (v || A->kind == S_ABSENT ||
		    (A->kind == S_PRESENT && A->type &&
		     !(o->tmask & (1u << A->type))))
			return false;
		nA->kind = S_ABSENT;
		nA->fid = 0;
		nA->type = T_UNKNOWN;
		nA->sole = 0;
		return true;
	case K_LINK:
		if (v || A->kind == S_ABSENT || A->type == T_DIR ||
		    B->kind == S_PRESENT)
			return false;
		nA->kind = S_PRESENT;
		nA->type = T_FILE;
		nA->sole = 0;	/* two names now */
		*nB = *nA;
		return true;
	case K_RENAME_NR:
		/* b's absence and the move are one atomic step */
		if (v || A->kind == S_ABSENT || B->kind == S_PRESENT)
			return false;
		*nB = *A;
		nB->kind = S_PRESENT;
		nA->kind = S_ABSENT;
		nA->fid = 0;
		nA->type = T_UNKNOWN;
		nA->sole = 0;
		return true;
	case K_RENAME:
		if (A->kind == S_ABSENT)
			return false;
		src = *A;
		src.kind = S_PRESENT;
		if (B->kind == S_PRESENT) {
			if (src.type && B->type && src.type != B->type)
				return false;	/* EISDIR / ENOTDIR, not success */
			if (!src.type)
				src.type = B->type;
		}
		/*
		 * Outcomes: 0 = move (a absent, b the file), 1 = a and b are
		 * already the same file (hard links): nothing happens.  Only
		 * files have two names, and only equal or unknown fileids can
		 * be the same file.
		 */
		bool may_same = B->kind != S_ABSENT && src.type != T_DIR &&
				!src.sole &&
				!(B->kind == S_PRESENT && B->sole) &&
				!(B->kind == S_PRESENT && B->type == T_DIR) &&
				!(B->kind == S_PRESENT &&
				  fid_conflict(src.fid, B->fid));
		bool surely_same = B->kind == S_PRESENT && src.fid &&
				   src.fid == B->fid;
		if (surely_same) {
			if (v)
				return false;
			*nA = src;
			return true;
		}
		*nvar = may_same ? 2 : 1;
		if (v == 0) {
			nA->kind = S_ABSENT;
			nA->fid = 0;
			nA->type = T_UNKNOWN;
			nA->sole = 0;
			*nB = src;
			return true;
		}
		if (v == 1 && may_same) {
			uint64_t f = src.fid ? src.fid :
				     B->kind == S_PRESENT ? B->fid : 0;

			src.fid = f;
			src.type = T_FILE;
			src.sole = 0;
			*nA = src;
			*nB = src;
			return true;
		}
		return false;
	}
	return false;
}

/* A read that matches the state exactly and changes nothing. */
static bool read_is_exact(const struct op *o, const struct nst *A)
{
	if (o->kind != K_READ || A->kind == S_UNKNOWN)
		return false;
	if (!o->present)
		return A->kind == S_ABSENT;
	return A->kind == S_PRESENT &&
	       (A->type ? (o->tmask & (1u << A->type)) != 0 :
			  single_type(o->tmask) == T_UNKNOWN) &&
	       (o->fid == 0 || A->fid == o->fid);
}

static bool two_paths(const struct op *o)
{
	return o->kind == K_RENAME || o->kind == K_LINK ||
	       o->kind == K_RENAME_NR;
}

/*
 * May a rename with tree t succeed now?  Its target's parent must be a
 * directory that is there; when it moves, nothing may be below its target
 * (an empty directory, or nothing).
 */
static bool tree_allows(const struct search *S, const struct tree *t,
			bool moved)
{
	if (t->par != NONE) {
		const struct nst *p = &S->st[t->par];

		if (p->kind == S_ABSENT ||
		    (p->kind == S_PRESENT && p->type == T_FILE))
			return false;
	}
	if (moved)
		for (uint32_t i = 0; i < t->n; i++) {
			uint32_t y = S->pairs[t->off + 2 * i + 1];

			if (y != NONE && S->st[y].kind == S_PRESENT)
				return false;
		}
	return true;
}

static void tree_set(struct search *S, uint32_t name, const struct nst *v)
{
	if (nst_eq(&S->st[name], v))
		return;
	S->tu[S->ntu].name = name;
	S->tu[S->ntu++].old = S->st[name];
	set_state(S, name, v);
}

/* the paths below the source move below the target */
static void tree_move(struct search *S, const struct tree *t)
{
	static const struct nst absent = { .kind = S_ABSENT };
	static const struct nst unknown = { .kind = S_UNKNOWN };

	for (uint32_t i = 0; i < t->n; i++) {
		uint32_t x = S->pairs[t->off + 2 * i];
		uint32_t y = S->pairs[t->off + 2 * i + 1];

		/* x and y are never the same path: suffixes of a and b */
		if (y != NONE)
			tree_set(S, y, x != NONE ? &S->st[x] : &unknown);
		if (x != NONE)
			tree_set(S, x, &absent);
	}
}

/* Try op k with variant v; on success record the undo in f. */
static bool try_apply(struct search *S, uint32_t k, int v, struct frame *f,
		      int *nvar)
{
	const struct op *o = &S->op[S->pos[k]];
	struct nst nA, nB;
	bool two = two_paths(o);

	if (!model_step(o, &S->st[o->a], two ? &S->st[o->b] : NULL, v, &nA,
			&nB, nvar))
		return false;
	/* a rename's move leaves a absent; "the same file" keeps it */
	bool moved = o->tree != NONE && nA.kind == S_ABSENT;

	if (o->tree != NONE && !tree_allows(S, &S->trees[o->tree], moved))
		return false;
	f->k = k;
	f->variant = (uint8_t)v;
	f->eager = 0;
	f->nundo = 0;
	f->tree_undo = S->ntu;
	if (!nst_eq(&nA, &S->st[o->a])) {
		f->uname[f->nundo] = o->a;
		f->uold[f->nundo++] = S->st[o->a];
		set_state(S, o->a, &nA);
	}
	if (two && !nst_eq(&nB, &S->st[o->b])) {
		f->uname[f->nundo] = o->b;
		f->uold[f->nundo++] = S->st[o->b];
		set_state(S, o->b, &nB);
	}
	if (moved)
		tree_move(S, &S->trees[o->tree]);
	S->h1 ^= lin_hash(S->pos[k], SEED1);
	S->h2 ^= lin_hash(S->pos[k], SEED2);
	return true;
}

static void undo(struct search *S, const struct frame *f)
{
	while (S->ntu > f->tree_undo) {
		S->ntu--;
		set_state(S, S->tu[S->ntu].name, &S->tu[S->ntu].old);
	}
	for (int i = f->nundo - 1; i >= 0; i--)
		set_state(S, f->uname[i], &f->uold[i]);
	S->h1 ^= lin_hash(S->pos[f->k], SEED1);
	S->h2 ^= lin_hash(S->pos[f->k], SEED2);
}

static void lift(struct search *S, uint32_t k)
{
	int32_t *nx = S->nx, *pv = S->pv, c = CALL(k), r = RET(k);

	nx[pv[c]] = nx[c];
	pv[nx[c]] = pv[c];
	nx[pv[r]] = nx[r];
	pv[nx[r]] = pv[r];
}

static void unlift(struct search *S, uint32_t k)
{
	int32_t *nx = S->nx, *pv = S->pv, c = CALL(k), r = RET(k);

	nx[pv[r]] = r;
	pv[nx[r]] = r;
	nx[pv[c]] = c;
	pv[nx[c]] = c;
}

enum { SR_FAIL = 0, SR_OK = 1, SR_BUDGET = 2, SR_NOMEM = 3 };

static void note_blocked(struct search *S, uint32_t top, uint32_t k)
{
	const struct op *o = &S->op[S->pos[k]];

	if (S->blocked != NONE && top <= S->deepest)
		return;
	S->deepest = top;
	S->blocked = k;
	S->blocked_st[0] = S->st[o->a];
	S->blocked_st[1] = two_paths(o) ? S->st[o->b] : S->st[o->a];
}

/* candidates are tried by the middle of their interval: the best guess
 * of where an op took effect, so the first order tried is usually right */
static int cand_cmp(const void *x, const void *y, void *arg)
{
	const struct search *S = arg;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const struct op *a = &S->op[S->pos[i]], *b = &S->op[S->pos[j]];
	uint64_t ma = a->s / 2 + a->e / 2, mb = b->s / 2 + b->e / 2;

	if (ma != mb)
		return ma < mb ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* the calls before the first return, in trial order; *first_ret */
static uint32_t candidates(struct search *S, int32_t *first_ret)
{
	uint32_t nc = 0;
	int32_t e;

	for (e = S->nx[HEAD]; IS_CALL(e); e = S->nx[e])
		S->cand[nc++] = KOF(e);
	*first_ret = e;
	/* a listing's reads share one interval: thousands of candidates
	 * are left in start order rather than sorted at every step */
	if (nc > 1 && nc <= 256)
		qsort_r(S->cand, nc, sizeof(*S->cand), cand_cmp, S);
	return nc;
}

/*
 * Is there a linearization of the subset?  Lowe's JIT form of Wing &
 * Gong: the ops that may go next are the calls before the first return
 * in the call/return list; a frame per linearized op; when no candidate
 * can go, backtrack and try the parent's next candidate (or outcome).
 */
static int search_run(struct search *S)
{
	int32_t *nx = S->nx;
	uint32_t top = 0, cstart = 0, nc = 0;
	int vstart = 0;
	int32_t first_ret = TAIL;

	for (;;) {
		/*
		 * Fast path: a read goes now, with no branch point, when it
		 * matches the state exactly (moving it earlier never breaks a
		 * linearization), or when its path is still UNKNOWN and no
		 * change of the path can come before it (every one starts
		 * after the read ends): then it sees the initial state, which
		 * it fixes.  One pass over the candidates, repeated while it
		 * made progress: a fixed path may make other reads exact.
		 */
		bool dead = false, progress = true;

		while (progress && !dead) {
			progress = false;
			for (int32_t e = nx[HEAD]; IS_CALL(e);) {
				uint32_t k = KOF(e);
				const struct op *o = &S->op[S->pos[k]];
				const struct nst *A = &S->st[o->a];
				int nvar;

				e = nx[e];
				if (!read_is_exact(o, A) &&
				    !(o->kind == K_READ && A->kind == S_UNKNOWN &&
				      S->first_change[o->a] > o->e))
					continue;
				if (spent(S))
					return SR_BUDGET;
				if (!try_apply(S, k, 0, &S->fr[top], &nvar))
					continue;	/* cannot happen */
				if (set128_has(&S->memo, S->h1, S->h2)) {
					/* explored from here and failed: so
					 * did the configuration before it */
					undo(S, &S->fr[top]);
					dead = true;
					break;
				}
				S->fr[top++].eager = 1;
				lift(S, k);
				progress = true;
			}
		}
		if (!dead) {
			if (nx[HEAD] == TAIL)
				return SR_OK;
			nc = candidates(S, &first_ret);
			cstart = 0;
			vstart = 0;
		}
retry:
		if (!dead) {
			bool pushed = false;

			for (uint32_t ci = cstart; ci < nc && !pushed; ci++) {
				uint32_t k = S->cand[ci];
				int v0 = ci == cstart ? vstart : 0, nvar = v0 + 1;

				/*
				 * try_apply sets nvar on every call: a retry
				 * at variant 1 must be tried to learn it (the
				 * loop used to stop there, so a rename's "same
				 * file" outcome was never reached)
				 */
				for (int v = v0; v < nvar; v++) {
					if (spent(S))
						return SR_BUDGET;
					if (!try_apply(S, k, v, &S->fr[top], &nvar))
						continue;
					if (set128_has(&S->memo, S->h1, S->h2)) {
						undo(S, &S->fr[top]);
						continue;
					}
					S->fr[top].rank = ci;
					top++;
					lift(S, k);
					pushed = true;
					break;
				}
			}
			if (pushed)
				continue;
			/* nobody can go before this return */
			note_blocked(S, top, KOF(first_ret));
		}
		/* backtrack */
		for (;;) {
			struct frame *f;

			if (top == 0)
				return SR_FAIL;
			f = &S->fr[--top];
			/* this configuration was explored and failed */
			if (set128_add(&S->memo, S->h1, S->h2) < 0)
				return SR_NOMEM;
			undo(S, f);
			unlift(S, f->k);
			if (!f->eager) {
				nc = candidates(S, &first_ret);
				cstart = f->rank;
				vstart = f->variant + 1;
				break;
			}
		}
		dead = false;
		goto retry;
	}
}

/* ---- per-component work ---------------------------------------------------- */

struct comp {
	uint32_t off, n;	/* its ops: ctx.cops[off .. off + n) */
	uint32_t noff, nnames;	/* its paths: ctx.cnames[noff ..] */
	uint64_t steps;
	int status;
};

struct ctx {
	const struct dt_history *h;
	struct dt_check_opts o;
	struct dt_check_result *res;
	struct dt_judge judge;
	struct names N;
	struct op *ops;		/* all ops, then grouped per component */
	size_t nops, capops;
	struct set128 seen;	/* collapse: reads already judged */
	uint64_t *mut_s, *mut_e;	/* per path: changing ops' starts, ends */
	struct op *cops;	/* ops grouped by component, each sorted */
	uint32_t *cnames;	/* component-local path -> global */
	struct comp *comps;
	size_t ncomps;
	/* search scratch, sized for the largest component */
	struct search S;
	uint32_t *pos, *inset, *retord;
	size_t scratch_cap, names_cap;
	/* direct violations (duplicates, unexpected errors), earliest kept */
	struct dt_verdict direct;
	struct dt_judge direct_judge;	/* judge's history, v = &direct */
	char direct_dup[DT_EV_NAME];	/* the name listed twice, if that */
	size_t direct_open;	/* the OPEN of a failed handle op, or NONE */
	/* tree moves: per event (NONE or an index into trees) */
	uint32_t *ev_tree;
	struct tree *trees;
	size_t ntrees, captrees;
	uint32_t *pairs;	/* (x, y) global ids, then local */
	size_t npairs, cappairs;	/* in pairs, not ids */
};

static int push_op(struct ctx *C, const struct op *o)
{
	if (C->nops == C->capops) {
		size_t cap = C->capops ? C->capops * 2 : 4096;
		struct op *v = realloc(C->ops, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		C->ops = v;
		C->capops = cap;
	}
	C->ops[C->nops++] = *o;
	return 0;
}

static void direct(struct ctx *C, size_t ev, const char *what,
		   const char *expected, const char *observed)
{
	if (dt_judge_flag(&C->direct_judge, ev)) {
		dt_say(C->direct.what, "%s", what);
		dt_say(C->direct.expected, "%s", expected);
		dt_say(C->direct.observed, "%s", observed);
	}
}

static uint64_t sub_sat(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* the interval an event is judged over */
static void op_interval(const struct ctx *C, const struct dt_event *e,
			bool cached_read, struct op *o)
{
	uint64_t half = C->res->multi_host ? (C->o.skew_ns + 1) / 2 : 0;

	o->s = sub_sat(e->start_ns, half);
	o->e = add_sat(dt_ev_end(e), half);
	if (cached_read)
		o->s = sub_sat(o->s, C->o.stale_ns);
}

static uint32_t id_of(const struct ctx *C, const char *p)
{
	return names_find(&C->N, p, strlen(p));
}

/* Path of child x of dir d ("d/x", or "x" when d is ""), interned. */
static uint32_t child_id(struct ctx *C, uint32_t d, const char *x, bool add)
{
	const struct name *dn = &C->N.v[d];
	size_t xl = strlen(x), len = dn->len ? dn->len + 1 + xl : xl;
	char buf[2 * DT_NAME_MAX + DT_EV_NAME + 2], *p = buf;

	if (len >= sizeof(buf))
		return NONE;
	if (dn->len) {
		memcpy(p, dn->path, dn->len);
		p[dn->len] = '/';
		memcpy(p + dn->len + 1, x, xl);
	} else {
		memcpy(p, x, xl);
	}
	p[len] = '\0';
	return add ? names_intern(&C->N, p, len, true)
		   : names_find(&C->N, p, len);
}

/* ops on a path (READ and CLOSE act on a handle: judge_handles) */
static bool judged_op(uint8_t op)
{
	return op < DT_OP__COUNT && op != DT_OP_READ && op != DT_OP_CLOSE;
}

/* ---- handle lifetime --------------------------------------------------- */

struct handle_key {
	uint32_t who;		/* host << 16 | thread */
	uint64_t end;
	size_t ev;
};

static int handle_key_cmp(const void *x, const void *y)
{
	const struct handle_key *a = x, *b = y;

	if (a->who != b->who)
		return a->who < b->who ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* a READ or CLOSE (event ev) on the handle OPEN open broke the model */
static void handle_violation(struct ctx *C, size_t open, size_t ev,
			     const char *what, const char *exp)
{
	char obs[DT_EVLEN];

	/* the counterexample shows the OPEN of the earliest such op */
	if (C->direct.violations == 0 || ev < C->direct.event)
		C->direct_open = open;
	direct(C, ev, what, exp,
	       dt_judge_evdesc(&C->judge, ev, obs, sizeof(obs)));
}

/*
 * A READ or CLOSE on a file its thread opened must not fail, whatever
 * happened to the name meanwhile (POSIX: an open file outlives its
 * name).  The events carry no handle: a thread's READ and CLOSE act on its
 * latest successful OPEN not yet closed (the tests hold one file open per
 * thread), in the thread's own order, which is by end time (a caching
 * client's widened OPEN keeps its end).  Bytes: the histories record no
 * write, so a READ with the request ("offset+length", name2) of the
 * handle's first READ returns as many bytes as that one did.
 */
static int judge_handles(struct ctx *C)
{
	const struct dt_history *h = C->h;
	struct handle_key *k;
	size_t nk = 0, open = NONE, first_read = NONE;
	char what[256], exp[256 + DT_EVLEN], obs[DT_EVLEN];

	for (size_t i = 0; i < h->n; i++)
		nk += h->ev[i].op == DT_OP_OPEN || h->ev[i].op == DT_OP_READ ||
		      h->ev[i].op == DT_OP_CLOSE;
	if (!nk)
		return 0;
	k = malloc(nk * sizeof(*k));
	if (!k)
		return -ENOMEM;
	nk = 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		if (e->op == DT_OP_OPEN || e->op == DT_OP_READ ||
		    e->op == DT_OP_CLOSE)
			k[nk++] = (struct handle_key){
				(uint32_t)e->host << 16 | e->thread,
				dt_ev_end(e), i };
	}
	qsort(k, nk, sizeof(*k), handle_key_cmp);
	for (size_t i = 0; i < nk; i++) {
		const struct dt_event *e = &h->ev[k[i].ev];

		if (!i || k[i].who != k[i - 1].who)
			open = NONE;
		if (e->op == DT_OP_OPEN) {
			open = e->result ? NONE : k[i].ev;
			first_read = NONE;
			continue;
		}
		if (open == NONE) {
			/* not on a handle we saw open (after a close, ...) */
			C->res->ignored++;
			continue;
		}
		C->res->judged++;
		if (e->result < 0 && C->o.accept_errors) {
			C->res->errors_accepted++;
		} else if (e->result < 0) {
			dt_say(what, "handle lifetime: %s of open %s failed: %s",
			       dt_op_name((enum dt_opcode)e->op),
			       h->ev[open].name, dt_strerr(e->result));
			snprintf(exp, sizeof(exp), "success: an open file stays "
				 "usable until closed, whatever happens to its "
				 "name (opened by %s)",
				 dt_judge_evdesc(&C->judge, open, obs,
						 sizeof(obs)));
			handle_violation(C, open, k[i].ev, what, exp);
		} else if (e->op == DT_OP_READ && e->name2[0] &&
			   first_read == NONE) {
			first_read = k[i].ev;
		} else if (e->op == DT_OP_READ && e->name2[0] &&
			   !strcmp(e->name2, h->ev[first_read].name2) &&
			   e->result != h->ev[first_read].result) {
			dt_say(what, "file data: a read (%s) of open %s "
			       "returned %d bytes, the same read of it before "
			       "%d", e->name2, h->ev[open].name, e->result,
			       h->ev[first_read].result);
			snprintf(exp, sizeof(exp), "%d bytes: an open file keeps "
				 "its data until closed, and no op of the "
				 "history writes (first read: %s)",
				 h->ev[first_read].result,
				 dt_judge_evdesc(&C->judge, first_read, obs,
						 sizeof(obs)));
			handle_violation(C, open, k[i].ev, what, exp);
		}
		if (e->op == DT_OP_CLOSE)
			open = first_read = NONE;
	}
	free(k);
	return 0;
}

/* is path q strictly below path p ("p/...")? */
static bool is_below(const struct name *q, const struct name *p)
{
	return q->len > p->len && q->path[p->len] == '/' &&
	       (!p->len || !memcmp(q->path, p->path, p->len));
}

/* rename(a, b) with b below a (into itself) or a below b (onto its own
 * ancestor, never empty): POSIX lets neither succeed */
static bool rename_nests(const struct ctx *C, uint32_t a, uint32_t b)
{
	return is_below(&C->N.v[b], &C->N.v[a]) ||
	       is_below(&C->N.v[a], &C->N.v[b]);
}

static int u64_cmp(const void *x, const void *y);
static size_t count_below(const uint64_t *v, size_t n, uint64_t x);

/*
 * (ancestor << 32 | path) for every path below a renamed one, sorted: the
 * paths a rename of the ancestor moves.  Marks below_renamed.  *out NULL
 * when there are none.
 */
static int below_renamed(struct ctx *C, uint64_t **out, size_t *n)
{
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	for (uint32_t x = 0; x < C->N.n; x++) {
		struct name *nm = &C->N.v[x];

		for (const char *p = nm->path; (p = memchr(p, '/',
			nm->len - (size_t)(p - nm->path))); p++) {
			uint32_t anc = names_find(&C->N, nm->path,
						  (size_t)(p - nm->path));

			if (anc == NONE || !C->N.v[anc].renamed)
				continue;
			C->N.v[x].below_renamed = 1;
			if (*n == cap) {
				uint64_t *v = realloc(*out, (cap = cap ? 2 * cap : 256) *
							    sizeof(*v));

				if (!v)
					return -ENOMEM;
				*out = v;
			}
			(*out)[(*n)++] = (uint64_t)anc << 32 | x;
		}
	}
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), u64_cmp);
	return 0;
}

/* the range of desc[0..n) whose ancestor is anc */
static size_t desc_first(const uint64_t *desc, size_t n, uint32_t anc,
			 size_t *end)
{
	size_t lo = count_below(desc, n, (uint64_t)anc << 32);

	*end = count_below(desc, n, (uint64_t)(anc + 1) << 32);
	return lo;
}

/* the path to + the suffix of x below from ("to/s" for x = "from/s") */
static uint32_t counterpart(struct ctx *C, uint32_t x, uint32_t from,
			    uint32_t to, bool add)
{
	char buf[4096];
	const struct name *xn = &C->N.v[x], *fn = &C->N.v[from],
			  *tn = &C->N.v[to];
	size_t sl = xn->len - fn->len - (fn->len ? 1 : 0);
	size_t len = tn->len ? tn->len + 1 + sl : sl;

	if (len >= sizeof(buf))
		return NONE;	/* not a path anybody names: not tracked */
	memcpy(buf, tn->path, tn->len);
	if (tn->len)
		buf[tn->len] = '/';
	memcpy(buf + (tn->len ? tn->len + 1 : 0), xn->path + xn->len - sl, sl);
	buf[len] = '\0';
	return add ? names_intern(&C->N, buf, len, true)
		   : names_find(&C->N, buf, len);
}

static int push_pair(struct ctx *C, uint32_t x, uint32_t y)
{
	if (C->npairs == C->cappairs) {
		size_t cap = C->cappairs ? 2 * C->cappairs : 256;
		uint32_t *v = realloc(C->pairs, 2 * cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		C->pairs = v;
		C->cappairs = cap;
	}
	C->pairs[2 * C->npairs] = x;
	C->pairs[2 * C->npairs++ + 1] = y;

	return 0;
}

/*
 * Tree moves.  A directory renamed in the history takes the paths below
 * it along: for every successful rename a -> b, each path the history
 * names below a has its counterpart below b and the reverse (interned
 * here, once: counterparts of counterparts are not made, so two
 * directories renamed into each other stay finite; a path not made is
 * not tracked, which only loses knowledge).  Too many new paths: the old
 * way, the paths below renamed directories are left out (dirty).
 */
static int make_trees(struct ctx *C)
{
	const struct dt_history *h = C->h;
	size_t limit = 4 * C->N.n + 100000, n = 0;
	uint64_t *desc = NULL;
	int rc = -ENOMEM;

	C->ev_tree = malloc((h->n ? h->n : 1) * sizeof(*C->ev_tree));
	if (!C->ev_tree)
		return -ENOMEM;
	for (size_t i = 0; i < h->n; i++)
		C->ev_tree[i] = NONE;
	for (int round = 0; round < 2; round++) {
		free(desc);
		if (below_renamed(C, &desc, &n))
			goto out;
		if (!n && round == 0)
			break;	/* nothing below a renamed path */
		for (size_t i = 0; i < h->n; i++) {
			const struct dt_event *e = &h->ev[i];
			uint32_t a, b, par = NONE;
			size_t lo, hi, off = C->npairs;

			if (e->op != DT_OP_RENAME || e->result)
				continue;
			a = id_of(C, e->name);
			b = id_of(C, e->name2);
			if (a == b || rename_nests(C, a, b))
				continue;
			if (round == 0) {
				/* make the counterparts of both sides */
				for (int side = 0; side < 2; side++) {
					uint32_t from = side ? b : a, to = side ? a : b;

					for (lo = desc_first(desc, n, from, &hi);
					     lo < hi; lo++)
						if (counterpart(C, (uint32_t)desc[lo],
								from, to, true) == NONE &&
						    C->N.n >= UINT32_MAX - 1)
							goto out;
				}
				if (C->N.n > limit) {
					rc = 0;
					goto fallback;
				}
				continue;
			}
			for (lo = desc_first(desc, n, a, &hi); lo < hi; lo++) {
				uint32_t x = (uint32_t)desc[lo];

				if (push_pair(C, x, counterpart(C, x, a, b, false)))
					goto out;
			}
			for (lo = desc_first(desc, n, b, &hi); lo < hi; lo++) {
				uint32_t y = (uint32_t)desc[lo];

				if (counterpart(C, y, b, a, false) == NONE &&
				    push_pair(C, NONE, y))
					goto out;
			}
			/* the target's parent, when it is moved itself */
			const char *slash = memrchr(e->name2, '/', strlen(e->name2));

			if (slash)
				par = names_find(&C->N, e->name2,
						 (size_t)(slash - e->name2));
			if (par != NONE && !C->N.v[par].renamed &&
			    !C->N.v[par].below_renamed)
				par = NONE;
			if (C->npairs == off && par == NONE)
				continue;
			if (C->ntrees == C->captrees) {
				size_t cap = C->captrees ? 2 * C->captrees : 64;
				struct tree *v = realloc(C->trees, cap * sizeof(*v));

				if (!v)
					goto out;
				C->trees = v;
				C->captrees = cap;
			}
			/* off: in pairs[] entries, two per pair */
			C->trees[C->ntrees] = (struct tree){
				(uint32_t)(2 * off), (uint32_t)(C->npairs - off),
				par };
			C->ev_tree[i] = (uint32_t)C->ntrees++;
		}
	}
	rc = 0;
	goto out;
fallback:
	for (uint32_t x = 0; x < C->N.n; x++)
		if (C->N.v[x].renamed)
			C->N.v[x].dirty = 1;
	C->ntrees = C->npairs = 0;
	for (size_t i = 0; i < h->n; i++)
		C->ev_tree[i] = NONE;
out:
	free(desc);
	return rc;
}

/* leave path x out (NONE: nothing); true if it was not already */
static bool exclude(struct ctx *C, uint32_t x)
{
	if (x == NONE || C->N.v[x].excluded)
		return false;
	C->N.v[x].excluded = 1;
	return true;
}

/*
 * A name the NFS client gives an open file whose name was removed
 * (".nfsXXXX", the "silly rename"): the client's own rename, which no
 * history records.
 */
static bool silly_renamed(const struct name *nm)
{
	const char *slash = memrchr(nm->path, '/', nm->len);
	const char *base = slash ? slash + 1 : nm->path;

	return nm->len - (size_t)(base - nm->path) >= 4 &&
	       !strncmp(base, ".nfs", 4);
}

/* the path an event changes when it succeeds (a; b for rename, link) */
static bool event_changes(const struct dt_event *e, bool *a, bool *b)
{
	*a = *b = false;
	if (e->result)
		return false;
	switch (e->op) {
	case DT_OP_CREATE: case DT_OP_MKDIR: case DT_OP_UNLINK:
	case DT_OP_RMDIR:
		*a = true;
		break;
	case DT_OP_OPEN:
		*a = e->flags & DT_EVF_CREAT;
		break;
	case DT_OP_RENAME:
		*a = *b = true;
		break;
	case DT_OP_LINK:
		*b = true;
		break;
	default:
		break;
	}
	return *a || *b;
}

/*
 * fresh_creates (the history holds every change of its names): a
 * directory whose first change is a successful MKDIR was empty when made,
 * so a path right below it that does not move with a renamed directory
 * is absent until one of the history's ops makes it.  Without this a
 * name nothing made (a listing's invented entry, a lookup that finds a
 * name nobody created) is UNKNOWN, which any answer fits.  A directory
 * that is renamed (or moves with one) is left alone: its paths' states
 * come with the move.
 */
static int mark_made_empty(struct ctx *C)
{
	const struct dt_history *h = C->h;
	uint64_t *first = malloc((C->N.n ? C->N.n : 1) * sizeof(*first));
	uint8_t *by_mkdir = calloc(C->N.n ? C->N.n : 1, 1);

	if (!first || !by_mkdir) {
		free(first);
		free(by_mkdir);
		return -ENOMEM;
	}
	for (uint32_t x = 0; x < C->N.n; x++)
		first[x] = UINT64_MAX;
	for (size_t i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];
		bool ca, cb;
		uint32_t a, b;

		if (!judged_op(e->op) || !event_changes(e, &ca, &cb))
			continue;
		a = ca ? id_of(C, e->name) : NONE;
		b = cb ? id_of(C, e->name2) : NONE;
		if (a != NONE && e->start_ns <= first[a]) {
			/* on a tie the MKDIR must be the only candidate */
			by_mkdir[a] = e->op == DT_OP_MKDIR &&
				      (e->start_ns < first[a] || by_mkdir[a]);
			first[a] = e->start_ns;
		}
		if (b != NONE && e->start_ns <= first[b]) {
			by_mkdir[b] = 0;
			first[b] = e->start_ns;
		}
	}
	for (uint32_t x = 0; x < C->N.n; x++) {
		struct name *nm = &C->N.v[x];

		nm->made_empty = by_mkdir[x] && !nm->renamed &&
				 !nm->below_renamed && !nm->dirty;
	}
	free(first);
	free(by_mkdir);
	return 0;
}

/* pass 0: every path the history names, and which ones are not judged */
static int intern_all(struct ctx *C)
{
	const struct dt_history *h = C->h;

	for (size_t i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		if (!judged_op(e->op))
			continue;
		uint32_t a = names_intern(&C->N, e->name, strlen(e->name), false);

		if (a == NONE)
			return -ENOMEM;
		if ((e->op == DT_OP_RENAME || e->op == DT_OP_LINK) &&
		    names_intern(&C->N, e->name2, strlen(e->name2), false) ==
			    NONE)
			return -ENOMEM;
		if (e->op == DT_OP_READDIR && e->result >= 0 && e->list)
			for (size_t k = 0; k < e->list->n; k++)
				if (child_id(C, a, e->list->ent[k].name, true) ==
				    NONE) {
					/* too long to be a path: not ours */
					continue;
				}
		/* names below them move with them */
		if (!e->result && e->op == DT_OP_RENAME) {
			C->N.v[id_of(C, e->name)].renamed = 1;
			C->N.v[id_of(C, e->name2)].renamed = 1;
		}
		if (!e->result && e->op == DT_OP_RMDIR)
			C->N.v[a].dirty = 1;
		if (!e->result && e->op == DT_OP_MKDIR)
			C->N.v[a].mkdired = 1;
	}
	if (make_trees(C))
		return -ENOMEM;
	if (C->o.fresh_creates && mark_made_empty(C))
		return -ENOMEM;
	/* children lists, and the paths below a dirty dir */
	for (uint32_t x = 0; x < C->N.n; x++) {
		struct name *nm = &C->N.v[x];
		const char *slash = memrchr(nm->path, '/', nm->len);
		uint32_t par = names_find(&C->N, nm->path,
					  slash ? (size_t)(slash - nm->path) : 0);

		if (par != NONE && par != x) {
			nm->next_sibling = C->N.v[par].first_child;
			C->N.v[par].first_child = x;
			nm->parent_made_empty = C->N.v[par].made_empty &&
						!nm->below_renamed &&
						!silly_renamed(nm);
		}
		for (const char *p = nm->path; (p = memchr(p, '/',
			nm->len - (size_t)(p - nm->path))); p++) {
			uint32_t anc = names_find(&C->N, nm->path,
						  (size_t)(p - nm->path));

			if (anc != NONE && C->N.v[anc].dirty) {
				nm->excluded = 1;
				break;
			}
		}
	}
	/*
	 * a rename or link that ties a left-out path to another leaves it
	 * out; a tree move with a left-out path leaves out all of its paths
	 */
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < h->n; i++) {
			const struct dt_event *e = &h->ev[i];

			if (e->result || (e->op != DT_OP_RENAME &&
					  e->op != DT_OP_LINK))
				continue;
			uint32_t a = id_of(C, e->name), b = id_of(C, e->name2);
			const struct tree *tr = C->ev_tree[i] == NONE ? NULL :
						&C->trees[C->ev_tree[i]];
			bool any = C->N.v[a].excluded || C->N.v[b].excluded;

			for (uint32_t k = 0; tr && k < 2 * tr->n + 1; k++) {
				uint32_t x = k < 2 * tr->n ? C->pairs[tr->off + k] :
							     tr->par;

				any |= x != NONE && C->N.v[x].excluded;
			}
			if (!any)
				continue;
			changed |= exclude(C, a) | exclude(C, b);
			for (uint32_t k = 0; tr && k < 2 * tr->n + 1; k++)
				changed |= exclude(C, k < 2 * tr->n ?
						   C->pairs[tr->off + k] : tr->par);
		}
	}
	for (uint32_t x = 0; x < C->N.n; x++)
		C->res->excluded_names += C->N.v[x].excluded;
	return 0;
}

/* a read op on path a */
static struct op read_op(uint32_t ev, uint32_t a, bool present, uint64_t fid,
			 unsigned tmask)
{
	return (struct op){ .ev = ev, .a = a, .b = NONE, .kind = K_READ,
			    .present = present, .fid = present ? fid : 0,
			    .tmask = present ? (uint8_t)tmask : 0,
			    .tree = NONE };
}

/*
 * An open with O_CREAT changes the name like a create (exclusive with
 * O_EXCL, else "create or open what is there"), but its answer carries no
 * fileid.  ENOENT means a missing parent, which this flat model does not
 * hold: no information.  The server decides it: never widened.
 */
static int open_creat_op(struct ctx *C, size_t i, struct op *o)
{
	const struct dt_event *e = &C->h->ev[i];
	int err = e->result < 0 ? -e->result : 0;

	if (!err) {
		o->kind = e->flags & DT_EVF_EXCL ? K_CREATE : K_CREATE_NX;
		o->fid = 0;
		o->tmask = TM_FILE;
	} else if (err == EEXIST && (e->flags & DT_EVF_EXCL)) {
		*o = read_op((uint32_t)i, o->a, true, 0, TM_ANY);
	} else if (err == EISDIR) {
		*o = read_op((uint32_t)i, o->a, true, 0, TM_DIR);
	} else if (err == ENOENT) {
		return 0;
	} else {
		return -1;
	}
	op_interval(C, e, false, o);
	return 1;
}

#define RENAME_NESTED (-2)
#define XDEV_ONE_FS (-3)		/* EXDEV between two names of one fs */
#define EINVAL_NOT_NESTED (-4)	/* rename EINVAL: never into itself */

/* the length of path's parent directory ("" for a top-level name) */
static size_t parent_len(const char *path, size_t len)
{
	const char *slash = memrchr(path, '/', len);

	return slash ? (size_t)(slash - path) : 0;
}

/*
 * The length of the directory whose filesystem holds path: its parent,
 * and up while that directory was made by a MKDIR of the history (a
 * directory made by mkdir is on the filesystem of its own parent: only
 * a mount point could put another one there, and no test mounts inside
 * its scratch directory).
 */
static size_t fs_anchor_len(const struct ctx *C, const char *path)
{
	size_t len = parent_len(path, strlen(path));

	for (;;) {
		uint32_t d = len ? names_find(&C->N, path, len) : NONE;

		if (d == NONE || !C->N.v[d].mkdired)
			return len;
		len = parent_len(path, len);
	}
}

/*
 * EXDEV from rename(a, b) or link(a, b) says a and b are on two
 * filesystems: impossible when both lie below one directory through
 * directories the history made (or in one directory).
 */
static bool xdev_one_fs(const struct ctx *C, const struct dt_event *e)
{
	size_t la = fs_anchor_len(C, e->name), lb = fs_anchor_len(C, e->name2);

	return la == lb && !memcmp(e->name, e->name2, la);
}

/* path p (length pl) is q or below it */
static bool at_or_below(const char *p, size_t pl, const char *q, size_t ql)
{
	return pl >= ql && !memcmp(p, q, ql) &&
	       (pl == ql || !ql || p[ql] == '/');
}

/*
 * rename(a, b) answers EINVAL when b's directory lies inside a (a
 * directory moved into itself).  By path: b below a.  By handle: the
 * client may have resolved b's directory before it moved, so also when
 * the history moves that directory or one of its ancestors to a or
 * below it, at any time (a stale cache may still place it there).  Any
 * other EINVAL is a wrong answer: e.g. a loser whose source had already
 * been moved away, which is ENOENT.
 */
static bool einval_explained(const struct ctx *C, const struct dt_event *e)
{
	const struct dt_history *h = C->h;
	size_t la = strlen(e->name), lb = strlen(e->name2);
	size_t ld = parent_len(e->name2, lb);

	if (at_or_below(e->name2, lb, e->name, la))
		return true;
	for (size_t i = 0; i < h->n; i++) {
		const struct dt_event *r = &h->ev[i];

		if (r->op != DT_OP_RENAME || r->result)
			continue;
		if (at_or_below(e->name2, ld, r->name, strlen(r->name)) &&
		    at_or_below(r->name2, strlen(r->name2), e->name, la))
			return true;
	}
	return false;
}

/*
 * renameat2(RENAME_NOREPLACE): success needs b absent, in the same atomic
 * step as the move; EEXIST says b was present; ENOENT a absent.  EINVAL
 * (the flag not supported: Linux's NFS client) and the plain rename's
 * other no-change errors tell nothing.  a == b cannot succeed on Linux
 * (EEXIST); if it does it is taken as the no-op it is for plain rename.
 */
static int rename_noreplace_op(struct ctx *C, size_t i, uint32_t a,
			       uint32_t b, struct op *o)
{
	const struct dt_event *e = &C->h->ev[i];
	int err = e->result < 0 ? -e->result : 0;

	if (!err && a == b) {
		*o = read_op((uint32_t)i, a, true, 0, TM_ANY);
	} else if (!err && rename_nests(C, a, b)) {
		return RENAME_NESTED;
	} else if (!err) {
		o->kind = K_RENAME_NR;
		o->b = b;
		o->tree = C->ev_tree[i];
	} else if (err == EEXIST) {
		*o = read_op((uint32_t)i, b, true, 0, TM_ANY);
	} else if (err == ENOENT && C->N.v[b].below_renamed) {
		return 0;	/* a absent, or b's parent moved away */
	} else if (err == ENOENT) {
		*o = read_op((uint32_t)i, a, false, 0, 0);
	} else if (err == EXDEV && xdev_one_fs(C, e)) {
		return XDEV_ONE_FS;
	} else if (err == EINVAL || err == ENOTEMPTY || err == EISDIR ||
		   err == ENOTDIR || err == EXDEV || err == EBUSY) {
		return 0;
	} else {
		return -1;
	}
	op_interval(C, e, false, o);
	return 1;
}

/*
 * pass 1: the op one (non-listing) event is.  Returns 1 made an op, 0 none
 * needed (a no-change error), -1 unexpected error, RENAME_NESTED a rename
 * into itself (or onto its own ancestor) that succeeded, -ENOMEM.
 */
static int event_op(struct ctx *C, size_t i, struct op *o)
{
	const struct dt_event *e = &C->h->ev[i];
	uint32_t a = id_of(C, e->name), b = NONE;
	int err = e->result < 0 ? -e->result : 0;
	bool cached_read = false;

	if (e->op == DT_OP_RENAME || e->op == DT_OP_LINK)
		b = id_of(C, e->name2);
	*o = (struct op){ .ev = (uint32_t)i, .a = a, .b = NONE, .tree = NONE };
	switch (e->op) {
	case DT_OP_OPEN:
		if (e->flags & DT_EVF_CREAT)
			return open_creat_op(C, i, o);
		/* without O_CREAT an open is a lookup */
		__attribute__((fallthrough));
	case DT_OP_LOOKUP:
		cached_read = true;
		if (!err)
			*o = read_op((uint32_t)i, a, true, e->fileid, TM_ANY);
		else if (err == ENOENT)
			*o = read_op((uint32_t)i, a, false, 0, 0);
		else if (err == EISDIR && e->op == DT_OP_OPEN)
			*o = read_op((uint32_t)i, a, true, 0, TM_DIR);
		else
			return -1;
		break;
	case DT_OP_CREATE:
	case DT_OP_MKDIR:
		if (!err) {
			o->kind = e->op == DT_OP_MKDIR ? K_CREATE :
				  (e->flags & DT_EVF_EXCL) ? K_CREATE : K_CREATE_NX;
			o->fid = e->fileid;
			o->tmask = e->op == DT_OP_MKDIR ? TM_DIR : TM_FILE;
		} else if (err == EEXIST) {
			*o = read_op((uint32_t)i, a, true, 0, TM_ANY);
		} else if (err == EISDIR && e->op == DT_OP_CREATE) {
			*o = read_op((uint32_t)i, a, true, 0, TM_DIR);
		} else if (err == ENOENT && C->N.v[a].below_renamed) {
			return 0;	/* its parent moved away: no information */
		} else {
			return -1;
		}
		break;
	case DT_OP_UNLINK:
	case DT_OP_RMDIR:
		if (!err) {
			o->kind = K_REMOVE;
			o->tmask = e->op == DT_OP_RMDIR ? TM_DIR : TM_FILE;
		} else if (err == ENOENT) {
			*o = read_op((uint32_t)i, a, false, 0, 0);
		} else if (err == ENOTEMPTY || err == EEXIST) {
			*o = read_op((uint32_t)i, a, true, 0, TM_DIR);
		} else if (err == EISDIR && e->op == DT_OP_UNLINK) {
			*o = read_op((uint32_t)i, a, true, 0, TM_DIR);
		} else if (err == ENOTDIR && e->op == DT_OP_RMDIR) {
			*o = read_op((uint32_t)i, a, true, 0, TM_FILE);
		} else {
			return -1;
		}
		break;
	case DT_OP_RENAME:
		if (e->flags & DT_EVF_NOREPLACE)
			return rename_noreplace_op(C, i, a, b, o);
		if (!err && a == b) {
			/* rename(p, p): POSIX does nothing, p exists */
			*o = read_op((uint32_t)i, a, true, 0, TM_ANY);
		} else if (!err && rename_nests(C, a, b)) {
			return RENAME_NESTED;
		} else if (!err) {
			o->kind = K_RENAME;
			o->b = b;
			o->tree = C->ev_tree[i];
		} else if (err == ENOENT && C->N.v[b].below_renamed) {
			return 0;	/* a absent, or b's parent moved away */
		} else if (err == ENOENT) {
			*o = read_op((uint32_t)i, a, false, 0, 0);
		} else if ((err == EEXIST || err == ENOTEMPTY) &&
			   !C->N.v[b].below_renamed) {
			/* b is there: a directory not empty (rename(2)), or
			 * of a type a cannot replace (NFSv4 NFS4ERR_EXIST) */
			*o = read_op((uint32_t)i, b, true, 0, TM_ANY);
		} else if (err == EXDEV && xdev_one_fs(C, e)) {
			return XDEV_ONE_FS;
		} else if (err == EINVAL && !einval_explained(C, e)) {
			return EINVAL_NOT_NESTED;
		} else if (err == EINVAL || err == EEXIST || err == ENOTEMPTY ||
			   err == EISDIR || err == ENOTDIR || err == EXDEV ||
			   err == EBUSY) {
			return 0;
		} else {
			return -1;
		}
		break;
	case DT_OP_LINK:
		if (!err) {
			o->kind = K_LINK;
			o->b = b;
		} else if (err == EEXIST) {
			*o = read_op((uint32_t)i, b, true, 0, TM_ANY);
		} else if (err == ENOENT && C->N.v[b].below_renamed) {
			return 0;	/* a absent, or b's parent moved away */
		} else if (err == ENOENT) {
			*o = read_op((uint32_t)i, a, false, 0, 0);
		} else if (err == EPERM) {
			*o = read_op((uint32_t)i, a, true, 0, TM_DIR);
		} else if (err == EXDEV && !xdev_one_fs(C, e)) {
			return 0;	/* two filesystems, as far as we know */
		} else if (err == EXDEV) {
			return XDEV_ONE_FS;
		} else {
			return -1;
		}
		break;
	case DT_OP_READDIR:
		cached_read = true;
		if (err == ENOENT)
			*o = read_op((uint32_t)i, a, false, 0, 0);
		else if (err == ENOTDIR)
			*o = read_op((uint32_t)i, a, true, 0, TM_FILE);
		else if (!err)
			*o = read_op((uint32_t)i, a, true, 0, TM_DIR);
		else
			return -1;
		break;
	default:
		return 0;
	}
	op_interval(C, e, cached_read, o);
	return 1;
}

static int u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* count of sorted v[0..n) below x */
static size_t count_below(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* per path: the intervals of the ops that change it, sorted */
static int index_changes(struct ctx *C)
{
	size_t total = 0;

	for (size_t i = 0; i < C->nops; i++) {
		const struct op *o = &C->ops[i];
		uint32_t nt;
		const uint32_t *t = op_tree_paths(o, C->trees, C->pairs, &nt);

		if (!op_changes(o))
			continue;
		C->N.v[o->a].nmut++;
		if (o->b != NONE)
			C->N.v[o->b].nmut++;
		for (uint32_t j = 0; j < nt; j++)
			if (t[j] != NONE)
				C->N.v[t[j]].nmut++;
	}
	for (uint32_t x = 0; x < C->N.n; x++) {
		C->N.v[x].mut_off = (uint32_t)total;
		total += C->N.v[x].nmut;
		C->N.v[x].nmut = 0;
	}
	C->mut_s = malloc((total ? total : 1) * sizeof(*C->mut_s));
	C->mut_e = malloc((total ? total : 1) * sizeof(*C->mut_e));
	if (!C->mut_s || !C->mut_e)
		return -ENOMEM;
	for (size_t i = 0; i < C->nops; i++) {
		const struct op *o = &C->ops[i];
		uint32_t p[2] = { o->a, o->b };

		if (!op_changes(o))
			continue;
		for (int j = 0; j < 2 && p[j] != NONE; j++) {
			struct name *nm = &C->N.v[p[j]];

			C->mut_s[nm->mut_off + nm->nmut] = o->s;
			C->mut_e[nm->mut_off + nm->nmut++] = o->e;
		}
		uint32_t nt;
		const uint32_t *t = op_tree_paths(o, C->trees, C->pairs, &nt);

		for (uint32_t j = 0; j < nt; j++) {
			struct name *nm;

			if (t[j] == NONE)
				continue;
			nm = &C->N.v[t[j]];
			C->mut_s[nm->mut_off + nm->nmut] = o->s;
			C->mut_e[nm->mut_off + nm->nmut++] = o->e;
		}
	}
	for (uint32_t x = 0; x < C->N.n; x++) {
		struct name *nm = &C->N.v[x];

		if (nm->nmut > 1) {
			qsort(C->mut_s + nm->mut_off, nm->nmut, sizeof(uint64_t),
			      u64_cmp);
			qsort(C->mut_e + nm->mut_off, nm->nmut, sizeof(uint64_t),
			      u64_cmp);
		}
	}
	return 0;
}

/*
 * Read your own changes.  The stale window lets a caching client show
 * another client's change late, but a client's own completed change is
 * in its own caches: after host H's unlink or rename of p returned, a
 * lookup of p that H starts later must not show the state before it.
 * (One kernel serves every thread of a host, so "own" is per host, not
 * per thread.)  Such a read's interval starts after the end of the latest
 * change of p by its own host that ended before the read started: it may
 * still see later changes by anyone, and stale ones no older than that.
 * Listings are left as they are: a client may serve them from a readdir
 * cache its own changes only mark for revalidation.
 */
struct own_change {
	uint32_t path;
	uint16_t host;
	uint64_t end;		/* the event's end, the host's own clock */
	uint64_t judged_end;	/* the op's judged end (skew applied) */
};

static int own_cmp(const void *x, const void *y)
{
	const struct own_change *a = x, *b = y;

	if (a->path != b->path)
		return a->path < b->path ? -1 : 1;
	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static int bound_reads_by_own_changes(struct ctx *C)
{
	struct own_change *v;
	size_t n = 0;

	if (!C->o.stale_ns && !C->res->multi_host)
		return 0;	/* reads are not widened: nothing to narrow */
	v = malloc((2 * C->nops + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < C->nops; i++) {
		const struct op *o = &C->ops[i];
		const struct dt_event *e = &C->h->ev[o->ev];
		uint32_t p[2] = { o->a, o->b };

		if (!op_changes(o))
			continue;
		for (int j = 0; j < 2 && p[j] != NONE; j++)
			v[n++] = (struct own_change){ p[j], e->host,
						      dt_ev_end(e), o->e };
	}
	qsort(v, n, sizeof(*v), own_cmp);
	for (size_t i = 0; i < C->nops && n; i++) {
		struct op *o = &C->ops[i];
		const struct dt_event *e = &C->h->ev[o->ev];
		size_t lo = 0, hi = n;

		if (op_changes(o) ||
		    (e->op != DT_OP_LOOKUP && e->op != DT_OP_OPEN))
			continue;
		/* the last own change of the path that ended before e began */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct own_change *c = &v[mid];

			if (c->path < o->a ||
			    (c->path == o->a && (c->host < e->host ||
			     (c->host == e->host && c->end < e->start_ns))))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && v[lo - 1].path == o->a && v[lo - 1].host == e->host &&
		    v[lo - 1].judged_end + 1 > o->s)
			o->s = v[lo - 1].judged_end + 1;
	}
	free(v);
	return 0;
}

/*
 * Should read o be judged, or has an identical read in the same quiet gap
 * of its path been judged already?  A gap is identified by the number of
 * changes of the path that surely precede the read; the read is in one
 * only if no change overlaps it.  1 judge it, 0 collapsed, -ENOMEM.
 */
static int keep_read(struct ctx *C, const struct op *o)
{
	const struct name *nm = &C->N.v[o->a];
	const uint64_t *ms = C->mut_s + nm->mut_off, *me = C->mut_e + nm->mut_off;
	size_t before = count_below(me, nm->nmut, o->s);
	size_t after = nm->nmut - count_below(ms, nm->nmut, o->e + 1);
	int rc;

	if (o->e == UINT64_MAX)
		after = 0;
	if (before + after != nm->nmut)
		return 1;	/* overlaps a change: judged on its own */
	/* the observation goes into its own mixed word: set128 keeps only
	 * 127 bits of the first */
	rc = set128_add(&C->seen, mix64((uint64_t)o->a << 32 ^ before),
			mix64(o->fid ^ mix64((uint64_t)o->present << 8 |
					     o->tmask)));
	if (rc < 0)
		return rc;
	if (!rc)
		C->res->reads_collapsed++;
	return rc;
}

/* pass 1 and 2: the ops */
static int make_ops(struct ctx *C)
{
	const struct dt_history *h = C->h;
	char what[256], obs[DT_EVLEN];
	size_t kept = 0;
	int rc;

	for (size_t i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];
		struct op o;

		if (!judged_op(e->op)) {
			/* an opcode this build lacks; READ, CLOSE: below */
			if (e->op != DT_OP_READ && e->op != DT_OP_CLOSE)
				C->res->ignored++;
			continue;
		}
		if (C->N.v[id_of(C, e->name)].excluded ||
		    ((e->op == DT_OP_RENAME || e->op == DT_OP_LINK) &&
		     C->N.v[id_of(C, e->name2)].excluded)) {
			C->res->not_judged++;
			continue;
		}
		rc = event_op(C, i, &o);
		if (rc == RENAME_NESTED) {
			direct(C, i, "rename into itself succeeded: a directory "
			       "moved below itself (or onto its own ancestor)",
			       "EINVAL (or ENOTEMPTY/EEXIST for the ancestor): "
			       "POSIX lets neither succeed",
			       dt_judge_evdesc(&C->judge, i, obs, sizeof(obs)));
			C->res->judged++;
			continue;
		}
		if (rc < 0) {
			if (C->o.accept_errors) {
				C->res->errors_accepted++;
				continue;
			}
			if (rc == XDEV_ONE_FS)
				dt_say(what, "unexpected error: %s answered EXDEV "
				       "for two names of one filesystem (one "
				       "directory, or directories made in it)",
				       dt_op_name((enum dt_opcode)e->op));
			else if (rc == EINVAL_NOT_NESTED)
				dt_say(what, "unexpected error: rename answered "
				       "EINVAL, but the target's directory never "
				       "was inside the source (no rename of the "
				       "history puts it there)");
			else
				dt_say(what, "unexpected error: %s never returns %s",
				       dt_op_name((enum dt_opcode)e->op),
				       dt_strerr(e->result));
			direct(C, i, what, "a result the model allows (0, or an errno that says absent/present)",
			       dt_judge_evdesc(&C->judge, i, obs, sizeof(obs)));
			C->res->judged++;
			continue;
		}
		C->res->judged++;
		if (rc && push_op(C, &o))
			return -ENOMEM;
	}
	if (judge_handles(C) || bound_reads_by_own_changes(C) ||
	    index_changes(C))
		return -ENOMEM;
	/* collapse the reads of pass 1 */
	for (size_t i = 0; i < C->nops; i++) {
		if (!op_changes(&C->ops[i])) {
			rc = keep_read(C, &C->ops[i]);
			if (rc < 0)
				return rc;
			if (!rc)
				continue;
		}
		C->ops[kept++] = C->ops[i];
	}
	C->nops = kept;
	/* pass 2: each listing is one read per known child of its dir */
	for (size_t i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];
		uint32_t d, c;
		bool dup = false;

		if (e->op != DT_OP_READDIR || e->result < 0 || !e->list)
			continue;
		d = id_of(C, e->name);
		if (C->N.v[d].excluded)
			continue;
		for (size_t k = 0; k < e->list->n; k++) {
			c = child_id(C, d, e->list->ent[k].name, false);
			if (c == NONE)
				continue;
			if (C->N.v[c].excluded) {
				C->res->entries_not_judged++;
				continue;
			}
			if (C->N.v[c].mark == i + 1 &&
			    fid_conflict(C->N.v[c].mark_fid,
					 e->list->ent[k].fileid)) {
				/* two files: one removed, one made under the
				 * name during the listing (POSIX leaves both
				 * unspecified); either may be the one seen */
				C->N.v[c].mark_fid = 0;
				continue;
			}
			if (C->N.v[c].mark == i + 1) {
				if (!dup) {
					dt_say(what, "duplicate entry in a listing: %s",
					       e->list->ent[k].name);
					direct(C, i, what, "every name at most once",
					       dt_judge_evdesc(&C->judge, i, obs,
							       sizeof(obs)));
					if (C->direct.event == i)
						snprintf(C->direct_dup,
							 sizeof(C->direct_dup),
							 "%s", e->list->ent[k].name);
				}
				dup = true;
				continue;
			}
			C->N.v[c].mark = (uint32_t)i + 1;
			C->N.v[c].mark_fid = e->list->ent[k].fileid;
		}
		for (c = C->N.v[d].first_child; c != NONE;
		     c = C->N.v[c].next_sibling) {
			const struct name *cn = &C->N.v[c];
			bool listed = cn->mark == i + 1;
			struct op o;

			if (cn->excluded)
				continue;
			o = read_op((uint32_t)i, c, listed, listed ? cn->mark_fid : 0,
				    TM_ANY);
			o.listing = 1;
			op_interval(C, e, true, &o);
			rc = keep_read(C, &o);
			if (rc < 0)
				return rc;
			if (rc && push_op(C, &o))
				return -ENOMEM;
		}
	}
	C->res->ops = C->nops;
	return 0;
}

static int op_cmp(const void *x, const void *y)
{
	const struct op *a = x, *b = y;

	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->e != b->e)
		return a->e < b->e ? -1 : 1;
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* union-find over two-path ops; ops grouped and sorted per component */
static int make_components(struct ctx *C)
{
	uint32_t *root_comp;
	size_t nc = 0;

	for (size_t i = 0; i < C->nops; i++) {
		const struct op *o = &C->ops[i];
		uint32_t nt;
		const uint32_t *t = op_tree_paths(o, C->trees, C->pairs, &nt);

		if (o->b != NONE)
			uf_union(&C->N, o->a, o->b);
		for (uint32_t j = 0; j < nt; j++)
			if (t[j] != NONE)
				uf_union(&C->N, o->a, t[j]);
		if (o->tree != NONE && C->trees[o->tree].par != NONE)
			uf_union(&C->N, o->a, C->trees[o->tree].par);
	}
	root_comp = malloc((C->N.n ? C->N.n : 1) * sizeof(*root_comp));
	if (!root_comp)
		return -ENOMEM;
	for (size_t x = 0; x < C->N.n; x++)
		root_comp[x] = NONE;
	for (size_t i = 0; i < C->nops; i++) {
		uint32_t r = uf_find(&C->N, C->ops[i].a);

		if (root_comp[r] == NONE)
			root_comp[r] = (uint32_t)nc++;
	}
	C->comps = calloc(nc ? nc : 1, sizeof(*C->comps));
	C->cops = malloc((C->nops ? C->nops : 1) * sizeof(*C->cops));
	C->cnames = malloc((C->N.n ? C->N.n : 1) * sizeof(*C->cnames));
	if (!C->comps || !C->cops || !C->cnames) {
		free(root_comp);
		return -ENOMEM;
	}
	C->ncomps = nc;
	for (size_t i = 0; i < C->nops; i++)
		C->comps[root_comp[uf_find(&C->N, C->ops[i].a)]].n++;
	uint32_t off = 0;
	for (size_t c = 0; c < nc; c++) {
		C->comps[c].off = off;
		off += C->comps[c].n;
		C->comps[c].n = 0;
	}
	for (size_t i = 0; i < C->nops; i++) {
		struct comp *cp = &C->comps[root_comp[uf_find(&C->N,
							     C->ops[i].a)]];

		C->cops[cp->off + cp->n++] = C->ops[i];
	}
	/* local path ids, in order of first appearance */
	uint32_t noff = 0;
	for (size_t c = 0; c < nc; c++) {
		struct comp *cp = &C->comps[c];
		struct op *ops = C->cops + cp->off;

		qsort(ops, cp->n, sizeof(*ops), op_cmp);
		cp->noff = noff;
		for (uint32_t i = 0; i < cp->n; i++) {
			struct tree *t = ops[i].tree == NONE ? NULL :
					 &C->trees[ops[i].tree];
			uint32_t nt = t ? 2 * t->n + 1 : 0;

			/* a, b, then the tree's paths and parent (each tree
			 * is one op's: converted once) */
			for (uint32_t j = 0; j < 2 + nt; j++) {
				uint32_t *p = j == 0 ? &ops[i].a :
					      j == 1 ? &ops[i].b :
					      j - 2 < 2 * t->n ?
					      &C->pairs[t->off + j - 2] : &t->par;
				struct name *nm;

				if (*p == NONE)
					continue;
				nm = &C->N.v[*p];
				if (nm->local == NONE) {
					nm->local = cp->nnames++;
					C->cnames[noff++] = *p;
				}
				*p = nm->local;
			}
		}
	}
	free(root_comp);
	free(C->ops);
	C->ops = NULL;
	C->nops = 0;
	return 0;
}

/* scratch for searching up to n ops over up to nn paths */
static int scratch_reserve(struct ctx *C, size_t n, size_t nn)
{
	struct search *S = &C->S;

	if (n > C->scratch_cap) {
		free(S->nx);
		free(S->pv);
		free(S->fr);
		free(C->pos);
		free(C->inset);
		free(C->retord);
		S->nx = malloc((2 * n + 2) * sizeof(*S->nx));
		S->pv = malloc((2 * n + 2) * sizeof(*S->pv));
		S->fr = malloc((n + 1) * sizeof(*S->fr));
		free(S->cand);
		S->cand = malloc((n + 1) * sizeof(*S->cand));
		C->pos = malloc((n + 1) * sizeof(*C->pos));
		C->inset = malloc((n + 1) * sizeof(*C->inset));
		C->retord = malloc((n + 1) * sizeof(*C->retord));
		C->scratch_cap = n;
		if (!S->nx || !S->pv || !S->fr || !S->cand || !C->pos || !C->inset ||
		    !C->retord) {
			C->scratch_cap = 0;
			return -ENOMEM;
		}
	}
	if (nn > C->names_cap) {
		free(S->st);
		free(S->first_change);
		S->st = malloc((nn + 1) * sizeof(*S->st));
		S->first_change = malloc((nn + 1) * sizeof(*S->first_change));
		C->names_cap = S->st && S->first_change ? nn : 0;
		if (!S->st || !S->first_change)
			return -ENOMEM;
	}
	return 0;
}

static int ret_cmp(const void *x, const void *y, void *arg)
{
	const struct op *ops = arg;
	const struct op *a = &ops[*(const uint32_t *)x];
	const struct op *b = &ops[*(const uint32_t *)y];
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;

	if (a->e != b->e)
		return a->e < b->e ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* the component's positions in order of return (once per component) */
static void order_returns(struct ctx *C, const struct comp *cp)
{
	for (uint32_t i = 0; i < cp->n; i++)
		C->retord[i] = i;
	qsort_r(C->retord, cp->n, sizeof(*C->retord), ret_cmp,
		C->cops + cp->off);
}

/*
 * fresh_creates: a path whose first change in the whole component (never
 * just the subset being shrunk: the assumption must hold for the history)
 * is a create starts ABSENT instead of UNKNOWN, while that create is in
 * the subset (shrinking that drops it leaves the path UNKNOWN, as for any
 * dropped prefix: else the counterexample could blame a later change for
 * a state only the dropped create explained).  The memo hash stays sound:
 * the initial states are the same for the whole search.
 */
static void fresh_initial_states(const struct ctx *C, struct search *S,
				 const struct op *ops, const struct comp *cp,
				 const uint32_t *inset)
{
	/* FIRST_DROPPED: the first change is one the shrinking dropped */
	enum { FIRST_UNSEEN, FIRST_CREATE, FIRST_OTHER, FIRST_DROPPED };
	uint64_t *earliest = calloc(cp->nnames ? cp->nnames : 1,
				    sizeof(*earliest));

	if (!earliest)
		return;		/* UNKNOWN: weaker, never wrong */
	/* st[].type is scratch here: what the first change is */
	for (uint32_t j = 0; j < cp->nnames; j++)
		S->st[j].type = FIRST_UNSEEN;
	/* first pass: the earliest start of a change per path */
	for (uint32_t j = 0; j < cp->nnames; j++)
		earliest[j] = UINT64_MAX;
	for (uint32_t k = 0; k < cp->n; k++) {
		const struct op *o = &ops[k];
		uint32_t nt;
		const uint32_t *t = op_tree_paths(o, S->trees, S->pairs, &nt);

		if (!op_changes(o))
			continue;
		if (o->s < earliest[o->a])
			earliest[o->a] = o->s;
		if (o->b != NONE && o->s < earliest[o->b])
			earliest[o->b] = o->s;
		for (uint32_t j = 0; j < nt; j++)
			if (t[j] != NONE && o->s < earliest[t[j]])
				earliest[t[j]] = o->s;
	}
	/* second pass: is every change starting then an exclusive create? */
	for (uint32_t k = 0; k < cp->n; k++) {
		const struct op *o = &ops[k];

		if (!op_changes(o))
			continue;
		/* a create the shrinking dropped: the path may have been
		 * anything before the kept ops (as a dropped prefix's are) */
		if (o->s == earliest[o->a] && S->st[o->a].type != FIRST_DROPPED)
			S->st[o->a].type = inset[k] == NONE ? FIRST_DROPPED :
					   (o->kind == K_CREATE ||
					    o->kind == K_CREATE_NX) &&
					   S->st[o->a].type != FIRST_OTHER ?
					   FIRST_CREATE : FIRST_OTHER;
		if (o->b != NONE && o->s == earliest[o->b] &&
		    S->st[o->b].type != FIRST_DROPPED)
			S->st[o->b].type = inset[k] == NONE ? FIRST_DROPPED :
							      FIRST_OTHER;
		/* moved with a directory: not made here */
		uint32_t nt;
		const uint32_t *t = op_tree_paths(o, S->trees, S->pairs, &nt);

		for (uint32_t j = 0; j < nt; j++)
			if (t[j] != NONE && o->s == earliest[t[j]])
				S->st[t[j]].type = FIRST_OTHER;
	}
	/*
	 * A path right below a directory the history made empty is absent
	 * until the history's first change of it, unless the shrinking
	 * dropped that change (then, as for any dropped prefix, UNKNOWN).
	 */
	for (uint32_t j = 0; j < cp->nnames; j++) {
		int first = S->st[j].type;
		bool absent = first == FIRST_CREATE ||
			      (first != FIRST_DROPPED &&
			       C->N.v[C->cnames[cp->noff + j]].parent_made_empty);

		S->st[j] = (struct nst){ .kind = absent ? S_ABSENT : S_UNKNOWN };
	}
	free(earliest);
}

/*
 * Search the subset pos[0..n) (ascending positions) of component cp.
 * Returns SR_*.
 */
static int search_subset(struct ctx *C, const struct comp *cp,
			 const uint32_t *pos, uint32_t n, uint64_t budget)
{
	struct search *S = &C->S;
	const struct op *ops = C->cops + cp->off;
	int32_t last = HEAD;
	uint32_t ci = 0;
	int rc;

	S->op = ops;
	S->pos = pos;
	S->n = n;
	S->h1 = S->h2 = 0;
	S->steps = 0;
	S->budget = budget;
	S->deadline = C->o.deadline_ns;
	S->deepest = 0;
	S->blocked = NONE;
	set128_clear(&S->memo);
	for (uint32_t j = 0; j < cp->nnames; j++) {
		S->st[j] = (struct nst){ 0 };
		S->first_change[j] = UINT64_MAX;
	}
	S->ntu = 0;
	for (uint32_t k = 0; k < n; k++) {
		const struct op *o = &ops[pos[k]];
		uint32_t nt;
		const uint32_t *t = op_tree_paths(o, S->trees, S->pairs, &nt);

		if (!op_changes(o))
			continue;
		if (o->s < S->first_change[o->a])
			S->first_change[o->a] = o->s;
		if (o->b != NONE && o->s < S->first_change[o->b])
			S->first_change[o->b] = o->s;
		for (uint32_t j = 0; j < nt; j++)
			if (t[j] != NONE && o->s < S->first_change[t[j]])
				S->first_change[t[j]] = o->s;
	}
	for (uint32_t i = 0; i < cp->n; i++)
		C->inset[i] = NONE;
	for (uint32_t k = 0; k < n; k++)
		C->inset[pos[k]] = k;
	if (C->o.fresh_creates)
		fresh_initial_states(C, S, ops, cp, C->inset);
	/* merge calls (by start) and returns (by end); a call first on ties:
	 * ops that touch are concurrent */
	S->nx[HEAD] = TAIL;
	S->pv[TAIL] = HEAD;
	for (uint32_t ri = 0; ri < cp->n; ri++) {
		uint32_t k = C->inset[C->retord[ri]];
		uint64_t re;

		if (k == NONE)
			continue;
		re = ops[pos[k]].e;
		while (ci < n && ops[pos[ci]].s <= re) {
			S->nx[last] = CALL(ci);
			S->pv[CALL(ci)] = last;
			last = CALL(ci++);
		}
		S->nx[last] = RET(k);
		S->pv[RET(k)] = last;
		last = RET(k);
	}
	S->nx[last] = TAIL;
	S->pv[TAIL] = last;
	rc = search_run(S);
	return rc;
}

/* ---- reporting ------------------------------------------------------------- */

static const char *state_text(const struct nst *s, char *buf, size_t len)
{
	static const char *const tn[] = { "", " (file)", " (dir)" };

	switch (s->kind) {
	case S_ABSENT:
		return "absent";
	case S_PRESENT:
		snprintf(buf, len, "present fileid %" PRIu64 "%s", s->fid,
			 tn[s->type % 3]);
		return buf;
	default:
		return "unknown";
	}
}

static const char *need_text(const struct op *o, const char *pa,
			     const char *pb, char *buf, size_t len)
{
	switch (o->kind) {
	case K_READ:
		if (!o->present)
			snprintf(buf, len, "%s absent", pa);
		else if (o->fid)
			snprintf(buf, len, "%s present with fileid %" PRIu64,
				 pa, o->fid);
		else
			snprintf(buf, len, "%s present%s", pa,
				 o->tmask == TM_DIR ? " (a dir)" :
				 o->tmask == TM_FILE ? " (not a dir)" : "");
		break;
	case K_CREATE:
		snprintf(buf, len, "%s absent (exclusive create)", pa);
		break;
	case K_CREATE_NX:
		snprintf(buf, len, "%s absent or the same file", pa);
		break;
	case K_REMOVE:
		snprintf(buf, len, "%s present", pa);
		break;
	case K_RENAME:
		snprintf(buf, len, "%s present, %s replaceable", pa, pb);
		break;
	case K_LINK:
		snprintf(buf, len, "%s present, %s absent", pa, pb);
		break;
	case K_RENAME_NR:
		snprintf(buf, len, "%s present, %s absent (RENAME_NOREPLACE)",
			 pa, pb);
		break;
	}
	return buf;
}

/*
 * One event as a dump line.  With cp, a listing shows only the entries of
 * the paths whose reads are in the subset pos[0..n) and says which of them
 * it did not list; without, the whole listing.
 */
static void event_line(struct ctx *C, FILE *f, size_t ev,
		       const struct comp *cp, const uint32_t *pos, uint32_t n)
{
	const struct dt_event *e = &C->h->ev[ev];

	dt_history_put_head(f, C->h, ev, C->judge.t0);
	if (e->list && !cp) {
		/* a duplicate: the name twice still proves it, and reads */
		const char *only = ev == C->direct.event && C->direct_dup[0] ?
				   C->direct_dup : NULL;
		bool first = true;

		fputs(" [", f);
		for (size_t k = 0; k < e->list->n; k++) {
			if (only && strcmp(e->list->ent[k].name, only))
				continue;
			if (!first)
				fputc(',', f);
			first = false;
			dt_history_put_name(f, e->list->ent[k].name);
			fprintf(f, ":%" PRIu64, e->list->ent[k].fileid);
		}
		fputc(']', f);
		if (only)
			fprintf(f, " # listing of %zu entries, shown: the "
				"duplicate", e->list->n);
	} else if (e->list) {
		const struct op *ops = C->cops + cp->off;
		char absent[512] = "";
		size_t al = 0;
		bool first = true;

		fputs(" [", f);
		for (uint32_t k = 0; k < n; k++) {
			const struct op *o = &ops[pos[k]];
			const struct name *nm;
			const char *base;

			if (o->ev != ev || !o->listing)
				continue;
			nm = &C->N.v[C->cnames[cp->noff + o->a]];
			base = memrchr(nm->path, '/', nm->len);
			base = base ? base + 1 : nm->path;
			if (!o->present) {
				if (al + strlen(base) + 2 < sizeof(absent))
					al += (size_t)snprintf(absent + al,
						sizeof(absent) - al, " %s", base);
				continue;
			}
			if (!first)
				fputc(',', f);
			first = false;
			dt_history_put_name(f, base);
			fprintf(f, ":%" PRIu64, o->fid);
		}
		fprintf(f, "] # listing of %zu entries, shown: the paths "
			"judged%s%s", e->list->n,
			*absent ? "; not listed:" : "", absent);
	}
	fputc('\n', f);
}

/*
 * The dump lines of events evs[0..nev) (see event_line) into *text;
 * 0 or -ENOMEM.
 */
static int render_events(struct ctx *C, char **text, const size_t *evs,
			 size_t nev, const struct comp *cp,
			 const uint32_t *pos, uint32_t n)
{
	size_t len = 0;
	FILE *f = open_memstream(text, &len);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < nev; i++)
		event_line(C, f, evs[i], cp, pos, n);
	if (ferror(f) | fclose(f)) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int size_cmp(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return a < b ? -1 : a > b;
}

/* The counterexample: the events of the ops pos[0..n), as dump lines. */
static int cex_render(struct ctx *C, const struct comp *cp,
		      const uint32_t *pos, uint32_t n)
{
	struct dt_check_result *R = C->res;
	const struct op *ops = C->cops + cp->off;
	size_t u = 0;

	R->cex = malloc((n ? n : 1) * sizeof(*R->cex));
	if (!R->cex)
		return -ENOMEM;
	for (uint32_t k = 0; k < n; k++)
		R->cex[k] = ops[pos[k]].ev;
	/* ascending, unique: a listing may contribute several reads */
	dt_sort_n(R->cex, n, sizeof(*R->cex), size_cmp);
	for (size_t i = 0; i < n; i++)
		if (!u || R->cex[u - 1] != R->cex[i])
			R->cex[u++] = R->cex[i];
	R->ncex = u;
	return render_events(C, &R->cex_text, R->cex, R->ncex, cp, pos, n);
}

/* ---- shrinking ----------------------------------------------------------- */

struct shrink {
	struct ctx *C;
	const struct comp *cp;
	uint64_t per_check, left;	/* step budgets */
	uint32_t *tmp;
};

/* does the subset (ascending) still fail?  Spends the shrink budget. */
static bool still_fails(struct shrink *K, const uint32_t *pos, uint32_t n)
{
	uint64_t b = K->per_check < K->left ? K->per_check : K->left;
	int rc;

	if (!b)
		return false;
	rc = search_subset(K->C, K->cp, pos, n, b);
	K->left -= K->C->S.steps < K->left ? K->C->S.steps : K->left;
	K->C->res->shrink_steps += K->C->S.steps;
	return rc == SR_FAIL;
}

/*
 * Keep set[0..k) (+ the suffix's reads dropped): valid when every change
 * in set[k..n) started after every op of set[0..k) ended, so it comes
 * after them in every linearization.  Smallest failing k by bisection.
 */
static uint32_t cut_suffix(struct shrink *K, uint32_t *set, uint32_t n)
{
	const struct op *ops = K->C->cops + K->cp->off;
	uint64_t *pre_end = malloc((n + 1) * sizeof(*pre_end));
	uint64_t *suf_mut_s = malloc((n + 1) * sizeof(*suf_mut_s));
	uint32_t *valid = malloc((n + 1) * sizeof(*valid)), nv = 0, best = n;

	if (!pre_end || !suf_mut_s || !valid)
		goto out;
	pre_end[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t e = ops[set[i]].e;

		pre_end[i + 1] = pre_end[i] > e ? pre_end[i] : e;
	}
	suf_mut_s[n] = UINT64_MAX;
	for (uint32_t i = n; i-- > 0;)
		suf_mut_s[i] = op_changes(&ops[set[i]]) &&
				       ops[set[i]].s < suf_mut_s[i + 1] ?
			       ops[set[i]].s : suf_mut_s[i + 1];
	for (uint32_t k = 1; k <= n; k++)
		if (k == n || suf_mut_s[k] > pre_end[k])
			valid[nv++] = k;
	/* the kept set: set[0..k) */
	uint32_t lo = 0, hi = nv - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (still_fails(K, set, valid[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	best = valid[lo];	/* n, or a k that was seen to fail */
out:
	free(pre_end);
	free(suf_mut_s);
	free(valid);
	return best;
}

/*
 * Keep set[k..n): valid when every change of set[0..k) ended before
 * set[k] (the earliest kept op) started.  Largest failing k.  Moves the
 * kept ops to the front; returns their count.
 */
static uint32_t cut_prefix(struct shrink *K, uint32_t *set, uint32_t n)
{
	const struct op *ops = K->C->cops + K->cp->off;
	uint64_t maxmut = 0;
	uint32_t *valid = malloc((n + 1) * sizeof(*valid)), nv = 0, best = 0;
	bool any = false;

	if (!valid)
		return n;
	valid[nv++] = 0;
	for (uint32_t k = 1; k < n; k++) {
		const struct op *p = &ops[set[k - 1]];

		if (op_changes(p)) {
			maxmut = maxmut > p->e ? maxmut : p->e;
			any = true;
		}
		if (!any || maxmut < ops[set[k]].s)
			valid[nv++] = k;
	}
	/* largest valid k whose suffix fails (k = 0 is the whole: fails) */
	uint32_t lo = 0, hi = nv - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;

		if (still_fails(K, set + valid[mid], n - valid[mid]))
			lo = mid;
		else
			hi = mid - 1;
	}
	best = valid[lo];	/* 0, or a k that was seen to fail */
	free(valid);
	if (best)
		memmove(set, set + best, (n - best) * sizeof(*set));
	return n - best;
}

/* merge the changes and the kept reads into out (ascending) */
static uint32_t with_reads(const struct op *ops, const uint32_t *set,
			   uint32_t n, const uint32_t *reads, uint32_t nr,
			   uint32_t *out)
{
	uint32_t m = 0, j = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (!op_changes(&ops[set[i]]))
			continue;
		while (j < nr && reads[j] < set[i])
			out[m++] = reads[j++];
		out[m++] = set[i];
	}
	while (j < nr)
		out[m++] = reads[j++];
	return m;
}

/* ddmin over the reads (dropping reads never makes a proof unsound) */
static uint32_t drop_reads(struct shrink *K, uint32_t *set, uint32_t n)
{
	const struct op *ops = K->C->cops + K->cp->off;
	uint32_t *reads = malloc((n + 1) * sizeof(*reads));
	uint32_t *trial = malloc((n + 1) * sizeof(*trial));
	uint32_t *cand = malloc((n + 1) * sizeof(*cand));
	uint32_t nr = 0, g = 2;

	if (!reads || !trial || !cand)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		if (!op_changes(&ops[set[i]]))
			reads[nr++] = set[i];
	/* often the changes alone are the proof */
	if (nr && still_fails(K, trial, with_reads(ops, set, n, NULL, 0, trial)))
		nr = 0;
	while (nr >= 1 && K->left) {
		uint32_t chunk = (nr + g - 1) / g;
		bool reduced = false;

		for (uint32_t c = 0; c * chunk < nr && K->left; c++) {
			uint32_t lo = c * chunk, hi = lo + chunk < nr ? lo + chunk : nr;
			uint32_t nc = 0;

			for (uint32_t i = 0; i < nr; i++)
				if (i < lo || i >= hi)
					cand[nc++] = reads[i];
			if (still_fails(K, trial, with_reads(ops, set, n, cand,
							     nc, trial))) {
				memcpy(reads, cand, nc * sizeof(*reads));
				nr = nc;
				g = g > 2 ? g - 1 : 2;
				reduced = true;
				break;
			}
		}
		if (!reduced) {
			if (g >= nr)
				break;
			g = 2 * g < nr ? 2 * g : nr;
		}
	}
	n = with_reads(ops, set, n, reads, nr, trial);
	memcpy(set, trial, n * sizeof(*set));
out:
	free(reads);
	free(trial);
	free(cand);
	return n;
}

/*
 * Shrink the failing component into a small failing subset; fill the
 * verdict and the counterexample from it.
 */
static int shrink_and_report(struct ctx *C, const struct comp *cp)
{
	struct dt_check_result *R = C->res;
	struct shrink K = { .C = C, .cp = cp };
	uint32_t *set = malloc((cp->n + 1) * sizeof(*set)), n = cp->n;
	char pa[DT_EV_NAME], pb[DT_EV_NAME], need[2 * DT_EVLEN], s1[64], s2[64];
	char obs[DT_EVLEN];
	int rc;

	if (!set)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		set[i] = i;
	K.left = C->o.shrink_budget;
	/* a check may take a few times what the whole search took */
	K.per_check = 4 * (cp->steps + 1000);
	if (!C->o.no_shrink) {
		for (int round = 0; round < 2 && K.left; round++) {
			uint32_t before = n;

			n = cut_suffix(&K, set, n);
			n = cut_prefix(&K, set, n);
			n = drop_reads(&K, set, n);
			if (n == before)
				break;
		}
	}
	/* the verdict comes from a search of the final set */
	rc = search_subset(C, cp, set, n, C->o.budget);
	if (rc != SR_FAIL) {
		/* cannot happen for a set that failed; keep the whole */
		n = cp->n;
		for (uint32_t i = 0; i < n; i++)
			set[i] = i;
		rc = search_subset(C, cp, set, n, C->o.budget);
	}
	const struct op *ops = C->cops + cp->off;
	struct dt_verdict *v = &R->verdict;
	size_t first = SIZE_MAX;

	for (uint32_t i = 0; i < n; i++)
		if (ops[set[i]].ev < first)
			first = ops[set[i]].ev;
	v->event = first;
	if (C->S.blocked != NONE) {
		const struct op *b = &ops[set[C->S.blocked]];
		const char *na = C->N.v[C->cnames[cp->noff + b->a]].path;
		const char *nb = two_paths(b) ?
				 C->N.v[C->cnames[cp->noff + b->b]].path : "";

		snprintf(pa, sizeof(pa), "%s", na);
		snprintf(pb, sizeof(pb), "%s", nb);
		dt_say(v->what, "not linearizable: no order of these %u ops "
		       "explains #%u %s of %s", n, b->ev,
		       dt_op_name((enum dt_opcode)C->h->ev[b->ev].op), pa);
		need_text(b, pa, pb, need, sizeof(need));
		if (two_paths(b))
			dt_say(v->expected, "%s; the model had %s %s, %s %s",
			       need, pa, state_text(&C->S.blocked_st[0], s1,
						    sizeof(s1)),
			       pb, state_text(&C->S.blocked_st[1], s2,
					      sizeof(s2)));
		else
			dt_say(v->expected, "%s; the model had it %s", need,
			       state_text(&C->S.blocked_st[0], s1, sizeof(s1)));
		dt_say(v->observed, "%s", dt_judge_evdesc(&C->judge, b->ev, obs,
							   sizeof(obs)));
	} else {
		dt_say(v->what, "not linearizable: no order of these %u ops", n);
		dt_say(v->expected, "one sequential order of the ops");
		dt_say(v->observed, "none");
	}
	rc = cex_render(C, cp, set, n);
	free(set);
	return rc;
}

/* ---- the whole ----------------------------------------------------------- */

const char *dt_check_status_name(int status)
{
	switch (status) {
	case DT_CHECK_CONSISTENT: return "consistent";
	case DT_CHECK_VIOLATION: return "violation";
	case DT_CHECK_INCONCLUSIVE: return "inconclusive";
	default: return "error";
	}
}

void dt_check_result_free(struct dt_check_result *res)
{
	if (!res)
		return;
	free(res->cex);
	free(res->cex_text);
	res->cex = NULL;
	res->cex_text = NULL;
	res->ncex = 0;
}

static void ctx_free(struct ctx *C)
{
	names_free(&C->N);
	free(C->ops);
	free(C->mut_s);
	free(C->mut_e);
	free(C->cops);
	free(C->cnames);
	free(C->comps);
	free(C->S.nx);
	free(C->S.pv);
	free(C->S.fr);
	free(C->S.cand);
	free(C->S.st);
	free(C->S.first_change);
	free(C->S.tu);
	free(C->ev_tree);
	free(C->trees);
	free(C->pairs);
	set128_free(&C->S.memo);
	set128_free(&C->seen);
	free(C->pos);
	free(C->inset);
	free(C->retord);
}

/* keep the components worth showing: bad first, then the largest */
static void note_component(struct ctx *C, const struct comp *cp)
{
	struct dt_check_result *R = C->res;
	struct dt_check_component c = {
		.names = cp->nnames, .ops = cp->n, .steps = cp->steps,
		.status = cp->status,
	};
	size_t at;

	snprintf(c.name, sizeof(c.name), "%s",
		 C->N.v[C->cnames[cp->noff]].path);
#define RANK(x) ((x).status != DT_CHECK_CONSISTENT ? SIZE_MAX : (x).ops)
	for (at = R->ncomp; at > 0 && RANK(R->comp[at - 1]) < RANK(c); at--)
		;
	if (at >= DT_CHECK_MAX_COMPONENTS)
		return;
	if (R->ncomp < DT_CHECK_MAX_COMPONENTS)
		R->ncomp++;
	memmove(&R->comp[at + 1], &R->comp[at],
		(R->ncomp - 1 - at) * sizeof(c));
	R->comp[at] = c;
#undef RANK
}

static int oom(struct dt_check_result *res)
{
	res->status = DT_CHECK_INCONCLUSIVE;
	res->verdict.violations = 0;
	res->verdict.event = DT_NO_EVENT;
	dt_say(res->verdict.what, "history checker could not judge: out of memory");
	dt_say(res->verdict.expected, "a verdict");
	dt_say(res->verdict.observed, "ENOMEM");
	return -ENOMEM;
}

int dt_check_history(const struct dt_history *h, const struct dt_check_opts *o,
		     struct dt_check_result *res)
{
	struct ctx C;
	int rc = 0;
	size_t first_bad = NONE, first_incon = NONE;

	memset(res, 0, sizeof(*res));
	memset(&C, 0, sizeof(C));
	C.h = h;
	C.res = res;
	if (o)
		C.o = *o;
	if (!C.o.budget)
		C.o.budget = DT_CHECK_DEFAULT_BUDGET;
	if (!C.o.shrink_budget)
		C.o.shrink_budget = DT_CHECK_DEFAULT_SHRINK;
	dt_judge_init(&C.judge, h, &res->verdict);
	C.direct_judge = (struct dt_judge){ .h = h, .v = &C.direct,
					    .t0 = C.judge.t0 };
	C.direct_open = NONE;
	res->verdict.event = DT_NO_EVENT;
	res->events = h->n;
	if (h->n >= UINT32_MAX - 1) {
		rc = -E2BIG;
		res->status = DT_CHECK_INCONCLUSIVE;
		dt_say(res->verdict.what, "history too long for the checker");
		goto out;
	}
	for (size_t i = 1; i < h->n; i++)
		if (h->ev[i].host != h->ev[0].host)
			res->multi_host = true;
	if (intern_all(&C) || make_ops(&C) || make_components(&C)) {
		rc = oom(res);
		goto out;
	}
	res->components = C.ncomps;
	size_t maxn = 0, maxnames = 0;
	for (size_t c = 0; c < C.ncomps; c++) {
		maxn = C.comps[c].n > maxn ? C.comps[c].n : maxn;
		maxnames = C.comps[c].nnames > maxnames ? C.comps[c].nnames :
							  maxnames;
	}
	res->largest = maxn;
	C.S.trees = C.trees;
	C.S.pairs = C.pairs;
	C.S.tu = malloc((2 * C.npairs + 1) * sizeof(*C.S.tu));
	if (!C.S.tu || scratch_reserve(&C, maxn, maxnames)) {
		rc = oom(res);
		goto out;
	}
	for (size_t c = 0; c < C.ncomps; c++) {
		struct comp *cp = &C.comps[c];

		for (uint32_t i = 0; i < cp->n; i++)
			C.pos[i] = i;
		order_returns(&C, cp);
		int sr = search_subset(&C, cp, C.pos, cp->n, C.o.budget);

		cp->steps = C.S.steps;
		res->steps += C.S.steps;
		if (sr == SR_NOMEM) {
			rc = oom(res);
			goto out;
		}
		cp->status = sr == SR_OK ? DT_CHECK_CONSISTENT :
			     sr == SR_FAIL ? DT_CHECK_VIOLATION :
					     DT_CHECK_INCONCLUSIVE;
		if (cp->status == DT_CHECK_VIOLATION) {
			res->violating++;
			/* the op the search could not place, for whoever
			   counts violations by kind (core/failsum.c): each
			   bad component told, not only the one shrunk below */
			if (C.S.blocked != NONE)
				dt_judge_tell(&C.judge,
					      C.cops[cp->off +
						     C.pos[C.S.blocked]].ev);
			/* the component whose earliest op comes first */
			if (first_bad == NONE ||
			    C.cops[cp->off].ev < C.cops[C.comps[first_bad].off].ev)
				first_bad = c;
		} else if (cp->status == DT_CHECK_INCONCLUSIVE) {
			res->inconclusive++;
			if (first_incon == NONE)
				first_incon = c;
		}
		note_component(&C, cp);
	}
	res->violating += (size_t)C.direct.violations;
	res->verdict.violations = (int)(res->violating > INT32_MAX ?
					INT32_MAX : res->violating);
	/* the earliest violation: a component's or a direct one */
	if (first_bad != NONE) {
		struct comp *cp = &C.comps[first_bad];

		order_returns(&C, cp);
		if (shrink_and_report(&C, cp)) {
			rc = oom(res);
			goto out;
		}
	}
	if (C.direct.violations &&
	    (first_bad == NONE || C.direct.event <= res->verdict.event)) {
		res->verdict.event = C.direct.event;
		dt_say(res->verdict.what, "%s", C.direct.what);
		dt_say(res->verdict.expected, "%s", C.direct.expected);
		dt_say(res->verdict.observed, "%s", C.direct.observed);
		dt_check_result_free(res);
		res->cex = malloc(2 * sizeof(*res->cex));
		if (!res->cex) {
			rc = oom(res);
			goto out;
		}
		/* a failed handle op is proved by its OPEN and itself */
		res->ncex = 0;
		if (C.direct_open != NONE)
			res->cex[res->ncex++] = C.direct_open;
		res->cex[res->ncex++] = C.direct.event;
		if (render_events(&C, &res->cex_text, res->cex, res->ncex,
				  NULL, NULL, 0)) {
			rc = oom(res);
			goto out;
		}
	}
	if (res->violating) {
		res->status = DT_CHECK_VIOLATION;
	} else if (res->inconclusive) {
		const struct comp *cp = &C.comps[first_incon];

		res->status = DT_CHECK_INCONCLUSIVE;
		dt_say(res->verdict.what, "inconclusive: the search of the component of %s (%u ops, %u paths) ran out of budget or time",
		       C.N.v[C.cnames[cp->noff]].path, cp->n, cp->nnames);
		dt_say(res->verdict.expected, "a verdict within %" PRIu64 " steps",
		       C.o.budget);
		dt_say(res->verdict.observed, "%zu inconclusive component(s)",
		       res->inconclusive);
	} else {
		res->status = DT_CHECK_CONSISTENT;
	}
	rc = res->status;
out:
	res->names = C.N.n;
	ctx_free(&C);
	return rc;
}

/* ---- --check-history spec ------------------------------------------------ */

static int parse_ms(const char *s, size_t len, uint64_t *ns)
{
	char buf[32], *end;
	double v;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtod(buf, &end);
	if (*end || !(v >= 0) || v > 86400e3)
		return -EINVAL;
	*ns = (uint64_t)(v * 1e6);
	return 0;
}

int dt_check_parse_spec(const char *spec, struct dt_check_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (!spec || !*spec || !strcmp(spec, "1") || !strcmp(spec, "on"))
		return 1;
	if (!strcmp(spec, "0") || !strcmp(spec, "off"))
		return 0;
	for (const char *p = spec; *p;) {
		size_t l = strcspn(p, ",");
		const char *colon = memchr(p, ':', l);

		if (!colon)
			return -EINVAL;
		size_t kl = (size_t)(colon - p), vl = l - kl - 1;

		if (kl == 5 && !memcmp(p, "stale", 5)) {
			if (parse_ms(colon + 1, vl, &o->stale_ns))
				return -EINVAL;
		} else if (kl == 4 && !memcmp(p, "skew", 4)) {
			if (parse_ms(colon + 1, vl, &o->skew_ns))
				return -EINVAL;
		} else {
			return -EINVAL;
		}
		p += l;
		if (*p == ',' && !*++p)
			return -EINVAL;
	}
	return 1;
}

/* Keep in step with event_op(): what each recorded operation becomes. */
const struct dt_check_coverage dt_check_coverage[] = {
	{ "lookup", true, "read: found F -> PRESENT(F), ENOENT -> ABSENT" },
	{ "open", true, "read like lookup (fileid unknown); EISDIR -> dir" },
	{ "open+", true, "O_CREAT: create or open what is there (no fileid)" },
	{ "open+!", true, "O_CREAT|O_EXCL: exclusive create; EEXIST -> PRESENT" },
	{ "create", true, "create or open a file of the same fileid" },
	{ "create!", true, "exclusive create; EEXIST -> PRESENT" },
	{ "mkdir", true, "exclusive create of a dir; EEXIST -> PRESENT; "
			 "(--fresh) made empty: names below it ABSENT" },
	{ "rmdir", true, "PRESENT dir -> ABSENT; ENOENT, ENOTEMPTY, ENOTDIR read" },
	{ "unlink", true, "PRESENT non-dir -> ABSENT; ENOENT, EISDIR read" },
	{ "link", true, "b ABSENT -> PRESENT(F of a); EEXIST, ENOENT, EPERM "
			"read; EXDEV in one filesystem a violation" },
	{ "rename", true, "a -> b incl. rename-over and same-file no-op; a "
			  "directory takes the paths below it along; into "
			  "itself is a violation; ENOENT, EEXIST, ENOTEMPTY "
			  "read; EINVAL only into itself (by path or a move), "
			  "EXDEV only across filesystems" },
	{ "rename-noreplace", true, "a -> b only if b absent, atomically; "
				    "EEXIST -> b PRESENT; EINVAL (flag not "
				    "supported) no information" },
	{ "readdir", true, "one atomic read per known child inside the listing; "
			   "duplicates are violations (not one name with two "
			   "fileids: removed and made again)" },
	{ "read", true, "on the thread's open handle: must not fail "
			"(open file outlives its name); the same request "
			"returns as many bytes (no write)" },
	{ "close", true, "on the thread's open handle: must not fail; ends "
			 "the handle" },
	{ NULL, false, NULL },
};
