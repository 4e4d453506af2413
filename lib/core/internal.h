/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Symbols shared between the files of core; tests do not use these. */
#ifndef DT_CORE_INTERNAL_H
#define DT_CORE_INTERNAL_H

#include <signal.h>
#include <stdio.h>

#include "check/histcheck.h"
#include "core/core.h"

/* ---- report.c: what a case child leaves for its parent ------------------ */

/*
 * It lives in a MAP_SHARED mapping created before fork(), so it survives
 * the child being killed.
 */
#define DT_DIAG_MAX (64 * 1024)
#define DT_FAIL_MAX (16 * 1024)

struct dt_shared {
	int outcome;			/* enum dt_outcome */
	int failures;
	char reason[512];		/* skip/broken reason for the TAP line */
	size_t diag_len;
	char diag[DT_DIAG_MAX];		/* YAML lines, already indented */
	/*
	 * The "failures:" list apart from the other keys: a failure found
	 * after a diag line (the history checker runs after the test's own
	 * oracles) must still land in the one list, or the YAML breaks.
	 */
	size_t fail_len;
	char fail[DT_FAIL_MAX];
	/* set while the case waits at a multi-host barrier (multihost.c) */
	char waiting_at[256];
	uint64_t waiting_since_ns;	/* dt_now_ns() when it began */
	int coord_synced;		/* coord_sync holds the child's state */
	int mh_done;			/* passed the case's last barrier */
	unsigned char coord_sync[256];
	/* for the parent's wait (reap.c): progress, and a child that ended */
	uint64_t ops;			/* recorded ops and settle reads */
	uint64_t exit_ns;		/* dt_now_ns() at dt_case_exit */
};

extern struct dt_shared *dt_shared;	/* valid inside a case child */

/*
 * One more op done, for the parent's "# still running" lines and its
 * verdict at the timeout (ops lately: out of time, not hung)
 */
static inline void dt_count_progress(void)
{
	if (dt_shared)
		__atomic_add_fetch(&dt_shared->ops, 1, __ATOMIC_RELAXED);
}
/* the run's coordinator connection; NULL when alone (multihost.c uses it) */
struct dt_coord;
extern struct dt_coord *dt_coord_handle;

/* Append text to the case's YAML block (thread-safe, truncates). */
void dt_diag_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Append a multi-line string as a YAML literal block under key. */
void dt_diag_block(const char *key, const char *text);
/* s YAML-quoted into a rotating thread-local buffer */
const char *dt_yaml_quote(const char *s);
/* Finish a case child now with the given outcome (flushes nothing else). */
__attribute__((noreturn)) void dt_case_exit(int outcome);

/* failures summarized by kind (failsum.c), rendered by dt_case_exit */
void dt_failsum_watch_oracles(void);	/* this thread's oracles */
void dt_failsum_add(const char *kind, long times, const char *example);
void dt_failsum_fail(const char *op, const char *observed, const char *msg);
void dt_failsum_verdict(const char *oracle, const struct dt_verdict *v);
void dt_failsum_each(void (*fn)(const char *kind, long count,
				const char *first, const char *last,
				void *arg),
		     long *other, void *arg);
/* failure_summary YAML of the kinds so far (report.c) */
void dt_failsum_render(void);

/* ---- multihost.c: multi-host runs; all end the case BROKEN on failure --- */

bool dt_mh_active(void);
void dt_mh_barrier(struct dt_run *r, const char *step);
/* settle.c: after a multi-host case's load, all hosts' views must agree */
void dt_settle(struct dt_run *r, bool off, bool lie);
bool dt_mh_agree(struct dt_run *r, bool go);
void dt_mh_share_scratch(struct dt_run *r);
void dt_mh_exchange(struct dt_run *r, struct dt_history *h);
void dt_mh_report_skew(struct dt_run *r);
/*
 * The hosts' own judgments for the agreement mode: every host posts how
 * often its test failed in this case (its oracles and checks, before the
 * checker); after a barrier every host passed since, the leader sums
 * them: the sum, and in *posted how many hosts' counts for this case were
 * there (a host of an older build posts none), in by_host the hosts that
 * failed ("host 1: 3, host 2: 1").
 */
void dt_mh_post_failures(struct dt_run *r, int failures);
int dt_mh_sum_failures(struct dt_run *r, int *posted, char *by_host,
		       size_t len);
/*
 * The harness's side, between cases: start case number epoch with the
 * hosts still in the run (-1: coordination lost, dt_coord_lost says why;
 * else *host and *nhosts are this host's rank and their count, for the
 * case); note how a case ended that did not pass its last barrier (sent
 * with the next case start); a case process lost inside a call: come
 * back on a new connection (or leave, coordination lost); the run's end.
 */
int dt_mh_case_start(uint64_t epoch, const char *tcase, int *host,
		     int *nhosts);
void dt_mh_case_ended(const char *why);
void dt_mh_case_lost(const char *why);
void dt_mh_finish(void);
/* A coordinator connection lost by a killed case ("why"), or NULL. */
extern const char *dt_coord_lost;

/* ---- workers.c ---------------------------------------------------------- */

extern double dt_op_timeout;		/* seconds an op may take (watchdog) */
extern const char *dt_hang_op;		/* --hang-op debug knob */
/* --inject-failure OP@CASE self-test knob: the op this case fails, or NULL */
extern const char *dt_inject_op;
/*
 * The case's main thread is watched from the start of the case process
 * (dt_case_watch): the op limit holds for the harness's own steps on the
 * target (dt_step_begin/end: connect, mkdir, remove; --hang-op names
 * them too) and for the setup worker's ops, in every phase.
 */
