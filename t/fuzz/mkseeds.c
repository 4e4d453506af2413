// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writes the seed corpus of the fuzz targets: valid (and a few nearly
 * valid) inputs, so that the fuzzers start from the interesting paths
 * instead of having to discover an RPC call or a history encoding byte by
 * byte.  `make fuzz-seeds` runs it; its output is kept under
 * t/fuzz/corpus/<target>/seed-*.
 *
 *   mkseeds DIR        writes DIR/<target>/seed-<name>
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rpc/rpc.h>

#include "coord_prot.h"
#include "dentrace.h"

#define TOKEN "fuzz-token"

static const char *outdir;

static void put_file(const char *target, const char *name, const void *buf,
		     size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/seed-%s", outdir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "mkseeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* ---- target_parse and options: text ------------------------------------ */

static void seeds_text(void)
{
	static const char *const specs[] = {
		"/tmp/x", "posix:/mnt/scratch/", "/", "nfs://10.99.0.1/export",
		"nfs://10.99.0.1/export?version=3",
		"nfs://10.99.0.1/export?version=4&nfsport=2049&mountport=20048",
		"nfs://srv.example:2049/a/b/c?version=4",
		"nfs://[::1]:2049/export?version=3", "nfs://[fe80::1]/e",
		"NFS://HOST/x?nfsport=1", "nfs://", "nfs:/x", "ftp://x/y",
		"relative/dir", "nfs://h/e?version=5", "nfs://h/e?version=3&version=4",
		"nfs://h:0/e", "nfs://h:99999/e", "nfs://u@h/e", "nfs://h/e#frag",
		"nfs://999.1.1.1/e", "nfs://h/e?x", "nfs://h/e?", "nfs://h/e?a=b&",
		"nfs://h:2049/e?nfsport=2050", "nfs://[::1/e",
	};
	static const char *const opts[][8] = {
		{ "--threads", "4", "--duration", "1.5", NULL },
		{ "-n", "0", NULL },
		{ "-d", "-1", NULL },
		{ "--iterations", "9223372036854775807", "-s", "42", NULL },
		{ "--timeout", "86400", "--op-timeout", "1e-3", NULL },
		{ "--case", "alpha,beta", "--tags", "quick", NULL },
		{ "-t", "/tmp/x", "-c", "nosuch", NULL },
		{ "--op-timeout", "nan", NULL },
		{ "--duration", "inf", NULL },
		{ "-q", "-l", "-h", NULL },
		{ "--coord", "127.0.0.1:1", "--token-file", "/nonexistent",
		  "--host-name", "h", "--run-id", "r" },
		{ "--xfail", "/nonexistent", "--hang-op", "case", NULL },
		{ "--init-target", "--", "x", NULL },
		{ "--thr=3", "--dur=2", "-n3", "-d2", NULL },
	};
	char name[32], buf[1024];

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		snprintf(name, sizeof(name), "%02zu", i);
		put_file("target_parse", name, specs[i], strlen(specs[i]));
	}
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		size_t n = 0;

		for (int k = 0; k < 8 && opts[i][k]; k++) {
			size_t l = strlen(opts[i][k]);

			if (k)
				buf[n++] = '\0';
			memcpy(buf + n, opts[i][k], l);
			n += l;
		}
		snprintf(name, sizeof(name), "%02zu", i);
		put_file("options", name, buf, n);
	}
}

/* ---- histio: encoded histories ------------------------------------------ */

static void ev(struct dt_history *h, int host, int thread, int op, int result,
	       uint64_t t0, uint64_t t1, uint64_t fid, const char *name,
	       const char *name2, struct dt_dirlist *list)
{
	struct dt_event e;

	memset(&e, 0, sizeof(e));
	e.host = (uint16_t)host;
	e.thread = (uint16_t)thread;
	e.op = (uint8_t)op;
	e.result = result;
	e.start_ns = t0;
	e.end_ns = t1;
	e.fileid = fid;
	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.name2, sizeof(e.name2), "%s", name2 ? name2 : "");
	e.list = list;
	if (dt_history_add(h, &e))
		exit(1);
}

static void put_history(const char *name, struct dt_history *h)
{
	void *buf;
	size_t len;

	if (dt_history_encode(h, &buf, &len))
		exit(1);
	put_file("histio", name, buf, len);
	free(buf);
	dt_history_free(h);
}

