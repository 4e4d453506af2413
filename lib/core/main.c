/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The harness: main() of every test.  The parent process parses options,
 * forks one child per case (own process group, hard timeout), and prints
 * TAP from what the child left in shared memory.  The child connects to the
 * target, makes its scratch directory, runs the case and removes the scratch
 * directory again.  If the child dies or hangs, the parent kills its group
 * and sweeps the scratch directory from a fresh child of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "coord.h"
#include "histcheck.h"
#include "internal.h"

struct dt_shared *dt_shared;
double dt_op_timeout;

static pthread_mutex_t diag_lock = PTHREAD_MUTEX_INITIALIZER;

struct options {
	const char *target;
	const char *cases;		/* comma separated, NULL = all */
	const char *tags;		/* comma separated, NULL = any */
	const char *xfail;		/* expected-failure list file */
	const char *hang_op;
	const char *coord;		/* coordinator ADDR:PORT */
	const char *token_file;
	const char *host_name;		/* unique name of this host in the run */
	const char *run_id;
	const char *history_dir;	/* dump the history of failed cases */
	bool check_history;		/* judge r.hist with dt_check_history */
	struct dt_check_opts check_opts;
	int threads;
	double duration;
	long iterations;
	uint64_t seed;
	int timeout;
	double op_timeout;
	int host, nhosts;
	bool list, quiet;
};

/* ---- small helpers ----------------------------------------------------- */

uint64_t dt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t dt_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Rotating thread-local buffers so several dt_fmt() fit in one call. */
const char *dt_fmt(const char *fmt, ...)
{
	static __thread char bufs[4][512];
	static __thread unsigned next;
	char *b = bufs[next++ % 4];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(bufs[0]), fmt, ap);
	va_end(ap);
	return b;
}

static const struct {
	int err;
	const char *name;
} errnames[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EIO, "EIO" },
	{ EBADF, "EBADF" }, { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },
	{ EACCES, "EACCES" }, { EBUSY, "EBUSY" }, { EEXIST, "EEXIST" },
	{ EXDEV, "EXDEV" }, { ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" },
	{ EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" }, { EROFS, "EROFS" },
	{ EMLINK, "EMLINK" }, { ENAMETOOLONG, "ENAMETOOLONG" },
	{ ENOTEMPTY, "ENOTEMPTY" }, { ELOOP, "ELOOP" }, { ESTALE, "ESTALE" },
	{ ETIMEDOUT, "ETIMEDOUT" }, { ECONNREFUSED, "ECONNREFUSED" },
	{ ENOTSUP, "ENOTSUP" }, { EHOSTUNREACH, "EHOSTUNREACH" },
	{ ECONNRESET, "ECONNRESET" }, { EFAULT, "EFAULT" },
	{ ENOTCONN, "ENOTCONN" }, { EINTR, "EINTR" },
	{ ENETUNREACH, "ENETUNREACH" }, { EROFS, "EROFS" },
};

const char *dt_strerr(int negerr)
{
	int e = negerr < 0 ? -negerr : negerr;

	if (e == 0)
		return "0";
	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].err == e)
			return errnames[i].name;
	return dt_fmt("errno %d (%s)", e, strerror(e));
}

/* ---- diagnostics (case child) ----------------------------------------- */

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
static const char *yq(const char *s)
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
	dt_diag_append("  %s: %s\n", key, yq(val));
}

static void set_outcome(int outcome)
{
	/* FAIL dominates BROKEN dominates SKIP dominates PASS */
	static const int rank[] = { [DT_PASS] = 0, [DT_SKIP] = 1,
				    [DT_BROKEN] = 2, [DT_FAIL] = 3 };

	if (rank[outcome] > rank[dt_shared->outcome])
		dt_shared->outcome = outcome;
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
		    yq(op), yq(expected), yq(observed), yq(msg));
}

void dt_fail_verdict_at(struct dt_run *r, const char *file, int line,
			const char *oracle, const struct dt_verdict *v)
{
	if (!v->violations)
		return;
	if (v->event == SIZE_MAX)
		dt_fail_at(r, file, line, oracle, v->expected, v->observed,
			   "%s (%d violation%s)", v->what, v->violations,
			   v->violations == 1 ? "" : "s");
	else
		dt_fail_at(r, file, line, oracle, v->expected, v->observed,
			   "%s (%d violation%s, first at event %zu)", v->what,
			   v->violations, v->violations == 1 ? "" : "s",
			   v->event);
}

