/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Histograms and the regression verdict; see stats.h.
 *
 * Mann-Whitney U follows the textbook normal approximation (e.g. Conover,
 * "Practical Nonparametric Statistics", 5.1; scipy's mannwhitneyu with
 * method="asymptotic", use_continuity=True gives the same p):
 *   U_A   = R_A - na (na + 1) / 2      (R_A: sum of A's mid-ranks)
 *   var U = na nb / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1)))
 *   z     = (U_A - na nb / 2 - sign * 0.5) / sqrt(var U)
 *   p     = erfc(|z| / sqrt 2)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

/* ---- histogram ------------------------------------------------------------ */

void dt_hist_init(struct dt_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint64_t dt_hist_bucket_lo(size_t i)
{
	size_t g = i >> DT_HIST_SUB_BITS, sub = i & (DT_HIST_SUB - 1);

	if (g == 0)
		return (uint64_t)i;
	return (uint64_t)(DT_HIST_SUB + sub) << (g - 1);
}

uint64_t dt_hist_bucket_width(size_t i)
{
	size_t g = i >> DT_HIST_SUB_BITS;

	return g == 0 ? 1 : (uint64_t)1 << (g - 1);
}

void dt_hist_add_n(struct dt_hist *h, uint64_t v, uint64_t n)
{
	if (!n)
		return;
	h->b[dt_hist_bucket(v)] += n;
	h->count += n;
	h->sum += v * n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void dt_hist_merge(struct dt_hist *dst, const struct dt_hist *src)
{
	if (!src->count)
		return;
	for (size_t i = 0; i < DT_HIST_NBUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

double dt_hist_quantile(const struct dt_hist *h, double q)
{
	double rank, cum = 0;

	if (!h->count)
		return 0;
	if (!(q > 0))
		return (double)h->min;
	if (q >= 1)
		return (double)h->max;
	/* the value below which a fraction q of the samples lie */
	rank = q * (double)h->count;
	for (size_t i = 0; i < DT_HIST_NBUCKETS; i++) {
		double c = (double)h->b[i], v;

		if (!h->b[i] || cum + c < rank) {
			cum += c;
			continue;
		}
		/* spread the bucket's samples evenly over its width */
		v = (double)dt_hist_bucket_lo(i) +
		    (double)dt_hist_bucket_width(i) * (rank - cum) / c;
		if (v < (double)h->min)
			v = (double)h->min;
		if (v > (double)h->max)
			v = (double)h->max;
		return v;
	}
	return (double)h->max;
}

double dt_hist_quantile_since(const struct dt_hist *h, const uint64_t *prev,
			      double q)
{
	uint64_t n = 0;
	double rank, cum = 0;

	for (size_t i = 0; i < DT_HIST_NBUCKETS; i++)
		n += h->b[i] - (prev ? prev[i] : 0);
	if (!n)
		return NAN;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	rank = q * (double)n;
	for (size_t i = 0; i < DT_HIST_NBUCKETS; i++) {
		double c = (double)(h->b[i] - (prev ? prev[i] : 0));

		if (c == 0 || cum + c < rank) {
			cum += c;
			continue;
		}
		return (double)dt_hist_bucket_lo(i) +
		       (double)dt_hist_bucket_width(i) * (rank - cum) / c;
	}
	return NAN;
}

double dt_hist_mean(const struct dt_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}

/* ---- selection -------------------------------------------------------------- */

static void swapd(double *x, size_t i, size_t j)
{
	double t = x[i];

	x[i] = x[j];
	x[j] = t;
}

/*
 * Put the k-th smallest of x[0..n-1] at x[k], everything smaller before
 * it and everything larger after it (quickselect, three-way partition so
 * that runs of equal values, common in timing data, cost nothing extra).
 */
static void select_k(double *x, size_t n, size_t k)
{
	size_t lo = 0, hi = n;	/* the k-th lies in [lo, hi) */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2, lt = lo, i = lo, gt = hi;
		double a = x[lo], b = x[mid], c = x[hi - 1], p;

		/* median of three */
		p = a < b ? (b < c ? b : (a < c ? c : a))
			  : (a < c ? a : (b < c ? c : b));
		/* [lo, lt) < p, [lt, i) == p, [gt, hi) > p */
		while (i < gt) {
			if (x[i] < p)
				swapd(x, lt++, i++);
			else if (x[i] > p)
				swapd(x, i, --gt);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
}

/* Median of x[0..n-1], reordering x. */
static double median_inplace(double *x, size_t n)
{
	size_t k = n / 2;
	double m, m2;

	select_k(x, n, k);
	m = x[k];
	if (n & 1)
		return m;
	/* even: the mean of the two middle values; the other is below k */
	m2 = x[0];
	for (size_t i = 1; i < k; i++)
		if (x[i] > m2)
			m2 = x[i];
	return (m + m2) / 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double dt_quantile(const double *x, size_t n, double q)
{
	double *s, pos, r;
	size_t i;

	if (!n)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	pos = q * (double)(n - 1);
	i = (size_t)pos;
	r = i + 1 < n ? s[i] + (pos - (double)i) * (s[i + 1] - s[i]) : s[i];
	free(s);
	return r;
}

double dt_median(const double *x, size_t n)
{
	return dt_quantile(x, n, 0.5);
}

/* ---- Mann-Whitney U ---------------------------------------------------------- */

struct tagged {
	double v;
	int from_a;
};

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_double(&((const struct tagged *)a)->v,
			  &((const struct tagged *)b)->v);
}

double dt_normal_p2(double z)
{
	return erfc(fabs(z) / sqrt(2.0));
}

int dt_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		    struct dt_mwu *out)
{
	size_t n = na + nb, i, j;
	struct tagged *t;
	double ra = 0, ties = 0, var, d;

	if (!na || !nb)
		return -EINVAL;
	for (i = 0; i < na; i++)
		if (isnan(a[i]))
			return -EINVAL;
	for (i = 0; i < nb; i++)
		if (isnan(b[i]))
			return -EINVAL;
	t = malloc(n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < na; i++)
		t[i] = (struct tagged){ a[i], 1 };
	for (i = 0; i < nb; i++)
		t[na + i] = (struct tagged){ b[i], 0 };
	qsort(t, n, sizeof(*t), cmp_tagged);
	/* mid-ranks over runs of equal values */
	for (i = 0; i < n; i = j) {
		double rank, tl;

		for (j = i + 1; j < n && t[j].v == t[i].v; j++)
			;
		rank = ((double)(i + 1) + (double)j) / 2;
		tl = (double)(j - i);
		ties += tl * tl * tl - tl;
		for (size_t k = i; k < j; k++)
			if (t[k].from_a)
				ra += rank;
	}
	free(t);
	out->u = ra - (double)na * ((double)na + 1) / 2;
	out->mean = (double)na * (double)nb / 2;
	var = (double)na * (double)nb / 12 *
	      (((double)n + 1) - ties / ((double)n * ((double)n - 1)));
	out->sd = var > 0 ? sqrt(var) : 0;
	out->auc = out->u / ((double)na * (double)nb);
	if (out->sd == 0) {
		out->z = 0;
		out->p = 1;
		return 0;
	}
	d = out->u - out->mean;
	/* continuity correction: half a step towards the mean */
	if (d > 0)
		d = d - 0.5 < 0 ? 0 : d - 0.5;
	else if (d < 0)
		d = d + 0.5 > 0 ? 0 : d + 0.5;
	out->z = d / out->sd;
	out->p = dt_normal_p2(out->z);
	if (out->p > 1)
		out->p = 1;
	return 0;
}

/* ---- Hodges-Lehmann ------------------------------------------------------------ */

static int check_pairs(size_t na, size_t nb)
{
	if (!na || !nb)
		return -EINVAL;
	if ((double)na * (double)nb > DT_HL_MAX_PAIRS)
		return -E2BIG;
	return 0;
}

/* median of b[ib[j]] - a[ia[i]] over all pairs; idx NULL = identity */
static double hl_pairs(const double *a, const size_t *ia, size_t na,
		       const double *b, const size_t *ib, size_t nb,
		       double *work)
{
	size_t k = 0;

	for (size_t i = 0; i < na; i++) {
		double ai = a[ia ? ia[i] : i];

		for (size_t j = 0; j < nb; j++)
			work[k++] = b[ib ? ib[j] : j] - ai;
	}
	return median_inplace(work, k);
}

int dt_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb,
		      double *shift)
{
	int rc = check_pairs(na, nb);
	double *w;

	if (rc)
		return rc;
	w = malloc(na * nb * sizeof(*w));
	if (!w)
		return -ENOMEM;
	*shift = hl_pairs(a, NULL, na, b, NULL, nb, w);
	free(w);
	return 0;
}

/* log of every value, or -EDOM for a value <= 0 */
static int logs(const double *x, size_t n, double **out)
{
	double *l = malloc(n * sizeof(*l));

	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0)) {
			free(l);
			return -EDOM;
		}
		l[i] = log(x[i]);
	}
	*out = l;
	return 0;
}

