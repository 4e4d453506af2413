/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The perf engine's timed loop (dt_perf_loop) without a target: a fake op
 * that spins for a known time, checked for op counts, windows, the op
 * bound, error accounting and the per-window latency percentiles; and the
 * JSON writer the metrics lines are made with.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <time.h>

#include "core/perf.h"
#include "tap.h"

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* spin for *arg microseconds; fail every 7th op when asked */
static int spin_op(struct dt_worker *w, void *state, uint64_t i)
{
	const int *us = state;
	uint64_t end = mono() + (uint64_t)*us * 1000;

	(void)w;
	while (mono() < end)
		;
	return us[1] && i % 7 == 3 ? -EIO : 0;
}

static struct dt_worker w;
static struct dt_perf_wres res;

static void fresh(void)
{
	memset(&res, 0, sizeof(res));
	dt_hist_init(&res.hist);
}

int main(void)
{
	struct dt_perf_op op = { .name = "spin", .opcode = DT_OP_LOOKUP,
				 .fn = spin_op };
	int arg[2] = { 200, 0 };	/* 200 us an op, no errors */
	uint64_t n = 0;

	/* 10 windows of 20 ms after 10 ms warm-up: ~1000 ops of 200 us */
	fresh();
	dt_perf_loop(&w, &op, arg, mono(), 10000000, 20000000, 10,
		     DT_PERF_MAX_OPS, &res);
	for (int k = 0; k < 10; k++)
		n += res.win[k];
	ok(res.ops == n && res.hist.count == n,
	   "ops = sum of windows = histogram count (%llu)",
	   (unsigned long long)n);
	/*
	 * No check below depends on how much CPU this process got: on a
	 * loaded machine an op of 200 us can take milliseconds of wall time
	 * and a window can pass without an op.  What always holds: an op
	 * takes at least its spin, so no more ops fit than the span allows;
	 * the loop runs to the end of its last window unless capped.
	 */
	double span_ns = (double)(res.t_end - res.t_begin);
	ok(n >= 1 && (double)n * 200000 <= span_ns + 200000,
	   "%llu ops of >= 200 us fit in the %.1f ms measured",
	   (unsigned long long)n, span_ns / 1e6);
	ok(res.t_end >= res.t_begin + 10 * 20000000ull,
	   "the loop ran to the end of its 10 windows (%.1f ms)",
	   span_ns / 1e6);
	double p50 = dt_hist_quantile(&res.hist, 0.5);
	ok(p50 >= 195000 && p50 <= span_ns,
	   "op latency p50 %.0f ns: at least the 200 us spin", p50);
	bool wq = true;
	int with_ops = 0;
	for (int k = 0; k < 10; k++) {
		if (!res.win[k]) {
			wq &= isnan(res.wp50[k]);
			continue;
		}
		with_ops++;
		wq &= res.wp50[k] >= 190000 && res.wp10[k] <= res.wp50[k] &&
		      res.wp50[k] <= res.wp90[k];
	}
	ok(wq && with_ops >= 1, "per-window p10 <= p50 <= p90, p50 >= 200 us, "
	   "empty windows without percentiles (%d of 10 with ops; window 0: "
	   "%.0f/%.0f/%.0f)", with_ops, res.wp10[0], res.wp50[0], res.wp90[0]);
	ok(isnan(res.wp50[10]), "windows past the last stay empty");
	ok(res.cpu_ns > 0 && (double)res.cpu_ns <= span_ns + 20000000,
	   "thread CPU time counted, not more than the span: %.1f ms",
	   (double)res.cpu_ns / 1e6);
	ok(!res.capped && !res.errors, "not capped, no errors");
	ok(w.busy == 0 && w.op_start_ns != 0,
	   "watchdog slot: op start published, idle after");

	/* the op bound ends the loop first and says so */
	fresh();
	/* (windows long enough that only the bound can end the loop) */
	dt_perf_loop(&w, &op, arg, mono(), 0, 20000000000ull, 5, 50, &res);
	ok(res.capped && res.ops == 50, "bound of 50 ops: capped at %llu",
	   (unsigned long long)res.ops);

	/* errors: counted, the first kept (only ops after the warm-up) */
	arg[1] = 1;
	arg[0] = 20;
	fresh();
	dt_perf_loop(&w, &op, arg, mono(), 0, 20000000000ull, 2, 70, &res);
	ok(res.errors == 10 && res.first_err == -EIO && res.first_err_i == 3,
	   "70 ops, every 7th fails: %llu errors, first EIO at op %llu",
	   (unsigned long long)res.errors,
	   (unsigned long long)res.first_err_i);

	/* JSON writer: nesting, escaping, numbers */
	struct dt_json j;
	struct dt_hist h;

	dt_json_init(&j);
	dt_json_obj_begin(&j, NULL);
	dt_json_str(&j, "s", "a\"b\\c\nd");
	dt_json_int(&j, "i", -3);
	dt_json_num(&j, "x", 0.25);
	dt_json_num(&j, "nan", NAN);
	dt_json_arr_begin(&j, "a");
	dt_json_num(&j, NULL, 1);
	dt_json_num(&j, NULL, 2);
	dt_json_arr_end(&j);
	dt_json_raw_members(&j, "\"r\":1");
	dt_json_bool(&j, "b", true);
	dt_json_obj_end(&j);
	is_str(j.buf, "{\"s\":\"a\\\"b\\\\c\\u000ad\",\"i\":-3,\"x\":0.25,"
		      "\"nan\":null,\"a\":[1,2],\"r\":1,\"b\":true}",
	       "JSON: escapes, null for NaN, arrays, raw members");
	dt_json_free(&j);
	dt_hist_init(&h);
	dt_hist_add_n(&h, 1000, 3);
	dt_json_init(&j);
	dt_json_obj_begin(&j, NULL);
	dt_json_hist(&j, "lat", &h);
	dt_json_obj_end(&j);
	ok(j.buf && strstr(j.buf, "\"n\":3") &&
	   strstr(j.buf, "\"buckets\":[[992,3]]"),
	   "histogram JSON: count and sparse buckets (%s)", j.buf);
	dt_json_free(&j);
	return done();
}
