/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readdir of one directory by N readers at once.  Since Linux 4.7
 * readdir holds the directory lock shared, so readers run in parallel;
 * on tmpfs (dcache_readdir) they then contend on the directory's d_lock,
 * the readdir slowdown found by chance at the time.  One op is a full
 * listing; each listing's length is checked.
 *
 * Knobs: DT_PERF_ENTRIES (entries in the directory, default 256), and
 * the engine's (lib/core/perf.h).
 */
#include "perf_common.h"

static struct perf_paths entries;
static char dir[DT_PATH_MAX];

static int readdir_all(struct dt_worker *w, void *state, uint64_t i)
{
	struct dt_dirlist l = { 0 };
	int rc;

	(void)state;
	(void)i;
	rc = PERF_OPS(w->run)->readdir(w->conn, dir, &l);
	if (rc >= 0 && l.n != (size_t)entries.n)
		rc = -EIO;	/* a listing that misses or adds entries */
	dt_dirlist_free(&l);
	return rc < 0 ? rc : 0;
}

static void setup(struct dt_run *r)
{
	int n = (int)perf_env_long("DT_PERF_ENTRIES", 256, 1, 1000000);

	dt_pathbuf(r, dir, sizeof(dir), "d");
	dt_must(r, perf_paths_make(r, &entries, n, "d/e%ld.%d", 0), "paths");
	if (dt_leader(r)) {
		dt_must(r, PERF_OPS(r)->mkdir(r->conn, dir), "mkdir %s", dir);
		perf_create_all(r, &entries);
	}
}

static void cleanup(struct dt_run *r)
{
	if (dt_leader(r))
		perf_unlink_all(r, &entries);
	perf_paths_free(&entries);
}

static void run_shared(struct dt_run *r)
{
	char params[64];
	struct dt_perf_op op = {
		.name = "readdir", .opcode = DT_OP_READDIR,
		.fn = readdir_all, .params = params,
	};

	snprintf(params, sizeof(params), "\"entries\":%d", entries.n);
	dt_perf_sweep(r, &op);
}

static const struct dt_case cases[] = {
	{ "shared_dir", run_shared },
	{ NULL }
};

static const struct dt_test test = {
	.name = "perf_readdir",
	.desc = "full listings of one directory by N readers in parallel",
	.tags = "perf readdir",
	.guards = "shared i_rwsem for readdir (Linux 4.7): d_lock contention on tmpfs",
	.threads = 16,
	.duration = 2,
	.timeout = 900,
	.cases = cases,
	.setup = setup,
	.cleanup = cleanup,
};

DT_TEST_MAIN(test)
