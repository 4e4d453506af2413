/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --target parsing.  Two forms:
 *
 *   /abs/dir  or  posix:/abs/dir
 *   nfs://host[:port]/export/path[?version=3|4][&nfsport=N][&mountport=N]
 *
 * The spec comes straight from the command line (and will be fuzzed), so
 * the parser never writes past a buffer, never trusts a length, and
 * rejects anything it does not fully understand with one line in err.
 * It only parses: whether the directory exists or the server answers is
 * the backend's business at connect time.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "backend/backend.h"

#define NFS_SCHEME "nfs://"
#define POSIX_SCHEME "posix:"
/* how much of a bad spec to quote back in a message */
#define QUOTE_MAX 80

/* The spec quoted for a message: printable (\xNN escapes), bounded, one line. */
static void quote_spec(const char *spec, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	for (i = 0; spec[i] && o + 8 < len; i++) {
		unsigned char ch = (unsigned char)spec[i];

		if (i == QUOTE_MAX) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (ch >= 0x20 && ch < 0x7f) {
			buf[o++] = (char)ch;
		} else {
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[ch >> 4];
			buf[o++] = hex[ch & 15];
		}
	}
	buf[o] = '\0';
}

__attribute__((format(printf, 4, 5)))
static int reject(const char *spec, char *err, size_t errlen,
		  const char *fmt, ...)
{
	char q[QUOTE_MAX * 4 + 8];
	char why[160];
	va_list ap;

	if (!err || !errlen)
		return -EINVAL;
	quote_spec(spec, q, sizeof(q));
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "target '%s': %s", q, why);
	return -EINVAL;
}

