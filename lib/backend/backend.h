/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Layer "backend": how a test reaches its target.
 *
 * Offers the ops table every recorded operation goes through, its two
 * implementations (POSIX calls on a directory: any mounted filesystem, a
 * kernel NFS mount; libnfs: an nfs:// URL, no mount, NFSv3 or NFSv4.0),
 * --target parsing, and removal of a tree through the ops (scratch
 * cleanup).
 *
 * May call: base.  A backend records nothing and judges nothing: the
 * workers (core) record what it answered, the oracles (check) judge it.
 */
#ifndef DT_BACKEND_H
#define DT_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/base.h"

/* Marker that makes a directory a dentrace target / a scratch dir. */
#define DT_TARGET_MARKER ".dentrace-target"
#define DT_SCRATCH_PREFIX "dentrace."

/* What a backend reports about a name. */
struct dt_stat {
	uint64_t fileid;	/* inode number / NFS fileid */
	uint64_t dev;		/* st_dev / the NFS fsid: with fileid, which file */
	uint32_t mode;		/* S_IFMT | permission bits */
	uint32_t nlink;
	uint64_t size;
	/* the server's ctime in ns (0: unknown); its tick is the server's
	 * clock tick, which decides what a ctime-versioned client can tell */
	uint64_t ctime_ns;
};

struct dt_conn;		/* one backend connection; one per thread */
struct dt_file;		/* an open file on a connection */
struct dt_target;

/*
 * The backend ops table.  Paths are relative to the target root and never
 * start with '/'.  Every op returns 0 (pread/pwrite: a byte count) or -errno.
 */
struct dt_backend_ops {
	const char *name;			/* "posix", "libnfs" */
	int (*connect)(const struct dt_target *t, struct dt_conn **out);
	void (*disconnect)(struct dt_conn *c);
	int (*lookup)(struct dt_conn *c, const char *path, struct dt_stat *st);
	/* create a regular file; excl => O_EXCL; the file is closed again */
	int (*create)(struct dt_conn *c, const char *path, bool excl,
		      struct dt_stat *st);
	int (*mkdir)(struct dt_conn *c, const char *path);
	int (*rmdir)(struct dt_conn *c, const char *path);
	int (*unlink)(struct dt_conn *c, const char *path);
	int (*rename)(struct dt_conn *c, const char *from, const char *to);
	/*
	 * rename that fails with EEXIST when to exists, atomically (Linux's
	 * renameat2 RENAME_NOREPLACE); NULL when the backend has none (NFS has
	 * no such call).  A filesystem that does not do the flag answers
	 * EINVAL (Linux's NFS client): the caller's to say "unsupported".
	 */
	int (*rename_noreplace)(struct dt_conn *c, const char *from,
				const char *to);
	int (*link)(struct dt_conn *c, const char *from, const char *to);
	/* full listing without "." and ".."; appends to *out */
	int (*readdir)(struct dt_conn *c, const char *path,
		       struct dt_dirlist *out);
	int (*open)(struct dt_conn *c, const char *path, int flags,
		    struct dt_file **f);
	ssize_t (*pread)(struct dt_conn *c, struct dt_file *f, void *buf,
			 size_t len, uint64_t off);
	ssize_t (*pwrite)(struct dt_conn *c, struct dt_file *f,
			  const void *buf, size_t len, uint64_t off);
	int (*close)(struct dt_conn *c, struct dt_file *f);
};

extern const struct dt_backend_ops dt_posix_ops;
extern const struct dt_backend_ops dt_libnfs_ops;

/*
 * --target: a directory ("/mnt/x" or "posix:/mnt/x") or an NFS URL
 * "nfs://host[:port]/export?version=3|4[&nfsport=N][&mountport=N]".
 */
struct dt_target {
	const struct dt_backend_ops *ops;
	char spec[DT_PATH_MAX];		/* as given */
	char root[DT_PATH_MAX];		/* posix: directory; nfs: export */
	char server[256];		/* nfs only */
	int nfs_version;		/* 3 or 4; 0 for posix */
	int nfsport, mountport;		/* 0 = ask the portmapper */
	char label[64];			/* short name for reports: posix, nfs3 */
};

/* Parse spec into *t; on error fill err and return -EINVAL. */
int dt_target_parse(const char *spec, struct dt_target *t, char *err,
		    size_t errlen);

/* Remove path and everything below it on c; 0 or -errno. */
int dt_remove_tree(const struct dt_backend_ops *ops, struct dt_conn *c,
		   const char *path);

/* ---- what a POSIX target's mount allows (mountopts.c) ------------------ */

struct dt_mount_info {
	char mnt[DT_PATH_MAX];		/* mount point */
	char fstype[32];		/* nfs, nfs4, ext4, tmpfs, fuse.x */
	char source[256];		/* server:/path for NFS */
	char opts[1024];		/* mount options, then super options */
};

/* The mount holding path (realpath'ed): the longest covering mount point. */
int dt_mount_of(const char *path, struct dt_mount_info *out);
/* The same over a mountinfo stream (t/backend feeds samples). */
int dt_mountinfo_find(FILE *f, const char *path, struct dt_mount_info *out);

/*
 * How stale a client may be on that mount by its own options: ms is the
 * history checker's delta (0 for a local filesystem and for NFS with noac
 * or actimeo=0), why says where it came from; unbounded when it is
 * longer than a run could tell.  -EINVAL for malformed options.
 */
struct dt_stale_bound {
	uint64_t ms;
	bool nfs;
	bool unbounded;
	char why[512];
};
int dt_stale_bound(const struct dt_mount_info *m, struct dt_stale_bound *b);

#endif /* DT_BACKEND_H */
