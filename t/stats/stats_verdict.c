/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_compare: the regression / improvement / no change verdict on
 * synthetic noisy samples with known truth.
 */
#include <math.h>

#include "stats/stats.h"
#include "tap.h"

static uint64_t rng = 2024;

static double unif(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

/* normal(mean, sd) by Box-Muller */
static double gauss(double mean, double sd)
{
	return mean + sd * sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

static void fill(double *x, size_t n, double mean, double rel_sd)
{
	for (size_t i = 0; i < n; i++)
		x[i] = gauss(mean, mean * rel_sd);
}

int main(void)
{
	struct dt_cmp_opts o;
	struct dt_cmp_result r;
	double a[200], b[200];
	int rc;

	dt_cmp_opts_default(&o);
	o.boot_reps = 500;

	/* same distribution: no change, interval around 0 */
	fill(a, 30, 1000, 0.03);
	fill(b, 30, 1000, 0.03);
	rc = dt_compare(a, 30, b, 30, &o, &r);
	ok(rc == 0 && r.verdict == DT_NO_CHANGE,
	   "same distribution: %s (effect %+.2f%% [%+.2f%%, %+.2f%%], p %.3f)",
	   dt_change_name(r.verdict), 100 * r.effect, 100 * r.ci_lo,
	   100 * r.ci_hi, r.mw.p);
	ok(r.ci_lo <= r.effect && r.effect <= r.ci_hi,
	   "the effect lies in its interval");

	/* rates 10% lower: a regression; the interval holds -10% */
	fill(a, 30, 1000, 0.03);
	fill(b, 30, 900, 0.03);
	rc = dt_compare(a, 30, b, 30, &o, &r);
	ok(rc == 0 && r.verdict == DT_REGRESSION,
	   "rate -10%%: %s (effect %+.2f%% [%+.2f%%, %+.2f%%], p %.2g)",
	   dt_change_name(r.verdict), 100 * r.effect, 100 * r.ci_lo,
	   100 * r.ci_hi, r.mw.p);
	ok(r.ci_lo < -0.10 && r.ci_hi > -0.10 && r.worse > 0.08,
	   "interval holds -10%%, worse = %+.3f", r.worse);

	/* the same numbers as latencies: 10% lower latency is better */
	o.lower_is_better = true;
	rc = dt_compare(a, 30, b, 30, &o, &r);
	ok(rc == 0 &&
	   r.verdict == DT_IMPROVEMENT, "latency -10%%: %s",
	   dt_change_name(r.verdict));
	rc = dt_compare(b, 30, a, 30, &o, &r);
	ok(rc == 0 &&
	   r.verdict == DT_REGRESSION, "latency +11%%: %s (effect %+.2f%%)",
	   dt_change_name(r.verdict), 100 * r.effect);
	o.lower_is_better = false;

	/* real but below the practical threshold: significant, no change */
	fill(a, 200, 1000, 0.01);
	fill(b, 200, 990, 0.01);
	rc = dt_compare(a, 200, b, 200, &o, &r);
	ok(rc == 0 && r.significant &&
	   r.verdict == DT_NO_CHANGE,
	   "-1%% with min effect 3%%: significant (p %.2g) but %s",
	   r.mw.p, dt_change_name(r.verdict));
	o.min_effect = 0.005;
	rc = dt_compare(a, 200, b, 200, &o, &r);
	ok(rc == 0 &&
	   r.verdict == DT_REGRESSION, "-1%% with min effect 0.5%%: %s",
	   dt_change_name(r.verdict));
	o.min_effect = 0.03;

	/* a big effect on too few samples is not significant */
	static const double a3[] = { 100, 130 }, b3[] = { 80, 105 };
	rc = dt_compare(a3, 2, b3, 2, &o, &r);
	ok(rc == 0 && r.verdict == DT_NO_CHANGE,
	   "2 vs 2 samples: %s (p %.2f)", dt_change_name(r.verdict), r.mw.p);

	/* outliers do not make a regression: ranks, not means */
	fill(a, 30, 1000, 0.02);
	fill(b, 30, 1000, 0.02);
	b[3] = 10;
	b[17] = 20;
	rc = dt_compare(a, 30, b, 30, &o, &r);
	ok(rc == 0 && r.verdict == DT_NO_CHANGE,
	   "two wild outliers in B: %s", dt_change_name(r.verdict));

	/* zero and negative values: shift relative to median(A) */
	static const double za[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const double zb[] = { 10, 11, 12, 13, 14, 15, 16, 17 };
	rc = dt_compare(za, 8, zb, 8, &o, &r);
	ok(rc == 0 &&
	   r.verdict == DT_IMPROVEMENT && fabs(r.shift - 10) < 1e-9,
	   "non-positive data: shift %g, %s", r.shift,
	   dt_change_name(r.verdict));

	/* false alarms: 200 null comparisons with 3% noise, n = 20 */
	int alarms = 0;
	for (int k = 0; k < 200; k++) {
		fill(a, 20, 1000, 0.03);
		fill(b, 20, 1000, 0.03);
		o.seed = (uint64_t)k + 1;
		dt_compare(a, 20, b, 20, &o, &r);
		alarms += r.verdict != DT_NO_CHANGE;
	}
	ok(alarms <= 10, "null: %d alarms in 200 (at most 5%%)", alarms);
	/* power: a 5% shift with 3% noise, n = 20 */
	int hits = 0;
	for (int k = 0; k < 100; k++) {
		fill(a, 20, 1000, 0.03);
		fill(b, 20, 950, 0.03);
		dt_compare(a, 20, b, 20, &o, &r);
		hits += r.verdict == DT_REGRESSION;
	}
	ok(hits >= 90, "-5%% with 3%% noise: caught %d of 100", hits);
	return done();
}