/* Copy [s, s+n) into dst[size] as a string; false if it does not fit. */
static bool copy_span(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		return false;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

/* Drop trailing slashes but keep a lone "/". */
static void strip_slashes(char *p)
{
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
}

/* Decimal port 1..65535 in [s, s+n); no sign, no spaces, no overflow. */
static int parse_port(const char *s, size_t n)
{
	int v = 0;
	size_t i;

	if (n == 0 || n > 5)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return (v >= 1 && v <= 65535) ? v : -1;
}

static bool is_hostchar(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_';
}

/*
 * A DNS name or a dotted IPv4 address.  All-digit-and-dot hosts must be a
 * real dotted quad so "999.1.1.1" or "10.1" is not silently looked up as a
 * name.
 */
static const char *check_host(const char *h)
{
	bool numeric = true;
	struct in_addr a;
	size_t i;

	if (!h[0])
		return "missing host";
	if (h[0] == '-' || h[0] == '.')
		return "bad host name";
	for (i = 0; h[i]; i++) {
		if (!is_hostchar(h[i]))
			return "bad character in host";
		if (!(h[i] >= '0' && h[i] <= '9') && h[i] != '.')
			numeric = false;
	}
	if (numeric && inet_pton(AF_INET, h, &a) != 1)
		return "bad IPv4 address";
	return NULL;
}

static const char *check_ipv6(const char *h)
{
	struct in6_addr a;

	if (!h[0])
		return "missing host";
	if (inet_pton(AF_INET6, h, &a) != 1)
		return "bad IPv6 address";
	return NULL;
}

static int parse_posix(const char *spec, const char *path, struct dt_target *t,
		       char *err, size_t errlen)
{
	if (!path[0])
		return reject(spec, err, errlen, "missing directory");
	if (path[0] != '/')
		return reject(spec, err, errlen,
			      "directory must be an absolute path");
	if (!copy_span(t->root, sizeof(t->root), path, strlen(path)))
		return reject(spec, err, errlen, "path too long (max %zu)",
			      sizeof(t->root) - 1);
	strip_slashes(t->root);
	t->ops = &dt_posix_ops;
	t->nfs_version = 0;
	snprintf(t->label, sizeof(t->label), "posix");
	return 0;
}

/* Up to 32 bytes of [s, s+n) for a message, escaped like quote_spec(). */
static const char *quote_span(const char *s, size_t n, char *buf, size_t len)
{
	char tmp[33];

	if (n > 32)
		n = 32;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	quote_spec(tmp, buf, len);
	return buf;
}

/* One "key=value" of the query; *seen has a bit per key for duplicates. */
static int parse_param(const char *spec, const char *s, size_t n,
		       unsigned *seen, struct dt_target *t, char *err,
		       size_t errlen)
{
	static const char *const keys[] = { "version", "nfsport", "mountport" };
	const char *eq = memchr(s, '=', n);
	size_t klen, vlen, k;
	const char *v;
	char q[32 * 4 + 8];
	int port;

	if (n == 0)
		return reject(spec, err, errlen, "empty query parameter");
	if (!eq)
		return reject(spec, err, errlen,
			      "query parameter '%s' has no value",
			      quote_span(s, n, q, sizeof(q)));
	klen = (size_t)(eq - s);
	v = eq + 1;
	vlen = n - klen - 1;
	for (k = 0; k < 3; k++)
		if (strlen(keys[k]) == klen && !memcmp(keys[k], s, klen))
			break;
	if (k == 3)
		return reject(spec, err, errlen,
			      "unknown query parameter '%s' (known: version, nfsport, mountport)",
			      quote_span(s, klen, q, sizeof(q)));
	if (*seen & (1u << k))
		return reject(spec, err, errlen, "'%s' given twice", keys[k]);
	*seen |= 1u << k;

	if (k == 0) {
		if (vlen == 1 && (v[0] == '3' || v[0] == '4')) {
			t->nfs_version = v[0] - '0';
			return 0;
		}
		return reject(spec, err, errlen, "version must be 3 or 4");
	}
	port = parse_port(v, vlen);
	if (port < 0)
		return reject(spec, err, errlen,
			      "%s must be a number in 1..65535", keys[k]);
	if (k == 1)
		t->nfsport = port;
	else
		t->mountport = port;
	return 0;
}

static int parse_nfs(const char *spec, const char *s, struct dt_target *t,
		     char *err, size_t errlen)
{
	const char *auth = s, *auth_end, *path, *path_end, *q, *hend;
	unsigned seen = 0;
	int aport = 0;
	const char *why;
	int rc;

	auth_end = auth + strcspn(auth, "/?#");
	if (*auth_end == '#')
		return reject(spec, err, errlen, "fragments ('#') not allowed");
	if (auth_end == auth)
		return reject(spec, err, errlen, "missing host");
	if (memchr(auth, '@', (size_t)(auth_end - auth)))
		return reject(spec, err, errlen, "user info ('@') not allowed");

	/* host: [v6] or name/v4, then an optional :port */
	if (auth[0] == '[') {
		const char *rb = memchr(auth, ']', (size_t)(auth_end - auth));

		if (!rb)
			return reject(spec, err, errlen, "missing ']' after IPv6 address");
		if (!copy_span(t->server, sizeof(t->server), auth + 1,
			       (size_t)(rb - auth - 1)))
			return reject(spec, err, errlen, "host too long");
		why = check_ipv6(t->server);
		if (why)
			return reject(spec, err, errlen, "%s", why);
		hend = rb + 1;
		if (hend != auth_end && *hend != ':')
			return reject(spec, err, errlen, "junk after ']'");
	} else {
		hend = memchr(auth, ':', (size_t)(auth_end - auth));
		if (!hend)
			hend = auth_end;
		else if (memchr(hend + 1, ':', (size_t)(auth_end - hend - 1)))
			return reject(spec, err, errlen,
				      "IPv6 addresses go in brackets: nfs://[::1]/export");
		if (!copy_span(t->server, sizeof(t->server), auth,
			       (size_t)(hend - auth)))
			return reject(spec, err, errlen, "host too long (max %zu)",
				      sizeof(t->server) - 1);
		why = check_host(t->server);
		if (why)
			return reject(spec, err, errlen, "%s", why);
	}
	if (hend != auth_end) {		/* *hend == ':' */
		aport = parse_port(hend + 1, (size_t)(auth_end - hend - 1));
		if (aport < 0)
			return reject(spec, err, errlen,
				      "port must be a number in 1..65535");
	}

	/* export path: up to '?' */
	path = auth_end;
	if (*path != '/')
		return reject(spec, err, errlen, "missing export path");
	path_end = path + strcspn(path, "?#");
	if (*path_end == '#')
		return reject(spec, err, errlen, "fragments ('#') not allowed");
	if (!copy_span(t->root, sizeof(t->root), path,
		       (size_t)(path_end - path)))
		return reject(spec, err, errlen, "export path too long");
	strip_slashes(t->root);

	/* query: key=value&key=value */
	if (*path_end == '?') {
		q = path_end + 1;
		if (strchr(q, '?'))
			return reject(spec, err, errlen, "more than one '?'");
		while (*q) {
			size_t n = strcspn(q, "&");

			rc = parse_param(spec, q, n, &seen, t, err, errlen);
			if (rc)
				return rc;
			q += n;
			if (*q == '&') {
				q++;
				if (!*q)
					return reject(spec, err, errlen,
						      "empty query parameter");
			}
		}
	}

	if (aport) {
		/* host:port is shorthand for nfsport=; both must agree */
		if (t->nfsport && t->nfsport != aport)
			return reject(spec, err, errlen,
				      "port %d and nfsport=%d disagree",
				      aport, t->nfsport);
		t->nfsport = aport;
	}
	if (!t->nfs_version)
		t->nfs_version = 3;
	t->ops = &dt_libnfs_ops;
	snprintf(t->label, sizeof(t->label), "nfs%d", t->nfs_version);
	return 0;
}

int dt_target_parse(const char *spec, struct dt_target *t, char *err,
		    size_t errlen)
{
	size_t len, i;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!t)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	if (!spec || !spec[0])
		return reject("", err, errlen, "empty target");

	/* bounded scan: a huge spec is rejected without reading all of it */
	len = strnlen(spec, sizeof(t->spec));
	if (len >= sizeof(t->spec)) {
		rc = reject(spec, err, errlen, "too long (max %zu characters)",
			    sizeof(t->spec) - 1);
		goto fail;
	}
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)spec[i];

		if (ch < 0x20 || ch == 0x7f) {
			rc = reject(spec, err, errlen,
				    "control character at offset %zu", i);
			goto fail;
		}
		if (ch == ' ') {
			rc = reject(spec, err, errlen, "space at offset %zu", i);
			goto fail;
		}
	}
	memcpy(t->spec, spec, len + 1);

	if (!strncasecmp(spec, NFS_SCHEME, strlen(NFS_SCHEME)))
		rc = parse_nfs(spec, spec + strlen(NFS_SCHEME), t, err, errlen);
	else if (!strncasecmp(spec, POSIX_SCHEME, strlen(POSIX_SCHEME)))
		rc = parse_posix(spec, spec + strlen(POSIX_SCHEME), t, err,
				 errlen);
	else if (spec[0] == '/')
		rc = parse_posix(spec, spec, t, err, errlen);
	else if (strncasecmp(spec, "nfs:", 4) == 0)
		rc = reject(spec, err, errlen,
			    "NFS targets look like nfs://host/export?version=3|4");
	else if (spec[strcspn(spec, ":/")] == ':')
		rc = reject(spec, err, errlen,
			    "unknown scheme (use a /directory, posix:/directory or nfs://host/export)");
	else
		rc = reject(spec, err, errlen,
			    "not an absolute directory or nfs:// URL");
	if (rc == 0)
		return 0;
fail:
	memset(t, 0, sizeof(*t));
	return rc;
}
