/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * POSIX backend: system calls on a directory of any mounted filesystem (a
 * kernel NFS mount, tmpfs, ext4).  Every path is resolved relative to a
 * directory fd of the target root with the *at() calls, so a test can
 * never reach outside the target even if the root is renamed meanwhile.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"

struct dt_conn {
	int rootfd;
};

struct dt_file {
	int fd;
};

static int posix_connect(const struct dt_target *t, struct dt_conn **out)
{
	struct dt_conn *c = malloc(sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->rootfd = open(t->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->rootfd < 0) {
		int e = errno;

		free(c);
		return -e;
	}
	*out = c;
	return 0;
}

static void posix_disconnect(struct dt_conn *c)
{
	if (!c)
		return;
	close(c->rootfd);
	free(c);
}

/* "" means the root itself */
static const char *rel(const char *path)
{
	return path[0] ? path : ".";
}

static void fill_stat(const struct stat *s, struct dt_stat *st)
{
	if (!st)
		return;
	st->fileid = s->st_ino;
	st->dev = (uint64_t)s->st_dev;
	st->mode = s->st_mode;
	st->nlink = (uint32_t)s->st_nlink;
	st->size = (uint64_t)s->st_size;
	st->ctime_ns = (uint64_t)s->st_ctim.tv_sec * 1000000000ull +
		       (uint64_t)s->st_ctim.tv_nsec;
}

static int posix_lookup(struct dt_conn *c, const char *path,
			struct dt_stat *st)
{
	struct stat s;

	if (fstatat(c->rootfd, rel(path), &s, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	fill_stat(&s, st);
	return 0;
}

static int posix_create(struct dt_conn *c, const char *path, bool excl,
			struct dt_stat *st)
{
	int fd = openat(c->rootfd, path,
			O_RDWR | O_CREAT | O_CLOEXEC | (excl ? O_EXCL : 0),
			0644);
	struct stat s;
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (st) {
		if (fstat(fd, &s) < 0)
			rc = -errno;
		else
			fill_stat(&s, st);
	}
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

static int posix_mkdir(struct dt_conn *c, const char *path)
{
	return mkdirat(c->rootfd, path, 0755) < 0 ? -errno : 0;
}

static int posix_rmdir(struct dt_conn *c, const char *path)
{
	return unlinkat(c->rootfd, path, AT_REMOVEDIR) < 0 ? -errno : 0;
}

static int posix_unlink(struct dt_conn *c, const char *path)
{
	return unlinkat(c->rootfd, path, 0) < 0 ? -errno : 0;
}

static int posix_rename(struct dt_conn *c, const char *from, const char *to)
{
	return renameat(c->rootfd, from, c->rootfd, to) < 0 ? -errno : 0;
}

static int posix_rename_noreplace(struct dt_conn *c, const char *from,
				  const char *to)
{
	return renameat2(c->rootfd, from, c->rootfd, to, RENAME_NOREPLACE) < 0 ?
	       -errno : 0;
}

static int posix_link(struct dt_conn *c, const char *from, const char *to)
{
	return linkat(c->rootfd, from, c->rootfd, to, 0) < 0 ? -errno : 0;
}

static int posix_readdir(struct dt_conn *c, const char *path,
			 struct dt_dirlist *out)
{
	int fd = openat(c->rootfd, rel(path),
			O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *d;
	DIR *dir;
	int rc = 0;

	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		rc = -errno;
		close(fd);
		return rc;
	}
	for (;;) {
		errno = 0;
		d = readdir(dir);
		if (!d) {
			rc = -errno;
			break;
		}
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		rc = dt_dirlist_add(out, d->d_name, d->d_ino);
		if (rc < 0)
			break;
	}
	closedir(dir);
	return rc;
}

static int posix_open(struct dt_conn *c, const char *path, int flags,
		      struct dt_file **f)
{
	struct dt_file *file = malloc(sizeof(*file));

	if (!file)
		return -ENOMEM;
	file->fd = openat(c->rootfd, path, flags | O_CLOEXEC, 0644);
	if (file->fd < 0) {
		int e = errno;

		free(file);
		return -e;
	}
	*f = file;
	return 0;
}

static ssize_t posix_pread(struct dt_conn *c, struct dt_file *f, void *buf,
			   size_t len, uint64_t off)
{
	(void)c;
	ssize_t n = pread(f->fd, buf, len, (off_t)off);
	return n < 0 ? -errno : n;
}

static ssize_t posix_pwrite(struct dt_conn *c, struct dt_file *f,
			    const void *buf, size_t len, uint64_t off)
{
	(void)c;
	ssize_t n = pwrite(f->fd, buf, len, (off_t)off);
	return n < 0 ? -errno : n;
}

static int posix_close(struct dt_conn *c, struct dt_file *f)
{
	(void)c;
	int rc = close(f->fd) < 0 ? -errno : 0;

	free(f);
	return rc;
}

const struct dt_backend_ops dt_posix_ops = {
	.name = "posix",
	.connect = posix_connect,
	.disconnect = posix_disconnect,
	.lookup = posix_lookup,
	.create = posix_create,
	.mkdir = posix_mkdir,
	.rmdir = posix_rmdir,
	.unlink = posix_unlink,
	.rename = posix_rename,
	.rename_noreplace = posix_rename_noreplace,
	.link = posix_link,
	.readdir = posix_readdir,
	.open = posix_open,
	.pread = posix_pread,
	.pwrite = posix_pwrite,
	.close = posix_close,
};