void dt_case_exit(int outcome)
{
	if (dt_shared)
		set_outcome(outcome);
	/* hand the coordinator handle's progress back to the parent */
	if (dt_shared && dt_coord_handle &&
	    dt_coord_sync_size() <= sizeof(dt_shared->coord_sync)) {
		dt_coord_sync_get(dt_coord_handle, dt_shared->coord_sync);
		dt_shared->coord_synced = 1;
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

/* ---- kernel stacks as hang evidence ------------------------------------ */

static void read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
	if (n <= 0)
		snprintf(buf, len, "(unreadable: %s)", strerror(errno));
}

void dt_collect_stacks(pid_t pid, pid_t only_tid, char *buf, size_t len)
{
	char path[96], task[64], comm[64], wchan[128], stack[2048];
	size_t used = 0;
	char dirpath[64];

	buf[0] = 0;
	snprintf(dirpath, sizeof(dirpath), "/proc/%d/task", pid);
	/* opendir via the libc would be simpler, but keep allocation-free */
	int dfd = open(dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(buf, len, "(no %s: %s)", dirpath, strerror(errno));
		return;
	}
	char dents[8192];
	long n;
	while ((n = syscall(SYS_getdents64, dfd, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < n;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(dents + off);
			off += d->reclen;
			if (d->name[0] == '.')
				continue;
			if (only_tid && atoi(d->name) != only_tid)
				continue;
			snprintf(task, sizeof(task), "/proc/%d/task/%s", pid,
				 d->name);
			snprintf(path, sizeof(path), "%s/comm", task);
			read_small(path, comm, sizeof(comm));
			comm[strcspn(comm, "\n")] = 0;
			snprintf(path, sizeof(path), "%s/wchan", task);
			read_small(path, wchan, sizeof(wchan));
			snprintf(path, sizeof(path), "%s/stack", task);
			read_small(path, stack, sizeof(stack));
			if (used < len)
				used += snprintf(buf + used, len - used,
						 "task %s (%s) wchan=%s\n%s",
						 d->name, comm, wchan, stack);
		}
	}
	close(dfd);
}

/* ---- scratch directories ---------------------------------------------- */

int dt_remove_tree(const struct dt_backend_ops *ops, struct dt_conn *c,
		   const char *path)
{
	struct dt_dirlist l = { 0 };
	struct dt_stat st;
	int rc = ops->lookup(c, path, &st);

	if (rc < 0)
		return rc == -ENOENT ? 0 : rc;
	if (!S_ISDIR(st.mode)) {
		rc = ops->unlink(c, path);
		return rc == -ENOENT ? 0 : rc;
	}
	rc = ops->readdir(c, path, &l);
	for (size_t i = 0; rc >= 0 && i < l.n; i++) {
		char child[DT_PATH_MAX];

		if ((size_t)snprintf(child, sizeof(child), "%s/%s", path,
				     l.ent[i].name) >= sizeof(child)) {
			rc = -ENAMETOOLONG;
			break;
		}
		rc = dt_remove_tree(ops, c, child);
	}
	dt_dirlist_free(&l);
	if (rc < 0)
		return rc;
	rc = ops->rmdir(c, path);
	return rc == -ENOENT ? 0 : rc;
}

static char hostname_buf[64];

static const char *short_hostname(void)
{
	if (!hostname_buf[0]) {
		gethostname(hostname_buf, sizeof(hostname_buf) - 1);
		/* the scratch name is split on '.', keep the host part */
		hostname_buf[strcspn(hostname_buf, ".")] = 0;
		if (!hostname_buf[0])
			strcpy(hostname_buf, "host");
	}
	return hostname_buf;
}

/* A zombie (killed, not yet reaped) runs no more: its scratch is stale. */
static bool pid_running(pid_t pid)
{
	char path[64], buf[256];
	char *rp;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	read_small(path, buf, sizeof(buf));
	rp = strrchr(buf, ')');		/* comm may hold spaces */
	return !(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}

/*
 * Sweep what dead runs of this host left: scratch dirs are named
 * dentrace.<host>.<pid>.<test>.<case>; one whose pid no longer runs is
 * removed.  Only names with our prefix at the target root are touched.
 */
static void sweep_dead_scratch(const struct dt_target *t, struct dt_conn *c)
{
	struct dt_dirlist l = { 0 };
	const char *host = short_hostname();
	size_t hl = strlen(host), pl = strlen(DT_SCRATCH_PREFIX);

	if (t->ops->readdir(c, "", &l) < 0)
		return;
	for (size_t i = 0; i < l.n; i++) {
		const char *n = l.ent[i].name;

		if (strncmp(n, DT_SCRATCH_PREFIX, pl) ||
		    strncmp(n + pl, host, hl) || n[pl + hl] != '.')
			continue;
		pid_t pid = (pid_t)atol(n + pl + hl + 1);
		if (pid <= 0 || !pid_running(pid)) {
			int rc = dt_remove_tree(t->ops, c, n);

			printf("# swept leftover scratch %s%s\n", n,
			       rc < 0 ? " (failed)" : "");
		}
	}
	dt_dirlist_free(&l);
}

/* A target must be marked before dentrace writes to it. */
static int check_target_marker(const struct dt_target *t, struct dt_conn *c)
{
	struct dt_stat st;

	return t->ops->lookup(c, DT_TARGET_MARKER, &st);
}

/*
 * Can dentrace write there?  A read-only export would otherwise make every
 * case BROKEN on its scratch mkdir; one Bail out says it once.  The probe
 * is named like a scratch dir of this process, so if the run dies between
 * mkdir and rmdir the next run's sweep removes it.
 */
static int probe_writable(const struct dt_target *t, struct dt_conn *c,
			  char *path, size_t len)
{
	int rc;

	snprintf(path, len, DT_SCRATCH_PREFIX "%s.%d.probe.write",
		 short_hostname(), (int)getpid());
	rc = t->ops->mkdir(c, path);
	if (rc == 0)
		t->ops->rmdir(c, path);
	return rc == -EEXIST ? 0 : rc;
}

/* ---- running one case in a child --------------------------------------- */

extern void dt_workers_init_run(struct dt_run *r);	/* workers.c */
extern void dt_workers_fini_run(struct dt_run *r);
extern const char *dt_hang_op;

/*
 * --check-history: the general checker on everything the case recorded.
 * A violation fails the case like an oracle, with the shrunk
 * counterexample as a YAML block; inconclusive is a diag, not a failure.
 */
static void check_history(struct dt_run *r, const struct dt_check_opts *opts,
			  int case_timeout)
{
	struct dt_check_opts co = *opts;
	struct dt_check_result res;
	uint64_t t0 = dt_now_ns();
	int rc;

	/*
	 * Every host of a multi-host run holds the same merged history: one
	 * judge is enough, and the others' CPU stays with their own work.
	 */
	if (dt_mh_active() && !dt_leader(r)) {
		dt_diag(r, "history_check", "judged by the leader host");
		return;
	}
	/* a search out of time is inconclusive, never the case's timeout */
	co.deadline_ns = t0 + (uint64_t)case_timeout * 1000000000ull / 4;
	rc = dt_check_history(&r->hist, &co, &res);

	dt_diag(r, "history_check", "%s: %zu events, %zu judged, %zu not "
		"judged, %zu components, %.3f s", dt_check_status_name(rc),
		res.events, res.judged, res.not_judged, res.components,
		(double)(dt_now_ns() - t0) / 1e9);
	if (rc == DT_CHECK_VIOLATION) {
		dt_fail_verdict(r, "history checker", &res.verdict);
		if (res.cex_text)
			dt_diag_block("history_counterexample", res.cex_text);
	} else if (rc != DT_CHECK_CONSISTENT) {
		dt_diag(r, "history_check_inconclusive", "%s",
			res.verdict.what);
	}
	dt_check_result_free(&res);
}

static void case_child(const struct dt_test *t, const struct dt_case *c,
		       const struct dt_target *tgt, const struct options *o)
{
	struct dt_run r = {
		.test = t, .tcase = c, .target = tgt,
		.threads = o->threads ? o->threads : t->threads,
		.duration = o->duration > 0 ? o->duration : t->duration,
		.iterations = o->iterations ? o->iterations : DT_DEFAULT_ITERATIONS,
		.seed = o->seed, .host = o->host, .nhosts = o->nhosts,
		.hang_op = o->hang_op,
	};
	int rc;

	if (r.threads <= 0)
		r.threads = 4;
	if (r.duration <= 0)
		r.duration = 2;
	dt_hang_op = o->hang_op;
	if (o->hang_op && !strcmp(o->hang_op, "case")) {
		/* debug knob: hang outside any op to prove the hard timeout */
		for (;;)
			pause();
	}
	if ((t->needs & DT_NEED_POSIX) && tgt->ops != &dt_posix_ops)
		dt_skip(&r, "needs a POSIX path target (got %s)", tgt->label);
	if ((t->needs & (DT_NEED_LINK | DT_NEED_OPEN)) && !tgt->ops->link)
		dt_skip(&r, "backend %s lacks link/open", tgt->ops->name);

	rc = tgt->ops->connect(tgt, &r.conn);
	if (rc < 0)
		dt_broken(&r, "connect to %s: %s", tgt->spec, dt_strerr(rc));
	snprintf(r.scratch, sizeof(r.scratch), DT_SCRATCH_PREFIX "%s.%d.%s.%s",
		 short_hostname(), (int)getpid(), t->name, c->name);
	if (dt_leader(&r)) {
		rc = tgt->ops->mkdir(r.conn, r.scratch);
		if (rc < 0)
			dt_broken(&r, "mkdir scratch %s on %s: %s", r.scratch,
				  tgt->spec, dt_strerr(rc));
	}
	/* in a multi-host run everyone works in the leader's scratch dir */
	if (dt_mh_active())
		dt_mh_share_scratch(&r);
	dt_diag(&r, "scratch", "%s", r.scratch);
	dt_workers_init_run(&r);
	if (t->setup)
		t->setup(&r);
	c->run(&r);
	if (o->check_history && r.hist.n)
		check_history(&r, &o->check_opts,
			      o->timeout ? o->timeout :
			      (t->timeout ? t->timeout : 60));
	if (r.failures && o->history_dir && r.hist.n) {
		char path[DT_PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s.%s.host%d.hist",
			 o->history_dir, t->name, c->name, r.host);
		rc = dt_history_dump(&r.hist, path);
		dt_diag(&r, "history", "%s%s", path,
			rc < 0 ? " (could not be written)" : "");
	}
	if (t->cleanup)
		t->cleanup(&r);
	if (dt_mh_active()) {
		/* nobody may still work in it when the leader removes it */
		dt_mh_barrier(&r, "end");
		dt_mh_report_skew(&r);
	}
	rc = dt_leader(&r) ? dt_remove_tree(tgt->ops, r.conn, r.scratch) : 0;
	if (rc < 0)
		dt_broken(&r, "remove scratch %s: %s", r.scratch,
			  dt_strerr(rc));
	dt_workers_fini_run(&r);
	dt_history_free(&r.hist);
	tgt->ops->disconnect(r.conn);
	dt_case_exit(DT_PASS);
}

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/*
 * Wait for pid until deadline (monotonic ns).  Returns its wait status, or
 * -ETIMEDOUT, or -EINTR when we were told to stop.
 */
static int wait_deadline(pid_t pid, uint64_t deadline, bool interruptible)
{
	int pfd = pidfd_open_(pid), status;

	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid) {
			if (pfd >= 0)
				close(pfd);
			return status;
		}
		if (interrupted && interruptible) {
			if (pfd >= 0)
				close(pfd);
			return -EINTR;
		}
		uint64_t now = dt_now_ns();
		if (now >= deadline) {
			if (pfd >= 0)
				close(pfd);
			return -ETIMEDOUT;
		}
		int ms = (int)((deadline - now) / 1000000) + 1;
		if (pfd >= 0) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };

			poll(&p, 1, ms);
		} else {
			/* no pidfd (old kernel): poll the status instead */
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
}

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Remove a killed case's scratch dir from a bounded child of our own. */
static void sweep_after_kill(const struct dt_target *tgt, pid_t casepid,
			     const struct dt_test *t, const struct dt_case *c)
{
	pid_t p = fork();

	if (p == 0) {
		struct dt_conn *conn;
		char path[DT_PATH_MAX];

		setpgid(0, 0);
		if (tgt->ops->connect(tgt, &conn) < 0)
			_exit(1);
		snprintf(path, sizeof(path), DT_SCRATCH_PREFIX "%s.%d.%s.%s",
			 short_hostname(), (int)casepid, t->name, c->name);
		_exit(dt_remove_tree(tgt->ops, conn, path) < 0);
	}
	if (p < 0)
		return;
	/* even when interrupted: a bounded sweep, then the run stops */
	if (wait_deadline(p, dt_now_ns() + 20ull * 1000000000ull, false) < 0) {
		kill_group(p);
		printf("# could not sweep scratch of pid %d in 20 s; the next "
		       "run sweeps it\n", (int)casepid);
	}
}

/* ---- expected failures -------------------------------------------------- */

/*
 * xfail file: "<target-label|*> <test>[.<case>] <reason...>" per line,
 * '#' comments.  Returns the reason for a match, or NULL.
 */
static const char *xfail_reason(const char *file, const char *label,
				const char *test, const char *tcase)
{
	static char reason[512];
	char line[1024], want[256];
	FILE *f;

	if (!file || !(f = fopen(file, "r")))
		return NULL;
	snprintf(want, sizeof(want), "%s.%s", test, tcase);
	const char *found = NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		char tl[128], name[256];
		int off = 0;

		if (line[0] == '#' ||
		    sscanf(line, "%127s %255s %n", tl, name, &off) < 2)
			continue;
		if (strcmp(tl, "*") && strcmp(tl, label))
			continue;
		if (strcmp(name, test) && strcmp(name, want))
			continue;
		snprintf(reason, sizeof(reason), "%s", line + off);
		reason[strcspn(reason, "\n")] = 0;
		found = reason;
	}
	fclose(f);
	return found;
}

