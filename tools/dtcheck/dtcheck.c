/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dtcheck: judge history dumps (dt_history_dump text, the files
 * --history-dir leaves) with the general history checker (lib/check/histcheck.h).
 *
 *   dtcheck [--stale MS] [--skew MS] [--budget N] [--accept-errors]
 *           [--quiet] FILE...          ("-" reads stdin)
 *   dtcheck --coverage                   (the model's coverage table)
 *
 * Several files (one per host) are merged on their recorded clocks (each
 * file's "# t0_ns" line plus its offsets); events present in more than one
 * file (every host of a multi-host run dumps the merged history) are
 * judged once.  Prints the counts, the largest and the bad components, the
 * verdict, the shrunk counterexample and the time taken.
 *
 * Exit: 0 consistent, 1 violation, 4 inconclusive, 64 usage, 65 malformed
 * input (one line naming file:line), 2 out of memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dentrace.h"
#include "base/errname.h"
#include "check/histcheck.h"

#define EXIT_VIOLATION 1
#define EXIT_NOMEM 2
#define EXIT_INCONCLUSIVE 4
#define EXIT_USAGE 64
#define EXIT_INPUT 65

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dtcheck [options] FILE...   (history dumps; - = stdin)\n"
		"  --stale MS       reads (lookup, open, readdir) may be MS stale\n"
		"  --skew MS        clock error between hosts (multi-host files)\n"
		"  --budget N       search steps per component (default %llu)\n"
		"  --accept-errors  unexpected errors (ESTALE, EIO) are no information\n"
		"  --quiet          only the verdict and the counterexample\n"
		"  --coverage       print which recorded ops the model judges\n"
		"  --fresh          a name first created in the history was absent\n"
		"                   before (as the oracles assume)\n"
		"exit: 0 consistent, 1 violation, 4 inconclusive, 64 usage,\n"
		"      65 malformed input\n", DT_CHECK_DEFAULT_BUDGET);
}

/* ---- parsing --------------------------------------------------------------- */

struct src {
	const char *file;
	long line;
	char err[256];
};

static int bad(struct src *s, const char *what)
{
	snprintf(s->err, sizeof(s->err), "%s", what);
	return -EINVAL;
}

