/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hang drill's load (lab/klab drill): worker threads look up new names
 * in one directory until the duration ends.  On a healthy mount it simply
 * passes.  The drill cuts the mount's server off mid-run (a blackhole
 * route in the client guest, hard mount): the lookups then block in the
 * kernel's RPC wait, and the harness's watchdog (--op-timeout) must fail
 * the case naming the stuck op and thread, with the guest kernel's stacks
 * of the stuck threads (/proc/PID/task/TID/stack) as evidence.
 */
#include "kn.h"

static void lookups(struct dt_worker *w)
{
	char name[64];

	for (long i = 0; dt_worker_continue(w, i); i++) {
		snprintf(name, sizeof(name), "n.%d.%ld", w->id, i);
		dt_lookup(w, dt_path(w->run, "%s", name), NULL);
	}
}

static void run_stuck_lookup(struct dt_run *r)
{
	struct dt_mountstats *ms = calloc(1, sizeof(*ms));

	if (!ms)
		dt_broken(r, "out of memory");
	kn_require_nfs(r, ms);
	dt_diag(r, "mount", "%s", kn_cache_opts(ms));
	free(ms);
	dt_run_workers(r, r->threads, lookups, NULL);
}

static const struct dt_case cases[] = {
	{ "stuck_lookup", run_stuck_lookup },
	{ NULL, NULL }
};

static const struct dt_test test = {
	.name = "kn_watchdog",
	.desc = "lookups until the duration ends: the hang drill's load",
	.tags = "kernel-only",
	.needs = DT_NEED_POSIX,
	.threads = 2,
	.duration = 20,
	.timeout = 60,
	.cases = cases,
};

DT_TEST_MAIN(test)
