/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An open file outlives its name.
 *
 * POSIX: unlinking a file removes the name; the file and its data stay
 * until the last descriptor open on it is closed.  An NFS client has to
 * keep that promise across the wire: the Linux client renames the file to
 * .nfsXXXX instead of removing it ("silly rename") and removes that on the
 * last close; over NFSv4 the client holds an OPEN stateid and the server
 * keeps the file while the open state lives (RFC 7530, 9.1.4 and 16.4.4:
 * REMOVE of an open file).  NFSv3 has no open state (RFC 1813), and libnfs
 * does no silly rename: another client's REMOVE may free the file, so the
 * cases are skipped on the libnfs nfs3 target.  (A POSIX target on a
 * kernel NFSv3 mount is tested: its silly rename only covers the client's
 * own unlinks; the cross-client case is exactly what these cases probe.)
 *
 * Each round every worker (of every host) creates f.k.<gid>, writes its
 * own content into it, opens it and reads it back, then unlinks its
 * partner's file (a worker of another host when there are several, so the
 * unlink comes from another client) and reads its own file again before it
 * closes it.  Every read must return the whole content, byte for byte.
 * After the close the name stays gone.
 *
 * after_unlink: the reads start once every unlink has returned.
 * during_unlink: the reads straddle the partner's unlink of the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "dentrace.h"

/* rounds are lock-stepped and judged per file: a few hundred suffice */
#define MAX_ROUNDS 300

/*
 * The history stays below ~50 MB (about 250 bytes an event) however many
 * workers the run has: fewer rounds for more workers.  Every worker gets
 * the same answer, as dt_worker_round() requires.
 */
#define EVENT_BUDGET 200000

static long max_rounds(const struct dt_worker *w, int ops_per_worker)
{
	long n = EVENT_BUDGET / ((long)w->ngworkers * ops_per_worker);

	return n < 1 ? 1 : n > MAX_ROUNDS ? MAX_ROUNDS : n;
}
/* not block aligned, and more than one NFSv4 WRITE chunk of libnfs */
#define CONTENT_SIZE 5000
/* reads after the unlink, per round */
#define READS_AFTER 3
/* content mismatches reported in full, per host; the rest are counted */
#define MISMATCH_REPORTS 3

struct opener {
	bool sync_unlink;		/* after_unlink: reads wait for it */
	int mismatches;			/* this host's, atomic */
};

/* The unlink comes from another client when the run has several. */
static int partner(const struct dt_worker *w)
{
	if (w->ngworkers > w->nworkers)
		return (w->gid + w->nworkers) % w->ngworkers;
	return (w->gid + 1) % w->ngworkers;
}

/* Content of f.k.<gid>: its own bytes, so a read of another file shows. */
static void fill(uint8_t *buf, uint64_t seed, long k, int gid)
{
	uint64_t s = seed ^ ((uint64_t)k << 20) ^ (uint64_t)gid;

	for (size_t i = 0; i < CONTENT_SIZE; i += 8) {
		uint64_t x = dt_rand(&s);

		for (size_t b = 0; b < 8 && i + b < CONTENT_SIZE; b++)
			buf[i + b] = (uint8_t)(x >> (8 * b));
	}
}

/*
 * Read the whole file back and compare.  A read that returns an error or
 * the wrong length is the oracle's to judge (it sees every host's); the
 * bytes are checked here, where they are.
 */
static void read_back(struct dt_worker *w, struct dt_file *f,
		      const uint8_t *want, uint8_t *buf, const char *name,
		      bool unlinked)
{
	struct opener *op = w->arg;
	ssize_t n = dt_pread(w, f, buf, CONTENT_SIZE + 1, 0);
	size_t i;

	if (n != CONTENT_SIZE || !memcmp(buf, want, CONTENT_SIZE))
		return;
	for (i = 0; buf[i] == want[i]; i++)
		;
	if (__atomic_fetch_add(&op->mismatches, 1, __ATOMIC_RELAXED) >=
	    MISMATCH_REPORTS)
		return;
	dt_fail(w->run, "read",
		dt_fmt("byte %zu = 0x%02x (the content written)", i, want[i]),
		dt_fmt("0x%02x", buf[i]),
		"read of open %s%s: content differs from byte %zu on", name,
		unlinked ? " after its unlink" : "", i);
}

