/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The perf engine: thread-count sweeps of one operation in a tight loop,
 * per-op latency histograms and per-window rates, written as metrics
 * lines (stats/metrics.h).  It runs on the workers of core, which is why
 * it lives here and not in stats.
 *
 * The engine's cost per op is one clock_gettime (vDSO, ~20 ns here), a
 * histogram increment, a window counter and one relaxed store for the
 * watchdog; perf_overhead measures it against a bare loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/perf.h"

/* the machine's 1-minute load average: context for noisy figures */
static double load1(void)
{
	FILE *f = fopen("/proc/loadavg", "re");
	double v = NAN;

	if (f) {
		if (fscanf(f, "%lf", &v) != 1)
			v = NAN;
		fclose(f);
	}
	return v;
}

void dt_metrics_begin(struct dt_json *j, const char *kind,
		      const struct dt_run *r)
{
	const char *cfg = getenv("DT_PERF_CONFIG");
	const char *run = getenv("DT_RUN_ID");

	dt_json_init(j);
	dt_json_obj_begin(j, NULL);
	dt_json_str(j, "kind", kind);
	dt_json_str(j, "test", r->test->name);
	dt_json_str(j, "case", r->tcase->name);
	dt_json_str(j, "target", r->target->label);
	dt_json_str(j, "spec", r->target->spec);
	dt_json_str(j, "config", cfg ? cfg : "");
	dt_json_str(j, "run", run ? run : "");
	dt_json_int(j, "host", r->host);
	dt_json_int(j, "clients", r->nhosts > 0 ? r->nhosts : 1);
	dt_json_u64(j, "seed", r->seed);
	dt_json_fixed(j, "time", (double)dt_realtime_ns() / 1e9, 3);
	dt_json_num(j, "load1", load1());
}

/* ---- the perf engine --------------------------------------------------------------- */

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The per-op clock.  clock_gettime() costs ~20-30 ns here (vDSO), which
 * is 3-4% of a tmpfs stat; the TSC read costs ~9 ns and, not being
 * serialising, mostly hides behind the syscall's return: the measured
 * driver cost fell from ~45 ns to ~5 ns an op.  The TSC is used only
 * where the kernel itself trusts it (clocksource "tsc", which implies a
 * constant, synchronised TSC), converted to CLOCK_MONOTONIC nanoseconds
 * with a factor calibrated once per process over 10 ms (error ~1e-5).
 * DT_PERF_CLOCK=clock_gettime forces the portable clock.
 */
#if defined(__x86_64__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

static struct {
	bool tsc;
	uint64_t tsc0, ns0;
	uint64_t mult;		/* ns per tick, 32.32 fixed point */
} clk;
static pthread_once_t clk_once = PTHREAD_ONCE_INIT;

#ifdef HAVE_TSC
/* a (tsc, ns) pair taken as close together as the two reads allow */
static void tsc_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int k = 0; k < 5; k++) {
		uint64_t a = __rdtsc(), n = now_ns(), b = __rdtsc();

		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}
#endif

static void clk_init(void)
{
#ifdef HAVE_TSC
	const char *force = getenv("DT_PERF_CLOCK");
	char cs[32] = "";
	uint64_t t0, n0, t1, n1;
	FILE *f;

	if (force && !strcmp(force, "clock_gettime"))
		return;
	f = fopen("/sys/devices/system/clocksource/clocksource0/"
		  "current_clocksource", "re");
	if (!f)
		return;
	if (!fgets(cs, sizeof(cs), f))
		cs[0] = 0;
	fclose(f);
	if (strcmp(cs, "tsc\n"))
		return;
	tsc_pair(&t0, &n0);
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	tsc_pair(&t1, &n1);
	if (t1 <= t0 || n1 <= n0)
		return;
	clk.mult = (uint64_t)((((unsigned __int128)(n1 - n0)) << 32) /
			      (t1 - t0));
	clk.tsc0 = t1;
	clk.ns0 = n1;
	clk.tsc = clk.mult > 0;
#endif
}

