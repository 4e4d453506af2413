/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main() of every test: options, --list, --help, tags, the target, joining
 * a multi-host run, then each selected case in turn (case.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coord/coord.h"
#include "core/internal.h"

static bool in_list(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ", ");

		if (l == wl && !strncmp(p, word, l))
			return true;
		p += l;
		p += strspn(p, ", ");
	}
	return false;
}

static bool tags_match(const struct dt_test *t, const char *want)
{
	if (!want)
		return true;
	for (const char *p = t->tags; p && *p;) {
		size_t l = strcspn(p, " ");
		char tag[64];

		snprintf(tag, sizeof(tag), "%.*s", (int)l, p);
		if (in_list(want, tag))
			return true;
		p += l;
		p += strspn(p, " ");
	}
	return false;
}

/*
 * The tag vocabulary.  Selecting by a tag nobody uses would silently run
 * nothing, so an unknown tag is a usage error, and so is a test that
 * declares one (caught by every --list, i.e. by the runners).
 * mount-counters: the test counts its mount's operations on the wire
 * (/proc/self/mountstats), so no other test may use that mount on that
 * host meanwhile (lab/kmutation runs it alone, after tests side by side).
 */
static const char known_tags[] =
	"quick slow race coherence perf kernel-only mount-counters "
	"lookup rename unlink readdir create link mkdir";

static bool tag_known(const char *tag, size_t len)
{
	for (const char *p = known_tags; *p;) {
		size_t l = strcspn(p, " ");

		if (l == len && !strncmp(p, tag, l))
			return true;
		p += l;
		p += strspn(p, " ");
	}
	return false;
}

/* Every tag in list (separated by any of seps) is known; else report. */
static bool tags_valid(const char *what, const char *list, const char *seps)
{
	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, seps);

		if (l && !tag_known(p, l)) {
			fprintf(stderr, "dentrace: %s: unknown tag '%.*s' "
					"(known: %s)\n", what, (int)l, p,
				known_tags);
			return false;
		}
		p += l;
		p += strspn(p, seps);
	}
	return true;
}

static void usage(const struct dt_test *t, FILE *f)
{
	fprintf(f,
		"%s: %s\n"
		"usage: %s --target TARGET [options]\n"
		"  -t, --target SPEC    directory (/path, posix:/path) or\n"
		"                       nfs://host/export?version=3|4 (env DT_TARGET)\n"
		"  -c, --case A,B       run only these cases\n"
		"  -T, --tags A,B       run only if the test has one of these tags\n"
		"  -n, --threads N      workers per host (1..1024)\n"
		"  -d, --duration S     seconds of load per case (0 < S <= 86400)\n"
		"  -i, --iterations N   bound on loop iterations per worker\n"
		"  -s, --seed N         PRNG seed (default: time based, printed)\n"
		"      --timeout S      hard timeout per case in seconds\n"
		"      --op-timeout S   watchdog: one op stuck this long fails\n"
		"      --xfail FILE     expected-failure list (TAP TODO)\n"
		"      --label NAME     the target's name in reports and xfail lists\n"
		"                       (default: posix, nfs3, nfs4)\n"
		"      --coord A:P      join the coordinator of a multi-host run\n"
		"      --token-file F   the run token for --coord (required with it)\n"
		"      --host-name N    this host's unique name in the run\n"
		"      --run-id ID      the run's id (as the coordinator knows it)\n"
		"      --history-dir D  write the history of a failed case to D\n"
		"      --history-all    with --history-dir: every case's, passed too\n"
		"      --check-history[=stale:MS|auto[,skew:MS]]\n"
		"                       judge each case's whole history with the\n"
		"                       general checker (env DT_CHECK_HISTORY); the\n"
		"                       stale bound defaults to the target's mount options\n"
		"      --no-settle      multi-host: skip the settle check (every host\n"
		"                       re-reads the case's names after the load and\n"
		"                       the stale bound; all views must agree)\n"
		"      --settle-lie     test-only: this host misreports its first\n"
		"                       settle name (proves the check can fail)\n"
		"      --free-fuse      when a case stays stuck in the kernel on a\n"
		"                       FUSE target, abort that mount's connection\n"
		"                       after reporting (for FUSE targets the run\n"
		"                       started itself, e.g. tools/bugfs)\n"
		"      --init-target    mark an EMPTY directory as a dentrace target\n"
		"  -l, --list           list cases and tags\n"
		"  -q, --quiet          YAML blocks only for failures\n"
		"  -h, --help\n"
		"tags: %s\n"
		"exit: 0 pass, 1 fail, 2 broken, 3 all skipped, 64 usage, 65 target\n",
		t->name, t->desc, t->name, t->tags ? t->tags : "");
}

