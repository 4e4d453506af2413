/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * When the target holds a case in the kernel.  A task waiting for a FUSE
 * daemon that will not answer, or for a hard-mounted NFS server that is
 * gone, does not die of SIGKILL: the run must neither wait for it nor
 * write through anything it holds.  Here:
 *
 *   - the output of a child goes into memfds the parent copies out, so a
 *     child that never dies does not hold the run's stdout (a pipe to
 *     prove or tee would never see its end);
 *   - the case's wait, with "# still running" lines while it lasts;
 *   - a killed child that is still there after DT_REAP_GRACE_S becomes a
 *     leftover: reported (pid, state, wchan, each task's kernel stack, how
 *     long), remembered, and reaped later if it ever ends;
 *   - what is stuck and what would free it: for a FUSE mount its
 *     connection, which --free-fuse aborts (that one connection only).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/internal.h"

/* ---- captured output ---------------------------------------------------- */

/* Parent, before fork: two memfds; without them the child inherits ours. */
void dt_capture_open(struct dt_capture *c)
{
	c->out = memfd_create("dentrace-stdout", MFD_CLOEXEC);
	c->err = c->out >= 0 ? memfd_create("dentrace-stderr", MFD_CLOEXEC)
			     : -1;
	if (c->err < 0 && c->out >= 0) {
		close(c->out);
		c->out = -1;
	}
	c->out_done = c->err_done = 0;
}

/* Child: its stdout and stderr go to the memfds. */
void dt_capture_child(struct dt_capture *c)
{
	if (c->out < 0)
		return;
	dup2(c->out, STDOUT_FILENO);
	dup2(c->err, STDERR_FILENO);
	close(c->out);
	close(c->err);
}

static void copy_new(int fd, off_t *done, FILE *to)
{
	char buf[8192];
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), *done)) > 0) {
		fwrite(buf, 1, (size_t)n, to);
		*done += n;
	}
	fflush(to);
}

/* Parent: copy what the child wrote since the last call. */
void dt_capture_flush(struct dt_capture *c)
{
	if (c->out < 0)
		return;
	copy_new(c->out, &c->out_done, stdout);
	copy_new(c->err, &c->err_done, stderr);
}

void dt_capture_close(struct dt_capture *c)
{
	dt_capture_flush(c);
	if (c->out >= 0) {
		close(c->out);
		close(c->err);
	}
	c->out = c->err = -1;
}

/* ---- the case's wait ------------------------------------------------------ */

/* ops at the last two progress notes: what the case did lately */
static unsigned long long ops_at_note, ops_at_note_before;

unsigned long long dt_case_recent_ops(void)
{
	unsigned long long now = __atomic_load_n(&dt_shared->ops,
						 __ATOMIC_RELAXED);

	return now - ops_at_note_before;
}

/*
 * Wait for the case child until deadline, copying its output and saying
 * every DT_PROGRESS_S that it still runs, with the ops it recorded.  A
 * child that reported its end (dt_case_exit) but is not gone a grace
 * later has tasks stuck in the kernel: no use waiting for the timeout,
 * -ETIMEDOUT with *stuck_exiting set.
 */
int dt_wait_case(pid_t pid, uint64_t t0, uint64_t deadline,
		 struct dt_capture *cap, bool *stuck_exiting)
{
	uint64_t next_note = t0 + DT_PROGRESS_S * 1000000000ull;
	uint64_t grace = DT_REAP_GRACE_S * 1000000000ull;

	*stuck_exiting = false;
	ops_at_note = ops_at_note_before = __atomic_load_n(&dt_shared->ops,
							   __ATOMIC_RELAXED);
	for (;;) {
		uint64_t now = dt_now_ns(), until = now + 1000000000ull;

		if (until > deadline)
			until = deadline;
		int status = dt_wait_deadline(pid, until, true);

		dt_capture_flush(cap);
		if (status != -ETIMEDOUT)
			return status;
		now = dt_now_ns();
		if (now >= deadline)
			return -ETIMEDOUT;
		uint64_t ended = __atomic_load_n(&dt_shared->exit_ns,
						 __ATOMIC_ACQUIRE);
		if (ended && now - ended > grace) {
			*stuck_exiting = true;
			return -ETIMEDOUT;
		}
		if (now >= next_note) {
			ops_at_note_before = ops_at_note;
			ops_at_note = __atomic_load_n(&dt_shared->ops,
						      __ATOMIC_RELAXED);
			printf("# still running: %.0f s, ops %llu\n",
			       (double)(now - t0) / 1e9, ops_at_note);
			next_note += DT_PROGRESS_S * 1000000000ull;
		}
	}
}

