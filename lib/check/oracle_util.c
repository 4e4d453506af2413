/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verdict plumbing shared by the oracles; see oracle_util.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errname.h"
#include "check/oracle_util.h"

static __thread const struct dt_violation_hook *violation_hook;

void dt_oracle_set_hook(const struct dt_violation_hook *hook)
{
	violation_hook = hook;
}

void dt_judge_init(struct dt_judge *j, const struct dt_history *h,
		   struct dt_verdict *v)
{
	if (violation_hook && violation_hook->begin)
		violation_hook->begin(violation_hook->arg);
	memset(v, 0, sizeof(*v));
	j->h = h;
	j->v = v;
	/* the origin dt_history_dump uses, so the numbers can be found */
	j->t0 = dt_history_t0(h);
}

void dt_judge_tell(const struct dt_judge *j, size_t ev)
{
	if (violation_hook && violation_hook->flag)
		violation_hook->flag(violation_hook->arg, j->h, ev);
}

bool dt_judge_flag(struct dt_judge *j, size_t ev)
{
	struct dt_verdict *v = j->v;

	dt_judge_tell(j, ev);
	v->violations++;
	if (v->violations == 1 || ev < v->event) {
		v->event = ev;
		return true;
	}
	return false;
}

void dt_say(char dst[256], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, 256, fmt, ap);
	va_end(ap);
}

int dt_judge_oom(struct dt_judge *j)
{
	j->v->violations++;
	j->v->event = DT_NO_EVENT;
	dt_say(j->v->what, "oracle could not judge the history: out of memory");
	dt_say(j->v->expected, "a verdict");
	dt_say(j->v->observed, "ENOMEM");
	return -ENOMEM;
}

const char *dt_judge_evdesc(const struct dt_judge *j, size_t i, char *buf,
			    size_t len)
{
	const struct dt_event *e = &j->h->ev[i];
	char rb[16], th[16], what[32];

	if (e->thread == 0xffff)
		snprintf(th, sizeof(th), "setup");
	else
		snprintf(th, sizeof(th), "t%u", e->thread);
	/* a listing's size says more than its (meaningless) fileid */
	if (e->op == DT_OP_READDIR && e->list)
		snprintf(what, sizeof(what), "(%zu entries)", e->list->n);
	else
		snprintf(what, sizeof(what), "fileid %" PRIu64, e->fileid);
	snprintf(buf, len, "#%zu h%u %s %s(%s%s%s) = %s %s"
		 " @[+%" PRId64 ",+%" PRId64 "]ns",
		 i, e->host, th, dt_op_name((enum dt_opcode)e->op), e->name,
		 e->name2[0] ? ", " : "", e->name2,
		 dt_resname(e->result, rb, sizeof(rb)), what,
		 (int64_t)(e->start_ns - j->t0),
		 (int64_t)(dt_ev_end(e) - j->t0));
	return buf;
}

void dt_sort_n(void *base, size_t n, size_t size,
	       int (*cmp)(const void *, const void *))
{
	/* qsort(NULL, 0, ...) is undefined, and empty arrays here are NULL */
	if (n > 1)
		qsort(base, n, size, cmp);
}

int dt_pathset_push(struct dt_pathset *s, const char *path)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		const char **p = realloc(s->p, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->p = p;
		s->cap = cap;
	}
	s->p[s->n++] = path;
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void dt_pathset_sort(struct dt_pathset *s)
{
	dt_sort_n(s->p, s->n, sizeof(*s->p), str_cmp);
}

/* are the first len bytes of key one of the (sorted) paths? */
static bool has_prefix(const struct dt_pathset *s, const char *key,
		       size_t len)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *p = s->p[mid];
		int r = strncmp(key, p, len);

		if (!r && !p[len])
			return true;
		if (!r)
			r = -1;	/* key is a proper prefix of p: sorts first */
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

bool dt_pathset_has(const struct dt_pathset *s, const char *path)
{
	return has_prefix(s, path, strlen(path));
}

bool dt_pathset_covers(const struct dt_pathset *s, const char *path)
{
	if (!s->n)
		return false;
	for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/'))
		if (p > path && has_prefix(s, path, (size_t)(p - path)))
			return true;
	return false;
}

void dt_pathset_free(struct dt_pathset *s)
{
	free(s->p);
	s->p = NULL;
	s->n = s->cap = 0;
}
