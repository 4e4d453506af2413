/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dtab: is B slower than A?  Interleaved, sequential A/B of one namespace
 * operation on two targets, from one process.
 *
 *   dtab --a SPEC [--b SPEC] [--op lookup|absent|create] [--budget S]
 *        [--inject PCT] [--min-effect E] [--alpha A] [--json FILE] ...
 *
 * Why interleaved: on a shared machine the load of the other work changes
 * from second to second, by far more than the 3% a regression may be.
 * Runs of A and then of B measure the load as much as the systems.  Here
 * one thread alternates short blocks (--block ops, ~0.1-1 ms) on A and on
 * B, in the order A B, B A, A B, ... (a round is one block of each), so a
 * change of the load falls on both blocks of a round and a drift within a
 * round cancels over two rounds.  Each block's figure is the median of
 * its ops' wall-clock latencies (an op that lost the CPU in the middle is
 * one outlier of the block, not a shift of its median), and the CPU time
 * of the thread over the block per op (CLOCK_THREAD_CPUTIME_ID: blind to
 * the CPU being taken away, not to the caches others spoil); a round's
 * sample is log(B / A) of each.
 *
 * Why segments: two directories of one filesystem are not the same
 * system to the last percent: where their dentries and inodes landed in
 * memory and in the hash tables moves an op's cost by up to ~1.5% for the
 * life of the directory (measured: same against same, one pair of
 * directories, intervals of +-0.2% around +1.5%).  Rounds of one pair
 * cannot see that, so the run is cut into segments (--segment seconds);
 * each segment makes fresh scratch directories on both sides (the order
 * of the makes alternates too), warms up, runs its rounds and removes
 * them.  A segment's figure is the median of its rounds' log-ratios; the
 * comparison's effect is the mean of the segments' figures, with a
 * Student t interval over segments: the placement of the directories is
 * part of the noise it measures.
 *
 * Why sequential: a clear change is clear in a second, a small one needs
 * more segments.  At --looks evenly spaced points of the time budget
 * (from the 4th segment on) the interval is taken at level 1 - alpha /
 * looks (Bonferroni: the chance of any false alarm over all looks stays
 * below alpha).  The run stops at the first look where it says:
 *   regression   lower end > 0 and the effect >= --min-effect
 *   improvement  upper end < 0 and the effect <= -min-effect
 *   no change    the interval lies within +-min-effect
 * and otherwise at the budget: a regression or improvement by the same
 * rule, else "inconclusive" (the interval is too wide to rule a change of
 * min-effect in or out).
 *
 * --inject PCT: the detector's own proof.  B's measured path gets a busy
 * loop of PCT% of A's op latency (measured in the warm-up, the loop
 * calibrated against the clock before), so B is PCT% slower by
 * construction; PCT 0 (or no --b) is the same against the same.
 *
 * A target is a directory (posix:) or an nfs:// URL (libnfs), marked with
 * .dentrace-target; each side works in a scratch directory of its own
 * (dentrace.<host>.<pid>.dtab.<a|b>), removed at the end.
 *
 * Output: one line with the verdict and its figures (and, with --json,
 * one JSON line "kind":"ab" appended to FILE).  Exit: 0 no change or an
 * improvement, 1 regression, 3 inconclusive at the budget, 2 broken
 * (setup or an op failed), 64 usage, 65 a target rejected or unreachable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "base/base.h"
#include "stats/metrics.h"
#include "stats/stats.h"

#define MAX_BLOCK	4096
#define MAX_ROUNDS	(1u << 20)

enum ab_op { OP_LOOKUP, OP_ABSENT, OP_CREATE };
static const char *const op_names[] = { "lookup", "absent", "create" };

struct opts {
	const char *spec[2];
	enum ab_op op;
	int names, block, looks;
	double budget, segment, warmup, min_effect, alpha, inject;
	const char *json, *label;
	bool quiet;
};

