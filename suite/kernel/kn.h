/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers of the kernel-client tests (suite/kernel/kn_*.c): header-only,
 * everything static, so each test stays one program.
 *
 * These tests run only on a kernel NFS mount (tier 2: lab/klab, or a real
 * client): they read the mount's per-op counters from /proc/self/mountstats
 * and its options, and they skip, naming the reason, anywhere else.
 *
 * Lookups go through a directory fd of the case's scratch directory
 * (fstatat(dirfd, "name")), not through the target root: on a strict mount
 * (lookupcache=none) every walk through the scratch component would itself
 * be a LOOKUP on the wire and blur the counts.
 */
#ifndef DT_KN_H
#define DT_KN_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "dentrace.h"

#define KN_NFS_SUPER_MAGIC 0x6969

/* the NFS mount point of the target, found by kn_require_nfs() */
static char kn_mountpoint[DT_MS_PATH_MAX];

/* Read the target mount's counters now. */
static inline int kn_stats(struct dt_mountstats *ms)
{
	return dt_mountstats_read(kn_mountpoint, ms);
}

/*
 * Skip unless the target is a kernel NFS mount; fill *ms with its
 * counters and options.
 */
static inline void kn_require_nfs(struct dt_run *r, struct dt_mountstats *ms)
{
	char real[PATH_MAX], *text;
	struct statfs sf;
	int rc;

	if (statfs(r->target->root, &sf) < 0)
		dt_broken(r, "statfs %s: %s", r->target->root, strerror(errno));
	if (sf.f_type != KN_NFS_SUPER_MAGIC)
		dt_skip(r, "%s is not a kernel NFS mount (f_type 0x%lx): a "
			"kernel-client test (tier 2: lab/klab)",
			r->target->root, (unsigned long)sf.f_type);
	if (!realpath(r->target->root, real))
		dt_broken(r, "realpath %s: %s", r->target->root,
			  strerror(errno));
	rc = dt_mountstats_slurp(&text);
	if (rc < 0)
		dt_broken(r, "read /proc/self/mountstats: %s", dt_strerr(rc));
	rc = dt_mountstats_mountpoint(text, real, kn_mountpoint,
				      sizeof(kn_mountpoint));
	if (rc == 0)
		rc = dt_mountstats_parse(text, kn_mountpoint, ms);
	free(text);
	if (rc < 0)
		dt_broken(r, "mountstats of the mount holding %s: %s", real,
			  dt_strerr(rc));
}

/*
 * LOOKUP count of the target's mount now (broken when unreadable); *line
 * (optional) gets the whole LOOKUP line: queue, rtt and execute times.
 */
static inline int64_t kn_lookups(struct dt_run *r, struct dt_ms_op *line)
{
	struct dt_mountstats *ms = malloc(sizeof(*ms));
	const struct dt_ms_op *op;
	int64_t n;

	if (!ms)
		dt_broken(r, "out of memory");
	if (kn_stats(ms) < 0 || !(op = dt_mountstats_op(ms, "LOOKUP"))) {
		free(ms);
		dt_broken(r, "no LOOKUP counter for %s in mountstats",
			  kn_mountpoint);
	}
	n = (int64_t)op->ops;
	if (line)
		*line = *op;
	free(ms);
	return n;
}

/* A short description of the cache options of the mount. */
static inline const char *kn_cache_opts(const struct dt_mountstats *ms)
{
	char lc[16] = "all";

	dt_mountstats_opt(ms, "lookupcache", lc, sizeof(lc));
	return dt_fmt("vers=%d.%d lookupcache=%s acdirmin=%ld acdirmax=%ld",
		      dt_mountstats_vers(ms) / 10, dt_mountstats_vers(ms) % 10,
		      lc, dt_mountstats_opt_long(ms, "acdirmin", -1),
		      dt_mountstats_opt_long(ms, "acdirmax", -1));
}

/* lookupcache= of the mount: 'a' all (default), 'p' positive, 'n' none */
static inline char kn_lookupcache(const struct dt_mountstats *ms)
{
	char lc[16];

	if (dt_mountstats_opt(ms, "lookupcache", lc, sizeof(lc)) < 0)
		return 'a';
	return lc[0] == 'n' ? 'n' : lc[0] == 'p' ? 'p' : 'a';
}

/* Open a directory below the target root (rel "" = the root). */
static inline int kn_open_dir(struct dt_run *r, const char *rel)
{
	char path[DT_PATH_MAX * 2];
	int fd;

	snprintf(path, sizeof(path), "%s%s%s", r->target->root,
		 rel[0] ? "/" : "", rel);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		dt_broken(r, "open directory %s: %s", path, strerror(errno));
	return fd;
}

/* dst = "a/b", cut to len (history names are short; paths stay exact) */
static inline void kn_join(char *dst, size_t len, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), o = 0;

	for (size_t i = 0; i < la && o + 1 < len; i++)
		dst[o++] = a[i];
	if (o + 1 < len)
		dst[o++] = '/';
	for (size_t i = 0; i < lb && o + 1 < len; i++)
		dst[o++] = b[i];
	dst[o] = 0;
}

/*
 * A recorded stat of name in the directory dfd: the history gets a LOOKUP
 * of "<dirrel>/<name>" (the path as the rest of the suite names it), and
 * the watchdog sees the op while it runs.
 */
static inline int kn_statat(struct dt_worker *w, int dfd, const char *dirrel,
			    const char *name, struct stat *out)
{
	struct dt_event e = { 0 };
	struct stat s;
	int rc;

	w->op = DT_OP_LOOKUP;
	kn_join(w->op_path, sizeof(w->op_path), dirrel, name);
	w->op_start_ns = dt_now_ns();
	__atomic_store_n(&w->busy, 1, __ATOMIC_RELEASE);
	e.start_ns = dt_realtime_ns();
	rc = fstatat(dfd, name, &s, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	e.end_ns = dt_realtime_ns();
	__atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
	e.host = (uint16_t)w->run->host;
	e.thread = (uint16_t)w->id;
	e.op = DT_OP_LOOKUP;
	e.result = rc;
	e.fileid = rc ? 0 : s.st_ino;
	kn_join(e.name, sizeof(e.name), dirrel, name);
	if (dt_history_add(&w->hist, &e) < 0)
		dt_broken(w->run, "recording history: out of memory");
	if (out && !rc)
		*out = s;
	return rc;
}

static inline void kn_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

#endif /* DT_KN_H */
