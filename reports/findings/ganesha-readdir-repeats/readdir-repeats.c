// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A directory listing must not list a name twice, nor miss a name that
 * exists throughout, while other names come and go (POSIX readdir(3):
 * entries added or removed meanwhile may or may not be returned; the
 * others exactly once).
 *
 *   readdir-repeats URL SECONDS [THREADS]
 *
 * URL: nfs://server/export?version=3|4 (libnfs).  It makes a directory
 * "rdr.<pid>" there with 300 names that never change ("stable.N"), then
 * THREADS threads (default 2) create and remove other names ("churn.T.N",
 * at random) while THREADS others list the directory over and over, each
 * on a connection of its own (libnfs, its directory cache off: every
 * listing is READDIR(PLUS) calls from cookie 0 to EOF).  It prints the
 * listings, those that listed a name twice, those that missed a stable
 * name, and removes the directory.  Exit 0: none of either,
 * 1: some, 2: setup failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

#define STABLE 300
#define CHURN 64

static const char *url;
static char dir[64];
static volatile int stop;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct nfs_context *connect_url(void)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *u;
	char name[64];

	if (!nfs)
		return NULL;
	u = nfs_parse_url_dir(nfs, url);
	if (!u)
		return NULL;
	/* NFSv4: a client id of our own per context */
	snprintf(name, sizeof(name), "rdr-%d-%p", getpid(), (void *)nfs);
	nfs4_set_client_name(nfs, name);
	if (nfs_mount(nfs, u->server, u->path) < 0) {
		fprintf(stderr, "mount %s: %s\n", url, nfs_get_error(nfs));
		return NULL;
	}
	nfs_set_dircache(nfs, 0);
	nfs_destroy_url(u);
	return nfs;
}

static int nthreads = 2;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long listings, dup_listings, miss_listings;
static char first_dup[128];
static double end;

/* each churner owns its names: a create fails only if the name exists */
static void *churn(void *arg)
{
	long id = (long)arg;
	struct nfs_context *nfs = connect_url();
	unsigned int seed = (unsigned int)(getpid() + id);
	char p[128];

	if (!nfs)
		return NULL;
	while (!stop) {
		struct nfsfh *fh;

		snprintf(p, sizeof(p), "%s/churn.%ld.%d", dir, id,
			 rand_r(&seed) % (CHURN / nthreads));
		if (nfs_create(nfs, p, O_RDWR | O_EXCL, 0644, &fh) == 0)
			nfs_close(nfs, fh);
		else
			nfs_unlink(nfs, p);
	}
	nfs_destroy_context(nfs);
	return NULL;
}

static void *lister(void *arg)
{
	struct nfs_context *nfs = connect_url();

	(void)arg;
	if (!nfs)
		return NULL;
	while (now() < end) {
		struct nfsdir *d;
		struct nfsdirent *e;
		unsigned char seen[STABLE] = { 0 };
		int dup = 0, miss = 0;
		char fd[128] = "";

		if (nfs_opendir(nfs, dir, &d) < 0)
			continue;	/* counted as no listing */
		while ((e = nfs_readdir(nfs, d))) {
			int n;

			if (sscanf(e->name, "stable.%d", &n) == 1 && n >= 0 && n < STABLE &&
			    seen[n]++ && !dup++)
				snprintf(fd, sizeof(fd), "%s", e->name);
		}
		nfs_closedir(nfs, d);
		for (int i = 0; i < STABLE; i++)
			miss += !seen[i];
		pthread_mutex_lock(&lock);
		listings++;
		dup_listings += dup > 0;
		miss_listings += miss > 0;
		if (dup && !first_dup[0])
			snprintf(first_dup, sizeof(first_dup), "%s", fd);
		pthread_mutex_unlock(&lock);
	}
	nfs_destroy_context(nfs);
	return NULL;
}

int main(int argc, char **argv)
{
	struct nfs_context *setup;
	pthread_t t[64];
	char p[128];

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: %s nfs://server/export?version=3|4 SECONDS [THREADS]\n", argv[0]);
		return 64;
	}
	url = argv[1];
	if (argc == 4)
		nthreads = atoi(argv[3]);
	if (nthreads < 1 || nthreads > 32)
		return 64;
	snprintf(dir, sizeof(dir), "rdr.%d", getpid());
	setup = connect_url();
	if (!setup)
		return 2;
	if (nfs_mkdir(setup, dir) < 0) {
		fprintf(stderr, "mkdir %s: %s\n", dir, nfs_get_error(setup));
		return 2;
	}
	for (int i = 0; i < STABLE; i++) {
		struct nfsfh *fh;

		snprintf(p, sizeof(p), "%s/stable.%d", dir, i);
		if (nfs_create(setup, p, O_RDWR | O_EXCL, 0644, &fh) < 0)
			return 2;
		nfs_close(setup, fh);
	}
	end = now() + atof(argv[2]);
	for (long i = 0; i < nthreads; i++) {
		pthread_create(&t[2 * i], NULL, churn, (void *)i);
		pthread_create(&t[2 * i + 1], NULL, lister, NULL);
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[2 * i + 1], NULL);
	stop = 1;
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[2 * i], NULL);
	/* the churners' names, then the stable ones, then the directory */
	for (int c = 0; c < nthreads; c++)
		for (int i = 0; i < CHURN; i++) {
			snprintf(p, sizeof(p), "%s/churn.%d.%d", dir, c, i);
			nfs_unlink(setup, p);
		}
	for (int i = 0; i < STABLE; i++) {
		snprintf(p, sizeof(p), "%s/stable.%d", dir, i);
		nfs_unlink(setup, p);
	}
	nfs_rmdir(setup, dir);
	printf("%ld listings of %s (%d names that never change; %d threads "
	       "churn, %d list): %ld listed a name twice%s%s%s, %ld missed a "
	       "never-changed name\n", listings, dir, STABLE, nthreads,
	       nthreads, dup_listings, first_dup[0] ? " (first: " : "",
	       first_dup, first_dup[0] ? ")" : "", miss_listings);
	nfs_destroy_context(setup);
	return dup_listings || miss_listings;
}