/* CLOCK_MONOTONIC nanoseconds, the cheap way when there is one */
static inline uint64_t perf_now(void)
{
#ifdef HAVE_TSC
	if (clk.tsc) {
		uint64_t d = __rdtsc() - clk.tsc0;

		return clk.ns0 + (uint64_t)(((unsigned __int128)d *
					     clk.mult) >> 32);
	}
#endif
	return now_ns();
}

/* this thread's CPU time: a syscall, used once per window */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *dt_perf_clock_name(void)
{
	pthread_once(&clk_once, clk_init);
	return clk.tsc ? "tsc" : "clock_gettime";
}

static double env_double(const char *name, double def, double lo, double hi)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (!s || !*s)
		return def;
	v = strtod(s, &end);
	if (end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "dentrace: %s='%s' ignored (want %g..%g)\n",
			name, s, lo, hi);
		return def;
	}
	return v;
}

int dt_perf_windows(void)
{
	return (int)env_double("DT_PERF_WINDOWS", 10, 1, DT_PERF_MAX_WIN);
}

double dt_perf_warmup_s(const struct dt_run *r)
{
	double def = r->duration * 0.1;

	return env_double("DT_PERF_WARMUP", def > 1 ? 1 : def, 0, 60);
}

uint64_t dt_perf_max_ops(const struct dt_run *r)
{
	/* the harness's default bound is for recorded histories */
	if (r->iterations <= 0 || r->iterations == DT_DEFAULT_ITERATIONS)
		return DT_PERF_MAX_OPS;
	return (uint64_t)r->iterations;
}

int dt_perf_threads(const struct dt_run *r, int *out, int max)
{
	const char *s = getenv("DT_PERF_THREADS");
	int n = 0;

	if (s && *s) {
		while (*s && n < max) {
			char *end;
			long v = strtol(s, &end, 10);

			if (end == s || v < 1 || v > 1024) {
				fprintf(stderr, "dentrace: DT_PERF_THREADS: "
					"bad entry at '%s'\n", s);
				break;
			}
			out[n++] = (int)v;
			s = end + strspn(end, ", ");
		}
		if (n)
			return n;
	}
	for (int t = 1; t < r->threads && n < max - 1; t *= 2)
		out[n++] = t;
	out[n++] = r->threads;
	return n;
}

const char *dt_perf_fmt_ns(double ns)
{
	if (ns < 1e3)
		return dt_fmt("%.0f ns", ns);
	if (ns < 1e6)
		return dt_fmt("%.1f us", ns / 1e3);
	if (ns < 1e9)
		return dt_fmt("%.2f ms", ns / 1e6);
	return dt_fmt("%.2f s", ns / 1e9);
}

/* a window ends: its latency percentiles, from the histogram's growth */
static void win_close(struct dt_perf_wres *res, int wi, uint64_t *snap)
{
	if (!snap)
		return;
	res->wp10[wi] = dt_hist_quantile_since(&res->hist, snap, 0.1);
	res->wp50[wi] = dt_hist_quantile_since(&res->hist, snap, 0.5);
	res->wp90[wi] = dt_hist_quantile_since(&res->hist, snap, 0.9);
	memcpy(snap, res->hist.b, sizeof(res->hist.b));
}

void dt_perf_loop(struct dt_worker *w, const struct dt_perf_op *op,
		  void *state, uint64_t start_ns, uint64_t warm_ns,
		  uint64_t win_ns, int nwin, uint64_t max_ops,
		  struct dt_perf_wres *res)
{
	uint64_t measure = start_ns + warm_ns;
	uint64_t end = measure + win_ns * (uint64_t)nwin;
	uint64_t next = measure, t, t2, i, cpu_mark = 0, c;
	int (*fn)(struct dt_worker *, void *, uint64_t) = op->fn;
	int wi = -1, rc;
	/* the histogram at the start of the window, for its percentiles */
	uint64_t *snap = calloc(DT_HIST_NBUCKETS, sizeof(*snap));

	for (int k = 0; k < DT_PERF_MAX_WIN; k++)
		res->wp10[k] = res->wp50[k] = res->wp90[k] = NAN;

