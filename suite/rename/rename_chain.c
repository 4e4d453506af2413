/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rename chain: one writer renames a file along f.0 -> f.1 -> f.2 ...; the
 * readers look it up near where the writer is.  rename(2) is atomic: at
 * every instant the file has exactly one of the names.  A reader must never
 * miss it while it surely sits under a name ("lost"), never find it under
 * a name it surely left or has not reached ("two names"), and never see an
 * errno other than ENOENT (ESTALE, EIO).
 *
 * The rename_over case: renaming a fresh file over an existing target must
 * never let a lookup of the target see ENOENT (the target is replaced
 * atomically, not unlinked first).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dentrace.h"

/* listings per reader (each is judged against every chain name) */
#define MAX_LISTINGS 100

struct chain {
	long pos;		/* index the writer last completed (its host) */
};

/* Where is the file now?  A listing of the chain dir says (recorded). */
static long resync(struct dt_worker *w, long k)
{
	const struct dt_event *e;
	char dir[DT_PATH_MAX];

	dt_pathbuf(w->run, dir, sizeof(dir), "chain");
	if (dt_readdir(w, dir) < 0)
		return k;
	e = &w->hist.ev[w->hist.n - 1];
	for (size_t i = 0; e->list && i < e->list->n; i++)
		if (!strncmp(e->list->ent[i].name, "f.", 2))
			return atol(e->list->ent[i].name + 2);
	return k;
}

static void chain_worker(struct dt_worker *w)
{
	struct chain *ch = w->arg;
	char from[DT_PATH_MAX], to[DT_PATH_MAX];

	if (w->gid == 0) {
		long i;

		for (i = 0; dt_worker_continue(w, i); i++) {
			dt_pathbuf(w->run, from, sizeof(from), "chain/f.%ld", i);
			dt_pathbuf(w->run, to, sizeof(to), "chain/f.%ld", i + 1);
			if (dt_rename(w, from, to) < 0)
				break;
			__atomic_store_n(&ch->pos, i + 1, __ATOMIC_RELEASE);
		}
		dt_workers_stop(w->run);
		return;
	}
	/*
	 * Readers follow the file on their own (they may be on another host
	 * than the writer): probe the name it had, the next and the one
	 * before; when it is at neither, a listing tells where it went.
	 */
	long k = 0, misses = 0, listings = 0;
	for (long n = 0; dt_worker_continue(w, n); n++) {
		long probe = k + (long)(dt_rand(&w->rng) % 3) - 1;

		if (probe < 0)
			probe = 0;
		dt_pathbuf(w->run, to, sizeof(to), "chain/f.%ld", probe);
		if (dt_lookup(w, to, NULL) == 0) {
			if (probe > k)
				k = probe;
			misses = 0;
		} else if (++misses >= 3) {
			/*
			 * The readdir oracle compares every listing with every
			 * chain name: bound the listings, not just the probes.
			 */
			if (listings++ < MAX_LISTINGS)
				k = resync(w, k);
			else
				k = __atomic_load_n(&ch->pos, __ATOMIC_ACQUIRE);
			misses = 0;
		}
	}
}

static void run_chain(struct dt_run *r)
{
	struct dt_worker *s = dt_setup_worker(r);
	struct chain ch = { 0 };
	struct dt_verdict v;
	struct dt_dirlist l = { 0 };
	char prefix[DT_PATH_MAX], dir[DT_PATH_MAX];
	long renames = 0;

	if (dt_leader(r)) {
		dt_must(r, dt_mkdir(s, dt_path(r, "chain")), "mkdir chain");
		dt_must(r, dt_create(s, dt_path(r, "chain/f.0"), true, NULL),
			"create chain/f.0");
	}
	dt_run_workers(r, r->threads < 2 ? 2 : r->threads, chain_worker, &ch);

	/* fileid 0: the oracle takes it from the create of f.0 */
	dt_pathbuf(r, prefix, sizeof(prefix), "chain/f.");
	if (dt_oracle_rename_chain(&r->hist, prefix, 0, &v))
		dt_fail_verdict(r, "rename chain", &v);
	dt_pathbuf(r, dir, sizeof(dir), "chain");
	if (dt_oracle_readdir(&r->hist, dir, &v) && v.event != SIZE_MAX)
		dt_fail_verdict(r, "readdir of the chain", &v);
	for (size_t i = 0; i < r->hist.n; i++)
		renames += r->hist.ev[i].op == DT_OP_RENAME &&
			   r->hist.ev[i].result == 0;
	ch.pos = renames;

	/* afterwards exactly one name is left: the last one */
	dt_must(r, r->target->ops->readdir(r->conn, dt_path(r, "chain"), &l),
		"readdir chain");
	char want[64];
	snprintf(want, sizeof(want), "f.%ld", ch.pos);
	if (l.n != 1 || strcmp(l.ent[0].name, want))
		dt_fail(r, "readdir", want,
			dt_fmt("%zu entries, first %s", l.n,
			       l.n ? l.ent[0].name : "-"),
			"the chain must end under exactly one name");
	dt_dirlist_free(&l);
	dt_diag(r, "renames", "%ld", renames);
	if (renames == 0)
		dt_broken(r, "the writer made no rename");
}

static void over_worker(struct dt_worker *w)
{
	char tmp[DT_PATH_MAX], target[DT_PATH_MAX];
	struct dt_stat st;

	dt_pathbuf(w->run, target, sizeof(target), "over/target");
	if (w->gid == 0) {
		long i;

		for (i = 0; dt_worker_continue(w, i); i++) {
			dt_pathbuf(w->run, tmp, sizeof(tmp), "over/tmp.%ld", i);
			if (dt_create(w, tmp, true, NULL) < 0 ||
			    dt_rename(w, tmp, target) < 0)
				break;
		}
		dt_workers_stop(w->run);
		return;
	}
	for (long k = 0; dt_worker_continue(w, k); k++) {
		int rc = dt_lookup(w, target, &st);

		if (rc < 0) {
			dt_fail(w->run, "lookup", "0 (target always exists)",
				dt_strerr(rc), "lookup %s during rename-over",
				target);
			break;
		}
	}
}

static void run_over(struct dt_run *r)
{
	struct dt_worker *s = dt_setup_worker(r);

	if (dt_leader(r)) {
		dt_must(r, dt_mkdir(s, dt_path(r, "over")), "mkdir over");
		dt_must(r, dt_create(s, dt_path(r, "over/target"), true, NULL),
			"create over/target");
	}
	dt_run_workers(r, r->threads < 2 ? 2 : r->threads, over_worker, NULL);
	/* the writer's own failures are failures too */
	for (size_t i = 0; i < r->hist.n; i++) {
		const struct dt_event *e = &r->hist.ev[i];

		if (e->thread == 0 && e->host == 0 && e->result < 0 &&
		    (e->op == DT_OP_RENAME || e->op == DT_OP_CREATE)) {
			dt_fail(r, dt_op_name(e->op), "0", dt_strerr(e->result),
				"writer %s %s", dt_op_name(e->op), e->name);
			break;
		}
	}
}

static const struct dt_case cases[] = {
	{ "chain", run_chain },
	{ "rename_over", run_over },
	{ NULL }
};

static const struct dt_test test = {
	.name = "rename_chain",
	.desc = "a file renamed along a chain is always under exactly one name",
	.tags = "quick race rename",
	.threads = 6,
	.duration = 2,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
