/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The perf engine (dt_perf_*): a perf case gives one operation; the
 * engine sweeps the thread count, runs every worker in a tight loop with
 * one clock read per op (the end of one op is the start of the next), and
 * records per-op latency in a per-worker histogram and completed ops per
 * time window.  It calls the backend on each worker's own connection
 * (r->target->ops on w->conn), not the recorded dt_* ops: no history, no
 * per-op allocation.  The watchdog still sees each op's start.
 *
 * Environment knobs (all optional):
 *   DT_PERF_THREADS   sweep points, e.g. "1,4,16" (default 1, 2, 4, ...
 *                     up to --threads, and --threads itself)
 *   DT_PERF_WINDOWS   samples per point: the measured time is cut into
 *                     this many windows (default 10, 1..DT_PERF_MAX_WIN)
 *   DT_PERF_WARMUP    seconds run before measuring (default 10% of
 *                     --duration, at most 1)
 *   DT_PERF_CONFIG    free text describing the setup (e.g. "proxy=1ms"),
 *                     copied into every line; baselines match on it
 */
#ifndef DT_CORE_PERF_H
#define DT_CORE_PERF_H

#include "core/core.h"
#include "stats/metrics.h"

/* Begin a line: {"kind":kind, test, case, target, spec, host, ...} */
void dt_metrics_begin(struct dt_json *j, const char *kind,
		      const struct dt_run *r);

/* ---- the perf engine -------------------------------------------------------- */

/* loop bound when --iterations was not given: time ends the loop first */
#define DT_PERF_MAX_OPS		1000000000ull

struct dt_perf_op {
	const char *name;	/* what one op is: "lookup", "create+unlink" */
	enum dt_opcode opcode;	/* what the watchdog names when one sticks */
	/*
	 * One op on w->conn; i counts this worker's ops from 0.  Returns 0
	 * or -errno; an error fails the case (the numbers would be about
	 * something else).
	 */
	int (*fn)(struct dt_worker *w, void *state, uint64_t i);
	/* optional, untimed, in every worker before the start */
	int (*wsetup)(struct dt_worker *w, void **state);
	/* optional, untimed, in every worker after the end */
	void (*wcleanup)(struct dt_worker *w, void *state);
	/* optional, untimed, in the case thread before each sweep point */
	void (*point_setup)(struct dt_run *r, int threads);
	void *arg;		/* for the test: dt_perf_arg(w) */
	/*
	 * optional JSON members describing the load ("\"entries\":256");
	 * must stay valid during the sweep (not a dt_fmt() buffer)
	 */
	const char *params;
};

/* One worker's loop result. */
struct dt_perf_wres {
	uint64_t ops, errors;
	uint64_t t_begin, t_end;	/* measured span, monotonic ns */
	int first_err;			/* first -errno, 0 none */
	uint64_t first_err_i;
	bool capped;			/* stopped by the op bound */
	uint32_t win[DT_PERF_MAX_WIN];	/* ops started in each window */
	uint64_t wcpu[DT_PERF_MAX_WIN];	/* thread CPU ns in each window */
	uint64_t cpu_ns;
	double wp10[DT_PERF_MAX_WIN];	/* latency percentiles per window */
	double wp50[DT_PERF_MAX_WIN];
	double wp90[DT_PERF_MAX_WIN];
	struct dt_hist hist;
};

/* One sweep point, all workers together. */
struct dt_perf_result {
	int threads;
	int nwin;
	double win_s;
	double secs;			/* measured span */
	uint64_t ops, errors;
	uint64_t thread_ops_min, thread_ops_max;
	double ops_per_s;
	double win_rate[DT_PERF_MAX_WIN];	/* ops/s per window */
	/*
	 * ops per second of the workers' own CPU time: on a shared machine a
	 * CPU-bound local op loses the CPU to other work at random, which
	 * wall-clock rates show as noise; the CPU rate is blind to that
	 * (and to waits: sleeping on a lock or on the network)
	 */
	double cpu_s, ops_per_cpu_s;
	double win_cpu_rate[DT_PERF_MAX_WIN];
	/*
	 * per window: the median over workers of each worker's latency
	 * p10 / p50 / p90 in that window (ns).  Robust against the stalls a
	 * shared machine puts into the mean (and so into the rates); the low
	 * quantile is the op's own cost with the least waiting for a CPU.
	 * A window in which no worker started an op gets the window's
	 * length (a lower bound of the stalled op's latency).
	 */
	double win_p10[DT_PERF_MAX_WIN], win_p50[DT_PERF_MAX_WIN];
	double win_p90[DT_PERF_MAX_WIN];
	struct dt_hist hist;
	int first_err, first_err_worker;
	bool capped;
};

/* The test's op->arg, from inside an op or a worker setup. */
void *dt_perf_arg(struct dt_worker *w);

/*
 * The timed loop of one worker: warm up for warm_ns, then measure for
 * nwin windows of win_ns each, or until max_ops.  Exposed for tests that
 * drive workers themselves (perf_overhead).
 */
void dt_perf_loop(struct dt_worker *w, const struct dt_perf_op *op,
		  void *state, uint64_t start_ns, uint64_t warm_ns,
		  uint64_t win_ns, int nwin, uint64_t max_ops,
		  struct dt_perf_wres *res);

/*
 * Run one point: threads workers (each with its own connection) released
 * together, timed loop, results merged.  Fails the case on op errors.
 */
void dt_perf_point(struct dt_run *r, const struct dt_perf_op *op,
		   int threads, struct dt_perf_result *res);

/* Emit a "perf" metrics line and a TAP comment for one point. */
void dt_perf_report(struct dt_run *r, const struct dt_perf_op *op,
		    const struct dt_perf_result *res);

/*
 * The whole sweep: every thread count of DT_PERF_THREADS (or 1, 2, 4, ...
 * --threads), one point each, reported as it finishes; the case's YAML
 * block gets a one-line summary per point.
 */
void dt_perf_sweep(struct dt_run *r, const struct dt_perf_op *op);

/* Sweep points: fills up to max thread counts, returns how many. */
int dt_perf_threads(const struct dt_run *r, int *out, int max);

/* Measured seconds per point, warm-up, windows from the environment. */
double dt_perf_warmup_s(const struct dt_run *r);
int dt_perf_windows(void);

/* Loop bound for the perf loop given --iterations. */
uint64_t dt_perf_max_ops(const struct dt_run *r);

/* The per-op clock the engine uses: "tsc" or "clock_gettime". */
const char *dt_perf_clock_name(void);

/* "1.23 ms" style, into a rotating static buffer */
const char *dt_perf_fmt_ns(double ns);

#endif /* DT_CORE_PERF_H */
