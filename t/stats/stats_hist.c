/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The log-bucket histogram: bucket geometry, percentiles within the
 * bucket resolution, merge equal to adding everything to one histogram.
 */
#include <math.h>

#include "stats/stats.h"
#include "tap.h"

static struct dt_hist h1, h2, h3;

int main(void)
{
	bool geo = true, mono = true;
	size_t prev = 0;

	/* every value falls in a bucket that holds it, no wider than 1/32 */
	for (uint64_t v = 0; v < 200000; v += 1 + v / 50) {
		size_t i = dt_hist_bucket(v);
		uint64_t lo = dt_hist_bucket_lo(i), w = dt_hist_bucket_width(i);

		if (v < lo || v >= lo + w || (v >= 32 && w * 32 > v))
			geo = false;
		if (i < prev)
			mono = false;
		prev = i;
	}
	for (int e = 5; e < DT_HIST_MAX_BITS; e++) {
		uint64_t v = (1ull << e) + (1ull << e) / 3;
		size_t i = dt_hist_bucket(v);

		if (v < dt_hist_bucket_lo(i) ||
		    v >= dt_hist_bucket_lo(i) + dt_hist_bucket_width(i))
			geo = false;
	}
	ok(geo, "every value lies in its bucket; buckets <= 1/32 of value");
	ok(mono, "bucket index grows with the value");
	is_int(dt_hist_bucket(31), 31, "values below 32 have a bucket each");
	is_int(dt_hist_bucket(UINT64_MAX), DT_HIST_NBUCKETS - 1,
	       "huge values clamp to the last bucket");

	/* uniform 1 us .. 100 ms in ns: quantiles within bucket error */
	dt_hist_init(&h1);
	for (uint64_t k = 1; k <= 100000; k++)
		dt_hist_add(&h1, k * 1000);
	struct { double q, want; } qs[] = {
		{ 0.5, 50e6 }, { 0.9, 90e6 }, { 0.99, 99e6 }, { 0.001, 100e3 },
	};
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double got = dt_hist_quantile(&h1, qs[i].q);

		ok(fabs(got - qs[i].want) / qs[i].want < 0.02,
		   "uniform: q%g = %.0f, want %.0f within 2%%", qs[i].q, got,
		   qs[i].want);
	}
	ok(h1.count == 100000 && h1.min == 1000 && h1.max == 100000000,
	   "count, min, max exact");
	ok(fabs(dt_hist_mean(&h1) - 50000500.0) < 1e-3, "mean exact: %.1f",
	   dt_hist_mean(&h1));
	ok(dt_hist_quantile(&h1, 0) == 1000 && dt_hist_quantile(&h1, 1) == 1e8,
	   "q0 is min, q1 is max");

	/* a constant: every quantile is that value (clamped to min/max) */
	dt_hist_init(&h2);
	dt_hist_add_n(&h2, 123456, 1000);
	ok(dt_hist_quantile(&h2, 0.5) == 123456 &&
	   dt_hist_quantile(&h2, 0.99) == 123456, "constant: q50 = q99 = value");

	/* merge == one histogram of everything */
	dt_hist_init(&h3);
	dt_hist_merge(&h3, &h1);
	dt_hist_merge(&h3, &h2);
	struct dt_hist *all = calloc(1, sizeof(*all));
	dt_hist_init(all);
	for (uint64_t k = 1; k <= 100000; k++)
		dt_hist_add(all, k * 1000);
	for (int k = 0; k < 1000; k++)
		dt_hist_add(all, 123456);
	ok(!memcmp(all, &h3, sizeof(h3)), "merge equals adding to one");
	struct dt_hist *empty = calloc(1, sizeof(*empty));
	dt_hist_init(empty);
	dt_hist_merge(&h3, empty);
	ok(!memcmp(all, &h3, sizeof(h3)), "merging an empty one changes nothing");
	ok(dt_hist_quantile(empty, 0.5) == 0 && dt_hist_mean(empty) == 0,
	   "empty: quantiles and mean are 0");
	free(all);
	free(empty);

	/* skewed: 99% at 1 ms, 1% at 50 ms: p50 1 ms, p999 50 ms */
	dt_hist_init(&h2);
	dt_hist_add_n(&h2, 1000000, 9900);
	dt_hist_add_n(&h2, 50000000, 100);
	ok(fabs(dt_hist_quantile(&h2, 0.5) - 1e6) / 1e6 < 0.035 &&
	   fabs(dt_hist_quantile(&h2, 0.999) - 5e7) / 5e7 < 0.035,
	   "skewed: p50 %.0f, p99.9 %.0f", dt_hist_quantile(&h2, 0.5),
	   dt_hist_quantile(&h2, 0.999));
	return done();
}