static int parse_long(const char *opt, const char *s, long lo, long hi,
		      long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "dentrace: %s '%s': must be an integer in "
				"%ld..%ld\n", opt, s, lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_secs(const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 86400) {
		fprintf(stderr, "dentrace: %s '%s': must be seconds in "
				"(0, 86400]\n", opt, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/*
 * Join the coordinator: the run's host index, host count and seed replace
 * ours.  The handle is used by the case children one at a time.
 */
static int join_run(const struct dt_test *t, struct dt_options *o)
{
	struct dt_coord_info info;
	char token[DT_COORD_TOKEN_LIMIT + 1], name[128];
	int rc;

	if (!o->coord || !o->token_file) {
		printf("Bail out! --coord and --token-file go together\n");
		return DT_EXIT_USAGE;
	}
	rc = dt_coord_read_token(o->token_file, token, sizeof(token));
	if (rc < 0) {
		printf("Bail out! run token %s: %s\n", o->token_file,
		       dt_strerr(rc));
		return DT_EXIT_USAGE;
	}
	if (!o->host_name) {
		snprintf(name, sizeof(name), "%s/%d", dt_short_hostname(),
			 (int)getpid());
		o->host_name = name;
	}
	rc = dt_coord_join(o->coord, token, o->run_id ? o->run_id : "run",
			   t->name, "*", o->host_name, o->threads,
			   &dt_coord_handle, &info);
	if (rc < 0) {
		printf("Bail out! joining the run at %s as %s: %s\n",
		       o->coord, o->host_name, dt_coord_error(NULL));
		return DT_EXIT_BROKEN;
	}
	o->host = info.host;
	o->nhosts = info.hosts;
	o->seed = info.seed;
	printf("# joined %s as host %d of %d (%s)\n", o->coord, info.host,
	       info.hosts, o->host_name);
	return 0;
}

/*
 * --check-history / DT_CHECK_HISTORY: false (after saying why) if bad.
 * Without a stale:MS of its own (or with stale:auto) the staleness bound
 * comes from the target (stale_from_target below), never from a guess.
 */
static bool check_spec(const char *what, const char *spec, struct dt_options *o)
{
	char buf[256];
	const char *auto_at = spec ? strstr(spec, "stale:auto") : NULL;
	int rc;

	if (auto_at && strlen(spec) < sizeof(buf)) {
		/* drop "stale:auto" and one comma next to it */
		size_t pre = (size_t)(auto_at - spec);
		const char *post = auto_at + strlen("stale:auto");

		if (*post == ',')
			post++;
		else if (pre && spec[pre - 1] == ',')
			pre--;
		snprintf(buf, sizeof(buf), "%.*s%s", (int)pre, spec, post);
		spec = buf[0] ? buf : "on";
	}
	rc = dt_check_parse_spec(spec, &o->check_opts);
	if (rc < 0) {
		fprintf(stderr, "dentrace: %s=%s: want on, off or "
			"stale:MS|auto[,skew:MS]\n", what, spec ? spec : "");
		return false;
	}
	o->check_history = rc > 0;
	o->stale_auto = rc > 0 && (auto_at || !spec || !strstr(spec, "stale:"));
	return true;
}

/*
 * How stale another host's changes may look to this host on the target:
 * nothing for libnfs (its directory cache is off) and for a single host
 * (one client cache, coherent with itself); for a POSIX target in a
 * multi-host run, what the mount's options allow (backend/mountopts.c).
 * The oracles judge reads within it (dt_run_workers widens them) and so
 * does the history checker unless given stale:MS.  Said once in the TAP
 * stream and in every case's YAML.
 */
static int stale_from_target(const struct dt_target *tgt, struct dt_options *o)
{
	struct dt_mount_info m;
	struct dt_stale_bound b;
	int rc;

	o->stale_ns = 0;
	if (tgt->ops != &dt_posix_ops) {
		snprintf(o->stale_why, sizeof(o->stale_why), "%s: libnfs keeps "
			 "no cache (directory cache off) -> 0 ms", tgt->label);
		return 0;
	}
	rc = dt_mount_of(tgt->root, &m);
	if (rc == 0)
		rc = dt_stale_bound(&m, &b);
	if (rc < 0) {
		printf("Bail out! the mount of %s: %s (give --check-history="
		       "stale:MS)\n", tgt->root, dt_strerr(rc));
		return DT_EXIT_TARGET;
	}
	if (o->nhosts <= 1 && b.ms) {
		snprintf(o->stale_why, sizeof(o->stale_why), "one host: one "
			 "client cache, coherent with itself -> 0 ms (%.400s)",
			 b.why);
		return 0;
	}
	o->stale_ns = b.ms * 1000000ull;
	snprintf(o->stale_why, sizeof(o->stale_why), "%s", b.why);
	return 0;
}

int dt_main(const struct dt_test *t, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "target", required_argument, NULL, 't' },
		{ "case", required_argument, NULL, 'c' },
		{ "tags", required_argument, NULL, 'T' },
		{ "threads", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "seed", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 1 },
		{ "op-timeout", required_argument, NULL, 2 },
		{ "xfail", required_argument, NULL, 3 },
		{ "label", required_argument, NULL, 13 },
		{ "hang-op", required_argument, NULL, 5 },
		{ "init-target", no_argument, NULL, 6 },
		{ "coord", required_argument, NULL, 7 },
		{ "token-file", required_argument, NULL, 8 },
		{ "host-name", required_argument, NULL, 9 },
		{ "run-id", required_argument, NULL, 10 },
		{ "history-dir", required_argument, NULL, 11 },
		{ "check-history", optional_argument, NULL, 12 },
		{ "free-fuse", no_argument, NULL, 14 },
		{ "inject-failure", required_argument, NULL, 15 },
		{ "no-settle", no_argument, NULL, 16 },
		{ "settle-lie", no_argument, NULL, 17 },
		{ "history-all", no_argument, NULL, 18 },
		{ "list", no_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct dt_options o = { .target = getenv("DT_TARGET"), .nhosts = 1 };
	struct dt_target tgt;
	char err[256];
	bool do_init = false, check_given = false;
	long v;
	int opt, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	o.seed = dt_realtime_ns() ^ ((uint64_t)getpid() << 32);
	while ((opt = getopt_long(argc, argv, "t:c:T:n:d:i:s:lqh", lopts,
				  NULL)) != -1) {
		switch (opt) {
		case 't': o.target = optarg; break;
		case 'c': o.cases = optarg; break;
		case 'T': o.tags = optarg; break;
		case 'n':
			if (parse_long("--threads", optarg, 1, 1024, &v))
				return DT_EXIT_USAGE;
			o.threads = (int)v;
			break;
		case 'd':
			if (parse_secs("--duration", optarg, &o.duration))
				return DT_EXIT_USAGE;
			break;
		case 'i':
			if (parse_long("--iterations", optarg, 1, LONG_MAX,
				       &o.iterations))
				return DT_EXIT_USAGE;
			break;
		case 's':
			if (parse_long("--seed", optarg, 0, LONG_MAX, &v))
				return DT_EXIT_USAGE;
			o.seed = (uint64_t)v;
			break;
		case 1:
			if (parse_long("--timeout", optarg, 1, 86400, &v))
				return DT_EXIT_USAGE;
			o.timeout = (int)v;
			break;
		case 2:
			if (parse_secs("--op-timeout", optarg, &o.op_timeout))
				return DT_EXIT_USAGE;
			break;
		case 3: o.xfail = optarg; break;
		case 13: o.label = optarg; break;
		case 5: o.hang_op = optarg; break;
		case 15: o.inject_failure = optarg; break;
		case 6: do_init = true; break;
		case 7: o.coord = optarg; break;
		case 8: o.token_file = optarg; break;
		case 9: o.host_name = optarg; break;
		case 10: o.run_id = optarg; break;
		case 11: o.history_dir = optarg; break;
		case 12:
			if (!check_spec("--check-history", optarg, &o))
				return DT_EXIT_USAGE;
			check_given = true;
			break;
		case 14: o.free_fuse = true; break;
		case 16: o.no_settle = true; break;
		case 17: o.settle_lie = true; break;
		case 18: o.history_all = true; break;
		case 'l': o.list = true; break;
		case 'q': o.quiet = true; break;
		case 'h': usage(t, stdout); return 0;
		default: usage(t, stderr); return DT_EXIT_USAGE;
		}
	}
	/* the option wins over the environment, also to turn it off */
	if (!check_given && getenv("DT_CHECK_HISTORY") &&
	    !check_spec("DT_CHECK_HISTORY", getenv("DT_CHECK_HISTORY"), &o))
		return DT_EXIT_USAGE;
	if (optind < argc) {
		fprintf(stderr, "dentrace: %s: unexpected argument '%s'\n",
			t->name, argv[optind]);
		return DT_EXIT_USAGE;
	}
	if (!tags_valid(t->name, t->tags, " ") ||
	    !tags_valid("--tags", o.tags, ", "))
		return DT_EXIT_USAGE;
	if (o.list) {
		for (const struct dt_case *c = t->cases; c->name; c++)
			printf("%s.%s\t%s\n", t->name, c->name,
			       t->tags ? t->tags : "");
		return 0;
	}
	/* validate the case list before touching any target */
	int ncases = 0;
	for (const char *p = o.cases; p && *p;) {
		size_t l = strcspn(p, ",");
		bool known = false;

		for (const struct dt_case *c = t->cases; c->name; c++)
			known |= strlen(c->name) == l &&
				 !strncmp(c->name, p, l);
		if (!known) {
			fprintf(stderr, "dentrace: %s: unknown case '%.*s' "
					"(see --list)\n", t->name, (int)l, p);
			return DT_EXIT_USAGE;
		}
		p += l;
		p += strspn(p, ",");
	}
	for (const struct dt_case *c = t->cases; c->name; c++)
		ncases += !o.cases || in_list(o.cases, c->name);
	if (o.xfail && access(o.xfail, R_OK) < 0) {
		fprintf(stderr, "dentrace: --xfail %s: %s\n", o.xfail,
			strerror(errno));
		return DT_EXIT_USAGE;
	}
	if (!o.coord != !o.token_file) {
		fprintf(stderr, "dentrace: --coord and --token-file go "
				"together\n");
		return DT_EXIT_USAGE;
	}
	if (!o.target) {
		fprintf(stderr, "dentrace: %s: no target: give --target or "
				"DT_TARGET\n", t->name);
		return DT_EXIT_USAGE;
	}
	if (dt_target_parse(o.target, &tgt, err, sizeof(err)) < 0) {
		fprintf(stderr, "dentrace: %s\n", err);
		return DT_EXIT_TARGET;
	}
	if (o.label) {
		if (!*o.label || strlen(o.label) >= sizeof(tgt.label) ||
		    strpbrk(o.label, " \t\n#")) {
			fprintf(stderr, "dentrace: --label '%s': 1..%zu characters, "
				"no blanks or '#'\n", o.label,
				sizeof(tgt.label) - 1);
			return DT_EXIT_USAGE;
		}
		snprintf(tgt.label, sizeof(tgt.label), "%s", o.label);
	}
	if (do_init)
		return dt_init_target(&tgt);

	printf("TAP version 13\n");
	if (!tags_match(t, o.tags)) {
		printf("1..0 # SKIP %s has none of the tags %s\n", t->name,
		       o.tags);
		return DT_EXIT_SKIP;
	}
	dt_op_timeout = o.op_timeout;
	dt_shared = mmap(NULL, sizeof(*dt_shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (dt_shared == MAP_FAILED) {
		printf("Bail out! mmap: %s\n", strerror(errno));
		return DT_EXIT_BROKEN;
	}
	dt_catch_stop_signals();

	rc = dt_prepare_target(&tgt);
	if (rc)
		return rc;
	if (o.coord || o.token_file) {
		rc = join_run(t, &o);
		if (rc)
			return rc;
	}
	rc = stale_from_target(&tgt, &o);
	if (rc)
		return rc;
	dt_note_target(&tgt);
	if (o.check_history && o.stale_auto) {
		o.check_opts.stale_ns = o.stale_ns;
	} else if (o.check_history) {
		snprintf(o.stale_why + strlen(o.stale_why),
			 sizeof(o.stale_why) - strlen(o.stale_why),
			 "; the history checker's: given, %llu ms",
			 (unsigned long long)(o.check_opts.stale_ns / 1000000));
	}
	printf("1..%d\n", ncases);
	printf("# %s on %s, seed %llu\n", t->name, tgt.spec,
	       (unsigned long long)o.seed);
	printf("# stale bound: %s\n", o.stale_why);
	int num = 0, worst = -1;
	uint64_t epoch = 0;
	static const int rank[] = { [DT_PASS] = 1, [DT_SKIP] = 0,
				    [DT_BROKEN] = 2, [DT_FAIL] = 3 };
	for (const struct dt_case *c = t->cases; c->name; c++) {
		if (o.cases && !in_list(o.cases, c->name))
			continue;
		if (dt_interrupted) {
			printf("Bail out! dt_interrupted by signal %d\n",
			       dt_interrupted);
			return DT_EXIT_BROKEN;
		}
		/* each case starts together on the hosts still in the run */
		if (dt_coord_handle)
			dt_mh_case_start(++epoch, c->name, &o.host,
					 &o.nhosts);
		if (dt_coord_lost) {
			printf("not ok %d - %s.%s # BROKEN: coordination lost "
			       "(%s)\n", ++num, t->name, c->name,
			       dt_coord_lost);
			/* a hang found before it stays the run's verdict */
			if (worst < 0 || rank[DT_BROKEN] > rank[worst])
				worst = DT_BROKEN;
			continue;
		}
		int out = dt_run_case(++num, t, c, &tgt, &o);
		if (worst < 0 || rank[out] > rank[worst])
			worst = out;
	}
	dt_mh_finish();
	dt_leftovers_final();
	if (dt_interrupted) {
		printf("Bail out! dt_interrupted by signal %d\n", dt_interrupted);
		return DT_EXIT_BROKEN;
	}
	if (worst < 0 || worst == DT_PASS)
		return DT_EXIT_PASS;
	return worst == DT_FAIL ? DT_EXIT_FAIL
	       : worst == DT_BROKEN ? DT_EXIT_BROKEN : DT_EXIT_SKIP;
}

