/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Oracles for contended renames (K renames of one source, two directories
 * racing to move into each other, a directory moved into itself) and for
 * reads of a file whose name was unlinked while it was open.  The
 * invariants are in oracle_race.h; this file says how they are judged.
 *
 * A rename race is judged as a whole rather than read by read: which
 * renames took part, who won, how each loser failed, and what the lookups
 * made after the race saw.  Serialise the race in any order: the first
 * rename to take effect finds its source and its target's parent in place
 * and succeeds, and it removes what every other rename needed (the shared
 * source, or in the loop race the other directory's place in the parent).
 * So exactly one wins, whatever the timing; no interval arithmetic needed.
 * Lookups made while renames were in flight are not judged here
 * (dt_oracle_name_lifetime does that for names the history creates).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/oracle.h"
#include "base/errname.h"
#include "check/oracle_race.h"
#include "check/oracle_util.h"

/* path lies strictly below dir: "d/x" is below "d", "d" and "dx" are not */
static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return n && !strncmp(path, dir, n) && path[n] == '/' && path[n + 1];
}

static bool at_or_below(const char *path, const char *root)
{
	return !strcmp(path, root) || below(path, root);
}

/* ---- one race: its renames and what they left ---------------------------- */

typedef bool (*race_pred)(const struct dt_event *e, const void *arg);

struct race {
	size_t *ev;		/* the race's renames, ascending indexes */
	size_t n;
	uint64_t first_start;	/* the race began ... */
	uint64_t last_end;	/* ... and was over */
	size_t nwin;		/* renames that returned 0 */
	size_t win;		/* the earliest-starting of them */
};

static int race_collect(struct race *R, const struct dt_history *h,
			race_pred in, const void *arg)
{
	size_t i, cap = 0;

	memset(R, 0, sizeof(*R));
	R->first_start = UINT64_MAX;
	for (i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		if (e->op != DT_OP_RENAME || !in(e, arg))
			continue;
		if (R->n == cap) {
			size_t *p;

			cap = cap ? cap * 2 : 16;
			p = realloc(R->ev, cap * sizeof(*p));
			if (!p) {
				free(R->ev);
				R->ev = NULL;
				return -ENOMEM;
			}
			R->ev = p;
		}
		R->ev[R->n++] = i;
		if (e->start_ns < R->first_start)
			R->first_start = e->start_ns;
		if (dt_ev_end(e) > R->last_end)
			R->last_end = dt_ev_end(e);
		if (!e->result && (!R->nwin++ ||
				   e->start_ns < h->ev[R->win].start_ns))
			R->win = i;
	}
	return 0;
}

