/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directory listings as backends return them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

int dt_dirlist_add(struct dt_dirlist *l, const char *name, uint64_t fileid)
{
	char *copy;

	if (l->n == l->cap) {
		/* doubling keeps a 100 000-entry listing at ~17 reallocs */
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct dt_dirent *ent;

		if (cap > SIZE_MAX / sizeof(*ent))
			return -ENOMEM;
		ent = realloc(l->ent, cap * sizeof(*ent));
		if (!ent)
			return -ENOMEM;
		l->ent = ent;
		l->cap = cap;
	}
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	l->ent[l->n++] = (struct dt_dirent){ .name = copy, .fileid = fileid };
	return 0;
}

/*
 * Frees what the list holds, not the list itself: a dt_dirlist may live on
 * the stack or inside another struct.  The list is left empty and reusable.
 */
void dt_dirlist_free(struct dt_dirlist *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free(l->ent[i].name);
	free(l->ent);
	l->ent = NULL;
	l->n = 0;
	l->cap = 0;
}
