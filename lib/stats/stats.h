/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Statistics for performance regressions: log-bucket latency histograms,
 * and a noise-aware comparison of two sets of samples (a baseline A and a
 * candidate B): Mann-Whitney U (normal approximation with tie and
 * continuity correction), the Hodges-Lehmann shift, a seeded bootstrap
 * interval, and a verdict (regression / improvement / no change).
 *
 * Everything here is pure (no I/O, no global state): t/stats/ feeds it
 * hand-computed data.
 *
 * Layer "stats" (this header is its front page): measurement that knows
 * nothing of tests or runs: these statistics, the metrics file and its
 * JSON writer (metrics.h), and the parser of the NFS client's
 * /proc/self/mountstats (mountstats.h).  May call: base and libc.  The
 * perf engine that fills metrics from worker loops is core's (core/perf.h).
 */
#ifndef DENTRACE_STATS_H
#define DENTRACE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- log-bucket histogram ---------------------------------------------- */

/*
 * Values (nanoseconds, but any unsigned integer works) below 2^SUB_BITS
 * get a bucket each; above, every power of two is split into 2^SUB_BITS
 * equal buckets, so a bucket is at most 1/32 = 3.1% of its value wide and
 * a percentile read back is within ~1.6% of the truth.  Values at or above
 * 2^DT_HIST_MAX_BITS (~4.9 hours in ns) land in the last bucket.
 */
#define DT_HIST_SUB_BITS	5
#define DT_HIST_SUB		(1u << DT_HIST_SUB_BITS)
#define DT_HIST_MAX_BITS	44
#define DT_HIST_NBUCKETS	((DT_HIST_MAX_BITS - DT_HIST_SUB_BITS + 1) * \
				 DT_HIST_SUB)

struct dt_hist {
	uint64_t count;
	uint64_t min, max;	/* exact; min is UINT64_MAX while empty */
	uint64_t sum;		/* for the mean (2^64 ns = 584 years) */
	uint64_t b[DT_HIST_NBUCKETS];
};

void dt_hist_init(struct dt_hist *h);

static inline size_t dt_hist_bucket(uint64_t v)
{
	unsigned e;
	size_t i;

	if (v < DT_HIST_SUB)
		return (size_t)v;
	e = 63u - (unsigned)__builtin_clzll(v);	/* >= SUB_BITS */
	i = ((size_t)(e - DT_HIST_SUB_BITS + 1) << DT_HIST_SUB_BITS) +
	    (size_t)((v >> (e - DT_HIST_SUB_BITS)) & (DT_HIST_SUB - 1));
	return i < DT_HIST_NBUCKETS ? i : DT_HIST_NBUCKETS - 1;
}

/* Lowest value of bucket i and its width. */
uint64_t dt_hist_bucket_lo(size_t i);
uint64_t dt_hist_bucket_width(size_t i);

/* The hot path: a few instructions, no branches that mispredict often. */
static inline void dt_hist_add(struct dt_hist *h, uint64_t v)
{
	h->b[dt_hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void dt_hist_add_n(struct dt_hist *h, uint64_t v, uint64_t n);
void dt_hist_merge(struct dt_hist *dst, const struct dt_hist *src);
/*
 * Quantile q in [0, 1] (0.5 = median, 0.99 = p99): interpolated within
 * its bucket, clamped to [min, max]; 0 for an empty histogram.
 */
double dt_hist_quantile(const struct dt_hist *h, double q);
double dt_hist_mean(const struct dt_hist *h);
/*
 * Quantile q of what h gained since a snapshot of its buckets (prev, as
 * memcpy'd from h->b; NULL: since empty), interpolated within buckets
 * (no min/max clamp: they are not kept per interval).  NAN when nothing
 * was added.
 */
double dt_hist_quantile_since(const struct dt_hist *h, const uint64_t *prev,
			      double q);

/* ---- order statistics of plain samples --------------------------------- */

/* Median of x[0..n-1] (x is not changed); NAN for n == 0. */
double dt_median(const double *x, size_t n);
/* Quantile q of x, linear interpolation between order statistics. */
double dt_quantile(const double *x, size_t n, double q);

/* ---- Mann-Whitney U ------------------------------------------------------ */

struct dt_mwu {
	double u;	/* U of A: #(a > b) + #(a == b) / 2 over all pairs */
	double mean;	/* na * nb / 2 */
	double sd;	/* sqrt of the tie-corrected variance; 0: all tied */
	double z;	/* (u - mean -/+ 0.5) / sd, continuity corrected */
	double p;	/* two-sided p, normal approximation; 1 when sd == 0 */
	double auc;	/* u / (na * nb): P(A > B) + P(A == B) / 2 */
};

/* 0, or -EINVAL when a sample is empty or holds a NaN, -ENOMEM. */
int dt_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		    struct dt_mwu *out);

/* Two-sided p of a standard normal z: erfc(|z| / sqrt 2). */
double dt_normal_p2(double z);

/* ---- Hodges-Lehmann and the bootstrap ---------------------------------- */

/* Largest na * nb the pairwise estimators accept (memory: 8 bytes each). */
#define DT_HL_MAX_PAIRS		(4u * 1024 * 1024)

/*
 * Hodges-Lehmann estimate of the shift from A to B: the median of all
 * na * nb differences b_j - a_i.  0, -EINVAL (empty), -E2BIG, -ENOMEM.
 */
int dt_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb,
		      double *shift);

