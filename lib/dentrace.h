/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libdentrace: the harness every dentrace test links.
 *
 * A test is one C file that fills a struct dt_test and ends with
 * DT_TEST_MAIN(name).  The library supplies main(): option parsing, --list,
 * --help, case selection, target parsing, one forked process group per case
 * under a hard timeout, a scratch directory per case that is always removed,
 * and TAP 13 output that prove reads.
 *
 * Conventions: library calls return 0 (or a count) on success and -errno on
 * failure; public symbols are prefixed dt_.
 */
#ifndef DENTRACE_H
#define DENTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- outcomes and exit statuses --------------------------------------- */

enum dt_outcome {
	DT_PASS = 0,	/* the system under test behaved */
	DT_FAIL = 1,	/* the system under test is wrong */
	DT_BROKEN = 2,	/* setup failed: no verdict on the system */
	DT_SKIP = 3,	/* feature or tier absent */
};

/*
 * Exit status of a test binary: the worst outcome of its cases
 * (FAIL > BROKEN > SKIP-only > PASS), or one of the usage statuses below.
 */
#define DT_EXIT_PASS	0
#define DT_EXIT_FAIL	1
#define DT_EXIT_BROKEN	2
#define DT_EXIT_SKIP	3	/* every selected case skipped */
#define DT_EXIT_USAGE	64	/* bad option, unknown case or tag */
#define DT_EXIT_TARGET	65	/* target URL or directory rejected */

/* ---- targets and backends --------------------------------------------- */

#define DT_NAME_MAX 255
/* loop bound per worker when --iterations is not given: keeps histories
 * (about 250 bytes an op) small on fast local targets */
#define DT_DEFAULT_ITERATIONS 20000
#define DT_PATH_MAX 1024

/* What a backend reports about a name. */
struct dt_stat {
	uint64_t fileid;	/* inode number / NFS fileid */
	uint32_t mode;		/* S_IFMT | permission bits */
	uint32_t nlink;
	uint64_t size;
};

struct dt_dirent {
	char *name;		/* malloc'ed */
	uint64_t fileid;	/* 0 when the backend cannot say */
};

struct dt_dirlist {
	struct dt_dirent *ent;
	size_t n, cap;
};

void dt_dirlist_free(struct dt_dirlist *l);
int dt_dirlist_add(struct dt_dirlist *l, const char *name, uint64_t fileid);

struct dt_conn;		/* one backend connection; one per thread */
struct dt_file;		/* an open file on a connection */
struct dt_target;

/*
 * The backend ops table.  Paths are relative to the target root and never
 * start with '/'.  Every op returns 0 (pread/pwrite: a byte count) or -errno.
 */
struct dt_backend_ops {
	const char *name;			/* "posix", "libnfs" */
	int (*connect)(const struct dt_target *t, struct dt_conn **out);
	void (*disconnect)(struct dt_conn *c);
	int (*lookup)(struct dt_conn *c, const char *path, struct dt_stat *st);
	/* create a regular file; excl => O_EXCL; the file is closed again */
	int (*create)(struct dt_conn *c, const char *path, bool excl,
		      struct dt_stat *st);
	int (*mkdir)(struct dt_conn *c, const char *path);
	int (*rmdir)(struct dt_conn *c, const char *path);
	int (*unlink)(struct dt_conn *c, const char *path);
	int (*rename)(struct dt_conn *c, const char *from, const char *to);
	int (*link)(struct dt_conn *c, const char *from, const char *to);
	/* full listing without "." and ".."; appends to *out */
	int (*readdir)(struct dt_conn *c, const char *path,
		       struct dt_dirlist *out);
	int (*open)(struct dt_conn *c, const char *path, int flags,
		    struct dt_file **f);
	ssize_t (*pread)(struct dt_conn *c, struct dt_file *f, void *buf,
			 size_t len, uint64_t off);
	ssize_t (*pwrite)(struct dt_conn *c, struct dt_file *f,
			  const void *buf, size_t len, uint64_t off);
	int (*close)(struct dt_conn *c, struct dt_file *f);
};

extern const struct dt_backend_ops dt_posix_ops;
extern const struct dt_backend_ops dt_libnfs_ops;

/*
 * --target: a directory ("/mnt/x" or "posix:/mnt/x") or an NFS URL
 * "nfs://host[:port]/export?version=3|4[&nfsport=N][&mountport=N]".
 */
