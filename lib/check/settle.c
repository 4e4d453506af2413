/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The settle check's pure part: which names to read, the views' text
 * form, and the judge (settle.h says why agreement is the test).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/settle.h"

struct touched {
	const char *name;	/* points into the history */
	bool changed;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct touched *)a)->name,
		      ((const struct touched *)b)->name);
}

static bool changes_name(const struct dt_event *e)
{
	switch (e->op) {
	case DT_OP_CREATE: case DT_OP_MKDIR: case DT_OP_RMDIR:
	case DT_OP_UNLINK: case DT_OP_RENAME: case DT_OP_LINK:
		return true;
	case DT_OP_OPEN:
		return e->flags & DT_EVF_CREAT;
	default:
		return false;
	}
}

static bool under(const char *name, const char *scratch, size_t slen)
{
	return !strncmp(name, scratch, slen) && name[slen] == '/' &&
	       name[slen + 1];
}

/* index of dir in p->dir, added if there is room; SIZE_MAX if not */
static size_t dir_index(struct dt_settle_plan *p, const char *dir, size_t len)
{
	for (size_t d = 0; d < p->ndirs; d++)
		if (strlen(p->dir[d]) == len && !strncmp(p->dir[d], dir, len))
			return d;
	if (p->ndirs == DT_SETTLE_MAX_DIRS)
		return SIZE_MAX;
	p->dir[p->ndirs] = strndup(dir, len);
	return p->dir[p->ndirs] ? p->ndirs++ : SIZE_MAX;
}

int dt_settle_plan(const struct dt_history *h, const char *scratch,
		   struct dt_settle_plan *p)
{
	size_t slen = strlen(scratch), n = 0, k;
	struct touched *t = calloc(2 * h->n + 1, sizeof(*t));

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < DT_SETTLE_MAX_NAMES; i++)
		p->tick_mark[i][0] = p->tick_mark[i][1] = SIZE_MAX;
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		if (under(e->name, scratch, slen))
			t[n++] = (struct touched){ e->name, changes_name(e) };
		if ((e->op == DT_OP_RENAME || e->op == DT_OP_LINK) &&
		    under(e->name2, scratch, slen))
			t[n++] = (struct touched){ e->name2, true };
	}
	qsort(t, n, sizeof(*t), by_name);
	/* one entry per name, changed if any op changed it */
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(t[k - 1].name, t[i].name))
			t[k - 1].changed |= t[i].changed;
		else
			t[k++] = t[i];
	}
	p->touched = k;
	p->dir[p->ndirs] = strdup(scratch);
	if (!p->dir[p->ndirs++])
		goto nomem;
	/* changed names first, then the ones only looked at */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < k && p->nnames < DT_SETTLE_MAX_NAMES; i++) {
			const char *slash;

			if (t[i].changed != (pass == 0))
				continue;
			p->changed += t[i].changed;
			p->name[p->nnames] = strdup(t[i].name);
			if (!p->name[p->nnames])
				goto nomem;
			slash = strrchr(t[i].name, '/');
			p->dir_of[p->nnames++] = dir_index(p, t[i].name,
						(size_t)(slash - t[i].name));
		}
	}
	free(t);
	return 0;
nomem:
	free(t);
	dt_settle_plan_free(p);
	return -ENOMEM;
}

void dt_settle_plan_free(struct dt_settle_plan *p)
{
	for (size_t i = 0; i < p->nnames; i++)
		free(p->name[i]);
	for (size_t d = 0; d < p->ndirs; d++)
		free(p->dir[d]);
	memset(p, 0, sizeof(*p));
}

static size_t name_index(const struct dt_settle_plan *p, const char *name)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (!strcmp(p->name[i], name))
			return i;
	return SIZE_MAX;
}

int dt_settle_same_tick(struct dt_settle_plan *p, const char *name,
			const char *mark1, const char *mark2)
{
	size_t i = name_index(p, name), j = name_index(p, mark1),
	       k = name_index(p, mark2);

	if (i == SIZE_MAX || j == SIZE_MAX || k == SIZE_MAX)
		return -ENOENT;
	p->tick_mark[i][0] = j;
	p->tick_mark[i][1] = k;
	return 0;
}

/* ---- listings --------------------------------------------------------- */

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

uint64_t dt_settle_fnv(uint64_t h, const char *name)
{
	for (const char *c = name;; c++) {
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
		if (!*c)
			return h;
	}
}