struct side {
	struct dt_target t;
	struct dt_conn *c;
	const char *tag;		/* "a" or "b" */
	char scratch[200];
	char (*path)[256];	/* names, built before the timed loop */
	char *pathbuf;		/* path's allocation (path is inside it) */
	bool made;
};

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("dtab: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* ---- the injected delay: a known share of the op's own time ---------------- */

/*
 * B's op is made frac slower by construction: after the op (and a clock
 * read, t_mid), a busy loop of frac times the op's own duration.
 *   - Per op, in proportion: this machine's op cost moves by half between
 *     minutes (1.6 vs 2.4 us for a tmpfs lookup), so a delay sized once
 *     in ns is 3% at one moment and 2% at the next.
 *   - A chain of dependent multiplies seeded with t_mid: the CPU cannot
 *     run it beside the op (an independent loop after the op lost half
 *     its length that way: 3% injected, 1.4% measured), and its steps
 *     (~1 ns) are finer than a clock read (~30 ns here: waiting on the
 *     clock gave 2.2% for 3%).
 * Both sides read the clock at t_mid, so the instrumentation is the same;
 * what B waited more than A is measured per block and reported.
 */
static volatile uint64_t spin_sink;
static double spin_step_ns;		/* ns per step of spin() */

static void spin(uint64_t steps, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (uint64_t i = 0; i < steps; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	spin_sink = x;
}

/*
 * ns per step: the median of 9 short timed runs, taken again every
 * segment.  The least of them (the calibration once used) is the CPU at
 * its fastest; under load a step takes longer, and a loop sized by the
 * fastest step added 1-2% more than asked (1% injected: 2.6% measured).
 */
static void spin_calibrate(void)
{
	double ns[9];

	for (int k = 0; k < 9; k++) {
		uint64_t t0 = dt_now_ns();

		spin(20000, t0);
		ns[k] = (double)(dt_now_ns() - t0) / 20000.0;
	}
	spin_step_ns = dt_median(ns, 9);
}

/* the busy loop after an op that took t_mid - t0; the last clock read */
static uint64_t wait_share(uint64_t t0, uint64_t t_mid, double frac)
{
	if (frac > 0)
		spin((uint64_t)llround(frac * (double)(t_mid - t0) / spin_step_ns),
		     t_mid);
	return dt_now_ns();
}

/* ---- one side: connect, scratch, names --------------------------------- */

static void side_open(struct side *s, const char *spec, const char *tag)
{
	char err[256];
	struct dt_stat st;
	int rc;

	s->tag = tag;

	if (dt_target_parse(spec, &s->t, err, sizeof(err)) < 0)
		die(64, "--%s '%s': %s", tag, spec, err);
	rc = s->t.ops->connect(&s->t, &s->c);
	if (rc < 0)
		die(65, "--%s '%s': connect: %s", tag, spec, dt_strerr(rc));
	rc = s->t.ops->lookup(s->c, DT_TARGET_MARKER, &st);
	if (rc < 0)
		die(65, "--%s '%s': not a dentrace target (no %s: %s; mark an empty directory with --init-target)",
		    tag, spec, DT_TARGET_MARKER, dt_strerr(rc));
}

/* A fresh scratch directory for segment seg, and its names. */
static void side_make(struct side *s, const struct opts *o, int seg)
{
	const char *tag = s->tag;
	int rc;

	/*
	 * A new connection too (a new descriptor and file for a directory,
	 * a new session for NFS): a run of the same against the same kept
	 * an offset of up to 2% over all its segments with one connection
	 * per side; with the connection made anew it is segment noise.
	 */
	if (seg >= 0) {
		s->t.ops->disconnect(s->c);
		s->c = NULL;
		rc = s->t.ops->connect(&s->t, &s->c);
		if (rc < 0)
			die(2, "--%s: connect again: %s", tag, dt_strerr(rc));
	}
	snprintf(s->scratch, sizeof(s->scratch), "dentrace.%s.%d.dtab.%s.%d",
		 dt_short_hostname(), (int)getpid(), tag, seg);
	/*
	 * The names' strings at a new place in memory, a random number of
	 * cache lines in: where they sit (cache sets, pages) moved an op's
	 * cost by 1-2% for a whole run, the same against the same; placed
	 * anew per segment, that is noise the segments see, not a bias.
	 */
	free(s->pathbuf);
	s->pathbuf = malloc((size_t)o->names * sizeof(*s->path) + 64 * 64);
	if (!s->pathbuf)
		die(2, "out of memory");
	s->path = (void *)(s->pathbuf + 64 * (random() % 64));
	rc = s->t.ops->mkdir(s->c, s->scratch);
	if (rc < 0)
		die(2, "--%s: mkdir %s: %s", tag, s->scratch, dt_strerr(rc));
	s->made = true;
	for (int k = 0; k < o->names; k++) {
		snprintf(s->path[k], sizeof(s->path[k]), "%s/%c%d", s->scratch,
			 o->op == OP_ABSENT ? 'x' : 'n', k);
		if (o->op != OP_LOOKUP)
			continue;
		rc = s->t.ops->create(s->c, s->path[k], true, NULL);
		if (rc < 0)
			die(2, "--%s: create %s: %s", tag, s->path[k], dt_strerr(rc));
	}
}

static void side_remove(struct side *s)
{
	if (s->made) {
		int rc = dt_remove_tree(s->t.ops, s->c, s->scratch);

		if (rc < 0)
			fprintf(stderr, "dtab: removing %s: %s\n", s->scratch,
				dt_strerr(rc));
		s->made = false;
	}
}

static void side_close(struct side *s)
{
	side_remove(s);
	if (s->c)
		s->t.ops->disconnect(s->c);
	free(s->pathbuf);
}

/* one op on name k; 0 or -errno */
static int do_op(struct side *s, enum ab_op op, int k)
{
	int rc;

	switch (op) {
	case OP_LOOKUP:
		return s->t.ops->lookup(s->c, s->path[k], NULL);
	case OP_ABSENT:
		rc = s->t.ops->lookup(s->c, s->path[k], NULL);
		return rc == -ENOENT ? 0 : rc < 0 ? rc : -EEXIST;
	case OP_CREATE:
		/* a create and the unlink that makes room for the next one */
		rc = s->t.ops->create(s->c, s->path[k], true, NULL);
		return rc < 0 ? rc : s->t.ops->unlink(s->c, s->path[k]);
	}
	return -EINVAL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The interquartile mean of x[0..n-1] (sorted in place): robust like the
 * median (an op that lost the CPU is one outlier of its block), and not
 * tied to the clock's ticks (a median of integer ns moves in ~1% steps).
 */
static double iq_mean(uint64_t *x, int n)
{
	double sum = 0;
	int lo = n / 4, hi = n - n / 4;

	qsort(x, (size_t)n, sizeof(*x), cmp_u64);
	for (int i = lo; i < hi; i++)
		sum += (double)x[i];
	return sum / (hi - lo);
}

struct block_fig {
	double med_ns;		/* wall-clock latency of an op (IQ mean) */
	double cpu_ns;		/* thread CPU time per op */
	double extra_ns;	/* the same of the busy loop after the op */
};

/* One block of n ops on s, each made frac slower (the injected delay). */
static struct block_fig run_block(struct side *s, const struct opts *o,
				  int n, double frac, uint64_t *lat,
				  uint64_t *cursor)
{
	static uint64_t extra[MAX_BLOCK];
	struct block_fig f = { 0 };
	uint64_t c0 = thread_cpu_ns();

	for (int i = 0; i < n; i++) {
		int k = (int)((*cursor)++ % (uint64_t)o->names);
		uint64_t t0 = dt_now_ns();
		int rc = do_op(s, o->op, k);
		uint64_t t_mid = dt_now_ns();
		uint64_t t_end = wait_share(t0, t_mid, frac);

		extra[i] = t_end - t_mid;
		lat[i] = t_end - t0;
		if (rc < 0)
			die(2, "%s %s on %s: %s", op_names[o->op], s->path[k],
			    s->t.spec, dt_strerr(rc));
	}
	f.cpu_ns = (double)(thread_cpu_ns() - c0) / n;
	f.med_ns = iq_mean(lat, n);
	f.extra_ns = iq_mean(extra, n);
	return f;
}


/* ---- the interval: Student t over segments ------------------------------- */

/* z with two-sided normal p == p (bisection on the library's p) */
static double z_of_p2(double p)
{
	double lo = 0, hi = 10;

	for (int i = 0; i < 80; i++) {
		double mid = (lo + hi) / 2;

		if (dt_normal_p2(mid) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * Two-sided Student t quantile for p with df degrees of freedom, from z
 * by the Cornish-Fisher expansion (Abramowitz & Stegun 26.7.5): within
 * 1% of the tables from df 3 on at the levels used here.
 */
static double t_of_p2(double p, int df)
{
	double z = z_of_p2(p), v = df, z2 = z * z;

	return z + z * (z2 + 1) / (4 * v) +
	       z * (5 * z2 * z2 + 16 * z2 + 3) / (96 * v * v) +
	       z * (3 * z2 * z2 * z2 + 19 * z2 * z2 + 17 * z2 - 15) /
		       (384 * v * v * v);
}

struct estimate {
	double eff, lo, hi;	/* relative: exp(log-ratio) - 1 */
	double sd;		/* between segments, of the log-ratio */
};

/* Mean of the segments' log-ratios x[0..n-1] and its t interval at 1 - p. */
static struct estimate estimate(const double *x, size_t n, double p)
{
	struct estimate e = { 0 };
	double mean = 0, ss = 0, half;

	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	e.sd = n > 1 ? sqrt(ss / (double)(n - 1)) : INFINITY;
	half = n > 1 ? t_of_p2(p, (int)n - 1) * e.sd / sqrt((double)n) : INFINITY;
	e.eff = expm1(mean);
	e.lo = expm1(mean - half);
	e.hi = expm1(mean + half);
	return e;
}

/* the rule of the header; final: at the budget (no "wait") */
static const char *judge(const struct estimate *e, double m, bool final)
{
	if (e->lo > 0 && e->eff >= m)
		return "regression";
	if (e->hi < 0 && e->eff <= -m)
		return "improvement";
	if (e->lo > -m && e->hi < m)
		return "no change";
	return final ? "inconclusive" : NULL;
}

/* ---- options -------------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs("usage: dtab --a SPEC [--b SPEC] [--op lookup|absent|create] [--budget S]\n"
	      "            [--block N] [--names N] [--segment S] [--warmup S] [--looks N]\n"
	      "            [--min-effect E]"
	      " [--alpha A] [--inject PCT] [--json FILE] [--label L] [--quiet]\n"
	      "  SPEC: a directory or posix:/dir, or nfs://host/export?version=3|4 (marked\n"
	      "  with .dentrace-target); --b defaults to --a (the same against the same).\n"
	      "  Exit: 0 no change/improvement, 1 regression, 3 inconclusive, 2 broken,\n"
	      "  64 usage, 65 target rejected.\n", f);
}

static double num_opt(const char *name, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= lo && v <= hi))
		die(64, "--%s '%s': want a number in %g..%g", name, s, lo, hi);
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "a", required_argument, NULL, 'a' },
		{ "b", required_argument, NULL, 'b' },
		{ "op", required_argument, NULL, 'o' },
		{ "budget", required_argument, NULL, 'B' },
		{ "block", required_argument, NULL, 'k' },
		{ "names", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "segment", required_argument, NULL, 's' },
		{ "looks", required_argument, NULL, 'L' },
		{ "min-effect", required_argument, NULL, 'm' },
		{ "alpha", required_argument, NULL, 'p' },
		{ "inject", required_argument, NULL, 'i' },
		{ "json", required_argument, NULL, 'j' },
		{ "label", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	*o = (struct opts){ .op = OP_LOOKUP, .names = 64, .block = 100,
			    .looks = 5, .budget = 8, .segment = 0.25,
			    .warmup = 0.05, .min_effect = 0.015, .alpha = 0.05,
			    .label = "" };
	while ((c = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
		switch (c) {
		case 'a': o->spec[0] = optarg; break;
		case 'b': o->spec[1] = optarg; break;
		case 'o':
			for (o->op = 0; o->op <= OP_CREATE; o->op++)
				if (!strcmp(optarg, op_names[o->op]))
					break;
			if (o->op > OP_CREATE)
				die(64, "--op '%s': lookup, absent or create", optarg);
			break;
		case 'B': o->budget = num_opt("budget", optarg, 0.5, 3600); break;
		case 'k': o->block = (int)num_opt("block", optarg, 5, MAX_BLOCK); break;
		case 'n': o->names = (int)num_opt("names", optarg, 1, 100000); break;
		case 'w': o->warmup = num_opt("warmup", optarg, 0, 60); break;
		case 's': o->segment = num_opt("segment", optarg, 0.05, 600); break;
		case 'L': o->looks = (int)num_opt("looks", optarg, 1, 100); break;
		case 'm': o->min_effect = num_opt("min-effect", optarg, 0, 1); break;
		case 'p': o->alpha = num_opt("alpha", optarg, 1e-6, 0.5); break;
		case 'i': o->inject = num_opt("inject", optarg, 0, 1000); break;
		case 'j': o->json = optarg; break;
		case 'l': o->label = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(64);
		}
	}
	if (optind < argc)
		die(64, "unexpected '%s' (see --help)", argv[optind]);
	if (!o->spec[0])
		die(64, "--a SPEC is required (see --help)");
	if (!o->spec[1])
		o->spec[1] = o->spec[0];
}

/* ---- the run --------------------------------------------------------------- */

struct result {
	const char *verdict;
	struct estimate wall, cpu;
	size_t rounds, segments;
	int look;
	double seconds, a_op_ns, a_cpu_ns, inject_real, disturbed, load1;
};

static double load1(void)
{
	char buf[64] = "";

	dt_read_small("/proc/loadavg", buf, sizeof(buf));
	return strtod(buf, NULL);
}

static void write_json(const struct opts *o, const struct result *r)
{
	struct dt_json j;
	FILE *f;

	dt_json_init(&j);
	dt_json_obj_begin(&j, NULL);
	dt_json_str(&j, "kind", "ab");
	dt_json_str(&j, "label", o->label);
	dt_json_str(&j, "a", o->spec[0]);
	dt_json_str(&j, "b", o->spec[1]);
	dt_json_str(&j, "op", op_names[o->op]);
	dt_json_str(&j, "verdict", r->verdict);
	dt_json_str(&j, "metric", "wall-clock op latency, interquartile mean per block");
	dt_json_num(&j, "effect", r->wall.eff);
	dt_json_num(&j, "ci_lo", r->wall.lo);
	dt_json_num(&j, "ci_hi", r->wall.hi);
	dt_json_num(&j, "sd_segments", r->wall.sd);
	dt_json_num(&j, "cpu_effect", r->cpu.eff);
	dt_json_num(&j, "cpu_ci_lo", r->cpu.lo);
	dt_json_num(&j, "cpu_ci_hi", r->cpu.hi);
	dt_json_num(&j, "conf", 1 - o->alpha / o->looks);
	dt_json_num(&j, "min_effect", o->min_effect);
	dt_json_u64(&j, "rounds", r->rounds);
	dt_json_u64(&j, "segments", r->segments);
	dt_json_int(&j, "look", r->look);
	dt_json_int(&j, "looks", o->looks);
	dt_json_int(&j, "block", o->block);
	dt_json_num(&j, "seconds", r->seconds);
	dt_json_num(&j, "budget", o->budget);
	dt_json_num(&j, "a_op_ns", r->a_op_ns);
	dt_json_num(&j, "a_cpu_ns", r->a_cpu_ns);
	dt_json_num(&j, "inject_pct", o->inject);
	dt_json_num(&j, "inject_measured", r->inject_real);
	dt_json_num(&j, "spin_step_ns", spin_step_ns);
	dt_json_num(&j, "disturbed", r->disturbed);
	dt_json_num(&j, "load1", r->load1);
	dt_json_obj_end(&j);
	f = fopen(o->json, "a");
	if (!f || j.oom || fprintf(f, "%s\n", j.buf) < 0 || fclose(f) != 0)
		die(2, "--json %s: cannot write", o->json);
	dt_json_free(&j);
}

/* the samples of the run */
struct series {
	double *dw, *dc;	/* per round of a segment: log(B/A) wall, cpu */
	double *a_op, *a_cpu;	/* A's figures per round, whole run */
	double *inj;		/* B's extra wait per op / A's op, per round */
	double *seg_w, *seg_c;	/* per segment: median of dw, dc */
	size_t nround, nall, nseg, disturbed;
};

#define MAX_SEGMENTS	4096

static double secs_since(uint64_t t)
{
	return (double)(dt_now_ns() - t) / 1e9;
}

/*
 * One segment: fresh directories, warm-up, rounds (A B, B A, ...) for
 * o->segment seconds; its medians appended to sr.  frac: B's injected
 * slowdown.
 */
static void run_segment(struct side *s, const struct opts *o, int seg,
			struct series *sr, uint64_t *lat, uint64_t *cursor,
			double frac)
{
	uint64_t t0;

	if (frac > 0)
		spin_calibrate();
	/* the side made first gets the first memory: alternate it too */
	side_make(&s[seg % 2], o, seg);
	side_make(&s[1 - seg % 2], o, seg);
	t0 = dt_now_ns();
	for (int i = 0; secs_since(t0) < o->warmup || i < 2; i++)
		run_block(&s[i % 2], o, o->block, i % 2 ? frac : 0, lat,
			  &cursor[i % 2]);
	sr->nround = 0;
	t0 = dt_now_ns();
	for (size_t i = 0; secs_since(t0) < o->segment || i < 3; i++) {
		int first = (int)(i % 2);	/* A B, B A, A B, ... */
		struct block_fig f[2];

		for (int k = 0; k < 2; k++) {
			int sd = first ^ k;

			f[sd] = run_block(&s[sd], o, o->block,
					  sd == 1 ? frac : 0, lat, &cursor[sd]);
		}
		if (sr->nround == MAX_ROUNDS || sr->nall == MAX_ROUNDS)
			break;
		sr->dw[sr->nround] = log(f[1].med_ns / f[0].med_ns);
		sr->dc[sr->nround] = log(f[1].cpu_ns / f[0].cpu_ns);
		sr->disturbed += fabs(sr->dw[sr->nround]) > log(1.10);
		sr->nround++;
		sr->a_op[sr->nall] = f[0].med_ns;
		sr->a_cpu[sr->nall] = f[0].cpu_ns;
		sr->inj[sr->nall] = (f[1].extra_ns - f[0].extra_ns) / f[0].med_ns;
		sr->nall++;
	}
	side_remove(&s[0]);
	side_remove(&s[1]);
	sr->seg_w[sr->nseg] = dt_median(sr->dw, sr->nround);
	sr->seg_c[sr->nseg] = dt_median(sr->dc, sr->nround);
	sr->nseg++;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct side s[2] = { 0 };
	struct result r = { 0 };
	struct series sr = { 0 };
	uint64_t *lat = calloc(MAX_BLOCK, sizeof(*lat));
	uint64_t cursor[2] = { 0, 0 }, t0;
	double p_look;
	int next_look = 1;

	parse(argc, argv, &o);
	srandom((unsigned)(dt_now_ns() ^ (uint64_t)getpid()));
	sr.dw = calloc(MAX_ROUNDS, sizeof(double));
	sr.dc = calloc(MAX_ROUNDS, sizeof(double));
	sr.a_op = calloc(MAX_ROUNDS, sizeof(double));
	sr.a_cpu = calloc(MAX_ROUNDS, sizeof(double));
	sr.inj = calloc(MAX_ROUNDS, sizeof(double));
	sr.seg_w = calloc(MAX_SEGMENTS, sizeof(double));
	sr.seg_c = calloc(MAX_SEGMENTS, sizeof(double));
	if (!lat || !sr.dw || !sr.dc || !sr.a_op || !sr.a_cpu || !sr.inj || !sr.seg_w ||
	    !sr.seg_c)
		die(2, "out of memory");
	side_open(&s[0], o.spec[0], "a");
	side_open(&s[1], o.spec[1], "b");
	p_look = o.alpha / o.looks;
	t0 = dt_now_ns();
	for (int seg = 0; seg < MAX_SEGMENTS; seg++) {
		double el;

		run_segment(s, &o, seg, &sr, lat, cursor, o.inject / 100.0);
		el = secs_since(t0);
		/* a look at every budget / looks, from the 4th segment on */
		if (sr.nseg < 4 || (el < o.budget * next_look / o.looks &&
				    el < o.budget))
			continue;
		while (next_look < o.looks &&
		       el >= o.budget * next_look / o.looks)
			next_look++;
		r.look = el >= o.budget ? o.looks : next_look - 1;
		r.wall = estimate(sr.seg_w, sr.nseg, p_look);
		r.verdict = judge(&r.wall, o.min_effect, el >= o.budget);
		if (!o.quiet)
			fprintf(stderr, "dtab: look %d/%d, %zu segments, %.1f s: effect %+.2f%% [%+.2f%%, %+.2f%%]%s%s\n",
				r.look, o.looks, sr.nseg, el, 100 * r.wall.eff,
				100 * r.wall.lo, 100 * r.wall.hi,
				r.verdict ? ": " : "", r.verdict ? r.verdict : "");
		if (r.verdict)
			break;
	}
	if (!r.verdict) {	/* MAX_SEGMENTS before the budget */
		r.wall = estimate(sr.seg_w, sr.nseg, p_look);
		r.verdict = judge(&r.wall, o.min_effect, true);
	}
	r.seconds = secs_since(t0);
	r.segments = sr.nseg;
	r.rounds = sr.nall;
	r.a_op_ns = dt_median(sr.a_op, sr.nall);
	r.a_cpu_ns = dt_median(sr.a_cpu, sr.nall);
	r.inject_real = dt_median(sr.inj, sr.nall);
	r.cpu = estimate(sr.seg_c, sr.nseg, p_look);
	r.disturbed = (double)sr.disturbed / (double)sr.nall;
	r.load1 = load1();
	printf("dtab: %s: %s %+.2f%% [%+.2f%%, %+.2f%%] (wall; %zu segments, %zu rounds of %d ops, %.2f%% interval, look %d/%d, %.2f s); cpu %+.2f%% [%+.2f%%, %+.2f%%]; A op %.0f ns%s\n",
	       o.label[0] ? o.label : op_names[o.op], r.verdict,
	       100 * r.wall.eff, 100 * r.wall.lo, 100 * r.wall.hi, r.segments,
	       r.rounds, o.block, 100 * (1 - p_look), r.look, o.looks,
	       r.seconds, 100 * r.cpu.eff, 100 * r.cpu.lo, 100 * r.cpu.hi,
	       r.a_op_ns,
	       o.inject > 0 ? dt_fmt("; injected %.2f%%: B waited %.2f%% of A's op more",
				      o.inject, 100 * r.inject_real)
			    : "");
	if (o.json)
		write_json(&o, &r);
	side_close(&s[1]);
	side_close(&s[0]);
	free(lat);
	free(sr.dw);
	free(sr.dc);
	free(sr.a_op);
	free(sr.a_cpu);
	free(sr.inj);
	free(sr.seg_w);
	free(sr.seg_c);
	if (!strcmp(r.verdict, "regression"))
		return 1;
	return !strcmp(r.verdict, "inconclusive") ? 3 : 0;
}