struct dt_target {
	const struct dt_backend_ops *ops;
	char spec[DT_PATH_MAX];		/* as given */
	char root[DT_PATH_MAX];		/* posix: directory; nfs: export */
	char server[256];		/* nfs only */
	int nfs_version;		/* 3 or 4; 0 for posix */
	int nfsport, mountport;		/* 0 = ask the portmapper */
	char label[64];			/* short name for reports: posix, nfs3 */
};

/* Parse spec into *t; on error fill err and return -EINVAL. */
int dt_target_parse(const char *spec, struct dt_target *t, char *err,
		    size_t errlen);

/* ---- time ------------------------------------------------------------- */

uint64_t dt_now_ns(void);		/* CLOCK_MONOTONIC */
uint64_t dt_realtime_ns(void);		/* CLOCK_REALTIME (cross-host) */

/* ---- histories: what each operation saw ------------------------------- */

enum dt_opcode {
	DT_OP_LOOKUP, DT_OP_CREATE, DT_OP_MKDIR, DT_OP_RMDIR, DT_OP_UNLINK,
	DT_OP_RENAME, DT_OP_LINK, DT_OP_READDIR, DT_OP_OPEN, DT_OP_READ,
	DT_OP_CLOSE, DT_OP__COUNT
};

const char *dt_op_name(enum dt_opcode op);

#define DT_EV_NAME 96

/* dt_event.flags: what the op was asked to do beyond its opcode */
#define DT_EVF_EXCL	0x01	/* CREATE with O_EXCL (exclusive) */
#define DT_EVF__ALL	0x0f	/* the bits a history may carry (histio) */

struct dt_event {
	uint16_t host;		/* client host index (0 when alone) */
	uint16_t thread;	/* worker index; 0xffff = setup thread */
	uint8_t op;		/* enum dt_opcode */
	uint8_t flags;		/* DT_EVF_* */
	int32_t result;		/* 0 or -errno (READ: bytes) */
	uint64_t start_ns;	/* when the call was made */
	uint64_t end_ns;	/* when it returned */
	uint64_t fileid;	/* what it saw (lookup/create), 0 = none */
	char name[DT_EV_NAME];	/* path operated on */
	char name2[DT_EV_NAME];	/* rename/link target */
	struct dt_dirlist *list; /* READDIR: the listing (owned) */
};

struct dt_history {
	struct dt_event *ev;
	size_t n, cap;
};

/* Append a copy of *e; takes ownership of e->list.  Returns 0 or -ENOMEM. */
int dt_history_add(struct dt_history *h, const struct dt_event *e);
/* Append all of src to dst (moving readdir lists) and empty src. */
int dt_history_move(struct dt_history *dst, struct dt_history *src);
void dt_history_free(struct dt_history *h);
/* Sort by start time (stable), the order oracles expect. */
void dt_history_sort(struct dt_history *h);
/* Write the history as text lines (one event per line) for evidence. */
int dt_history_dump(const struct dt_history *h, const char *path);

/*
 * Binary form (lib/histio.c) to ship a history between hosts: encode
 * allocates *out (free() it); decode appends to h and returns -EBADMSG for
 * anything malformed, never reading outside buf.
 */
int dt_history_encode(const struct dt_history *h, void **out, size_t *outlen);
int dt_history_decode(const void *buf, size_t len, struct dt_history *h);

/* ---- oracles: judge a history ----------------------------------------- */

/*
 * Every oracle returns the number of violations found (0 = consistent) and
 * describes the first one in *v.  Oracles are pure: t/ feeds them
 * hand-made bad histories.
 */
struct dt_verdict {
	int violations;
	size_t event;			/* index of the first bad event */
	char what[256];			/* which invariant broke */
	char expected[256];
	char observed[256];
};

/* All LOOKUPs of name agree: same result and, if found, same fileid. */
int dt_oracle_same_answer(const struct dt_history *h, const char *name,
			  struct dt_verdict *v);

/*
 * Exactly one of the events of op on name (UNLINK, CREATE excl, MKDIR,
 * LINK to name2 == name, RENAME from name) succeeds; every other returns
 * one of the errnos in allowed[] (0-terminated, positive values).
 */
int dt_oracle_one_winner(const struct dt_history *h, enum dt_opcode op,
			 const char *name, const int *allowed,
			 struct dt_verdict *v);

/*
 * Rename chain: one file (fileid) is created as chain[0] and renamed along
 * prefix.0 -> prefix.1 -> ... by one writer.  Each LOOKUP of a chain name is
 * judged against the writer's intervals: ENOENT while the file was surely
 * there is "lost", finding it where it surely was not (or a different
 * fileid) is "two names", any other errno (ESTALE, EIO) is wrong.
 * A failed rename by the writer is a violation too.
 */
