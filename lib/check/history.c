/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Histories: what every recorded operation saw, in the order the oracles
 * judge it, and a text dump of it that is the evidence attached to a
 * failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errname.h"
#include "check/history.h"

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

static int history_reserve(struct dt_history *h, size_t more)
{
	size_t cap;
	struct dt_event *ev;

	if (h->cap - h->n >= more)
		return 0;
	if (more > SIZE_MAX / sizeof(*ev) - h->n)
		return -ENOMEM;
	cap = h->cap ? h->cap : 256;
	while (cap - h->n < more) {
		if (cap > SIZE_MAX / sizeof(*ev) / 2) {
			cap = h->n + more;
			break;
		}
		cap *= 2;
	}
	ev = realloc(h->ev, cap * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	h->ev = ev;
	h->cap = cap;
	return 0;
}

static void list_destroy(struct dt_dirlist *l)
{
	if (!l)
		return;
	dt_dirlist_free(l);
	free(l);
}

/*
 * Ownership of e->list passes to the history even when we fail: the caller
 * is a recording wrapper in the middle of a run with no better place to put
 * the list, and a single rule ("after add, it is not yours") cannot leak or
 * double free.
 */
int dt_history_add(struct dt_history *h, const struct dt_event *e)
{
	struct dt_event *d;

	if (history_reserve(h, 1)) {
		list_destroy(e->list);
		return -ENOMEM;
	}
	d = &h->ev[h->n++];
	*d = *e;
	/* oracles and the dump treat names as C strings: make sure they are */
	d->name[DT_EV_NAME - 1] = '\0';
	d->name2[DT_EV_NAME - 1] = '\0';
	return 0;
}

int dt_history_move(struct dt_history *dst, struct dt_history *src)
{
	if (dst == src)
		return 0;
	if (!src->n) {
		dt_history_free(src);
		return 0;
	}
	if (!dst->n && !dst->ev) {
		*dst = *src;
	} else {
		if (history_reserve(dst, src->n))
			return -ENOMEM;	/* src left intact for the caller */
		memcpy(dst->ev + dst->n, src->ev, src->n * sizeof(*src->ev));
		dst->n += src->n;
		free(src->ev);
	}
	src->ev = NULL;
	src->n = 0;
	src->cap = 0;
	return 0;
}

void dt_history_free(struct dt_history *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->n; i++)
		list_destroy(h->ev[i].list);
	free(h->ev);
	h->ev = NULL;
	h->n = 0;
	h->cap = 0;
}

struct sort_key {
	uint64_t start;
	size_t idx;
};

static int key_cmp(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* the original index as tiebreak makes qsort stable */
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Only when memory is short: correct, and fast on the nearly sorted input */
static void insertion_sort(struct dt_history *h)
{
	size_t i, j;

	for (i = 1; i < h->n; i++) {
		struct dt_event tmp = h->ev[i];

		for (j = i; j > 0 && h->ev[j - 1].start_ns > tmp.start_ns; j--)
			h->ev[j] = h->ev[j - 1];
		h->ev[j] = tmp;
	}
}

void dt_history_sort(struct dt_history *h)
{
	struct sort_key *key;
	struct dt_event *out;
	size_t i;

	for (i = 1; i < h->n; i++)
		if (h->ev[i - 1].start_ns > h->ev[i].start_ns)
			break;
	if (i >= h->n)
		return;

	/* sort small keys, then move each ~250-byte event exactly once */
	key = malloc(h->n * sizeof(*key));
	out = malloc(h->n * sizeof(*out));
	if (!key || !out) {
		free(key);
		free(out);
		insertion_sort(h);
		return;
	}
	for (i = 0; i < h->n; i++) {
		key[i].start = h->ev[i].start_ns;
		key[i].idx = i;
	}
	qsort(key, h->n, sizeof(*key), key_cmp);
	for (i = 0; i < h->n; i++)
		out[i] = h->ev[key[i].idx];
	free(key);
	free(h->ev);
	h->ev = out;
	h->cap = h->n;
}

/*
 * Names are written so that every field is one whitespace-free token and a
 * later parser can split on blanks, ',' and ':': those bytes, '%' itself and
 * anything unprintable become %XX.  An empty name is "-" (and a name that
 * is literally "-" is escaped).
 */
void dt_history_put_name(FILE *f, const char *s)
{
	static const char special[] = " %,:[]#";	/* #: a comment to dtcheck */

	if (!*s) {
		fputc('-', f);
		return;
	}
	if (s[0] == '-' && !s[1]) {
		fputs("%2D", f);
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= 0x20 || c >= 0x7f || strchr(special, c))
			fprintf(f, "%%%02X", c);
		else
			fputc(c, f);
	}
}

