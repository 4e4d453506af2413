// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One kind of operation, N times, over NFS (libnfs): the load whose effect
 * on the server's open file descriptors fd-leak.sh measures.
 *
 *   fdloop URL OP N
 *
 * URL: nfs://server/export?version=3|4 (libnfs; 4 is NFSv4.0).  Works in
 * a directory "fdl.<pid>" it makes, and removes at the end.  OP:
 *   stat     stat one file N times (the control: no file is opened)
 *   create   create (O_EXCL) f.I, close, remove it
 *   write    create f.I, write 512 bytes, close, remove it
 *   race     two connections: one creates f.I (O_EXCL), writes 512 bytes and
 *            closes it while the other removes f.I, both as fast as they
 *            can, I = 0..N-1 (the create/unlink races of create_race and
 *            unlink_race)
 *   unlinked open f.I (create), the other connection removes it, write
 *            512 bytes through the open file, close
 * Prints what it did and how many calls failed (a lost race is not an
 * error: the remover may come first).  Exit 0 done, 2 usage, 3 setup
 * failed (mount, mkdir).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

static const char *url;
static char dir[64];
static long n_ops;
static long failed_calls;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t round_start;
static char block[512];

static struct nfs_context *connect_url(void)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *u;
	char name[64];

	if (!nfs)
		return NULL;
	u = nfs_parse_url_dir(nfs, url);
	if (!u) {
		fprintf(stderr, "fdloop: bad URL %s: %s\n", url,
			nfs_get_error(nfs));
		return NULL;
	}
	snprintf(name, sizeof(name), "fdl-%d-%p", getpid(), (void *)nfs);
	nfs4_set_client_name(nfs, name);
	if (nfs_mount(nfs, u->server, u->path) < 0) {
		fprintf(stderr, "fdloop: mount %s: %s\n", url,
			nfs_get_error(nfs));
		nfs_destroy_url(u);
		return NULL;
	}
	nfs_destroy_url(u);
	return nfs;
}

static char first_failure[256];

/* a call that failed: counted, the first one kept with its error */
static void failed(struct nfs_context *nfs, const char *call)
{
	pthread_mutex_lock(&lock);
	if (!failed_calls++)
		snprintf(first_failure, sizeof(first_failure), "%s: %s", call,
			 nfs_get_error(nfs));
	pthread_mutex_unlock(&lock);
}

static void name_of(char *buf, size_t len, long i)
{
	snprintf(buf, len, "%s/f.%ld", dir, i);
}

/* create, [write], close; 0 or -1 */
static int create_file(struct nfs_context *nfs, const char *path, int write)
{
	struct nfsfh *fh;

	if (nfs_create(nfs, path, O_RDWR | O_EXCL, 0644, &fh) < 0)
		return -1;
	if (write && nfs_write(nfs, fh, sizeof(block), block) < 0)
		failed(nfs, "write");
	if (nfs_close(nfs, fh) < 0)
		failed(nfs, "close");
	return 0;
}

struct racer {
	struct nfs_context *nfs;
	int remover;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	char p[128];

	for (long i = 0; i < n_ops; i++) {
		name_of(p, sizeof(p), i);
		pthread_barrier_wait(&round_start);
		if (r->remover)
			nfs_unlink(r->nfs, p);	/* may come first: fine */
		else
			create_file(r->nfs, p, 1);
	}
	return NULL;
}

static void run_race(struct nfs_context *a, struct nfs_context *b)
{
	struct racer ra = { a, 0 }, rb = { b, 1 };
	pthread_t ta, tb;
	char p[128];

	pthread_barrier_init(&round_start, NULL, 2);
	pthread_create(&ta, NULL, race, &ra);
	pthread_create(&tb, NULL, race, &rb);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_barrier_destroy(&round_start);
	for (long i = 0; i < n_ops; i++) {	/* the creates that won */
		name_of(p, sizeof(p), i);
		nfs_unlink(a, p);
	}
}

static void run_unlinked(struct nfs_context *a, struct nfs_context *b)
{
	char p[128];

	for (long i = 0; i < n_ops; i++) {
		struct nfsfh *fh;

		name_of(p, sizeof(p), i);
		if (nfs_create(a, p, O_RDWR | O_EXCL, 0644, &fh) < 0) {
			failed(a, "create");
			continue;
		}
		if (nfs_unlink(b, p) < 0)
			failed(b, "unlink");
		nfs_write(a, fh, sizeof(block), block);	/* may fail: removed */
		nfs_close(a, fh);
	}
}

int main(int argc, char **argv)
{
	struct nfs_context *a, *b = NULL;
	const char *op;
	char p[128];
	char *end;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4) {
usage:
		fprintf(stderr, "usage: fdloop nfs://server/export?version=3|4 "
			"stat|create|write|race|unlinked N\n");
		return 2;
	}
	url = argv[1];
	op = argv[2];
	n_ops = strtol(argv[3], &end, 10);
	if (*end || n_ops < 1 || n_ops > 1000000 ||
	    (strcmp(op, "stat") && strcmp(op, "create") &&
	     strcmp(op, "write") && strcmp(op, "race") &&
	     strcmp(op, "unlinked")))
		goto usage;
	memset(block, 'x', sizeof(block));
	snprintf(dir, sizeof(dir), "fdl.%d", getpid());
	if (!(a = connect_url()))
		return 3;
	if (nfs_mkdir(a, dir) < 0) {
		fprintf(stderr, "fdloop: mkdir %s: %s\n", dir, nfs_get_error(a));
		return 3;
	}
	if (!strcmp(op, "race") || !strcmp(op, "unlinked"))
		if (!(b = connect_url()))
			return 3;

	if (!strcmp(op, "stat")) {
		struct nfs_stat_64 st;

		name_of(p, sizeof(p), 0);
		if (create_file(a, p, 0))
			return 3;
		for (long i = 0; i < n_ops; i++)
			if (nfs_stat64(a, p, &st) < 0)
				failed(a, "stat");
		nfs_unlink(a, p);
	} else if (!strcmp(op, "create") || !strcmp(op, "write")) {
		for (long i = 0; i < n_ops; i++) {
			name_of(p, sizeof(p), i);
			if (create_file(a, p, op[0] == 'w'))
				failed(a, "create");
			else if (nfs_unlink(a, p) < 0)
				failed(a, "unlink");
		}
	} else if (!strcmp(op, "race")) {
		run_race(a, b);
	} else {
		run_unlinked(a, b);
	}
	if (nfs_rmdir(a, dir) < 0)
		fprintf(stderr, "fdloop: rmdir %s: %s\n", dir, nfs_get_error(a));
	if (b)
		nfs_destroy_context(b);
	nfs_destroy_context(a);
	printf("fdloop: %s %s x %ld done, %ld calls failed%s%s\n", url, op,
	       n_ops, failed_calls, failed_calls ? ", first: " : "",
	       first_failure);
	return 0;
}
