/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The settle check's judge (check/settle.h): which names a history makes
 * it read, and views of three hosts after the load, good and bad: a host
 * that keeps a stale negative or positive dentry, one whose lookup and
 * own listing disagree while all hosts' lookups agree, listings that
 * differ; and the text form the hosts exchange, whole and broken.
 */
#include "oracle_ev.h"

#define HOSTS 3

/* three hosts that saw the same: names per plan order, all listed */
static void same_views(const struct dt_settle_plan *p,
		       struct dt_settle_view *v, bool listed)
{
	memset(v, 0, HOSTS * sizeof(*v));
	for (int h = 0; h < HOSTS; h++) {
		v[h].listed = listed;
		for (size_t i = 0; i < p->nnames; i++) {
			/* s/a and s/d/e exist (fileids 7 and 8), the rest not */
			bool there = !strcmp(p->name[i], "s/a") ||
				     !strcmp(p->name[i], "s/d/e");

			v[h].look[i].rc = there ? 0 : -ENOENT;
			v[h].look[i].fileid = !there ? 0 :
					      p->name[i][2] == 'a' ? 7 : 8;
			v[h].look[i].listed = listed ? there : -1;
			v[h].look[i].ctime_ns = !there ? 0 :
						p->name[i][2] == 'a' ? 1000 : 2000;
		}
		for (size_t d = 0; listed && d < p->ndirs; d++)
			v[h].list[d] = (struct dt_settle_list){ 0, 1, 0x1234 + d };
	}
}

static size_t index_of(const struct dt_settle_plan *p, const char *name)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (!strcmp(p->name[i], name))
			return i;
	bail_out("%s not in the plan", name);
}

