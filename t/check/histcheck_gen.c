/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dt_check_history on generated histories (t/check/histgen.h): linearizable by
 * construction, so every one must be judged consistent, at every
 * concurrency, with and without renames, and one of at least 100 000 ops.
 * Then mutants: one event changed so that the history is provably wrong
 * (whatever order the ops took), each of which must be judged a violation:
 *
 *   fileid-never-made  a lookup finds a fileid no create ever returned
 *   found->ENOENT      a lookup misses a name that surely existed
 *   ENOENT->found      a lookup finds a name that surely did not exist
 *   swap-fileid        a lookup finds another file than the one created
 *   drop-entry         a listing misses a name that surely existed
 *   dup-entry          a listing names one entry twice
 *   failed->success    an unlink of a surely absent name succeeds
 *   second-excl-create an exclusive create succeeds on a surely present name
 *   noreplace-replaces a RENAME_NOREPLACE succeeds onto a surely present name
 *
 * "Surely": the last change of the name before the op ended before it
 * started, and no other change of the name overlaps from that change to
 * the op's end, so every linearization puts the op in that state.
 *
 * Built with -DHISTCHECK_BENCH it is the benchmark instead (mk/histcheck.mk).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <sys/resource.h>
#include <time.h>

#include "check/histcheck.h"
#include "histgen.h"
#include "tap.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

#ifndef HISTCHECK_BENCH

/* what a successful event does to path p: 1 present, 0 absent, -1 no change */
static int effect_on(const struct dt_event *e, const char *p)
{
	bool a = !strcmp(e->name, p), b = e->name2[0] && !strcmp(e->name2, p);

	if (e->thread == 0xffff && e->op == DT_OP_LOOKUP && a)
		return 0;	/* the setup pins every path absent */
	if (e->result || (!a && !b))
		return -1;
	switch (e->op) {
	case DT_OP_CREATE:
	case DT_OP_MKDIR:
		return a ? 1 : -1;
	case DT_OP_UNLINK:
	case DT_OP_RMDIR:
		return a ? 0 : -1;
	case DT_OP_RENAME:
		return b ? 1 : 0;
	case DT_OP_LINK:
		return b ? 1 : 2;	/* 2: touches the source, keeps it */
	}
	return -1;
}

/*
 * The state path p surely has throughout [s, e]: 1 present, 0 absent, -1
 * not sure.  *anchor: the change that put it there.
 */
static int surely(const struct dt_history *h, const char *p, uint64_t s,
		  uint64_t e, size_t *anchor)
{
	size_t c = SIZE_MAX;

	for (size_t i = 0; i < h->n; i++)
		if (h->ev[i].end_ns < s && effect_on(&h->ev[i], p) >= 0 &&
		    (c == SIZE_MAX || h->ev[i].end_ns > h->ev[c].end_ns))
			c = i;
	if (c == SIZE_MAX)
		return -1;
	for (size_t i = 0; i < h->n; i++) {
		const struct dt_event *m = &h->ev[i];

		if (i == c || effect_on(m, p) < 0)
			continue;
		if (!(m->end_ns < h->ev[c].start_ns || m->start_ns > e))
			return -1;
	}
	*anchor = c;
	return effect_on(&h->ev[c], p) == 1 ? 1 :
	       effect_on(&h->ev[c], p) == 0 ? 0 : -1;
}

enum mutant {
	M_NEVER_MADE, M_FOUND_ENOENT, M_ENOENT_FOUND, M_SWAP_FID, M_DROP_ENTRY,
	M_DUP_ENTRY, M_FAIL_SUCCEEDS, M_SECOND_EXCL, M_NOREPLACE_REPLACES,
	M__COUNT
};

static const char *const mutant_name[M__COUNT] = {
	"fileid-never-made", "found->ENOENT", "ENOENT->found", "swap-fileid",
	"drop-entry", "dup-entry", "failed->success", "second-excl-create",
	"noreplace-replaces",
};

