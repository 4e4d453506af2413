/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dtcompare: does a candidate perf run differ from its baseline?
 *
 *   dtcompare [options] BASELINE.jsonl CANDIDATE.jsonl
 *
 * Both files hold "perf" metrics lines (lib/core/perf.h; a baseline is the
 * raw lines of earlier runs, reports/baselines/<target>/<test>.jsonl).
 * Lines are grouped by key: test, case, op, threads, target label and
 * config ($DT_PERF_CONFIG when measured).  For every key present in both
 * files the samples are compared with lib/stats' dt_compare(): Mann-Whitney
 * U (tie- and continuity-corrected normal approximation), Hodges-Lehmann
 * effect on the log scale with a seeded bootstrap interval, and a verdict:
 * regression, improvement or no change (significant at --alpha AND at
 * least --min-effect).
 *
 * Samples (--unit): "window" (default) takes every measurement window's
 * rate of every run (win_ops_per_s: DT_PERF_WINDOWS per run); "run" takes
 * one value per run (its ops_per_s, or latency percentile), for when runs
 * differ more than windows of one run do.
 * Metric (--metric): "rate" (ops/s, higher is better; window or run),
 * "cpurate" (ops per CPU-second of the workers: blind to the CPU being
 * taken away by other work, for CPU-bound local targets on a shared
 * machine; window or run), "p10", "p50", "p90" (latency in ns, lower is
 * better: per window the median over workers of their window's
 * percentile, or per run), "p99" (per run only).  On a shared machine
 * the noise only ever adds latency: p10 is the op's own cost with the
 * least waiting, the most stable figure for a slowdown of the op itself.
 *
 * Output is TAP: one test point per key; a regression is "not ok" with
 * the figures (medians, effect, interval, p, U, n) in a YAML block; an
 * improvement or no change is "ok" with the figures on the line, which
 * end with the machine's load average on both sides when the lines carry
 * it.  Keys only in the baseline are skipped (not measured), keys only in
 * the candidate are noted.  --json FILE appends one "verdict" line per key.
 *
 * --stored: the baseline was measured at another time (a stored
 * baseline), so a change of the shared machine's load alone can move the
 * figures.  The header says the verdicts are advisory; a regression
 * measured under a different load (median load1 differs by >= 1 and by a
 * factor >= 2) is "ok ... inconclusive (load changed)" and does not count;
 * any other regression is "not ok ... # TODO advisory" (it still counts
 * for the exit status).  Two systems measured alternately (lab/perf ab)
 * need none of this.
 *
 * Exit: 0 no regression, 1 a regression, 2 nothing comparable or bad
 * input, 64 usage.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/metrics.h"
#include "stats/stats.h"

#define EXIT_REGRESSION	1
#define EXIT_BAD	2
#define EXIT_USAGE	64
#define KEY_MAX		768
#define MAX_WIN		DT_PERF_MAX_WIN

/* ---- the fields of one metrics line we need ------------------------------ */

struct rec {
	char kind[32], test[64], tcase[64], op[64], target[64], config[256];
	char run[128];
	int threads;
	double ops_per_s, ops_per_cpu_s;
	double win[MAX_WIN], wincpu[MAX_WIN], winp10[MAX_WIN];
	double winp50[MAX_WIN], winp90[MAX_WIN];
	int nwin, nwincpu, nwinp10, nwinp50, nwinp90;
	double p10, p50, p90, p99;
	bool has_lat;
	double load1;		/* the machine's load average at the time */
};

/*
 * A minimal JSON reader for our own lines: a full value parser (so any
 * valid JSON is skipped correctly) that keeps the top-level fields above
 * and lat_ns.{p50,p90,p99}.
 */
struct jp {
	const char *s;
	int err;
};

static void ws(struct jp *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
}