static void seeds_histio(void)
{
	struct dt_history h = { 0 };
	struct dt_dirlist *l;

	put_history("empty", &h);

	ev(&h, 0, 0, DT_OP_CREATE, 0, 10, 20, 7, "s/a", NULL, NULL);
	ev(&h, 0, 1, DT_OP_LOOKUP, 0, 25, 30, 7, "s/a", NULL, NULL);
	ev(&h, 1, 0, DT_OP_LOOKUP, -ENOENT, 5, 8, 0, "s/a", NULL, NULL);
	ev(&h, 0, 0, DT_OP_UNLINK, 0, 40, 50, 0, "s/a", NULL, NULL);
	ev(&h, 1, 2, DT_OP_UNLINK, -ENOENT, 41, 52, 0, "s/a", NULL, NULL);
	put_history("lifetime", &h);

	ev(&h, 0, 0, DT_OP_CREATE, 0, 1, 2, 9, "c.0", NULL, NULL);
	ev(&h, 0, 0, DT_OP_RENAME, 0, 3, 4, 0, "c.0", "c.1", NULL);
	ev(&h, 0, 1, DT_OP_LOOKUP, 0, 3, 5, 9, "c.1", NULL, NULL);
	ev(&h, 0, 1, DT_OP_LOOKUP, -ENOENT, 3, 5, 0, "c.0", NULL, NULL);
	ev(&h, 0, 0, DT_OP_LINK, -EEXIST, 6, 7, 0, "c.1", "c.2", NULL);
	put_history("chain", &h);

	l = calloc(1, sizeof(*l));
	dt_dirlist_add(l, "a", 7);
	dt_dirlist_add(l, "b", 8);
	dt_dirlist_add(l, "a", 7);
	ev(&h, 0, 0, DT_OP_MKDIR, 0, 1, 2, 0, "d", NULL, NULL);
	ev(&h, 0, 0, DT_OP_CREATE, 0, 3, 4, 7, "d/a", NULL, NULL);
	ev(&h, 0, 3, DT_OP_READDIR, 0, 5, 9, 0, "d", NULL, l);
	l = calloc(1, sizeof(*l));
	ev(&h, 2, 0xffff, DT_OP_READDIR, -EIO, 5, 9, 0, "d", NULL, l);
	ev(&h, 0, 0, DT_OP_OPEN, 0, 10, 11, 7, "d/a", NULL, NULL);
	ev(&h, 0, 0, DT_OP_READ, 5, 12, 13, 0, "d/a", NULL, NULL);
	ev(&h, 0, 0, DT_OP_CLOSE, 0, 14, 15, 0, "d/a", NULL, NULL);
	ev(&h, 0, 0, DT_OP_RMDIR, -ENOTEMPTY, 16, 17, 0, "d", NULL, NULL);
	put_history("readdir", &h);
}

/* ---- coordd: RPC calls on connections ---------------------------------- */

struct seq {
	unsigned char b[65536];
	size_t n;
};

static uint32_t xid = 1;

static void seq_byte(struct seq *s, unsigned char v)
{
	s->b[s->n++] = v;
}

/* one data operation carrying a whole record for connection ci */
static void call(struct seq *s, int ci, u_int proc, xdrproc_t xa, void *args)
{
	unsigned char rec[16384];
	struct rpc_msg m;
	XDR x;
	u_int len;
	uint32_t mark;

	memset(&m, 0, sizeof(m));
	m.rm_xid = xid++;
	m.rm_direction = CALL;
	m.rm_call.cb_rpcvers = 2;
	m.rm_call.cb_prog = DT_COORD_PROG;
	m.rm_call.cb_vers = DT_COORD_V1;
	m.rm_call.cb_proc = proc;
	m.rm_call.cb_cred = _null_auth;
	m.rm_call.cb_verf = _null_auth;
	xdrmem_create(&x, (char *)rec + 4, sizeof(rec) - 4, XDR_ENCODE);
	if (!xdr_callmsg(&x, &m) || (xa && !xa(&x, args)))
		exit(1);
	len = xdr_getpos(&x);
	xdr_destroy(&x);
	mark = htonl(0x80000000u | len);
	memcpy(rec, &mark, 4);
	seq_byte(s, (unsigned char)(ci & 3));	/* command 0: data */
	seq_byte(s, (unsigned char)((len + 4) & 0xff));
	seq_byte(s, (unsigned char)((len + 4) >> 8));
	memcpy(s->b + s->n, rec, len + 4);
	s->n += len + 4;
}

static void join(struct seq *s, int ci, const char *token, const char *host)
{
	dt_coord_join_args a = {
		.token = (char *)token, .run_id = "run", .test = "t",
		.tcase = "c", .host = (char *)host, .threads = 2, .rtt_ns = 1000,
	};

	call(s, ci, DT_COORD_JOIN, (xdrproc_t)xdr_dt_coord_join_args, &a);
}

