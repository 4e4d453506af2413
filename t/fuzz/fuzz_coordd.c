// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz the coordinator's request path (lib/coord/coordd.c): record marking,
 * RPC call decoding, the token check and every handler (JOIN, BARRIER,
 * CLOCK, POST, FETCH, SKEW, LEAVE), with up to four connections in one
 * run so that handlers see each other's state (hosts joined, barriers
 * pending, keys stored, hosts dying).
 *
 * coordd.c is one file with main() and static functions: it is compiled
 * into this target whole, with main renamed, and driven at its own entry
 * point for a connection's input, conn_input(), exactly as its poll loop
 * does.  Each connection is one end of a socketpair; the fuzzer writes to
 * the other end and reads the replies away.
 *
 * Input:
 *   byte 0   hosts in the run: 1 + b % 4
 *   byte 1   bit 0: small storage limits (4 keys, 4 KiB, 1 KiB values)
 *   then operations, each one byte: connection = b & 3, command = b >> 2:
 *     0..47   data: u16 little-endian length, then that many bytes,
 *             written to the connection (opened first if it is not)
 *     48..55  the peer closes the connection
 *     56..59  the pending barrier's deadline passes
 *     60..63  a partial record on the connection stalls too long
 *   after each operation every connection is served until it is quiet,
 *   and dead connections are freed, as the poll loop does.
 * The run token is "fuzz-token" (t/fuzz/coordd.dict has it).  With
 * DT_FUZZ_VERBOSE=1 in the environment the daemon's log stays on stderr.
 *
 * Checked beyond the sanitizers (and LeakSanitizer across inputs): the
 * daemon's bookkeeping stays within its limits: hosts joined <= hosts,
 * keys and bytes stored <= their caps, a joined host's connection points
 * back to it, a pending barrier is not yet complete.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/ioctl.h>

/*
 * The daemon logs every join and every bad request on stderr: point its
 * stderr at cd_log (/dev/null unless DT_FUZZ_VERBOSE=1), so that fd 2 stays
 * free for the sanitizers' reports.
 */
static FILE *cd_log;
#undef stderr
#define stderr cd_log
#define main dt_coordd_main
#include "coord/coordd.c"
#undef main
#undef stderr
#define stderr stderr

#include "fuzz.h"

#define CD_CONNS 4
#define CD_TOKEN "fuzz-token"

static int cd_peer[CD_CONNS] = { -1, -1, -1, -1 };

/* the coordd connection in slot i of S.conns, 0..CD_CONNS-1 */
static struct conn *cd_open(int i)
{
	struct conn *c;
	int sv[2];

	if (S.conns[i])
		return S.conns[i];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       sv))
		abort();
	c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	c->fd = sv[0];
	c->host = -1;
	c->since_ns = mono_ns();
	snprintf(c->peer, sizeof(c->peer), "fuzz:%d", i);
	S.conns[i] = c;
	cd_peer[i] = sv[1];
	return c;
}

static void cd_drain(int fd)
{
	char buf[65536];

	while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
		;
}

static size_t cd_pending_in(const struct conn *c)
{
	int n = 0;

	if (ioctl(c->fd, FIONREAD, &n) < 0 || n < 0)
		return 0;
	return (size_t)n;
}

/* the poll loop's work for every connection, until nothing moves */
static void cd_serve(void)
{
	for (int round = 0; round < 64; round++) {
		bool moved = false;

		for (int i = 0; i < CD_CONNS; i++) {
			struct conn *c = S.conns[i];

			if (!c)
				continue;
			cd_drain(cd_peer[i]);
			if (!c->dead && c->out) {
				size_t off = c->out_off;

				conn_flush(c);
				moved |= !c->out || c->out_off != off;
			}
			if (!c->dead && !c->out && !c->deferred &&
			    cd_pending_in(c)) {
				size_t have = cd_pending_in(c);

				conn_input(c);
				moved |= c->dead || cd_pending_in(c) != have ||
					 c->out || c->deferred;
			}
			cd_drain(cd_peer[i]);
		}
		/* dead connections are freed at the top of the next round */
		for (int i = 0; i < CD_CONNS; i++) {
			struct conn *c = S.conns[i];

			if (c && c->dead) {
				S.conns[i] = NULL;
				conn_free(c);
				close(cd_peer[i]);
				cd_peer[i] = -1;
				moved = true;
			}
		}
		if (!moved || S.finished)
			return;
	}
}