int main(void)
{
	static struct dt_settle_view v[HOSTS], back;
	struct dt_history h = { 0 };
	struct dt_settle_plan p;
	struct dt_verdict verdict;
	struct dt_dirlist l = { 0 };
	char buf[8192];
	size_t a, b;
	int len;

	/* the plan: names under the scratch dir, changed ones first */
	ev(&h, 0, DT_OP_LOOKUP, "s/b", NULL, -ENOENT, 0, 10, 20);
	ev(&h, 0, DT_OP_CREATE, "s/a", NULL, 0, 7, 10, 20);
	ev(&h, 1, DT_OP_RENAME, "s/c", "s/d/e", 0, 0, 30, 40);
	ev(&h, 1, DT_OP_LOOKUP, "s/a", NULL, 0, 7, 50, 60);
	ev(&h, 1, DT_OP_LOOKUP, "other/x", NULL, -ENOENT, 0, 50, 60);
	ev(&h, 1, DT_OP_READDIR, "s", NULL, 1, 0, 50, 60);
	ok(dt_settle_plan(&h, "s", &p) == 0, "plan made");
	is_int((int)p.nnames, 4, "plan: s/a s/c s/d/e s/b (not s, not other/x)");
	is_int((int)p.touched, 4, "plan: 4 names touched");
	is_int((int)p.changed, 3, "plan: 3 of them changed");
	is_str(p.name[0], "s/a", "plan: changed names first, sorted");
	is_str(p.name[3], "s/b", "plan: the name only looked at last");
	is_int((int)p.ndirs, 2, "plan: directories s and s/d");
	is_str(p.dir[p.dir_of[2]], "s/d", "plan: s/d/e is listed in s/d");
	dt_history_free(&h);
	a = index_of(&p, "s/a");
	b = index_of(&p, "s/b");

	same_views(&p, v, true);
	is_int(dt_settle_judge(&p, v, HOSTS, &verdict, NULL), 0,
	       "good: three hosts, same lookups and listings");
	v[1].look[a].fileid = 0;
	is_int(dt_settle_judge(&p, v, HOSTS, &verdict, NULL), 0,
	       "good: a fileid the backend cannot say (0) agrees");

	/* bad: host 2 kept a negative dentry for a name another host made */
	same_views(&p, v, false);
	v[2].look[a] = (struct dt_settle_look){ -ENOENT, 0, -1, 0 };
	is_int(dt_settle_judge(&p, v, HOSTS, &verdict, NULL), 1,
	       "bad: host 2 still says ENOENT for s/a");
	is_str(verdict.expected, "host 0: lookup(s/a) = 0 fileid 7",
	       "bad: expected names host 0's answer");
	is_str(verdict.observed, "host 2: lookup(s/a) = ENOENT",
	       "bad: observed names host 2's");
	ok(strstr(verdict.what, "host 0 and host 2 on s/a") != NULL,
	   "bad: the message names both hosts and the name: %s", verdict.what);

	/* bad: host 1 still finds a removed name, with its old inode */
	same_views(&p, v, false);
	v[1].look[b] = (struct dt_settle_look){ 0, 5, -1, 0 };
	v[2].look[a].fileid = 6;
	is_int(dt_settle_judge(&p, v, HOSTS, &verdict, NULL), 2,
	       "bad: a stale positive and a stale fileid are two disagreements");

	/*
	 * bad: every host's lookup says ENOENT (a shared stale answer), but
	 * host 1's own listing has the name: only a listed round sees it
	 */
	same_views(&p, v, false);
	for (int k = 0; k < HOSTS; k++)
		v[k].look[a] = (struct dt_settle_look){ -ENOENT, 0, -1, 0 };
	is_int(dt_settle_judge(&p, v, HOSTS, &verdict, NULL), 0,
	       "lookups alone: a stale answer all hosts share passes (the gap)");
	same_views(&p, v, true);
	for (int k = 0; k < HOSTS; k++)
		v[k].look[a] = (struct dt_settle_look){ -ENOENT, 0, 1, 0 };
	ok(dt_settle_judge(&p, v, HOSTS, &verdict, NULL) == HOSTS &&
	   strstr(verdict.what, "its own listing") &&
	   !strcmp(verdict.observed, "host 0: lookup(s/a) = ENOENT"),
	   "bad: each host's lookup says ENOENT, its listing has s/a: %s / %s",
	   verdict.expected, verdict.observed);

	/* bad: host 1 lists the scratch directory differently */
	same_views(&p, v, true);
	v[1].list[0].count = 2;
	ok(dt_settle_judge(&p, v, HOSTS, &verdict, NULL) == 1 &&
	   strstr(verdict.what, "list s differently"),
	   "bad: two listings of s differ: %s", verdict.what);

	/*
	 * One server tick, two changes: host 2 changed s/d/e racing the
	 * create of s/a; only when both carry one ctime is its stale answer
	 * for s/a excused (a client versioning by timestamps cannot tell)
	 */
	is_int(dt_settle_same_tick(&p, "s/a", "s/a", "s/nope"), -ENOENT,
	       "same tick: a name outside the plan is ENOENT");
	is_int(dt_settle_same_tick(&p, "s/a", "s/a", "s/d/e"), 0,
	       "same tick: s/a excused by the ticks of s/a and s/d/e");
	same_views(&p, v, true);
	v[2].look[a] = (struct dt_settle_look){ -ENOENT, 0, 1, 0 };
	{
		size_t excused = 9;

		is_int(dt_settle_judge(&p, v, HOSTS, &verdict, &excused), 2,
		       "bad: stale s/a on host 2, s/d/e changed in another "
		       "tick (ctime 2000, s/a 1000): judged (two views)");
		is_int((int)excused, 0, "... nothing excused");
		v[1].look[index_of(&p, "s/d/e")].ctime_ns = 1000;
		is_int(dt_settle_judge(&p, v, HOSTS, &verdict, &excused), 0,
		       "good: host 1 saw s/d/e and s/a in one tick: excused");
		is_int((int)excused, 1, "... and counted: 1 name excused");
		v[1].look[index_of(&p, "s/d/e")].ctime_ns = 0;
		v[0].look[a].ctime_ns = 0;
		v[1].look[a].ctime_ns = 0;
		is_int(dt_settle_judge(&p, v, HOSTS, &verdict, &excused), 2,
		       "bad: a backend that cannot say the ctime (0) excuses "
		       "nothing");
	}
	p.tick_mark[a][0] = p.tick_mark[a][1] = SIZE_MAX;
	/* a name gone for good (the renamed source) by the others' ticks */
	is_int(dt_settle_same_tick(&p, "s/b", "s/a", "s/d/e"), 0,
	       "same tick: s/b excused by the ticks of s/a and s/d/e");
	same_views(&p, v, false);
	v[1].look[b] = (struct dt_settle_look){ 0, 5, -1, 0 };
	is_int(dt_settle_judge(&p, v, HOSTS, &verdict, NULL), 1,
	       "bad: host 1 still finds s/b, the marks in two ticks: judged");
	for (int k = 0; k < HOSTS; k++)
		v[k].look[index_of(&p, "s/d/e")].ctime_ns = 1000;
	is_int(dt_settle_judge(&p, v, HOSTS, &verdict, NULL), 0,
	       "good: the same with the marks in one tick: excused");
	p.tick_mark[b][0] = p.tick_mark[b][1] = SIZE_MAX;

	/* listings: silly-renamed files are the client's, not compared */
	memset(&back, 0, sizeof(back));
	dt_dirlist_add(&l, "b", 0);
	dt_dirlist_add(&l, "a", 7);
	dt_settle_take_list(&p, 0, 0, &l, &v[0]);
	dt_dirlist_add(&l, ".nfs0000000001", 9);
	dt_settle_take_list(&p, 0, 0, &l, &back);
	ok(v[0].list[0].count == 2 && back.list[0].count == 2 &&
	   v[0].list[0].digest == back.list[0].digest,
	   "listing: .nfs* left out of count and digest");
	ok(back.look[a].listed == 1 && back.look[b].listed == 1 &&
	   back.look[index_of(&p, "s/c")].listed == 0 &&
	   back.look[index_of(&p, "s/d/e")].listed == 0,
	   "listing: names of s marked listed or not (s/d/e is not s's)");
	dt_settle_take_list(&p, 0, -EIO, &l, &back);
	ok(back.list[0].rc == -EIO && back.look[a].listed == -1,
	   "listing: a failed readdir lists nothing");
	dt_dirlist_free(&l);

	/* the text form */
	same_views(&p, v, true);
	v[0].look[b] = (struct dt_settle_look){ -ESTALE, 0, -1, 0 };
	v[0].look[a].ctime_ns = 1796430428358478587ull;
	len = dt_settle_encode(&p, &v[0], buf, sizeof(buf));
	ok(len > 0 && dt_settle_decode(&p, buf, (size_t)len, &back) == 0 &&
	   !memcmp(&back, &v[0], sizeof(back)), "text form: round trip");
	is_int(dt_settle_encode(&p, &v[0], buf, 10), -ENOSPC,
	       "text form: too small a buffer is ENOSPC");
	is_int(dt_settle_decode(&p, buf, (size_t)len / 2, &back), -EBADMSG,
	       "text form: a cut view is EBADMSG");
	is_int(dt_settle_decode(&p, "settle 3 2 1\n", 13, &back), -EBADMSG,
	       "text form: another plan's shape is EBADMSG");
	is_int(dt_settle_decode(&p, "hello", 5, &back), -EBADMSG,
	       "text form: garbage is EBADMSG");
	dt_settle_plan_free(&p);
	return done();
}
