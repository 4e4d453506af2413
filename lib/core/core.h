/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Layer "core": the harness every test links, and the test-facing API.
 *
 * Offers main() of a test (dt_main: options, --list, --help, case
 * selection, one forked process group per case under a hard timeout, a
 * scratch directory per case that is always removed, TAP 13 with YAML),
 * the reporting calls of a case (dt_fail, dt_broken, dt_skip, dt_diag),
 * the workers and their watchdog, the recorded operations (dt_lookup,
 * dt_rename, ...) that build a case's history, multi-host runs (the glue
 * between a case and the coordinator) and the perf engine (perf.h).
 *
 * May call: every layer below (base, backend, check, coord, stats).
 * Inside core the calls go one way: main.c -> prepare.c, case.c ->
 * child.c, workers.c -> multihost.c -> report.c (t/arch/layers.sh checks it).
 */
#ifndef DT_CORE_H
#define DT_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend/backend.h"
#include "base/base.h"
#include "check/history.h"
#include "check/oracle.h"

/* ---- outcomes and exit statuses --------------------------------------- */

enum dt_outcome {
	DT_PASS = 0,	/* the system under test behaved */
	DT_FAIL = 1,	/* the system under test is wrong */
	DT_BROKEN = 2,	/* setup failed: no verdict on the system */
	DT_SKIP = 3,	/* feature or tier absent */
};

/*
 * Exit status of a test binary: the worst outcome of its cases
 * (FAIL > BROKEN > SKIP-only > PASS), or one of the usage statuses below.
 */
#define DT_EXIT_PASS	0
#define DT_EXIT_FAIL	1
#define DT_EXIT_BROKEN	2
#define DT_EXIT_SKIP	3	/* every selected case skipped */
#define DT_EXIT_USAGE	64	/* bad option, unknown case or tag */
#define DT_EXIT_TARGET	65	/* target URL or directory rejected */

/* loop bound per worker when --iterations is not given: keeps histories
 * (about 250 bytes an op) small on fast local targets */
#define DT_DEFAULT_ITERATIONS 20000

/* ---- test descriptors -------------------------------------------------- */

struct dt_run;

struct dt_case {
	const char *name;
	void (*run)(struct dt_run *r);
};

/* what a test needs from the backend */
#define DT_NEED_LINK	(1u << 0)
#define DT_NEED_OPEN	(1u << 1)	/* open/read/close */
#define DT_NEED_POSIX	(1u << 2)	/* only on a local/kernel path */

struct dt_test {
	const char *name;
	const char *desc;
	const char *tags;		/* space separated: quick race ... */
	const char *guards;		/* upstream fix this test guards, or NULL */
	unsigned needs;			/* DT_NEED_* */
	int threads;			/* default worker count */
	double duration;		/* default seconds of load per case */
	int timeout;			/* hard seconds per case (default 60) */
	const struct dt_case *cases;	/* terminated by { NULL } */
	/* optional: run in the case child before/after run() */
	void (*setup)(struct dt_run *r);
	void (*cleanup)(struct dt_run *r);
};

int dt_main(const struct dt_test *t, int argc, char **argv);

#define DT_TEST_MAIN(test_var)					\
	int main(int argc, char **argv)				\
	{							\
		return dt_main(&(test_var), argc, argv);	\
	}

/* ---- the run context of one case -------------------------------------- */

#define DT_MH_CLOCK_SLACK_NS	(5 * 1000 * 1000ull)	/* = lab/dtexec's skew:5 */

struct dt_run {
	const struct dt_test *test;
	const struct dt_case *tcase;
	const struct dt_target *target;
	struct dt_conn *conn;		/* the case's own connection */
	char scratch[DT_PATH_MAX];	/* relative to the target root */
	/* when this host made the scratch dir (start, end; 0: it did not) */
	uint64_t scratch_made_ns[2];
	int threads;			/* --threads or test default */
	double duration;		/* --duration or test default */
	long iterations;		/* --iterations: bound on loops */
	uint64_t seed;
	int host;			/* this host's index in a multi-host run */
	int nhosts;			/* hosts in the run (1 when alone) */
	int failures;			/* dt_fail calls so far */
	int timeout_s;			/* the case's hard timeout */
	/*
	 * Multi-host: how far apart two events of different hosts may truly
	 * be in the other order than their times say (the hosts' clocks are
	 * put on one time line by estimated offsets): the checker's skew
	 * (--check-history=...,skew:MS), else DT_MH_CLOCK_SLACK_NS; 0 alone.
	 * Reads are widened by it too (dt_read_widen_ns).
	 */
	uint64_t clock_slack_ns;
	/*
	 * How stale another host's changes may look here (ns): the mount's
	 * bound in a multi-host run on a caching client, else 0.  The reads
	 * dt_run_workers returns in hist are widened by it (their start is
	 * moved back: they may show any state since then), so that oracles
	 * judge a caching client by what its options allow.
	 */
	uint64_t stale_ns;
	struct dt_history hist;		/* merged history of the last workers */
	void *priv;			/* for the test */
	/* test-only debug knob (--hang-op) used to prove the watchdog */
	const char *hang_op;
	/* dt_same_tick's triples: name, mark1, mark2, ... (malloc'ed) */
	char **tick_names;
	size_t ntick_names;
};