int dt_hl_ratio(const double *a, size_t na, const double *b, size_t nb,
		double *ratio)
{
	double *la = NULL, *lb = NULL, s = 0;
	int rc = check_pairs(na, nb);

	if (rc)
		return rc;
	rc = logs(a, na, &la);
	if (!rc)
		rc = logs(b, nb, &lb);
	if (!rc)
		rc = dt_hodges_lehmann(la, na, lb, nb, &s);
	if (!rc)
		*ratio = exp(s);
	free(la);
	free(lb);
	return rc;
}

/* ---- bootstrap ------------------------------------------------------------------ */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t uniform(uint64_t *s, size_t n)
{
	return (size_t)(((unsigned __int128)splitmix(s) * n) >> 64);
}

int dt_bootstrap_ci(const double *a, size_t na, const double *b, size_t nb,
		    enum dt_boot_stat stat, int reps, double conf,
		    uint64_t seed, double *lo, double *hi)
{
	double *xa = NULL, *xb = NULL, *stats = NULL, *work = NULL;
	size_t *ia = NULL, *ib = NULL;
	uint64_t rng = seed;
	int rc = 0;

	if (!na || !nb || reps < 10 || !(conf > 0 && conf < 1))
		return -EINVAL;
	if (stat != DT_BOOT_MEDIAN_RATIO) {
		rc = check_pairs(na, nb);
		if (rc)
			return rc;
	}
	/* the data on the scale the statistic works on */
	if (stat == DT_BOOT_HL_RATIO) {
		rc = logs(a, na, &xa);
		if (!rc)
			rc = logs(b, nb, &xb);
	} else {
		xa = malloc(na * sizeof(*xa));
		xb = malloc(nb * sizeof(*xb));
		if (!xa || !xb)
			rc = -ENOMEM;
		else {
			memcpy(xa, a, na * sizeof(*xa));
			memcpy(xb, b, nb * sizeof(*xb));
		}
	}
	if (rc)
		goto out;
	stats = malloc((size_t)reps * sizeof(*stats));
	ia = malloc(na * sizeof(*ia));
	ib = malloc(nb * sizeof(*ib));
	work = malloc((stat == DT_BOOT_MEDIAN_RATIO ? na + nb : na * nb) *
		      sizeof(*work));
	if (!stats || !ia || !ib || !work) {
		rc = -ENOMEM;
		goto out;
	}
	for (int r = 0; r < reps; r++) {
		for (size_t i = 0; i < na; i++)
			ia[i] = uniform(&rng, na);
		for (size_t j = 0; j < nb; j++)
			ib[j] = uniform(&rng, nb);
		if (stat == DT_BOOT_MEDIAN_RATIO) {
			double ma, mb;

			for (size_t i = 0; i < na; i++)
				work[i] = xa[ia[i]];
			ma = median_inplace(work, na);
			for (size_t j = 0; j < nb; j++)
				work[j] = xb[ib[j]];
			mb = median_inplace(work, nb);
			stats[r] = ma != 0 ? mb / ma : NAN;
		} else {
			stats[r] = hl_pairs(xa, ia, na, xb, ib, nb, work);
			if (stat == DT_BOOT_HL_RATIO)
				stats[r] = exp(stats[r]);
		}
	}
	*lo = dt_quantile(stats, (size_t)reps, (1 - conf) / 2);
	*hi = dt_quantile(stats, (size_t)reps, (1 + conf) / 2);
out:
	free(xa);
	free(xb);
	free(stats);
	free(ia);
	free(ib);
	free(work);
	return rc;
}

