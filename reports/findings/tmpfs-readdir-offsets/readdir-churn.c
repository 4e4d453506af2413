// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * readdir-churn: does a directory listing keep every name that never
 * changed while another client creates, renames and removes names in the
 * same directory?
 *
 *   readdir-churn writer DIR CTL SECONDS
 *       make DIR (it must not exist) with STABLE never-changed names, touch
 *       CTL/go, then churn in DIR for SECONDS; touch CTL/done
 *   readdir-churn reader DIR CTL SECONDS
 *       wait for CTL/go (60 s at most), then list DIR (opendir, readdir)
 *       again and again until CTL/done appears (or SECONDS + 30 s passed)
 *   readdir-churn reopen DIR CTL SECONDS
 *       the same, but every listing is read the way knfsd serves READDIR:
 *       open the directory, seek to the offset the last batch ended at,
 *       read one small batch (getdents64, 1 KiB), close.  Run on the
 *       server's own filesystem, it shows whether the filesystem's offsets
 *       survive a reopen while entries come and go, with no NFS at all.
 *
 * CTL is a folder both sides see at once (the lab's shared folder), not on
 * the NFS mount: a client may cache "go does not exist" for a minute.
 *
 * The writer's churn is the one of kn_xclient.readdir_churn: create
 * churn.N; a third of those stay, a third are renamed to moved.N and stay,
 * a third are renamed and removed.  So the directory grows from STABLE to
 * hundreds of entries, and a listing over NFS takes several READDIR calls,
 * each resuming from the cookie the last one ended at.
 *
 * A reader prints one line:
 *   listings L missed M repeated R dup_any D entries MIN..MAX
 *   stable_lost S readdir_rpcs N
 * M: listings that lacked at least one stable name; R: listings that held
 * a stable name twice; D: listings that held any name twice; S: stable
 * names lost, summed over the listings; N: READDIR + READDIRPLUS calls the
 * NFS mount DIR is on sent meanwhile (/proc/self/mountstats; -1 when DIR
 * is not on NFS).  Exit status 0 when no listing missed or repeated a
 * name, 1 when one did, 2 on usage or setup errors.
 *
 * Standalone on purpose (no dentrace library):
 *   cc -O2 -o readdir-churn readdir-churn.c
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define STABLE 24		/* never-changed names, as kn_xclient */
#define MAX_NAMES 65536
#define WAIT_GO_S 60

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "readdir-churn: %s %s: %s\n", what, path, strerror(errno));
	exit(2);
}

static void touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	if (fd < 0)
		die("create", path);
	close(fd);
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* READDIR + READDIRPLUS calls of the NFS mount DIR is on, or -1 */
static long readdir_rpcs(const char *dir)
{
	char line[4096], mp[4096], best[4096] = "";
	long total = -1, n;
	size_t bestlen = 0;
	int in_best = 0, in_ops = 0;
	FILE *f = fopen("/proc/self/mountstats", "r");

	if (!f)
		return -1;
	/* the longest "mounted on" prefix of DIR that is an NFS mount */
	while (fgets(line, sizeof(line), f)) {
		size_t l;

		if (!strstr(line, "fstype nfs") ||
		    sscanf(line, "device %*s mounted on %4095s", mp) != 1)
			continue;
		l = strlen(mp);
		if (strncmp(dir, mp, l) == 0 && (dir[l] == '/' || dir[l] == 0) && l >= bestlen) {
			strcpy(best, mp);
			bestlen = l;
		}
	}
	if (!bestlen) {
		fclose(f);
		return -1;
	}
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "device ", 7) == 0) {
			in_best = strstr(line, "fstype nfs") &&
				  sscanf(line, "device %*s mounted on %4095s", mp) == 1 &&
				  strcmp(mp, best) == 0;
			in_ops = 0;
			continue;
		}
		if (!in_best)
			continue;
		if (strstr(line, "per-op statistics")) {
			in_ops = 1;
			total = 0;
			continue;
		}
		if (in_ops && (sscanf(line, " READDIR: %ld", &n) == 1 ||
			       sscanf(line, " READDIRPLUS: %ld", &n) == 1))
			total += n;
	}
	fclose(f);
	return total;
}

static int writer(const char *d, const char *ctl, double secs)
{
	char a[4200], b[4200], path[4200];
	double end;
	long i;

	if (mkdir(d, 0755) < 0)
		die("mkdir", d);
	for (i = 0; i < STABLE; i++) {
		snprintf(path, sizeof(path), "%s/stable.%ld", d, i);
		touch(path);
	}
	snprintf(path, sizeof(path), "%s/go", ctl);
	touch(path);
	end = now() + secs;
	for (i = 0; now() < end; i++) {
		snprintf(a, sizeof(a), "%s/churn.%ld", d, i);
		snprintf(b, sizeof(b), "%s/moved.%ld", d, i);
		touch(a);
		if (i % 3 == 0)
			continue;	/* some names stay */
		if (rename(a, b) < 0)
			die("rename", a);
		if (i % 3 == 1 && unlink(b) < 0)
			die("unlink", b);
	}
	snprintf(path, sizeof(path), "%s/done", ctl);
	touch(path);
	printf("writer loops %ld secs %.1f\n", i, secs);
	return 0;
}

