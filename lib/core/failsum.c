/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Failures summarized by kind.  A case keeps running after its first
 * failure; the "failures:" list keeps the first few in full, and this
 * counts every one by kind, with the first and the last example of each,
 * for the YAML key "failure_summary".
 *
 * A kind is what a reader would group by:
 *   - an oracle's violation: "<oracle>: <op> <answer>", from the event the
 *     oracle flagged ("name lifetime: lookup found", "...: lookup ESTALE");
 *     every violation an oracle counts is told here through the oracles'
 *     hook (check/oracle.h), not only the one its verdict describes;
 *   - a verdict about the history as a whole, or the history checker's:
 *     "<oracle>: <what>" with names and numbers masked;
 *   - a plain dt_fail(): "<op>: <observed>", masked the same way.
 * Bounded: at most FS_KINDS kinds (more are counted as "other kinds"),
 * examples cut to FS_EXAMPLE bytes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errname.h"
#include "core/internal.h"

#define FS_KINDS 16
#define FS_KEY 120
#define FS_EXAMPLE 240
#define FS_PENDING 64

struct kind {
	char key[FS_KEY];
	long count;
	char first[FS_EXAMPLE], last[FS_EXAMPLE];
};

static struct {
	pthread_mutex_t lock;
	struct kind k[FS_KINDS];
	int nk;
	long other;		/* violations of kinds beyond FS_KINDS */
	/* what the running oracle flagged, until its verdict is reported */
	struct kind pend[FS_PENDING];
	int npend;
	long pend_other;
} fs = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Names and numbers masked: "lookup of s/x.12 returned ESTALE" -> "... * ..." */
static void mask(char *dst, size_t cap, const char *src)
{
	size_t n = 0;

	while (*src && n + 2 < cap) {
		size_t len = strcspn(src, " ");
		bool var = false;

		for (size_t i = 0; i < len; i++)
			var |= isdigit((unsigned char)src[i]) || src[i] == '/';
		if (var) {
			dst[n++] = '*';
		} else {
			size_t take = len < cap - n - 1 ? len : cap - n - 1;

			memcpy(dst + n, src, take);
			n += take;
		}
		src += len;
		while (*src == ' ' && n + 1 < cap) {
			dst[n++] = ' ';
			src++;
		}
	}
	dst[n] = '\0';
}

static void count_in(struct kind *tab, int *n, int max, long *other,
		     const char *key, long times, const char *example)
{
	struct kind *k = NULL;

	for (int i = 0; i < *n && !k; i++)
		if (!strcmp(tab[i].key, key))
			k = &tab[i];
	if (!k && *n < max) {
		/* a slot of the pending table is used again by the next
		   oracle: nothing of its last kind may stay */
		k = &tab[(*n)++];
		memset(k, 0, sizeof(*k));
		snprintf(k->key, sizeof(k->key), "%s", key);
		snprintf(k->first, sizeof(k->first), "%s", example);
	}
	if (!k) {
		*other += times;
		return;
	}
	k->count += times;
	snprintf(k->last, sizeof(k->last), "%s", example);
}

void dt_failsum_add(const char *kind, long times, const char *example)
{
	pthread_mutex_lock(&fs.lock);
	count_in(fs.k, &fs.nk, FS_KINDS, &fs.other, kind, times, example);
	pthread_mutex_unlock(&fs.lock);
}

void dt_failsum_fail(const char *op, const char *observed, const char *msg)
{
	char key[2 * FS_KEY], masked[FS_KEY];

	mask(masked, sizeof(masked), observed);
	snprintf(key, sizeof(key), "%s: %s", op, masked);
	key[FS_KEY - 1] = '\0';
	dt_failsum_add(key, 1, msg);
}

/* ---- the oracles' hook: pending until dt_fail_verdict names the oracle */

static void hook_begin(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&fs.lock);
	fs.npend = 0;
	fs.pend_other = 0;
	pthread_mutex_unlock(&fs.lock);
}