void dt_case_watch(struct dt_run *r);
void dt_case_phase(const char *phase);
void dt_step_begin(const char *op, const char *path);
void dt_step_end(void);
void dt_workers_init_run(struct dt_run *r);
void dt_workers_fini_run(struct dt_run *r);

/* ---- the options of a run (main.c parses them, case.c uses them) ------- */

struct dt_options {
	const char *target;
	const char *cases;		/* comma separated, NULL = all */
	const char *tags;		/* comma separated, NULL = any */
	const char *xfail;		/* expected-failure list file */
	const char *label;		/* --label: the target's report name */
	const char *hang_op;
	const char *inject_failure;	/* self-test knob: CASE or OP@CASE */
	const char *coord;		/* coordinator ADDR:PORT */
	const char *token_file;
	const char *host_name;		/* unique name of this host in the run */
	const char *run_id;
	const char *history_dir;	/* dump the history of failed cases */
	bool history_all;		/* ... and of the passed ones */
	bool check_history;		/* judge r.hist with dt_check_history */
	struct dt_check_opts check_opts;
	bool stale_auto;		/* checker's stale bound: the target's */
	uint64_t stale_ns;		/* the target's: other hosts' changes */
	char stale_why[768];		/* where the stale bound came from */
	int threads;
	double duration;
	long iterations;
	uint64_t seed;
	int timeout;
	double op_timeout;
	int host, nhosts;
	bool list, quiet;
	bool free_fuse;			/* abort the FUSE target's connection */
	bool no_settle;			/* --no-settle: skip dt_settle */
	bool settle_lie;		/* test-only: misreport one name */
};

/* ---- child.c: children of the harness, always waited for with a bound -- */

/* the signal that asked the run to stop (SIGINT/SIGTERM), or 0 */
extern volatile sig_atomic_t dt_interrupted;
void dt_catch_stop_signals(void);
/*
 * Wait for pid until deadline (monotonic ns).  Returns its wait status, or
 * -ETIMEDOUT, or -EINTR when we were told to stop (if interruptible).
 */
int dt_wait_deadline(pid_t pid, uint64_t deadline, bool interruptible);
/*
 * How long a killed child may take to die: SIGKILL to its process group,
 * then its exit is polled (pidfd, waitpid WNOHANG) for at most this long.
 * A child still there after it is stuck in the kernel: it is reported as
 * an unreapable leftover (reap.c) and the run goes on without it.  So a
 * test program ends within its case timeouts plus this grace per case.
 */
#define DT_REAP_GRACE_S 5
/*
 * A multi-host case still waiting at a barrier for another host when its
 * timeout comes waits this much longer: that host's case timed out too,
 * and it reports its hang once it killed the case (within the reap
 * grace), so the verdict here can name it.
 */
#define DT_MH_PEER_GRACE_S (2 * DT_REAP_GRACE_S)
/* SIGKILL pid's process group; true if it was reaped within grace_s */
bool dt_kill_group(pid_t pid, int grace_s);

/* ---- prepare.c: the target before the first case ------------------------ */

/* --init-target: mark an empty directory; returns an exit status */
int dt_init_target(const struct dt_target *tgt);
/* marker, sweep of dead runs' scratch, write probe; an exit status */
int dt_prepare_target(const struct dt_target *tgt);

/* ---- reap.c: children the target holds in the kernel ------------------- */

/* a long case says "# still running" this often */
#define DT_PROGRESS_S 10

/* a child's stdout/stderr, in memfds the parent copies (out < 0: none) */
struct dt_capture {
	int out, err;
	off_t out_done, err_done;
};
void dt_capture_open(struct dt_capture *c);
void dt_capture_child(struct dt_capture *c);
void dt_capture_flush(struct dt_capture *c);
void dt_capture_close(struct dt_capture *c);
/*
 * Wait for the case child (with progress lines) until deadline; as
 * dt_wait_deadline, and *stuck_exiting when it ended but cannot go.
 */
int dt_wait_case(pid_t pid, uint64_t t0, uint64_t deadline,
		 struct dt_capture *cap, bool *stuck_exiting);
/* Ops the case recorded in the last DT_PROGRESS_S of its wait so far. */
unsigned long long dt_case_recent_ops(void);
/* Once, while the target answers: which mount holds it. */
void dt_note_target(const struct dt_target *tgt);

struct dt_hang {
	bool unreaped;			/* SIGKILL did not end it in the grace */
	char yaml[20480];		/* "  leftover:" block when unreaped */
};
/* Kill pid's group; false (and h filled) if it stays: a leftover. */
bool dt_hang_kill(pid_t pid, const char *what, struct dt_hang *h);
/* --free-fuse: abort the target's FUSE connection; YAML "freed:" line */
void dt_hang_free(bool free_fuse);
/* reap leftovers that ended by deadline; the number still there */
int dt_leftovers_poll(uint64_t deadline, bool say);
/* end of the run: name the leftovers still there */
void dt_leftovers_final(void);

/* ---- case.c: one case ----------------------------------------------------- */

/* Run case c as TAP test number num; returns its outcome (TODO: PASS). */
int dt_run_case(int num, const struct dt_test *t, const struct dt_case *c,
		const struct dt_target *tgt, const struct dt_options *o);

#endif /* DT_CORE_INTERNAL_H */