/* ---- the parent -------------------------------------------------------- */

/*
 * A case child killed in the middle of a coordinator call leaves the
 * shared connection in an unknown state: tell the others we are gone (so
 * their barriers fail naming us instead of timing out) and stop using it.
 */
static const char *coord_lost;

static void leave_run(const char *why)
{
	static char reason[160];

	if (!dt_coord_handle)
		return;
	snprintf(reason, sizeof(reason), "%s", why);
	dt_coord_leave_reason(dt_coord_handle, reason);
	dt_coord_handle = NULL;
	coord_lost = reason;
}

/*
 * "not ok" with the reason and, for a known failure, the TODO directive.
 * TAP reads a directive only right after the first unescaped '#', so with
 * a TODO the reason goes in the description, its '#'s escaped; without,
 * it stays a comment after the name ("# BROKEN: ...").
 */
static void print_not_ok(int num, const char *name, const char *kind,
			 const char *reason, const char *xf)
{
	printf("not ok %d - %s", num, name);
	if (!xf) {
		if (*kind || *reason)
			printf(" # %s%s", kind, reason);
		putchar('\n');
		return;
	}
	if (*kind || *reason) {
		printf(" (%s", kind);
		for (const char *p = reason; *p; p++) {
			if (*p == '#' || *p == '\\')
				putchar('\\');
			putchar(*p);
		}
		putchar(')');
	}
	printf(" # TODO %s\n", xf);
}

