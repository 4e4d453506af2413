/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One case: the parent forks a child (own process group, hard timeout)
 * and prints TAP from what the child left in shared memory.  The child
 * connects to the target, makes its scratch directory, runs the case,
 * judges the history and removes the scratch directory again.  If the
 * child dies or hangs, the parent kills its group and sweeps the scratch
 * directory from a fresh child of its own; a child the target holds in
 * the kernel is reported and left behind instead (reap.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "coord/coord.h"
#include "core/internal.h"


/*
 * Agreement mode: the test's oracles and the checker judged the same
 * history; a disagreement is a gap in one of them, and is said so.  The
 * test failing while the checker finds the history consistent is a
 * checker gap (or a failure outside the namespace: the test's message
 * says which); the checker finding a violation the test passed is an
 * oracle gap.  In a multi-host run the leader judges the merged history,
 * and the test's failures are every host's: each host posts its own count
 * and the leader sums them once every host has (after the case's "end"
 * barrier).
 */
struct agreement {
	bool pending;		/* the checker judged: report_agreement() */
	int test_failures;	/* this host's, before the checker */
	int rc;			/* the checker's status */
	size_t judged, not_judged, errors_accepted;
	char what[256];		/* the checker's violation */
};

static void report_agreement(struct dt_run *r, const struct agreement *ag)
{
	int failures = ag->test_failures, posted = 1;
	char by_host[256] = "", hosts[320] = "";

	if (!ag->pending)
		return;
	if (dt_mh_active()) {
		failures = dt_mh_sum_failures(r, &posted, by_host,
					      sizeof(by_host));
		snprintf(hosts, sizeof(hosts), "%s%s%s", *by_host ? " (" : "",
			 by_host, *by_host ? ")" : "");
		if (posted < r->nhosts) {
			/* a host of an older build posts no count */
			dt_diag(r, "history_agreement_hosts", "%d of %d hosts "
				"posted their test's failure count: the others' "
				"failures are not counted", posted, r->nhosts);
		}
	}
	if (ag->rc == DT_CHECK_INCONCLUSIVE) {
		dt_diag(r, "history_agreement", "unknown: the checker was "
			"inconclusive");
	} else if ((failures > 0) == (ag->rc == DT_CHECK_VIOLATION)) {
		dt_diag(r, "history_agreement", "agree: %s%s",
			failures ? "both found a violation" :
			"both found none", hosts);
	} else if (failures) {
		dt_diag(r, "history_agreement", "checker gap: the test failed "
			"%d time(s)%s, the checker found the history consistent "
			"(%zu judged, %zu not judged, %zu errors accepted)",
			failures, hosts, ag->judged, ag->not_judged,
			ag->errors_accepted);
	} else {
		dt_diag(r, "history_agreement", "oracle gap: the checker found "
			"a violation the test's oracles passed: %s", ag->what);
	}
}

/*
 * --check-history: the general checker on everything the case recorded.
 * A violation fails the case like an oracle, with the shrunk
 * counterexample as a YAML block; inconclusive is a diag, not a failure.
 */
/*
 * The judged history starts with the scratch directory's MKDIR (the
 * leader made it, empty, before any op of the case): what the oracles
 * take for granted ("nothing was there before the case made it") is then
 * in the history itself, and the checker's fresh_creates can judge a name
 * nothing made below it.
 */
static void record_scratch_mkdir(struct dt_run *r)
{
	struct dt_event e = {
		.host = (uint16_t)r->host, .thread = 0xffff, .op = DT_OP_MKDIR,
		.flags = DT_EVF_SCRATCH,
		.start_ns = r->scratch_made_ns[0],
		.end_ns = r->scratch_made_ns[1],
	};

	size_t len = strlen(r->scratch);

	/* a name the events cannot hold is no path of the history either */
	if (!r->scratch_made_ns[1] || len >= sizeof(e.name))
		return;
	memcpy(e.name, r->scratch, len + 1);
	/* appended, not sorted in: the event numbers the test's own
	   verdicts gave stay the ones the checker's verdict uses (the
	   checker takes any order) */
	if (dt_history_add(&r->hist, &e) < 0)
		dt_broken(r, "history: out of memory");
}

static void check_history(struct dt_run *r, const struct dt_check_opts *opts,
			  const char *stale_why, int case_timeout,
			  struct agreement *ag)
{
	struct dt_check_opts co = *opts;
	struct dt_check_result res;
	uint64_t t0 = dt_now_ns();
	int rc;

	/* the test's own judgment (its oracles, its checks) came first */
	ag->test_failures = r->failures;
	if (dt_mh_active())
		dt_mh_post_failures(r, r->failures);
	/*
	 * Every host of a multi-host run holds the same merged history: one
	 * judge is enough, and the others' CPU stays with their own work.
	 */
	if (dt_mh_active() && !dt_leader(r)) {
		dt_diag(r, "history_check", "judged by the leader host");
		return;
	}
	dt_diag(r, "stale_bound", "%s", stale_why);
	record_scratch_mkdir(r);
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
	ag->pending = true;
	ag->rc = rc;
	ag->judged = res.judged;
	ag->not_judged = res.not_judged;
	ag->errors_accepted = res.errors_accepted;
	snprintf(ag->what, sizeof(ag->what), "%s", res.verdict.what);
	dt_check_result_free(&res);
}

/*
 * --inject-failure, a self-test knob (t/core/mhost.sh): "CASE" makes this
 * host's test fail once in CASE outside the history, as a test's own check
 * of something host-local would; "OP@CASE" makes this host's first OP of
 * CASE fail with EIO without reaching the target (recorded, so the checker
 * sees it) and counts that as the test's failure.
 */
static void inject_failure(struct dt_run *r, const char *spec,
			   const char *tcase)
{
	const char *at = spec ? strchr(spec, '@') : NULL;

	if (!spec || at || strcmp(spec, tcase))
		return;
	dt_fail(r, "self-test", "no failure", "one, injected",
		"--inject-failure %s: this host's own check failed "
		"(outside the history)", tcase);
}

/* --hang-op OP or OP@CASE (only in that case): the op, or NULL */
static const char *hang_op_of_case(const char *spec, const char *tcase)
{
	static char op[64];
	const char *at = spec ? strchr(spec, '@') : NULL;

	if (!at)
		return spec;
	if (strcmp(at + 1, tcase))
		return NULL;
	snprintf(op, sizeof(op), "%.*s", (int)(at - spec), spec);
	return op;
}

static void case_child(const struct dt_test *t, const struct dt_case *c,
		       const struct dt_target *tgt, const struct dt_options *o)
{
	struct dt_run r = {
		.test = t, .tcase = c, .target = tgt,
		.threads = o->threads ? o->threads : t->threads,
		.duration = o->duration > 0 ? o->duration : t->duration,
		.iterations = o->iterations ? o->iterations : DT_DEFAULT_ITERATIONS,
		.seed = o->seed, .host = o->host, .nhosts = o->nhosts,
		.hang_op = o->hang_op, .stale_ns = o->stale_ns,
		.timeout_s = o->timeout ? o->timeout :
			     (t->timeout ? t->timeout : 60),
		.clock_slack_ns = o->nhosts <= 1 ? 0 :
				  o->check_opts.skew_ns ? o->check_opts.skew_ns :
				  DT_MH_CLOCK_SLACK_NS,
	};
	struct agreement ag = { 0 };
	int rc;

	if (r.threads <= 0)
		r.threads = 4;
	if (r.duration <= 0)
		r.duration = 2;
	dt_hang_op = hang_op_of_case(o->hang_op, c->name);
	dt_inject_op = o->inject_failure && strchr(o->inject_failure, '@') ?
		       hang_op_of_case(o->inject_failure, c->name) : NULL;
	if (dt_hang_op && !strcmp(dt_hang_op, "case")) {
		/* debug knob: hang outside any op to prove the hard timeout */
		for (;;)
			pause();
	}
	if (dt_hang_op && !strcmp(dt_hang_op, "busy")) {
		/*
		 * debug knob: a case that keeps completing ops but never
		 * ends (a load too slow for its timeout): out of time, not
		 * hung.  Paced so that it does not spin a CPU.
		 */
		const struct timespec pace = { 0, 10 * 1000 * 1000 };

		for (;;) {
			dt_count_progress();
			nanosleep(&pace, NULL);
		}
	}
	if ((t->needs & DT_NEED_POSIX) && tgt->ops != &dt_posix_ops)
		dt_skip(&r, "needs a POSIX path target (got %s)", tgt->label);
	if ((t->needs & (DT_NEED_LINK | DT_NEED_OPEN)) && !tgt->ops->link)
		dt_skip(&r, "backend %s lacks link/open", tgt->ops->name);

	/* from here an op stuck on the target fails the case, in any phase */
	dt_case_watch(&r);
	dt_step_begin("connect", tgt->spec);
	rc = tgt->ops->connect(tgt, &r.conn);
	dt_step_end();
	if (rc < 0)
		dt_broken(&r, "connect to %s: %s", tgt->spec, dt_strerr(rc));
	snprintf(r.scratch, sizeof(r.scratch), DT_SCRATCH_PREFIX "%s.%d.%s.%s",
		 dt_short_hostname(), (int)getpid(), t->name, c->name);
	if (dt_leader(&r)) {
		dt_step_begin("mkdir", r.scratch);
		/* on the events' clock (realtime: one time line for hosts) */
		r.scratch_made_ns[0] = dt_realtime_ns();
		rc = tgt->ops->mkdir(r.conn, r.scratch);
		r.scratch_made_ns[1] = dt_realtime_ns();
		dt_step_end();
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
	dt_case_phase("run");
	c->run(&r);
	inject_failure(&r, o->inject_failure, c->name);
	/* the checker takes the recorded times, and the bound apart */
	dt_history_widen_reads(&r.hist, -(int64_t)dt_read_widen_ns(&r));
	/* every host re-reads what the case touched, once the load is over */
	dt_case_phase("settle");
	dt_settle(&r, o->no_settle, o->settle_lie);
	if (o->check_history && r.hist.n)
		check_history(&r, &o->check_opts, o->stale_why,
			      o->timeout ? o->timeout :
			      (t->timeout ? t->timeout : 60), &ag);
	if (!dt_mh_active())
		report_agreement(&r, &ag);
	if ((r.failures || o->history_all) && o->history_dir && r.hist.n) {
		char path[DT_PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s.%s.host%d.hist",
			 o->history_dir, t->name, c->name, r.host);
		rc = dt_history_dump(&r.hist, path);
		dt_diag(&r, "history", "%s%s", path,
			rc < 0 ? " (could not be written)" : "");
	}
	dt_case_phase("cleanup");
	if (t->cleanup)
		t->cleanup(&r);
	if (dt_mh_active()) {
		/* nobody may still work in it when the leader removes it */
		dt_mh_barrier(&r, "end");
		dt_shared->mh_done = 1;
		/* every host posted its failures before "end" */
		report_agreement(&r, &ag);
		dt_mh_report_skew(&r);
	}
	dt_step_begin("remove", r.scratch);
	rc = dt_leader(&r) ? dt_remove_tree(tgt->ops, r.conn, r.scratch) : 0;
	dt_step_end();
	if (rc < 0)
		dt_broken(&r, "remove scratch %s: %s", r.scratch,
			  dt_strerr(rc));
	dt_workers_fini_run(&r);
	dt_history_free(&r.hist);
	for (size_t i = 0; i < r.ntick_names; i++)
		free(r.tick_names[i]);
	free(r.tick_names);
	tgt->ops->disconnect(r.conn);
	dt_case_exit(DT_PASS);
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
		/* a sweep stuck in the kernel must not hold the run's stdout */
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
			close(null);
		}
		if (tgt->ops->connect(tgt, &conn) < 0)
			_exit(1);
		snprintf(path, sizeof(path), DT_SCRATCH_PREFIX "%s.%d.%s.%s",
			 dt_short_hostname(), (int)casepid, t->name, c->name);
		_exit(dt_remove_tree(tgt->ops, conn, path) < 0);
	}
	if (p < 0)
		return;
	/* even when dt_interrupted: a bounded sweep, then the run stops */
	if (dt_wait_deadline(p, dt_now_ns() + 20ull * 1000000000ull, false) < 0) {
		struct dt_hang h;

		printf("# could not sweep scratch of pid %d in 20 s; the next "
		       "run sweeps it\n", (int)casepid);
		if (!dt_hang_kill(p, "scratch sweep", &h))
			printf("# the sweep (pid %d) is stuck in the kernel too: "
			       "left behind\n", (int)p);
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

static const char *outcome_name(int outcome)
{
	static const char *names[] = { "pass", "fail", "broken", "skip" };

	return outcome >= 0 && outcome <= DT_SKIP ? names[outcome] : "?";
}

int dt_run_case(int num, const struct dt_test *t, const struct dt_case *c,
		    const struct dt_target *tgt, const struct dt_options *o)
{
	const char *xf = xfail_reason(o->xfail, tgt->label, t->name, c->name);
	uint64_t t0 = dt_now_ns();
	double up0 = dt_uptime_s();	/* the kernel log's clock */
	int timeout = o->timeout ? o->timeout : (t->timeout ? t->timeout : 60);
	int outcome, status;
	bool need_sweep = false, hung = false, stuck_exiting;
	char evidence[16384] = "", klog[4096] = "";
	static struct dt_hang hang;	/* big: not on the stack */
	struct dt_capture cap;

	memset(dt_shared, 0, sizeof(*dt_shared));
	hang.unreaped = false;
	printf("# case %s.%s started\n", t->name, c->name);
	fflush(stdout);
	fflush(stderr);
	dt_capture_open(&cap);
	pid_t pid = fork();
	if (pid < 0) {
		printf("not ok %d - %s.%s # fork: %s\n", num, t->name, c->name,
		       strerror(errno));
		dt_capture_close(&cap);
		return DT_BROKEN;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* a case never outlives its harness (kill -9 of the run) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dt_capture_child(&cap);
		case_child(t, c, tgt, o);
	}
	setpgid(pid, pid);
	status = dt_wait_case(pid, t0, t0 + (uint64_t)timeout * 1000000000ull,
			      &cap, &stuck_exiting);
	if (status == -ETIMEDOUT && !stuck_exiting && dt_mh_active() &&
	    __atomic_load_n(&dt_shared->waiting_since_ns, __ATOMIC_ACQUIRE)) {
		/*
		 * It waits for another host, whose own case timed out as
		 * ours did: that host reports its hang once it killed its
		 * case (within the reap grace), and then our barrier fails
		 * naming it.  Bounded: the case ends within this much more.
		 */
		printf("# %s.%s waits at barrier '%s' at its timeout: %d s "
		       "more for the other hosts to report\n", t->name,
		       c->name, dt_shared->waiting_at, DT_MH_PEER_GRACE_S);
		status = dt_wait_case(pid, t0, dt_now_ns() +
				      DT_MH_PEER_GRACE_S * 1000000000ull,
				      &cap, &stuck_exiting);
	}
	if (status == -ETIMEDOUT || status == -EINTR) {
		/* now, before leaving the run can take its own time */
		uint64_t waiting = __atomic_load_n(&dt_shared->waiting_since_ns,
						   __ATOMIC_ACQUIRE);
		double waited_s = waiting ? (double)(dt_now_ns() - waiting) / 1e9
					  : 0;
		/*
		 * Out of time but not stuck: ops still completed lately and
		 * no task sleeps in the kernel uninterruptibly.  A loaded
		 * machine, not a hang: no verdict (a hang needs evidence).
		 */
		unsigned long long recent_ops = dt_case_recent_ops();
		bool progressing = status == -ETIMEDOUT && !stuck_exiting &&
				   !waiting && recent_ops > 0 &&
				   dt_tasks_in_d_state(pid) == 0;

		dt_collect_stacks(pid, 0, evidence, sizeof(evidence));
		/* what the kernel said meanwhile ("server not responding") */
		dt_kernel_log_since(up0, klog, sizeof(klog));
		/* bounded: a task stuck in the kernel stays behind */
		need_sweep = dt_hang_kill(pid, dt_fmt("%s.%s", t->name,
						      c->name), &hang);
		dt_capture_close(&cap);
		/* the other hosts' verdict names this host and why */
		hung = status == -ETIMEDOUT && !progressing;
		dt_mh_case_lost(dt_fmt("%s.%s %s", t->name, c->name,
				 hang.unreaped ? "hung: its tasks stay stuck "
						 "in the kernel (a leftover)"
				 : hung ? "hung: killed at the timeout"
				 : progressing ? "out of time (still "
						 "progressing): killed"
					: "killed"));
		/* a hang is the system's failure; an interrupt gives no verdict */
		outcome = status == -ETIMEDOUT ? DT_FAIL : DT_BROKEN;
		if (status == -ETIMEDOUT && waiting) {
			/* another host, not the system under test, is late */
			outcome = DT_BROKEN;
			hung = false;
			snprintf(dt_shared->reason, sizeof(dt_shared->reason),
				 "no verdict within the %d s timeout: waited "
				 "%.1f s at multi-host barrier '%s' for a host "
				 "that never arrived", timeout, waited_s,
				 dt_shared->waiting_at);
		} else if (stuck_exiting) {
			snprintf(dt_shared->reason, sizeof(dt_shared->reason),
				 "hung: the case ended but its tasks stayed "
				 "stuck in the kernel past the %d s grace",
				 DT_REAP_GRACE_S);
		} else if (progressing) {
			outcome = DT_BROKEN;
			snprintf(dt_shared->reason, sizeof(dt_shared->reason),
				 "out of time, not hung: no verdict within the "
				 "%d s timeout, yet %llu ops completed in its "
				 "last %d-%d s and no task was stuck in the "
				 "kernel (too slow a machine for the load)",
				 timeout, recent_ops, DT_PROGRESS_S,
				 2 * DT_PROGRESS_S);
		} else if (status == -ETIMEDOUT)
			snprintf(dt_shared->reason, sizeof(dt_shared->reason),
				 "hung: no verdict within the %d s timeout",
				 timeout);
		else
			snprintf(dt_shared->reason, sizeof(dt_shared->reason),
				 "dt_interrupted by signal %d", dt_interrupted);
	} else if (WIFSIGNALED(status)) {
		dt_mh_case_lost(dt_fmt("%s.%s died of signal %d", t->name,
				       c->name, WTERMSIG(status)));
		need_sweep = true;
		outcome = DT_BROKEN;
		snprintf(dt_shared->reason, sizeof(dt_shared->reason),
			 "case process died of signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else {
		if (dt_coord_handle && dt_shared->coord_synced)
			dt_coord_sync_set(dt_coord_handle,
					  dt_shared->coord_sync);
		else if (dt_coord_handle)
			dt_mh_case_lost(dt_fmt("%s.%s ended inside a "
					       "coordinator call", t->name,
					       c->name));
		outcome = WEXITSTATUS(status);
		if (outcome > DT_SKIP) {
			snprintf(dt_shared->reason, sizeof(dt_shared->reason),
				 "case process exited %d", outcome);
			outcome = DT_BROKEN;
		}
		/* a case that ended early (skip, broken, watchdog) left it */
		need_sweep = outcome != DT_PASS;
	}

	dt_capture_close(&cap);
	double secs = (double)(dt_now_ns() - t0) / 1e9;
	const char *name = dt_fmt("%s.%s", t->name, c->name);
	/* the hosts still inside the case learn why we are not */
	if (dt_mh_active() && !dt_shared->mh_done)
		dt_mh_case_ended(dt_fmt("%s %s after %.1f s%s%s", name,
					hung ? "hung" : outcome_name(outcome),
					secs, dt_shared->reason[0] ? ": " : "",
					dt_shared->reason));
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
		printf("  ---\n  outcome: %s\n  target: %s\n"
		       "  duration_s: %.3f\n",
		       hung ? "hung" : outcome_name(outcome),
		       dt_yaml_quote(tgt->spec), secs);
		if (xf)
			printf("  known_failure: %s\n", dt_yaml_quote(xf));
		fwrite(dt_shared->fail, 1, dt_shared->fail_len, stdout);
		fwrite(dt_shared->diag, 1, dt_shared->diag_len, stdout);
		/* a leftover's own stacks (below) are the later word */
		if (evidence[0] && !hang.unreaped) {
			dt_shared->diag_len = 0;
			dt_diag_block("kernel_stacks", evidence);
			fwrite(dt_shared->diag, 1, dt_shared->diag_len,
			       stdout);
		}
		if (klog[0]) {
			dt_shared->diag_len = 0;
			dt_diag_block("kernel_log", klog);
			fwrite(dt_shared->diag, 1, dt_shared->diag_len,
			       stdout);
		}
		if (hang.unreaped) {
			fputs(hang.yaml, stdout);
			dt_hang_free(o->free_fuse);
		}
		printf("  ...\n");
	}
	fflush(stdout);
	/* after the verdict: a silent server must not delay it */
	if (need_sweep)
		sweep_after_kill(tgt, pid, t, c);
	else if (hang.unreaped)
		printf("# scratch of pid %d left in place: the target holds "
		       "its case in the kernel (the next run sweeps it)\n",
		       (int)pid);
	if (xf && (outcome == DT_FAIL || outcome == DT_BROKEN))
		return DT_PASS;
	return outcome;
}