static int jstring(struct jp *p, char *out, size_t len)
{
	size_t n = 0;

	ws(p);
	if (*p->s != '"')
		return p->err = -1;
	p->s++;
	while (*p->s && *p->s != '"') {
		char c = *p->s++;

		if (c == '\\') {
			c = *p->s++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u':
				/* keep ASCII, replace the rest */
				if (strlen(p->s) < 4)
					return p->err = -1;
				c = (char)strtol((char[5]){ p->s[0], p->s[1],
							    p->s[2], p->s[3],
							    0 }, NULL, 16);
				if ((unsigned char)c >= 0x80 || !c)
					c = '?';
				p->s += 4;
				break;
			case 0:
				return p->err = -1;
			default:
				break;
			}
		}
		if (out && n + 1 < len)
			out[n++] = c;
	}
	if (*p->s != '"')
		return p->err = -1;
	p->s++;
	if (out && len)
		out[n] = 0;
	return 0;
}

static double jnumber(struct jp *p)
{
	char *end;
	double v;

	ws(p);
	if (!strncmp(p->s, "null", 4)) {
		p->s += 4;
		return NAN;
	}
	v = strtod(p->s, &end);
	if (end == p->s) {
		p->err = -1;
		return NAN;
	}
	p->s = end;
	return v;
}

static void jvalue(struct jp *p);

/* an object; for each member calls fn(key) which must consume the value */
static void jobject(struct jp *p, void (*fn)(struct jp *, const char *, void *),
		    void *arg)
{
	char key[64];

	ws(p);
	if (*p->s != '{') {
		p->err = -1;
		return;
	}
	p->s++;
	ws(p);
	if (*p->s == '}') {
		p->s++;
		return;
	}
	while (!p->err) {
		if (jstring(p, key, sizeof(key)))
			return;
		ws(p);
		if (*p->s != ':') {
			p->err = -1;
			return;
		}
		p->s++;
		if (fn)
			fn(p, key, arg);
		else
			jvalue(p);
		ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == '}') {
			p->s++;
			return;
		}
		p->err = -1;
	}
}

/* an array of numbers into out (at most max), other values skipped */
static int jnumarray(struct jp *p, double *out, int max)
{
	int n = 0;

	ws(p);
	if (*p->s != '[') {
		p->err = -1;
		return 0;
	}
	p->s++;
	ws(p);
	if (*p->s == ']') {
		p->s++;
		return 0;
	}
	while (!p->err) {
		ws(p);
		if (out && (isdigit((unsigned char)*p->s) || *p->s == '-' ||
			    *p->s == 'n')) {
			double v = jnumber(p);

			if (n < max)
				out[n++] = v;
		} else {
			jvalue(p);
		}
		ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == ']') {
			p->s++;
			return n;
		}
		p->err = -1;
	}
	return n;
}

static void jvalue(struct jp *p)
{
	ws(p);
	switch (*p->s) {
	case '{':
		jobject(p, NULL, NULL);
		break;
	case '[':
		jnumarray(p, NULL, 0);
		break;
	case '"':
		jstring(p, NULL, 0);
		break;
	case 't':
		if (strncmp(p->s, "true", 4))
			p->err = -1;
		p->s += 4;
		break;
	case 'f':
		if (strncmp(p->s, "false", 5))
			p->err = -1;
		p->s += 5;
		break;
	default:
		jnumber(p);
		break;
	}
}

static void lat_member(struct jp *p, const char *key, void *arg)
{
	struct rec *r = arg;

	if (!strcmp(key, "p10"))
		r->p10 = jnumber(p);
	else if (!strcmp(key, "p50"))
		r->p50 = jnumber(p);
	else if (!strcmp(key, "p90"))
		r->p90 = jnumber(p);
	else if (!strcmp(key, "p99"))
		r->p99 = jnumber(p);
	else
		jvalue(p);
}

