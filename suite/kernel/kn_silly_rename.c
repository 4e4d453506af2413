/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Silly rename: NFS has no "open but unlinked" state on the server, so the
 * kernel client renames a file that is unlinked while it is open to
 * .nfsXXXX and removes that name at the last close.
 *
 * unlink_open: the name is gone at once (ENOENT), one .nfs* entry appears,
 * the open file stays readable with its data, the client counts a silly
 * rename (mountstats events), the directory cannot be removed yet, and
 * after close the .nfs* entry disappears (the REMOVE is asynchronous:
 * polled with a deadline) and the directory can be removed.
 *
 * two_opens: the same with the file open twice: the .nfs* entry survives
 * the first close and goes with the second.
 */
#include <dirent.h>

#include "kn.h"

static const char data[] = "dentrace silly rename payload\n";

/* names starting with ".nfs" in dir dfd: count, first one into buf */
static int silly_entries(struct dt_run *r, int dfd, char *buf, size_t len)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	struct dirent *d;
	DIR *dir;

	if (fd < 0 || !(dir = fdopendir(fd)))
		dt_broken(r, "open the test directory: %s", strerror(errno));
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, ".nfs", 4))
			continue;
		if (!n++ && buf)
			snprintf(buf, len, "%s", d->d_name);
	}
	closedir(dir);
	return n;
}

/* poll until no .nfs* entry is left, up to deadline_ms; returns the wait */
static long wait_silly_gone(struct dt_run *r, int dfd, long deadline_ms)
{
	uint64_t t0 = dt_now_ns();

	for (;;) {
		long waited = (long)((dt_now_ns() - t0) / 1000000);

		if (!silly_entries(r, dfd, NULL, 0))
			return waited;
		if (waited > deadline_ms)
			return -1;
		kn_sleep_ms(20);
	}
}

static void unlink_while_open(struct dt_run *r, int opens)
{
	struct dt_mountstats *ms = calloc(1, sizeof(*ms));
	char dir[DT_PATH_MAX], silly[256] = "", buf[sizeof(data) + 16];
	int dfd, ddfd, fds[2] = { -1, -1 }, wfd, rc;
	uint64_t sr0;
	struct stat st;

	if (!ms)
		dt_broken(r, "out of memory");
	kn_require_nfs(r, ms);
	sr0 = ms->events[DT_MS_SILLYRENAME];
	dfd = kn_open_dir(r, r->scratch);
	if (mkdirat(dfd, "d", 0755) < 0)
		dt_broken(r, "mkdir d: %s", strerror(errno));
	dt_pathbuf(r, dir, sizeof(dir), "d");
	ddfd = kn_open_dir(r, dir);
	wfd = openat(ddfd, "victim", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		     0644);
	if (wfd < 0 || write(wfd, data, sizeof(data) - 1) !=
	    (ssize_t)sizeof(data) - 1 || close(wfd) < 0)
		dt_broken(r, "create d/victim with data: %s", strerror(errno));
	for (int i = 0; i < opens; i++) {
		fds[i] = openat(ddfd, "victim", O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0)
			dt_broken(r, "open d/victim: %s", strerror(errno));
	}

	if (unlinkat(ddfd, "victim", 0) < 0)
		dt_fail(r, "unlink", "0", dt_strerr(-errno),
			"unlink d/victim while it is open");
	rc = fstatat(ddfd, "victim", &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	if (rc != -ENOENT)
		dt_fail(r, "stat", "ENOENT", dt_strerr(rc),
			"d/victim after its unlink returned");
	int n = silly_entries(r, ddfd, silly, sizeof(silly));
	if (n != 1)
		dt_fail(r, "readdir", "one .nfs* entry", dt_fmt("%d", n),
			"d/ while the unlinked file is open");
	dt_diag(r, "silly_name", "%s", silly[0] ? silly : "(none)");
	for (int i = 0; i < opens; i++) {
		memset(buf, 0, sizeof(buf));
		ssize_t got = pread(fds[i], buf, sizeof(buf), 0);

		if (got != (ssize_t)sizeof(data) - 1 ||
		    memcmp(buf, data, sizeof(data) - 1))
			dt_fail(r, "read", dt_fmt("%zu bytes of the data",
						  sizeof(data) - 1),
				got < 0 ? dt_strerr(-errno) :
				dt_fmt("%zd bytes", got),
				"read the open, unlinked file (fd %d)", i);
	}
	if (kn_stats(ms) == 0) {
		uint64_t sr = ms->events[DT_MS_SILLYRENAME] - sr0;

		dt_diag(r, "silly_renames", "%llu", (unsigned long long)sr);
		if (sr != 1)
			dt_fail(r, "mountstats sillyrename", "1",
				dt_fmt("%llu", (unsigned long long)sr),
				"silly renames counted by the client");
	}
	/* the directory is not empty while the .nfs file exists */
	rc = unlinkat(dfd, "d", AT_REMOVEDIR) < 0 ? -errno : 0;
	dt_diag(r, "rmdir_while_open", "%s", dt_strerr(rc));
	if (rc == 0)
		dt_fail(r, "rmdir", "ENOTEMPTY or EBUSY", "0",
			"rmdir d/ while it holds the silly-renamed file");

	for (int i = 0; i < opens; i++) {
		close(fds[i]);
		if (i + 1 < opens) {
			/* still open elsewhere: the .nfs file must stay */
			kn_sleep_ms(200);
			n = silly_entries(r, ddfd, NULL, 0);
			if (n != 1)
				dt_fail(r, "readdir", "the .nfs* entry still "
					"there", dt_fmt("%d entries", n),
					"after closing %d of %d opens", i + 1,
					opens);
		}
	}
	long waited = wait_silly_gone(r, ddfd, 10000);

	dt_diag(r, "silly_gone_after_ms", "%ld", waited);
	if (waited < 0)
		dt_fail(r, "readdir", "no .nfs* entry within 10 s of the last "
			"close", silly, "the silly-renamed file stayed");
	close(ddfd);
	rc = unlinkat(dfd, "d", AT_REMOVEDIR) < 0 ? -errno : 0;
	if (rc)
		dt_fail(r, "rmdir", "0", dt_strerr(rc),
			"rmdir d/ after the last close");
	close(dfd);
	free(ms);
}

static void run_unlink_open(struct dt_run *r)
{
	unlink_while_open(r, 1);
}

static void run_two_opens(struct dt_run *r)
{
	unlink_while_open(r, 2);
}

static const struct dt_case cases[] = {
	{ "unlink_open", run_unlink_open },
	{ "two_opens", run_two_opens },
	{ NULL, NULL }
};

static const struct dt_test test = {
	.name = "kn_silly_rename",
	.desc = "a file unlinked while open: .nfsXXXX, readable, gone after "
		"close, directory removable",
	.tags = "kernel-only unlink",
	.needs = DT_NEED_POSIX | DT_NEED_OPEN,
	.threads = 1,
	.duration = 10,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