/* ---- YAML lines into a buffer ------------------------------------------- */

struct ybuf {
	char *b;
	size_t len, used;
};

static void __attribute__((format(printf, 2, 3)))
yadd(struct ybuf *y, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (y->used + 1 >= y->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(y->b + y->used, y->len - y->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		y->used += (size_t)n < y->len - y->used ? (size_t)n
							: y->len - y->used - 1;
}

/* ---- the target's mount: what is stuck, what would free it --------------- */

static struct {
	bool known;
	bool fuse;
	unsigned minor;			/* FUSE: the connection's number */
	struct dt_mount_info m;
} target_mount;

/* mountinfo escapes blanks and backslashes as \ooo */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] &&
		    s[3]) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/* the device minor of the mount at mnt, from /proc/self/mountinfo */
static int mount_minor(const char *mnt, unsigned *minor)
{
	/* point holds any field of line: as large (the width below) */
	char line[4096], point[4096];
	unsigned maj, min;
	int rc = -ENOENT;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... ; the last one wins */
		if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &maj, &min,
			   point) != 3)
			continue;
		unescape(point);
		if (!strcmp(point, mnt)) {
			*minor = min;
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/*
 * Once, while the target still answers (after the probe): which mount
 * holds it.  After a hang nothing may touch the target, not even stat().
 */
void dt_note_target(const struct dt_target *tgt)
{
	target_mount.known = tgt->ops == &dt_posix_ops &&
			     dt_mount_of(tgt->root, &target_mount.m) == 0;
	target_mount.fuse = target_mount.known &&
			    !strncmp(target_mount.m.fstype, "fuse", 4) &&
			    mount_minor(target_mount.m.mnt,
					&target_mount.minor) == 0;
}

static const char *fuse_abort_path(void)
{
	return dt_fmt("/sys/fs/fuse/connections/%u/abort", target_mount.minor);
}

/* YAML lines: what holds the leftover, and what would free it */
static void stuck_on_yaml(struct ybuf *y)
{
	struct dt_mount_info *m = &target_mount.m;

	if (!target_mount.known) {
		yadd(y, "    stuck_on: \"the target (not a local mount: "
			       "its backend's own connection)\"\n");
		return;
	}
	yadd(y, "    stuck_on: %s\n", dt_yaml_quote(dt_fmt(
		"%s mount %s (source %s)", m->fstype, m->mnt, m->source)));
	if (target_mount.fuse)
		yadd(y, "    would_free_it: %s\n", dt_yaml_quote(dt_fmt(
			"abort its FUSE connection: echo 1 > %s (dentrace "
			"does so with --free-fuse), or end its daemon",
			fuse_abort_path())));
	else if (!strncmp(m->fstype, "nfs", 3))
		yadd(y, "    would_free_it: %s\n", dt_yaml_quote(dt_fmt(
			"the server %s answering again, or umount -f %s "
			"(a hard mount waits for the server forever)",
			m->source, m->mnt)));
	else
		yadd(y, "    would_free_it: \"whatever the filesystem "
			       "waits for; umount -f %s may\"\n", m->mnt);
}

/* ---- leftovers ------------------------------------------------------------ */

#define LEFTOVERS_MAX 64

static struct leftover {
	pid_t pid;
	uint64_t killed_ns;
	char what[96];
} leftovers[LEFTOVERS_MAX];
static int nleftovers;

/* field "State:" of /proc/PID/status, e.g. "D (disk sleep)" */
static void proc_state(pid_t pid, char *buf, size_t len)
{
	char status[4096];
	const char *p;

	dt_read_small(dt_fmt("/proc/%d/status", (int)pid), status,
		      sizeof(status));
	p = strstr(status, "State:");
	if (!p) {
		snprintf(buf, len, "unknown");
		return;
	}
	p += strspn(p + 6, " \t") + 6;
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
}

/*
 * The leader of a killed process is a zombie as soon as it exits; what
 * keeps the process is its other tasks: "Z (zombie); tasks: D 8, Z 1".
 */
static void proc_states(pid_t pid, char *buf, size_t len)
{
	char st[64];
	int count[26] = { 0 };
	struct dirent *d;
	DIR *dir = opendir(dt_fmt("/proc/%d/task", (int)pid));
	size_t used;

	proc_state(pid, buf, len);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		proc_state(atoi(d->d_name), st, sizeof(st));
		if (st[0] >= 'A' && st[0] <= 'Z')
			count[st[0] - 'A']++;
	}
	closedir(dir);
	used = strlen(buf);
	for (int i = 0, n = 0; i < 26; i++) {
		if (!count[i] || used >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%c %d",
					 n++ ? ", " : "; tasks: ", 'A' + i,
					 count[i]);
	}
}

