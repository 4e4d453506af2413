/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mann-Whitney U, Hodges-Lehmann and the bootstrap against values worked
 * out by hand (the arithmetic is in the comments) and one published
 * example (scipy.stats.mannwhitneyu docs, method="asymptotic").
 */
#include <errno.h>
#include <math.h>

#include "stats/stats.h"
#include "tap.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

static bool near(double got, double want, double tol)
{
	return fabs(got - want) <= tol;
}

static void mw_is(const double *a, size_t na, const double *b, size_t nb,
		  double u, double sd, double z, double p, const char *what)
{
	struct dt_mwu m;
	int rc = dt_mann_whitney(a, na, b, nb, &m);

	ok(rc == 0 && near(m.u, u, 1e-9) && near(m.sd, sd, 1e-9) &&
	   near(m.z, z, 1e-9) && near(m.p, p, 1e-9),
	   "%s: U %g sd %.6f z %.6f p %.6f", what, m.u, m.sd, m.z, m.p);
	if (rc || !near(m.p, p, 1e-9))
		diag("want U %g sd %.9f z %.9f p %.9f", u, sd, z, p);
}

int main(void)
{
	/*
	 * A = 1 2 3, B = 4 5 6: A's ranks 1 2 3, R_A = 6, U_A = 6 - 3*4/2
	 * = 0; mean 4.5; var = 9/12 * 7 = 5.25, sd = 2.291287847;
	 * z = (0 - 4.5 + 0.5) / sd = -1.745743122; p = erfc(|z|/sqrt 2)
	 * = 0.080855598.
	 */
	static const double a1[] = { 1, 2, 3 }, b1[] = { 4, 5, 6 };
	mw_is(a1, 3, b1, 3, 0, 2.29128784747792, -1.7457431218879391,
	      0.0808555983700523, "separated 3 vs 3");
	/* swapped: U = 9, z and p mirrored */
	mw_is(b1, 3, a1, 3, 9, 2.29128784747792, 1.7457431218879391,
	      0.0808555983700523, "separated 3 vs 3, swapped");

	/*
	 * Ties: A = 1 2 2 3, B = 2 3 4 5.  Pooled: 1a 2a 2a 2b 3a 3b 4b 5b,
	 * mid-ranks 1, 3 3 3, 5.5 5.5, 7, 8; R_A = 1 + 3 + 3 + 5.5 = 12.5,
	 * U_A = 12.5 - 10 = 2.5 (pairs: 0 + .5 + .5 + 1.5).  Ties t = 3, 2:
	 * sum t^3 - t = 24 + 6 = 30; var = 16/12 * (9 - 30/56) = 11.2857143,
	 * sd = 3.359421719; z = (2.5 - 8 + 0.5) / sd = -1.488351394;
	 * p = 0.136658248.
	 */
	static const double a2[] = { 1, 2, 2, 3 }, b2[] = { 2, 3, 4, 5 };
	mw_is(a2, 4, b2, 4, 2.5, 3.3594217189442417, -1.4883513944689681,
	      0.13665824773814753, "ties 4 vs 4");

	/* scipy docs: males vs females, asymptotic p = 0.11134688653314041 */
	static const double m[] = { 19, 22, 16, 29, 24 };
	static const double f[] = { 20, 11, 17, 12 };
	mw_is(m, 5, f, 4, 17, 4.08248290463863, 1.5921683328090657,
	      0.11134688653314041, "scipy example 5 vs 4");

	/* all equal: no information, p = 1 */
	static const double e[] = { 7, 7, 7 };
	mw_is(e, 3, e, 3, 4.5, 0, 0, 1, "all tied");

	struct dt_mwu mm;
	ok(dt_mann_whitney(a1, 0, b1, 3, &mm) == -EINVAL, "empty A: EINVAL");
	static const double nan1[] = { 1, NAN };
	ok(dt_mann_whitney(nan1, 2, b1, 3, &mm) == -EINVAL, "NaN: EINVAL");

	/* p-value calibration: 2000 null comparisons, 20 vs 20 */
	uint64_t s = 12345;
	int alarms = 0;
	for (int k = 0; k < 2000; k++) {
		double x[20], y[20];

		for (int i = 0; i < 20; i++) {
			/* splitmix-ish uniform(0,1) */
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			x[i] = (double)(s >> 11) / 9007199254740992.0;
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			y[i] = (double)(s >> 11) / 9007199254740992.0;
		}
		dt_mann_whitney(x, 20, y, 20, &mm);
		alarms += mm.p < 0.05;
	}
	/* binomial(2000, 0.05) sd ~ 9.7: 0.05 +- 3 sd, slightly conservative */
	ok(alarms >= 60 && alarms <= 130,
	   "null calibration: p < 0.05 in %d of 2000 (expect ~100)", alarms);

	/*
	 * Hodges-Lehmann: B - A over 1 2 3 x 4 5 6 = 3 2 1 4 3 2 5 4 3,
	 * sorted 1 2 2 3 3 3 4 4 5: median 3.  Even count: 1 2 x 3 5 =
	 * 2 1 4 3 -> (2 + 3) / 2 = 2.5.
	 */
	double hl = 0, r = 0;
	int rc;
	rc = dt_hodges_lehmann(a1, 3, b1, 3, &hl);
	ok(rc == 0 && hl == 3,
	   "HL shift of 1 2 3 -> 4 5 6 is 3 (got %g)", hl);
	static const double a3[] = { 1, 2 }, b3[] = { 3, 5 };
	rc = dt_hodges_lehmann(a3, 2, b3, 2, &hl);
	ok(rc == 0 && hl == 2.5,
	   "HL shift, even pair count: 2.5 (got %g)", hl);
	/* log scale: 1 2 -> 2 4: log ratios log2, 0, 2log2, log2: ratio 2 */
	static const double b4[] = { 2, 4 };
	rc = dt_hl_ratio(a3, 2, b4, 2, &r);
	ok(rc == 0 && near(r, 2, 1e-12),
	   "HL ratio of 1 2 -> 2 4 is 2 (got %g)", r);
	static const double z0[] = { 0, 1 };
	ok(dt_hl_ratio(z0, 2, b4, 2, &r) == -EDOM, "HL ratio of 0: EDOM");
	/* a larger sample with many duplicates: selection must cope */
	double big_a[300], big_b[300];
	for (int i = 0; i < 300; i++) {
		big_a[i] = i % 7;
		big_b[i] = i % 7 + 2;
	}
	rc = dt_hodges_lehmann(big_a, 300, big_b, 300, &hl);
	ok(rc == 0 && hl == 2,
	   "HL shift with heavy ties: 2 (got %g)", hl);

	/*
	 * bootstrap: reproducible per seed, covers the true value.  B is A
	 * scaled by 1.2 (A = 100 .. 139), so the HL ratio is exactly 1.2
	 * and the HL shift is 1.2 * 119.5 - 119.5 = 23.9.
	 */
	double lo1, hi1, lo2, hi2, ba[40], bb[40];
	int rc1, rc2;

	for (int i = 0; i < 40; i++) {
		ba[i] = 100 + i;
		bb[i] = 1.2 * ba[i];
	}
	rc = dt_hl_ratio(ba, 40, bb, 40, &r);
	ok(rc == 0 && near(r, 1.2, 1e-12),
	   "HL ratio of A -> 1.2 A is 1.2 (got %.6f)", r);
	rc1 = dt_bootstrap_ci(ba, 40, bb, 40, DT_BOOT_HL_RATIO, 1000, 0.95, 7,
			      &lo1, &hi1);
	rc2 = dt_bootstrap_ci(ba, 40, bb, 40, DT_BOOT_HL_RATIO, 1000, 0.95, 7,
			      &lo2, &hi2);
	ok(rc1 == 0 && rc2 == 0 && lo1 == lo2 && hi1 == hi2,
	   "bootstrap: same seed, same interval [%.4f, %.4f]", lo1, hi1);
	ok(lo1 < 1.2 && hi1 > 1.2 && lo1 > 1.05,
	   "bootstrap: HL ratio interval [%.4f, %.4f] holds 1.2, not 1",
	   lo1, hi1);
	rc1 = dt_bootstrap_ci(ba, 40, bb, 40, DT_BOOT_HL_RATIO, 1000, 0.95, 8,
			      &lo2, &hi2);
	ok(rc1 == 0 && (lo1 != lo2 || hi1 != hi2),
	   "bootstrap: another seed, another interval [%.4f, %.4f]", lo2,
	   hi2);
	rc1 = dt_bootstrap_ci(ba, 40, bb, 40, DT_BOOT_MEDIAN_RATIO, 1000, 0.95,
			      7, &lo1, &hi1);
	ok(rc1 == 0 && lo1 < 1.2 && hi1 > 1.2,
	   "bootstrap: median ratio interval [%.4f, %.4f] holds 1.2",
	   lo1, hi1);
	rc1 = dt_bootstrap_ci(ba, 40, bb, 40, DT_BOOT_HL_SHIFT, 1000, 0.95, 7,
			      &lo1, &hi1);
	rc = dt_hodges_lehmann(ba, 40, bb, 40, &hl);
	ok(rc == 0 && near(hl, 23.9, 1e-9),
	   "HL shift of A -> 1.2 A is 23.9 (got %g)", hl);
	ok(rc1 == 0 && lo1 < 23.9 && hi1 > 23.9 && lo1 > 0,
	   "bootstrap: HL shift interval [%.3f, %.3f] holds 23.9", lo1, hi1);
	rc1 = dt_bootstrap_ci(ba, 40, bb, 40, DT_BOOT_HL_SHIFT, 5, 0.95, 7,
			      &lo1, &hi1);
	ok(rc1 == -EINVAL, "bootstrap: too few reps: EINVAL");

	/* one-sample median interval: 1..99 has median 50 */
	double seq[99];
	for (int i = 0; i < 99; i++)
		seq[i] = i + 1;
	rc1 = dt_bootstrap_median_ci(seq, 99, 2000, 0.95, 3, &lo1, &hi1);
	ok(rc1 == 0 && lo1 < 50 && hi1 > 50 && lo1 > 35 && hi1 < 65,
	   "median interval of 1..99: [%.1f, %.1f] around 50", lo1, hi1);
	rc2 = dt_bootstrap_median_ci(seq, 99, 2000, 0.95, 3, &lo2, &hi2);
	ok(rc2 == 0 && lo1 == lo2 && hi1 == hi2,
	   "median interval: same seed, same interval");
	return done();
}
