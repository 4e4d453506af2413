/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Worker pool, watchdog and recorded operations.
 *
 * Workers connect first, then wait at a barrier; the main thread releases
 * them together.  Each recorded op publishes what it is doing in the
 * worker's slot; the watchdog thread scans the slots and turns an op stuck
 * past the limit into a failure with evidence, then ends the case: a stuck
 * thread cannot be joined, so waiting for it would only turn a hang with
 * evidence into a hang without.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/internal.h"

const char *dt_hang_op;
const char *dt_inject_op;
static int injected;	/* --inject-failure OP@CASE: done once per case */
double dt_op_timeout;

struct pool {
	struct dt_run *r;
	struct dt_worker *w;
	int n;
	dt_worker_fn fn;
	pthread_barrier_t ready, go, round;
	volatile bool round_go[2];	/* worker 0's decision, double-buffered */
	volatile int stop;
	volatile int watchdog_exit;
	uint64_t deadline_ns;		/* monotonic */
	int connect_err;
	int connect_failed_id;
};

static struct pool *current_pool;
static struct dt_worker setup_worker;

/*
 * The case's main thread outside the worker pool: the harness's own
 * steps on the target (connect, the scratch directory's mkdir and
 * removal) and the test's setup, run and cleanup ops (dt_setup_worker)
 * are watched too, by a watchdog that lives as long as the case process:
 * a hung mkdir in setup fails the case naming it, like a worker's op.
 */
static struct {
	/*
	 * lock guards phase, op and path: held only to write or copy them,
	 * never across the step itself, so a stuck step never holds it
	 */
	pthread_mutex_t lock;
	const char *phase;		/* "setup", "run", "cleanup" */
	const char *op;			/* a harness step in progress, or NULL */
	char path[DT_PATH_MAX];
	uint64_t start_ns;
} step = { .lock = PTHREAD_MUTEX_INITIALIZER };