static void rec_member(struct jp *p, const char *key, void *arg)
{
	struct rec *r = arg;

	if (!strcmp(key, "kind"))
		jstring(p, r->kind, sizeof(r->kind));
	else if (!strcmp(key, "test"))
		jstring(p, r->test, sizeof(r->test));
	else if (!strcmp(key, "case"))
		jstring(p, r->tcase, sizeof(r->tcase));
	else if (!strcmp(key, "op"))
		jstring(p, r->op, sizeof(r->op));
	else if (!strcmp(key, "target"))
		jstring(p, r->target, sizeof(r->target));
	else if (!strcmp(key, "config"))
		jstring(p, r->config, sizeof(r->config));
	else if (!strcmp(key, "run"))
		jstring(p, r->run, sizeof(r->run));
	else if (!strcmp(key, "threads"))
		r->threads = (int)jnumber(p);
	else if (!strcmp(key, "ops_per_s"))
		r->ops_per_s = jnumber(p);
	else if (!strcmp(key, "win_ops_per_s"))
		r->nwin = jnumarray(p, r->win, MAX_WIN);
	else if (!strcmp(key, "load1"))
		r->load1 = jnumber(p);
	else if (!strcmp(key, "ops_per_cpu_s"))
		r->ops_per_cpu_s = jnumber(p);
	else if (!strcmp(key, "win_ops_per_cpu_s"))
		r->nwincpu = jnumarray(p, r->wincpu, MAX_WIN);
	else if (!strcmp(key, "win_p10_ns"))
		r->nwinp10 = jnumarray(p, r->winp10, MAX_WIN);
	else if (!strcmp(key, "win_p50_ns"))
		r->nwinp50 = jnumarray(p, r->winp50, MAX_WIN);
	else if (!strcmp(key, "win_p90_ns"))
		r->nwinp90 = jnumarray(p, r->winp90, MAX_WIN);
	else if (!strcmp(key, "lat_ns")) {
		r->has_lat = true;
		jobject(p, lat_member, r);
	} else
		jvalue(p);
}

/* 1: a perf record, 0: another kind, -1: not JSON */
static int parse_line(const char *line, struct rec *r)
{
	struct jp p = { .s = line };

	memset(r, 0, sizeof(*r));
	r->p10 = r->p50 = r->p90 = r->p99 = r->load1 = NAN;
	jobject(&p, rec_member, r);
	if (p.err)
		return -1;
	return !strcmp(r->kind, "perf") && r->test[0] && r->threads > 0;
}

/* ---- grouping ------------------------------------------------------------------ */

struct group {
	char key[KEY_MAX];
	struct rec first;	/* for names */
	double *s[2];		/* samples: 0 baseline, 1 candidate */
	size_t n[2], cap[2];
	int runs[2];
	double load[2][256];	/* load1 of each run */
	int nload[2];
};

static struct group *groups;
static size_t ngroups, capgroups;

static struct {
	const char *metric, *unit, *json;
	struct dt_cmp_opts o;
	const char *select[32];
	int nselect;
	bool ignore_config;
	bool stored;
} opt = { .metric = "rate", .unit = "window" };

static bool lower_is_better(void)
{
	return opt.metric[0] == 'p';
}

static void make_key(const struct rec *r, char *key, size_t len)
{
	snprintf(key, len, "%s.%s %s threads=%d [%s%s%s]", r->test, r->tcase,
		 r->op, r->threads, r->target,
		 !opt.ignore_config && r->config[0] ? " " : "",
		 opt.ignore_config ? "" : r->config);
}

/* --select test[.case][@threads] */
static bool selected(const struct rec *r)
{
	if (!opt.nselect)
		return true;
	for (int i = 0; i < opt.nselect; i++) {
		char want[256], *at, *dot;
		int th = 0;

		snprintf(want, sizeof(want), "%s", opt.select[i]);
		at = strchr(want, '@');
		if (at) {
			*at = 0;
			th = atoi(at + 1);
		}
		dot = strchr(want, '.');
		if (dot)
			*dot = 0;
		if (strcmp(want, r->test))
			continue;
		if (dot && strcmp(dot + 1, r->tcase))
			continue;
		if (th && th != r->threads)
			continue;
		return true;
	}
	return false;
}

