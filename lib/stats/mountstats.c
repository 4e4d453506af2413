/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser of /proc/self/mountstats (see mountstats.h).  Pure string work
 * except dt_mountstats_slurp(); t/stats/mountstats_parse.c feeds it a sample
 * captured from the tier-2 lab's client guests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/mountstats.h"

/* Undo the kernel's seq_escape: "\ooo" (three octal digits) -> a byte. */
static int unescape(const char *s, size_t n, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\' && i + 3 < n && s[i + 1] >= '0' &&
		    s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			c = (char)(((s[i + 1] - '0') << 6) |
				   ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
			i += 3;
		}
		if (o + 1 >= len)
			return -ENAMETOOLONG;
		out[o++] = c;
	}
	out[o] = 0;
	return 0;
}

/* strip trailing slashes (but keep "/") */
static void trim_slash(char *p)
{
	size_t l = strlen(p);

	while (l > 1 && p[l - 1] == '/')
		p[--l] = 0;
}

/*
 * "device D mounted on M with fstype T[ statvers=V]": fill the header
 * fields.  Returns 0, or -EINVAL when line is not such a header.
 */
static int parse_header(const char *line, size_t n, struct dt_mountstats *m)
{
	static const char dev[] = "device ", on[] = " mounted on ",
			  with[] = " with fstype ";
	const char *end = line + n, *a, *b, *c;

	if (n < sizeof(dev) - 1 || strncmp(line, dev, sizeof(dev) - 1))
		return -EINVAL;
	a = memmem(line, n, on, sizeof(on) - 1);
	if (!a)
		return -EINVAL;
	/* the mount point cannot hold a raw blank: the first " with fstype " */
	b = memmem(a, (size_t)(end - a), with, sizeof(with) - 1);
	if (!b)
		return -EINVAL;
	if (unescape(line + sizeof(dev) - 1,
		     (size_t)(a - line) - (sizeof(dev) - 1), m->device,
		     sizeof(m->device)) < 0 ||
	    unescape(a + sizeof(on) - 1, (size_t)(b - a) - (sizeof(on) - 1),
		     m->mountpoint, sizeof(m->mountpoint)) < 0)
		return -EINVAL;
	trim_slash(m->mountpoint);
	b += sizeof(with) - 1;
	c = memchr(b, ' ', (size_t)(end - b));
	snprintf(m->fstype, sizeof(m->fstype), "%.*s",
		 (int)((c ? c : end) - b), b);
	m->statvers[0] = 0;
	if (c && (size_t)(end - c) > 10 && !strncmp(c, " statvers=", 10))
		snprintf(m->statvers, sizeof(m->statvers), "%.*s",
			 (int)(end - c - 10), c + 10);
	return 0;
}

/* parse up to max unsigned numbers from s[0..n); returns how many */
static int numbers(const char *s, size_t n, uint64_t *v, int max)
{
	char buf[1024], *p, *e;
	int k = 0;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	p = buf;
	while (k < max) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v[k] = strtoull(p, &e, 10);
		if (errno || (*e && *e != ' ' && *e != '\t'))
			return -EINVAL;
		k++;
		p = e;
	}
	return k;
}

/* One line inside a block (leading tab stripped by the caller). */
static int parse_body_line(const char *s, size_t n, bool *in_ops,
			   struct dt_mountstats *m)
{
	const char *colon;

	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (!n)
		return 0;
	if (n >= 17 && !strncmp(s, "per-op statistics", 17)) {
		*in_ops = true;
		return 0;
	}
	colon = memchr(s, ':', n);
	if (!colon)
		return *in_ops ? -EINVAL : 0;
	size_t kl = (size_t)(colon - s);
	const char *val = colon + 1;
	size_t vl = n - kl - 1;

	if (*in_ops) {
		uint64_t v[9];
		int k = numbers(val, vl, v, 9);
		struct dt_ms_op *op;

		if (k < 8)
			return -EINVAL;
		if (m->nops >= DT_MS_OPS_MAX || kl >= sizeof(op->name))
			return 0;	/* an op we have no room for: ignore */
		/* a second per-op block (another RPC program): keep the first */
		for (size_t i = 0; i < m->nops; i++)
			if (strlen(m->op[i].name) == kl &&
			    !strncmp(m->op[i].name, s, kl))
				return 0;
		op = &m->op[m->nops++];
		snprintf(op->name, sizeof(op->name), "%.*s", (int)kl, s);
		op->ops = v[0];
		op->trans = v[1];
		op->timeouts = v[2];
		op->bytes_sent = v[3];
		op->bytes_recv = v[4];
		op->queue_ms = v[5];
		op->rtt_ms = v[6];
		op->execute_ms = v[7];
		op->errors = k > 8 ? v[8] : 0;
		return 0;
	}
	while (vl && (*val == ' ' || *val == '\t')) {
		val++;
		vl--;
	}
	if (kl == 4 && !strncmp(s, "opts", 4)) {
		if (vl >= sizeof(m->opts))
			return -EINVAL;
		memcpy(m->opts, val, vl);
		m->opts[vl] = 0;
	} else if (kl == 3 && !strncmp(s, "age", 3)) {
		uint64_t v;

		if (numbers(val, vl, &v, 1) != 1)
			return -EINVAL;
		m->age = v;
	} else if (kl == 6 && !strncmp(s, "events", 6)) {
		int k = numbers(val, vl, m->events, DT_MS_EVENTS);

		if (k < 0)
			return -EINVAL;
		m->nevents = k;
	}
	/* everything else (caps, sec, bytes, xprt, nfsv4, ...) is not needed */
	return 0;
}