static bool race_has(const struct race *R, size_t i)
{
	size_t lo = 0, hi = R->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (R->ev[mid] == i)
			return true;
		if (R->ev[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool is_mutation(enum dt_opcode op)
{
	return op == DT_OP_CREATE || op == DT_OP_MKDIR || op == DT_OP_RMDIR ||
	       op == DT_OP_UNLINK || op == DT_OP_RENAME || op == DT_OP_LINK;
}

/* which paths the race's outcome is about */
typedef bool (*involved_fn)(const char *path, const void *arg);

static bool touches(const struct dt_event *e, involved_fn involved,
		    const void *arg)
{
	return involved(e->name, arg) ||
	       ((e->op == DT_OP_RENAME || e->op == DT_OP_LINK) &&
		involved(e->name2, arg));
}

/*
 * Until when lookups should see what the race left: the start of the
 * first successful mutation of an involved path, other than the race's
 * own renames, that began once the race had (a test that cleans up or
 * plays again on the same names).
 */
static uint64_t race_horizon(const struct dt_history *h, const struct race *R,
			     involved_fn involved, const void *arg)
{
	uint64_t t = UINT64_MAX;
	size_t i;

	for (i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		if (e->result || !is_mutation((enum dt_opcode)e->op) ||
		    e->start_ns < R->first_start || e->start_ns >= t ||
		    race_has(R, i) || !touches(e, involved, arg))
			continue;
		t = e->start_ns;
	}
	return t;
}

/*
 * The fileid name had when the race began, as told by the last event to
 * speak of it that returned before t: a CREATE or LOOKUP that saw one.
 * When that last event changed the name without telling (a rename, a link,
 * a removal), or none did, the fileid is unknown: 0.
 */
static uint64_t fileid_before(const struct dt_history *h, const char *name,
			      uint64_t t)
{
	uint64_t best = 0, fid = 0;
	bool any = false;
	size_t i;

	for (i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];
		bool speaks = false;

		if (e->result || dt_ev_end(e) >= t)
			continue;
		switch (e->op) {
		case DT_OP_CREATE:
		case DT_OP_MKDIR:
		case DT_OP_LOOKUP:
		case DT_OP_UNLINK:
		case DT_OP_RMDIR:
			speaks = !strcmp(e->name, name);
			break;
		case DT_OP_RENAME:
			speaks = !strcmp(e->name, name) ||
				 !strcmp(e->name2, name);
			break;
		case DT_OP_LINK:
			speaks = !strcmp(e->name2, name);
			break;
		default:
			break;
		}
		if (!speaks || (any && dt_ev_end(e) < best))
			continue;
		any = true;
		best = dt_ev_end(e);
		fid = e->op == DT_OP_CREATE || e->op == DT_OP_MKDIR ||
		      e->op == DT_OP_LOOKUP ? e->fileid : 0;
	}
	return fid;
}

/* What a lookup after the race must see at one name. */
struct want {
	const char *name;
	bool present;
	bool must_see;		/* the test must have looked here */
	uint64_t fileid;	/* present: the file expected, 0 = any */
	const char *why;	/* "renamed away by", ... */
	size_t because;		/* ... this event */
	size_t order;		/* claims on one name: the first stands */
	bool seen;
	/*
	 * looked at after the race, but by a caching client whose staleness
	 * bound (the read's widened start) reaches back into the race: that
	 * lookup may show any state since, so it judges nothing, yet the test
	 * did its part
	 */
	bool covered;
};

/*
 * The names a race is judged by, sorted for binary search: a run with
 * hundreds of workers has hundreds of loser targets, and every lookup of
 * the history is matched against them.
 */
struct wants {
	struct want *w;
	size_t n, cap;
};

static int wants_init(struct wants *W, size_t cap)
{
	W->n = 0;
	W->cap = cap;
	W->w = malloc(cap * sizeof(*W->w));
	return W->w ? 0 : -ENOMEM;
}

/* the first claim on a name stands: the winner's before a loser's */
static void want_add(struct wants *W, const char *name, bool present,
		     bool must_see, uint64_t fileid, const char *why,
		     size_t because)
{
	if (W->n == W->cap)
		return;		/* cannot happen: sized for every rename */
	W->w[W->n] = (struct want){
		.name = name, .present = present, .must_see = must_see,
		.fileid = fileid, .why = why, .because = because,
		.order = W->n,
	};
	W->n++;
}

static int want_cmp(const void *p, const void *q)
{
	const struct want *x = p, *y = q;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* sort by name and keep each name's first claim */
static void wants_seal(struct wants *W)
{
	size_t i, n = 0;

	if (W->n > 1)
		qsort(W->w, W->n, sizeof(*W->w), want_cmp);
	for (i = 0; i < W->n; i++)
		if (!n || strcmp(W->w[n - 1].name, W->w[i].name))
			W->w[n++] = W->w[i];
	W->n = n;
}

static struct want *want_find(const struct wants *W, const char *name)
{
	size_t lo = 0, hi = W->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(name, W->w[mid].name);

		if (!r)
			return &W->w[mid];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* one_source: the names of the race are files: only they are involved */
static bool is_wanted(const char *path, const void *arg)
{
	return want_find(arg, path) != NULL;
}

static void judge_after(struct dt_judge *j, const struct race *R,
			struct wants *W, uint64_t horizon)
{
	const struct dt_history *h = j->h;
	struct dt_verdict *v = j->v;
	char a[DT_EVLEN], b[DT_EVLEN], rb[16];
	size_t i, k;

	for (i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];
		struct want *w;

		if (e->op != DT_OP_LOOKUP || dt_ev_end(e) >= horizon)
			continue;
		if (e->start_ns <= R->last_end) {
			if ((e->flags & DT_EVF_WIDENED) &&
			    dt_ev_end(e) > R->last_end &&
			    (w = want_find(W, e->name)))
				w->covered = true;
			continue;
		}
		w = want_find(W, e->name);
		if (!w)
			continue;
		w->seen = true;
		if (e->result == 0 && !w->present) {
			if (!dt_judge_flag(j, i))
				continue;
			dt_say(v->what, "found after the race: %s", e->name);
			dt_say(v->expected, "ENOENT: %s %s", w->why,
			    dt_judge_evdesc(j, w->because, a, sizeof(a)));
			dt_say(v->observed, "%s", dt_judge_evdesc(j, i, b, sizeof(b)));
		} else if (e->result == 0 && w->fileid && e->fileid &&
			   e->fileid != w->fileid) {
			if (!dt_judge_flag(j, i))
				continue;
			dt_say(v->what, "fileid mismatch after the race: %s holds another file",
			    e->name);
			dt_say(v->expected, "fileid %" PRIu64 ": %s %s", w->fileid,
			    w->why, dt_judge_evdesc(j, w->because, a, sizeof(a)));
			dt_say(v->observed, "%s", dt_judge_evdesc(j, i, b, sizeof(b)));
		} else if (e->result == -ENOENT && w->present) {
			if (!dt_judge_flag(j, i))
				continue;
			dt_say(v->what, "lost after the race: ENOENT for %s",
			    e->name);
			dt_say(v->expected, "found: %s %s", w->why,
			    dt_judge_evdesc(j, w->because, a, sizeof(a)));
			dt_say(v->observed, "%s", dt_judge_evdesc(j, i, b, sizeof(b)));
		} else if (e->result && e->result != -ENOENT && dt_judge_flag(j, i)) {
			dt_say(v->what, "lookup of %s after the race returned %s",
			    e->name, dt_resname(e->result, rb, sizeof(rb)));
			dt_say(v->expected, "%s: a path lookup answers 0 or ENOENT",
			    w->present ? "found" : "ENOENT");
			dt_say(v->observed, "%s", dt_judge_evdesc(j, i, b, sizeof(b)));
		}
	}
	for (k = 0; k < W->n; k++) {
		const struct want *w = &W->w[k];

		if (!w->must_see || w->seen || w->covered ||
		    !dt_judge_flag(j, DT_NO_EVENT))
			continue;
		dt_say(v->what, "not checked: no lookup of %s after the race",
		    w->name);
		dt_say(v->expected, "a LOOKUP of %s started after the last rename returned (%s)",
		    w->name, w->present ? "found" : "ENOENT");
		dt_say(v->observed, "none (the test must look after the race)");
	}
}

/* ---- dt_oracle_rename_one_source ----------------------------------------- */

static bool renames_src(const struct dt_event *e, const void *arg)
{
	const char *src = arg;

	/* rename(x, x) is a no-op, not a contender */
	return !strcmp(e->name, src) && strcmp(e->name2, src);
}

int dt_oracle_rename_one_source(const struct dt_history *h, const char *src,
				struct dt_verdict *v)
{
	struct dt_verdict scratch;
	char a[DT_EVLEN], b[DT_EVLEN];
	const struct dt_event *win;
	struct wants W;
	struct dt_judge j;
	struct race R;
	size_t k;

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &scratch;
	dt_judge_init(&j, h, v);
	if (race_collect(&R, h, renames_src, src))
		return dt_judge_oom(&j);
	if (!R.n) {
		dt_judge_flag(&j, DT_NO_EVENT);
		dt_say(v->what, "no RENAME of %s in the history", src);
		dt_say(v->expected, "K racing renames of %s", src);
		dt_say(v->observed, "none (wrong name passed to the oracle?)");
		return v->violations;
	}
	if (!R.nwin && dt_judge_flag(&j, R.ev[0])) {
		dt_say(v->what, "no winner: all %zu renames of %s failed", R.n,
		    src);
		dt_say(v->expected, "exactly one returns 0: the first to take effect finds %s",
		    src);
		dt_say(v->observed, "first: %s", dt_judge_evdesc(&j, R.ev[0], b, sizeof(b)));
	}
	for (k = 0; k < R.n; k++) {
		size_t i = R.ev[k];
		const struct dt_event *e = &h->ev[i];

		if (!e->result) {
			if (i == R.win || !dt_judge_flag(&j, i))
				continue;
			dt_say(v->what, "two winners: %s renamed twice", src);
			dt_say(v->expected, "only %s", dt_judge_evdesc(&j, R.win, a, sizeof(a)));
			dt_say(v->observed, "%s", dt_judge_evdesc(&j, i, b, sizeof(b)));
		} else if (e->result != -ENOENT && dt_judge_flag(&j, i)) {
			dt_say(v->what, "a loser of the rename race on %s failed wrongly",
			    src);
			dt_say(v->expected, "ENOENT: its source was gone");
			dt_say(v->observed, "%s", dt_judge_evdesc(&j, i, b, sizeof(b)));
		}
	}
	/* with no winner, or two, there is no one state to expect */
	if (R.nwin != 1)
		goto out;

	if (wants_init(&W, R.n + 1)) {
		free(R.ev);
		return dt_judge_oom(&j);
	}
	win = &h->ev[R.win];
	want_add(&W, src, false, true, 0, "renamed away by", R.win);
	want_add(&W, win->name2, true, true,
		 fileid_before(h, src, R.first_start), "renamed there by",
		 R.win);
	for (k = 0; k < R.n; k++)
		want_add(&W, h->ev[R.ev[k]].name2, false, false, 0,
			 "its rename failed:", R.ev[k]);
	wants_seal(&W);
	judge_after(&j, &R, &W, race_horizon(h, &R, is_wanted, &W));
	free(W.w);
out:
	free(R.ev);
	return v->violations;
}

/* ---- dt_oracle_no_dir_loop ------------------------------------------------ */

struct pair {
	const char *a, *b;
};

static bool nests(const struct dt_event *e, const void *arg)
{
	const struct pair *p = arg;

	return (!strcmp(e->name, p->a) && below(e->name2, p->b)) ||
	       (!strcmp(e->name, p->b) && below(e->name2, p->a));
}

/* dir_loop: everything at or below the two directories */
static bool in_pair(const char *path, const void *arg)
{
	const struct pair *p = arg;

	return at_or_below(path, p->a) || at_or_below(path, p->b);
}

int dt_oracle_no_dir_loop(const struct dt_history *h, const char *a,
			  const char *b, struct dt_verdict *v)
{
	const struct pair p = { a, b };
	struct dt_verdict scratch;
	char x[DT_EVLEN], y[DT_EVLEN];
	const struct dt_event *win = NULL;
	const char *other = NULL;
	struct wants W;
	struct dt_judge j;
	struct race R;
	size_t k;

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &scratch;
	dt_judge_init(&j, h, v);
	if (!*a || !*b || at_or_below(a, b) || at_or_below(b, a)) {
		dt_judge_flag(&j, DT_NO_EVENT);
		dt_say(v->what, "no loop race between %s and %s", a, b);
		dt_say(v->expected, "two distinct directories side by side");
		dt_say(v->observed, "one lies at or below the other (wrong names passed to the oracle?)");
		return v->violations;
	}
	if (race_collect(&R, h, nests, &p))
		return dt_judge_oom(&j);
	if (!R.n) {
		dt_judge_flag(&j, DT_NO_EVENT);
		dt_say(v->what, "no RENAME of %s into %s or of %s into %s in the history",
		    a, b, b, a);
		dt_say(v->expected, "racing renames of each directory into the other");
		dt_say(v->observed, "none (wrong names passed to the oracle?)");
		return v->violations;
	}
	if (R.nwin) {
		win = &h->ev[R.win];
		other = !strcmp(win->name, a) ? b : a;
	} else if (dt_judge_flag(&j, R.ev[0])) {
		dt_say(v->what, "no winner: all %zu renames of %s and %s into each other failed",
		    R.n, a, b);
		dt_say(v->expected, "exactly one returns 0: the first to take effect finds both side by side");
		dt_say(v->observed, "first: %s", dt_judge_evdesc(&j, R.ev[0], y, sizeof(y)));
	}
	for (k = 0; k < R.n; k++) {
		size_t i = R.ev[k];
		const struct dt_event *e = &h->ev[i];

		if (!e->result) {
			if (i == R.win || !dt_judge_flag(&j, i))
				continue;
			if (strcmp(e->name, win->name)) {
				dt_say(v->what, "loop: %s moved into %s and %s into %s: neither is reachable",
				    win->name, win->name2, e->name, e->name2);
				dt_say(v->expected, "only %s; then EINVAL or ENOENT",
				    dt_judge_evdesc(&j, R.win, x, sizeof(x)));
			} else {
				dt_say(v->what, "two winners: %s moved twice",
				    e->name);
				dt_say(v->expected, "only %s; then ENOENT",
				    dt_judge_evdesc(&j, R.win, x, sizeof(x)));
			}
			dt_say(v->observed, "%s", dt_judge_evdesc(&j, i, y, sizeof(y)));
			continue;
		}
		if (e->result == -ENOENT)
			continue;
		/*
		 * EINVAL says "your target lies inside your source": true for
		 * the other directory once the winner moved its target's
		 * parent into it, never for the winner's own directory (its
		 * source is simply gone).  With no single winner, either.
		 */
		if (e->result == -EINVAL && (R.nwin != 1 ||
					     strcmp(e->name, win->name)))
			continue;
		if (!dt_judge_flag(&j, i))
			continue;
		dt_say(v->what, "a loser of the rename race between %s and %s failed wrongly",
		    a, b);
		if (R.nwin != 1)
			dt_say(v->expected, "EINVAL or ENOENT");
		else if (!strcmp(e->name, win->name))
			dt_say(v->expected, "ENOENT: %s was gone, moved by %s",
			    e->name, dt_judge_evdesc(&j, R.win, x, sizeof(x)));
		else
			dt_say(v->expected, "EINVAL or ENOENT: %s was moved into %s by %s",
			    win->name, e->name, dt_judge_evdesc(&j, R.win, x, sizeof(x)));
		dt_say(v->observed, "%s", dt_judge_evdesc(&j, i, y, sizeof(y)));
	}
	if (R.nwin != 1)
		goto out;

	if (wants_init(&W, R.n + 2)) {
		free(R.ev);
		return dt_judge_oom(&j);
	}
	/* the winner's source is gone, its target holds it, nothing else moved */
	want_add(&W, win->name, false, true, 0, "moved into the other by",
		 R.win);
	want_add(&W, other, true, true,
		 fileid_before(h, other, R.first_start),
		 "the winner only moved the other into it:", R.win);
	want_add(&W, win->name2, true, true,
		 fileid_before(h, win->name, R.first_start), "moved there by",
		 R.win);
	for (k = 0; k < R.n; k++)
		want_add(&W, h->ev[R.ev[k]].name2, false, false, 0,
			 "its rename failed:", R.ev[k]);
	wants_seal(&W);
	judge_after(&j, &R, &W, race_horizon(h, &R, in_pair, &p));
	free(W.w);
out:
	free(R.ev);
	return v->violations;
}

/* ---- dt_oracle_no_move_into_self ----------------------------------------- */

int dt_oracle_no_move_into_self(const struct dt_history *h,
				struct dt_verdict *v)
{
	struct dt_verdict scratch;
	char b[DT_EVLEN];
	struct dt_judge j;
	size_t i, n = 0;

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &scratch;
	dt_judge_init(&j, h, v);
	for (i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		if (e->op != DT_OP_RENAME || !below(e->name2, e->name))
			continue;
		n++;
		if (e->result == -EINVAL || !dt_judge_flag(&j, i))
			continue;
		if (!e->result)
			dt_say(v->what, "moved under itself: %s renamed to %s",
			    e->name, e->name2);
		else
			dt_say(v->what, "a rename of %s into itself failed wrongly",
			    e->name);
		dt_say(v->expected, "EINVAL: a directory cannot be moved under itself");
		dt_say(v->observed, "%s", dt_judge_evdesc(&j, i, b, sizeof(b)));
	}
	if (!n) {
		dt_judge_flag(&j, DT_NO_EVENT);
		dt_say(v->what, "no RENAME of a directory into itself in the history");
		dt_say(v->expected, "renames like d -> d/sub/x to judge");
		dt_say(v->observed, "none");
	}
	return v->violations;
}

/* ---- dt_oracle_open_reads -------------------------------------------------- */

/* an event of one thread's own sequence */
struct tkey {
	uint32_t who;		/* host << 16 | thread */
	uint64_t start;		/* its end, see dt_oracle_open_reads */
	size_t idx;
};

static int tkey_cmp(const void *p, const void *q)
{
	const struct tkey *x = p, *y = q;

	if (x->who != y->who)
		return x->who < y->who ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

struct gone {
	const char *name;
	uint64_t end;		/* a successful UNLINK of name returned */
};

static int gone_cmp(const void *p, const void *q)
{
	const struct gone *x = p, *y = q;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* When name was first unlinked, or UINT64_MAX: g[] sorted by gone_cmp */
static uint64_t unlinked_at(const struct gone *g, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(g[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(g[lo].name, name) ? g[lo].end : UINT64_MAX;
}

int dt_oracle_open_reads(const struct dt_history *h, const char *prefix,
			 size_t size, struct dt_verdict *v)
{
	size_t plen = strlen(prefix), i, nk = 0, ng = 0, nopen = 0, nread = 0,
	       nafter = 0, cur = DT_NO_EVENT;
	struct dt_verdict scratch;
	struct tkey *key;
	struct gone *g;
	char a[DT_EVLEN], b[DT_EVLEN];
	uint32_t who = 0;
	struct dt_judge j;

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &scratch;
	dt_judge_init(&j, h, v);
	key = malloc((h->n ? h->n : 1) * sizeof(*key));
	g = malloc((h->n ? h->n : 1) * sizeof(*g));
	if (!key || !g) {
		free(key);
		free(g);
		return dt_judge_oom(&j);
	}
	for (i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		if (e->op == DT_OP_UNLINK && !e->result &&
		    !strncmp(e->name, prefix, plen))
			g[ng++] = (struct gone){ e->name, dt_ev_end(e) };
		/* every OPEN counts: one of another name ends ours */
		if (e->op == DT_OP_OPEN || e->op == DT_OP_READ ||
		    e->op == DT_OP_CLOSE)
			/*
			 * a thread's ops in their order: by end, which a
			 * caching client's widened OPEN (start moved back
			 * by the stale bound) leaves in place
			 */
			key[nk++] = (struct tkey){
				.who = (uint32_t)e->host << 16 | e->thread,
				.start = dt_ev_end(e), .idx = i,
			};
	}
	if (nk > 1)
		qsort(key, nk, sizeof(*key), tkey_cmp);
	if (ng > 1)
		qsort(g, ng, sizeof(*g), gone_cmp);

	for (i = 0; i < nk; i++) {
		const struct dt_event *e = &h->ev[key[i].idx];
		const char *name;
		bool after;

		if (!i || key[i].who != who) {
			who = key[i].who;
			cur = DT_NO_EVENT;
		}
		if (e->op == DT_OP_OPEN) {
			cur = !e->result && !strncmp(e->name, prefix, plen) ?
			      key[i].idx : DT_NO_EVENT;
			nopen += cur != DT_NO_EVENT;
			continue;
		}
		if (cur == DT_NO_EVENT)
			continue;
		name = h->ev[cur].name;
		if (e->op == DT_OP_CLOSE) {
			if (e->result && dt_judge_flag(&j, key[i].idx)) {
				dt_say(v->what, "close of open %s failed", name);
				dt_say(v->expected, "0: opened by %s",
				    dt_judge_evdesc(&j, cur, a, sizeof(a)));
				dt_say(v->observed, "%s",
				    dt_judge_evdesc(&j, key[i].idx, b, sizeof(b)));
			}
			cur = DT_NO_EVENT;
			continue;
		}
		nread++;
		after = unlinked_at(g, ng, name) < e->start_ns;
		nafter += after;
		if (e->result >= 0 && (size_t)e->result == size)
			continue;
		if (!dt_judge_flag(&j, key[i].idx))
			continue;
		if (e->result < 0)
			dt_say(v->what, "a read of open %s failed%s", name,
			    after ? " after its name was unlinked" : "");
		else
			dt_say(v->what, "a read of open %s returned %d of %zu bytes%s",
			    name, e->result, size,
			    after ? " after its name was unlinked" : "");
		dt_say(v->expected, "%zu bytes: readable until closed, opened by %s",
		    size, dt_judge_evdesc(&j, cur, a, sizeof(a)));
		dt_say(v->observed, "%s", dt_judge_evdesc(&j, key[i].idx, b, sizeof(b)));
	}
	if (!nopen) {
		dt_judge_flag(&j, DT_NO_EVENT);
		dt_say(v->what, "no successful OPEN of %s* in the history", prefix);
		dt_say(v->expected, "files opened, read, unlinked, read");
		dt_say(v->observed, "none (wrong prefix passed to the oracle?)");
	} else if (!nafter) {
		dt_judge_flag(&j, DT_NO_EVENT);
		dt_say(v->what, "nothing tested: no read of an open %s* started after its unlink",
		    prefix);
		dt_say(v->expected, "a READ after an UNLINK of the open name returned");
		dt_say(v->observed, "%zu reads on %zu opens, %zu unlinks, none before a read",
		    nread, nopen, ng);
	}
	free(key);
	free(g);
	return v->violations;
}

/* ---- dt_oracle_own_rename ---------------------------------------------- */

/* does e (successful) put something at path p? */
static bool brings_back(const struct dt_event *e, const char *p)
{
	if (e->result)
		return false;
	switch (e->op) {
	case DT_OP_CREATE:
	case DT_OP_MKDIR:
		return !strcmp(e->name, p);
	case DT_OP_OPEN:
		return (e->flags & DT_EVF_CREAT) && !strcmp(e->name, p);
	case DT_OP_LINK:
	case DT_OP_RENAME:
		return !strcmp(e->name2, p);
	default:
		return false;
	}
}

int dt_oracle_own_rename(const struct dt_history *h, uint64_t widen_ns,
			 struct dt_verdict *v)
{
	struct dt_verdict scratch;
	char b[DT_EVLEN];
	struct dt_judge j;
	size_t judged = 0;

	/* a caller that only wants the count may pass NULL */
	if (!v)
		v = &scratch;
	dt_judge_init(&j, h, v);
	for (size_t i = 0; i < h->n; i++) {
		const struct dt_event *mv = &h->ev[i];
		uint64_t done = dt_ev_end(mv), until = UINT64_MAX;

		if (mv->op != DT_OP_RENAME || mv->result ||
		    !strcmp(mv->name, mv->name2))
			continue;
		/* the first later change that may bring the old name back */
		for (size_t k = 0; k < h->n; k++)
			if (k != i && h->ev[k].start_ns >= mv->start_ns &&
			    h->ev[k].start_ns < until &&
			    brings_back(&h->ev[k], mv->name))
				until = h->ev[k].start_ns;
		for (size_t k = 0; k < h->n; k++) {
			const struct dt_event *e = &h->ev[k];
			uint64_t began = e->start_ns + widen_ns;

			if (e->host != mv->host || strcmp(e->name, mv->name) ||
			    !(e->op == DT_OP_LOOKUP ||
			      (e->op == DT_OP_OPEN && !(e->flags & DT_EVF_CREAT))) ||
			    began <= done || began >= until)
				continue;
			judged++;
			if (e->result == -ENOENT || !dt_judge_flag(&j, k))
				continue;
			dt_say(v->what, "host %u looked up %s after its own rename of it to %s",
			       mv->host, mv->name, mv->name2);
			dt_say(v->expected, "ENOENT: renamed away by this host (%s)",
			       dt_judge_evdesc(&j, i, b, sizeof(b)));
			dt_say(v->observed, "%s", dt_judge_evdesc(&j, k, b, sizeof(b)));
		}
	}
	if (!judged) {
		dt_judge_flag(&j, DT_NO_EVENT);
		dt_say(v->what, "no lookup of a renamed name by its renaming host after the rename");
		dt_say(v->expected, "such lookups to judge");
		dt_say(v->observed, "none");
	}
	return v->violations;
}
