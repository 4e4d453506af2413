/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plumbing under the oracles: listings, op names, histories (append,
 * move, stable sort, free) and the evidence dump.
 */
#include <unistd.h>

#include "oracle_ev.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(void)
{
	struct dt_history h = { 0 }, h2 = { 0 };
	struct dt_dirlist l = { 0 };
	char path[] = "/tmp/dentrace-hist-XXXXXX";
	uint64_t seed = 88172645463325252ull;
	bool sorted, stable;
	char *text;
	int fd;

	/* listings */
	for (int i = 0; i < 1000; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		if (dt_dirlist_add(&l, name, (uint64_t)i + 1))
			bail_out("dt_dirlist_add failed");
	}
	ok(l.n == 1000 && l.cap >= 1000 && !strcmp(l.ent[999].name, "f999") &&
	   l.ent[999].fileid == 1000, "dirlist: 1000 adds kept in order");
	dt_dirlist_free(&l);
	ok(!l.n && !l.cap && !l.ent, "dirlist: free leaves it empty");
	is_int(dt_dirlist_add(&l, "again", 1), 0, "dirlist: reusable after free");
	dt_dirlist_free(&l);
	dt_dirlist_free(NULL);

	/* op names */
	is_str(dt_op_name(DT_OP_LOOKUP), "lookup", "op name lookup");
	is_str(dt_op_name(DT_OP_RENAME), "rename", "op name rename");
	is_str(dt_op_name(DT_OP_CLOSE), "close", "op name close");
	is_str(dt_op_name((enum dt_opcode)200), "unknown-op", "op name out of range");

	/* stable sort: equal starts keep their insertion order */
	ev(&h, 1, DT_OP_LOOKUP, "c", NULL, 0, 0, 30, 40);
	ev(&h, 2, DT_OP_LOOKUP, "a1", NULL, 0, 0, 10, 20);
	ev(&h, 3, DT_OP_LOOKUP, "b", NULL, 0, 0, 20, 25);
	ev(&h, 4, DT_OP_LOOKUP, "a2", NULL, 0, 0, 10, 15);
	ev(&h, 5, DT_OP_LOOKUP, "a3", NULL, 0, 0, 10, 11);
	dt_history_sort(&h);
	ok(!strcmp(h.ev[0].name, "a1") && !strcmp(h.ev[1].name, "a2") &&
	   !strcmp(h.ev[2].name, "a3") && !strcmp(h.ev[3].name, "b") &&
	   !strcmp(h.ev[4].name, "c"), "sort: by start, ties in insertion order");
	dt_history_free(&h);
	ok(!h.n && !h.ev && !h.cap, "free leaves the history empty");

	/* a big merge of per-worker histories sorts stably too */
	for (int w = 0; w < 8; w++) {
		uint64_t t = 0;

		for (int i = 0; i < 12500; i++) {
			size_t k;

			t += rng(&seed) % 3;	/* many equal starts */
			k = ev(&h2, (unsigned)w, DT_OP_LOOKUP, "x", NULL, 0, 0,
			       t, t + 5);
			h2.ev[k].fileid = (uint64_t)i;	/* order within worker */
		}
		if (dt_history_move(&h, &h2))
			bail_out("dt_history_move failed");
	}
	ok(h.n == 100000 && !h2.n && !h2.ev, "move: 8 x 12500 events merged, src emptied");
	dt_history_sort(&h);
	sorted = stable = true;
	for (size_t i = 1; i < h.n; i++) {
		const struct dt_event *p = &h.ev[i - 1], *e = &h.ev[i];

		if (p->start_ns > e->start_ns)
			sorted = false;
		/* same start: worker order, and within a worker, record order */
		if (p->start_ns == e->start_ns &&
		    (p->thread > e->thread ||
		     (p->thread == e->thread && p->fileid > e->fileid)))
			stable = false;
	}
	ok(sorted && stable, "sort: 100000 events sorted, stable");
	dt_history_free(&h);

	/* readdir lists move with their events and are freed exactly once */
	ev_rd(&h2, 1, "s/d", 0, 5, 6, "a:12,b:13");
	ev(&h, 0, DT_OP_CREATE, "s/d/a", NULL, 0, 12, 1, 2);
	is_int(dt_history_move(&h, &h2), 0, "move: append to a non-empty history");
	ok(h.n == 2 && h.ev[1].list && h.ev[1].list->n == 2 && !h2.n,
	   "move: the listing travelled with its event");
	is_int(dt_history_move(&h, &h2), 0, "move: from an empty history");
	is_int(dt_history_move(&h2, &h), 0, "move: into an empty history");
	ok(h2.n == 2 && !h.n && !h.ev, "move: into an empty history steals the array");

	/* the dump: one line per event, readable, listing on the same line */
	ev(&h2, 0xffff, DT_OP_RENAME, "s/with space", "s/b%c", -ESTALE, 0, 7, 9);
	ev(&h2, 2, DT_OP_LOOKUP, "s/x", NULL, -4095, 0, 8, 9);
	fd = mkstemp(path);
	if (fd < 0)
		bail_out("mkstemp: %s", strerror(errno));
	close(fd);
	is_int(dt_history_dump(&h2, path), 0, "dump: written");
	text = slurp(path);
	ok(text && strstr(text, "\n0 0 0 create s/d/a - 0 12 0 1\n"),
	   "dump: create line (times relative to the first start)");
	ok(text && strstr(text, "\n1 0 1 readdir s/d - 0 0 4 5 [a:12,b:13]\n"),
	   "dump: readdir entries on the same line");
	ok(text && strstr(text, "\n2 0 65535 rename s/with%20space s/b%25c ESTALE 0 6 8\n"),
	   "dump: errno by name, blanks and %% escaped");
	ok(text && strstr(text, "\n3 0 2 lookup s/x - -4095 0 7 8\n"),
	   "dump: unknown errno as a number");
	if (text)
		note("%s", text);
	free(text);
	unlink(path);
	ok(dt_history_dump(&h2, "/nonexistent-dir/x") == -ENOENT,
	   "dump: -errno when the file cannot be created");
	dt_history_free(&h2);
	dt_history_free(&h);

	/* the binary form: short names make events of ~42 bytes, and a
	 * history of them decodes (the count bound once assumed 43) */
	{
		struct dt_history sh = { 0 }, back = { 0 };
		void *buf = NULL;
		size_t len = 0;

		for (int i = 0; i < 4; i++)
			ev(&sh, 1, DT_OP_LOOKUP, "s/f", NULL, -ENOENT, 0,
			   (uint64_t)i * 10, (uint64_t)i * 10 + 5);
		sh.ev[0].flags = DT_EVF_CREAT | DT_EVF_EXCL;
		sh.ev[0].op = DT_OP_OPEN;
		int enc = dt_history_encode(&sh, &buf, &len);

		ok(enc == 0 && dt_history_decode(buf, len, &back) == 0 &&
		   back.n == 4 &&
		   back.ev[0].flags == (DT_EVF_CREAT | DT_EVF_EXCL),
		   "histio: 4 events on a 3-byte name round-trip (%zu bytes), "
		   "open flags kept", len);
		free(buf);
		dt_history_free(&sh);
		dt_history_free(&back);
	}
	return done();
}