void dt_settle_take_list(const struct dt_settle_plan *p, size_t d, int rc,
			 const struct dt_dirlist *l, struct dt_settle_view *v)
{
	struct dt_settle_list *out = &v->list[d];
	const char **names = NULL;
	size_t n = 0;
	uint64_t hash = DT_SETTLE_FNV_SEED;

	out->rc = rc;
	out->count = 0;
	out->digest = 0;
	if (rc == 0 && l->n)
		names = malloc(l->n * sizeof(*names));
	for (size_t i = 0; names && i < l->n; i++)
		/* an unlinked file still open: the client's, not the server's */
		if (strncmp(l->ent[i].name, ".nfs", 4))
			names[n++] = l->ent[i].name;
	if (names)
		qsort(names, n, sizeof(*names), by_str);
	for (size_t i = 0; i < n; i++)
		hash = dt_settle_fnv(hash, names[i]);
	if (rc == 0) {
		out->count = (uint32_t)n;
		out->digest = hash;
	}
	for (size_t i = 0; i < p->nnames; i++) {
		if (p->dir_of[i] != d)
			continue;
		v->look[i].listed = -1;
		if (rc < 0 || (l->n && !names))
			continue;
		/* an empty listing has no array to search (bsearch wants one) */
		v->look[i].listed = n && bsearch(&(const char *){ base_of(p->name[i]) },
						 names, n, sizeof(*names), by_str);
	}
	free(names);
}

/* ---- text form -------------------------------------------------------- */

int dt_settle_encode(const struct dt_settle_plan *p,
		     const struct dt_settle_view *v, char *buf, size_t len)
{
	size_t off = 0;
	int w;

#define PUT(...) do {							\
		w = snprintf(buf + off, len - off, __VA_ARGS__);	\
		if (w < 0 || (size_t)w >= len - off)			\
			return -ENOSPC;					\
		off += (size_t)w;					\
	} while (0)
	PUT("settle %zu %zu %d\n", p->nnames, p->ndirs, v->listed);
	for (size_t i = 0; i < p->nnames; i++)
		PUT("%d %" PRIu64 " %d %" PRIu64 "\n", v->look[i].rc,
		    v->look[i].fileid, v->look[i].listed, v->look[i].ctime_ns);
	for (size_t d = 0; d < p->ndirs; d++)
		PUT("%d %" PRIu32 " %" PRIx64 "\n", v->list[d].rc,
		    v->list[d].count, v->list[d].digest);
#undef PUT
	return (int)off;
}

int dt_settle_decode(const struct dt_settle_plan *p, const char *buf,
		     size_t len, struct dt_settle_view *v)
{
	char *text = strndup(buf, len), *line, *save = NULL;
	size_t nn, nd, i = 0;
	int listed, rc = -EBADMSG;

	if (!text)
		return -ENOMEM;
	memset(v, 0, sizeof(*v));
	line = strtok_r(text, "\n", &save);
	if (!line || sscanf(line, "settle %zu %zu %d", &nn, &nd, &listed) != 3 ||
	    nn != p->nnames || nd != p->ndirs || (listed != 0 && listed != 1))
		goto out;
	v->listed = listed;
	for (; i < nn + nd && (line = strtok_r(NULL, "\n", &save)); i++) {
		if (i < nn) {
			struct dt_settle_look *l = &v->look[i];

			if (sscanf(line, "%d %" SCNu64 " %d %" SCNu64, &l->rc,
				   &l->fileid, &l->listed, &l->ctime_ns) != 4 ||
			    l->listed < -1 ||
			    l->listed > 1)
				goto out;
		} else {
			struct dt_settle_list *l = &v->list[i - nn];

			if (sscanf(line, "%d %" SCNu32 " %" SCNx64, &l->rc,
				   &l->count, &l->digest) != 3)
				goto out;
		}
	}
	if (i == nn + nd && !strtok_r(NULL, "\n", &save))
		rc = 0;
out:
	free(text);
	return rc;
}

/* ---- the judge -------------------------------------------------------- */

/* dt_fmt's few rotating buffers would not hold a verdict's three texts */
static void answer(char *buf, size_t len, int host, const char *name,
		   const struct dt_settle_look *l)
{
	if (l->rc)
		snprintf(buf, len, "host %d: lookup(%s) = %s", host, name,
			 dt_strerr(l->rc));
	else
		snprintf(buf, len, "host %d: lookup(%s) = 0 fileid %" PRIu64,
			 host, name, l->fileid);
}

static void listing(char *buf, size_t len, int host, const char *dir,
		    const struct dt_settle_list *l)
{
	if (l->rc)
		snprintf(buf, len, "host %d: readdir(%s) = %s", host, dir,
			 dt_strerr(l->rc));
	else
		snprintf(buf, len, "host %d: readdir(%s): %" PRIu32 " names, "
			 "digest %016" PRIx64, host, dir, l->count, l->digest);
}

