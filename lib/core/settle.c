/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The settle check of every multi-host case (check/settle.h says what it
 * judges and why agreement is the test): once the case's load is over on
 * every host, each host reads the names the case touched, the hosts
 * exchange what they saw, and the views must agree once the mount's
 * staleness bound has passed.
 *
 * Waiting is polling with a deadline: rounds of lookups, each exchanged
 * and judged on every host alike (the same views give the same verdict,
 * so the hosts leave the loop together), until the views agree or every
 * host's deadline (quiet + stale bound + clock slack + grace) has passed.
 * Only then do the directories get listed, once: on an NFS client a
 * READDIRPLUS reply replaces cached dentries of the names it lists, so an
 * early listing would mend the very stale dentry the check looks for
 * (on a correct client it would be mended by the bound anyway).  The
 * verdict is strict only on views read after every host's deadline; an
 * earlier disagreement is only a reason to poll again.
 *
 * Calls: multihost.c (barriers, agreement, posting), report.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coord/coord.h"
#include "check/settle.h"
#include "core/internal.h"

/* past the bound: the coordinator's round trips and a loaded guest */
#define SETTLE_GRACE_NS		(1000 * 1000 * 1000ull)
#define SETTLE_POLL_NS		(250 * 1000 * 1000ull)
/* rounds are bounded by the deadline; this only guards a stuck clock */
#define SETTLE_MAX_ROUNDS	1000
#define SETTLE_VALUE_MAX	(64 * 1024)

struct fetch {
	const struct dt_settle_plan *plan;
	struct dt_settle_view *views;
	int nhosts, got, err;
};

static int fetch_cb(void *arg, int host, const void *buf, size_t len)
{
	struct fetch *f = arg;
	int rc;

	if (host < 0 || host >= f->nhosts)
		return f->err = -EBADMSG;
	rc = dt_settle_decode(f->plan, buf, len, &f->views[host]);
	if (rc < 0)
		return f->err = rc;
	f->got++;
	return 0;
}

/* a digest of the plan's names: equal on hosts that hold one history */
static uint64_t plan_digest(const struct dt_settle_plan *p)
{
	uint64_t h = DT_SETTLE_FNV_SEED ^ p->nnames;

	for (size_t i = 0; i < p->nnames; i++)
		h = dt_settle_fnv(h, p->name[i]);
	return h;
}

struct same_plan {
	const char *mine;
	int hosts;
	bool all;
};

static int same_plan_cb(void *arg, int host, const void *buf, size_t len)
{
	struct same_plan *s = arg;

	(void)host;
	s->hosts++;
	if (len != strlen(s->mine) || memcmp(buf, s->mine, len))
		s->all = false;
	return 0;
}

/*
 * Post the plan's digest, meet at "quiet" (every host's load is over),
 * and say whether every host made the same plan: a test whose hosts keep
 * different histories (no dt_run_workers) gives nothing to compare.
 */
static bool quiet_same_plan(struct dt_run *r, const struct dt_settle_plan *p)
{
	char mine[32];
	struct same_plan s = { .mine = mine, .all = true };
	int rc;

	snprintf(mine, sizeof(mine), "%016llx",
		 (unsigned long long)plan_digest(p));
	dt_post(r, "settle-plan", mine);
	dt_mh_barrier(r, "quiet");
	rc = dt_coord_fetch(dt_coord_handle,
			    dt_fmt("%s:settle-plan", r->tcase->name),
			    same_plan_cb, &s);
	if (rc < 0)
		dt_broken(r, "settle: fetch the hosts' plans: %s",
			  dt_coord_error(dt_coord_handle));
	return s.all && s.hosts == r->nhosts;
}

/* this host's lookups of every name: a view without listings */
static void read_lookups(struct dt_run *r, const struct dt_settle_plan *p,
			 bool lie, struct dt_settle_view *v)
{
	const struct dt_backend_ops *ops = r->target->ops;

	memset(v, 0, sizeof(*v));
	for (size_t i = 0; i < p->nnames; i++) {
		struct dt_stat st = { 0 };

		dt_step_begin("settle lookup", p->name[i]);
		v->look[i].rc = ops->lookup(r->conn, p->name[i], &st);
		dt_step_end();
		/* progress: a case out of time in a long settle (a 50000-entry
		 * directory listed at load 30) is slow, not hung */
		dt_count_progress();
		v->look[i].fileid = v->look[i].rc ? 0 : st.fileid;
		v->look[i].ctime_ns = v->look[i].rc ? 0 : st.ctime_ns;
		v->look[i].listed = -1;
	}
	/* --settle-lie: a client that kept the other answer for one name */
	if (lie && p->nnames) {
		v->look[0].fileid = v->look[0].rc ? 1 : 0;
		v->look[0].rc = v->look[0].rc ? 0 : -ENOENT;
	}
}

