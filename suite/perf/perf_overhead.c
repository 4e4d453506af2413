/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The perf driver's own cost: the engine's timed loop (one clock read,
 * a histogram and a window counter per op, calling the backend through
 * the ops table) against a bare loop of the same call that measures
 * nothing per op:
 *   POSIX target:  fstatat() on the target's directory fd
 *   libnfs target: nfs_stat64_async() in an event loop (poll +
 *                  nfs_service), one call in flight like the driver
 * Both run in the same worker thread, alternated in short blocks (A B B A
 * A B ...) so that drift and the machine's noise fall on both alike; the
 * figure is driver rate / bare rate: the median over the block pairs,
 * with a bootstrap interval.
 *
 * Rates are given two ways: ops per second of wall time, and ops per
 * second of the thread's own CPU time.  On a shared machine a CPU-bound
 * loop (stat on tmpfs) loses the CPU to other work at random, which
 * swamps a few percent of driver cost in wall time; the thread's CPU
 * time is what the driver's cost adds to, so the CPU rate is the figure
 * for POSIX targets.  For libnfs the loop waits for the server, so the
 * wall rate is the figure.
 *
 * Knobs: DT_PERF_PAIRS (block pairs, default 40); --duration is split
 * over all blocks (default 4 s: 50 ms blocks).  Benchmark only: it prints and records the ratio and
 * never fails on it (target: >= 0.95).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

#include "perf_common.h"

#define MAX_PAIRS	64
#define TARGET_RATIO	0.95

struct ov {
	char path[DT_PATH_MAX];		/* the file, relative to the root */
	int pairs;
	/* per block: ops per wall second, ops per thread-CPU second */
	double bare[MAX_PAIRS], driver[MAX_PAIRS];
	double bare_cpu[MAX_PAIRS], driver_cpu[MAX_PAIRS];
	int nbare, ndriver;
	int bare_err;
	const char *bare_what;
};

static struct ov ov;

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* one block's outcome */
struct block {
	uint64_t ops, wall_ns, cpu_ns;
};

static double rate(uint64_t ops, uint64_t ns)
{
	return ns ? (double)ops / ((double)ns / 1e9) : 0;
}

/* ---- bare loops ------------------------------------------------------------ */

struct bare {
	/* posix */
	int dfd;
	/* libnfs */
	struct nfs_context *nfs;
	char nfspath[DT_PATH_MAX + 2];
	int inflight;
	uint64_t done, errors;
};

/* fstatat in a loop, checking the clock every 64 calls */
static struct block bare_posix(struct bare *b, uint64_t dur_ns)
{
	uint64_t c0 = cpu_ns(), t0 = now_ns(), end = t0 + dur_ns, n = 0, t;
	struct stat s;

	do {
		for (int k = 0; k < 64; k++)
			b->errors += fstatat(b->dfd, ov.path, &s,
					     AT_SYMLINK_NOFOLLOW) < 0;
		n += 64;
		t = now_ns();
	} while (t < end && n < DT_PERF_MAX_OPS);
	return (struct block){ n, t - t0, cpu_ns() - c0 };
}

static void stat_cb(int status, struct nfs_context *nfs, void *data,
		    void *priv)
{
	struct bare *b = priv;

	(void)nfs;
	(void)data;
	b->inflight--;
	b->done++;
	b->errors += status < 0;
}

/* nfs_stat64_async, one in flight, driven by poll + nfs_service */
static struct block bare_nfs(struct bare *b, uint64_t dur_ns)
{
	uint64_t c0 = cpu_ns(), t0 = now_ns(), end = t0 + dur_ns, t = t0;
	uint64_t done0 = b->done, guard = t0 + dur_ns + 20000000000ull;
	struct block none = { 0, 0, 0 };
	struct pollfd pfd;

	while (t < end || b->inflight) {
		if (t < end && !b->inflight) {
			if (nfs_stat64_async(b->nfs, b->nfspath, stat_cb,
					     b) < 0) {
				b->errors++;
				return none;
			}
			b->inflight++;
		}
		pfd.fd = nfs_get_fd(b->nfs);
		pfd.events = (short)nfs_which_events(b->nfs);
		pfd.revents = 0;
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			return none;
		if (nfs_service(b->nfs, pfd.revents) < 0) {
			b->errors++;
			return none;
		}
		t = now_ns();
		if (t > guard)
			return none;	/* a reply never came: no figure */
	}
	return (struct block){ b->done - done0, t - t0, cpu_ns() - c0 };
}

