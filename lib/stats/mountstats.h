/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel NFS client's per-mount counters, from /proc/self/mountstats.
 *
 * Each NFS mount there is a block:
 *
 *	device srv:/export mounted on /mnt/x with fstype nfs statvers=1.1
 *		opts:	rw,vers=3,...,acdirmin=30,acdirmax=60,...
 *		age:	15
 *		events:	27 counters (inode/dentry revalidations, silly renames...)
 *		...
 *		per-op statistics
 *		      LOOKUP: ops trans timeouts sent recv queue_ms rtt_ms exec_ms [errors]
 *
 * The per-op counts belong to one superblock (mounts with different options
 * have their own), so "LOOKUPs on the wire for this mount" is the LOOKUP
 * line's first number read before and after.  Mount points are printed with
 * octal escapes (\040 for a blank); the parser undoes them.
 *
 * Calls return 0 or -errno: -ENOENT no such mount (or op), -ENODATA the
 * mount has no NFS statistics (not NFS), -EINVAL a malformed block, -ENOMEM.
 */
#ifndef DENTRACE_MOUNTSTATS_H
#define DENTRACE_MOUNTSTATS_H

#include <stddef.h>
#include <stdint.h>

#define DT_MS_OPS_MAX	96	/* NFSv4.2 has 70 ops */
#define DT_MS_EVENTS	27	/* NFSIOS_* counters on the events: line */
#define DT_MS_PATH_MAX	1024

/* One "per-op statistics" line. */
struct dt_ms_op {
	char name[32];			/* LOOKUP, GETATTR, READDIR, ... */
	uint64_t ops;			/* requests made */
	uint64_t trans;			/* transmissions (>= ops: retransmits) */
	uint64_t timeouts;		/* major timeouts */
	uint64_t bytes_sent, bytes_recv;
	uint64_t queue_ms;		/* cumulative time queued */
	uint64_t rtt_ms;		/* cumulative round trip time */
	uint64_t execute_ms;		/* cumulative call to completion */
	uint64_t errors;		/* statvers >= 1.1 only, else 0 */
};

/* The events: counters, by index (the kernel's enum nfs_stat_eventcounters). */
enum dt_ms_event {
	DT_MS_INODEREVALIDATE, DT_MS_DENTRYREVALIDATE, DT_MS_DATAINVALIDATE,
	DT_MS_ATTRINVALIDATE, DT_MS_VFSOPEN, DT_MS_VFSLOOKUP,
	DT_MS_VFSACCESS, DT_MS_VFSUPDATEPAGE, DT_MS_VFSREADPAGE,
	DT_MS_VFSREADPAGES, DT_MS_VFSWRITEPAGE, DT_MS_VFSWRITEPAGES,
	DT_MS_VFSGETDENTS, DT_MS_VFSSETATTR, DT_MS_VFSFLUSH,
	DT_MS_VFSFSYNC, DT_MS_VFSLOCK, DT_MS_VFSRELEASE,
	DT_MS_CONGESTIONWAIT, DT_MS_SETATTRTRUNC, DT_MS_EXTENDWRITE,
	DT_MS_SILLYRENAME, DT_MS_SHORTREAD, DT_MS_SHORTWRITE, DT_MS_DELAY,
	DT_MS_PNFS_READ, DT_MS_PNFS_WRITE,
};

struct dt_mountstats {
	char device[256];		/* "srv:/export" (unescaped) */
	char mountpoint[DT_MS_PATH_MAX];	/* unescaped */
	char fstype[32];		/* nfs, nfs4 */
	char statvers[16];		/* "1.1" */
	char opts[2048];		/* the opts: line as printed */
	uint64_t age;			/* seconds since mount */
	int nevents;			/* counters found on the events: line */
	uint64_t events[DT_MS_EVENTS];
	size_t nops;
	struct dt_ms_op op[DT_MS_OPS_MAX];
};

/*
 * Parse the block of mount point mp out of the text of a mountstats file
 * (NUL-terminated).  When several mounts sit on mp, the last one (the one
 * on top) wins.  mp is compared after unescaping, without trailing '/'.
 */
int dt_mountstats_parse(const char *text, const char *mp,
			struct dt_mountstats *out);

/* Read all of /proc/self/mountstats into a malloc'ed string (*text). */
int dt_mountstats_slurp(char **text);

/* dt_mountstats_slurp + dt_mountstats_parse. */
int dt_mountstats_read(const char *mp, struct dt_mountstats *out);

/*
 * The mount point a path lives under: the longest mount point in text that
 * is path itself or a '/'-separated prefix of it.  path must be absolute
 * and canonical (no "..", no symlinks: pass realpath() output).
 */
int dt_mountstats_mountpoint(const char *text, const char *path, char *buf,
			     size_t len);

/* The op's line, or NULL. */
const struct dt_ms_op *dt_mountstats_op(const struct dt_mountstats *m,
					const char *name);

/* The op's request count (ops), or -ENOENT when the mount has no such op. */
int64_t dt_mountstats_count(const struct dt_mountstats *m, const char *name);

/*
 * A mount option from the opts: line.  "acdirmax" -> "60"; a flag that is
 * present ("hard") -> ""; returns -ENOENT when absent, -ENAMETOOLONG when
 * the value does not fit buf.
 */
int dt_mountstats_opt(const struct dt_mountstats *m, const char *key,
		      char *buf, size_t len);

/* Numeric option value, or def when absent or not a number. */
long dt_mountstats_opt_long(const struct dt_mountstats *m, const char *key,
			    long def);

/* NFS version from the vers= option: 30 for "3", 40, 41, 42; 0 unknown. */
int dt_mountstats_vers(const struct dt_mountstats *m);

#endif /* DENTRACE_MOUNTSTATS_H */