/*
 * The listings, added to the lookups v holds: read after them, so a
 * listing cannot mend a stale dentry before its lookup was read.
 */
static void read_listings(struct dt_run *r, const struct dt_settle_plan *p,
			  struct dt_settle_view *v)
{
	const struct dt_backend_ops *ops = r->target->ops;

	v->listed = true;
	for (size_t i = 0; i < p->nnames; i++)
		v->look[i].listed = -1;
	memset(v->list, 0, sizeof(v->list));
	for (size_t d = 0; d < p->ndirs; d++) {
		struct dt_dirlist l = { 0 };
		int rc;

		dt_step_begin("settle readdir", p->dir[d]);
		rc = ops->readdir(r->conn, p->dir[d], &l);
		dt_step_end();
		dt_count_progress();
		dt_settle_take_list(p, d, rc < 0 ? rc : 0, &l, v);
		dt_dirlist_free(&l);
	}
}

/* post this host's view, meet the others, fetch every host's */
static void exchange(struct dt_run *r, const struct dt_settle_plan *p,
		     const struct dt_settle_view *mine,
		     struct dt_settle_view *views, char *buf)
{
	struct fetch f = { .plan = p, .views = views, .nhosts = r->nhosts };
	int len = dt_settle_encode(p, mine, buf, SETTLE_VALUE_MAX), rc;

	if (len < 0)
		dt_broken(r, "settle: the view of %zu names does not fit %d "
			  "bytes", p->nnames, SETTLE_VALUE_MAX);
	buf[len] = 0;
	dt_post(r, "settle", buf);
	dt_mh_barrier(r, "settle");
	rc = dt_coord_fetch(dt_coord_handle,
			    dt_fmt("%s:settle", r->tcase->name), fetch_cb, &f);
	if (rc < 0 || f.err || f.got != r->nhosts)
		dt_broken(r, "settle: fetch the hosts' views: %s (%d of %d)",
			  rc < 0 ? dt_coord_error(dt_coord_handle) :
			  f.err ? dt_strerr(f.err) : "short", f.got, r->nhosts);
}