int dt_bootstrap_median_ci(const double *x, size_t n, int reps, double conf,
			   uint64_t seed, double *lo, double *hi)
{
	double *stats, *work;
	uint64_t rng = seed;

	if (!n || reps < 10 || !(conf > 0 && conf < 1))
		return -EINVAL;
	stats = malloc((size_t)reps * sizeof(*stats));
	work = malloc(n * sizeof(*work));
	if (!stats || !work) {
		free(stats);
		free(work);
		return -ENOMEM;
	}
	for (int r = 0; r < reps; r++) {
		for (size_t i = 0; i < n; i++)
			work[i] = x[uniform(&rng, n)];
		stats[r] = median_inplace(work, n);
	}
	*lo = dt_quantile(stats, (size_t)reps, (1 - conf) / 2);
	*hi = dt_quantile(stats, (size_t)reps, (1 + conf) / 2);
	free(stats);
	free(work);
	return 0;
}

/* ---- verdict ---------------------------------------------------------------------- */

const char *dt_change_name(enum dt_change c)
{
	switch (c) {
	case DT_REGRESSION:
		return "regression";
	case DT_IMPROVEMENT:
		return "improvement";
	case DT_NO_CHANGE:
		break;
	}
	return "no change";
}

void dt_cmp_opts_default(struct dt_cmp_opts *o)
{
	*o = (struct dt_cmp_opts){
		.alpha = 0.05,
		.min_effect = 0.03,
		.lower_is_better = false,
		.boot_reps = 2000,
		.conf = 0.95,
		.seed = 1,
	};
}

