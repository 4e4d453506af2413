/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directory listings as backends return them, and op names for messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dentrace.h"

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

static const char *const op_names[DT_OP__COUNT] = {
	[DT_OP_LOOKUP]	= "lookup",
	[DT_OP_CREATE]	= "create",
	[DT_OP_MKDIR]	= "mkdir",
	[DT_OP_RMDIR]	= "rmdir",
	[DT_OP_UNLINK]	= "unlink",
	[DT_OP_RENAME]	= "rename",
	[DT_OP_LINK]	= "link",
	[DT_OP_READDIR]	= "readdir",
	[DT_OP_OPEN]	= "open",
	[DT_OP_READ]	= "read",
	[DT_OP_CLOSE]	= "close",
};

const char *dt_op_name(enum dt_opcode op)
{
	/* events carry the op as a raw byte: never index past the table */
	if ((unsigned)op >= DT_OP__COUNT || !op_names[op])
		return "unknown-op";
	return op_names[op];
}