/* Saved state of one mutated event, to undo the mutation. */
struct undo {
	size_t i;
	struct dt_event e;
	size_t entry;
	struct dt_dirent dent;
	bool dup, dropped;
};

/* Mutate event i by kind k if that is provably wrong; true if done. */
static bool mutate(struct dt_history *h, size_t i, enum mutant k,
		   struct undo *u)
{
	struct dt_event *e = &h->ev[i];
	size_t anchor;

	memset(u, 0, sizeof(*u));
	u->i = i;
	u->e = *e;
	if (e->thread == 0xffff)
		return false;
	switch (k) {
	case M_NEVER_MADE:
		if (e->op != DT_OP_LOOKUP || e->result || strncmp(e->name, "g/f", 3))
			return false;
		e->fileid = 999999999;
		return true;
	case M_FOUND_ENOENT:
		if (e->op != DT_OP_LOOKUP || e->result ||
		    surely(h, e->name, e->start_ns, e->end_ns, &anchor) != 1)
			return false;
		e->result = -ENOENT;
		e->fileid = 0;
		return true;
	case M_ENOENT_FOUND:
		if (e->op != DT_OP_LOOKUP || e->result != -ENOENT ||
		    surely(h, e->name, e->start_ns, e->end_ns, &anchor) != 0)
			return false;
		e->result = 0;
		e->fileid = 100;
		return true;
	case M_SWAP_FID:
		if (e->op != DT_OP_LOOKUP || e->result || !e->fileid ||
		    surely(h, e->name, e->start_ns, e->end_ns, &anchor) != 1 ||
		    h->ev[anchor].op != DT_OP_CREATE ||
		    h->ev[anchor].fileid != e->fileid)
			return false;
		e->fileid = e->fileid == 100 ? 101 : 100;
		return true;
	case M_DROP_ENTRY:
		if (e->op != DT_OP_READDIR || !e->list)
			return false;
		for (size_t k2 = 0; k2 < e->list->n; k2++) {
			char p[DT_EV_NAME];

			snprintf(p, sizeof(p), "g/%s", e->list->ent[k2].name);
			if (surely(h, p, e->start_ns, e->end_ns, &anchor) != 1)
				continue;
			u->entry = k2;
			u->dent = e->list->ent[k2];
			u->dropped = true;
			e->list->ent[k2] = e->list->ent[e->list->n - 1];
			e->list->n--;
			return true;
		}
		return false;
	case M_DUP_ENTRY:
		if (e->op != DT_OP_READDIR || !e->list || !e->list->n ||
		    dt_dirlist_add(e->list, e->list->ent[0].name,
				   e->list->ent[0].fileid))
			return false;
		u->dup = true;
		return true;
	case M_FAIL_SUCCEEDS:
		if (e->op != DT_OP_UNLINK || e->result != -ENOENT ||
		    surely(h, e->name, e->start_ns, e->end_ns, &anchor) != 0)
			return false;
		e->result = 0;
		return true;
	case M_SECOND_EXCL:
		if (e->op != DT_OP_CREATE || !(e->flags & DT_EVF_EXCL) ||
		    e->result != -EEXIST ||
		    surely(h, e->name, e->start_ns, e->end_ns, &anchor) != 1)
			return false;
		e->result = 0;
		e->fileid = 777777;
		return true;
	case M_NOREPLACE_REPLACES:
		if (e->op != DT_OP_RENAME || !(e->flags & DT_EVF_NOREPLACE) ||
		    e->result != -EEXIST ||
		    surely(h, e->name2, e->start_ns, e->end_ns, &anchor) != 1)
			return false;
		e->result = 0;
		return true;
	default:
		return false;
	}
}

static void unmutate(struct dt_history *h, const struct undo *u)
{
	struct dt_event *e = &h->ev[u->i];
	struct dt_dirlist *l = e->list;

	if (u->dup) {
		free(l->ent[l->n - 1].name);
		l->n--;
	}
	if (u->dropped) {
		/* put the dropped entry back where it was */
		l->ent[l->n++] = l->ent[u->entry];
		l->ent[u->entry] = u->dent;
	}
	*e = u->e;
	e->list = l;
}

