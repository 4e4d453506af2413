/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A large directory: the workers (of every host) create tens of thousands
 * of entries in one directory in parallel, then a few full listings are
 * taken, one at a time, each many READDIR round trips long (cookies and
 * verifiers across hundreds of calls), and a sample of the entries is
 * looked up.  Nothing changes the directory while it is listed, so every
 * listing must be exact: every entry once, nothing else, and its fileids
 * (where the listing carries them: not libnfs NFSv4) the ones the entries
 * were created with; the lookups must find the same fileids.
 *
 * Cases: large (50 000 entries) and medium (5 000, the short form).
 * Creation rate, listing time and lookup sample are reported (dt_diag),
 * not asserted.  The workers remove the entries in parallel at the end,
 * after the verdict, so that cleanup does not take longer than the test.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "dentrace.h"

/* full listings taken one after another, each by another worker */
#define LISTINGS 3
/* lookups of a large directory on a slow target: a stride sample */
#define SAMPLE 2000
/* look every entry up when there are at most this many */
#define LOOKUP_ALL_MAX 5000

struct plan {
	long entries;
	long sample;		/* entries looked up, evenly spread */
	long stride;		/* ... every stride-th from offset */
	long offset;
};

static void entry_path(struct dt_worker *w, char *buf, size_t len, long i)
{
	dt_pathbuf(w->run, buf, len, "d/e%ld", i);
}

/* every worker of the run creates the entries i = gid (mod workers) */
static void create_worker(struct dt_worker *w)
{
	const struct plan *p = w->arg;
	char name[DT_PATH_MAX];

	for (long i = w->gid; i < p->entries; i += w->ngworkers) {
		entry_path(w, name, sizeof(name), i);
		/* a failure is recorded; the case calls it broken after */
		if (dt_create(w, name, true, NULL) < 0)
			break;
	}
}

static void list_worker(struct dt_worker *w)
{
	const struct plan *p = w->arg;
	char dir[DT_PATH_MAX], name[DT_PATH_MAX];

	dt_pathbuf(w->run, dir, sizeof(dir), "d");
	/*
	 * One listing per round, by a different worker (another host in a
	 * multi-host run) each time.  The rounds are the test, not load:
	 * all of them run whatever the duration, so the answer of
	 * dt_worker_round is not consulted.
	 */
	for (long k = 0; k < LISTINGS; k++) {
		dt_worker_round(w, k);
		if (w->gid == k % w->ngworkers)
			dt_readdir(w, dir);
	}
	dt_worker_round(w, LISTINGS);
	for (long j = w->gid; j < p->sample; j += w->ngworkers) {
		entry_path(w, name, sizeof(name), p->offset + j * p->stride);
		dt_lookup(w, name, NULL);
	}
}

/* unrecorded: the verdict is in, this is only a faster cleanup */
static void remove_worker(struct dt_worker *w)
{
	const struct plan *p = w->arg;
	const struct dt_backend_ops *ops = w->run->target->ops;
	char name[DT_PATH_MAX];

	for (long i = w->gid; i < p->entries; i += w->ngworkers) {
		entry_path(w, name, sizeof(name), i);
		ops->unlink(w->conn, name);
	}
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the creates: broken if one failed; rate and unknown fileids for diag */
static void judge_creates(struct dt_run *r, const struct plan *p)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;
	long n = 0, unknown = 0;

	for (size_t i = 0; i < r->hist.n; i++) {
		const struct dt_event *e = &r->hist.ev[i];

		if (e->op != DT_OP_CREATE || e->thread == 0xffff)
			continue;
		if (e->result < 0)
			dt_broken(r, "creating entry %s: %s", e->name,
				  dt_strerr(e->result));
		n++;
		unknown += !e->fileid;
		t0 = e->start_ns < t0 ? e->start_ns : t0;
		t1 = e->end_ns > t1 ? e->end_ns : t1;
	}
	if (n != p->entries)
		dt_broken(r, "created %ld of %ld entries", n, p->entries);
	dt_diag(r, "create_rate", "%.0f/s (%ld entries by %d workers x %d hosts in %.2f s)",
		(double)n / ((double)(t1 - t0) / 1e9), n, r->threads,
		r->nhosts, (double)(t1 - t0) / 1e9);
	/* a create that could not tell its fileid leaves that entry's check to lookups */
	if (unknown)
		dt_diag(r, "creates_without_fileid", "%ld", unknown);
}

