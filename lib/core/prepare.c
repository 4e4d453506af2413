/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target before the first case: --init-target marks an empty
 * directory; every run first checks the marker, sweeps the scratch
 * directories that dead runs of this host left, and probes that it can
 * write, from a bounded child.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"

/*
 * Sweep what dead runs of this host left: scratch dirs are named
 * dentrace.<host>.<pid>.<test>.<case>; one whose pid no longer runs is
 * removed.  Only names with our prefix at the target root are touched.
 */
static void sweep_dead_scratch(const struct dt_target *t, struct dt_conn *c)
{
	struct dt_dirlist l = { 0 };
	const char *host = dt_short_hostname();
	size_t hl = strlen(host), pl = strlen(DT_SCRATCH_PREFIX);

	if (t->ops->readdir(c, "", &l) < 0)
		return;
	for (size_t i = 0; i < l.n; i++) {
		const char *n = l.ent[i].name;

		if (strncmp(n, DT_SCRATCH_PREFIX, pl) ||
		    strncmp(n + pl, host, hl) || n[pl + hl] != '.')
			continue;
		pid_t pid = (pid_t)atol(n + pl + hl + 1);
		if (pid <= 0 || !dt_pid_running(pid)) {
			int rc = dt_remove_tree(t->ops, c, n);

			printf("# swept leftover scratch %s%s\n", n,
			       rc < 0 ? " (failed)" : "");
		}
	}
	dt_dirlist_free(&l);
}

/* A target must be marked before dentrace writes to it. */
static int check_target_marker(const struct dt_target *t, struct dt_conn *c)
{
	struct dt_stat st;

	return t->ops->lookup(c, DT_TARGET_MARKER, &st);
}

/*
 * A probe op whose answer disagrees with its effect: the target is wrong,
 * not unusable.  That is a verdict (one failing TAP test with the
 * evidence), not a target error: exit 1 like any failure.
 */
static __attribute__((noreturn)) void probe_lied(const struct dt_target *t,
						 const char *op,
						 const char *path, int rc,
						 const char *after)
{
	printf("1..1\nnot ok 1 - target_probe: %s answered %s but %s\n",
	       op, rc ? dt_strerr(rc) : "success", after);
	printf("  ---\n  target: %s\n  op: \"%s %s\"\n  answered: \"%s\"\n"
	       "  then: \"%s\"\n  verdict: \"the target is wrong, not "
	       "unwritable: an operation's answer and its effect disagree\"\n"
	       "  ...\n", dt_yaml_quote(t->spec), op, path,
	       rc ? dt_strerr(rc) : "0", after);
	fflush(stdout);
	_exit(DT_EXIT_FAIL);
}

/*
 * Can dentrace write there?  A read-only export would otherwise make every
 * case BROKEN on its scratch mkdir; one Bail out says it once.  A lookup
 * after the mkdir and after the rmdir tells a broken target (the op failed
 * and nothing happened) from a wrong one (the answer and the effect
 * disagree: probe_lied).  The probe is named like a scratch dir of this
 * process, so if the run dies between mkdir and rmdir the next run's sweep
 * removes it.
 */
static int probe_writable(const struct dt_target *t, struct dt_conn *c,
			  char *path, size_t len)
{
	struct dt_stat st;
	int rc, seen, gone;

	snprintf(path, len, DT_SCRATCH_PREFIX "%s.%d.probe.write",
		 dt_short_hostname(), (int)getpid());
	rc = t->ops->mkdir(c, path);
	if (rc == -EEXIST)
		return 0;
	seen = t->ops->lookup(c, path, &st);
	if (rc < 0 && seen == 0) {
		t->ops->rmdir(c, path);
		probe_lied(t, "mkdir", path, rc, "the directory exists");
	}
	if (rc == 0 && seen == -ENOENT)
		probe_lied(t, "mkdir", path, rc, "lookup finds no directory");
	if (rc < 0)
		return rc;
	rc = t->ops->rmdir(c, path);
	gone = t->ops->lookup(c, path, &st);
	if (rc < 0 && gone == -ENOENT)
		probe_lied(t, "rmdir", path, rc, "the directory is gone");
	if (rc == 0 && gone == 0)
		probe_lied(t, "rmdir", path, rc, "the directory is still there");
	return 0;
}