static int add_sample(struct group *g, int side, double v)
{
	if (!isfinite(v))
		return 0;
	if (g->n[side] == g->cap[side]) {
		size_t cap = g->cap[side] ? 2 * g->cap[side] : 64;
		double *s = realloc(g->s[side], cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		g->s[side] = s;
		g->cap[side] = cap;
	}
	g->s[side][g->n[side]++] = v;
	return 0;
}

static struct group *find_group(const struct rec *r)
{
	char key[KEY_MAX];

	make_key(r, key, sizeof(key));
	for (size_t i = 0; i < ngroups; i++)
		if (!strcmp(groups[i].key, key))
			return &groups[i];
	if (ngroups == capgroups) {
		size_t cap = capgroups ? 2 * capgroups : 16;
		struct group *g = realloc(groups, cap * sizeof(*g));

		if (!g)
			return NULL;
		groups = g;
		capgroups = cap;
	}
	memset(&groups[ngroups], 0, sizeof(groups[0]));
	snprintf(groups[ngroups].key, KEY_MAX, "%s", key);
	groups[ngroups].first = *r;
	return &groups[ngroups++];
}

static double run_value(const struct rec *r)
{
	if (!strcmp(opt.metric, "rate"))
		return r->ops_per_s;
	if (!strcmp(opt.metric, "cpurate"))
		return r->ops_per_cpu_s;
	if (!strcmp(opt.metric, "p10"))
		return r->p10;
	if (!strcmp(opt.metric, "p50"))
		return r->p50;
	if (!strcmp(opt.metric, "p90"))
		return r->p90;
	return r->p99;
}

static int load(const char *path, int side)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, used = 0;
	struct rec *r = malloc(sizeof(*r));

	if (!f || !r) {
		fprintf(stderr, "dtcompare: %s: %s\n", path, strerror(errno));
		free(r);
		if (f)
			fclose(f);
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		struct group *g;
		int rc;

		lineno++;
		if (line[strspn(line, " \t\r\n")] == 0)
			continue;
		rc = parse_line(line, r);
		if (rc < 0) {
			fprintf(stderr, "dtcompare: %s:%d: not a JSON object; "
				"skipped\n", path, lineno);
			continue;
		}
		if (rc == 0 || !selected(r))
			continue;
		g = find_group(r);
		if (!g)
			goto oom;
		g->runs[side]++;
		if (isfinite(r->load1) && g->nload[side] < 256)
			g->load[side][g->nload[side]++] = r->load1;
		used++;
		if (!strcmp(opt.unit, "window")) {
			const double *x = r->win;
			int n = r->nwin;

			if (!strcmp(opt.metric, "cpurate")) {
				x = r->wincpu;
				n = r->nwincpu;
			} else if (!strcmp(opt.metric, "p10")) {
				x = r->winp10;
				n = r->nwinp10;
			} else if (!strcmp(opt.metric, "p50")) {
				x = r->winp50;
				n = r->nwinp50;
			} else if (!strcmp(opt.metric, "p90")) {
				x = r->winp90;
				n = r->nwinp90;
			}
			for (int k = 0; k < n; k++)
				if (add_sample(g, side, x[k]) < 0)
					goto oom;
		} else if (add_sample(g, side, run_value(r)) < 0) {
			goto oom;
		}
	}
	free(line);
	free(r);
	fclose(f);
	return used;
oom:
	fprintf(stderr, "dtcompare: out of memory\n");
	free(line);
	free(r);
	fclose(f);
	return -1;
}

/* ---- output ------------------------------------------------------------------------ */

static void yaml_str(const char *k, const char *v)
{
	printf("  %s: \"", k);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			putchar('\\');
		putchar(*v);
	}
	printf("\"\n");
}