static int run_case(int num, const struct dt_test *t, const struct dt_case *c,
		    const struct dt_target *tgt, const struct options *o)
{
	const char *xf = xfail_reason(o->xfail, tgt->label, t->name, c->name);
	uint64_t t0 = dt_now_ns();
	int timeout = o->timeout ? o->timeout : (t->timeout ? t->timeout : 60);
	int outcome, status;
	bool need_sweep = false;
	char evidence[16384] = "";

	memset(dt_shared, 0, sizeof(*dt_shared));
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		printf("not ok %d - %s.%s # fork: %s\n", num, t->name, c->name,
		       strerror(errno));
		return DT_BROKEN;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* a case never outlives its harness (kill -9 of the run) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		case_child(t, c, tgt, o);
	}
	setpgid(pid, pid);
	status = wait_deadline(pid, t0 + (uint64_t)timeout * 1000000000ull,
			       true);
	if (status == -ETIMEDOUT || status == -EINTR) {
		/* now, before leaving the run can take its own time */
		uint64_t waiting = __atomic_load_n(&dt_shared->waiting_since_ns,
						   __ATOMIC_ACQUIRE);
		double waited_s = waiting ? (double)(dt_now_ns() - waiting) / 1e9
					  : 0;

		dt_collect_stacks(pid, 0, evidence, sizeof(evidence));
		kill_group(pid);
		leave_run(dt_fmt("%s.%s killed", t->name, c->name));
		need_sweep = true;
		/* a hang is the system's failure; an interrupt gives no verdict */
		outcome = status == -ETIMEDOUT ? DT_FAIL : DT_BROKEN;
		if (status == -ETIMEDOUT && waiting) {
			/* another host, not the system under test, is late */
			outcome = DT_BROKEN;
			snprintf(dt_shared->reason, sizeof(dt_shared->reason),
				 "no verdict within the %d s timeout: waited "
				 "%.1f s at multi-host barrier '%s' for a host "
				 "that never arrived", timeout, waited_s,
				 dt_shared->waiting_at);
		} else if (status == -ETIMEDOUT)
			snprintf(dt_shared->reason, sizeof(dt_shared->reason),
				 "hung: no verdict within the %d s timeout",
				 timeout);
		else
			snprintf(dt_shared->reason, sizeof(dt_shared->reason),
				 "interrupted by signal %d", interrupted);
	} else if (WIFSIGNALED(status)) {
		leave_run(dt_fmt("%s.%s died", t->name, c->name));
		need_sweep = true;
		outcome = DT_BROKEN;
		snprintf(dt_shared->reason, sizeof(dt_shared->reason),
			 "case process died of signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else {
		if (dt_coord_handle && dt_shared->coord_synced)
			dt_coord_sync_set(dt_coord_handle,
					  dt_shared->coord_sync);
		outcome = WEXITSTATUS(status);
		if (outcome > DT_SKIP) {
			snprintf(dt_shared->reason, sizeof(dt_shared->reason),
				 "case process exited %d", outcome);
			outcome = DT_BROKEN;
		}
		/* a case that ended early (skip, broken, watchdog) left it */
		need_sweep = outcome != DT_PASS;
	}

	double secs = (double)(dt_now_ns() - t0) / 1e9;
	const char *name = dt_fmt("%s.%s", t->name, c->name);
	switch (outcome) {
	case DT_PASS:
		printf("ok %d - %s%s%s\n", num, name, xf ? " # TODO " : "",
		       xf ? xf : "");
		break;
	case DT_SKIP:
		printf("ok %d - %s # SKIP %s\n", num, name, dt_shared->reason);
		break;
	case DT_BROKEN:
	default:
		print_not_ok(num, name, outcome == DT_BROKEN ? "BROKEN: " : "",
			     dt_shared->reason, xf);
		break;
	}
	if (outcome == DT_FAIL || outcome == DT_BROKEN || !o->quiet) {
		static const char *names[] = { "pass", "fail", "broken",
					       "skip" };

		printf("  ---\n  outcome: %s\n  target: %s\n"
		       "  duration_s: %.3f\n",
		       names[outcome], yq(tgt->spec), secs);
		if (xf)
			printf("  known_failure: %s\n", yq(xf));
		fwrite(dt_shared->fail, 1, dt_shared->fail_len, stdout);
		fwrite(dt_shared->diag, 1, dt_shared->diag_len, stdout);
		if (evidence[0]) {
			dt_shared->diag_len = 0;
			dt_diag_block("kernel_stacks", evidence);
			fwrite(dt_shared->diag, 1, dt_shared->diag_len,
			       stdout);
		}
		printf("  ...\n");
	}
	fflush(stdout);
	/* after the verdict: a silent server must not delay it */
	if (need_sweep)
		sweep_after_kill(tgt, pid, t, c);
	if (xf && (outcome == DT_FAIL || outcome == DT_BROKEN))
		return DT_PASS;
	return outcome;
}