int dt_oracle_rename_chain(const struct dt_history *h, const char *prefix,
			   uint64_t fileid, struct dt_verdict *v);

/*
 * Name lifetime: for every LOOKUP/OPEN of a name created and unlinked in the
 * history, the result must be consistent with the create/unlink intervals
 * (found with the created fileid, or ENOENT, never another errno; found
 * after the unlink surely completed, or ENOENT while surely present, is a
 * violation).
 */
int dt_oracle_name_lifetime(const struct dt_history *h, struct dt_verdict *v);

/*
 * Readdir under churn: for every READDIR of dir: no duplicate names; every
 * name surely present throughout the listing is listed; no name is listed
 * that could not have existed during the listing; listed fileids agree with
 * the fileid the name was created with (when both are known).
 */
int dt_oracle_readdir(const struct dt_history *h, const char *dir,
		      struct dt_verdict *v);

/* ---- test descriptors -------------------------------------------------- */

struct dt_run;

struct dt_case {
	const char *name;
	void (*run)(struct dt_run *r);
};

/* what a test needs from the backend */
#define DT_NEED_LINK	(1u << 0)
#define DT_NEED_OPEN	(1u << 1)	/* open/read/close */
#define DT_NEED_POSIX	(1u << 2)	/* only on a local/kernel path */

struct dt_test {
	const char *name;
	const char *desc;
	const char *tags;		/* space separated: quick race ... */
	const char *guards;		/* upstream fix this test guards, or NULL */
	unsigned needs;			/* DT_NEED_* */
	int threads;			/* default worker count */
	double duration;		/* default seconds of load per case */
	int timeout;			/* hard seconds per case (default 60) */
	const struct dt_case *cases;	/* terminated by { NULL } */
	/* optional: run in the case child before/after run() */
	void (*setup)(struct dt_run *r);
	void (*cleanup)(struct dt_run *r);
};

int dt_main(const struct dt_test *t, int argc, char **argv);

#define DT_TEST_MAIN(test_var)					\
	int main(int argc, char **argv)				\
	{							\
		return dt_main(&(test_var), argc, argv);	\
	}

/* ---- the run context of one case -------------------------------------- */

struct dt_run {
	const struct dt_test *test;
	const struct dt_case *tcase;
	const struct dt_target *target;
	struct dt_conn *conn;		/* the case's own connection */
	char scratch[DT_PATH_MAX];	/* relative to the target root */
	int threads;			/* --threads or test default */
	double duration;		/* --duration or test default */
	long iterations;		/* --iterations: bound on loops */
	uint64_t seed;
	int host;			/* this host's index in a multi-host run */
	int nhosts;			/* hosts in the run (1 when alone) */
	int failures;			/* dt_fail calls so far */
	struct dt_history hist;		/* merged history of the last workers */
	void *priv;			/* for the test */
	/* test-only debug knob (--hang-op) used to prove the watchdog */
	const char *hang_op;
};

/*
 * Multi-host runs (--coord): every host runs the same case in the same
 * scratch directory.  The leader (host 0) creates and removes the scratch
 * directory and alone does the case's setup; the other hosts skip setup
 * (guard it with dt_leader()).  dt_run_workers() starts the workers of all
 * hosts together and leaves the merged history of all hosts in r->hist
 * (events carry their host), so every host's oracle judges the whole run.
 * Roles go by w->gid (e.g. gid 0 is the one writer of the run).  State
 * shared through memory (w->arg) is per host: never base a verdict on it.
 */
bool dt_leader(const struct dt_run *r);