/* keys and examples are capped: a cut one ends in "..." */
static void mark_cut(char *buf, size_t size, int n)
{
	if (n >= (int)size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

static void hook_flag(void *arg, const struct dt_history *h, size_t ev)
{
	const struct dt_event *e;
	char key[FS_KEY], ex[FS_EXAMPLE], rb[16];

	(void)arg;
	if (ev >= h->n)
		return;		/* about the whole history: the verdict says */
	e = &h->ev[ev];
	mark_cut(key, sizeof(key),
		 snprintf(key, sizeof(key), "%s %s",
			  dt_op_name((enum dt_opcode)e->op),
			  e->result == 0 && (e->op == DT_OP_LOOKUP ||
					     e->op == DT_OP_OPEN) ? "found" :
			  dt_resname(e->result, rb, sizeof(rb))));
	mark_cut(ex, sizeof(ex),
		 snprintf(ex, sizeof(ex), "#%zu h%u t%u %s(%s%s%s) = %s fileid %llu",
			  ev, e->host, e->thread,
			  dt_op_name((enum dt_opcode)e->op), e->name,
			  e->name2[0] ? ", " : "", e->name2,
			  dt_resname(e->result, rb, sizeof(rb)),
			  (unsigned long long)e->fileid));
	pthread_mutex_lock(&fs.lock);
	count_in(fs.pend, &fs.npend, FS_PENDING, &fs.pend_other, key, 1, ex);
	pthread_mutex_unlock(&fs.lock);
}

static const struct dt_violation_hook hook = {
	.begin = hook_begin, .flag = hook_flag,
};

void dt_failsum_watch_oracles(void)
{
	dt_oracle_set_hook(&hook);
}

void dt_failsum_verdict(const char *oracle, const struct dt_verdict *v)
{
	char key[FS_KEY + 64], masked[FS_KEY], ex[sizeof(v->observed)];
	long told = 0;

	pthread_mutex_lock(&fs.lock);
	for (int i = 0; i < fs.npend; i++) {
		snprintf(key, sizeof(key), "%s: %s", oracle, fs.pend[i].key);
		key[FS_KEY - 1] = '\0';
		count_in(fs.k, &fs.nk, FS_KINDS, &fs.other, key,
			 fs.pend[i].count, fs.pend[i].first);
		/* the last example too: count_in keeps the latest */
		count_in(fs.k, &fs.nk, FS_KINDS, &fs.other, key, 0,
			 fs.pend[i].last[0] ? fs.pend[i].last :
			 fs.pend[i].first);
		told += fs.pend[i].count;
	}
	told += fs.pend_other;
	fs.other += fs.pend_other;
	fs.npend = 0;
	fs.pend_other = 0;
	pthread_mutex_unlock(&fs.lock);
	/* violations no event stood for (or a verdict without the hook) */
	if (v->violations > told) {
		mask(masked, sizeof(masked), v->what);
		snprintf(key, sizeof(key), "%s: %s", oracle, masked);
		key[FS_KEY - 1] = '\0';
		snprintf(ex, sizeof(ex), "%s", v->observed[0] ? v->observed :
			 v->what);
		dt_failsum_add(key, v->violations - told, ex);
	}
}

/*
 * The kinds so far, for report.c to render (failsum.c calls nothing of
 * report.c, so the two objects do not call each other in a circle).
 */
void dt_failsum_each(void (*fn)(const char *kind, long count,
				const char *first, const char *last,
				void *arg),
		     long *other, void *arg)
{
	pthread_mutex_lock(&fs.lock);
	for (int i = 0; i < fs.nk; i++)
		fn(fs.k[i].key, fs.k[i].count, fs.k[i].first,
		   fs.k[i].last[0] ? fs.k[i].last : fs.k[i].first, arg);
	*other = fs.other;
	pthread_mutex_unlock(&fs.lock);
}
