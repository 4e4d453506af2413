/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The case's record: what a case child reports (outcome, failures, YAML
 * diagnostics) into the shared mapping its parent prints as TAP, and the
 * reporting calls of the test API (dt_fail, dt_broken, dt_skip, dt_diag).
 * It also holds the run's coordinator connection, whose progress a case
 * child hands back to its parent when it exits.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coord/coord.h"
#include "core/internal.h"

struct dt_shared *dt_shared;
struct dt_coord *dt_coord_handle;

static pthread_mutex_t diag_lock = PTHREAD_MUTEX_INITIALIZER;

static void append_locked(char *buf, size_t *len, size_t max,
			  const char *fmt, va_list ap)
{
	size_t room = max - *len;

	if (room > 1) {
		int n = vsnprintf(buf + *len, room, fmt, ap);

		if (n > 0)
			*len += (size_t)n < room ? (size_t)n : room - 1;
	}
}

void dt_diag_append(const char *fmt, ...)
{
	va_list ap;

	if (!dt_shared)
		return;
	pthread_mutex_lock(&diag_lock);
	va_start(ap, fmt);
	append_locked(dt_shared->diag, &dt_shared->diag_len, DT_DIAG_MAX,
		      fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&diag_lock);
}

/* the same for the failures list (printed first, see struct dt_shared) */
static void __attribute__((format(printf, 1, 2)))
fail_append(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&diag_lock);
	va_start(ap, fmt);
	append_locked(dt_shared->fail, &dt_shared->fail_len, DT_FAIL_MAX,
		      fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&diag_lock);
}

/* YAML-quote s into a static-per-thread buffer (double quotes, escapes). */
const char *dt_yaml_quote(const char *s)
{
	static __thread char b[4][1100];
	static __thread unsigned next;
	char *o = b[next++ % 4], *p = o;
	char *end = o + sizeof(b[0]) - 8;

	*p++ = '"';
	for (; s && *s && p < end; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < 0x20) {
			p += sprintf(p, "\\x%02x", c);
		} else {
			*p++ = (char)c;
		}
	}
	*p++ = '"';
	*p = 0;
	return o;
}

void dt_diag_block(const char *key, const char *text)
{
	const char *line = text;

	dt_diag_append("  %s: |\n", key);
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);

		dt_diag_append("    %.*s\n", len, line);
		line = nl ? nl + 1 : NULL;
	}
}

void dt_diag(struct dt_run *r, const char *key, const char *fmt, ...)
{
	char val[1024];
	va_list ap;

	(void)r;
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	dt_diag_append("  %s: %s\n", key, dt_yaml_quote(val));
}

static void set_outcome(int outcome)
{
	/* FAIL dominates BROKEN dominates SKIP dominates PASS */
	static const int rank[] = { [DT_PASS] = 0, [DT_SKIP] = 1,
				    [DT_BROKEN] = 2, [DT_FAIL] = 3 };

	if (rank[outcome] > rank[dt_shared->outcome])
		dt_shared->outcome = outcome;
}

/* one failure into the "failures:" list (the first few in full) */
static void fail_record(struct dt_run *r, const char *file, int line,
			const char *op, const char *expected,
			const char *observed, const char *msg)
{
	pthread_mutex_lock(&diag_lock);
	int nth = ++dt_shared->failures;
	set_outcome(DT_FAIL);
	pthread_mutex_unlock(&diag_lock);
	__atomic_add_fetch(&r->failures, 1, __ATOMIC_RELAXED);
	/* a broken system can fail a million times: keep the first few */
	if (nth > 10) {
		if (nth == 11)
			fail_append("  more_failures: true\n");
		return;
	}
	if (nth == 1)
		fail_append("  failures:\n");
	fail_append("    - at: %s:%d\n      op: %s\n      expected: %s\n"
		    "      observed: %s\n      message: %s\n", file, line,
		    dt_yaml_quote(op), dt_yaml_quote(expected), dt_yaml_quote(observed), dt_yaml_quote(msg));
}