/* Path inside the case's scratch dir: returns a static-per-thread buffer. */
const char *dt_path(struct dt_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same into a caller buffer. */
void dt_pathbuf(struct dt_run *r, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- reporting from a case -------------------------------------------- */

void dt_fail_at(struct dt_run *r, const char *file, int line, const char *op,
		const char *expected, const char *observed, const char *fmt,
		...) __attribute__((format(printf, 7, 8)));
#define dt_fail(r, op, exp, obs, ...) \
	dt_fail_at(r, __FILE__, __LINE__, op, exp, obs, __VA_ARGS__)

/* Report an oracle's verdict as a failure (no-op when v->violations == 0). */
void dt_fail_verdict_at(struct dt_run *r, const char *file, int line,
			const char *oracle, const struct dt_verdict *v);
#define dt_fail_verdict(r, oracle, v) \
	dt_fail_verdict_at(r, __FILE__, __LINE__, oracle, v)

/* End the case as BROKEN (setup failed) or SKIP.  Do not return. */
__attribute__((noreturn, format(printf, 4, 5)))
void dt_broken_at(struct dt_run *r, const char *file, int line,
		  const char *fmt, ...);
#define dt_broken(r, ...) dt_broken_at(r, __FILE__, __LINE__, __VA_ARGS__)
__attribute__((noreturn, format(printf, 2, 3)))
void dt_skip(struct dt_run *r, const char *fmt, ...);

/* A checked setup call: rc < 0 ends the case as BROKEN naming what. */
#define dt_must(r, rc, ...) do {					\
	long dt__rc = (rc);						\
	if (dt__rc < 0)							\
		dt_broken_at(r, __FILE__, __LINE__, "%s: %s",		\
			     dt_fmt(__VA_ARGS__), dt_strerr((int)dt__rc)); \
} while (0)

/* A diagnostic key: value line in the case's YAML block. */
void dt_diag(struct dt_run *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* helpers for messages */
const char *dt_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *dt_strerr(int negerr);	/* "ENOENT" for -ENOENT, "0" for 0 */

/* ---- workers ----------------------------------------------------------- */

struct dt_worker {
	struct dt_run *run;
	int id;				/* 0 .. n-1 on this host */
	int nworkers;			/* workers on this host */
	int gid;			/* run-wide: host * nworkers + id */
	int ngworkers;			/* run-wide: nhosts * nworkers */
	struct dt_conn *conn;		/* the worker's own connection */
	struct dt_history hist;		/* what this worker's ops saw */
	uint64_t rng;			/* per-worker PRNG state */
	void *arg;
	/* watchdog slot: the op in flight */
	volatile int busy;
	volatile uint64_t op_start_ns;
	volatile uint8_t op;
	char op_path[DT_EV_NAME];
	pid_t tid;
	uint64_t deadline_ns;
	unsigned long nsync;		/* dt_worker_round calls so far */
};

typedef void (*dt_worker_fn)(struct dt_worker *w);

/*
 * Start n workers, each with its own connection, release them together
 * from a barrier, wait for all, and merge their histories into r->hist
 * (sorted by start time).  A worker stuck in one op longer than the
 * watchdog limit fails the case with the op, thread, time stuck and (for
 * POSIX targets) kernel stacks.
 */
void dt_run_workers(struct dt_run *r, int n, dt_worker_fn fn, void *arg);

/* Loop bound: false once the run's duration passed or i >= iterations. */
bool dt_worker_continue(struct dt_worker *w, long i);
/*
 * Lock-step rounds: every worker calls dt_worker_round(w, k) for k = 0, 1,
 * ...; it waits until all workers arrived and returns the same answer to
 * all of them: true to play round k, false when the run is over (worker 0
 * decides from the duration and iteration bounds).  Workers released from
 * one round start it together.  Every worker must call it the same way.
 */
bool dt_worker_round(struct dt_worker *w, long round);
/*
 * A barrier inside a round: every worker of the run (all hosts) waits for
 * the others, and nobody ends the run here.  Use it between a round's
 * setup and its race.
 */
void dt_worker_sync(struct dt_worker *w);
/* Ask every worker of the current run to stop (e.g. the writer is done). */
void dt_workers_stop(struct dt_run *r);
uint64_t dt_rand(uint64_t *state);

/*
 * Recorded ops: call the backend on the worker's connection, record the
 * event in w->hist, keep the watchdog informed.  Return as the backend.
 */
int dt_lookup(struct dt_worker *w, const char *path, struct dt_stat *st);
int dt_create(struct dt_worker *w, const char *path, bool excl,
	      struct dt_stat *st);
int dt_mkdir(struct dt_worker *w, const char *path);
int dt_rmdir(struct dt_worker *w, const char *path);
int dt_unlink(struct dt_worker *w, const char *path);
int dt_rename(struct dt_worker *w, const char *from, const char *to);
int dt_link(struct dt_worker *w, const char *from, const char *to);
int dt_readdir(struct dt_worker *w, const char *path);	/* records list */
int dt_open(struct dt_worker *w, const char *path, int flags,
	    struct dt_file **f);
ssize_t dt_pread(struct dt_worker *w, struct dt_file *f, void *buf,
		 size_t len, uint64_t off);
int dt_close(struct dt_worker *w, struct dt_file *f);

/*
 * The setup worker: recorded ops from the case's main thread (thread id
 * 0xffff) go into r->hist via this pseudo-worker.
 */
struct dt_worker *dt_setup_worker(struct dt_run *r);

#endif /* DENTRACE_H */