/*
 * The paths grow with the threads (12, or one per thread): 64 threads on
 * 12 renamed files is a search the budget does not cover (see the
 * benchmark), and this test is about verdicts, not limits.
 */
static void consistent_run(int threads, long ops, bool renames, uint64_t seed)
{
	struct gen_opts o = {
		.threads = threads, .ops = ops,
		.nfiles = threads > 12 ? threads : 12, .ndirs = 3,
		.renames = renames, .seed = seed, .max_dur = 20000,
		.max_gap = 5000,
	};
	struct dt_history h = { 0 };
	struct dt_check_result r;
	double t;
	int rc;

	if (gen_history(&o, &h))
		bail_out("generator: out of memory");
	t = now_s();
	rc = dt_check_history(&h, NULL, &r);
	t = now_s() - t;
	ok(rc == DT_CHECK_CONSISTENT,
	   "generated, %d threads, %ld ops, %s renames: %s (%zu components, %"
	   PRIu64 " steps, %.3f s)", threads, ops, renames ? "with" : "without",
	   dt_check_status_name(rc), r.components, r.steps, t);
	if (rc != DT_CHECK_CONSISTENT) {
		diag("  %s\n  %s\n  %s", r.verdict.what, r.verdict.expected,
		     r.verdict.observed);
		if (r.cex_text)
			diag("%s", r.cex_text);
	}
	dt_check_result_free(&r);
	dt_history_free(&h);
}

static void mutants(void)
{
	struct gen_opts o = {
		.threads = 8, .ops = 3000, .nfiles = 6, .ndirs = 2,
		.renames = true, .seed = 0x6d757461, .max_dur = 20000,
		.max_gap = 20000,
	};
	struct dt_history h = { 0 };

	if (gen_history(&o, &h))
		bail_out("generator: out of memory");
	for (int k = 0; k < M__COUNT; k++) {
		int tried = 0, violation = 0, consistent = 0;
		uint64_t rng = 42 + (uint64_t)k;

		/* up to 15 mutants per kind, from random events */
		for (int attempt = 0; attempt < 20000 && tried < 15; attempt++) {
			size_t i = (size_t)(gen_rand(&rng) % h.n);
			struct dt_check_result r;
			struct undo u;

			if (!mutate(&h, i, (enum mutant)k, &u))
				continue;
			tried++;
			int rc = dt_check_history(&h, NULL, &r);

			violation += rc == DT_CHECK_VIOLATION;
			consistent += rc == DT_CHECK_CONSISTENT;
			if (rc != DT_CHECK_VIOLATION)
				diag("  %s at #%zu judged %s", mutant_name[k], i,
				     dt_check_status_name(rc));
			else if (tried == 1)
				note("  first %s mutant (#%zu): %s; shrunk to %zu events:\n%s",
				     mutant_name[k], i, r.verdict.what, r.ncex,
				     r.cex_text);
			dt_check_result_free(&r);
			unmutate(&h, &u);
		}
		ok(tried > 0 && violation == tried,
		   "mutant %s: %d/%d judged violation, %d consistent",
		   mutant_name[k], violation, tried, consistent);
	}
	/* and the unmutated history is still consistent (undo worked) */
	struct dt_check_result r;

	ok(dt_check_history(&h, NULL, &r) == DT_CHECK_CONSISTENT,
	   "mutant base history consistent again after the undos");
	dt_check_result_free(&r);
	dt_history_free(&h);
}

/*
 * A search the budget would let run for seconds (64 threads renaming a
 * dozen files) gives up at its deadline instead: inconclusive, quickly.
 */