static void judge_listings(struct dt_run *r, const char *dir)
{
	uint64_t took[LISTINGS];
	size_t n = 0, fileids = 0;

	for (size_t i = 0; i < r->hist.n; i++) {
		const struct dt_event *e = &r->hist.ev[i];

		if (e->op != DT_OP_READDIR)
			continue;
		if (e->result < 0) {
			dt_fail(r, "readdir", ">= 0", dt_strerr(e->result),
				"full listing of %s (h%u t%u) failed", e->name,
				e->host, e->thread);
			continue;
		}
		if (n < LISTINGS)
			took[n++] = e->end_ns - e->start_ns;
		for (size_t k = 0; e->list && k < e->list->n; k++)
			fileids += e->list->ent[k].fileid != 0;
	}
	if (!n)
		dt_broken(r, "no listing of %s completed", dir);
	qsort(took, n, sizeof(*took), u64_cmp);
	dt_diag(r, "listing_s", "min %.3f median %.3f max %.3f (%zu listings)",
		(double)took[0] / 1e9, (double)took[(n - 1) / 2] / 1e9,
		(double)took[n - 1] / 1e9, n);
	dt_diag(r, "listed_fileids", "%zu (0: the backend cannot say)",
		fileids);
}

static void run_large_dir(struct dt_run *r, long entries)
{
	struct plan p = { .entries = entries };
	struct dt_worker *s = dt_setup_worker(r);
	char dir[DT_PATH_MAX];
	struct dt_verdict v;
	uint64_t t0, t1;
	size_t lookups = 0;

	/* look every entry up when that is cheap, else a spread sample */
	p.sample = entries;
	if (entries > LOOKUP_ALL_MAX && r->target->ops != &dt_posix_ops)
		p.sample = SAMPLE;
	p.stride = entries / p.sample;
	/* the seed is the run's: every host picks the same sample */
	p.offset = (long)(r->seed % (uint64_t)p.stride);

	dt_pathbuf(r, dir, sizeof(dir), "d");
	if (dt_leader(r))
		dt_must(r, dt_mkdir(s, dir), "mkdir %s", dir);
	dt_run_workers(r, r->threads, create_worker, &p);
	judge_creates(r, &p);

	dt_run_workers(r, r->threads, list_worker, &p);
	judge_listings(r, dir);
	t0 = dt_now_ns();
	if (dt_oracle_readdir(&r->hist, dir, &v))
		dt_fail_verdict(r, "large directory listing", &v);
	if (dt_oracle_name_lifetime(&r->hist, &v))
		dt_fail_verdict(r, "lookup of a listed entry", &v);
	t1 = dt_now_ns();
	for (size_t i = 0; i < r->hist.n; i++)
		lookups += r->hist.ev[i].op == DT_OP_LOOKUP;
	dt_diag(r, "lookups", "%zu of %ld entries", lookups, entries);
	dt_diag(r, "oracle_s", "%.3f", (double)(t1 - t0) / 1e9);

	dt_run_workers(r, r->threads, remove_worker, &p);
}

static void run_large(struct dt_run *r)
{
	run_large_dir(r, 50000);
}

static void run_medium(struct dt_run *r)
{
	run_large_dir(r, 5000);
}

static const struct dt_case cases[] = {
	{ "large", run_large },
	{ "medium", run_medium },
	{ NULL }
};

static const struct dt_test test = {
	.name = "readdir_large",
	.desc = "50k-entry directory: every listing exact, fileids agree",
	.tags = "slow readdir",
	.threads = 4,
	.duration = 2,
	/* libnfs creates a few thousand entries a second, lists ~10k/s */
	.timeout = 300,
	.cases = cases,
};

DT_TEST_MAIN(test)