	pthread_once(&clk_once, clk_init);
	w->op = (uint8_t)op->opcode;
	snprintf(w->op_path, sizeof(w->op_path), "perf %s loop", op->name);
	t = perf_now();
	__atomic_store_n(&w->op_start_ns, t, __ATOMIC_RELAXED);
	__atomic_store_n(&w->busy, 1, __ATOMIC_RELEASE);
	res->t_begin = measure;
	res->t_end = measure;
	for (i = 0; i < max_ops; i++) {
		if (t >= next) {
			if (t >= end)
				break;
			if (t >= measure) {
				/* the CPU this thread spent in the window */
				c = thread_cpu_ns();
				if (wi >= 0) {
					res->wcpu[wi] += c - cpu_mark;
					win_close(res, wi, snap);
				}
				cpu_mark = c;
				wi = (int)((t - measure) / win_ns);
				next = measure + (uint64_t)(wi + 1) * win_ns;
			}
		}
		__atomic_store_n(&w->op_start_ns, t, __ATOMIC_RELAXED);
		rc = fn(w, state, i);
		t2 = perf_now();
		if (wi >= 0) {
			dt_hist_add(&res->hist, t2 - t);
			res->win[wi]++;
			if (rc < 0) {
				if (!res->errors++) {
					res->first_err = rc;
					res->first_err_i = i;
				}
			}
		}
		t = t2;
	}
	__atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
	if (wi >= 0) {
		res->wcpu[wi] += thread_cpu_ns() - cpu_mark;
		win_close(res, wi, snap);
	}
	free(snap);
	res->capped = i >= max_ops;
	res->t_end = t > measure ? t : measure;
	for (int k = 0; k < nwin; k++) {
		res->ops += res->win[k];
		res->cpu_ns += res->wcpu[k];
	}
}

struct point {
	const struct dt_perf_op *op;
	pthread_barrier_t start;
	uint64_t t0;			/* shared start, first worker sets it */
	uint64_t warm_ns, win_ns, max_ops;
	int nwin;
	int setup_err, setup_worker;	/* first failed worker setup */
	struct dt_perf_wres *res;
};

void *dt_perf_arg(struct dt_worker *w)
{
	return ((struct point *)w->arg)->op->arg;
}