uint64_t dt_history_t0(const struct dt_history *h)
{
	uint64_t t0 = UINT64_MAX, any = UINT64_MAX;

	for (size_t i = 0; i < h->n; i++) {
		const struct dt_event *e = &h->ev[i];

		if (e->start_ns < any)
			any = e->start_ns;
		if (!(e->flags & DT_EVF_SCRATCH) && e->start_ns < t0)
			t0 = e->start_ns;
	}
	return !h->n ? 0 : t0 != UINT64_MAX ? t0 : any;
}

void dt_history_put_head(FILE *f, const struct dt_history *h, size_t i,
			 uint64_t t0)
{
	const struct dt_event *e = &h->ev[i];
	char rbuf[16];

	/*
	 * "create!" is an exclusive create, "open+" an open with O_CREAT
	 * ("open+!" with O_EXCL too), "rename!" a rename with
	 * RENAME_NOREPLACE: one token, the columns stay
	 */
	fprintf(f, "%zu %u %u %s%s%s ", i, e->host, e->thread,
		dt_op_name((enum dt_opcode)e->op),
		e->flags & DT_EVF_CREAT ? "+" : "",
		e->flags & DT_EVF_EXCL ? "!" : "");
	dt_history_put_name(f, e->name);
	fputc(' ', f);
	dt_history_put_name(f, e->name2);
	/* signed offsets: an unsorted history may start before t0 */
	fprintf(f, " %s %" PRIu64 " %" PRId64 " %" PRId64,
		dt_resname(e->result, rbuf, sizeof(rbuf)), e->fileid,
		(int64_t)(e->start_ns - t0), (int64_t)(e->end_ns - t0));
}

static void put_event(FILE *f, const struct dt_history *h, size_t i,
		      uint64_t t0)
{
	const struct dt_event *e = &h->ev[i];
	size_t k;

	dt_history_put_head(f, h, i, t0);
	if (e->list) {
		fputs(" [", f);
		for (k = 0; k < e->list->n; k++) {
			if (k)
				fputc(',', f);
			dt_history_put_name(f, e->list->ent[k].name);
			fprintf(f, ":%" PRIu64, e->list->ent[k].fileid);
		}
		fputc(']', f);
	}
	fputc('\n', f);
}

/* path "-" writes to stdout, which is what a person debugging wants */
int dt_history_dump(const struct dt_history *h, const char *path)
{
	bool to_stdout;
	uint64_t t0 = dt_history_t0(h);
	FILE *f;
	size_t i;
	int err = 0;

	if (!path)
		return -EINVAL;
	to_stdout = !strcmp(path, "-");
	f = to_stdout ? stdout : fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "# dentrace history: %zu events\n", h->n);
	fprintf(f, "# t0_ns %" PRIu64 " (the recorder's clock; start and end are ns after t0)\n",
		t0);
	fprintf(f, "# index host thread op[!=exclusive] name name2 result fileid start end [name:fileid,...]\n");
	for (i = 0; i < h->n; i++)
		put_event(f, h, i, t0);
	if (ferror(f))
		err = -EIO;
	if (to_stdout) {
		if (fflush(f) && !err)
			err = -errno;
	} else if (fclose(f) && !err) {
		err = -errno;
	}
	return err;
}

void dt_history_widen_reads(struct dt_history *h, int64_t ns)
{
	size_t moved = 0;

	if (!ns)
		return;
	for (size_t i = 0; i < h->n; i++) {
		struct dt_event *e = &h->ev[i];
		/* an open with O_CREAT writes: the server decides it */
		bool read = e->op == DT_OP_LOOKUP || e->op == DT_OP_READDIR ||
			    (e->op == DT_OP_OPEN &&
			     !(e->flags & DT_EVF_CREAT));

		if (ns > 0 && read && !(e->flags & DT_EVF_WIDENED)) {
			e->start_ns = e->start_ns > (uint64_t)ns ?
				      e->start_ns - (uint64_t)ns : 0;
			e->flags |= DT_EVF_WIDENED;
			moved++;
		} else if (ns < 0 && (e->flags & DT_EVF_WIDENED)) {
			e->start_ns += (uint64_t)-ns;
			e->flags &= (uint8_t)~DT_EVF_WIDENED;
			moved++;
		}
	}
	if (moved)
		dt_history_sort(h);
}
