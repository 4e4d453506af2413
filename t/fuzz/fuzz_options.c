// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz the option parsing of dt_main() (lib/core/main.c) without running a
 * case or touching a target.
 *
 * Input: the arguments, separated by NUL bytes (at most OP_MAX_ARGS).  The
 * harness gets argv = { "fuzz_options", <args...>, "--list", "--list" }:
 * every path through dt_main() then returns before any target is parsed
 * or contacted -- --list returns right after option parsing, and a second
 * "--list" is there in case the last fuzzed option takes the first one as
 * its argument ("--hang-op --list").  The only other ways out are usage
 * errors (64, "--" before the --list makes them extra arguments), -h (0)
 * and, should a fuzzed "--target" swallow a "--list", the target parser's
 * rejection of "--list" (65).  As a guard, the case and setup functions of
 * the descriptor abort, and so does an exit status other than 0, 64, 65.
 *
 * What this covers: getopt_long over arbitrary arguments, the tag
 * vocabulary check (--tags and the descriptor's tags), the number and
 * seconds parsers (--threads, --duration, --iterations, --seed,
 * --timeout, --op-timeout), --list and --help output.
 */
#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "dentrace.h"
#include "fuzz.h"

#define OP_MAX_ARGS 64

static void op_never(struct dt_run *r)
{
	(void)r;
	fprintf(stderr, "fuzz_options: a case ran\n");
	abort();
}

static const struct dt_case op_cases[] = {
	{ "alpha", op_never },
	{ "beta", op_never },
	{ NULL, NULL },
};

static const struct dt_test op_test = {
	.name = "fuzz_options",
	.desc = "option parsing under the fuzzer",
	.tags = "quick race lookup",
	.threads = 2,
	.duration = 1,
	.timeout = 5,
	.cases = op_cases,
	.setup = op_never,
	.cleanup = op_never,
};

static int op_null = -1, op_stderr = -1;

/* sanitizer runtimes have it; plain builds do not */
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

int DT_FUZZ_INIT(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* no target may come from the environment either */
	unsetenv("DT_TARGET");
	op_null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	/* stderr goes to /dev/null around dt_main: reports must not */
	op_stderr = dup(2);
	if (op_stderr >= 0 && __sanitizer_set_report_fd)
		__sanitizer_set_report_fd((void *)(intptr_t)op_stderr);
	return 0;
}

int DT_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *argv[OP_MAX_ARGS + 4];
	int argc = 0, rc, out = -1, err = -1;
	size_t i = 0;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = "fuzz_options";
	while (i <= size && argc < OP_MAX_ARGS + 1) {
		argv[argc++] = copy + i;
		i += strlen(copy + i) + 1;
		if (i >= size)
			break;
	}
	argv[argc++] = "--list";
	argv[argc++] = "--list";
	argv[argc] = NULL;

	/* dt_main writes TAP, --list and usage: keep them out of the way */
	fflush(stdout);
	fflush(stderr);
	if (op_null >= 0) {
		out = dup(1);
		err = dup(2);
		dup2(op_null, 1);
		dup2(op_null, 2);
	}
	optind = 0;		/* glibc: re-initialise getopt completely */
	opterr = 1;
	rc = dt_main(&op_test, argc, argv);
	fflush(stdout);
	fflush(stderr);
	if (out >= 0) {
		dup2(out, 1);
		dup2(err, 2);
		close(out);
		close(err);
	}
	fuzz_check(rc == DT_EXIT_PASS || rc == DT_EXIT_USAGE ||
		   rc == DT_EXIT_TARGET, "dt_main returned %d", rc);
	free(copy);
	return 0;
}
