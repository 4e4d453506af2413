/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Layer "base": the bottom of libdentrace.
 *
 * Offers what every other layer uses: the clocks, message helpers
 * (dt_fmt, dt_strerr, errno names in errname.h), directory listings as the
 * backends return them (dt_dirlist), and facts about processes of this
 * machine (its short host name, whether a pid still runs, the kernel
 * stacks of a process's tasks: the evidence of a hang).
 *
 * May call: libc only.  Nothing here knows of tests, targets or runs.
 *
 * Conventions of the whole library: calls return 0 (or a count) on
 * success and -errno on failure; public symbols are prefixed dt_.
 */
#ifndef DT_BASE_H
#define DT_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DT_NAME_MAX 255
#define DT_PATH_MAX 1024

/* ---- time --------------------------------------------------------------- */

uint64_t dt_now_ns(void);		/* CLOCK_MONOTONIC */
uint64_t dt_realtime_ns(void);		/* CLOCK_REALTIME (cross-host) */

/* ---- messages ----------------------------------------------------------- */

/* printf into one of a few rotating thread-local buffers (512 bytes) */
const char *dt_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "ENOENT" for -ENOENT (or ENOENT), "0" for 0, "errno N (text)" else */
const char *dt_strerr(int negerr);

/* ---- directory listings -------------------------------------------------- */

struct dt_dirent {
	char *name;		/* malloc'ed */
	uint64_t fileid;	/* 0 when the backend cannot say */
};

struct dt_dirlist {
	struct dt_dirent *ent;
	size_t n, cap;
};

void dt_dirlist_free(struct dt_dirlist *l);
int dt_dirlist_add(struct dt_dirlist *l, const char *name, uint64_t fileid);

/* ---- processes of this machine ------------------------------------------ */

/* this host's name up to the first '.' ("host" if it has none) */
const char *dt_short_hostname(void);
/* false once pid is gone or a zombie (killed, not yet reaped) */
bool dt_pid_running(pid_t pid);
/* tasks (threads) of pid in uninterruptible sleep (D): stuck in the kernel */
int dt_tasks_in_d_state(pid_t pid);
/* read a small /proc file into buf (NUL-terminated; a note if unreadable) */
void dt_read_small(const char *path, char *buf, size_t len);
/*
 * Kernel stacks and wchan of every task of pid (or of only_tid) into buf:
 * "task TID (comm) wchan=...\n<stack>" per task.
 */
void dt_collect_stacks(pid_t pid, pid_t only_tid, char *buf, size_t len);
/* seconds since boot (/proc/uptime): the kernel log's time line */
double dt_uptime_s(void);
/*
 * The kernel log's lines stamped at or after since_s (seconds since
 * boot) into buf, the newest kept when they do not fit: what the kernel
 * said while a case hung (an NFS server "not responding").  An empty buf
 * if there were none; a note if the log cannot be read (no CAP_SYSLOG).
 */
void dt_kernel_log_since(double since_s, char *buf, size_t len);

#endif /* DT_BASE_H */