static void barrier(struct seq *s, int ci, int host, const char *name,
		    uint64_t gen, uint64_t prevseq)
{
	dt_coord_barrier_args a = {
		.token = TOKEN, .host = host, .name = (char *)name, .gen = gen,
		.rtt_ns = 2000,
		.prev = { .seq = prevseq, .recv_ns = 5, .woke_ns = 6,
			  .unc_ns = 7 },
	};

	call(s, ci, DT_COORD_BARRIER, (xdrproc_t)xdr_dt_coord_barrier_args,
	     &a);
}

static void post(struct seq *s, int ci, int host, const char *key,
		 const char *val, u_int len)
{
	dt_coord_post_args a = {
		.token = TOKEN, .host = host, .key = (char *)key,
		.value = { .value_len = len, .value_val = (char *)val },
	};

	call(s, ci, DT_COORD_POST, (xdrproc_t)xdr_dt_coord_post_args, &a);
}

static void fetch(struct seq *s, int ci, const char *key)
{
	dt_coord_fetch_args a = { .token = TOKEN, .key = (char *)key };

	call(s, ci, DT_COORD_FETCH, (xdrproc_t)xdr_dt_coord_fetch_args, &a);
}

static void leave(struct seq *s, int ci, int host, const char *reason)
{
	dt_coord_leave_args a = { .token = TOKEN, .host = host,
				  .reason = (char *)reason };

	call(s, ci, DT_COORD_LEAVE, (xdrproc_t)xdr_dt_coord_leave_args, &a);
}

static void clock_skew(struct seq *s, int ci, int host)
{
	dt_coord_clock_args c = { .token = TOKEN };
	dt_coord_skew_args k = { .token = TOKEN, .host = host,
				 .prev = { .seq = 1, .recv_ns = 9,
					   .woke_ns = 10, .unc_ns = 1 } };

	call(s, ci, DT_COORD_CLOCK, (xdrproc_t)xdr_dt_coord_clock_args, &c);
	call(s, ci, DT_COORD_SKEW, (xdrproc_t)xdr_dt_coord_skew_args, &k);
}

static void case_start(struct seq *s, int ci, int host, uint64_t epoch,
		       const char *tcase, const char *ended)
{
	dt_coord_case_args a = {
		.token = TOKEN, .host = host, .epoch = epoch,
		.tcase = (char *)tcase, .ended = (char *)ended,
	};

	call(s, ci, DT_COORD_CASE, (xdrproc_t)xdr_dt_coord_case_args, &a);
}

static void rejoin(struct seq *s, int ci, int host, const char *name,
		   const char *ended)
{
	dt_coord_rejoin_args a = { .token = TOKEN, .host = host,
				   .name = (char *)name,
				   .ended = (char *)ended };

	call(s, ci, DT_COORD_REJOIN, (xdrproc_t)xdr_dt_coord_rejoin_args, &a);
}

static void put_seq(const char *name, struct seq *s)
{
	put_file("coordd", name, s->b, s->n);
	s->n = 0;
}