/*
 * How far dt_run_workers moves the start of the reads it returns in
 * r->hist back: the stale bound plus the clock slack between hosts, so
 * that an oracle comparing a read with another host's change allows
 * both (the general checker gets the un-widened times and its own
 * stale and skew options).
 */
static inline uint64_t dt_read_widen_ns(const struct dt_run *r)
{
	return r->stale_ns + r->clock_slack_ns;
}

/*
 * Multi-host runs (--coord): every host runs the same case in the same
 * scratch directory.  The leader (host 0) creates and removes the scratch
 * directory and alone does the case's setup; the other hosts skip setup
 * (guard it with dt_leader()).  dt_run_workers() starts the workers of all
 * hosts together and leaves the merged history of all hosts in r->hist
 * (events carry their host), so every host's oracle judges the whole run.
 * Roles go by w->gid (e.g. gid 0 is the one writer of the run).  State
 * shared through memory (w->arg) is per host: never base a verdict on it.
 */
bool dt_leader(const struct dt_run *r);

/*
 * For the settle check (check/settle.h, dt_settle_same_tick): two hosts
 * change one directory at once, one making or moving the file mark1, the
 * other mark2.  A client that versions directories by the server's
 * timestamps cannot tell two changes in one tick of the server's clock
 * apart: the host whose change came first keeps its old answer for the
 * names the other change touched.  A disagreement on name is excused when
 * mark1 and mark2 carry one ctime (the check counts them), and judged
 * whenever their ticks differ.  NFSv3 mounts only: an NFSv4 client has
 * the server's change attribute (a counter on the lab's servers).  Call
 * it on every host alike, before the load.
 */
void dt_same_tick(struct dt_run *r, const char *name, const char *mark1,
		  const char *mark2);

/*
 * Values between the hosts of a multi-host run, for tests whose hosts play
 * different parts (e.g. one writer, several observers); all are no-ops
 * when alone, and a coordinator failure ends the case BROKEN naming it.
 * dt_barrier: every host arrives at name before any leaves.  dt_post:
 * this host's value under key (the case's own: keys of different cases
 * never meet).  dt_peek: host's value under key into buf (NUL-terminated,
 * truncated to len): 1 when it was posted, 0 not yet (it does not wait:
 * poll with a deadline, or meet at a barrier after the post).
 */
void dt_barrier(struct dt_run *r, const char *name);
void dt_post(struct dt_run *r, const char *key, const char *val);
int dt_peek(struct dt_run *r, int host, const char *key, char *buf,
	    size_t len);

