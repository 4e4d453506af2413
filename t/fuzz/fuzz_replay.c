// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replays the saved fuzz inputs through the fuzz targets (TAP), so that
 * `make check` (and `make sanitize`, under ASan+UBSan) keeps every crash
 * the fuzzers found fixed, without clang or libFuzzer.
 *
 * For each target in t/fuzz/ (fuzz_<name>.c) it runs every file of
 * t/fuzz/regress/<name>/ (inputs that once crashed: they must not any
 * more) and t/fuzz/corpus/<name>/ (the seed corpus), each in its own child
 * with a 10 s limit; one TAP line per target and directory names the first
 * input that crashed, hung or broke an invariant.
 *
 *   build/t/fuzz_replay [DIR]     DIR: the t/fuzz directory (default:
 *                                 $DT_FUZZ_DIR, ./t/fuzz, or found from
 *                                 the executable's path)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DT_FUZZ_ENTRY fuzz_target_parse_one
#define DT_FUZZ_INIT fuzz_target_parse_init
#include "fuzz_target_parse.c"
#undef DT_FUZZ_ENTRY
#undef DT_FUZZ_INIT

#define DT_FUZZ_ENTRY fuzz_histio_one
#define DT_FUZZ_INIT fuzz_histio_init
#include "fuzz_histio.c"
#undef DT_FUZZ_ENTRY
#undef DT_FUZZ_INIT

#define DT_FUZZ_ENTRY fuzz_options_one
#define DT_FUZZ_INIT fuzz_options_init
#include "fuzz_options.c"
#undef DT_FUZZ_ENTRY
#undef DT_FUZZ_INIT

#define DT_FUZZ_ENTRY fuzz_coordd_one
#define DT_FUZZ_INIT fuzz_coordd_init
#include "fuzz_coordd.c"
#undef DT_FUZZ_ENTRY
#undef DT_FUZZ_INIT

#define RP_INPUT_MAX (4u << 20)		/* larger files are not inputs */
#define RP_LIMIT_S 10			/* per input */

static const struct rp_target {
	const char *name;
	int (*init)(int *, char ***);
	int (*one)(const uint8_t *, size_t);
} rp_targets[] = {
	{ "target_parse", fuzz_target_parse_init, fuzz_target_parse_one },
	{ "histio", fuzz_histio_init, fuzz_histio_one },
	{ "options", fuzz_options_init, fuzz_options_one },
	{ "coordd", fuzz_coordd_init, fuzz_coordd_one },
};

static int rp_n;
/*
 * The parent's lists live in globals: a child that exits through exit()
 * runs LeakSanitizer (make sanitize), which must not count what the parent
 * allocated as the child's leaks.
 */
static char **rp_names;
static size_t rp_nnames, rp_cap;
static char rp_bad[PATH_MAX + 512];

/* Run one input in a child: "" when fine, else what went wrong. */
static const char *rp_one(const struct rp_target *t, const char *path)
{
	static char why[PATH_MAX + 512];
	int status;
	pid_t p;

	fflush(stdout);
	p = fork();
	if (p < 0) {
		snprintf(why, sizeof(why), "fork: %s", strerror(errno));
		return why;
	}
	if (p == 0) {
		FILE *f = fopen(path, "rb");
		uint8_t *buf = malloc(RP_INPUT_MAX);
		size_t n;

		if (!f || !buf)
			_exit(99);
		n = fread(buf, 1, RP_INPUT_MAX, f);
		fclose(f);
		/* an exact-size copy: reads past the end are caught by ASan */
		uint8_t *in = malloc(n ? n : 1);
		if (!in)
			_exit(99);
		memcpy(in, buf, n);
		free(buf);
		alarm(RP_LIMIT_S);
		t->init(NULL, NULL);
		t->one(in, n);
		free(in);
		exit(0);	/* exit, not _exit: LeakSanitizer runs at exit */
	}
	if (waitpid(p, &status, 0) < 0) {
		snprintf(why, sizeof(why), "waitpid: %s", strerror(errno));
		return why;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return "";
	if (WIFSIGNALED(status))
		snprintf(why, sizeof(why), "%s: killed by signal %d (%s)%s",
			 path, WTERMSIG(status), strsignal(WTERMSIG(status)),
			 WTERMSIG(status) == SIGALRM ? ": hung" : "");
	else
		snprintf(why, sizeof(why), "%s: exit status %d", path,
			 WEXITSTATUS(status));
	return why;
}

static int rp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every regular file of dir/sub/name; one TAP line. */
static int rp_dir(const char *dir, const char *sub, const struct rp_target *t)
{
	char path[PATH_MAX], file[PATH_MAX + 256];
	size_t ran = 0;
	struct dirent *d;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, t->name);
	dp = opendir(path);
	if (!dp) {
		printf("ok %d - %s/%s: no inputs # SKIP %s: %s\n", ++rp_n,
		       sub, t->name, path, strerror(errno));
		return 0;
	}
	while ((d = readdir(dp))) {
		struct stat st;

		if (d->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, d->d_name);
		if (stat(file, &st) || !S_ISREG(st.st_mode) ||
		    st.st_size > (off_t)RP_INPUT_MAX)
			continue;
		if (rp_nnames == rp_cap) {
			rp_cap = rp_cap ? rp_cap * 2 : 64;
			rp_names = realloc(rp_names, rp_cap * sizeof(*rp_names));
			if (!rp_names)
				abort();
		}
		rp_names[rp_nnames] = strdup(d->d_name);
		if (!rp_names[rp_nnames++])
			abort();
	}
	closedir(dp);
	if (rp_nnames)
		qsort(rp_names, rp_nnames, sizeof(*rp_names), rp_cmp);
	rp_bad[0] = '\0';
	for (size_t i = 0; i < rp_nnames; i++) {
		snprintf(file, sizeof(file), "%s/%s", path, rp_names[i]);
		const char *why = rp_one(t, file);

		ran++;
		if (why[0] && !rp_bad[0]) {
			snprintf(rp_bad, sizeof(rp_bad), "%s", why);
			printf("# %s\n", why);
		}
	}
	for (size_t i = 0; i < rp_nnames; i++)
		free(rp_names[i]);
	rp_nnames = 0;
	if (rp_bad[0]) {
		printf("not ok %d - %s/%s: %zu inputs, first failure: %s\n",
		       ++rp_n, sub, t->name, ran, rp_bad);
		return 1;
	}
	printf("ok %d - %s/%s: %zu inputs replayed, no crash, hang or "
	       "broken invariant\n", ++rp_n, sub, t->name, ran);
	return 0;
}

static const char *rp_find_dir(int argc, char **argv)
{
	static char buf[PATH_MAX + 16];
	struct stat st;
	char exe[PATH_MAX];
	ssize_t n;

	if (argc > 1)
		return argv[1];
	if (getenv("DT_FUZZ_DIR"))
		return getenv("DT_FUZZ_DIR");
	if (!stat("t/fuzz/regress", &st) && S_ISDIR(st.st_mode))
		return "t/fuzz";
	/* <root>/<build>/t/fuzz_replay */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		for (int up = 0; up < 3; up++) {
			char *s = strrchr(exe, '/');

			if (s)
				*s = 0;
		}
		snprintf(buf, sizeof(buf), "%s/t/fuzz", exe);
		return buf;
	}
	return "t/fuzz";
}

int main(int argc, char **argv)
{
	const char *dir = rp_find_dir(argc, argv);
	size_t nt = sizeof(rp_targets) / sizeof(rp_targets[0]);
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%zu\n", 2 * nt);
	printf("# fuzz inputs from %s\n", dir);
	for (size_t i = 0; i < nt; i++) {
		failed |= rp_dir(dir, "regress", &rp_targets[i]);
		failed |= rp_dir(dir, "corpus", &rp_targets[i]);
	}
	free(rp_names);
	return failed;
}