static void seeds_coordd(void)
{
	static char big[2000];
	struct seq s = { .n = 0 };

	/* a whole 2-host run */
	seq_byte(&s, 1);
	seq_byte(&s, 0);
	join(&s, 0, TOKEN, "h0");
	join(&s, 1, TOKEN, "h1");
	clock_skew(&s, 0, 0);
	barrier(&s, 0, 0, "go", 0, 0);
	barrier(&s, 1, 1, "go", 0, 0);
	post(&s, 0, 0, "k", "abc", 3);
	post(&s, 1, 1, "k", "de", 2);
	barrier(&s, 0, 0, "b2", 1, 1);
	barrier(&s, 1, 1, "b2", 1, 1);
	fetch(&s, 0, "k");
	clock_skew(&s, 1, 1);
	leave(&s, 0, 0, "");
	leave(&s, 1, 1, "");
	put_seq("run2", &s);

	/* a host dies while the other waits at a barrier */
	seq_byte(&s, 2);
	seq_byte(&s, 0);
	join(&s, 0, TOKEN, "h0");
	join(&s, 1, TOKEN, "h1");
	join(&s, 2, TOKEN, "h2");
	barrier(&s, 0, 0, "b", 0, 0);
	seq_byte(&s, 48 << 2 | 1);		/* h1's peer closes */
	barrier(&s, 2, 2, "b", 0, 0);
	leave(&s, 2, 2, "giving up");
	put_seq("death", &s);

	/*
	 * cases: h1 gives case 1 up while h0 waits at a barrier, comes back
	 * on a new connection, and both start case 2
	 */
	seq_byte(&s, 1);
	seq_byte(&s, 0);
	join(&s, 0, TOKEN, "h0");
	join(&s, 1, TOKEN, "h1");
	case_start(&s, 0, 0, 1, "a", "");
	case_start(&s, 1, 1, 1, "a", "");
	barrier(&s, 0, 0, "a:go:0", 1, 0);
	rejoin(&s, 2, 1, "h1", "a hung: killed at the timeout");
	case_start(&s, 0, 0, 2, "b", "");
	case_start(&s, 2, 1, 2, "b", "");
	barrier(&s, 0, 0, "b:go:0", 3, 0);
	barrier(&s, 2, 1, "b:go:0", 3, 0);
	leave(&s, 0, 0, "");
	leave(&s, 2, 1, "");
	put_seq("cases", &s);

	/* barrier timeout, then every later barrier fails at once */
	seq_byte(&s, 1);
	seq_byte(&s, 0);
	join(&s, 0, TOKEN, "a");
	join(&s, 1, TOKEN, "b");
	barrier(&s, 0, 0, "x", 0, 0);
	seq_byte(&s, 56 << 2);
	barrier(&s, 1, 1, "x", 0, 0);
	barrier(&s, 0, 0, "y", 1, 0);
	put_seq("timeout", &s);

	/* wrong token, wrong host, mismatched barrier, duplicate name */
	seq_byte(&s, 1);
	seq_byte(&s, 0);
	join(&s, 0, "not-the-token", "h0");
	join(&s, 0, TOKEN, "h0");
	join(&s, 1, TOKEN, "h0");
	join(&s, 2, TOKEN, "h2");
	join(&s, 3, TOKEN, "h3");
	post(&s, 1, 0, "k", "x", 1);
	barrier(&s, 0, 0, "a", 0, 0);
	barrier(&s, 2, 1, "b", 0, 0);
	barrier(&s, 0, 0, "c", 5, 0);
	put_seq("denied", &s);

	/* storage limits (small-limit run) */
	memset(big, 'v', sizeof(big));
	seq_byte(&s, 0);
	seq_byte(&s, 1);
	join(&s, 0, TOKEN, "solo");
	post(&s, 0, 0, "k0", big, 1000);
	post(&s, 0, 0, "k1", big, 1000);
	post(&s, 0, 0, "k2", big, 1000);
	post(&s, 0, 0, "k3", big, 1000);
	post(&s, 0, 0, "k4", big, 10);
	post(&s, 0, 0, "k0", big, 1025);
	post(&s, 0, 0, "", big, 1);
	fetch(&s, 0, "k3");
	fetch(&s, 0, "nosuch");
	leave(&s, 0, 0, "");
	put_seq("limits", &s);

	/* NULL call, wrong program/version/procedure, garbage */
	seq_byte(&s, 0);
	seq_byte(&s, 0);
	call(&s, 0, DT_COORD_NULL, NULL, NULL);
	call(&s, 0, 99, NULL, NULL);
	call(&s, 0, DT_COORD_JOIN, NULL, NULL);
	{
		static const unsigned char junk[] = {
			0, 12, 0, 0x80, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0,
		};
		memcpy(s.b + s.n, junk, sizeof(junk));
		s.n += sizeof(junk);
	}
	put_seq("bad", &s);

	/* a record in two fragments, then a partial record that stalls */
	seq_byte(&s, 0);
	seq_byte(&s, 0);
	{
		struct seq one = { .n = 0 };
		uint32_t m1, m2;
		size_t len, half;

		join(&one, 0, TOKEN, "frag");
		len = one.n - 3 - 4;	/* record body */
		half = len / 2;
		seq_byte(&s, 0);
		seq_byte(&s, (unsigned char)((len + 8) & 0xff));
		seq_byte(&s, (unsigned char)((len + 8) >> 8));
		m1 = htonl((uint32_t)half);
		m2 = htonl(0x80000000u | (uint32_t)(len - half));
		memcpy(s.b + s.n, &m1, 4);
		memcpy(s.b + s.n + 4, one.b + 7, half);
		memcpy(s.b + s.n + 4 + half, &m2, 4);
		memcpy(s.b + s.n + 8 + half, one.b + 7 + half, len - half);
		s.n += len + 8;
		seq_byte(&s, 1);
		seq_byte(&s, 6);
		seq_byte(&s, 0);
		memcpy(s.b + s.n, "\x80\x00\x01\x00\x00\x00", 6);
		s.n += 6;
		seq_byte(&s, 60 << 2 | 1);
	}
	put_seq("fragments", &s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 64;
	}
	outdir = argv[1];
	mkdir(outdir, 0755);
	seeds_text();
	seeds_histio();
	seeds_coordd();
	return 0;
}