/* next blank-separated token of *p (NULL at the end of the line) */
static char *token(char **p)
{
	char *t;

	*p += strspn(*p, " \t\r\n");
	if (!**p || **p == '#')
		return NULL;
	t = *p;
	*p += strcspn(*p, " \t\r\n");
	if (**p)
		*(*p)++ = '\0';
	return t;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* undo put_name() of len bytes of t into dst (cap); "-" alone is empty */
static int decode_name(struct src *s, const char *t, size_t len, char *dst,
		       size_t cap)
{
	size_t n = 0;

	if (len == 1 && t[0] == '-') {
		dst[0] = '\0';
		return 0;
	}
	for (size_t i = 0; i < len; i++) {
		char c = t[i];

		if (c == '%') {
			int hi = i + 2 < len ? hexval(t[i + 1]) : -1;
			int lo = i + 2 < len ? hexval(t[i + 2]) : -1;

			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return bad(s, "bad %XX escape in a name");
			c = (char)(hi * 16 + lo);
			i += 2;
		}
		if (n + 1 >= cap)
			return bad(s, "name too long");
		dst[n++] = c;
	}
	dst[n] = '\0';
	return 0;
}

static int parse_u64(const char *t, uint64_t *v)
{
	char *end;

	if (!t || !*t || *t == '-' || *t == '+')
		return -EINVAL;
	errno = 0;
	*v = strtoull(t, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int parse_i64(const char *t, int64_t *v)
{
	char *end;

	if (!t || !*t)
		return -EINVAL;
	errno = 0;
	*v = strtoll(t, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int parse_result(const char *t, int32_t *r)
{
	int64_t v;

	if (!parse_i64(t, &v)) {
		if (v < -4095 || v > INT32_MAX)
			return -EINVAL;
		*r = (int32_t)v;
		return 0;
	}
	for (int e = 1; e < 4096; e++) {
		const char *n = dt_errname(e);

		if (n && !strcmp(n, t)) {
			*r = -e;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_op(const char *t, uint8_t *op, uint8_t *flags)
{
	size_t len = strlen(t);

	*flags = 0;
	if (len && t[len - 1] == '!') {
		*flags |= DT_EVF_EXCL;
		len--;
	}
	if (len && t[len - 1] == '+') {
		*flags |= DT_EVF_CREAT;
		len--;
	}
	for (int i = 0; i < DT_OP__COUNT; i++) {
		const char *n = dt_op_name((enum dt_opcode)i);

		if (strlen(n) != len || strncmp(n, t, len))
			continue;
		*op = (uint8_t)i;
		/* create!, open+, open+!, rename!: nothing else has flags */
		if (i == DT_OP_CREATE || i == DT_OP_RENAME)
			return *flags & DT_EVF_CREAT ? -EINVAL : 0;
		if (i == DT_OP_OPEN)
			return *flags == DT_EVF_EXCL ? -EINVAL : 0;
		return *flags ? -EINVAL : 0;
	}
	return -EINVAL;
}

/* "[a:1,b:2]" (one token: names are escaped) */
static int parse_list(struct src *s, const char *t, struct dt_dirlist *l)
{
	size_t len = strlen(t);
	char name[DT_NAME_MAX + 1];

	if (len < 2 || t[0] != '[' || t[len - 1] != ']')
		return bad(s, "listing must be [name:fileid,...]");
	for (const char *p = t + 1; p < t + len - 1;) {
		const char *end = p + strcspn(p, ",]");
		const char *colon = memchr(p, ':', (size_t)(end - p));
		char num[32];
		uint64_t fid;

		if (!colon || (size_t)(end - colon - 1) >= sizeof(num))
			return bad(s, "listing entry must be name:fileid");
		if (decode_name(s, p, (size_t)(colon - p), name, sizeof(name)))
			return -EINVAL;
		memcpy(num, colon + 1, (size_t)(end - colon - 1));
		num[end - colon - 1] = '\0';
		if (!*name || parse_u64(num, &fid))
			return bad(s, "listing entry must be name:fileid");
		if (dt_dirlist_add(l, name, fid))
			return -ENOMEM;
		p = end;
		if (*p == ',') {
			p++;
			if (*p == ']')
				return bad(s, "empty listing entry");
		}
	}
	return 0;
}

static int parse_line(struct src *s, char *line, uint64_t t0,
		      struct dt_history *h)
{
	char *p = line, *tok[11];
	struct dt_event e;
	uint64_t v, idx;
	int64_t off;
	int n = 0, rc;

	while (n < 11 && (tok[n] = token(&p)))
		n++;
	if (n == 0)
		return 0;
	if (n < 10)
		return bad(s, "an event needs 10 fields: index host thread op name name2 result fileid start end");
	if (token(&p))
		return bad(s, "unexpected text after the event");
	memset(&e, 0, sizeof(e));
	if (parse_u64(tok[0], &idx))
		return bad(s, "index must be a number");
	if (parse_u64(tok[1], &v) || v > UINT16_MAX)
		return bad(s, "host must be 0..65535");
	e.host = (uint16_t)v;
	if (parse_u64(tok[2], &v) || v > UINT16_MAX)
		return bad(s, "thread must be 0..65535");
	e.thread = (uint16_t)v;
	if (parse_op(tok[3], &e.op, &e.flags))
		return bad(s, "unknown op");
	if (decode_name(s, tok[4], strlen(tok[4]), e.name, sizeof(e.name)) ||
	    decode_name(s, tok[5], strlen(tok[5]), e.name2, sizeof(e.name2)))
		return -EINVAL;
	if (parse_result(tok[6], &e.result))
		return bad(s, "result must be 0, a count, -N or an errno name");
	if (parse_u64(tok[7], &e.fileid))
		return bad(s, "fileid must be a number");
	if (parse_i64(tok[8], &off))
		return bad(s, "start must be a number");
	e.start_ns = t0 + (uint64_t)off;
	if (parse_i64(tok[9], &off))
		return bad(s, "end must be a number");
	e.end_ns = t0 + (uint64_t)off;
	if (n == 11) {
		e.list = calloc(1, sizeof(*e.list));
		if (!e.list)
			return -ENOMEM;
		rc = parse_list(s, tok[10], e.list);
		if (rc) {
			dt_dirlist_free(e.list);
			free(e.list);
			return rc;
		}
	}
	return dt_history_add(h, &e);
}

static int parse_file(struct src *s, FILE *f, struct dt_history *h)
{
	char *line = NULL;
	size_t cap = 0;
	uint64_t t0 = 0;
	int rc = 0;

	s->line = 0;
	while (!rc && getline(&line, &cap, f) >= 0) {
		s->line++;
		if (strlen(line) > 1 << 24) {
			rc = bad(s, "line too long");
			break;
		}
		if (line[0] == '#') {
			if (!strncmp(line, "# t0_ns ", 8) &&
			    (sscanf(line + 8, "%" SCNu64, &t0) != 1))
				rc = bad(s, "bad t0_ns line");
			continue;
		}
		rc = parse_line(s, line, t0, h);
	}
	if (!rc && ferror(f))
		rc = bad(s, strerror(errno));
	free(line);
	return rc;
}

/* ---- merging ---------------------------------------------------------------- */

static bool same_event(const struct dt_event *a, const struct dt_event *b)
{
	if (a->host != b->host || a->thread != b->thread || a->op != b->op ||
	    a->flags != b->flags || a->result != b->result ||
	    a->start_ns != b->start_ns || a->end_ns != b->end_ns ||
	    a->fileid != b->fileid || strcmp(a->name, b->name) ||
	    strcmp(a->name2, b->name2) || !a->list != !b->list)
		return false;
	if (!a->list)
		return true;
	if (a->list->n != b->list->n)
		return false;
	for (size_t k = 0; k < a->list->n; k++)
		if (a->list->ent[k].fileid != b->list->ent[k].fileid ||
		    strcmp(a->list->ent[k].name, b->list->ent[k].name))
			return false;
	return true;
}

/* sorted by start: drop events that are in several files */
static size_t drop_duplicates(struct dt_history *h)
{
	size_t out = 0, dropped = 0;

	for (size_t i = 0; i < h->n; i++) {
		bool dup = false;

		/* equal events have equal starts: look back over those */
		for (size_t j = out; j-- > 0 &&
		     h->ev[j].start_ns == h->ev[i].start_ns;)
			if (same_event(&h->ev[j], &h->ev[i])) {
				dup = true;
				break;
			}
		if (dup) {
			if (h->ev[i].list) {
				dt_dirlist_free(h->ev[i].list);
				free(h->ev[i].list);
			}
			dropped++;
			continue;
		}
		h->ev[out++] = h->ev[i];
	}
	h->n = out;
	return dropped;
}

static int parse_ms(const char *opt, const char *s, uint64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !*s || !(v >= 0) || v > 86400e3) {
		fprintf(stderr, "dtcheck: %s '%s': milliseconds, 0..86400000\n",
			opt, s);
		return -EINVAL;
	}
	*ns = (uint64_t)(v * 1e6);
	return 0;
}

/* --coverage: which recorded operations the model judges, as a table */
static void print_coverage(void)
{
	size_t yes = 0, n = 0;

	printf("%-17s %-9s %s\n", "op", "modelled", "how");
	for (const struct dt_check_coverage *c = dt_check_coverage; c->op;
	     c++, n++) {
		printf("%-17s %-9s %s\n", c->op, c->modelled ? "yes" : "no",
		       c->how);
		yes += c->modelled;
	}
	printf("# %zu of %zu modelled\n", yes, n);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "stale", required_argument, NULL, 1 },
		{ "skew", required_argument, NULL, 2 },
		{ "budget", required_argument, NULL, 3 },
		{ "accept-errors", no_argument, NULL, 4 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "coverage", no_argument, NULL, 5 },
		{ "fresh", no_argument, NULL, 6 },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct dt_check_opts o = { 0 };
	struct dt_history h = { 0 };
	struct dt_check_result r;
	struct timespec t0, t1;
	bool quiet = false;
	size_t dups;
	int opt, rc, hosts = 0;
	uint8_t seen_host[65536 / 8] = { 0 };

	while ((opt = getopt_long(argc, argv, "qh", lopts, NULL)) != -1) {
		switch (opt) {
		case 1:
			if (parse_ms("--stale", optarg, &o.stale_ns))
				return EXIT_USAGE;
			break;
		case 2:
			if (parse_ms("--skew", optarg, &o.skew_ns))
				return EXIT_USAGE;
			break;
		case 3:
			if (parse_u64(optarg, &o.budget) || !o.budget) {
				fprintf(stderr, "dtcheck: --budget '%s': a positive number of steps\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 4: o.accept_errors = true; break;
		case 5: print_coverage(); return 0;
		case 6: o.fresh_creates = true; break;
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "dtcheck: no history file (see --help)\n");
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		struct src s = { .file = argv[i] };
		bool in = !strcmp(argv[i], "-");
		FILE *f = in ? stdin : fopen(argv[i], "r");

		if (!f) {
			fprintf(stderr, "dtcheck: %s: %s\n", argv[i],
				strerror(errno));
			dt_history_free(&h);
			return EXIT_INPUT;
		}
		rc = parse_file(&s, f, &h);
		if (!in)
			fclose(f);
		if (rc == -ENOMEM) {
			fprintf(stderr, "dtcheck: %s: out of memory\n", argv[i]);
			dt_history_free(&h);
			return EXIT_NOMEM;
		}
		if (rc) {
			fprintf(stderr, "dtcheck: %s:%ld: %s\n",
				in ? "<stdin>" : argv[i], s.line, s.err);
			dt_history_free(&h);
			return EXIT_INPUT;
		}
	}
	dt_history_sort(&h);
	dups = drop_duplicates(&h);
	for (size_t i = 0; i < h.n; i++) {
		unsigned x = h.ev[i].host;

		if (!(seen_host[x / 8] & (1u << (x % 8)))) {
			seen_host[x / 8] |= (uint8_t)(1u << (x % 8));
			hosts++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = dt_check_history(&h, &o, &r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!quiet) {
		printf("history: %zu events from %d file(s), %d host(s)",
		       h.n, argc - optind, hosts);
		if (dups)
			printf(", %zu duplicate events dropped", dups);
		printf("\nmodel: stale %.3f ms, skew %.3f ms%s, budget %" PRIu64
		       " steps per component\n",
		       (double)o.stale_ns / 1e6, (double)o.skew_ns / 1e6,
		       r.multi_host ? "" : " (one host: not used)",
		       o.budget ? o.budget : (uint64_t)DT_CHECK_DEFAULT_BUDGET);
		printf("events: %zu judged, %zu not judged (below a removed directory, or tied to one), "
		       "%zu ignored (read/close on no open handle)", r.judged, r.not_judged, r.ignored);
		if (r.errors_accepted)
			printf(", %zu errors accepted as no information",
			       r.errors_accepted);
		if (r.entries_not_judged)
			printf(", %zu listing entries not judged",
			       r.entries_not_judged);
		printf("\npaths: %zu, %zu left out\n", r.names, r.excluded_names);
		printf("ops: %zu (%zu reads judged by an identical one) in %zu components, "
		       "largest %zu ops; %" PRIu64 " search steps",
		       r.ops, r.reads_collapsed, r.components, r.largest, r.steps);
		if (r.shrink_steps)
			printf(", %" PRIu64 " shrinking", r.shrink_steps);
		printf("\ncomponents (bad first, then the largest):\n");
		for (size_t i = 0; i < r.ncomp; i++)
			printf("  %-12s %6zu paths %9zu ops %11" PRIu64 " steps  %s\n",
			       dt_check_status_name(r.comp[i].status),
			       r.comp[i].names, r.comp[i].ops, r.comp[i].steps,
			       r.comp[i].name);
	}
	printf("verdict: %s\n", dt_check_status_name(r.status));
	if (r.status != DT_CHECK_CONSISTENT) {
		if (r.verdict.event != SIZE_MAX)
			printf("  event:    %zu\n", r.verdict.event);
		printf("  what:     %s\n  expected: %s\n  observed: %s\n",
		       r.verdict.what, r.verdict.expected, r.verdict.observed);
		if (r.violating > 1)
			printf("  (%zu violating components or events in all)\n",
			       r.violating);
	}
	if (r.cex_text && r.ncex) {
		printf("counterexample (%zu events; index host thread op name name2 result fileid start end):\n%s",
		       r.ncex, r.cex_text);
	}
	if (!quiet)
		printf("time: %.3f s\n", (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	dt_check_result_free(&r);
	dt_history_free(&h);
	if (rc < 0)
		return EXIT_NOMEM;
	return rc == DT_CHECK_CONSISTENT ? 0 :
	       rc == DT_CHECK_VIOLATION ? EXIT_VIOLATION : EXIT_INCONCLUSIVE;
}