static void json_verdict(const struct group *g, const struct dt_cmp_result *c,
			 double la, double lb, const char *verdict)
{
	struct dt_json j;
	FILE *f;

	if (!opt.json)
		return;
	dt_json_init(&j);
	dt_json_obj_begin(&j, NULL);
	dt_json_str(&j, "kind", "verdict");
	dt_json_str(&j, "key", g->key);
	dt_json_str(&j, "test", g->first.test);
	dt_json_str(&j, "case", g->first.tcase);
	dt_json_str(&j, "op", g->first.op);
	dt_json_int(&j, "threads", g->first.threads);
	dt_json_str(&j, "target", g->first.target);
	dt_json_str(&j, "config", g->first.config);
	dt_json_str(&j, "metric", opt.metric);
	dt_json_str(&j, "unit", opt.unit);
	dt_json_str(&j, "verdict", verdict ? verdict : dt_change_name(c->verdict));
	dt_json_str(&j, "baseline_kind", opt.stored ? "stored" : "interleaved");
	dt_json_int(&j, "n_baseline", (long long)c->na);
	dt_json_int(&j, "n_candidate", (long long)c->nb);
	dt_json_int(&j, "runs_baseline", g->runs[0]);
	dt_json_int(&j, "runs_candidate", g->runs[1]);
	dt_json_num(&j, "median_baseline", c->median_a);
	dt_json_num(&j, "median_candidate", c->median_b);
	dt_json_num(&j, "effect", c->effect);
	dt_json_num(&j, "ci_lo", c->ci_lo);
	dt_json_num(&j, "ci_hi", c->ci_hi);
	dt_json_num(&j, "worse", c->worse);
	dt_json_num(&j, "p", c->mw.p);
	dt_json_num(&j, "u", c->mw.u);
	dt_json_num(&j, "z", c->mw.z);
	dt_json_num(&j, "alpha", opt.o.alpha);
	dt_json_num(&j, "min_effect", opt.o.min_effect);
	dt_json_num(&j, "load1_baseline", la);
	dt_json_num(&j, "load1_candidate", lb);
	dt_json_obj_end(&j);
	f = fopen(opt.json, "ae");
	if (f) {
		fprintf(f, "%s\n", j.buf ? j.buf : "{}");
		fclose(f);
	}
	dt_json_free(&j);
}