static bool same_answer(const struct dt_settle_look *a,
			const struct dt_settle_look *b)
{
	if (a->rc != b->rc)
		return false;
	/* 0: a backend that cannot say does not disagree */
	return a->rc || !a->fileid || !b->fileid || a->fileid == b->fileid;
}

/* the first violation fills v (what, expected, observed); every one counts */
static bool first(struct dt_verdict *v)
{
	return !v->violations++;
}

/* dt_settle_same_tick's excuse: hosts saw name's marks in one tick */
static bool one_tick(const struct dt_settle_plan *p,
		     const struct dt_settle_view *views, int nhosts, size_t i)
{
	size_t j = p->tick_mark[i][0], k = p->tick_mark[i][1];

	if (j == SIZE_MAX || k == SIZE_MAX)
		return false;
	for (int a = 0; a < nhosts; a++)
		for (int b = 0; b < nhosts; b++) {
			const struct dt_settle_look *n = &views[a].look[j];
			const struct dt_settle_look *m = &views[b].look[k];

			if (!n->rc && !m->rc && n->ctime_ns &&
			    n->ctime_ns == m->ctime_ns)
				return true;
		}
	return false;
}

/* a disagreement on name i that one_tick excused: counted, not judged */
static bool excuse(const bool *skip, bool *hit, size_t i)
{
	if (!skip[i])
		return false;
	hit[i] = true;
	return true;
}

int dt_settle_judge(const struct dt_settle_plan *p,
		    const struct dt_settle_view *views, int nhosts,
		    struct dt_verdict *v, size_t *excused)
{
	/* skip: excused; hit: a disagreement it excused */
	bool skip[DT_SETTLE_MAX_NAMES], hit[DT_SETTLE_MAX_NAMES] = { false };

	memset(v, 0, sizeof(*v));
	v->event = SIZE_MAX;	/* about the quiet namespace, no event */
	for (size_t i = 0; i < p->nnames; i++)
		skip[i] = one_tick(p, views, nhosts, i);
	for (size_t i = 0; i < p->nnames; i++)
		for (int h = 1; h < nhosts; h++) {
			if (same_answer(&views[0].look[i], &views[h].look[i]) ||
			    excuse(skip, hit, i) || !first(v))
				continue;
			snprintf(v->what, sizeof(v->what), "hosts disagree "
				 "after the load and the stale bound: host 0 "
				 "and host %d on %s", h, p->name[i]);
			answer(v->expected, sizeof(v->expected), 0,
			       p->name[i], &views[0].look[i]);
			answer(v->observed, sizeof(v->observed), h,
			       p->name[i], &views[h].look[i]);
		}
	for (size_t d = 0; d < p->ndirs; d++)
		for (int h = 1; h < nhosts; h++) {
			const struct dt_settle_list *a = &views[0].list[d];
			const struct dt_settle_list *b = &views[h].list[d];

			if (!views[0].listed || !views[h].listed ||
			    (a->rc == b->rc && a->count == b->count &&
			     a->digest == b->digest) || !first(v))
				continue;
			snprintf(v->what, sizeof(v->what), "hosts list %s "
				 "differently after the load and the stale "
				 "bound: host 0 and host %d", p->dir[d], h);
			listing(v->expected, sizeof(v->expected), 0, p->dir[d], a);
			listing(v->observed, sizeof(v->observed), h, p->dir[d], b);
		}
	for (int h = 0; h < nhosts; h++) {
		if (!views[h].listed)
			continue;
		for (size_t i = 0; i < p->nnames; i++) {
			const struct dt_settle_look *l = &views[h].look[i];

			/* other errors (ENOTDIR, ESTALE) have no listing to match */
			if (l->listed < 0 || (l->rc && l->rc != -ENOENT) ||
			    (l->rc == 0) == (l->listed == 1) ||
			    excuse(skip, hit, i) || !first(v))
				continue;
			snprintf(v->what, sizeof(v->what), "host %d's lookup "
				 "and its own listing of the directory disagree "
				 "after the load and the stale bound", h);
			snprintf(v->expected, sizeof(v->expected), "host %d: "
				 "readdir(%s) %s %s", h, p->dir[p->dir_of[i]],
				 l->listed ? "lists" : "does not list",
				 base_of(p->name[i]));
			answer(v->observed, sizeof(v->observed), h,
			       p->name[i], l);
		}
	}
	if (excused) {
		*excused = 0;
		for (size_t i = 0; i < p->nnames; i++)
			*excused += hit[i];
	}
	return v->violations;
}
