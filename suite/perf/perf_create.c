/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * create+unlink rates by thread count.  One op is an exclusive create of
 * a fresh name followed by its unlink.  "shared_dir": every thread in one
 * directory (creates and unlinks take the directory's i_rwsem exclusive:
 * the 4.7 mutex -> rwsem change showed here as an unlink slowdown);
 * "own_dir": each thread in its own directory, the no-contention
 * reference.
 *
 * Knobs: the engine's (lib/core/perf.h).
 */
#include "perf_common.h"

/* names a worker cycles through (each is gone again after its op) */
#define NAMES_PER_WORKER 64

struct cu_state {
	struct perf_paths p;
	char dir[DT_EV_NAME];	/* own_dir: the worker's directory */
};

static int cu_setup(struct dt_worker *w, void **state, bool own)
{
	struct dt_run *r = w->run;
	struct cu_state *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	if (own) {
		snprintf(s->dir, sizeof(s->dir), "w%d", w->gid);
		rc = perf_paths_make(r, &s->p, NAMES_PER_WORKER, "w%ld/c.%d",
				     w->gid);
		if (!rc) {
			/* s->p.p[0] is ".../wG/c.0": make ".../wG" */
			char *slash = strrchr(s->p.p[0], '/');

			*slash = 0;
			rc = PERF_OPS(r)->mkdir(w->conn, s->p.p[0]);
			*slash = '/';
		}
	} else {
		rc = perf_paths_make(r, &s->p, NAMES_PER_WORKER, "c%ld.%d",
				     w->gid);
	}
	if (rc < 0) {
		perf_paths_free(&s->p);
		free(s);
		return rc;
	}
	*state = s;
	return 0;
}

static int setup_shared(struct dt_worker *w, void **state)
{
	return cu_setup(w, state, false);
}

static int setup_own(struct dt_worker *w, void **state)
{
	return cu_setup(w, state, true);
}

static void cu_cleanup(struct dt_worker *w, void *state)
{
	struct cu_state *s = state;

	/* a failed op may have left its name: remove quietly */
	for (int k = 0; k < s->p.n; k++)
		PERF_OPS(w->run)->unlink(w->conn, s->p.p[k]);
	if (s->dir[0]) {
		char *slash = strrchr(s->p.p[0], '/');

		*slash = 0;
		PERF_OPS(w->run)->rmdir(w->conn, s->p.p[0]);
	}
	perf_paths_free(&s->p);
	free(s);
}

static int create_unlink(struct dt_worker *w, void *state, uint64_t i)
{
	struct cu_state *s = state;
	const char *p = s->p.p[i % NAMES_PER_WORKER];
	int rc = PERF_OPS(w->run)->create(w->conn, p, true, NULL);

	if (rc < 0)
		return rc;
	return PERF_OPS(w->run)->unlink(w->conn, p);
}

static void run_shared(struct dt_run *r)
{
	struct dt_perf_op op = {
		.name = "create+unlink", .opcode = DT_OP_CREATE,
		.fn = create_unlink, .wsetup = setup_shared,
		.wcleanup = cu_cleanup, .params = "\"dir\":\"shared\"",
	};

	dt_perf_sweep(r, &op);
}

static void run_own(struct dt_run *r)
{
	struct dt_perf_op op = {
		.name = "create+unlink", .opcode = DT_OP_CREATE,
		.fn = create_unlink, .wsetup = setup_own,
		.wcleanup = cu_cleanup, .params = "\"dir\":\"own\"",
	};

	dt_perf_sweep(r, &op);
}

static const struct dt_case cases[] = {
	{ "shared_dir", run_shared },
	{ "own_dir", run_own },
	{ NULL }
};

static const struct dt_test test = {
	.name = "perf_create",
	.desc = "create+unlink rate and latency by threads, one shared directory or one each",
	.tags = "perf create unlink",
	.guards = "i_rwsem instead of i_mutex (Linux 4.7): unlink slowdown",
	.threads = 16,
	.duration = 2,
	.timeout = 900,
	.cases = cases,
};

DT_TEST_MAIN(test)