static void deadline_run(void)
{
	struct gen_opts o = {
		.threads = 64, .ops = 100000, .nfiles = 12, .ndirs = 3,
		.renames = true, .seed = 5, .max_dur = 20000, .max_gap = 5000,
	};
	struct dt_history h = { 0 };
	struct dt_check_opts co = { 0 };
	struct dt_check_result r;
	double t;
	int rc;

	if (gen_history(&o, &h))
		bail_out("generator: out of memory");
	t = now_s();
	co.deadline_ns = dt_now_ns() + 200 * 1000000ull;
	rc = dt_check_history(&h, &co, &r);
	t = now_s() - t;
	ok(rc == DT_CHECK_INCONCLUSIVE && strstr(r.verdict.what, "time"),
	   "a 200 ms deadline on a search beyond it: %s after %.3f s (%s)",
	   dt_check_status_name(rc), t, r.verdict.what);
	dt_check_result_free(&r);
	dt_history_free(&h);
}

int main(void)
{
	static const int threads[] = { 4, 16, 64 };

	/*
	 * Renames tie all paths into one component: at 48 and more threads
	 * on a dozen files the search runs out of its budget (inconclusive,
	 * never a verdict; see make bench-histcheck), so renames stop at 32.
	 */
	for (int t = 0; t < 3; t++) {
		consistent_run(threads[t], 20000, false, 1000 + (uint64_t)t);
		consistent_run(threads[t] > 32 ? 32 : threads[t], 20000, true,
			       1000 + (uint64_t)t);
	}
	consistent_run(16, 100000, true, 7);
	mutants();
	deadline_run();
	note("peak RSS %ld MB", peak_rss_mb());
	return done();
}

#else /* HISTCHECK_BENCH */

static void bench_one(long ops, int threads, bool renames)
{
	struct gen_opts o = {
		.threads = threads, .ops = ops, .nfiles = 12, .ndirs = 3,
		.renames = renames, .seed = (uint64_t)ops * 31 + (uint64_t)threads,
		.max_dur = 20000, .max_gap = 5000,
	};
	struct dt_history h = { 0 };
	struct dt_check_result r;
	double t;
	int rc;

	if (gen_history(&o, &h)) {
		fprintf(stderr, "generator: out of memory\n");
		exit(2);
	}
	t = now_s();
	rc = dt_check_history(&h, NULL, &r);
	t = now_s() - t;
	printf("%9zu %7d %-7s %9zu %6zu %9zu %11" PRIu64 " %8.3f %10.0f %7ld  %s\n",
	       h.n, threads, renames ? "yes" : "no", r.ops, r.components,
	       r.largest, r.steps, t, (double)h.n / t, peak_rss_mb(),
	       dt_check_status_name(rc));
	fflush(stdout);
	dt_check_result_free(&r);
	dt_history_free(&h);
}

int main(int argc, char **argv)
{
	long sizes[8] = { 100000, 1000000 }, nsizes = 2;
	int threads[8] = { 4, 16, 64 }, nthreads = 3;

	for (int i = 1; i < argc; i++) {
		char *p, *tok, *save = NULL;

		if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			nsizes = 0;
			for (p = argv[++i]; (tok = strtok_r(p, ",", &save)) && nsizes < 8; p = NULL)
				sizes[nsizes++] = atol(tok);
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			nthreads = 0;
			for (p = argv[++i]; (tok = strtok_r(p, ",", &save)) && nthreads < 8; p = NULL)
				threads[nthreads++] = atoi(tok);
		} else {
			fprintf(stderr, "usage: histcheck_bench [--sizes N,N] [--threads T,T]\n");
			return 64;
		}
	}
	printf("# dt_check_history on generated linearizable histories "
	       "(12 files, 3 dirs; ops 1-20 us, gaps 1-5 us)\n");
	printf("# %7s %7s %-7s %9s %6s %9s %11s %8s %10s %7s  %s\n", "events",
	       "threads", "renames", "ops", "comps", "largest", "steps",
	       "time_s", "events/s", "rss_MB", "verdict");
	for (long s = 0; s < nsizes; s++)
		for (int t = 0; t < nthreads; t++)
			for (int ren = 0; ren < 2; ren++)
				bench_one(sizes[s], threads[t], ren);
	return 0;
}

#endif