/* the line at p: its length; *next: where the following one starts */
static size_t line_at(const char *p, const char **next)
{
	const char *nl = strchr(p, '\n');
	size_t n = nl ? (size_t)(nl - p) : strlen(p);

	*next = nl ? nl + 1 : p + n;
	return n;
}

int dt_mountstats_parse(const char *text, const char *mp,
			struct dt_mountstats *out)
{
	char want[DT_MS_PATH_MAX];
	struct dt_mountstats *cur;
	const char *p, *next;
	int result = -ENOENT, rc;

	if (!text || !mp || !out)
		return -EINVAL;
	if (snprintf(want, sizeof(want), "%s", mp) >= (int)sizeof(want))
		return -ENAMETOOLONG;
	trim_slash(want);
	cur = malloc(sizeof(*cur));
	if (!cur)
		return -ENOMEM;
	for (p = text; *p;) {
		size_t n = line_at(p, &next);
		bool mine, in_ops = false;

		if (strncmp(p, "device ", 7)) {
			p = next;	/* nothing before the first header */
			continue;
		}
		memset(cur, 0, sizeof(*cur));
		rc = parse_header(p, n, cur);
		if (rc < 0)
			goto out;
		mine = !strcmp(cur->mountpoint, want);
		for (p = next; *p && strncmp(p, "device ", 7); p = next) {
			n = line_at(p, &next);
			if (mine && (rc = parse_body_line(p, n, &in_ops, cur)) < 0)
				goto out;
		}
		if (mine) {
			/* a later mount on the same point is the one on top */
			*out = *cur;
			result = in_ops ? 0 : -ENODATA;
		}
	}
	rc = result;
out:
	free(cur);
	return rc;
}

int dt_mountstats_slurp(char **text)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int fd;

	*text = NULL;
	if (!buf)
		return -ENOMEM;
	fd = open("/proc/self/mountstats", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		free(buf);
		return -e;
	}
	for (;;) {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len - 1);

		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = 0;
	*text = buf;
	return 0;
}

int dt_mountstats_read(const char *mp, struct dt_mountstats *out)
{
	char *text;
	int rc = dt_mountstats_slurp(&text);

	if (rc < 0)
		return rc;
	rc = dt_mountstats_parse(text, mp, out);
	free(text);
	return rc;
}

int dt_mountstats_mountpoint(const char *text, const char *path, char *buf,
			     size_t len)
{
	struct dt_mountstats *m = malloc(sizeof(*m));
	size_t best = 0;
	bool any = false;

	if (!m)
		return -ENOMEM;
	if (!path || path[0] != '/') {
		free(m);
		return -EINVAL;
	}
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (!strncmp(p, "device ", 7) && parse_header(p, n, m) == 0) {
			size_t l = strlen(m->mountpoint);
			bool under = !strcmp(m->mountpoint, "/") ||
				     (!strncmp(path, m->mountpoint, l) &&
				      (path[l] == 0 || path[l] == '/'));

			if (under && (!any || l >= best)) {
				if (l + 1 > len) {
					free(m);
					return -ENAMETOOLONG;
				}
				memcpy(buf, m->mountpoint, l + 1);
				best = l;
				any = true;
			}
		}
		p = nl ? nl + 1 : p + n;
	}
	free(m);
	return any ? 0 : -ENOENT;
}

const struct dt_ms_op *dt_mountstats_op(const struct dt_mountstats *m,
					const char *name)
{
	for (size_t i = 0; i < m->nops; i++)
		if (!strcmp(m->op[i].name, name))
			return &m->op[i];
	return NULL;
}

int64_t dt_mountstats_count(const struct dt_mountstats *m, const char *name)
{
	const struct dt_ms_op *op = dt_mountstats_op(m, name);

	return op ? (int64_t)op->ops : -ENOENT;
}

int dt_mountstats_opt(const struct dt_mountstats *m, const char *key,
		      char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = m->opts; *p;) {
		size_t l = strcspn(p, ",");

		if (l >= kl && !strncmp(p, key, kl) &&
		    (l == kl || p[kl] == '=')) {
			const char *v = l == kl ? "" : p + kl + 1;
			size_t vl = l == kl ? 0 : l - kl - 1;

			if (vl + 1 > len)
				return -ENAMETOOLONG;
			memcpy(buf, v, vl);
			buf[vl] = 0;
			return 0;
		}
		p += l;
		if (*p == ',')
			p++;
	}
	return -ENOENT;
}

long dt_mountstats_opt_long(const struct dt_mountstats *m, const char *key,
			    long def)
{
	char buf[64], *e;
	long v;

	if (dt_mountstats_opt(m, key, buf, sizeof(buf)) < 0 || !buf[0])
		return def;
	errno = 0;
	v = strtol(buf, &e, 10);
	return errno || *e ? def : v;
}

int dt_mountstats_vers(const struct dt_mountstats *m)
{
	char buf[16];
	int maj = 0, min = 0;

	if (dt_mountstats_opt(m, "vers", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%d.%d", &maj, &min) < 1)
		return 0;
	return maj * 10 + min;
}
