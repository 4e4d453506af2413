// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lab/kernel/opsloop.c: the namespace loop of a kernel sanity run
 * (lab/kernel/sanity), run inside a User-Mode Linux client guest on an NFS
 * mount.  Not a test of the catalogue: it says whether a kernel boots into
 * a usable NFS lab, how fast, and what is already visibly wrong.
 *
 *   kmut-opsloop DIR SECONDS [THREADS [KEEP]]
 *
 * In DIR (created if missing; one DIR per client, nobody else writes it)
 * it first creates KEEP names keep.NNNN (default 150: more than the ~127
 * entries of one NFS readdir cache page).  Then THREADS threads (default
 * 2) loop until SECONDS have passed or MAX_ROUNDS rounds were done:
 *
 *   open(a.T.K, O_CREAT|O_EXCL), close, stat(a.T.K), rename(a.T.K, b.T.K),
 *   stat(a.T.K) must fail with ENOENT, unlink(b.T.K), and stat(ghost.K),
 *   a name that never exists, the same K in every thread: lookups of one
 *   uncached name at once (the directory keeps changing, so its negative
 *   dentry keeps being dropped);
 *   every 10th round: list DIR; every keep name must be listed exactly once.
 *
 * Each thread has names of its own, so every outcome is known in advance;
 * another one is an anomaly, counted by kind, the first few of each kind
 * printed on stderr with their errno.  Output: one line of key=value pairs
 * on stdout (ops, ops_per_s, anomalies, and a count per kind seen).
 *
 * Exit: 0 no anomaly, 1 anomalies seen, 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS	1000000L	/* per thread, besides the time bound */
#define MAX_THREADS	16
#define MAX_KEEP	4000
#define ROUND_NAMES	64		/* K runs over 0..ROUND_NAMES-1 */
#define REPORT_EACH	3		/* anomalies printed per kind */

enum anomaly {
	A_CREATE,	/* O_CREAT|O_EXCL of a fresh name failed */
	A_STAT_NEW,	/* stat of the name just created failed */
	A_RENAME,	/* rename failed */
	A_STAT_OLD,	/* the renamed-away name still resolves, or wrong errno */
	A_UNLINK,	/* unlink of the rename target failed */
	A_GHOST,	/* a name that never exists resolved, or wrong errno */
	A_DUP,		/* a listing shows a keep name twice */
	A_MISSING,	/* a listing lacks a keep name */
	A_LIST,		/* opendir/readdir failed */
	A_NR
};

static const char *const anomaly_name[A_NR] = {
	"create", "stat_new", "rename", "stat_old", "unlink", "ghost",
	"readdir_dup", "readdir_missing", "readdir_err",
};

static atomic_long anomalies[A_NR];
static atomic_long ops, listings;
static const char *dir;
static double secs;
static int keep = 150;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void anomaly(enum anomaly kind, const char *name, int err)
{
	if (atomic_fetch_add(&anomalies[kind], 1) < REPORT_EACH)
		fprintf(stderr, "opsloop: anomaly %s: %s: %s\n",
			anomaly_name[kind], name, err ? strerror(err) : "succeeded");
}

/* list DIR: every keep.NNNN (0 <= NNNN < keep) must appear exactly once */
static void check_listing(void)
{
	unsigned char seen[MAX_KEEP];
	struct dirent *de;
	char k[32];
	DIR *d;
	int i;

	d = opendir(dir);
	if (!d) {
		anomaly(A_LIST, dir, errno);
		return;
	}
	memset(seen, 0, sizeof(seen));
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		const char *s = de->d_name;
		char *end;
		long n;

		if (strncmp(s, "keep.", 5) == 0) {
			n = strtol(s + 5, &end, 10);
			if (*end == '\0' && n >= 0 && n < keep && seen[n]++)
				anomaly(A_DUP, s, 0);
		}
		errno = 0;
	}
	if (errno)
		anomaly(A_LIST, dir, errno);
	closedir(d);
	for (i = 0; i < keep; i++) {
		if (!seen[i]) {
			snprintf(k, sizeof(k), "keep.%04d", i);
			anomaly(A_MISSING, k, 0);
		}
	}
	atomic_fetch_add(&listings, 1);
}

