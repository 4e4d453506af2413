/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tools/dtcompare end to end: synthetic perf metrics lines for a baseline
 * and candidates (same, 10% slower, 10% faster), the TAP it prints and
 * its exit status.  Needs $DT_BUILD/bin/dtcompare (default build/).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stats/metrics.h"
#include "tap.h"

static uint64_t rng = 77;

static double unif(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

/* a perf line: 10 windows of rate ~ mean (2% noise), p10 ~ 1e9 / mean */
static void line(FILE *f, const char *test, int threads, double mean)
{
	struct dt_json j;

	dt_json_init(&j);
	dt_json_obj_begin(&j, NULL);
	dt_json_str(&j, "kind", "perf");
	dt_json_str(&j, "test", test);
	dt_json_str(&j, "case", "c");
	dt_json_str(&j, "op", "lookup");
	dt_json_str(&j, "target", "posix");
	dt_json_str(&j, "config", "synthetic");
	dt_json_int(&j, "threads", threads);
	dt_json_num(&j, "ops_per_s", mean);
	dt_json_arr_begin(&j, "win_ops_per_s");
	for (int k = 0; k < 10; k++)
		dt_json_num(&j, NULL, mean * (1 + 0.04 * (unif() - 0.5)));
	dt_json_arr_end(&j);
	dt_json_arr_begin(&j, "win_p10_ns");
	for (int k = 0; k < 10; k++)
		dt_json_num(&j, NULL, 1e9 / mean * (1 + 0.04 * (unif() - 0.5)));
	dt_json_arr_end(&j);
	dt_json_obj_begin(&j, "lat_ns");
	dt_json_num(&j, "p50", 1e9 / mean);
	dt_json_obj_end(&j);
	dt_json_obj_end(&j);
	fprintf(f, "%s\n", j.buf);
	dt_json_free(&j);
}

static void write_file(const char *path, double f1, double f4)
{
	FILE *f = fopen(path, "w");

	if (!f)
		bail_out("create %s", path);
	/* a metrics file also holds other kinds of lines: ignored */
	fprintf(f, "{\"kind\":\"overhead\",\"ratio\":0.97}\n");
	for (int run = 0; run < 3; run++) {
		line(f, "perf_x", 1, 1000 * f1);
		line(f, "perf_x", 4, 3000 * f4);
	}
	fclose(f);
}

/* run dtcompare ARGS, return its exit status and its stdout in out */
static int run(const char *bin, const char *args, char *out, size_t len)
{
	char cmd[2048];
	FILE *p;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s", bin, args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
	const char *b = getenv("DT_BUILD");
	char bin[1024], dir[] = "/tmp/dtcompare-test.XXXXXX", out[16384];
	char base[1100], same[1100], slow[1100], fast[1100], args[4096];
	int rc;

	snprintf(bin, sizeof(bin), "%s/bin/dtcompare", b ? b : "build");
	if (access(bin, X_OK)) {
		printf("1..0 # SKIP %s not built\n", bin);
		return 0;
	}
	if (!mkdtemp(dir))
		bail_out("mkdtemp");
	snprintf(base, sizeof(base), "%s/base.jsonl", dir);
	snprintf(same, sizeof(same), "%s/same.jsonl", dir);
	snprintf(slow, sizeof(slow), "%s/slow.jsonl", dir);
	snprintf(fast, sizeof(fast), "%s/fast.jsonl", dir);
	write_file(base, 1, 1);
	write_file(same, 1, 1);
	write_file(slow, 0.9, 1);	/* 1 thread 10% slower, 4 the same */
	write_file(fast, 1.1, 1.1);

	snprintf(args, sizeof(args), "%s %s", base, same);
	rc = run(bin, args, out, sizeof(out));
	ok(rc == 0 && strstr(out, "1..2") && !strstr(out, "not ok"),
	   "same: exit %d, two keys, no regression", rc);
	ok(strstr(out, "ok 1 - perf_x.c lookup threads=1 [posix synthetic]: "
		       "no change"), "same: 'no change' with the key");

	snprintf(args, sizeof(args), "%s %s", base, slow);
	rc = run(bin, args, out, sizeof(out));
	ok(rc == 1, "10%% slower: exit %d (1 = regression)", rc);
	ok(strstr(out, "not ok 1 - perf_x.c lookup threads=1") &&
	   strstr(out, ": regression: -"),
	   "10%% slower: 'not ok' regression on threads=1");
	ok(strstr(out, "  effect: -0.") && strstr(out, "  ci_lo: ") &&
	   strstr(out, "  p: ") && strstr(out, "  n_baseline: 30"),
	   "regression YAML block: effect, interval, p, n");
	ok(strstr(out, "ok 2 - perf_x.c lookup threads=4") &&
	   !strstr(out, "not ok 2"), "threads=4 unchanged: ok");

	snprintf(args, sizeof(args), "--metric p10 %s %s", base, slow);
	rc = run(bin, args, out, sizeof(out));
	ok(rc == 1 && strstr(out, "regression: +"),
	   "p10 (lower is better): +11%% latency is a regression");

	snprintf(args, sizeof(args), "%s %s", base, fast);
	rc = run(bin, args, out, sizeof(out));
	ok(rc == 0 && strstr(out, ": improvement: +"),
	   "10%% faster: improvement, exit %d", rc);

	snprintf(args, sizeof(args), "--min-effect 0.2 %s %s", base, slow);
	rc = run(bin, args, out, sizeof(out));
	ok(rc == 0 && strstr(out, "no change"),
	   "min effect 20%%: a 10%% slowdown is no change");

	snprintf(args, sizeof(args), "--select perf_x@4 %s %s", base, slow);
	rc = run(bin, args, out, sizeof(out));
	ok(rc == 0 && strstr(out, "1..1"), "--select one key");

	snprintf(args, sizeof(args), "--metric p99 %s %s 2>/dev/null", base,
		 slow);
	rc = run(bin, args, out, sizeof(out));
	ok(rc == 64, "p99 per window: usage error (%d)", rc);

	snprintf(args, sizeof(args), "%s /nonexistent 2>/dev/null", base);
	rc = run(bin, args, out, sizeof(out));
	ok(rc == 2, "missing candidate: exit %d (2)", rc);

	unlink(base);
	unlink(same);
	unlink(slow);
	unlink(fast);
	rmdir(dir);
	return done();
}