/* libnfs 4.0 sets nfsport/mountport only through its URL parser */
static int nfs_ports(struct nfs_context *nfs, const struct dt_target *t)
{
	struct nfs_url *u;
	char url[96];

	if (!t->nfsport && !t->mountport)
		return 0;
	snprintf(url, sizeof(url), "nfs://?nfsport=%d&mountport=%d",
		 t->nfsport ? t->nfsport : 2049,
		 t->mountport ? t->mountport : 20048);
	if (t->nfs_version == 4 || !t->mountport)
		snprintf(url, sizeof(url), "nfs://?nfsport=%d",
			 t->nfsport ? t->nfsport : 2049);
	u = nfs_parse_url_incomplete(nfs, url);
	if (!u)
		return -EINVAL;
	nfs_destroy_url(u);
	return 0;
}

static int bare_open(struct dt_worker *w, struct bare *b)
{
	const struct dt_target *t = w->run->target;
	char name[128];

	memset(b, 0, sizeof(*b));
	b->dfd = -1;
	if (t->ops == &dt_posix_ops) {
		ov.bare_what = "fstatat() loop";
		b->dfd = open(t->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return b->dfd < 0 ? -errno : 0;
	}
	ov.bare_what = "nfs_stat64_async() event loop, 1 in flight";
	b->nfs = nfs_init_context();
	if (!b->nfs)
		return -ENOMEM;
	snprintf(b->nfspath, sizeof(b->nfspath), "/%s", ov.path);
	nfs_set_version(b->nfs, t->nfs_version);
	if (t->nfs_version == 4) {
		snprintf(name, sizeof(name), "dentrace.bare.%d.%llu",
			 (int)getpid(), (unsigned long long)now_ns());
		nfs4_set_client_name(b->nfs, name);
	}
	nfs_set_timeout(b->nfs, 10000);
	if (nfs_ports(b->nfs, t) < 0 || nfs_mount(b->nfs, t->server, t->root))
		return -EIO;
	return 0;
}

static void bare_close(struct bare *b)
{
	if (b->dfd >= 0)
		close(b->dfd);
	if (b->nfs)
		nfs_destroy_context(b->nfs);
}

/* ---- the driver side -------------------------------------------------------------- */

static int driver_stat(struct dt_worker *w, void *st, uint64_t i)
{
	(void)st;
	(void)i;
	return PERF_OPS(w->run)->lookup(w->conn, ov.path, NULL);
}

static const struct dt_perf_op driver_op = {
	.name = "lookup", .opcode = DT_OP_LOOKUP, .fn = driver_stat,
};

static struct block driver_block(struct dt_worker *w, uint64_t dur_ns,
				 struct dt_perf_wres *res)
{
	uint64_t c0;

	memset(res, 0, sizeof(*res));
	dt_hist_init(&res->hist);
	c0 = cpu_ns();
	dt_perf_loop(w, &driver_op, NULL, now_ns(), 0, dur_ns, 1,
		     dt_perf_max_ops(w->run), res);
	if (res->errors)
		return (struct block){ 0, 0, 0 };
	return (struct block){ res->ops, res->t_end - res->t_begin,
			       cpu_ns() - c0 };
}

static void put_bare(struct block b)
{
	ov.bare[ov.nbare] = rate(b.ops, b.wall_ns);
	ov.bare_cpu[ov.nbare++] = rate(b.ops, b.cpu_ns);
}

static void put_driver(struct block b)
{
	ov.driver[ov.ndriver] = rate(b.ops, b.wall_ns);
	ov.driver_cpu[ov.ndriver++] = rate(b.ops, b.cpu_ns);
}

static void ov_worker(struct dt_worker *w)
{
	uint64_t block = (uint64_t)(w->run->duration * 1e9 / (2 * ov.pairs));
	struct dt_perf_wres *res = malloc(sizeof(*res));
	struct bare b;
	struct block (*bare)(struct bare *, uint64_t);
	int rc;

	if (!res) {
		ov.bare_err = -ENOMEM;
		return;
	}
	rc = bare_open(w, &b);
	if (rc < 0) {
		ov.bare_err = rc;
		bare_close(&b);
		free(res);
		return;
	}
	bare = b.nfs ? bare_nfs : bare_posix;
	/* warm both paths up, unmeasured */
	bare(&b, block / 2);
	driver_block(w, block / 2, res);
	for (int k = 0; k < ov.pairs; k++) {
		/* A B, then B A: a trend hits both sides equally */
		if (k % 2 == 0) {
			put_bare(bare(&b, block));
			put_driver(driver_block(w, block, res));
		} else {
			put_driver(driver_block(w, block, res));
			put_bare(bare(&b, block));
		}
	}
	if (b.errors)
		ov.bare_err = -EIO;
	bare_close(&b);
	free(res);
}

/* driver / bare per block pair, their median, the pooled ratio, HL + CI */
struct figure {
	double med, mlo, mhi;	/* paired ratios: median and its interval */
	double pooled, hl, lo, hi;
};

static void figure(struct dt_run *r, const double *b, const double *d,
		   struct figure *f)
{
	double ratio[MAX_PAIRS], sb = 0, sd = 0;
	struct dt_cmp_opts o;
	struct dt_cmp_result c;

	for (int k = 0; k < ov.pairs; k++) {
		ratio[k] = d[k] / b[k];
		sb += b[k];
		sd += d[k];
	}
	f->med = dt_median(ratio, (size_t)ov.pairs);
	f->pooled = sd / sb;
	dt_must(r, dt_bootstrap_median_ci(ratio, (size_t)ov.pairs, 2000, 0.95,
					  r->seed, &f->mlo, &f->mhi),
		"bootstrap");
	dt_cmp_opts_default(&o);
	o.seed = r->seed;
	dt_must(r, dt_compare(b, (size_t)ov.pairs, d, (size_t)ov.pairs, &o,
			      &c), "compare");
	f->hl = 1 + c.effect;
	f->lo = 1 + c.ci_lo;
	f->hi = 1 + c.ci_hi;
}

static void json_rates(struct dt_json *j, const char *key, const double *x)
{
	dt_json_arr_begin(j, key);
	for (int k = 0; k < ov.pairs; k++)
		dt_json_num(j, NULL, x[k]);
	dt_json_arr_end(j);
}

static void json_figure(struct dt_json *j, const char *key,
			const struct figure *f)
{
	dt_json_obj_begin(j, key);
	dt_json_num(j, "ratio", f->med);
	dt_json_num(j, "ratio_ci_lo", f->mlo);
	dt_json_num(j, "ratio_ci_hi", f->mhi);
	dt_json_num(j, "pooled", f->pooled);
	dt_json_num(j, "hl", f->hl);
	dt_json_num(j, "ci_lo", f->lo);
	dt_json_num(j, "ci_hi", f->hi);
	dt_json_obj_end(j);
}

static void run_stat(struct dt_run *r)
{
	struct figure wall, cpu, *main_fig;
	struct dt_json j;
	bool posix = r->target->ops == &dt_posix_ops;

	ov.pairs = (int)perf_env_long("DT_PERF_PAIRS", 40, 2, MAX_PAIRS);
	ov.nbare = ov.ndriver = 0;
	ov.bare_err = 0;
	dt_pathbuf(r, ov.path, sizeof(ov.path), "f");
	dt_must(r, PERF_OPS(r)->create(r->conn, ov.path, true, NULL),
		"create %s", ov.path);
	dt_run_workers(r, 1, ov_worker, NULL);
	if (ov.bare_err)
		dt_broken(r, "bare loop (%s): %s", ov.bare_what,
			  dt_strerr(ov.bare_err));
	for (int k = 0; k < ov.pairs; k++)
		if (!(ov.bare[k] > 0) || !(ov.driver[k] > 0) ||
		    !(ov.bare_cpu[k] > 0) || !(ov.driver_cpu[k] > 0))
			dt_broken(r, "block %d measured nothing (op errors?)",
				  k);
	figure(r, ov.bare, ov.driver, &wall);
	figure(r, ov.bare_cpu, ov.driver_cpu, &cpu);
	main_fig = posix ? &cpu : &wall;
	printf("# perf_overhead.%s on %s: bare = %s; driver = perf engine "
	       "(clock %s) via %s ops\n", r->tcase->name, r->target->label,
	       ov.bare_what, dt_perf_clock_name(), r->target->ops->name);
	if (r->target->nfs_version == 3)
		printf("#   note: NFSv3 lookups of the backend are its own "
		       "LOOKUP3 walk, libnfs's stat adds a GETATTR: not quite "
		       "the same calls (NFSv4: one COMPOUND each)\n");
	printf("#   wall: bare %.0f ops/s, driver %.0f ops/s (medians); "
	       "driver/bare %.3f, 95%% CI [%.3f, %.3f] (median of %d block "
	       "pairs; pooled %.3f)\n", dt_median(ov.bare, (size_t)ov.pairs),
	       dt_median(ov.driver, (size_t)ov.pairs), wall.med, wall.mlo,
	       wall.mhi, ov.pairs, wall.pooled);
	printf("#   cpu:  bare %.0f ops/cpu-s, driver %.0f ops/cpu-s; "
	       "driver/bare %.3f, 95%% CI [%.3f, %.3f] (pooled %.3f)\n",
	       dt_median(ov.bare_cpu, (size_t)ov.pairs),
	       dt_median(ov.driver_cpu, (size_t)ov.pairs), cpu.med, cpu.mlo,
	       cpu.mhi, cpu.pooled);
	printf("#   driver/bare = %.3f [%.3f, %.3f] (%s figure); target >= "
	       "%.2f: %s\n", main_fig->med, main_fig->mlo, main_fig->mhi,
	       posix ? "cpu" : "wall", TARGET_RATIO,
	       main_fig->med >= TARGET_RATIO ? "met" : "NOT met");
	fflush(stdout);
	dt_diag(r, "bare", "%s", ov.bare_what);
	dt_diag(r, "driver_over_bare", "%.3f (%s time, median of %d block "
		"pairs)", main_fig->med, posix ? "cpu" : "wall", ov.pairs);
	dt_diag(r, "wall_ratio", "%.3f [%.3f, %.3f]", wall.med, wall.mlo,
		wall.mhi);
	dt_diag(r, "cpu_ratio", "%.3f [%.3f, %.3f]", cpu.med, cpu.mlo,
		cpu.mhi);
	if (dt_metrics_enabled()) {
		dt_metrics_begin(&j, "overhead", r);
		dt_json_str(&j, "bare", ov.bare_what);
		dt_json_str(&j, "clock", dt_perf_clock_name());
		dt_json_int(&j, "pairs", ov.pairs);
		json_rates(&j, "bare_ops_per_s", ov.bare);
		json_rates(&j, "driver_ops_per_s", ov.driver);
		json_rates(&j, "bare_ops_per_cpu_s", ov.bare_cpu);
		json_rates(&j, "driver_ops_per_cpu_s", ov.driver_cpu);
		json_figure(&j, "wall", &wall);
		json_figure(&j, "cpu", &cpu);
		dt_json_str(&j, "figure", posix ? "cpu" : "wall");
		dt_json_num(&j, "ratio", main_fig->med);
		dt_json_num(&j, "target_ratio", TARGET_RATIO);
		dt_json_bool(&j, "met", main_fig->med >= TARGET_RATIO);
		dt_json_obj_end(&j);
		dt_metrics_write(&j);
		dt_json_free(&j);
	}
	PERF_OPS(r)->unlink(r->conn, ov.path);
}

static const struct dt_case cases[] = {
	{ "stat", run_stat },
	{ NULL }
};

static const struct dt_test test = {
	.name = "perf_overhead",
	.desc = "perf driver throughput against a bare loop of the same stat calls",
	.tags = "perf",
	.threads = 1,
	.duration = 4,
	.timeout = 300,
	.cases = cases,
};

DT_TEST_MAIN(test)