static void *worker(void *arg)
{
	long t = (long)arg, r, n = 0;
	char a[PATH_MAX], b[PATH_MAX], g[PATH_MAX];
	double end = now() + secs;
	struct stat st;
	int fd, k;

	for (r = 0; r < MAX_ROUNDS && now() < end; r++) {
		k = (int)(r % ROUND_NAMES);
		snprintf(a, sizeof(a), "%s/a.%ld.%d", dir, t, k);
		snprintf(b, sizeof(b), "%s/b.%ld.%d", dir, t, k);
		snprintf(g, sizeof(g), "%s/ghost.%d", dir, k);

		fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			anomaly(A_CREATE, a, errno);
		else
			close(fd);
		if (stat(a, &st))
			anomaly(A_STAT_NEW, a, errno);
		if (rename(a, b))
			anomaly(A_RENAME, a, errno);
		if (stat(a, &st) == 0)
			anomaly(A_STAT_OLD, a, 0);
		else if (errno != ENOENT)
			anomaly(A_STAT_OLD, a, errno);
		if (unlink(b))
			anomaly(A_UNLINK, b, errno);
		if (stat(g, &st) == 0)
			anomaly(A_GHOST, g, 0);
		else if (errno != ENOENT)
			anomaly(A_GHOST, g, errno);
		n += 6;
		if (r % 10 == 0) {
			check_listing();
			n++;
		}
	}
	atomic_fetch_add(&ops, n);
	return NULL;
}

static int make_keep(void)
{
	char p[PATH_MAX];
	int i, fd;

	for (i = 0; i < keep; i++) {
		snprintf(p, sizeof(p), "%s/keep.%04d", dir, i);
		fd = open(p, O_CREAT | O_WRONLY, 0644);
		if (fd < 0) {
			fprintf(stderr, "opsloop: create %s: %s\n", p, strerror(errno));
			return -1;
		}
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	int threads = 2, i, started;
	double start, elapsed;
	long total = 0;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: %s DIR SECONDS [THREADS [KEEP]]\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	secs = atof(argv[2]);
	if (argc >= 4)
		threads = atoi(argv[3]);
	if (argc == 5)
		keep = atoi(argv[4]);
	if (secs <= 0 || secs > 3600 || threads < 1 || threads > MAX_THREADS ||
	    keep < 0 || keep > MAX_KEEP) {
		fprintf(stderr, "opsloop: SECONDS in (0, 3600], THREADS in [1, %d], KEEP in [0, %d]\n",
			MAX_THREADS, MAX_KEEP);
		return 2;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "opsloop: mkdir %s: %s\n", dir, strerror(errno));
		return 2;
	}
	if (make_keep())
		return 2;

	start = now();
	for (started = 0; started < threads; started++)
		if (pthread_create(&th[started], NULL, worker, (void *)(long)started))
			break;
	if (started == 0) {
		fprintf(stderr, "opsloop: cannot start a thread\n");
		return 2;
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	elapsed = now() - start;

	for (i = 0; i < A_NR; i++)
		total += atomic_load(&anomalies[i]);
	printf("ops=%ld secs=%.2f ops_per_s=%.0f threads=%d listings=%ld anomalies=%ld",
	       atomic_load(&ops), elapsed, elapsed > 0 ? atomic_load(&ops) / elapsed : 0.0,
	       started, atomic_load(&listings), total);
	for (i = 0; i < A_NR; i++)
		if (atomic_load(&anomalies[i]))
			printf(" %s=%ld", anomaly_name[i], atomic_load(&anomalies[i]));
	printf("\n");
	return total ? 1 : 0;
}
