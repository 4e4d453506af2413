/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Aliases: several names of one file (hard links, in two directories)
 * looked up at once by several threads of one client while that client
 * has never seen the file, then changed by the client through one name.
 *
 * Every name of a file is the same file (POSIX: hard links share one
 * inode), so on one client a stat through any name shows what a stat
 * through any other shows: one st_ino and st_dev, and after the client's
 * own change through one name (here: a write that sets the size, then a
 * link that adds a name) the new size and link count at once.  No
 * attribute-cache setting excuses a client's own change: a correct NFS
 * client keeps one in-core inode per file handle, the replies to its
 * WRITE and LINK update that inode (or mark it for revalidation), and a
 * stat through any name reads that inode.  A client that can make two
 * in-core inodes for one handle (the iget_locked class: two tasks look the
 * handle up at once, both miss the inode cache, each inserts its own)
 * shows the change through the names bound to the changed inode only,
 * and the old size and link count through the others, within the
 * attribute-cache time of that second copy (acregmin, 3 s by default).
 * Two tasks meet in that window only for two different names of one
 * uncached file (lookups of one name wait for each other in the dcache),
 * which is the load here: fresh files every round, each made by another
 * host, so the client must fetch every name by its handle.
 *
 * Round k: for every host h, host h+1 makes h's file (d0/f.k.h.0, one
 * create, then links d0/f.k.h.1, d1/f.k.h.2, d1/f.k.h.3); then h's
 * threads look the four names up at once (thread t the name t mod 4);
 * h's thread 0 opens name 0, writes 1000 + k bytes, closes, and links a
 * fifth name d2/f.k.h.x (a directory no stat here goes through, so no
 * directory change makes a correct client look names up again); then
 * every thread of h stats two names of the file.  Alone (one host), the
 * host makes its own files: the names are cached already, the invariant
 * the same.
 *
 * Oracle: dt_oracle_alias per host and file (check/oracle_alias.h) over
 * what this host's stats saw: the invariant is one client's, so each
 * host judges its own stats (the settle check and the history checker
 * judge the names across hosts).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dentrace.h"

/* names of one file made before the storm; the change adds one more */
#define NAMES 4
/* lock-stepped rounds, each judged on its own: a hundred suffice */
#define MAX_ROUNDS 100
/* the write's size in round k; the file is made empty */
#define WRITE_BASE 1000

/* what this host's threads saw: the stats and its own changes */
struct alias_log {
	pthread_mutex_t lock;
	struct alias_entry {
		long round;
		struct dt_alias_seen s;
	} *e;
	size_t n, cap;
};

static void log_add(struct dt_worker *w, long k, const struct dt_alias_seen *s)
{
	struct alias_log *log = w->arg;

	pthread_mutex_lock(&log->lock);
	if (log->n == log->cap) {
		size_t cap = log->cap ? 2 * log->cap : 256;
		struct alias_entry *e = realloc(log->e, cap * sizeof(*e));

		if (!e) {
			pthread_mutex_unlock(&log->lock);
			dt_broken(w->run, "alias log: out of memory");
		}
		log->e = e;
		log->cap = cap;
	}
	log->e[log->n].round = k;
	log->e[log->n++].s = *s;
	pthread_mutex_unlock(&log->lock);
}

/* name i of owner's file in round k; i == NAMES: the change's new link */
static void alias_name(struct dt_run *r, char *buf, size_t len, long k,
		       int owner, int i)
{
	if (i == NAMES)
		dt_pathbuf(r, buf, len, "d2/f.%ld.%d.x", k, owner);
	else
		dt_pathbuf(r, buf, len, "d%d/f.%ld.%d.%d", i < NAMES / 2 ? 0 : 1,
			   k, owner, i);
}

/* a recorded lookup, and what it saw with the attributes, in the log */
static void stat_name(struct dt_worker *w, long k, const char *name)
{
	struct dt_alias_seen s = {
		.host = (uint16_t)w->run->host, .thread = (uint16_t)w->id,
	};
	struct dt_stat st = { 0 };

	snprintf(s.name, sizeof(s.name), "%.*s", (int)sizeof(s.name) - 1,
		 name);
	s.start_ns = dt_realtime_ns();
	s.result = dt_lookup(w, name, &st);
	s.end_ns = dt_realtime_ns();
	s.fileid = st.fileid;
	s.dev = st.dev;
	s.size = st.size;
	s.nlink = st.nlink;
	log_add(w, k, &s);
}

/* another host's file for this round, made before anyone looks */
static void make_file(struct dt_worker *w, long k, int owner)
{
	struct dt_run *r = w->run;
	char first[DT_PATH_MAX], name[DT_PATH_MAX];

	alias_name(r, first, sizeof(first), k, owner, 0);
	dt_must(r, dt_create(w, first, true, NULL), "create %s", first);
	for (int i = 1; i < NAMES; i++) {
		alias_name(r, name, sizeof(name), k, owner, i);
		dt_must(r, dt_link(w, first, name), "link %s to %s", first,
			name);
	}
}

/*
 * This host's change through name 0: the new size (write), then a fifth
 * name (link).  Logged as one change once all of it returned; a step
 * that fails on a file nobody else touches is a failure with its step.
 */
