/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tiny TAP producer for the self-tests in t/, header-only so that a test
 * is one .c file that prove can run.  Everything is static: two tests never
 * share state, and a test may include this from several of its own files
 * without clashes (each file then counts separately, so don't).
 *
 *	plan(n);                 optional: else done() prints the plan
 *	ok(cond, "fmt", ...);    returns cond, prints file:line when false
 *	todo(cond, name, why);   a known gap: TAP TODO, never a failure
 *	is_int(got, want, "fmt", ...);
 *	is_str(got, want, "fmt", ...);
 *	diag("fmt", ...);        "# ..." on stderr: shown even without -v
 *	note("fmt", ...);        "# ..." on stdout: shown with prove -v
 *	bail_out("fmt", ...);    "Bail out!" and exit 255
 *	return done();           exit status: 0 when all ran and passed
 */
#ifndef DT_TAP_H
#define DT_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tap_state {
	int planned;		/* -1: no plan yet */
	int run;
	int failed;
};

static inline struct tap_state *tap_state(void)
{
	static struct tap_state st = { .planned = -1 };

	return &st;
}

static inline void plan(int n)
{
	tap_state()->planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

static inline void tap_vline(FILE *f, const char *fmt, va_list ap)
{
	char buf[4096], *p, *nl;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* every line of a multi-line message must stay a TAP comment */
	for (p = buf; p; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		fprintf(f, "# %s\n", p);
	}
	fflush(f);
}

static inline __attribute__((format(printf, 1, 2)))
void diag(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	tap_vline(stderr, fmt, ap);
	va_end(ap);
}

static inline __attribute__((format(printf, 1, 2)))
void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline(stdout, fmt, ap);
	va_end(ap);
}

static inline __attribute__((format(printf, 4, 0)))
bool tap_vok(bool pass, const char *file, int line, const char *fmt,
	     va_list ap)
{
	struct tap_state *st = tap_state();
	char name[1024];

	vsnprintf(name, sizeof(name), fmt, ap);
	/* '#' would start a TAP directive in the description */
	for (char *p = name; *p; p++)
		if (*p == '#' || *p == '\n')
			*p = ' ';
	st->run++;
	if (!pass)
		st->failed++;
	printf("%sok %d - %s\n", pass ? "" : "not ", st->run, name);
	fflush(stdout);
	if (!pass)
		diag("  Failed test '%s'\n  at %s line %d.", name, file, line);
	return pass;
}

/*
 * A known gap: "not ok N - name # TODO reason" (or "ok ... # TODO" when
 * it unexpectedly passes).  Either way it does not fail the test.
 */
static inline void todo(bool pass, const char *name, const char *reason)
{
	struct tap_state *st = tap_state();

	st->run++;
	printf("%sok %d - %s # TODO %s\n", pass ? "" : "not ", st->run, name,
	       reason);
	fflush(stdout);
}

/* Not applicable: "ok N - name # SKIP reason"; never fails the test. */
static inline void skip(const char *name, const char *reason)
{
	struct tap_state *st = tap_state();

	st->run++;
	printf("ok %d - %s # SKIP %s\n", st->run, name, reason);
	fflush(stdout);
}

static inline __attribute__((format(printf, 4, 5)))
bool tap_ok_at(bool pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	return r;
}

static inline __attribute__((format(printf, 5, 6)))
bool tap_is_int_at(long long got, long long want, const char *file, int line,
		   const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok(got == want, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		diag("       got: %lld\n  expected: %lld", got, want);
	return r;
}

static inline __attribute__((format(printf, 5, 6)))
bool tap_is_str_at(const char *got, const char *want, const char *file,
		   int line, const char *fmt, ...)
{
	bool same = got && want ? !strcmp(got, want) : got == want;
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok(same, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		diag("       got: '%s'\n  expected: '%s'", got ? got : "(null)",
		     want ? want : "(null)");
	return r;
}

#define ok(cond, ...) tap_ok_at(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) \
	tap_is_int_at((long long)(got), (long long)(want), __FILE__, __LINE__, \
		      __VA_ARGS__)
#define is_str(got, want, ...) \
	tap_is_str_at((got), (want), __FILE__, __LINE__, __VA_ARGS__)

static inline __attribute__((noreturn, format(printf, 1, 2)))
void bail_out(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(255);
}

/* Print the plan if none was given; the exit status prove expects. */
static inline int done(void)
{
	struct tap_state *st = tap_state();

	if (st->planned < 0)
		printf("1..%d\n", st->run);
	fflush(stdout);
	if (st->planned >= 0 && st->planned != st->run) {
		diag("planned %d tests but ran %d", st->planned, st->run);
		return 255;
	}
	return st->failed > 254 ? 254 : st->failed;
}

#endif /* DT_TAP_H */