/* Path inside the case's scratch dir: returns a static-per-thread buffer. */
const char *dt_path(struct dt_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same into a caller buffer. */
void dt_pathbuf(struct dt_run *r, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- reporting from a case -------------------------------------------- */

void dt_fail_at(struct dt_run *r, const char *file, int line, const char *op,
		const char *expected, const char *observed, const char *fmt,
		...) __attribute__((format(printf, 7, 8)));
#define dt_fail(r, op, exp, obs, ...) \
	dt_fail_at(r, __FILE__, __LINE__, op, exp, obs, __VA_ARGS__)

/* Report an oracle's verdict as a failure (no-op when v->violations == 0). */
void dt_fail_verdict_at(struct dt_run *r, const char *file, int line,
			const char *oracle, const struct dt_verdict *v);
#define dt_fail_verdict(r, oracle, v) \
	dt_fail_verdict_at(r, __FILE__, __LINE__, oracle, v)

/* End the case as BROKEN (setup failed) or SKIP.  Do not return. */
__attribute__((noreturn, format(printf, 4, 5)))
void dt_broken_at(struct dt_run *r, const char *file, int line,
		  const char *fmt, ...);
#define dt_broken(r, ...) dt_broken_at(r, __FILE__, __LINE__, __VA_ARGS__)
__attribute__((noreturn, format(printf, 2, 3)))
void dt_skip(struct dt_run *r, const char *fmt, ...);

/* A checked setup call: rc < 0 ends the case as BROKEN naming what. */
#define dt_must(r, rc, ...) do {					\
	long dt__rc = (rc);						\
	if (dt__rc < 0)							\
		dt_broken_at(r, __FILE__, __LINE__, "%s: %s",		\
			     dt_fmt(__VA_ARGS__), dt_strerr((int)dt__rc)); \
} while (0)

/* A diagnostic key: value line in the case's YAML block. */
void dt_diag(struct dt_run *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* dt_fmt() and dt_strerr() (base/base.h) make messages */

/* ---- workers ----------------------------------------------------------- */

struct dt_worker {
	struct dt_run *run;
	int id;				/* 0 .. n-1 on this host */
	int nworkers;			/* workers on this host */
	int gid;			/* run-wide: host * nworkers + id */
	int ngworkers;			/* run-wide: nhosts * nworkers */
	struct dt_conn *conn;		/* the worker's own connection */
	struct dt_history hist;		/* what this worker's ops saw */
	uint64_t rng;			/* per-worker PRNG state */
	void *arg;
	/* watchdog slot: the op in flight */
	volatile int busy;
	volatile uint64_t op_start_ns;
	volatile uint8_t op;
	char op_path[DT_EV_NAME];
	pid_t tid;
	uint64_t deadline_ns;
	unsigned long nsync;		/* dt_worker_round calls so far */
};

typedef void (*dt_worker_fn)(struct dt_worker *w);

/*
 * Start n workers, each with its own connection, release them together
 * from a barrier, wait for all, and merge their histories into r->hist
 * (sorted by start time).  A worker stuck in one op longer than the
 * watchdog limit fails the case with the op, thread, time stuck and (for
 * POSIX targets) kernel stacks.
 */
void dt_run_workers(struct dt_run *r, int n, dt_worker_fn fn, void *arg);

/* Loop bound: false once the run's duration passed or i >= iterations. */
bool dt_worker_continue(struct dt_worker *w, long i);
/*
 * Lock-step rounds: every worker calls dt_worker_round(w, k) for k = 0, 1,
 * ...; it waits until all workers arrived and returns the same answer to
 * all of them: true to play round k, false when the run is over (worker 0
 * decides from the duration and iteration bounds).  Workers released from
 * one round start it together.  Every worker must call it the same way.
 */
bool dt_worker_round(struct dt_worker *w, long round);
/*
 * A barrier inside a round: every worker of the run (all hosts) waits for
 * the others, and nobody ends the run here.  Use it between a round's
 * setup and its race.
 */
void dt_worker_sync(struct dt_worker *w);
/* Ask every worker of the current run to stop (e.g. the writer is done). */
void dt_workers_stop(struct dt_run *r);
uint64_t dt_rand(uint64_t *state);

/*
 * Recorded ops: call the backend on the worker's connection, record the
 * event in w->hist, keep the watchdog informed.  Return as the backend.
 */
int dt_lookup(struct dt_worker *w, const char *path, struct dt_stat *st);
int dt_create(struct dt_worker *w, const char *path, bool excl,
	      struct dt_stat *st);
int dt_mkdir(struct dt_worker *w, const char *path);
int dt_rmdir(struct dt_worker *w, const char *path);
int dt_unlink(struct dt_worker *w, const char *path);
int dt_rename(struct dt_worker *w, const char *from, const char *to);
/*
 * rename that must fail with EEXIST when to exists (RENAME_NOREPLACE),
 * recorded as "rename!"; -EOPNOTSUPP (nothing recorded) when the backend
 * has no such call.  A target that does not do the flag answers EINVAL
 * (Linux's NFS client): see dt_rename_noreplace_supported().
 */
int dt_rename_noreplace(struct dt_worker *w, const char *from, const char *to);
/*
 * Does the target do RENAME_NOREPLACE?  Probes it once in the case's
 * scratch directory (unrecorded, like setup): 1 yes, 0 no (*why says
 * why: no backend call, or EINVAL from the target), -errno when the
 * probe could not run (*why names the step), or DT_PROBE_FAILED when the
 * target's answer was itself inconsistent (the rename of the file the
 * probe had just created found no such file): the case has failed with
 * the evidence; end it.
 */
#define DT_PROBE_FAILED	(-100000)
int dt_rename_noreplace_supported(struct dt_run *r, char *why, size_t len);
int dt_link(struct dt_worker *w, const char *from, const char *to);
int dt_readdir(struct dt_worker *w, const char *path);	/* records list */
int dt_open(struct dt_worker *w, const char *path, int flags,
	    struct dt_file **f);
ssize_t dt_pread(struct dt_worker *w, struct dt_file *f, void *buf,
		 size_t len, uint64_t off);
int dt_close(struct dt_worker *w, struct dt_file *f);

/*
 * The setup worker: recorded ops from the case's main thread (thread id
 * 0xffff) go into r->hist via this pseudo-worker.
 */
struct dt_worker *dt_setup_worker(struct dt_run *r);

#endif /* DT_CORE_H */
