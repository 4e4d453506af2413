// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A name that another client renames a file over must stay visible, and
 * a LOOKUP of it must never answer that the *directory* is stale.
 * POSIX rename(2): "a link named new shall remain visible to other
 * threads throughout the renaming operation and refer either to the file
 * referred to by new or old before the operation began."
 *
 *   rename-over-stale URL SECONDS [READERS]
 *
 * URL: nfs://server/export?version=3|4 (libnfs; 4 is NFSv4.0).  It makes
 * a directory "rover.<pid>" there holding "target"; one writer (a
 * connection of its own) creates tmp.N and renames it over target, again
 * and again, while READERS readers (default 2, each on a connection of
 * its own) stat target.  A stat that fails with ESTALE is retried once at
 * once, as the Linux VFS retries a stale path walk.  It prints the stats
 * by result and removes the directory.
 * Exit status: 0 every stat found target; 1 some did not (ESTALE or
 * ENOENT: the counts say which); 2 usage; 3 setup failed.
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

#define MAX_READERS 16

static const char *url;
static char dir[64];
static double end;
static volatile int writer_done;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long stats, found, stale, stale_again, noent, other, renames;
static int other_err;

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
	if (!u) {
		fprintf(stderr, "rename-over-stale: bad URL %s: %s\n", url,
			nfs_get_error(nfs));
		return NULL;
	}
	/* NFSv4: a client id of our own per connection */
	snprintf(name, sizeof(name), "rover-%d-%p", getpid(), (void *)nfs);
	nfs4_set_client_name(nfs, name);
	if (nfs_mount(nfs, u->server, u->path) < 0) {
		fprintf(stderr, "rename-over-stale: mount %s: %s\n", url,
			nfs_get_error(nfs));
		nfs_destroy_url(u);
		return NULL;
	}
	nfs_destroy_url(u);
	/* every stat goes to the server */
	nfs_set_dircache(nfs, 0);
	return nfs;
}

static int make_file(struct nfs_context *nfs, const char *path)
{
	struct nfsfh *fh;

	if (nfs_create(nfs, path, O_RDWR | O_EXCL, 0644, &fh) < 0)
		return -1;
	nfs_close(nfs, fh);
	return 0;
}

static void *writer(void *arg)
{
	struct nfs_context *nfs = arg;
	char tmp[128], target[128];
	long n;

	snprintf(target, sizeof(target), "%s/target", dir);
	for (n = 0; now() < end; n++) {
		snprintf(tmp, sizeof(tmp), "%s/tmp.%ld", dir, n);
		if (make_file(nfs, tmp) || nfs_rename(nfs, tmp, target) < 0) {
			fprintf(stderr, "rename-over-stale: writer: %s\n",
				nfs_get_error(nfs));
			break;
		}
	}
	pthread_mutex_lock(&lock);
	renames = n;
	pthread_mutex_unlock(&lock);
	writer_done = 1;
	return NULL;
}

static void *reader(void *arg)
{
	struct nfs_context *nfs = arg;
	long n = 0, ok = 0, st = 0, st2 = 0, ne = 0, ot = 0;
	int oe = 0;
	char target[128];

	snprintf(target, sizeof(target), "%s/target", dir);
	while (!writer_done) {
		struct nfs_stat_64 sb;
		int rc = nfs_stat64(nfs, target, &sb);

		n++;
		if (rc == -ESTALE) {
			st++;
			rc = nfs_stat64(nfs, target, &sb);	/* the one retry */
			st2 += rc == -ESTALE;
			continue;
		}
		if (rc == 0)
			ok++;
		else if (rc == -ENOENT)
			ne++;
		else if (ot++ == 0)
			oe = rc;
	}
	pthread_mutex_lock(&lock);
	stats += n;
	found += ok;
	stale += st;
	stale_again += st2;
	noent += ne;
	if (ot && !other)
		other_err = oe;
	other += ot;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	struct nfs_context *setup, *conn[MAX_READERS + 1];
	pthread_t t[MAX_READERS + 1];
	int readers = 2;
	char path[128];
	double seconds;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3 || argc > 4 || (seconds = atof(argv[2])) <= 0 ||
	    seconds > 600 ||
	    (argc == 4 && ((readers = atoi(argv[3])) < 1 ||
			   readers > MAX_READERS))) {
		fprintf(stderr, "usage: rename-over-stale "
			"nfs://server/export?version=3|4 SECONDS [READERS 1..%d]\n",
			MAX_READERS);
		return 2;
	}
	url = argv[1];
	snprintf(dir, sizeof(dir), "rover.%d", getpid());
	setup = connect_url();
	if (!setup)
		return 3;
	snprintf(path, sizeof(path), "%s/target", dir);
	if (nfs_mkdir(setup, dir) < 0 || make_file(setup, path)) {
		fprintf(stderr, "rename-over-stale: setup in %s: %s\n", dir,
			nfs_get_error(setup));
		return 3;
	}
	/* all connections first, so that the clock starts with the work */
	for (int i = 0; i <= readers; i++)
		if (!(conn[i] = connect_url()))
			return 3;
	end = now() + seconds;
	pthread_create(&t[0], NULL, writer, conn[0]);
	for (int i = 1; i <= readers; i++)
		pthread_create(&t[i], NULL, reader, conn[i]);
	for (int i = 0; i <= readers; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i <= readers; i++)
		nfs_destroy_context(conn[i]);

	nfs_unlink(setup, path);
	nfs_rmdir(setup, dir);
	nfs_destroy_context(setup);
	printf("%s: %ld renames over %s/target; %d readers, %ld stats: "
	       "%ld found, %ld ESTALE (%ld of them ESTALE again on the one "
	       "retry), %ld ENOENT, %ld other%s%s\n", url, renames, dir,
	       readers, stats, found, stale, stale_again, noent, other,
	       other ? ": first " : "", other ? strerror(-other_err) : "");
	printf("expected: every stat finds target (0 ESTALE, 0 ENOENT)\n"
	       "observed: %ld ESTALE, %ld ENOENT -> %s\n", stale, noent,
	       stale || noent ? "BUG SHOWS" : "not seen");
	return stale || noent ? 1 : 0;
}
