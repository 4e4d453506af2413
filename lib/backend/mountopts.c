/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a POSIX target's mount allows: the mount that holds a directory
 * (from /proc/self/mountinfo) and, for an NFS mount, how stale its client
 * may be by its own options.  The general history checker judges reads
 * of a caching client against that bound; it is read off the mount, never
 * typed by hand, so a mount made with other options than a run assumed
 * is judged by what it really does.
 *
 * The bound, for Linux's NFS client: a cached dentry (positive, or
 * negative with lookupcache=all) is trusted while its directory's
 * attributes are fresh, at most acdirmax; a directory's cached listing is
 * revalidated with the same attributes.  A name's fileid is the inode's
 * and never changes, so acregmax (file attributes: size, times) does not
 * bound what the namespace shows.  So delta = acdirmax, 0 with noac or
 * acdirmax=0 (actimeo=0: every use revalidates), plus an allowance for
 * the GETATTR's round trip and the clock tick (DT_STALE_SLACK_MS) when it
 * is not 0.  lookupcache=none alone does not make a mount fresh: listings
 * still come from the cache.  The kernel prints acregmin..acdirmax in
 * mountinfo only when they differ from its defaults (3, 60, 30, 60 s), so
 * the defaults apply otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"

#define NFS_DEF_ACREGMAX 60
#define NFS_DEF_ACDIRMAX 60
/* round trip of the GETATTR that filled the cache, and the clock tick */
#define DT_STALE_SLACK_MS 1000
/* a bound this long cannot be told from none within one run */
#define DT_STALE_UNBOUNDED_MS (3600 * 1000ull)

/* mountinfo escapes blanks and backslashes as \ooo */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/* path is at or below mount point mnt */
static size_t covers(const char *mnt, const char *path)
{
	size_t l = strlen(mnt);

	if (path[0] != '/')
		return 0;
	if (!strcmp(mnt, "/"))
		return 1;
	if (strncmp(mnt, path, l) || (path[l] && path[l] != '/'))
		return 0;
	return l;
}

int dt_mountinfo_find(FILE *f, const char *path, struct dt_mount_info *out)
{
	char line[4096];
	size_t best = 0;

	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok, *mnt = NULL, *fstype = NULL;
		char *src = NULL, *opts = NULL, *mopts = NULL;
		int field = 0, after_dash = -1;

		line[strcspn(line, "\n")] = 0;
		/* id parent maj:min root mountpoint mopts [optional...] - type src sopts */
		for (tok = strtok_r(line, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save), field++) {
			if (field == 4)
				mnt = tok;
			else if (field == 5)
				mopts = tok;
			else if (after_dash < 0 && field > 5 && !strcmp(tok, "-"))
				after_dash = 0;
			else if (after_dash == 0)
				fstype = tok, after_dash++;
			else if (after_dash == 1)
				src = tok, after_dash++;
			else if (after_dash == 2)
				opts = tok, after_dash++;
		}
		if (!mnt || !fstype || !mopts)
			continue;
		unescape(mnt);
		size_t l = covers(mnt, path);

		/* the last of equal mount points is the one on top */
		if (!l || l < best)
			continue;
		best = l;
		snprintf(out->mnt, sizeof(out->mnt), "%s", mnt);
		snprintf(out->fstype, sizeof(out->fstype), "%s", fstype);
		snprintf(out->source, sizeof(out->source), "%s", src ? src : "");
		snprintf(out->opts, sizeof(out->opts), "%s,%s", mopts,
			 opts ? opts : "");
	}
	return best ? 0 : -ENOENT;
}

int dt_mount_of(const char *path, struct dt_mount_info *out)
{
	char real[PATH_MAX];	/* realpath writes up to PATH_MAX bytes */
	FILE *f;
	int rc;

	if (!realpath(path, real))
		return -errno;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	rc = dt_mountinfo_find(f, real, out);
	fclose(f);
	return rc;
}

/* value of key=N in a comma list; -1 when absent, -2 when malformed */
static long opt_num(const char *opts, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = opts; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			char *end;
			long v = strtol(p + kl + 1, &end, 10);

			return end == p + l && v >= 0 ? v : -2;
		}
		p += l;
		p += *p == ',';
	}
	return -1;
}

static bool opt_has(const char *opts, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = opts; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l == wl && !strncmp(p, word, l))
			return true;
		p += l;
		p += *p == ',';
	}
	return false;
}

int dt_stale_bound(const struct dt_mount_info *m, struct dt_stale_bound *b)
{
	memset(b, 0, sizeof(*b));
	if (strcmp(m->fstype, "nfs") && strcmp(m->fstype, "nfs4")) {
		/* a local filesystem's dcache is coherent with itself */
		snprintf(b->why, sizeof(b->why), "%s at %.300s: not NFS, no client "
			 "cache between the workers and the filesystem%s",
			 m->fstype, m->mnt, strncmp(m->fstype, "fuse", 4) ? "" :
			 " (FUSE: the daemon's entry/attr timeouts are not "
			 "visible here; judged as 0)");
		return 0;
	}
	long acregmax = opt_num(m->opts, "acregmax");
	long acdirmax = opt_num(m->opts, "acdirmax");
	const char *lc = strstr(m->opts, "lookupcache=");

	if (acregmax == -2 || acdirmax == -2)
		return -EINVAL;
	if (acregmax < 0)
		acregmax = NFS_DEF_ACREGMAX;
	if (acdirmax < 0)
		acdirmax = NFS_DEF_ACDIRMAX;
	b->nfs = true;
	if (opt_has(m->opts, "noac") || !acdirmax)
		b->ms = 0;
	else
		b->ms = (uint64_t)acdirmax * 1000 + DT_STALE_SLACK_MS;
	b->unbounded = b->ms >= DT_STALE_UNBOUNDED_MS;
	snprintf(b->why, sizeof(b->why), "%s %.120s at %.120s: acregmax=%ld "
		 "acdirmax=%ld%s lookupcache=%.*s%s -> %s%llu ms%s",
		 m->fstype, m->source, m->mnt, acregmax, acdirmax,
		 opt_has(m->opts, "noac") ? " noac" : "",
		 lc ? (int)strcspn(lc + 12, ",") : 3, lc ? lc + 12 : "all",
		 opt_has(m->opts, "nocto") ? " nocto" : "",
		 b->ms ? "acdirmax + slack = " : "",
		 (unsigned long long)b->ms,
		 b->unbounded ? " (longer than any run: staleness is not "
				"judged in effect)" : "");
	return 0;
}