static void cd_write(int i, const uint8_t *p, size_t n)
{
	struct conn *c = cd_open(i);

	(void)c;
	for (int tries = 0; n && tries < 64; tries++) {
		ssize_t w = write(cd_peer[i], p, n);

		if (w > 0) {
			p += w;
			n -= (size_t)w;
		}
		cd_serve();
		if (!S.conns[i] || cd_peer[i] < 0)
			return;		/* the daemon closed it */
	}
}

static void cd_reset(uint8_t cfg0, uint8_t cfg1)
{
	for (int i = 0; i < MAX_CONNS; i++) {
		if (S.conns[i])
			conn_free(S.conns[i]);
		if (i < CD_CONNS && cd_peer[i] >= 0) {
			close(cd_peer[i]);
			cd_peer[i] = -1;
		}
	}
	for (unsigned int k = 0; S.keys && k < S.nkeys; k++)
		for (int h = 0; h < DT_COORD_HOSTS_MAX; h++)
			free(S.keys[k].val[h]);
	free(S.keys);
	free(S.wake);
	free(S.skews);
	memset(&S, 0, sizeof(S));

	S.nhosts = 1 + cfg0 % 4;
	S.members = all_hosts();
	S.listen_spec = "fuzz";
	snprintf(S.token, sizeof(S.token), "%s", CD_TOKEN);
	S.token_len = strlen(CD_TOKEN);
	S.seed = 42;
	S.timeout_ns = 60 * NSEC;
	S.idle_ns = 600 * NSEC;
	S.margin_min_ns = 1000000ULL;
	if (cfg1 & 1) {
		S.max_keys = 4;
		S.max_bytes = 4096;
		S.max_value = 1024;
	} else {
		S.max_keys = 1024;
		S.max_bytes = 256ULL << 20;
		S.max_value = DT_COORD_VALUE_MAX;
	}
	S.lfd = -1;
	S.last_auth_ns = mono_ns();
}

static void cd_invariants(void)
{
	int joined = 0;

	fuzz_check(S.joined >= 0 && S.joined <= S.nhosts, "joined %d of %d",
		   S.joined, S.nhosts);
	fuzz_check(S.nkeys <= S.max_keys, "%u keys", S.nkeys);
	fuzz_check(S.bytes <= S.max_bytes, "%" PRIu64 " bytes", S.bytes);
	for (int i = 0; i < S.nhosts; i++) {
		struct host *h = &S.hosts[i];

		joined += h->state != H_FREE;
		if (h->state == H_JOINED && h->conn)
			fuzz_check(h->conn->host == i, "host %d conn says %d",
				   i, h->conn->host);
	}
	fuzz_check(joined == S.joined, "%d hosts not free, joined %d",
		   joined, S.joined);
	if (S.pending)
		fuzz_check(__builtin_popcountll(S.arrived) < S.nhosts,
			   "complete barrier still pending");
}

int DT_FUZZ_INIT(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	signal(SIGPIPE, SIG_IGN);
	if (!cd_log)
		cd_log = getenv("DT_FUZZ_VERBOSE") ? stderr
						   : fopen("/dev/null", "w");
	if (!cd_log)
		abort();
	return 0;
}

int DT_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	size_t i = 2;
	dt_coord_skew_res sk;

	if (size < 2)
		return 0;
	cd_reset(data[0], data[1]);
	while (i < size && !S.finished) {
		uint8_t op = data[i++];
		int ci = op & 3, cmd = op >> 2;

		if (cmd < 48) {
			size_t n;

			if (size - i < 2)
				break;
			n = (size_t)data[i] | (size_t)data[i + 1] << 8;
			i += 2;
			if (n > size - i)
				n = size - i;
			cd_write(ci, data + i, n);
			i += n;
		} else if (cmd < 56) {
			if (S.conns[ci]) {
				close(cd_peer[ci]);
				cd_peer[ci] = -1;
				/* what poll() reports for a closed peer */
				if (S.conns[ci]->deferred || S.conns[ci]->out)
					conn_mark_dead(S.conns[ci], "closed");
				else
					conn_input(S.conns[ci]);
			}
		} else if (cmd < 60) {
			if (S.pending)
				barrier_timeout();
		} else {
			struct conn *c = S.conns[ci];

			if (c && !c->dead && c->partial_since) {
				S.bad++;
				conn_mark_dead(c, "stalled inside a record");
			}
		}
		cd_serve();
		cd_invariants();
	}
	memset(&sk, 0, sizeof(sk));
	skew_stats(&sk);
	cd_reset(0, 0);
	return 0;
}