static bool in_list(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ", ");

		if (l == wl && !strncmp(p, word, l))
			return true;
		p += l;
		p += strspn(p, ", ");
	}
	return false;
}

static bool tags_match(const struct dt_test *t, const char *want)
{
	if (!want)
		return true;
	for (const char *p = t->tags; p && *p;) {
		size_t l = strcspn(p, " ");
		char tag[64];

		snprintf(tag, sizeof(tag), "%.*s", (int)l, p);
		if (in_list(want, tag))
			return true;
		p += l;
		p += strspn(p, " ");
	}
	return false;
}

/*
 * The tag vocabulary.  Selecting by a tag nobody uses would silently run
 * nothing, so an unknown tag is a usage error, and so is a test that
 * declares one (caught by every --list, i.e. by the runners).
 */
static const char known_tags[] =
	"quick slow race coherence perf kernel-only "
	"lookup rename unlink readdir create link mkdir";

static bool tag_known(const char *tag, size_t len)
{
	for (const char *p = known_tags; *p;) {
		size_t l = strcspn(p, " ");

		if (l == len && !strncmp(p, tag, l))
			return true;
		p += l;
		p += strspn(p, " ");
	}
	return false;
}

/* Every tag in list (separated by any of seps) is known; else report. */
static bool tags_valid(const char *what, const char *list, const char *seps)
{
	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, seps);

		if (l && !tag_known(p, l)) {
			fprintf(stderr, "dentrace: %s: unknown tag '%.*s' "
					"(known: %s)\n", what, (int)l, p,
				known_tags);
			return false;
		}
		p += l;
		p += strspn(p, seps);
	}
	return true;
}

