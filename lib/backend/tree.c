/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Removing a tree through the ops table: scratch directories on any target. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "backend/backend.h"

int dt_remove_tree(const struct dt_backend_ops *ops, struct dt_conn *c,
		   const char *path)
{
	struct dt_dirlist l = { 0 };
	struct dt_stat st;
	int rc = ops->lookup(c, path, &st);

	if (rc < 0)
		return rc == -ENOENT ? 0 : rc;
	if (!S_ISDIR(st.mode)) {
		rc = ops->unlink(c, path);
		return rc == -ENOENT ? 0 : rc;
	}
	rc = ops->readdir(c, path, &l);
	for (size_t i = 0; rc >= 0 && i < l.n; i++) {
		char child[DT_PATH_MAX];

		if ((size_t)snprintf(child, sizeof(child), "%s/%s", path,
				     l.ent[i].name) >= sizeof(child)) {
			rc = -ENAMETOOLONG;
			break;
		}
		rc = dt_remove_tree(ops, c, child);
	}
	dt_dirlist_free(&l);
	if (rc < 0)
		return rc;
	rc = ops->rmdir(c, path);
	return rc == -ENOENT ? 0 : rc;
}
