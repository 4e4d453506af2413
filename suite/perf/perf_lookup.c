/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lookup rates by thread count.  Since Linux 4.7 lookups in one directory
 * run in parallel (shared i_rwsem, d_alloc_parallel): "different" shows
 * whether they do (with network latency the rate must grow with threads),
 * "same" is every thread on one name (the in-lookup wait), "absent" is
 * negative lookups of names that never exist.
 *
 * Knobs: DT_PERF_NAMES (names in the directory, default 256), and the
 * engine's (lib/core/perf.h).
 */
#include "perf_common.h"

struct lookup_arg {
	struct perf_paths names, absent;
};

static struct lookup_arg la;

static int lookup_different(struct dt_worker *w, void *st, uint64_t i)
{
	(void)st;
	return PERF_OPS(w->run)->lookup(w->conn,
		la.names.p[perf_pick(w, i, la.names.n)], NULL);
}

static int lookup_same(struct dt_worker *w, void *st, uint64_t i)
{
	(void)st;
	(void)i;
	return PERF_OPS(w->run)->lookup(w->conn, la.names.p[0], NULL);
}

static int lookup_absent(struct dt_worker *w, void *st, uint64_t i)
{
	int rc;

	(void)st;
	rc = PERF_OPS(w->run)->lookup(w->conn,
		la.absent.p[perf_pick(w, i, la.absent.n)], NULL);
	/* never created: ENOENT is the right answer */
	return rc == -ENOENT ? 0 : rc < 0 ? rc : -EEXIST;
}

static void setup(struct dt_run *r)
{
	int n = (int)perf_env_long("DT_PERF_NAMES", 256, 1, 100000);

	dt_must(r, perf_paths_make(r, &la.names, n, "n%ld.%d", 0), "paths");
	dt_must(r, perf_paths_make(r, &la.absent, n, "x%ld.%d", 0), "paths");
	if (dt_leader(r))
		perf_create_all(r, &la.names);
}

static void cleanup(struct dt_run *r)
{
	if (dt_leader(r))
		perf_unlink_all(r, &la.names);
	perf_paths_free(&la.names);
	perf_paths_free(&la.absent);
}

static void sweep(struct dt_run *r, const char *what,
		  int (*fn)(struct dt_worker *, void *, uint64_t))
{
	char params[64];
	struct dt_perf_op op = {
		.name = what, .opcode = DT_OP_LOOKUP, .fn = fn,
		.params = params,
	};

	snprintf(params, sizeof(params), "\"names\":%d", la.names.n);
	dt_perf_sweep(r, &op);
}

static void run_different(struct dt_run *r)
{
	sweep(r, "lookup", lookup_different);
}

static void run_same(struct dt_run *r)
{
	sweep(r, "lookup", lookup_same);
}

static void run_absent(struct dt_run *r)
{
	sweep(r, "lookup-enoent", lookup_absent);
}

static const struct dt_case cases[] = {
	{ "different", run_different },
	{ "same", run_same },
	{ "absent", run_absent },
	{ NULL }
};

static const struct dt_test test = {
	.name = "perf_lookup",
	.desc = "lookup rate and latency by threads: different names, one name, absent names",
	.tags = "perf lookup",
	.guards = "parallel lookups in one directory (Linux 4.7, d_alloc_parallel)",
	.threads = 16,
	.duration = 2,
	.timeout = 900,
	.cases = cases,
	.setup = setup,
	.cleanup = cleanup,
};

DT_TEST_MAIN(test)