static void usage(const struct dt_test *t, FILE *f)
{
	fprintf(f,
		"%s: %s\n"
		"usage: %s --target TARGET [options]\n"
		"  -t, --target SPEC    directory (/path, posix:/path) or\n"
		"                       nfs://host/export?version=3|4 (env DT_TARGET)\n"
		"  -c, --case A,B       run only these cases\n"
		"  -T, --tags A,B       run only if the test has one of these tags\n"
		"  -n, --threads N      workers per host (1..1024)\n"
		"  -d, --duration S     seconds of load per case (0 < S <= 86400)\n"
		"  -i, --iterations N   bound on loop iterations per worker\n"
		"  -s, --seed N         PRNG seed (default: time based, printed)\n"
		"      --timeout S      hard timeout per case in seconds\n"
		"      --op-timeout S   watchdog: one op stuck this long fails\n"
		"      --xfail FILE     expected-failure list (TAP TODO)\n"
		"      --coord A:P      join the coordinator of a multi-host run\n"
		"      --token-file F   the run token for --coord (required with it)\n"
		"      --host-name N    this host's unique name in the run\n"
		"      --run-id ID      the run's id (as the coordinator knows it)\n"
		"      --history-dir D  write the history of a failed case to D\n"
		"      --check-history[=stale:MS[,skew:MS]]\n"
		"                       judge each case's whole history with the\n"
		"                       general checker (env DT_CHECK_HISTORY)\n"
		"      --init-target    mark an EMPTY directory as a dentrace target\n"
		"  -l, --list           list cases and tags\n"
		"  -q, --quiet          YAML blocks only for failures\n"
		"  -h, --help\n"
		"tags: %s\n"
		"exit: 0 pass, 1 fail, 2 broken, 3 all skipped, 64 usage, 65 target\n",
		t->name, t->desc, t->name, t->tags ? t->tags : "");
}