static int report(int num, struct group *g)
{
	struct dt_cmp_result c;
	const char *unit_name = lower_is_better() ? "ns"
				: !strcmp(opt.metric, "rate") ? "ops/s"
							      : "ops/cpu-s";
	int rc;

	if (!g->n[1]) {
		printf("ok %d - %s # SKIP not measured in the candidate\n", num,
		       g->key);
		return 0;
	}
	if (!g->n[0]) {
		printf("ok %d - %s # SKIP no baseline for it\n", num, g->key);
		return 0;
	}
	rc = dt_compare(g->s[0], g->n[0], g->s[1], g->n[1], &opt.o, &c);
	if (rc < 0) {
		printf("not ok %d - %s # compare failed: %s\n", num, g->key,
		       strerror(-rc));
		return -1;
	}
	/*
	 * The machine's load when each side was measured: on a shared host
	 * a different load alone moves every figure, so say when it does.
	 */
	double la = g->nload[0] ? dt_median(g->load[0], (size_t)g->nload[0])
				: NAN;
	double lb = g->nload[1] ? dt_median(g->load[1], (size_t)g->nload[1])
				: NAN;
	bool load_changed = isfinite(la) && isfinite(lb) &&
			    fabs(lb - la) >= 1 && (lb > 2 * la || la > 2 * lb);
	if (load_changed)
		printf("# %s: load average %.1f (baseline) vs %.1f (this "
		       "run): on a shared machine that alone moves these "
		       "figures; measure both sides alternately to judge\n",
		       g->key, la, lb);
	/* a stored baseline under another load cannot tell a regression */
	bool inconclusive = opt.stored && load_changed &&
			    c.verdict == DT_REGRESSION;
	bool regression = c.verdict == DT_REGRESSION && !inconclusive;
	char loads[64] = "";

	if (isfinite(la) && isfinite(lb))
		snprintf(loads, sizeof(loads), ", load %.1f -> %.1f", la, lb);
	json_verdict(g, &c, la, lb, inconclusive ? "inconclusive" : NULL);
	printf("%sok %d - %s: %s: %+.1f%% [%+.1f%%, %+.1f%%] p=%.2g "
	       "(median %.4g -> %.4g %s, n %zu vs %zu%s)%s\n",
	       regression ? "not " : "", num, g->key,
	       inconclusive ? "inconclusive (load changed)"
			    : dt_change_name(c.verdict),
	       100 * c.effect, 100 * c.ci_lo,
	       100 * c.ci_hi, c.mw.p, c.median_a, c.median_b, unit_name, c.na,
	       c.nb, loads,
	       regression && opt.stored
		       ? " # TODO advisory: stored baseline on a shared "
			 "machine; confirm with lab/perf ab"
		       : inconclusive ? " # stored baseline under another "
					"load: not a verdict"
				      : "");
	if (regression) {
		printf("  ---\n");
		yaml_str("verdict", "regression");
		yaml_str("metric", dt_fmt("%s (%s, %s is better), samples per %s",
					  opt.metric, unit_name,
					  lower_is_better() ? "lower"
							    : "higher",
					  opt.unit));
		printf("  baseline_median: %.6g\n  candidate_median: %.6g\n",
		       c.median_a, c.median_b);
		printf("  effect: %+.4f\n  ci_lo: %+.4f\n  ci_hi: %+.4f\n",
		       c.effect, c.ci_lo, c.ci_hi);
		yaml_str("interval", dt_fmt("%.0f%% bootstrap of the %s, %d "
					    "resamples, seed %llu",
					    100 * opt.o.conf, c.stat,
					    opt.o.boot_reps,
					    (unsigned long long)opt.o.seed));
		printf("  p: %.4g\n  U: %.1f\n  z: %.3f\n", c.mw.p, c.mw.u,
		       c.mw.z);
		printf("  n_baseline: %zu\n  n_candidate: %zu\n", c.na, c.nb);
		printf("  runs_baseline: %d\n  runs_candidate: %d\n",
		       g->runs[0], g->runs[1]);
		printf("  alpha: %g\n  min_effect: %g\n", opt.o.alpha,
		       opt.o.min_effect);
		if (isfinite(la) && isfinite(lb))
			printf("  load1_baseline: %.2f\n  load1_candidate: "
			       "%.2f\n", la, lb);
		printf("  ...\n");
		return 1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: dtcompare [options] BASELINE.jsonl CANDIDATE.jsonl\n"
"  --metric rate|cpurate|p10|p50|p90|p99\n"
"                             rate: ops/s (default); cpurate: ops per\n"
"                             CPU-second of the workers; p10, p50, p90:\n"
"                             latency per window (or run); p99: per run\n"
"  --unit window|run          samples: each window of each run (default)\n"
"                             or one per run\n"
"  --alpha A                  significance, two-sided (default 0.05)\n"
"  --min-effect E             smallest change that counts (default 0.03)\n"
"  --conf C                   bootstrap interval level (default 0.95)\n"
"  --boot N                   bootstrap resamples (default 2000)\n"
"  --seed N                   bootstrap seed (default 1)\n"
"  --select T[.CASE][@THREADS]  only these keys (repeatable)\n"
"  --ignore-config            match keys without DT_PERF_CONFIG\n"
"  --json FILE                append a verdict line per key to FILE\n"
"  --stored                   the baseline is stored (measured earlier):\n"
"                             verdicts advisory, a regression under\n"
"                             another load is inconclusive\n"
"exit: 0 no regression, 1 regression, 2 nothing comparable, 64 usage\n");
}

