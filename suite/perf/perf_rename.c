/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rename rates by thread count: each thread renames its own file back and
 * forth (a -> b, b -> a) in one shared directory, so every rename takes
 * the directory lock exclusive and the rename seqlock.
 *
 * Knobs: the engine's (lib/core/perf.h).
 */
#include "perf_common.h"

struct rn_state {
	struct perf_paths p;	/* [0] = a, [1] = b */
};

static int rn_setup(struct dt_worker *w, void **state)
{
	struct rn_state *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	rc = perf_paths_make(w->run, &s->p, 2, "r%ld.%d", w->gid);
	if (!rc)
		rc = PERF_OPS(w->run)->create(w->conn, s->p.p[0], true, NULL);
	if (rc < 0) {
		perf_paths_free(&s->p);
		free(s);
		return rc;
	}
	*state = s;
	return 0;
}

static void rn_cleanup(struct dt_worker *w, void *state)
{
	struct rn_state *s = state;

	PERF_OPS(w->run)->unlink(w->conn, s->p.p[0]);
	PERF_OPS(w->run)->unlink(w->conn, s->p.p[1]);
	perf_paths_free(&s->p);
	free(s);
}

static int rename_pingpong(struct dt_worker *w, void *state, uint64_t i)
{
	struct rn_state *s = state;

	return PERF_OPS(w->run)->rename(w->conn, s->p.p[i & 1],
					s->p.p[!(i & 1)]);
}

static void run_pingpong(struct dt_run *r)
{
	struct dt_perf_op op = {
		.name = "rename", .opcode = DT_OP_RENAME,
		.fn = rename_pingpong, .wsetup = rn_setup,
		.wcleanup = rn_cleanup, .params = "\"dir\":\"shared\"",
	};

	dt_perf_sweep(r, &op);
}

static const struct dt_case cases[] = {
	{ "shared_dir", run_pingpong },
	{ NULL }
};

static const struct dt_test test = {
	.name = "perf_rename",
	.desc = "rename rate and latency by threads in one shared directory",
	.tags = "perf rename",
	.threads = 16,
	.duration = 2,
	.timeout = 900,
	.cases = cases,
};

DT_TEST_MAIN(test)