/*
 * Reap the leftovers that ended by deadline (saying so if say); returns
 * how many are still there.
 */
int dt_leftovers_poll(uint64_t deadline, bool say)
{
	int kept = 0;

	for (int i = 0; i < nleftovers; i++) {
		if (dt_wait_deadline(leftovers[i].pid, deadline, false) >= 0) {
			if (say)
				printf("# leftover pid %d (%s) ended after %.1f s\n",
			       (int)leftovers[i].pid, leftovers[i].what,
			       (double)(dt_now_ns() - leftovers[i].killed_ns) /
				       1e9);
			continue;
		}
		leftovers[kept++] = leftovers[i];
	}
	nleftovers = kept;
	return kept;
}

/* At the end of the run: say what stays behind (it is not ours to free). */
void dt_leftovers_final(void)
{
	if (!nleftovers || dt_leftovers_poll(dt_now_ns(), true) == 0)
		return;
	for (int i = 0; i < nleftovers; i++) {
		char state[64];

		proc_state(leftovers[i].pid, state, sizeof(state));
		printf("# leftover pid %d (%s) still stuck in the kernel after "
		       "%.1f s, state %s: exiting without it\n",
		       (int)leftovers[i].pid, leftovers[i].what,
		       (double)(dt_now_ns() - leftovers[i].killed_ns) / 1e9,
		       state);
	}
}

/*
 * Kill a child's process group and wait at most DT_REAP_GRACE_S.  If it
 * stays, describe it as YAML lines ("  leftover:" and its keys) into
 * h->yaml, remember it, and return false: the caller goes on without it.
 */
bool dt_hang_kill(pid_t pid, const char *what, struct dt_hang *h)
{
	uint64_t killed = dt_now_ns();
	struct ybuf y = { h->yaml, sizeof(h->yaml), 0 };
	char state[128], stacks[12288];

	char name[96];

	/* what may be a dt_fmt() buffer: keep it before calling others */
	snprintf(name, sizeof(name), "%s", what);
	h->yaml[0] = 0;
	h->unreaped = !dt_kill_group(pid, DT_REAP_GRACE_S);
	if (!h->unreaped)
		return true;
	proc_states(pid, state, sizeof(state));
	dt_collect_stacks(pid, 0, stacks, sizeof(stacks));
	yadd(&y, "  leftover:\n    pid: %d\n    state: %s\n"
		    "    unreaped_s: %.1f\n    note: %s\n", (int)pid,
		    dt_yaml_quote(state), (double)(dt_now_ns() - killed) / 1e9,
		    dt_yaml_quote(dt_fmt("SIGKILLed, not gone after the %d s "
					 "grace: a task waits in the kernel; "
					 "the run goes on without it",
					 DT_REAP_GRACE_S)));
	stuck_on_yaml(&y);
	yadd(&y, "    tasks: |\n");
	for (const char *l = stacks; *l;) {
		int n = (int)strcspn(l, "\n");

		yadd(&y, "      %.*s\n", n, l);
		l += n + (l[n] == '\n');
	}
	if (nleftovers < LEFTOVERS_MAX) {
		struct leftover *lo = &leftovers[nleftovers++];

		lo->pid = pid;
		lo->killed_ns = killed;
		snprintf(lo->what, sizeof(lo->what), "%s", name);
	}
	return false;
}

/*
 * --free-fuse, after the hang was reported: abort the target's FUSE
 * connection (that mount's only; its tasks get ENOTCONN and die), then
 * reap.  Prints YAML lines for the case's block.  Never for a target that
 * is not FUSE: a kernel NFS mount or a user's server is not ours to end.
 */
void dt_hang_free(bool free_fuse)
{
	if (!target_mount.fuse || !free_fuse)
		return;
	const char *path = fuse_abort_path();
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool done = fd >= 0 && write(fd, "1", 1) == 1;
	int err = errno;

	if (fd >= 0)
		close(fd);
	if (!done) {
		printf("  freed: %s\n", dt_yaml_quote(dt_fmt(
			"no: %s: %s%s", path, strerror(err),
			err == ENOENT ? " (is fusectl mounted? mount -t "
					"fusectl none /sys/fs/fuse/connections)"
				      : "")));
		return;
	}
	int left = dt_leftovers_poll(dt_now_ns() +
				     DT_REAP_GRACE_S * 1000000000ull, false);
	printf("  freed: %s\n", dt_yaml_quote(dt_fmt(
		"aborted FUSE connection %u of %s (--free-fuse); %s",
		target_mount.minor, target_mount.m.mnt,
		left ? "a leftover is still there" : "no leftover remains")));
}
