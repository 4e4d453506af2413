/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The oracles on big, generated histories.
 *
 * The generator runs a true directory state and gives every op a
 * linearization point p; the op's recorded interval is a random window
 * around p and its result is the state at p.  Such a history is correct by
 * construction, so any violation an oracle reports on it is a false alarm.
 * Readdir entries are each read at their own random instant inside the
 * listing's interval, as a non-atomic NFS readdir does.
 *
 * Then faults are injected where the generator knows they are certain
 * (a read with no mutation of its name overlapping it) and every oracle
 * must count exactly the injected ones.
 *
 * Finally one 100 000-event history (1000 names churned) is timed: the
 * times are printed as TAP comments, not asserted, as this machine is
 * shared and noisy.
 */
#include <time.h>

#include "oracle_ev.h"

#define RD_LEN		5000	/* a listing takes this long */
#define MAXCHAIN	20000

struct tl {		/* one mutation of one name, in point order */
	uint64_t p, start, end, fileid;
	bool present;
};

struct name {
	char path[DT_EV_NAME];
	bool present, has_add;
	uint64_t fileid, busy;
	struct tl *tl;
	size_t ntl, cap;
};

struct gen {
	struct dt_history *h;
	uint64_t rng, p, nextfid;
	bool seq;		/* mutations of one name never overlap */
	uint64_t w;		/* max distance from an op's point to its ends */
	int nnames;		/* s/d entries; chain names follow them */
	struct name *nm;
	int chain_cur;
	uint64_t chain_busy, chain_fid;
	struct { uint64_t s, e; } *rd;
	size_t nrd, caprd;
};

static uint64_t rnd(struct gen *g)
{
	uint64_t x = g->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return g->rng = x;
}

static void window(struct gen *g, uint64_t *s, uint64_t *e)
{
	*s = g->p - rnd(g) % g->w;
	*e = g->p + rnd(g) % g->w;
}

static void tl_add(struct name *n, uint64_t p, uint64_t s, uint64_t e,
		   bool present, uint64_t fileid)
{
	if (n->ntl == n->cap) {
		n->cap = n->cap ? n->cap * 2 : 8;
		n->tl = realloc(n->tl, n->cap * sizeof(*n->tl));
		if (!n->tl)
			bail_out("out of memory");
	}
	n->tl[n->ntl++] = (struct tl){ p, s, e, fileid, present };
	n->present = present;
	n->fileid = fileid;
	if (present)
		n->has_add = true;
	if (e > n->busy)
		n->busy = e;
}