/* Above this many pairs the bootstrap uses the ratio of medians (speed). */
#define BOOT_HL_PAIRS_MAX	20000

int dt_compare(const double *a, size_t na, const double *b, size_t nb,
	       const struct dt_cmp_opts *opts, struct dt_cmp_result *r)
{
	struct dt_cmp_opts o;
	bool positive = true;
	enum dt_boot_stat bs;
	double lo, hi, ratio;
	int rc;

	if (opts)
		o = *opts;
	else
		dt_cmp_opts_default(&o);
	memset(r, 0, sizeof(*r));
	r->na = na;
	r->nb = nb;
	rc = dt_mann_whitney(a, na, b, nb, &r->mw);
	if (rc)
		return rc;
	r->median_a = dt_median(a, na);
	r->median_b = dt_median(b, nb);
	rc = dt_hodges_lehmann(a, na, b, nb, &r->shift);
	if (rc)
		return rc;
	for (size_t i = 0; i < na; i++)
		positive &= a[i] > 0;
	for (size_t j = 0; j < nb; j++)
		positive &= b[j] > 0;
	if (positive) {
		rc = dt_hl_ratio(a, na, b, nb, &ratio);
		if (rc)
			return rc;
		r->effect = ratio - 1;
		bs = (double)na * (double)nb <= BOOT_HL_PAIRS_MAX
			     ? DT_BOOT_HL_RATIO : DT_BOOT_MEDIAN_RATIO;
		rc = dt_bootstrap_ci(a, na, b, nb, bs, o.boot_reps, o.conf,
				     o.seed, &lo, &hi);
		if (rc)
			return rc;
		r->ci_lo = lo - 1;
		r->ci_hi = hi - 1;
		r->stat = bs == DT_BOOT_HL_RATIO ? "HL ratio (log scale)"
						 : "ratio of medians";
	} else {
		/* no log scale: the shift relative to the baseline median */
		double m = fabs(r->median_a) > 0 ? fabs(r->median_a) : 1;

		r->effect = r->shift / m;
		rc = dt_bootstrap_ci(a, na, b, nb, DT_BOOT_HL_SHIFT,
				     o.boot_reps, o.conf, o.seed, &lo, &hi);
		if (rc)
			return rc;
		r->ci_lo = lo / m;
		r->ci_hi = hi / m;
		r->stat = "HL shift / median(A)";
	}
	r->worse = o.lower_is_better ? r->effect : -r->effect;
	r->significant = r->mw.p < o.alpha &&
			 (r->ci_lo > 0 || r->ci_hi < 0);
	r->verdict = DT_NO_CHANGE;
	if (r->significant && fabs(r->effect) >= o.min_effect)
		r->verdict = r->worse > 0 ? DT_REGRESSION : DT_IMPROVEMENT;
	return 0;
}