/* --init-target: mark an empty POSIX directory as a dentrace target. */
int dt_init_target(const struct dt_target *tgt)
{
	struct dt_conn *c;
	struct dt_dirlist l = { 0 };
	int rc = tgt->ops->connect(tgt, &c);

	if (rc < 0) {
		fprintf(stderr, "dentrace: connect to %s: %s\n", tgt->spec,
			dt_strerr(rc));
		return DT_EXIT_TARGET;
	}
	rc = tgt->ops->readdir(c, "", &l);
	size_t n = l.n;
	bool marked = false;
	for (size_t i = 0; i < l.n; i++)
		marked |= !strcmp(l.ent[i].name, DT_TARGET_MARKER);
	dt_dirlist_free(&l);
	if (rc < 0 || (n && !marked)) {
		fprintf(stderr, "dentrace: refusing to mark %s: %s\n",
			tgt->spec, rc < 0 ? dt_strerr(rc) : "not empty");
		tgt->ops->disconnect(c);
		return DT_EXIT_TARGET;
	}
	rc = marked ? 0 : tgt->ops->create(c, DT_TARGET_MARKER, true, NULL);
	tgt->ops->disconnect(c);
	if (rc < 0) {
		fprintf(stderr, "dentrace: create marker in %s: %s\n",
			tgt->spec, dt_strerr(rc));
		return DT_EXIT_TARGET;
	}
	printf("%s is a dentrace target\n", tgt->spec);
	return 0;
}

/* Connect once in a bounded child: check the marker, sweep dead runs. */
int dt_prepare_target(const struct dt_target *tgt)
{
	struct dt_capture cap;
	pid_t p;
	int status;

	fflush(stdout);
	fflush(stderr);
	dt_capture_open(&cap);
	p = fork();
	if (p == 0) {
		struct dt_conn *c;
		int rc;

		setpgid(0, 0);
		dt_capture_child(&cap);
		rc = tgt->ops->connect(tgt, &c);
		if (rc < 0) {
			printf("Bail out! cannot reach target %s: %s\n",
			       tgt->spec, dt_strerr(rc));
			_exit(DT_EXIT_TARGET);
		}
		rc = check_target_marker(tgt, c);
		if (rc < 0) {
			printf("Bail out! %s is not a dentrace target (no %s: "
			       "%s); refusing to write there. Mark an empty "
			       "directory with --init-target\n",
			       tgt->spec, DT_TARGET_MARKER, dt_strerr(rc));
			_exit(DT_EXIT_TARGET);
		}
		sweep_dead_scratch(tgt, c);
		char probe[DT_PATH_MAX];

		rc = probe_writable(tgt, c, probe, sizeof(probe));
		if (rc < 0) {
			printf("Bail out! target %s is not writable (mkdir %s: "
			       "%s)\n", tgt->spec, probe, dt_strerr(rc));
			_exit(DT_EXIT_TARGET);
		}
		fflush(stdout);
		tgt->ops->disconnect(c);
		_exit(0);
	}
	if (p < 0) {
		dt_capture_close(&cap);
		return DT_EXIT_BROKEN;
	}
	status = dt_wait_deadline(p, dt_now_ns() + 30ull * 1000000000ull, true);
	dt_capture_close(&cap);
	if (status < 0) {
		struct dt_hang h;
		bool gone = dt_hang_kill(p, "target probe", &h);

		printf("Bail out! target %s did not answer within 30 s%s\n",
		       tgt->spec, gone ? "" : dt_fmt("; the probe (pid %d) "
		       "stays stuck in the kernel", (int)p));
		return DT_EXIT_TARGET;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : DT_EXIT_BROKEN;
}
