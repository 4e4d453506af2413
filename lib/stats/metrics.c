/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON-lines metrics: a small JSON writer and the metrics file; see
 * metrics.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats/metrics.h"

/* ---- JSON ------------------------------------------------------------------- */

void dt_json_init(struct dt_json *j)
{
	memset(j, 0, sizeof(*j));
	j->first[0] = true;
}

void dt_json_free(struct dt_json *j)
{
	free(j->buf);
	memset(j, 0, sizeof(*j));
}

static void put(struct dt_json *j, const char *s, size_t n)
{
	if (j->oom)
		return;
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 1024;
		char *b;

		while (j->len + n + 1 > cap)
			cap *= 2;
		b = realloc(j->buf, cap);
		if (!b) {
			j->oom = true;
			return;
		}
		j->buf = b;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = 0;
}

__attribute__((format(printf, 2, 3)))
static void putf(struct dt_json *j, const char *fmt, ...)
{
	char b[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(j, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
}

static void put_string(struct dt_json *j, const char *s)
{
	put(j, "\"", 1);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			put(j, e, 2);
		} else if (c < 0x20) {
			putf(j, "\\u%04x", c);
		} else {
			put(j, (const char *)&c, 1);
		}
	}
	put(j, "\"", 1);
}

/* comma and key before a value at the current depth */
static void member(struct dt_json *j, const char *key)
{
	if (!j->first[j->depth])
		put(j, ",", 1);
	j->first[j->depth] = false;
	if (key) {
		put_string(j, key);
		put(j, ":", 1);
	}
}

static void open_(struct dt_json *j, const char *key, const char *br)
{
	if (j->len || j->depth)
		member(j, key);
	put(j, br, 1);
	if (j->depth + 1 < DT_JSON_DEPTH)
		j->depth++;
	else
		j->oom = true;	/* too deep: refuse rather than corrupt */
	j->first[j->depth] = true;
}

void dt_json_obj_begin(struct dt_json *j, const char *key)
{
	open_(j, key, "{");
}

void dt_json_arr_begin(struct dt_json *j, const char *key)
{
	open_(j, key, "[");
}

void dt_json_obj_end(struct dt_json *j)
{
	put(j, "}", 1);
	if (j->depth > 0)
		j->depth--;
}

void dt_json_arr_end(struct dt_json *j)
{
	put(j, "]", 1);
	if (j->depth > 0)
		j->depth--;
}

void dt_json_str(struct dt_json *j, const char *key, const char *s)
{
	member(j, key);
	if (s)
		put_string(j, s);
	else
		put(j, "null", 4);
}

void dt_json_int(struct dt_json *j, const char *key, long long v)
{
	member(j, key);
	putf(j, "%lld", v);
}

void dt_json_u64(struct dt_json *j, const char *key, uint64_t v)
{
	member(j, key);
	putf(j, "%llu", (unsigned long long)v);
}

void dt_json_num(struct dt_json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v))
		putf(j, "%.9g", v);
	else
		put(j, "null", 4);
}

void dt_json_fixed(struct dt_json *j, const char *key, double v, int decimals)
{
	member(j, key);
	if (isfinite(v))
		putf(j, "%.*f", decimals, v);
	else
		put(j, "null", 4);
}

void dt_json_bool(struct dt_json *j, const char *key, bool v)
{
	member(j, key);
	put(j, v ? "true" : "false", v ? 4 : 5);
}

void dt_json_raw_members(struct dt_json *j, const char *members)
{
	if (!members || !*members)
		return;
	member(j, NULL);
	put(j, members, strlen(members));
}

void dt_json_hist(struct dt_json *j, const char *key, const struct dt_hist *h)
{
	dt_json_obj_begin(j, key);
	dt_json_u64(j, "n", h->count);
	dt_json_num(j, "mean", dt_hist_mean(h));
	dt_json_u64(j, "min", h->count ? h->min : 0);
	dt_json_num(j, "p10", dt_hist_quantile(h, 0.10));
	dt_json_num(j, "p50", dt_hist_quantile(h, 0.50));
	dt_json_num(j, "p90", dt_hist_quantile(h, 0.90));
	dt_json_num(j, "p99", dt_hist_quantile(h, 0.99));
	dt_json_num(j, "p999", dt_hist_quantile(h, 0.999));
	dt_json_u64(j, "max", h->max);
	dt_json_arr_begin(j, "buckets");
	for (size_t i = 0; i < DT_HIST_NBUCKETS; i++) {
		if (!h->b[i])
			continue;
		member(j, NULL);
		putf(j, "[%llu,%llu]",
		     (unsigned long long)dt_hist_bucket_lo(i),
		     (unsigned long long)h->b[i]);
	}
	dt_json_arr_end(j);
	dt_json_obj_end(j);
}

/* ---- the metrics file ---------------------------------------------------------- */

bool dt_metrics_enabled(void)
{
	const char *p = getenv("DT_METRICS");

	return p && *p;
}

int dt_metrics_write(const struct dt_json *j)
{
	const char *path = getenv("DT_METRICS");
	char *line;
	ssize_t n;
	int fd, rc = 0;

	if (!path || !*path)
		return 0;
	if (j->oom || !j->buf)
		return -ENOMEM;
	line = malloc(j->len + 2);
	if (!line)
		return -ENOMEM;
	memcpy(line, j->buf, j->len);
	line[j->len] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
	} else {
		/* one write: O_APPEND keeps concurrent writers' lines whole */
		n = write(fd, line, j->len + 1);
		if (n < 0)
			rc = -errno;
		else if ((size_t)n != j->len + 1)
			rc = -EIO;
		if (close(fd) < 0 && !rc)
			rc = -errno;
	}
	free(line);
	return rc;
}