static void open_unlinked_worker(struct dt_worker *w)
{
	const struct dt_target *t = w->run->target;
	const long rounds = max_rounds(w, 10);
	struct opener *op = w->arg;
	char own[DT_PATH_MAX], other[DT_PATH_MAX];
	uint8_t *want = malloc(CONTENT_SIZE), *buf = malloc(CONTENT_SIZE + 1);
	struct dt_file *f;
	ssize_t n;
	int rc;

	if (!want || !buf)
		dt_broken(w->run, "worker %d: out of memory", w->gid);
	for (long k = 0; k < rounds && dt_worker_round(w, k); k++) {
		dt_pathbuf(w->run, own, sizeof(own), "f.%ld.%d", k, w->gid);
		dt_pathbuf(w->run, other, sizeof(other), "f.%ld.%d", k,
			   partner(w));
		fill(want, w->run->seed, k, w->gid);
		f = NULL;
		rc = dt_create(w, own, true, NULL);
		if (!rc)
			rc = dt_open(w, own, O_RDWR, &f);
		if (!rc) {
			/* writing is not what is tested: unrecorded */
			n = t->ops->pwrite(w->conn, f, want, CONTENT_SIZE, 0);
			if (n != CONTENT_SIZE)
				dt_fail(w->run, "pwrite",
					dt_fmt("%d", CONTENT_SIZE),
					n < 0 ? dt_strerr((int)n) :
						dt_fmt("%zd", n),
					"write %s before its unlink", own);
			read_back(w, f, want, buf, own, false);
		}
		/*
		 * Every round is played to its end, whatever the clock says,
		 * so that no file is left open and unjudged; the run's end
		 * is noticed at the next round.
		 */
		(void)dt_worker_round(w, k);
		if (op->sync_unlink) {
			dt_unlink(w, other);
			(void)dt_worker_round(w, k);
			for (int j = 0; f && j < READS_AFTER; j++)
				read_back(w, f, want, buf, own, true);
		} else {
			/* the partner unlinks ours while we read it */
			if (f)
				read_back(w, f, want, buf, own, false);
			dt_unlink(w, other);
			for (int j = 0; f && j < READS_AFTER; j++)
				read_back(w, f, want, buf, own, true);
		}
		if (f)
			dt_close(w, f);
		(void)dt_worker_round(w, k);
		/* closed and unlinked: gone (the name lifetime oracle) */
		dt_lookup(w, own, NULL);
	}
	free(want);
	free(buf);
}

static void run_open_unlinked(struct dt_run *r, bool sync_unlink)
{
	struct opener op = { .sync_unlink = sync_unlink };
	struct dt_verdict v;
	char prefix[DT_PATH_MAX];
	long rounds = 0;

	if (!strcmp(r->target->label, "nfs3"))
		dt_skip(r, "NFSv3 has no open state and libnfs does no silly rename: a server may free an open file unlinked by another client (RFC 1813)");
	dt_run_workers(r, r->threads < 2 ? 2 : r->threads,
		       open_unlinked_worker, &op);
	for (size_t i = 0; i < r->hist.n; i++)
		rounds += r->hist.ev[i].op == DT_OP_CREATE &&
			  r->hist.ev[i].host == 0 && r->hist.ev[i].thread == 0;
	dt_pathbuf(r, prefix, sizeof(prefix), "f.");
	if (dt_oracle_open_reads(&r->hist, prefix, CONTENT_SIZE, &v))
		dt_fail_verdict(r, "open file readable after unlink", &v);
	if (dt_oracle_name_lifetime(&r->hist, &v))
		dt_fail_verdict(r, "name lifetime", &v);
	if (op.mismatches)
		dt_diag(r, "content_mismatches", "%d", op.mismatches);
	dt_diag(r, "rounds", "%ld", rounds);
	if (!rounds)
		dt_broken(r, "no round ran");
}

static void run_after_unlink(struct dt_run *r)
{
	run_open_unlinked(r, true);
}

static void run_during_unlink(struct dt_run *r)
{
	run_open_unlinked(r, false);
}

static const struct dt_case cases[] = {
	{ "after_unlink", run_after_unlink },
	{ "during_unlink", run_during_unlink },
	{ NULL }
};

static const struct dt_test test = {
	.name = "open_unlinked",
	.desc = "a file unlinked by another client while open stays readable, whole, until closed",
	.tags = "quick race unlink",
	.needs = DT_NEED_OPEN,
	.threads = 4,
	.duration = 2,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
