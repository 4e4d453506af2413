/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stat of entries another client created.  Before each sweep point the
 * case's own connection (on a multi-host run: the leader host) creates a
 * fresh set of names the workers have never seen, so no client cache can
 * answer the first lookups.  With libnfs every worker is its own client
 * (own connection, no attribute cache); on kernel NFS mounts the cache
 * that matters is the client's: run it across hosts (--coord), where the
 * leader creates and every host stats.  On a single local filesystem the
 * creating "client" is the same kernel and the stats are cache hits.
 *
 * Knobs: DT_PERF_ENTRIES (names per point, default 256), and the
 * engine's (lib/core/perf.h).
 */
#include "perf_common.h"

static struct perf_paths cur;
static int point_no;

static void point_setup(struct dt_run *r, int threads)
{
	int n = (int)perf_env_long("DT_PERF_ENTRIES", 256, 1, 1000000);

	(void)threads;
	if (cur.p && dt_leader(r))
		perf_unlink_all(r, &cur);
	perf_paths_free(&cur);
	dt_must(r, perf_paths_make(r, &cur, n, "s%ld.%d", point_no++),
		"paths");
	if (dt_leader(r))
		perf_create_all(r, &cur);
}

static void cleanup(struct dt_run *r)
{
	if (cur.p && dt_leader(r))
		perf_unlink_all(r, &cur);
	perf_paths_free(&cur);
}

static int stat_fresh(struct dt_worker *w, void *state, uint64_t i)
{
	(void)state;
	return PERF_OPS(w->run)->lookup(w->conn, cur.p[perf_pick(w, i,
							   cur.n)], NULL);
}

static void run_fresh(struct dt_run *r)
{
	struct dt_perf_op op = {
		.name = "stat", .opcode = DT_OP_LOOKUP, .fn = stat_fresh,
		.point_setup = point_setup,
		.params = "\"created_by\":\"another connection\"",
	};

	dt_perf_sweep(r, &op);
}

static const struct dt_case cases[] = {
	{ "fresh", run_fresh },
	{ NULL }
};

static const struct dt_test test = {
	.name = "perf_stat_remote",
	.desc = "stat rate of entries another client just created",
	.tags = "perf coherence",
	.threads = 16,
	.duration = 2,
	.timeout = 900,
	.cases = cases,
	.cleanup = cleanup,
};

DT_TEST_MAIN(test)