static double need_double(const char *o, const char *a, double lo, double hi)
{
	char *end;
	double v = strtod(a, &end);

	if (end == a || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "dtcompare: %s '%s': want %g..%g\n", o, a, lo,
			hi);
		exit(EXIT_USAGE);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "metric", required_argument, NULL, 1 },
		{ "unit", required_argument, NULL, 2 },
		{ "alpha", required_argument, NULL, 3 },
		{ "min-effect", required_argument, NULL, 4 },
		{ "conf", required_argument, NULL, 5 },
		{ "boot", required_argument, NULL, 6 },
		{ "seed", required_argument, NULL, 7 },
		{ "select", required_argument, NULL, 8 },
		{ "ignore-config", no_argument, NULL, 9 },
		{ "json", required_argument, NULL, 10 },
		{ "help", no_argument, NULL, 'h' },
		/* listed among build/bin tests by lab/check: no cases */
		{ "list", no_argument, NULL, 11 },
		{ "target", required_argument, NULL, 12 },
		{ "stored", no_argument, NULL, 13 },
		{ 0 }
	};
	int o, fails = 0, num = 0, nb, nc;

	dt_cmp_opts_default(&opt.o);
	while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (o) {
		case 1:
			if (strcmp(optarg, "rate") && strcmp(optarg, "p50") &&
			    strcmp(optarg, "p10") &&
			    strcmp(optarg, "p90") && strcmp(optarg, "p99") &&
			    strcmp(optarg, "cpurate")) {
				fprintf(stderr, "dtcompare: --metric %s: rate, "
					"cpurate, p10, p50, p90 or p99\n",
					optarg);
				return EXIT_USAGE;
			}
			opt.metric = optarg;
			break;
		case 2:
			if (strcmp(optarg, "window") && strcmp(optarg, "run")) {
				fprintf(stderr, "dtcompare: --unit %s: window "
					"or run\n", optarg);
				return EXIT_USAGE;
			}
			opt.unit = optarg;
			break;
		case 3:
			opt.o.alpha = need_double("--alpha", optarg, 1e-9, 0.5);
			break;
		case 4:
			opt.o.min_effect = need_double("--min-effect", optarg,
						       0, 10);
			break;
		case 5:
			opt.o.conf = need_double("--conf", optarg, 0.5, 0.999);
			break;
		case 6:
			opt.o.boot_reps = (int)need_double("--boot", optarg,
							   100, 1e6);
			break;
		case 7:
			opt.o.seed = (uint64_t)need_double("--seed", optarg, 0,
							   1e18);
			break;
		case 8:
			if (opt.nselect < 32)
				opt.select[opt.nselect++] = optarg;
			break;
		case 9: opt.ignore_config = true; break;
		case 13: opt.stored = true; break;
		case 10: opt.json = optarg; break;
		case 'h': usage(stdout); return 0;
		case 11: return 0;
		case 12:
			printf("TAP version 13\n1..0 # SKIP dtcompare is a "
			       "tool, not a test\n");
			return 3;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(opt.metric, "p99") && !strcmp(opt.unit, "window")) {
		fprintf(stderr, "dtcompare: --metric %s has one value per run: "
			"use --unit run\n", opt.metric);
		return EXIT_USAGE;
	}
	opt.o.lower_is_better = lower_is_better();
	nb = load(argv[optind], 0);
	nc = load(argv[optind + 1], 1);
	if (nb < 0 || nc < 0)
		return EXIT_BAD;
	printf("TAP version 13\n");
	if (!ngroups) {
		printf("1..0 # SKIP no perf lines to compare (baseline %d, "
		       "candidate %d)\n", nb, nc);
		return EXIT_BAD;
	}
	printf("1..%zu\n", ngroups);
	printf("# %s vs %s: metric %s (%s is better), samples per %s, alpha "
	       "%g, min effect %g%%, %g%% bootstrap (%d, seed %llu)\n",
	       argv[optind], argv[optind + 1], opt.metric,
	       lower_is_better() ? "lower" : "higher", opt.unit, opt.o.alpha,
	       100 * opt.o.min_effect, 100 * opt.o.conf, opt.o.boot_reps,
	       (unsigned long long)opt.o.seed);
	if (opt.stored)
		printf("# stored baseline: ADVISORY. It was measured at "
		       "another time; on a shared machine a change of load "
		       "alone moves these figures (by 10%% and more), so a "
		       "regression here is a hint, not a finding (TODO), and "
		       "one measured under another load is inconclusive. "
		       "Judge two systems with lab/perf ab (measured "
		       "alternately)\n");
	bool compared = false;
	for (size_t i = 0; i < ngroups; i++) {
		int rc = report(++num, &groups[i]);

		compared |= groups[i].n[0] && groups[i].n[1];
		if (rc)
			fails++;
	}
	fflush(stdout);
	if (fails)
		return EXIT_REGRESSION;
	return compared ? 0 : EXIT_BAD;
}