/* state of n at instant t: the last mutation with point <= t */
static const struct tl *tl_at(const struct name *n, uint64_t t)
{
	size_t lo = 0, hi = n->ntl;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (n->tl[mid].p <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &n->tl[lo - 1] : NULL;
}

/* no mutation of n overlaps [s, e]: every read there has one answer */
static bool clean(const struct name *n, uint64_t s, uint64_t e)
{
	for (size_t i = 0; i < n->ntl; i++)
		if (n->tl[i].start <= e && n->tl[i].end >= s)
			return false;
	return true;
}

static void lookup(struct gen *g, int k)
{
	struct name *n = &g->nm[k];
	uint64_t s, e;

	window(g, &s, &e);
	ev(g->h, (unsigned)(rnd(g) % 16),
	   rnd(g) % 10 ? DT_OP_LOOKUP : DT_OP_OPEN, n->path, NULL,
	   n->present ? 0 : -ENOENT, n->present ? n->fileid : 0, s, e);
}

/* may a mutation of n start at s? (in seq mode, not while one runs) */
static bool free_at(struct gen *g, const struct name *n, uint64_t s)
{
	return !g->seq || n->busy < s;
}

static void mutate(struct gen *g, int k)
{
	struct name *n = &g->nm[k];
	unsigned t = (unsigned)(rnd(g) % 16);
	unsigned x = (unsigned)(rnd(g) % 10);
	uint64_t s, e;

	window(g, &s, &e);
	if (!free_at(g, n, s)) {
		lookup(g, k);
		return;
	}
	if (n->present) {
		int k2 = (int)(rnd(g) % (uint64_t)g->nnames);
		struct name *n2 = &g->nm[k2];

		if (x < 7) {
			ev(g->h, t, DT_OP_UNLINK, n->path, NULL, 0, 0, s, e);
			tl_add(n, g->p, s, e, false, 0);
		} else if (x < 9 && k2 != k && free_at(g, n2, s)) {
			/* rename, over an existing name or not */
			ev(g->h, t, DT_OP_RENAME, n->path, n2->path, 0, 0, s, e);
			tl_add(n2, g->p, s, e, true, n->fileid);
			tl_add(n, g->p, s, e, false, 0);
		} else {
			ev(g->h, t, DT_OP_CREATE, n->path, NULL, -EEXIST, 0, s, e);
		}
	} else {
		int j = (int)(rnd(g) % (uint64_t)g->nnames);

		if (x < 8) {
			ev(g->h, t, DT_OP_CREATE, n->path, NULL, 0, g->nextfid,
			   s, e);
			tl_add(n, g->p, s, e, true, g->nextfid++);
		} else if (x < 9 && g->nm[j].present) {
			ev(g->h, t, DT_OP_LINK, g->nm[j].path, n->path, 0, 0, s, e);
			tl_add(n, g->p, s, e, true, g->nm[j].fileid);
		} else {
			ev(g->h, t, DT_OP_UNLINK, n->path, NULL, -ENOENT, 0, s, e);
		}
	}
}

static struct name *chain_name(struct gen *g, int i)
{
	return &g->nm[g->nnames + i];
}

static void chain_step(struct gen *g)
{
	uint64_t s, e;

	window(g, &s, &e);
	/* one writer: its renames follow each other */
	if (s <= g->chain_busy || g->chain_cur + 1 >= MAXCHAIN) {
		int i = g->chain_cur - 1 + (int)(rnd(g) % 3);

		lookup(g, g->nnames + (i < 0 ? 0 : i));
		return;
	}
	ev(g->h, 0, DT_OP_RENAME, chain_name(g, g->chain_cur)->path,
	   chain_name(g, g->chain_cur + 1)->path, 0, 0, s, e);
	tl_add(chain_name(g, g->chain_cur), g->p, s, e, false, 0);
	tl_add(chain_name(g, g->chain_cur + 1), g->p, s, e, true, g->chain_fid);
	g->chain_cur++;
	g->chain_busy = e;
}

/* listings: every entry read at its own instant inside [s, e] */
static void materialize_readdirs(struct gen *g)
{
	for (size_t r = 0; r < g->nrd; r++) {
		uint64_t s = g->rd[r].s, e = g->rd[r].e;
		struct dt_dirlist *l = calloc(1, sizeof(*l));
		struct dt_event de;

		if (!l)
			bail_out("out of memory");
		for (int k = 0; k < g->nnames; k++) {
			const struct tl *st = tl_at(&g->nm[k],
						    s + rnd(g) % (e - s + 1));

			if (st && st->present &&
			    dt_dirlist_add(l, g->nm[k].path + 4, st->fileid))
				bail_out("out of memory");
		}
		memset(&de, 0, sizeof(de));
		de.thread = 15;
		de.op = DT_OP_READDIR;
		de.start_ns = s;
		de.end_ns = e;
		snprintf(de.name, sizeof(de.name), "s/d");
		de.list = l;
		if (dt_history_add(g->h, &de))
			bail_out("out of memory");
	}
}

static void generate(struct gen *g, struct dt_history *h, uint64_t seed,
		     int nnames, size_t nevents, bool seq, uint64_t w)
{
	memset(g, 0, sizeof(*g));
	g->h = h;
	g->rng = seed * 2654435761u + 1;
	g->seq = seq;
	g->w = w;
	g->nnames = nnames;
	g->p = 10 * w;
	g->nextfid = 100;
	g->nm = calloc((size_t)nnames + MAXCHAIN, sizeof(*g->nm));
	if (!g->nm)
		bail_out("out of memory");
	for (int k = 0; k < nnames; k++)
		snprintf(g->nm[k].path, DT_EV_NAME, "s/d/n%04d", k);
	for (int i = 0; i < MAXCHAIN; i++)
		snprintf(chain_name(g, i)->path, DT_EV_NAME, "s/c.%d", i);

	/* fixtures for same_answer and one_winner, then the chain's file */
	ev(h, 0xffff, DT_OP_CREATE, "s/stable", NULL, 0, 42, 0, 10);
	ev(h, 0xffff, DT_OP_CREATE, "s/race", NULL, 0, 43, 0, 10);
	g->chain_fid = g->nextfid++;
	ev(h, 0, DT_OP_CREATE, "s/c.0", NULL, 0, g->chain_fid, 20, 30);
	tl_add(chain_name(g, 0), 25, 20, 30, true, g->chain_fid);
	g->chain_busy = 30;

	while (h->n < nevents) {
		unsigned r = (unsigned)(rnd(g) % 1000);
		int k = (int)(rnd(g) % (uint64_t)nnames);

		g->p += 1 + rnd(g) % 10;
		if (r < 550) {
			lookup(g, k);
		} else if (r < 800) {
			mutate(g, k);
		} else if (r < 830) {
			chain_step(g);
		} else if (r < 860) {
			int i = g->chain_cur - 1 + (int)(rnd(g) % 3);

			lookup(g, nnames + (i < 0 ? 0 : i));
		} else if (r < 861 || (!g->nrd && h->n >= nevents / 2)) {
			if (g->nrd == g->caprd) {
				g->caprd = g->caprd ? g->caprd * 2 : 64;
				g->rd = realloc(g->rd, g->caprd * sizeof(*g->rd));
				if (!g->rd)
					bail_out("out of memory");
			}
			g->rd[g->nrd].s = g->p - rnd(g) % w;
			g->rd[g->nrd].e = g->p + RD_LEN;
			g->nrd++;
		} else {
			lookup(g, k);
		}
	}
	materialize_readdirs(g);

	g->p += RD_LEN + 10 * w;
	for (int t = 0; t < 32; t++)
		ev(h, (unsigned)t, DT_OP_LOOKUP, "s/stable", NULL, 0, 42,
		   g->p + (unsigned)t, g->p + 100);
	for (int t = 0; t < 8; t++)
		ev(h, (unsigned)t, DT_OP_UNLINK, "s/race", NULL,
		   t == 5 ? 0 : -ENOENT, 0, g->p + (unsigned)t, g->p + 100);
	dt_history_sort(h);
}

static void gen_free(struct gen *g)
{
	for (int k = 0; k < g->nnames + MAXCHAIN; k++)
		free(g->nm[k].tl);
	free(g->nm);
	free(g->rd);
}

static const int enoent[] = { ENOENT, 0 };

struct counts {
	int same, one, chain, life, rd;
	double secs[5];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run_all(const struct dt_history *h, uint64_t chain_fid,
		    struct counts *c, struct dt_verdict vv[5])
{
	double t;

	t = now();
	c->same = dt_oracle_same_answer(h, "s/stable", &vv[0]);
	c->secs[0] = now() - t;
	t = now();
	c->one = dt_oracle_one_winner(h, DT_OP_UNLINK, "s/race", enoent, &vv[1]);
	c->secs[1] = now() - t;
	t = now();
	c->chain = dt_oracle_rename_chain(h, "s/c.", chain_fid, &vv[2]);
	c->secs[2] = now() - t;
	t = now();
	c->life = dt_oracle_name_lifetime(h, &vv[3]);
	c->secs[3] = now() - t;
	t = now();
	c->rd = dt_oracle_readdir(h, "s/d", &vv[4]);
	c->secs[4] = now() - t;
}

static bool all_zero(const struct counts *c, const struct dt_verdict vv[5])
{
	bool zero = !c->same && !c->one && !c->chain && !c->life && !c->rd;

	if (!zero)
		for (int i = 0; i < 5; i++)
			if (vv[i].violations)
				diag("  false alarm: %s\n  expected: %s\n  observed: %s",
				     vv[i].what, vv[i].expected, vv[i].observed);
	return zero;
}

/* index of the name an event reads, or -1 */
static int name_of(const struct gen *g, const char *path)
{
	int i;

	if (!strncmp(path, "s/d/n", 5))
		return atoi(path + 5);
	if (!strncmp(path, "s/c.", 4)) {
		i = atoi(path + 4);
		return i < MAXCHAIN ? g->nnames + i : -1;
	}
	return -1;
}

/*
 * Inject faults that no ordering can explain and check the exact counts.
 * Only reads that no mutation of their name overlaps are touched: for
 * those the model leaves exactly one right answer.
 */
static void inject(struct gen *g, struct dt_history *h)
{
	int want_life = 0, want_chain = 0, want_rd = 0, flips = 0, stale = 0;
	int chain_flips = 0, dups = 0, missing = 0, invented = 0;
	struct dt_verdict vv[5];
	struct counts c;

	for (size_t i = 0; i < h->n; i++) {
		struct dt_event *e = &h->ev[i];
		int k = (e->op == DT_OP_LOOKUP || e->op == DT_OP_OPEN) ?
			name_of(g, e->name) : -1;
		bool is_chain = k >= g->nnames;

		if (k < 0 || !g->nm[k].has_add || rnd(g) % 50)
			continue;
		if (!is_chain && stale < 10) {
			e->result = -ESTALE;
			stale++;
			want_life++;
			continue;
		}
		if (!clean(&g->nm[k], e->start_ns, e->end_ns))
			continue;
		if (is_chain ? chain_flips >= 5 : flips >= 20)
			continue;
		/* the one right answer, turned into the wrong one */
		if (e->result == 0) {
			e->result = -ENOENT;
			e->fileid = 0;
		} else {
			e->result = 0;
			e->fileid = is_chain ? g->chain_fid : 7;
		}
		want_life++;
		if (is_chain) {
			chain_flips++;
			want_chain++;
		} else {
			flips++;
		}
	}

	for (size_t i = 0; i < h->n && (dups < 3 || missing < 3 || invented < 3);
	     i++) {
		struct dt_event *e = &h->ev[i];
		struct dt_dirlist *l = e->list;
		char name[32];

		if (e->op != DT_OP_READDIR || !l || !l->n)
			continue;
		/*
		 * duplicate an entry untouched throughout the listing: a name
		 * re-created during it may rightly be listed twice
		 */
		size_t dup_at = SIZE_MAX;

		for (size_t k = 0; dups < 3 && k < l->n; k++) {
			int idx = atoi(l->ent[k].name + 1);

			if (strncmp(l->ent[k].name, "n0", 2) || idx >= g->nnames ||
			    !clean(&g->nm[idx], e->start_ns, e->end_ns))
				continue;
			if (dt_dirlist_add(l, l->ent[k].name, l->ent[k].fileid))
				bail_out("out of memory");
			dups++;
			want_rd++;
			dup_at = k;
			break;
		}
		if (invented < 3) {
			snprintf(name, sizeof(name), "never%d", invented);
			if (dt_dirlist_add(l, name, 1))
				bail_out("out of memory");
			invented++;
			want_rd++;
		}
		/* drop an entry that was there, untouched, all along */
		for (size_t k = 1; missing < 3 && k < l->n; k++) {
			/* entries are "nNNNN" (or an injected "neverN") */
			int idx = atoi(l->ent[k].name + 1);

			if (k == dup_at || (dup_at != SIZE_MAX &&
					    !strcmp(l->ent[k].name,
						    l->ent[dup_at].name)) ||
			    strncmp(l->ent[k].name, "n0", 2) || idx >= g->nnames ||
			    !clean(&g->nm[idx], e->start_ns, e->end_ns))
				continue;
			free(l->ent[k].name);
			l->ent[k] = l->ent[--l->n];
			missing++;
			want_rd++;
			break;
		}
	}

	run_all(h, g->chain_fid, &c, vv);
	note("injected: %d flipped lookups, %d ESTALE, %d flipped chain lookups, "
	     "%d duplicate, %d missing, %d invented entries",
	     flips, stale, chain_flips, dups, missing, invented);
	ok(flips == 20 && stale == 10 && chain_flips == 5 && dups == 3 &&
	   missing == 3 && invented == 3, "faults injected as planned");
	is_int(c.life, want_life, "name_lifetime counts every injected fault");
	show(&vv[3]);
	is_int(c.chain, want_chain, "rename_chain counts every injected fault");
	show(&vv[2]);
	is_int(c.rd, want_rd, "readdir counts every injected fault");
	show(&vv[4]);
	ok(!c.same && !c.one, "same_answer and one_winner unaffected");
}

/*
 * One name hammered: a writer creates and unlinks it 50 000 times while
 * readers look it up.  With hung, one more create hangs for the whole run
 * (it took effect at the very end) and overlaps every read: the oracle's
 * cost must not depend on how long ops take.
 */
static void build_hot(struct dt_history *h, bool hung)
{
	uint64_t t = 1000, seed = 99;

	for (int i = 0; i < 50000; i++, t += 200) {
		/* present over [t+50, t+100], absent over [t+150, t+200] */
		ev(h, 0, DT_OP_CREATE, "s/hot", NULL, 0, (uint64_t)i + 1,
		   t, t + 50);
		ev(h, 0, DT_OP_UNLINK, "s/hot", NULL, 0, 0, t + 100, t + 150);
		for (int r = 0; r < 2; r++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			if (seed & 1)
				ev(h, 1, DT_OP_LOOKUP, "s/hot", NULL, 0,
				   (uint64_t)i + 1, t + 55 + seed % 20,
				   t + 75 + seed % 20);
			else
				ev(h, 2, DT_OP_LOOKUP, "s/hot", NULL, -ENOENT,
				   0, t + 155 + seed % 20, t + 175 + seed % 20);
		}
	}
	if (hung)
		ev(h, 3, DT_OP_CREATE, "s/hot", NULL, 0, 999999, 999, t);
	dt_history_sort(h);
}

static void hot_name(void)
{
	struct dt_history h = { 0 };
	struct dt_verdict v;
	size_t bad = 0;
	double t0;
	int rc;

	build_hot(&h, true);
	t0 = now();
	rc = dt_oracle_name_lifetime(&h, &v);
	note("hot name: %zu events on one name, one op spanning all: name_lifetime %.3f s",
	     h.n, now() - t0);
	is_int(rc, 0, "hot name with a hung create: no false alarm");
	show(&v);
	dt_history_free(&h);

	/* without the hung op every read has one right answer */
	build_hot(&h, false);
	for (size_t i = h.n / 2; i < h.n; i++) {
		if (h.ev[i].op == DT_OP_LOOKUP && !h.ev[i].result) {
			h.ev[i].result = -ENOENT;
			h.ev[i].fileid = 0;
			bad = i;
			break;
		}
	}
	rc = dt_oracle_name_lifetime(&h, &v);
	ok(rc == 1 && v.event == bad && strstr(v.what, "lost"),
	   "hot name without it: the one flipped lookup is caught");
	show(&v);
	dt_history_free(&h);
}

/*
 * The model, written the slow and obvious way (every read against every
 * mutation), on small arbitrary histories (not necessarily correct ones:
 * random answers, zero-length intervals, equal timestamps everywhere).
 * dt_oracle_name_lifetime must count exactly what the definition in
 * lib/check/oracle.c counts.
 */
struct bm {
	uint64_t s, e, fid;
	bool add;
};

static int model_violations(const struct dt_history *h)
{
	static const char *const names[] = { "s/a", "s/b", "s/c" };
	int bad = 0;

	for (int k = 0; k < 3; k++) {
		const char *nm = names[k];
		struct bm m[512];
		int nm_ = 0, nadd = 0;
		uint64_t min_add_end = UINT64_MAX, min_proof = UINT64_MAX;
		bool unknown;

		for (size_t i = 0; i < h->n; i++) {
			const struct dt_event *e = &h->ev[i];
			bool add = false, rm = false, proof = false;

			switch (e->op) {
			case DT_OP_CREATE:
				add = !e->result && !strcmp(e->name, nm);
				proof = e->result == -EEXIST && !strcmp(e->name, nm);
				break;
			case DT_OP_UNLINK:
				rm = !e->result && !strcmp(e->name, nm);
				break;
			case DT_OP_LINK:
				add = !e->result && !strcmp(e->name2, nm);
				proof = e->result == -EEXIST && !strcmp(e->name2, nm);
				break;
			case DT_OP_RENAME:
				proof = (e->result == -EEXIST ||
					 e->result == -ENOTEMPTY) &&
					!strcmp(e->name2, nm);
				if (e->result || !strcmp(e->name, e->name2))
					break;
				add = !strcmp(e->name2, nm);
				rm = !strcmp(e->name, nm);
				break;
			default:
				break;
			}
			if (add) {
				m[nm_++] = (struct bm){ e->start_ns, e->end_ns,
					e->op == DT_OP_CREATE ? e->fileid : 0, true };
				nadd++;
				if (e->end_ns < min_add_end)
					min_add_end = e->end_ns;
			}
			if (rm) {
				m[nm_++] = (struct bm){ e->start_ns, e->end_ns, 0, false };
				if (e->start_ns < min_proof)
					min_proof = e->start_ns;
			}
			if (proof && e->start_ns < min_proof)
				min_proof = e->start_ns;
		}
		if (!nadd)
			continue;
		unknown = min_proof != UINT64_MAX && min_proof <= min_add_end;

		for (size_t i = 0; i < h->n; i++) {
			const struct dt_event *e = &h->ev[i];
			uint64_t s = e->start_ns, en = e->end_ns;
			bool init = true, absent, present, fid_ok;

			if ((e->op != DT_OP_LOOKUP && e->op != DT_OP_OPEN) ||
			    strcmp(e->name, nm))
				continue;
			for (int j = 0; j < nm_; j++)
				if (m[j].e < s)
					init = false;
			absent = init;
			present = fid_ok = init && unknown;
			for (int j = 0; j < nm_; j++) {
				bool sup = false;

				if (m[j].s > en)
					continue;
				for (int q = 0; q < nm_; q++)
					if (m[q].s > m[j].e && m[q].e < s)
						sup = true;
				if (sup)
					continue;
				if (!m[j].add) {
					absent = true;
					continue;
				}
				present = true;
				if (!e->fileid || !m[j].fid || m[j].fid == e->fileid)
					fid_ok = true;
			}
			if (e->result == 0)
				bad += !present || !fid_ok;
			else if (e->result == -ENOENT)
				bad += !absent;
			else
				bad++;
		}
	}
	return bad;
}

static void model_check(void)
{
	static const char *const names[] = { "s/a", "s/b", "s/c" };
	struct gen g = { .rng = 12345 };
	int agree = 0, runs = 2000, total = 0, shown = 0;

	for (int run = 0; run < runs; run++) {
		struct dt_history h = { 0 };
		struct dt_verdict v;
		int n = 5 + (int)(rnd(&g) % 60), want, got;

		for (int i = 0; i < n; i++) {
			uint64_t s = rnd(&g) % 100, e = s + rnd(&g) % 30;
			const char *a = names[rnd(&g) % 3], *b = names[rnd(&g) % 3];
			unsigned x = (unsigned)(rnd(&g) % 12);
			uint64_t fid = rnd(&g) % 4;	/* 0 = unknown */
			static const int res[] = { 0, 0, 0, -ENOENT, -ENOENT,
						   -EEXIST, -ESTALE };
			int r = res[rnd(&g) % 7];

			if (x < 2)
				ev(&h, 0, DT_OP_CREATE, a, NULL, r, fid, s, e);
			else if (x < 4)
				ev(&h, 0, DT_OP_UNLINK, a, NULL, r, 0, s, e);
			else if (x < 5)
				ev(&h, 0, DT_OP_RENAME, a, b, r, 0, s, e);
			else if (x < 6)
				ev(&h, 0, DT_OP_LINK, a, b, r, 0, s, e);
			else
				ev(&h, 1, x < 11 ? DT_OP_LOOKUP : DT_OP_OPEN,
				   a, NULL, r, r ? 0 : fid, s, e);
		}
		want = model_violations(&h);
		got = dt_oracle_name_lifetime(&h, &v);
		total += want;
		if (want == got)
			agree++;
		else if (shown++ < 3)
			diag("run %d: model %d, oracle %d", run, want, got);
		dt_history_free(&h);
	}
	is_int(agree, runs, "name_lifetime = the brute-force model on %d arbitrary histories (%d violations)",
	       runs, total);
}

int main(void)
{
	struct dt_verdict vv[5];
	struct dt_history h = { 0 };
	struct counts c;
	struct gen g;
	int seeds_ok = 0, nseeds = 40;
	size_t nrd = 0;

	/* many small histories: no false alarms, overlapping or not */
	for (int seed = 1; seed <= nseeds; seed++) {
		/* from 3 names in wide windows (every op overlaps others on
		 * the same name) to 183 names in narrow ones */
		generate(&g, &h, (uint64_t)seed, 3 + (seed % 10) * 20, 6000,
			 seed & 1, seed % 3 ? 300 : 3000);
		run_all(&h, g.chain_fid, &c, vv);
		if (all_zero(&c, vv))
			seeds_ok++;
		else
			diag("seed %d (%s, %d names) raised a false alarm", seed,
			     seed & 1 ? "seq" : "overlapping",
			     3 + (seed % 10) * 20);
		gen_free(&g);
		dt_history_free(&h);
	}
	is_int(seeds_ok, nseeds, "no false alarm on %d generated correct histories",
	       nseeds);

	/* the same with faults: every one counted, no more */
	generate(&g, &h, 4242, 300, 30000, true, 300);
	run_all(&h, g.chain_fid, &c, vv);
	ok(all_zero(&c, vv), "detection run: clean before injection");
	inject(&g, &h);
	gen_free(&g);
	dt_history_free(&h);

	/* the timed one: 100 000 events, 1000 names churned */
	generate(&g, &h, 7, 1000, 100000, false, 300);
	for (size_t i = 0; i < h.n; i++)
		nrd += h.ev[i].op == DT_OP_READDIR;
	run_all(&h, g.chain_fid, &c, vv);
	ok(h.n >= 100000, "big history: %zu events, %zu listings of ~%d names, chain of %d",
	   h.n, nrd, 1000, g.chain_cur + 1);
	ok(all_zero(&c, vv), "big history: all five oracles run, no false alarm");
	note("same_answer   %.3f s", c.secs[0]);
	note("one_winner    %.3f s", c.secs[1]);
	note("rename_chain  %.3f s", c.secs[2]);
	note("name_lifetime %.3f s", c.secs[3]);
	note("readdir       %.3f s", c.secs[4]);
	note("all five      %.3f s",
	     c.secs[0] + c.secs[1] + c.secs[2] + c.secs[3] + c.secs[4]);
	gen_free(&g);
	dt_history_free(&h);

	hot_name();
	model_check();
	return done();
}