static void point_worker(struct dt_worker *w)
{
	struct point *p = w->arg;
	const struct dt_perf_op *op = p->op;
	void *state = NULL;
	uint64_t zero = 0, t;
	int rc = 0;

	if (op->wsetup) {
		rc = op->wsetup(w, &state);
		if (rc < 0) {
			int none = 0;

			if (__atomic_compare_exchange_n(&p->setup_err, &none,
							rc, false,
							__ATOMIC_SEQ_CST,
							__ATOMIC_SEQ_CST))
				p->setup_worker = w->id;
		}
	}
	pthread_once(&clk_once, clk_init);
	/* every worker set up: the clock starts for all at once */
	pthread_barrier_wait(&p->start);
	if (!__atomic_load_n(&p->setup_err, __ATOMIC_SEQ_CST)) {
		t = now_ns();
		__atomic_compare_exchange_n(&p->t0, &zero, t, false,
					    __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		dt_perf_loop(w, op, state, __atomic_load_n(&p->t0,
							   __ATOMIC_SEQ_CST),
			     p->warm_ns, p->win_ns, p->nwin, p->max_ops,
			     &p->res[w->id]);
	}
	if (op->wcleanup && rc >= 0)
		op->wcleanup(w, state);
}

void dt_perf_point(struct dt_run *r, const struct dt_perf_op *op,
		   int threads, struct dt_perf_result *res)
{
	struct point p = { .op = op };
	double dur = r->duration;

	p.nwin = dt_perf_windows();
	p.warm_ns = (uint64_t)(dt_perf_warmup_s(r) * 1e9);
	p.win_ns = (uint64_t)(dur * 1e9 / p.nwin);
	if (p.win_ns < 1000)
		p.win_ns = 1000;
	p.max_ops = dt_perf_max_ops(r);
	p.res = calloc((size_t)threads, sizeof(*p.res));
	if (!p.res)
		dt_broken(r, "perf: out of memory for %d workers", threads);
	for (int i = 0; i < threads; i++)
		dt_hist_init(&p.res[i].hist);
	pthread_barrier_init(&p.start, NULL, (unsigned)threads);
	if (op->point_setup)
		op->point_setup(r, threads);
	dt_run_workers(r, threads, point_worker, &p);
	pthread_barrier_destroy(&p.start);
	/* the engine records no history; drop setup ops others recorded */
	dt_history_free(&r->hist);
	if (p.setup_err)
		dt_broken(r, "perf %s: worker %d setup: %s", op->name,
			  p.setup_worker, dt_strerr(p.setup_err));

	memset(res, 0, sizeof(*res));
	dt_hist_init(&res->hist);
	res->threads = threads;
	res->nwin = p.nwin;
	res->win_s = (double)p.win_ns / 1e9;
	res->thread_ops_min = UINT64_MAX;
	uint64_t tb = UINT64_MAX, te = 0;
	for (int i = 0; i < threads; i++) {
		struct dt_perf_wres *w = &p.res[i];

		res->ops += w->ops;
		res->errors += w->errors;
		if (w->ops < res->thread_ops_min)
			res->thread_ops_min = w->ops;
		if (w->ops > res->thread_ops_max)
			res->thread_ops_max = w->ops;
		if (w->first_err && !res->first_err) {
			res->first_err = w->first_err;
			res->first_err_worker = i;
		}
		res->capped |= w->capped;
		if (w->t_begin < tb)
			tb = w->t_begin;
		if (w->t_end > te)
			te = w->t_end;
		dt_hist_merge(&res->hist, &w->hist);
		res->cpu_s += (double)w->cpu_ns / 1e9;
		for (int k = 0; k < p.nwin; k++) {
			res->win_rate[k] += w->win[k];
			res->win_cpu_rate[k] += (double)w->wcpu[k] / 1e9;
		}
	}
	for (int k = 0; k < p.nwin; k++) {
		double v10[threads], v50[threads], v90[threads];
		int n10 = 0, n50 = 0, n90 = 0;

		/* a window's latency: the median over the workers' own */
		for (int i = 0; i < threads; i++) {
			if (!isnan(p.res[i].wp10[k]))
				v10[n10++] = p.res[i].wp10[k];
			if (!isnan(p.res[i].wp50[k]))
				v50[n50++] = p.res[i].wp50[k];
			if (!isnan(p.res[i].wp90[k]))
				v90[n90++] = p.res[i].wp90[k];
		}
		/*
		 * No op started in the window anywhere: the ops in flight
		 * took at least the window's length; say so rather than
		 * leave a hole that would hide a stall from the comparison.
		 */
		res->win_p10[k] = n10 ? dt_median(v10, (size_t)n10) : p.win_ns;
		res->win_p50[k] = n50 ? dt_median(v50, (size_t)n50) : p.win_ns;
		res->win_p90[k] = n90 ? dt_median(v90, (size_t)n90) : p.win_ns;
		/* ops per CPU second of the workers, NAN: no CPU used */
		res->win_cpu_rate[k] = res->win_cpu_rate[k] > 0
			? res->win_rate[k] / res->win_cpu_rate[k] : NAN;
		res->win_rate[k] /= res->win_s;
	}
	res->ops_per_cpu_s = res->cpu_s > 0 ? (double)res->ops / res->cpu_s
					    : 0;
	res->secs = te > tb ? (double)(te - tb) / 1e9 : 0;
	res->ops_per_s = res->secs > 0 ? (double)res->ops / res->secs : 0;
	free(p.res);
	if (res->errors)
		dt_fail(r, op->name, "every op succeeds",
			dt_fmt("%llu of %llu failed, first %s",
			       (unsigned long long)res->errors,
			       (unsigned long long)res->ops,
			       dt_strerr(res->first_err)),
			"perf %s with %d threads: worker %d's ops failed",
			op->name, threads, res->first_err_worker);
}

void dt_perf_report(struct dt_run *r, const struct dt_perf_op *op,
		    const struct dt_perf_result *res)
{
	const struct dt_hist *h = &res->hist;
	struct dt_json j;
	int rc;

	printf("# %s.%s %s threads=%d: %.0f ops/s (%llu ops in %.2f s; "
	       "%.0f ops per CPU-s), latency p50 %s p90 %s p99 %s max %s%s\n",
	       r->test->name, r->tcase->name, op->name, res->threads,
	       res->ops_per_s, (unsigned long long)res->ops, res->secs,
	       res->ops_per_cpu_s,
	       dt_perf_fmt_ns(dt_hist_quantile(h, 0.5)),
	       dt_perf_fmt_ns(dt_hist_quantile(h, 0.9)),
	       dt_perf_fmt_ns(dt_hist_quantile(h, 0.99)),
	       dt_perf_fmt_ns((double)h->max),
	       res->capped ? " (op bound reached)" : "");
	fflush(stdout);
	dt_diag(r, dt_fmt("threads_%d", res->threads),
		"%.0f ops/s, p50 %s, p99 %s", res->ops_per_s,
		dt_perf_fmt_ns(dt_hist_quantile(h, 0.5)),
		dt_perf_fmt_ns(dt_hist_quantile(h, 0.99)));
	if (!dt_metrics_enabled())
		return;
	dt_metrics_begin(&j, "perf", r);
	dt_json_str(&j, "op", op->name);
	dt_json_str(&j, "clock", dt_perf_clock_name());
	dt_json_raw_members(&j, op->params);
	dt_json_int(&j, "threads", res->threads);
	dt_json_num(&j, "secs", res->secs);
	dt_json_u64(&j, "ops", res->ops);
	dt_json_u64(&j, "errors", res->errors);
	dt_json_bool(&j, "capped", res->capped);
	dt_json_num(&j, "ops_per_s", res->ops_per_s);
	dt_json_num(&j, "cpu_s", res->cpu_s);
	dt_json_num(&j, "ops_per_cpu_s", res->ops_per_cpu_s);
	dt_json_u64(&j, "thread_ops_min", res->thread_ops_min);
	dt_json_u64(&j, "thread_ops_max", res->thread_ops_max);
	dt_json_num(&j, "win_s", res->win_s);
	dt_json_arr_begin(&j, "win_ops_per_s");
	for (int k = 0; k < res->nwin; k++)
		dt_json_num(&j, NULL, res->win_rate[k]);
	dt_json_arr_end(&j);
	dt_json_arr_begin(&j, "win_ops_per_cpu_s");
	for (int k = 0; k < res->nwin; k++)
		dt_json_num(&j, NULL, res->win_cpu_rate[k]);
	dt_json_arr_end(&j);
	dt_json_arr_begin(&j, "win_p10_ns");
	for (int k = 0; k < res->nwin; k++)
		dt_json_num(&j, NULL, res->win_p10[k]);
	dt_json_arr_end(&j);
	dt_json_arr_begin(&j, "win_p50_ns");
	for (int k = 0; k < res->nwin; k++)
		dt_json_num(&j, NULL, res->win_p50[k]);
	dt_json_arr_end(&j);
	dt_json_arr_begin(&j, "win_p90_ns");
	for (int k = 0; k < res->nwin; k++)
		dt_json_num(&j, NULL, res->win_p90[k]);
	dt_json_arr_end(&j);
	dt_json_hist(&j, "lat_ns", h);
	dt_json_obj_end(&j);
	rc = dt_metrics_write(&j);
	if (rc < 0)
		printf("# metrics: writing %s: %s\n", getenv("DT_METRICS"),
		       dt_strerr(rc));
	dt_json_free(&j);
}

void dt_perf_sweep(struct dt_run *r, const struct dt_perf_op *op)
{
	int th[32], n = dt_perf_threads(r, th, 32);
	struct dt_perf_result *res = malloc(sizeof(*res));

	if (!res)
		dt_broken(r, "perf: out of memory");
	for (int i = 0; i < n; i++) {
		dt_perf_point(r, op, th[i], res);
		dt_perf_report(r, op, res);
	}
	free(res);
}