/* the record getdents64 returns */
struct linux_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* one batch the way knfsd reads a directory for a READDIR call: open,
 * seek to the cookie, read, close; the bytes read, or -1 */
static long reopen_batch(const char *d, off_t off, char *buf, size_t len)
{
	int fd = open(d, O_RDONLY | O_DIRECTORY);
	long n = -1;

	if (fd < 0)
		return -1;
	if (lseek(fd, off, SEEK_SET) != (off_t)-1)
		n = syscall(SYS_getdents64, fd, buf, len);
	close(fd);
	return n;
}

/* name into names[n], or give up: a listing cut short would count as a
 * miss */
static void keep(char **names, int n, const char *name)
{
	if (n == MAX_NAMES) {
		fprintf(stderr, "readdir-churn: more than %d names: churn for less time\n", MAX_NAMES);
		exit(2);
	}
	names[n] = strdup(name);
}

/* every name of d (but . and ..) into names[]; returns the count */
static int list_dir(const char *d, int reopen, char **names)
{
	static char buf[1024];
	struct dirent *e;
	off_t off = 0;
	int n = 0;
	DIR *dir;

	if (!reopen) {
		dir = opendir(d);
		if (!dir)
			die("opendir", d);
		while ((e = readdir(dir)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				keep(names, n++, e->d_name);
		closedir(dir);
		return n;
	}
	for (;;) {
		long got = reopen_batch(d, off, buf, sizeof(buf));

		if (got < 0)
			die("reopen and read", d);
		if (got == 0)
			return n;
		for (long pos = 0; pos < got;) {
			struct linux_dirent64 *r = (struct linux_dirent64 *)(buf + pos);

			if (strcmp(r->d_name, ".") && strcmp(r->d_name, ".."))
				keep(names, n++, r->d_name);
			off = r->d_off;
			pos += r->d_reclen;
		}
	}
}

static int cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static int reader(const char *d, const char *ctl, double secs, int reopen)
{
	static char *names[MAX_NAMES];
	char go[4200], done[4200];
	long listings = 0, missed = 0, repeated = 0, dup_any = 0, lost = 0;
	long rpc0, rpc1, minn = -1, maxn = 0;
	double t0, end;

	snprintf(go, sizeof(go), "%s/go", ctl);
	snprintf(done, sizeof(done), "%s/done", ctl);
	t0 = now();
	while (!exists(go)) {
		if (now() - t0 > WAIT_GO_S) {
			fprintf(stderr, "readdir-churn: no %s within %d s\n", go, WAIT_GO_S);
			return 2;
		}
		usleep(20000);
	}
	rpc0 = readdir_rpcs(d);
	end = now() + secs + 30;
	while (!exists(done) && now() < end) {
		int seen[STABLE] = { 0 }, miss = 0, rep = 0, dup = 0, n;

		n = list_dir(d, reopen, names);
		for (int k = 0; k < n; k++) {
			char *rest;
			long v;

			if (strncmp(names[k], "stable.", 7))
				continue;
			v = strtol(names[k] + 7, &rest, 10);
			if (*rest == 0 && v >= 0 && v < STABLE)
				seen[v]++;
		}
		for (int k = 0; k < STABLE; k++) {
			miss += seen[k] == 0;
			rep |= seen[k] > 1;
		}
		qsort(names, n, sizeof(names[0]), cmp);
		for (int k = 1; k < n; k++)
			dup |= !strcmp(names[k - 1], names[k]);
		for (int k = 0; k < n; k++)
			free(names[k]);
		listings++;
		missed += miss > 0;
		lost += miss;
		repeated += rep;
		dup_any += dup;
		if (minn < 0 || n < minn)
			minn = n;
		if (n > maxn)
			maxn = n;
	}
	rpc1 = readdir_rpcs(d);
	printf("listings %ld missed %ld repeated %ld dup_any %ld entries %ld..%ld stable_lost %ld readdir_rpcs %ld\n",
	       listings, missed, repeated, dup_any, minn, maxn, lost,
	       rpc0 < 0 || rpc1 < 0 ? -1 : rpc1 - rpc0);
	return missed || repeated || dup_any;
}

int main(int argc, char **argv)
{
	double secs = 0;

	if (argc == 5)
		secs = atof(argv[4]);
	if (argc != 5 || secs <= 0 || secs > 3600 ||
	    (strcmp(argv[1], "writer") && strcmp(argv[1], "reader") && strcmp(argv[1], "reopen"))) {
		fprintf(stderr, "usage: readdir-churn writer|reader|reopen DIR CTL SECONDS (0 < SECONDS <= 3600)\n");
		return 2;
	}
	if (!strcmp(argv[1], "writer"))
		return writer(argv[2], argv[3], secs);
	return reader(argv[2], argv[3], secs, !strcmp(argv[1], "reopen"));
}