/*
 * The same on a log scale, as a ratio: exp(median(log b_j - log a_i)).
 * For positive data (rates, latencies): 1.10 means B is 10% higher.
 * -EDOM if a value is <= 0.
 */
int dt_hl_ratio(const double *a, size_t na, const double *b, size_t nb,
		double *ratio);

enum dt_boot_stat {
	DT_BOOT_HL_SHIFT,	/* HL shift B - A */
	DT_BOOT_HL_RATIO,	/* HL ratio on the log scale (see above) */
	DT_BOOT_MEDIAN_RATIO,	/* median(B) / median(A) */
};

/*
 * Percentile bootstrap interval of a statistic: resample A and B (each
 * with replacement, independently) reps times with a PRNG seeded by seed,
 * and return the (1 - conf) / 2 and (1 + conf) / 2 quantiles of the
 * statistic.  The same seed gives the same interval.
 */
int dt_bootstrap_ci(const double *a, size_t na, const double *b, size_t nb,
		    enum dt_boot_stat stat, int reps, double conf,
		    uint64_t seed, double *lo, double *hi);

/*
 * One sample: percentile bootstrap interval of the median of x (e.g. the
 * ratios of paired measurements).  Same seed, same interval.
 */
int dt_bootstrap_median_ci(const double *x, size_t n, int reps, double conf,
			   uint64_t seed, double *lo, double *hi);

/* ---- the verdict ---------------------------------------------------------- */

enum dt_change {
	DT_NO_CHANGE = 0,
	DT_REGRESSION = 1,
	DT_IMPROVEMENT = 2,
};

const char *dt_change_name(enum dt_change c);	/* "no change", ... */

struct dt_cmp_opts {
	double alpha;		/* two-sided significance (default 0.05) */
	double min_effect;	/* smallest relative change that counts,
				 * e.g. 0.03 = 3% (default 0.03) */
	bool lower_is_better;	/* latency: true; rates: false (default) */
	int boot_reps;		/* bootstrap resamples (default 2000) */
	double conf;		/* interval level (default 0.95) */
	uint64_t seed;		/* bootstrap seed (default 1) */
};

struct dt_cmp_result {
	enum dt_change verdict;
	size_t na, nb;
	double median_a, median_b;
	struct dt_mwu mw;
	double shift;		/* HL shift B - A, in the samples' unit */
	/*
	 * Relative effect of B against A: HL ratio - 1 on the log scale
	 * (shift / median(A) if a value is not positive).  +0.10: B is 10%
	 * higher.  ci_lo, ci_hi: its bootstrap interval.
	 */
	double effect, ci_lo, ci_hi;
	/* effect signed so that > 0 is worse (a slowdown), for reports */
	double worse;
	bool significant;	/* p < alpha and the interval excludes 0 */
	const char *stat;	/* which statistic the interval is of */
};

/*
 * Compare candidate B with baseline A.  The verdict is a regression (or
 * an improvement) when the difference is significant (Mann-Whitney p <
 * alpha and the bootstrap interval of the effect excludes 0) and the
 * Hodges-Lehmann effect is at least min_effect in the bad (good)
 * direction; otherwise no change.  opts NULL: the defaults.
 * 0, or -errno from the estimators.
 */
int dt_compare(const double *a, size_t na, const double *b, size_t nb,
	       const struct dt_cmp_opts *opts, struct dt_cmp_result *r);

void dt_cmp_opts_default(struct dt_cmp_opts *o);

#endif /* DENTRACE_STATS_H */