static void wait_poll(uint64_t deadline_ns)
{
	uint64_t now = dt_now_ns(), ns = SETTLE_POLL_NS;
	struct timespec ts;

	if (deadline_ns > now && deadline_ns - now < ns)
		ns = deadline_ns - now;
	ts.tv_sec = (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	nanosleep(&ts, NULL);
}

void dt_same_tick(struct dt_run *r, const char *name, const char *mark1,
		  const char *mark2)
{
	const char *in[3] = { name, mark1, mark2 };
	char **p = realloc(r->tick_names,
			   (r->ntick_names + 3) * sizeof(*r->tick_names));

	if (!p)
		dt_broken(r, "settle: out of memory");
	r->tick_names = p;
	for (int i = 0; i < 3; i++)
		if (!(p[r->ntick_names++] = strdup(in[i])))
			dt_broken(r, "settle: out of memory");
}

/*
 * Does this host's client tell a directory's versions apart by the
 * server's timestamps alone?  NFSv3 does (wcc data and attributes carry
 * times only).  NFSv4 has a change attribute, which a server keeps as a
 * counter where the filesystem has one (knfsd over ext4, which keeps
 * i_version always since Linux 6.1's ext4): one tick hides no change
 * there, so dt_same_tick excuses nothing on NFSv4.
 */
static bool versions_by_time(const struct dt_run *r)
{
	struct dt_mount_info m;

	if (r->target->nfs_version)
		return r->target->nfs_version == 3;
	return dt_mount_of(r->target->root, &m) == 0 &&
	       !strcmp(m.fstype, "nfs") && strstr(m.opts, "vers=3");
}

void dt_settle(struct dt_run *r, bool off, bool lie)
{
	struct dt_settle_plan plan;
	struct dt_settle_view mine, *views;
	struct dt_verdict v = { 0 };
	uint64_t quiet, deadline, wait_ns, budget_ns;
	bool list = false, late = false, past;
	char *buf;
	int rounds = 0, rc;
	size_t excused = 0;

	if (!dt_mh_active() || r->nhosts < 2 || off)
		return;
	/*
	 * A bound the case cannot wait out (the defaults: acdirmax 60 s + 1 s)
	 * leaves correct clients free to disagree for longer than the case
	 * may run: not judged, and said so (the same on every host: the
	 * hosts' mounts share the set's options).
	 */
	wait_ns = r->stale_ns + r->clock_slack_ns + SETTLE_GRACE_NS;
	budget_ns = (uint64_t)r->timeout_s * 1000000000ull / 3;
	if (wait_ns > budget_ns) {
		dt_diag(r, "settle", "not judged: the stale bound %.0f ms + "
			"slack is longer than a third of the case's %d s "
			"timeout", (double)r->stale_ns / 1e6, r->timeout_s);
		return;
	}
	/* the same plan on every host: they all hold the merged history */
	rc = dt_settle_plan(&r->hist, r->scratch, &plan);
	if (rc < 0)
		dt_broken(r, "settle: %s", dt_strerr(rc));
	/* names the load never touched excuse nothing */
	if (r->ntick_names && versions_by_time(r))
		for (size_t i = 0; i + 2 < r->ntick_names; i += 3)
			(void)dt_settle_same_tick(&plan, r->tick_names[i],
						  r->tick_names[i + 1],
						  r->tick_names[i + 2]);
	views = calloc((size_t)r->nhosts, sizeof(*views));
	buf = malloc(SETTLE_VALUE_MAX + 1);
	if (!views || !buf)
		dt_broken(r, "settle: out of memory");
	/* every host's load is over: from here nobody changes the names */
	if (!quiet_same_plan(r, &plan) || !plan.nnames) {
		dt_diag(r, "settle", "not judged: %s", plan.nnames ?
			"the hosts' histories name different names" :
			"the case touched no names");
		dt_settle_plan_free(&plan);
		free(views);
		free(buf);
		return;
	}
	quiet = dt_now_ns();
	deadline = quiet + wait_ns;
	for (;;) {
		/*
		 * A listing round lists only: its lookups are the round's
		 * before, which agreed (or were past the deadline), and
		 * nothing changes a name after "quiet"; a lookup of 384 names
		 * costs seconds on a loaded guest.  Strict only on views
		 * whose lookups were read after every host's deadline.
		 */
		if (list) {
			read_listings(r, &plan, &mine);
		} else {
			late = dt_now_ns() >= deadline;
			read_lookups(r, &plan, lie, &mine);
		}
		rounds++;
		exchange(r, &plan, &mine, views, buf);
		dt_settle_judge(&plan, views, r->nhosts, &v, &excused);
		/* the same on every host: all views and all clocks' answers */
		past = dt_mh_agree(r, late);
		if (list && (!v.violations || past))
			break;
		if (rounds >= SETTLE_MAX_ROUNDS)
			break;
		/* the lookups agree (or time is up): list, and judge it all */
		if (!v.violations || past) {
			list = true;
			continue;
		}
		list = false;
		wait_poll(deadline);
	}
	dt_diag(r, "settle", "%zu names (%zu touched, %zu changed), %zu "
		"directories, %d host(s): %s after %d round(s), %.3f s "
		"(deadline: the stale bound %.0f ms + slack)", plan.nnames,
		plan.touched, plan.changed, plan.ndirs, r->nhosts,
		v.violations ? "disagree" : "agree", rounds,
		(double)(dt_now_ns() - quiet) / 1e9, (double)r->stale_ns / 1e6);
	if (excused)
		dt_diag(r, "settle_excused", "%zu name(s) whose disagreement "
			"one server clock tick explains: the name changed in "
			"the tick of another host's racing change of its "
			"directory, which that host's client cannot tell from "
			"its own (dt_same_tick)", excused);
	if (v.violations)
		dt_fail_verdict(r, "settle: every host's view after the load "
				"and the stale bound", &v);
	dt_settle_plan_free(&plan);
	free(views);
	free(buf);
}