void dt_fail_at(struct dt_run *r, const char *file, int line, const char *op,
		const char *expected, const char *observed, const char *fmt,
		...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dt_failsum_fail(op, observed, msg);
	fail_record(r, file, line, op, expected, observed, msg);
}

void dt_fail_verdict_at(struct dt_run *r, const char *file, int line,
			const char *oracle, const struct dt_verdict *v)
{
	char msg[1024];

	if (!v->violations)
		return;
	if (v->event == SIZE_MAX)
		snprintf(msg, sizeof(msg), "%s (%d violation%s)", v->what,
			 v->violations, v->violations == 1 ? "" : "s");
	else
		snprintf(msg, sizeof(msg), "%s (%d violation%s, first at "
			 "event %zu)", v->what, v->violations,
			 v->violations == 1 ? "" : "s", v->event);
	dt_failsum_verdict(oracle, v);
	fail_record(r, file, line, oracle, v->expected, v->observed, msg);
}

static void render_kind(const char *kind, long count, const char *first,
			const char *last, void *arg)
{
	bool *head = arg;

	if (!*head)
		dt_diag_append("  failure_summary:\n");
	*head = true;
	dt_diag_append("    - kind: %s\n      count: %ld\n      first: %s\n"
		       "      last: %s\n", dt_yaml_quote(kind), count,
		       dt_yaml_quote(first), dt_yaml_quote(last));
}

void dt_failsum_render(void)
{
	bool head = false;
	long other = 0;

	dt_failsum_each(render_kind, &other, &head);
	if (other)
		dt_diag_append("  failure_summary_other_kinds: %ld\n", other);
}

void dt_case_exit(int outcome)
{
	if (dt_shared) {
		set_outcome(outcome);
		dt_failsum_render();
		/* if a task stuck in the kernel keeps us, the parent will know */
		__atomic_store_n(&dt_shared->exit_ns, dt_now_ns(),
				 __ATOMIC_RELEASE);
	}
	/* hand the coordinator handle's progress back to the parent */
	if (dt_shared && dt_coord_handle &&
	    dt_coord_sync_size() <= sizeof(dt_shared->coord_sync)) {
		/* busy: a thread is mid-call, the parent comes back anew */
		dt_shared->coord_synced =
			dt_coord_sync_get(dt_coord_handle,
					  dt_shared->coord_sync) == 0;
	}
	fflush(stdout);
	fflush(stderr);
	_exit(dt_shared ? dt_shared->outcome : outcome);
}

void dt_broken_at(struct dt_run *r, const char *file, int line,
		  const char *fmt, ...)
{
	va_list ap;

	(void)r;
	va_start(ap, fmt);
	vsnprintf(dt_shared->reason, sizeof(dt_shared->reason), fmt, ap);
	va_end(ap);
	dt_diag_append("  broken_at: %s:%d\n", file, line);
	dt_case_exit(DT_BROKEN);
}

void dt_skip(struct dt_run *r, const char *fmt, ...)
{
	va_list ap;

	(void)r;
	va_start(ap, fmt);
	vsnprintf(dt_shared->reason, sizeof(dt_shared->reason), fmt, ap);
	va_end(ap);
	dt_case_exit(DT_SKIP);
}

/* scratch + "/" + formatted name; an over-long path is a test bug */
static void vpath(struct dt_run *r, char *b, size_t len, const char *fmt,
		  va_list ap)
{
	int n = snprintf(b, len, "%s/", r->scratch);

	if (n < 0 || (size_t)n >= len ||
	    (size_t)vsnprintf(b + n, len - (size_t)n, fmt, ap) >=
		    len - (size_t)n)
		dt_broken(r, "path under %s too long", r->scratch);
}

const char *dt_path(struct dt_run *r, const char *fmt, ...)
{
	static __thread char bufs[4][DT_PATH_MAX];
	static __thread unsigned next;
	char *b = bufs[next++ % 4];
	va_list ap;

	va_start(ap, fmt);
	vpath(r, b, DT_PATH_MAX, fmt, ap);
	va_end(ap);
	return b;
}

void dt_pathbuf(struct dt_run *r, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpath(r, buf, len, fmt, ap);
	va_end(ap);
}