static int parse_long(const char *opt, const char *s, long lo, long hi,
		      long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "dentrace: %s '%s': must be an integer in "
				"%ld..%ld\n", opt, s, lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_secs(const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 86400) {
		fprintf(stderr, "dentrace: %s '%s': must be seconds in "
				"(0, 86400]\n", opt, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* --init-target: mark an empty POSIX directory as a dentrace target. */
static int init_target(const struct dt_target *tgt)
{
	struct dt_conn *c;
	struct dt_dirlist l = { 0 };
	int rc = tgt->ops->connect(tgt, &c);

	if (rc < 0) {
		fprintf(stderr, "dentrace: connect to %s: %s\n", tgt->spec,
			dt_strerr(rc));
		return DT_EXIT_TARGET;
	}
	rc = tgt->ops->readdir(c, "", &l);
	size_t n = l.n;
	bool marked = false;
	for (size_t i = 0; i < l.n; i++)
		marked |= !strcmp(l.ent[i].name, DT_TARGET_MARKER);
	dt_dirlist_free(&l);
	if (rc < 0 || (n && !marked)) {
		fprintf(stderr, "dentrace: refusing to mark %s: %s\n",
			tgt->spec, rc < 0 ? dt_strerr(rc) : "not empty");
		tgt->ops->disconnect(c);
		return DT_EXIT_TARGET;
	}
	rc = marked ? 0 : tgt->ops->create(c, DT_TARGET_MARKER, true, NULL);
	tgt->ops->disconnect(c);
	if (rc < 0) {
		fprintf(stderr, "dentrace: create marker in %s: %s\n",
			tgt->spec, dt_strerr(rc));
		return DT_EXIT_TARGET;
	}
	printf("%s is a dentrace target\n", tgt->spec);
	return 0;
}

/* Connect once in a bounded child: check the marker, sweep dead runs. */
static int prepare_target(const struct dt_target *tgt)
{
	pid_t p;
	int status;

	fflush(stdout);
	p = fork();
	if (p == 0) {
		struct dt_conn *c;
		int rc;

		setpgid(0, 0);
		rc = tgt->ops->connect(tgt, &c);
		if (rc < 0) {
			printf("Bail out! cannot reach target %s: %s\n",
			       tgt->spec, dt_strerr(rc));
			_exit(DT_EXIT_TARGET);
		}
		rc = check_target_marker(tgt, c);
		if (rc < 0) {
			printf("Bail out! %s is not a dentrace target (no %s: "
			       "%s); refusing to write there. Mark an empty "
			       "directory with --init-target\n",
			       tgt->spec, DT_TARGET_MARKER, dt_strerr(rc));
			_exit(DT_EXIT_TARGET);
		}
		sweep_dead_scratch(tgt, c);
		char probe[DT_PATH_MAX];

		rc = probe_writable(tgt, c, probe, sizeof(probe));
		if (rc < 0) {
			printf("Bail out! target %s is not writable (mkdir %s: "
			       "%s)\n", tgt->spec, probe, dt_strerr(rc));
			_exit(DT_EXIT_TARGET);
		}
		fflush(stdout);
		tgt->ops->disconnect(c);
		_exit(0);
	}
	if (p < 0)
		return DT_EXIT_BROKEN;
	status = wait_deadline(p, dt_now_ns() + 30ull * 1000000000ull, true);
	if (status < 0) {
		kill_group(p);
		printf("Bail out! target %s did not answer within 30 s\n",
		       tgt->spec);
		return DT_EXIT_TARGET;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : DT_EXIT_BROKEN;
}

/*
 * Join the coordinator: the run's host index, host count and seed replace
 * ours.  The handle is used by the case children one at a time.
 */
static int join_run(const struct dt_test *t, struct options *o)
{
	struct dt_coord_info info;
	char token[DT_COORD_TOKEN_LIMIT + 1], name[128];
	int rc;

	if (!o->coord || !o->token_file) {
		printf("Bail out! --coord and --token-file go together\n");
		return DT_EXIT_USAGE;
	}
	rc = dt_coord_read_token(o->token_file, token, sizeof(token));
	if (rc < 0) {
		printf("Bail out! run token %s: %s\n", o->token_file,
		       dt_strerr(rc));
		return DT_EXIT_USAGE;
	}
	if (!o->host_name) {
		snprintf(name, sizeof(name), "%s/%d", short_hostname(),
			 (int)getpid());
		o->host_name = name;
	}
	rc = dt_coord_join(o->coord, token, o->run_id ? o->run_id : "run",
			   t->name, "*", o->host_name, o->threads,
			   &dt_coord_handle, &info);
	if (rc < 0) {
		printf("Bail out! joining the run at %s as %s: %s\n",
		       o->coord, o->host_name, dt_coord_error(NULL));
		return DT_EXIT_BROKEN;
	}
	o->host = info.host;
	o->nhosts = info.hosts;
	o->seed = info.seed;
	printf("# joined %s as host %d of %d (%s)\n", o->coord, info.host,
	       info.hosts, o->host_name);
	return 0;
}

/* --check-history / DT_CHECK_HISTORY: false (after saying why) if bad */
static bool check_spec(const char *what, const char *spec, struct options *o)
{
	int rc = dt_check_parse_spec(spec, &o->check_opts);

	if (rc < 0) {
		fprintf(stderr, "dentrace: %s=%s: want on, off or "
			"stale:MS[,skew:MS]\n", what, spec ? spec : "");
		return false;
	}
	o->check_history = rc > 0;
	return true;
}

int dt_main(const struct dt_test *t, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "target", required_argument, NULL, 't' },
		{ "case", required_argument, NULL, 'c' },
		{ "tags", required_argument, NULL, 'T' },
		{ "threads", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "seed", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 1 },
		{ "op-timeout", required_argument, NULL, 2 },
		{ "xfail", required_argument, NULL, 3 },
		{ "hang-op", required_argument, NULL, 5 },
		{ "init-target", no_argument, NULL, 6 },
		{ "coord", required_argument, NULL, 7 },
		{ "token-file", required_argument, NULL, 8 },
		{ "host-name", required_argument, NULL, 9 },
		{ "run-id", required_argument, NULL, 10 },
		{ "history-dir", required_argument, NULL, 11 },
		{ "check-history", optional_argument, NULL, 12 },
		{ "list", no_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct options o = { .target = getenv("DT_TARGET"), .nhosts = 1 };
	struct dt_target tgt;
	char err[256];
	bool do_init = false, check_given = false;
	long v;
	int opt, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	o.seed = dt_realtime_ns() ^ ((uint64_t)getpid() << 32);
	while ((opt = getopt_long(argc, argv, "t:c:T:n:d:i:s:lqh", lopts,
				  NULL)) != -1) {
		switch (opt) {
		case 't': o.target = optarg; break;
		case 'c': o.cases = optarg; break;
		case 'T': o.tags = optarg; break;
		case 'n':
			if (parse_long("--threads", optarg, 1, 1024, &v))
				return DT_EXIT_USAGE;
			o.threads = (int)v;
			break;
		case 'd':
			if (parse_secs("--duration", optarg, &o.duration))
				return DT_EXIT_USAGE;
			break;
		case 'i':
			if (parse_long("--iterations", optarg, 1, LONG_MAX,
				       &o.iterations))
				return DT_EXIT_USAGE;
			break;
		case 's':
			if (parse_long("--seed", optarg, 0, LONG_MAX, &v))
				return DT_EXIT_USAGE;
			o.seed = (uint64_t)v;
			break;
		case 1:
			if (parse_long("--timeout", optarg, 1, 86400, &v))
				return DT_EXIT_USAGE;
			o.timeout = (int)v;
			break;
		case 2:
			if (parse_secs("--op-timeout", optarg, &o.op_timeout))
				return DT_EXIT_USAGE;
			break;
		case 3: o.xfail = optarg; break;
		case 5: o.hang_op = optarg; break;
		case 6: do_init = true; break;
		case 7: o.coord = optarg; break;
		case 8: o.token_file = optarg; break;
		case 9: o.host_name = optarg; break;
		case 10: o.run_id = optarg; break;
		case 11: o.history_dir = optarg; break;
		case 12:
			if (!check_spec("--check-history", optarg, &o))
				return DT_EXIT_USAGE;
			check_given = true;
			break;
		case 'l': o.list = true; break;
		case 'q': o.quiet = true; break;
		case 'h': usage(t, stdout); return 0;
		default: usage(t, stderr); return DT_EXIT_USAGE;
		}
	}
	/* the option wins over the environment, also to turn it off */
	if (!check_given && getenv("DT_CHECK_HISTORY") &&
	    !check_spec("DT_CHECK_HISTORY", getenv("DT_CHECK_HISTORY"), &o))
		return DT_EXIT_USAGE;
	if (optind < argc) {
		fprintf(stderr, "dentrace: %s: unexpected argument '%s'\n",
			t->name, argv[optind]);
		return DT_EXIT_USAGE;
	}
	if (!tags_valid(t->name, t->tags, " ") ||
	    !tags_valid("--tags", o.tags, ", "))
		return DT_EXIT_USAGE;
	if (o.list) {
		for (const struct dt_case *c = t->cases; c->name; c++)
			printf("%s.%s\t%s\n", t->name, c->name,
			       t->tags ? t->tags : "");
		return 0;
	}
	/* validate the case list before touching any target */
	int ncases = 0;
	for (const char *p = o.cases; p && *p;) {
		size_t l = strcspn(p, ",");
		bool known = false;

		for (const struct dt_case *c = t->cases; c->name; c++)
			known |= strlen(c->name) == l &&
				 !strncmp(c->name, p, l);
		if (!known) {
			fprintf(stderr, "dentrace: %s: unknown case '%.*s' "
					"(see --list)\n", t->name, (int)l, p);
			return DT_EXIT_USAGE;
		}
		p += l;
		p += strspn(p, ",");
	}
	for (const struct dt_case *c = t->cases; c->name; c++)
		ncases += !o.cases || in_list(o.cases, c->name);
	if (o.xfail && access(o.xfail, R_OK) < 0) {
		fprintf(stderr, "dentrace: --xfail %s: %s\n", o.xfail,
			strerror(errno));
		return DT_EXIT_USAGE;
	}
	if (!o.coord != !o.token_file) {
		fprintf(stderr, "dentrace: --coord and --token-file go "
				"together\n");
		return DT_EXIT_USAGE;
	}
	if (!o.target) {
		fprintf(stderr, "dentrace: %s: no target: give --target or "
				"DT_TARGET\n", t->name);
		return DT_EXIT_USAGE;
	}
	if (dt_target_parse(o.target, &tgt, err, sizeof(err)) < 0) {
		fprintf(stderr, "dentrace: %s\n", err);
		return DT_EXIT_TARGET;
	}
	if (do_init)
		return init_target(&tgt);

	printf("TAP version 13\n");
	if (!tags_match(t, o.tags)) {
		printf("1..0 # SKIP %s has none of the tags %s\n", t->name,
		       o.tags);
		return DT_EXIT_SKIP;
	}
	dt_op_timeout = o.op_timeout;
	dt_shared = mmap(NULL, sizeof(*dt_shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (dt_shared == MAP_FAILED) {
		printf("Bail out! mmap: %s\n", strerror(errno));
		return DT_EXIT_BROKEN;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	rc = prepare_target(&tgt);
	if (rc)
		return rc;
	if (o.coord || o.token_file) {
		rc = join_run(t, &o);
		if (rc)
			return rc;
	}
	printf("1..%d\n", ncases);
	printf("# %s on %s, seed %llu\n", t->name, tgt.spec,
	       (unsigned long long)o.seed);
	int num = 0, worst = -1;
	static const int rank[] = { [DT_PASS] = 1, [DT_SKIP] = 0,
				    [DT_BROKEN] = 2, [DT_FAIL] = 3 };
	for (const struct dt_case *c = t->cases; c->name; c++) {
		if (o.cases && !in_list(o.cases, c->name))
			continue;
		if (interrupted) {
			printf("Bail out! interrupted by signal %d\n",
			       interrupted);
			return DT_EXIT_BROKEN;
		}
		if (coord_lost) {
			printf("not ok %d - %s.%s # BROKEN: coordination lost "
			       "(%s)\n", ++num, t->name, c->name, coord_lost);
			worst = DT_BROKEN;
			continue;
		}
		int out = run_case(++num, t, c, &tgt, &o);
		if (worst < 0 || rank[out] > rank[worst])
			worst = out;
	}
	if (dt_coord_handle)
		dt_coord_leave(dt_coord_handle);
	if (interrupted) {
		printf("Bail out! interrupted by signal %d\n", interrupted);
		return DT_EXIT_BROKEN;
	}
	if (worst < 0 || worst == DT_PASS)
		return DT_EXIT_PASS;
	return worst == DT_FAIL ? DT_EXIT_FAIL
	       : worst == DT_BROKEN ? DT_EXIT_BROKEN : DT_EXIT_SKIP;
}