uint64_t dt_rand(uint64_t *s)
{
	/* splitmix64: tiny, good enough to pick names */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void dt_workers_init_run(struct dt_run *r)
{
	/* the case's oracles run on this thread: count every violation */
	dt_failsum_watch_oracles();
	setup_worker.conn = r->conn;
}

void dt_workers_fini_run(struct dt_run *r)
{
	(void)r;
	dt_history_free(&setup_worker.hist);
}

struct dt_worker *dt_setup_worker(struct dt_run *r)
{
	(void)r;
	return &setup_worker;
}

bool dt_worker_continue(struct dt_worker *w, long i)
{
	struct pool *p = current_pool;

	if (i >= w->run->iterations)
		return false;
	if (!p)
		return true;
	return !__atomic_load_n(&p->stop, __ATOMIC_RELAXED) &&
	       dt_now_ns() < p->deadline_ns;
}

bool dt_worker_round(struct dt_worker *w, long round)
{
	struct pool *p = current_pool;

	/*
	 * Worker 0 writes the decision for this round before the barrier;
	 * the barrier orders it before every read.  Two slots, because worker
	 * 0 may write the next call's decision while others still read this
	 * one's.  The slot follows the number of calls, not the round number,
	 * so a test may sync several times within one round.
	 */
	unsigned slot = w->nsync++ & 1;
	bool go = false;

	if (w->id == 0)
		go = dt_worker_continue(w, round);
	if (dt_mh_active()) {
		/* all hosts play the round only if every host wants to */
		pthread_barrier_wait(&p->round);
		if (w->id == 0)
			p->round_go[slot] = dt_mh_agree(w->run, go);
	} else if (w->id == 0) {
		p->round_go[slot] = go;
	}
	pthread_barrier_wait(&p->round);
	return p->round_go[slot];
}

void dt_worker_sync(struct dt_worker *w)
{
	struct pool *p = current_pool;

	pthread_barrier_wait(&p->round);
	if (dt_mh_active()) {
		if (w->id == 0)
			dt_mh_barrier(w->run, "sync");
		pthread_barrier_wait(&p->round);
	}
}

void dt_workers_stop(struct dt_run *r)
{
	(void)r;
	if (current_pool)
		__atomic_store_n(&current_pool->stop, 1, __ATOMIC_RELAXED);
}

/* ---- watchdog ---------------------------------------------------------- */

static double op_limit_s(struct dt_run *r)
{
	if (dt_op_timeout > 0)
		return dt_op_timeout;
	/* half the case timeout leaves the parent time to report */
	int t = r->test->timeout ? r->test->timeout : 60;
	return t / 2.0;
}

/* an op stuck past the limit: fail the case naming it, with stacks */
__attribute__((noreturn))
static void stuck(struct dt_run *r, const char *who, const char *op,
		  const char *path, uint64_t for_ns, const char *thread)
{
	char *stacks = malloc(16384);

	dt_fail(r, op, "op returns", dt_fmt("stuck for %.1f s",
					     (double)for_ns / 1e9),
		"%s stuck in %s %s", who, op, path);
	dt_diag(r, "stuck_thread", "%s", thread);
	dt_diag(r, "stuck_op", "%s %s", op, path);
	if (stacks) {
		dt_collect_stacks(getpid(), 0, stacks, 16384);
		dt_diag_block("kernel_stacks", stacks);
	}
	dt_case_exit(DT_FAIL);
}

static void *main_watchdog(void *arg)
{
	struct dt_run *r = arg;
	uint64_t limit = (uint64_t)(op_limit_s(r) * 1e9);

	for (;;) {
		uint64_t now = dt_now_ns();
		uint64_t st = __atomic_load_n(&step.start_ns, __ATOMIC_ACQUIRE);
		const char *op, *phase;
		char path[DT_PATH_MAX];
		struct dt_worker *w = &setup_worker;

		pthread_mutex_lock(&step.lock);
		op = step.op;
		phase = step.phase;
		snprintf(path, sizeof(path), "%s", step.path);
		pthread_mutex_unlock(&step.lock);
		/* as below: only an op that stays the same op counts */
		if (op && st && st <= now && now - st >= limit &&
		    __atomic_load_n(&step.start_ns, __ATOMIC_ACQUIRE) == st)
			stuck(r, dt_fmt("the case's main thread (tid %d), in "
					"its %s,", (int)w->tid, phase),
			      op, path, now - st, "main");
		st = __atomic_load_n(&w->op_start_ns, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&w->busy, __ATOMIC_ACQUIRE) && st &&
		    st <= now && now - st >= limit &&
		    __atomic_load_n(&w->op_start_ns, __ATOMIC_ACQUIRE) == st)
			stuck(r, dt_fmt("the case's main thread (tid %d), in "
					"its %s,", (int)w->tid, phase),
			      dt_op_name(w->op), w->op_path, now - st, "main");
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

void dt_case_watch(struct dt_run *r)
{
	pthread_t t;

	memset(&setup_worker, 0, sizeof(setup_worker));
	setup_worker.run = r;
	setup_worker.id = 0xffff;
	setup_worker.rng = r->seed ^ 0x5e7u;
	setup_worker.tid = (pid_t)syscall(SYS_gettid);
	dt_case_phase("setup");
	/* the case process ends with _exit: the thread need not be joined */
	if (pthread_create(&t, NULL, main_watchdog, r) == 0)
		pthread_detach(t);
}

void dt_case_phase(const char *phase)
{
	pthread_mutex_lock(&step.lock);
	step.phase = phase;
	pthread_mutex_unlock(&step.lock);
}

void dt_step_begin(const char *op, const char *path)
{
	pthread_mutex_lock(&step.lock);
	snprintf(step.path, sizeof(step.path), "%s", path);
	step.op = op;
	pthread_mutex_unlock(&step.lock);
	__atomic_store_n(&step.start_ns, dt_now_ns(), __ATOMIC_RELEASE);
	if (dt_hang_op && !strcmp(dt_hang_op, op)) {
		/* debug knob (--hang-op): block like a lost server reply */
		for (;;)
			pause();
	}
}

void dt_step_end(void)
{
	__atomic_store_n(&step.start_ns, 0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&step.lock);
	step.op = NULL;
	pthread_mutex_unlock(&step.lock);
}

static void *watchdog(void *arg)
{
	struct pool *p = arg;
	uint64_t limit = (uint64_t)(op_limit_s(p->r) * 1e9);

	while (!__atomic_load_n(&p->watchdog_exit, __ATOMIC_ACQUIRE)) {
		uint64_t now = dt_now_ns();

		for (int i = 0; i < p->n; i++) {
			struct dt_worker *w = &p->w[i];
			uint64_t st = __atomic_load_n(&w->op_start_ns,
						      __ATOMIC_ACQUIRE);

			/*
			 * The worker may start a new op while we look: only
			 * an op that is busy, started before our clock read
			 * and still the same op afterwards counts.
			 */
			if (!__atomic_load_n(&w->busy, __ATOMIC_ACQUIRE) ||
			    !st || st > now || now - st < limit ||
			    __atomic_load_n(&w->op_start_ns,
					    __ATOMIC_ACQUIRE) != st)
				continue;
			stuck(p->r, dt_fmt("worker %d (tid %d)", w->id,
					   (int)w->tid),
			      dt_op_name(w->op), w->op_path, now - st,
			      dt_fmt("%d", w->id));
		}
		/* a 20 ms scan: cheap, and far below any op limit */
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* ---- the pool ---------------------------------------------------------- */

static void *worker_main(void *arg)
{
	struct dt_worker *w = arg;
	struct pool *p = current_pool;
	const struct dt_target *t = w->run->target;
	int rc;

	w->tid = (pid_t)syscall(SYS_gettid);
	rc = t->ops->connect(t, &w->conn);
	if (rc < 0) {
		__atomic_store_n(&p->connect_err, rc, __ATOMIC_RELAXED);
		__atomic_store_n(&p->connect_failed_id, w->id,
				 __ATOMIC_RELAXED);
		w->conn = NULL;
	}
	pthread_barrier_wait(&p->ready);
	pthread_barrier_wait(&p->go);
	if (w->conn && !p->connect_err)
		p->fn(w);
	if (w->conn)
		t->ops->disconnect(w->conn);
	return NULL;
}

void dt_run_workers(struct dt_run *r, int n, dt_worker_fn fn, void *arg)
{
	struct pool p = { .r = r, .n = n, .fn = fn };
	pthread_t *tids, wd;

	if (n <= 0 || n > 4096)
		dt_broken(r, "dt_run_workers: bad worker count %d", n);
	p.w = calloc((size_t)n, sizeof(*p.w));
	tids = calloc((size_t)n, sizeof(*tids));
	if (!p.w || !tids)
		dt_broken(r, "dt_run_workers: out of memory");
	pthread_barrier_init(&p.ready, NULL, (unsigned)n + 1);
	pthread_barrier_init(&p.go, NULL, (unsigned)n + 1);
	pthread_barrier_init(&p.round, NULL, (unsigned)n);
	current_pool = &p;
	for (int i = 0; i < n; i++) {
		struct dt_worker *w = &p.w[i];

		w->run = r;
		w->id = i;
		w->nworkers = n;
		w->gid = r->host * n + i;
		w->ngworkers = (r->nhosts > 0 ? r->nhosts : 1) * n;
		w->arg = arg;
		w->rng = r->seed ^ ((uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull);
		int rc = pthread_create(&tids[i], NULL, worker_main, w);
		if (rc)
			dt_broken(r, "pthread_create worker %d: %s", i,
				  strerror(rc));
	}
	pthread_create(&wd, NULL, watchdog, &p);
	pthread_barrier_wait(&p.ready);
	/*
	 * All connected (or failed to): release together, on every host at
	 * once in a multi-host run (the barrier spins to a common start).
	 */
	if (dt_mh_active()) {
		if (p.connect_err)
			dt_broken(r, "worker %d: connect to %s: %s",
				  p.connect_failed_id, r->target->spec,
				  dt_strerr(p.connect_err));
		dt_mh_barrier(r, "go");
	}
	p.deadline_ns = dt_now_ns() + (uint64_t)(r->duration * 1e9);
	pthread_barrier_wait(&p.go);
	for (int i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	__atomic_store_n(&p.watchdog_exit, 1, __ATOMIC_RELEASE);
	pthread_join(wd, NULL);
	current_pool = NULL;
	if (p.connect_err)
		dt_broken(r, "worker %d: connect to %s: %s",
			  p.connect_failed_id, r->target->spec,
			  dt_strerr(p.connect_err));

	/* merge: setup ops so far, then every worker's */
	struct dt_history fresh = { 0 };

	dt_history_move(&fresh, &setup_worker.hist);
	for (int i = 0; i < n; i++) {
		if (dt_history_move(&fresh, &p.w[i].hist) < 0)
			dt_broken(r, "merge histories: out of memory");
		dt_history_free(&p.w[i].hist);
	}
	/* across hosts: ship what this call recorded, get everyone's */
	if (dt_mh_active())
		dt_mh_exchange(r, &fresh);
	/*
	 * a caching client may show another host's change this late, and
	 * another host's clock may be off by the slack
	 */
	dt_history_widen_reads(&fresh, (int64_t)dt_read_widen_ns(r));
	if (dt_history_move(&r->hist, &fresh) < 0)
		dt_broken(r, "merge histories: out of memory");
	dt_history_sort(&r->hist);
	pthread_barrier_destroy(&p.ready);
	pthread_barrier_destroy(&p.go);
	pthread_barrier_destroy(&p.round);
	free(p.w);
	free(tids);
}

/* ---- recorded ops -------------------------------------------------------- */

static void op_begin(struct dt_worker *w, enum dt_opcode op, const char *path)
{
	/* op and op_path are read only once the op is stuck, i.e. still */
	__atomic_store_n(&w->op, (uint8_t)op, __ATOMIC_RELAXED);
	snprintf(w->op_path, sizeof(w->op_path), "%s", path);
	__atomic_store_n(&w->op_start_ns, dt_now_ns(), __ATOMIC_RELEASE);
	__atomic_store_n(&w->busy, 1, __ATOMIC_RELEASE);
	if (dt_hang_op && !strcmp(dt_hang_op, dt_op_name(op))) {
		/* debug knob (--hang-op): block like a lost server reply */
		for (;;)
			pause();
	}
}

static void op_end(struct dt_worker *w)
{
	__atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
}

static void record(struct dt_worker *w, enum dt_opcode op, uint8_t flags,
		   const char *name, const char *name2, int result,
		   uint64_t start, uint64_t end, uint64_t fileid,
		   struct dt_dirlist *list)
{
	struct dt_event e = {
		.host = (uint16_t)w->run->host,
		.thread = (uint16_t)w->id,
		.op = (uint8_t)op,
		.flags = flags,
		.result = result,
		.start_ns = start,
		.end_ns = end,
		.fileid = fileid,
		.list = list,
	};

	snprintf(e.name, sizeof(e.name), "%s", name);
	if (name2)
		snprintf(e.name2, sizeof(e.name2), "%s", name2);
	if (dt_history_add(&w->hist, &e) < 0)
		dt_broken(w->run, "recording history: out of memory");
	dt_count_progress();
}

/*
 * --inject-failure OP@CASE (self-test knob): this host's first OP of the
 * case fails with EIO without reaching the target, and the test counts it
 * as a failure of its own, as a test's check of a host-local result would.
 */
static bool inject_now(struct dt_worker *w, enum dt_opcode op)
{
	if (!dt_inject_op || strcmp(dt_inject_op, dt_op_name(op)) ||
	    __atomic_exchange_n(&injected, 1, __ATOMIC_RELAXED))
		return false;
	dt_fail(w->run, dt_op_name(op), "the op's own result",
		"EIO, injected", "--inject-failure %s@%s: this host's %s "
		"failed", dt_inject_op, w->run->tcase->name, dt_op_name(op));
	return true;
}

/*
 * Timestamps are CLOCK_REALTIME so histories of several hosts share one
 * time line (after the coordinator's offset correction).
 */
#define RECORDED_F(w, op, flags, path, path2, fileid_expr, call)	\
	({							\
		uint64_t t0_;					\
		int rc_;					\
		op_begin(w, op, path);				\
		t0_ = dt_realtime_ns();				\
		rc_ = inject_now(w, op) ? -EIO : (call);	\
		record(w, op, flags, path, path2, rc_, t0_,	\
		       dt_realtime_ns(), rc_ < 0 ? 0 : (fileid_expr), NULL); \
		op_end(w);					\
		rc_;						\
	})
#define RECORDED(w, op, path, path2, fileid_expr, call)		\
	RECORDED_F(w, op, 0, path, path2, fileid_expr, call)

#define OPS(w) ((w)->run->target->ops)

int dt_lookup(struct dt_worker *w, const char *path, struct dt_stat *st)
{
	struct dt_stat s = { 0 };
	int rc = RECORDED(w, DT_OP_LOOKUP, path, NULL, s.fileid,
			  OPS(w)->lookup(w->conn, path, &s));

	if (st)
		*st = s;
	return rc;
}

int dt_create(struct dt_worker *w, const char *path, bool excl,
	      struct dt_stat *st)
{
	struct dt_stat s = { 0 };
	/* the history checker judges EEXIST only for exclusive creates */
	int rc = RECORDED_F(w, DT_OP_CREATE, excl ? DT_EVF_EXCL : 0, path,
			    NULL, s.fileid,
			    OPS(w)->create(w->conn, path, excl, &s));

	if (st)
		*st = s;
	return rc;
}

int dt_mkdir(struct dt_worker *w, const char *path)
{
	return RECORDED(w, DT_OP_MKDIR, path, NULL, 0,
			OPS(w)->mkdir(w->conn, path));
}

int dt_rmdir(struct dt_worker *w, const char *path)
{
	return RECORDED(w, DT_OP_RMDIR, path, NULL, 0,
			OPS(w)->rmdir(w->conn, path));
}

int dt_unlink(struct dt_worker *w, const char *path)
{
	return RECORDED(w, DT_OP_UNLINK, path, NULL, 0,
			OPS(w)->unlink(w->conn, path));
}

int dt_rename(struct dt_worker *w, const char *from, const char *to)
{
	return RECORDED(w, DT_OP_RENAME, from, to, 0,
			OPS(w)->rename(w->conn, from, to));
}

int dt_rename_noreplace(struct dt_worker *w, const char *from, const char *to)
{
	if (!OPS(w)->rename_noreplace)
		return -EOPNOTSUPP;
	return RECORDED_F(w, DT_OP_RENAME, DT_EVF_NOREPLACE, from, to, 0,
			  OPS(w)->rename_noreplace(w->conn, from, to));
}

static int noreplace_probe(struct dt_run *r, char *why, size_t len);

int dt_rename_noreplace_supported(struct dt_run *r, char *why, size_t len)
{
	int rc = noreplace_probe(r, why, len);

	/*
	 * Every host probes before any acts on its answer: a leader that
	 * skips removes the shared scratch directory under a host still
	 * probing (make run 2026-12-04, kv3: that host's rename of its own
	 * probe file answered ENOENT).
	 */
	if (r->target->ops->rename_noreplace)
		dt_barrier(r, "noreplace-probe");
	return rc;
}

static int noreplace_probe(struct dt_run *r, char *why, size_t len)
{
	const struct dt_backend_ops *ops = r->target->ops;
	char a[DT_PATH_MAX], b[DT_PATH_MAX];
	struct dt_stat st;
	int rc, look;

	if (!ops->rename_noreplace) {
		snprintf(why, len, "backend %s has no RENAME_NOREPLACE (NFS "
			 "has no such call)", ops->name);
		return 0;
	}
	/* per host: the hosts of a run share the scratch directory */
	dt_pathbuf(r, a, sizeof(a), "noreplace.probe.%d", r->host);
	dt_pathbuf(r, b, sizeof(b), "noreplace.probe.%d.to", r->host);
	rc = ops->create(r->conn, a, true, NULL);
	if (rc < 0) {
		snprintf(why, len, "create %s: %s", a, dt_strerr(rc));
		return rc;
	}
	rc = ops->rename_noreplace(r->conn, a, b);
	if (rc == -ENOENT) {
		/*
		 * This host created a a moment ago and no other host touches
		 * it: a rename that finds no source is the target's
		 * inconsistency (a verdict with evidence), not a setup error.
		 */
		memset(&st, 0, sizeof(st));
		look = ops->lookup(r->conn, a, &st);
		dt_fail(r, "probe RENAME_NOREPLACE",
			"renameat2 of a file this host created a moment before "
			"(no other host touches it) succeeds, or answers EINVAL "
			"when unsupported", dt_fmt("ENOENT; a lookup of it right "
			"after: %s", look < 0 ? dt_strerr(look) :
			dt_fmt("present, fileid %llu",
			       (unsigned long long)st.fileid)),
			"rename(%s, %s, RENAME_NOREPLACE) = ENOENT", a, b);
		(void)ops->unlink(r->conn, a);
		snprintf(why, len, "the probe's rename of its own file answered "
			 "ENOENT (a failure above)");
		return DT_PROBE_FAILED;
	}
	(void)ops->unlink(r->conn, rc ? a : b);
	if (rc == -EINVAL) {
		snprintf(why, len, "the target answers EINVAL to renameat2 "
			 "RENAME_NOREPLACE of a file (Linux's NFS client has "
			 "no RENAME_NOREPLACE): unsupported, not a verdict on "
			 "the server");
		return 0;
	}
	if (rc < 0)
		snprintf(why, len, "rename(%s, %s, RENAME_NOREPLACE): %s", a,
			 b, dt_strerr(rc));
	return rc < 0 ? rc : 1;
}

int dt_link(struct dt_worker *w, const char *from, const char *to)
{
	return RECORDED(w, DT_OP_LINK, from, to, 0,
			OPS(w)->link(w->conn, from, to));
}

int dt_readdir(struct dt_worker *w, const char *path)
{
	struct dt_dirlist *l = calloc(1, sizeof(*l));
	uint64_t t0;
	int rc;

	if (!l)
		dt_broken(w->run, "readdir: out of memory");
	op_begin(w, DT_OP_READDIR, path);
	t0 = dt_realtime_ns();
	rc = OPS(w)->readdir(w->conn, path, l);
	uint64_t t1 = dt_realtime_ns();
	if (rc < 0) {
		dt_dirlist_free(l);
		free(l);
		l = NULL;
	}
	record(w, DT_OP_READDIR, 0, path, NULL, rc < 0 ? rc : (int)l->n, t0,
	       t1, 0, l);
	op_end(w);
	return rc < 0 ? rc : 0;
}

int dt_open(struct dt_worker *w, const char *path, int flags,
	    struct dt_file **f)
{
	/* with O_CREAT the open may change the name: the checker must know */
	uint8_t evf = (flags & O_CREAT ? DT_EVF_CREAT : 0) |
		      ((flags & O_CREAT) && (flags & O_EXCL) ? DT_EVF_EXCL : 0);

	return RECORDED_F(w, DT_OP_OPEN, evf, path, NULL, 0,
			  OPS(w)->open(w->conn, path, flags, f));
}

ssize_t dt_pread(struct dt_worker *w, struct dt_file *f, void *buf,
		 size_t len, uint64_t off)
{
	/* the request ("offset+length"), so the checker can compare reads */
	char req[48];

	snprintf(req, sizeof(req), "%llu+%zu", (unsigned long long)off, len);
	return RECORDED(w, DT_OP_READ, "", req, 0,
			(int)OPS(w)->pread(w->conn, f, buf, len, off));
}

int dt_close(struct dt_worker *w, struct dt_file *f)
{
	return RECORDED(w, DT_OP_CLOSE, "", NULL, 0,
			OPS(w)->close(w->conn, f));
}