static void change_file(struct dt_worker *w, long k, char *buf)
{
	struct dt_run *r = w->run;
	const size_t size = WRITE_BASE + (size_t)k;
	struct dt_alias_seen s = {
		.host = (uint16_t)r->host, .thread = (uint16_t)w->id,
		.change = true, .size = size, .nlink = NAMES + 1,
	};
	char name[DT_PATH_MAX], extra[DT_PATH_MAX];
	struct dt_file *f = NULL;
	ssize_t n;
	int rc;

	alias_name(r, name, sizeof(name), k, r->host, 0);
	alias_name(r, extra, sizeof(extra), k, r->host, NAMES);
	snprintf(s.name, sizeof(s.name), "%.*s", (int)sizeof(s.name) - 1,
		 name);
	memset(buf, 'a' + (int)(k % 26), size);
	s.start_ns = dt_realtime_ns();
	rc = dt_open(w, name, O_RDWR, &f);
	if (rc) {
		dt_fail(r, "open", "0 (the file exists: this host found it)",
			dt_strerr(rc), "open of %s to write it", name);
		goto failed;
	}
	/* the data is not what is judged: unrecorded, as in open_unlinked */
	n = r->target->ops->pwrite(w->conn, f, buf, size, 0);
	rc = dt_close(w, f);
	if (n != (ssize_t)size || rc) {
		dt_fail(r, "write", dt_fmt("%zu bytes written, close 0", size),
			dt_fmt("%s, close %s", n < 0 ? dt_strerr((int)n) :
			       dt_fmt("%zd", n), dt_strerr(rc)),
			"write of %s", name);
		goto failed;
	}
	rc = dt_link(w, name, extra);
	if (rc) {
		dt_fail(r, "link", "0 (the file exists, the new name not)",
			dt_strerr(rc), "link %s to %s", name, extra);
		goto failed;
	}
	s.end_ns = dt_realtime_ns();
	log_add(w, k, &s);
	return;
failed:
	/* the verdict is in: end the run at the next round rather than
	   fail the same way every round */
	dt_workers_stop(r);
}

static void aliases(struct dt_worker *w)
{
	struct dt_run *r = w->run;
	/* host h makes host h-1's file: every host is new to its own */
	int owner = (r->host + r->nhosts - 1) % r->nhosts;
	char name[DT_PATH_MAX], *buf = NULL;

	/* the write's data: thread 0 alone changes the file */
	if (w->id == 0 && !(buf = malloc(WRITE_BASE + MAX_ROUNDS)))
		dt_broken(r, "worker %d: out of memory", w->gid);
	for (long k = 0; k < MAX_ROUNDS && dt_worker_round(w, k); k++) {
		if (w->id == 0)
			make_file(w, k, owner);
		dt_worker_sync(w);
		/* the storm: different names of one uncached file at once */
		alias_name(r, name, sizeof(name), k, r->host, w->id % NAMES);
		stat_name(w, k, name);
		dt_worker_sync(w);
		if (w->id == 0)
			change_file(w, k, buf);
		dt_worker_sync(w);
		/* every name, the new one too, by two threads at least */
		for (int j = 0; j < 2; j++) {
			alias_name(r, name, sizeof(name), k, r->host,
				   (w->id + j) % (NAMES + 1));
			stat_name(w, k, name);
		}
	}
	free(buf);
}

static void run_links(struct dt_run *r)
{
	struct alias_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct dt_worker *s = dt_setup_worker(r);
	struct dt_alias_seen *one;
	struct dt_verdict v, first = { 0 };
	long rounds = 0, bad_rounds = 0, first_bad = -1, unchanged = 0;
	int violations = 0;

	if (dt_leader(r))
		for (int d = 0; d < 3; d++)
			dt_must(r, dt_mkdir(s, dt_path(r, "d%d", d)), "mkdir d%d",
				d);
	dt_run_workers(r, r->threads, aliases, &log);
	one = malloc((log.n ? log.n : 1) * sizeof(*one));
	if (!one)
		dt_broken(r, "judging: out of memory");
	for (size_t i = 0; i < log.n; i++)
		if (log.e[i].round + 1 > rounds)
			rounds = log.e[i].round + 1;
	/* one file a round on this host: judge each on its own */
	for (long k = 0; k < rounds; k++) {
		size_t n = 0;
		bool changed = false;

		for (size_t i = 0; i < log.n; i++)
			if (log.e[i].round == k) {
				one[n] = log.e[i].s;
				changed |= one[n++].change;
			}
		/* a change that failed has failed the case already */
		if (!changed && r->failures) {
			unchanged++;
			continue;
		}
		if (!dt_oracle_alias(one, n, &v))
			continue;
		violations += v.violations;
		if (!bad_rounds++) {
			first = v;
			first_bad = k;
		}
	}
	if (bad_rounds) {
		first.violations = violations;
		/* v.event indexes the round's list, not r->hist: the
		   observed entry names the stat instead */
		first.event = SIZE_MAX;
		dt_fail_verdict(r, "one file, one client", &first);
		dt_diag(r, "bad_rounds", "%ld of %ld, the first: round %ld",
			bad_rounds, rounds, first_bad);
	}
	dt_diag(r, "rounds", "%ld", rounds);
	if (unchanged)
		dt_diag(r, "rounds_unjudged", "%ld (the change failed)",
			unchanged);
	free(one);
	free(log.e);
	if (rounds == 0 && !r->failures)
		dt_broken(r, "no round ran: duration too short?");
}

static const struct dt_case cases[] = {
	{ "links", run_links },
	{ NULL }
};

static const struct dt_test test = {
	.name = "lookup_alias",
	.desc = "hard links of an uncached file looked up at once: one file "
		"on one client",
	.tags = "quick race lookup link",
	.guards = "iget5_locked() in nfs_fhget(): one inode per file handle",
	.needs = DT_NEED_LINK | DT_NEED_OPEN,
	.threads = 8,
	.duration = 2,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
