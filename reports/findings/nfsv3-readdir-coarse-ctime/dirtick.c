// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Two changes of a directory within one clock tick of the server leave its
 * ctime and mtime unchanged, and an NFSv3 client, which has no change
 * attribute and judges its cached listing by the directory's ctime, keeps
 * listing the directory as it was before the second change: for as long
 * as nothing else changes it, whatever its actimeo.
 *
 *   dirtick server DIR ROUNDS
 *       on the exported filesystem itself, no NFS: per round create two
 *       files in DIR back to back and stat DIR after each; counts the
 *       rounds whose second create left DIR's ctime as the first set it,
 *       and prints the smallest ctime step seen (the server's tick).
 *
 *   dirtick pair WMOUNT LMOUNT NAME ROUNDS SECONDS HOLD_MS
 *       the same directory through two NFS mounts of one export that do
 *       not share a cache (nosharecache: two superblocks): WMOUNT/NAME is
 *       the writer's view, LMOUNT/NAME the lister's (lookupcache=none, so
 *       that it finds the new directory at once).  Per round:
 *         create a.I (writer), list (lister: sees a.I), stat (ctime c0),
 *         create b.I (writer), stat (ctime c1), list (lister): b.I?
 *       When b.I is missing, nothing changes the directory for HOLD_MS
 *       while the lister lists it every 20 ms (does it ever see b.I? how
 *       many READDIRs did it send?), then the writer makes one more change
 *       (create and remove fix.I, a tick or more later) and the lister
 *       lists once more.  Rounds stop at ROUNDS or after SECONDS.  The
 *       verdict: a listing still without b.I after HOLD_MS (more than the
 *       lister mount's acdirmax; any value with actimeo=0).
 *
 *   dirtick churn WDIR CTL ROUNDS          (on one client machine)
 *   dirtick watch LDIR CTL ROUNDS HOLD_MS  (on another, at the same time)
 *       the suite's readdir_churn in small: per round the watcher lists
 *       LDIR again and again while the churner creates 20 names in WDIR
 *       (the same directory) back to back; then the watcher, with nothing
 *       changing any more, lists for up to HOLD_MS until it sees all 20;
 *       then the churner removes them.  CTL is a folder both machines see
 *       (the lab's share): the round's "ready", "done" (with the name
 *       count) and "ack" files go through it, not through NFS.
 *
 * The writer and lister in one process make the three steps of a round
 * follow each other within a few RPCs, so many rounds fall within one
 * tick; two client machines get there by chance, as the suite's do.
 * Exit status: 0 the bug did not show, 1 it showed (server: a create left
 * ctime unchanged; pair: a listing missed b.I for HOLD_MS; watch: a
 * listing stayed short for HOLD_MS), 2 usage, 3 setup failed (mkdir,
 * create, list, a peer that did not answer within 120 s).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_NAMES 4096		/* a listing longer than this is a setup error */
#define PROBE_MS 20		/* lister's interval during a hold */
#define SHOW_ROUNDS 5		/* stale rounds printed in full */
#define CHURN_NAMES 20		/* names a churn round creates */
#define PEER_WAIT_S 120		/* a ctl file that long late: setup error */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void die(int status, const char *what, const char *path)
{
	fprintf(stderr, "dirtick: %s %s: %s\n", what, path, strerror(errno));
	exit(status);
}

static void create_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		die(3, "create", path);
	close(fd);
}

static void remove_file(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (unlink(path) && errno != ENOENT)
		die(3, "unlink", path);
}

static struct timespec dir_ctime(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		die(3, "stat", dir);
	return st.st_ctim;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static long long ns_of(struct timespec t)
{
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/*
 * One full listing (opendir: a fresh open, as ls does); is name in it?
 * *count (when given): the names listed, "." and ".." left out.
 */
static bool listed_count(const char *dir, const char *name, long *count)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;
	long n = 0, dots = 0;

	if (!d)
		die(3, "opendir", dir);
	errno = 0;
	while ((de = readdir(d))) {
		if (name && !strcmp(de->d_name, name))
			found = true;
		dots += !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
		if (++n > MAX_NAMES) {
			fprintf(stderr, "dirtick: %s lists over %d names\n",
				dir, MAX_NAMES);
			exit(3);
		}
	}
	if (errno)
		die(3, "readdir", dir);
	closedir(d);
	if (count)
		*count = n - dots;
	return found;
}

static bool listed(const char *dir, const char *name)
{
	return listed_count(dir, name, NULL);
}

/*
 * READDIR + READDIRPLUS calls the client sent for the NFS mount that holds
 * path (/proc/self/mountstats: the block of the longest mount point that
 * is a prefix of path; the first number of a per-op line is its count).
 */
static long readdir_calls(const char *path)
{
	FILE *f = fopen("/proc/self/mountstats", "r");
	char line[1024], mp[PATH_MAX], best[PATH_MAX] = "";
	long calls = -1, n;
	bool in = false;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "device ", 7)) {
			char *on = strstr(line, " mounted on ");
			size_t len;

			in = false;
			if (!on || sscanf(on, " mounted on %4095s", mp) != 1 ||
			    !strstr(line, "fstype nfs"))
				continue;
			len = strlen(mp);
			if (strncmp(path, mp, len) ||
			    (path[len] != '/' && path[len] != 0) ||
			    len <= strlen(best))
				continue;
			strcpy(best, mp);
			in = true;
			calls = 0;
		} else if (in && (sscanf(line, " READDIR: %ld", &n) == 1 ||
				  sscanf(line, " READDIRPLUS: %ld", &n) == 1)) {
			calls += n;
		}
	}
	fclose(f);
	return calls;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: dirtick server DIR ROUNDS\n"
		"       dirtick pair WMOUNT LMOUNT NAME ROUNDS SECONDS HOLD_MS\n"
		"       dirtick churn WDIR CTL ROUNDS\n"
		"       dirtick watch LDIR CTL ROUNDS HOLD_MS\n");
	return 2;
}

static bool number(const char *s, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return !errno && end != s && !*end && *out >= lo && *out <= hi;
}

static int run_server(const char *dir, long rounds)
{
	long same = 0, i;
	long long step = 0, prev = -1;
	char a[64], b[64];

	if (mkdir(dir, 0755))
		die(3, "mkdir", dir);
	for (i = 0; i < rounds; i++) {
		snprintf(a, sizeof(a), "a.%ld", i);
		snprintf(b, sizeof(b), "b.%ld", i);
		create_file(dir, a);
		struct timespec t0 = dir_ctime(dir);
		create_file(dir, b);
		struct timespec t1 = dir_ctime(dir);

		if (same_time(t0, t1))
			same++;
		/* the smallest step between distinct ctimes: the tick */
		for (int k = 0; k < 2; k++) {
			long long t = ns_of(k ? t1 : t0);

			if (prev >= 0 && t > prev && (!step || t - prev < step))
				step = t - prev;
			prev = t;
		}
	}
	for (long j = 0; j < i; j++) {
		snprintf(a, sizeof(a), "a.%ld", j);
		snprintf(b, sizeof(b), "b.%ld", j);
		remove_file(dir, a);
		remove_file(dir, b);
	}
	rmdir(dir);
	printf("server: %ld rounds of two creates back to back in %s; the second "
	       "create left the directory's ctime unchanged in %ld; smallest "
	       "ctime step %.3f ms\n", i, dir, same, step / 1e6);
	printf("expected: 0 unchanged (every change gives a new ctime)\n"
	       "observed: %ld unchanged -> %s\n", same,
	       same ? "BUG SHOWS: two changes within one tick, one timestamp"
		    : "not seen");
	return same ? 1 : 0;
}

struct pair_counts {
	long rounds, first_missing, ctime_same, stale, stale_ctime_same;
	long held_stale, held_readdirs, fresh_after_change;
	double held_ms;
};

/* b.I is missing from the lister's listing: hold still, then change. */
static void hold_then_change(const char *wdir, const char *ldir, long i,
			     long hold_ms, bool ctime_same,
			     struct pair_counts *c)
{
	char b[64], fix[64];
	long calls0 = readdir_calls(ldir), probes = 0;
	double t0 = now(), el;
	bool seen = false;

	snprintf(b, sizeof(b), "b.%ld", i);
	snprintf(fix, sizeof(fix), "fix.%ld", i);
	do {
		nap_ms(PROBE_MS);
		probes++;
		seen = listed(ldir, b);
		el = (now() - t0) * 1000;
	} while (!seen && el < hold_ms);
	long calls = readdir_calls(ldir) - calls0;

	if (!seen) {
		c->held_stale++;
		c->held_ms += el;
	}
	if (calls0 >= 0)
		c->held_readdirs += calls;
	/* one more change, far from the last one's tick */
	create_file(wdir, fix);
	remove_file(wdir, fix);
	bool fresh = listed(ldir, b);

	c->fresh_after_change += fresh;
	if (c->stale <= SHOW_ROUNDS)
		printf("round %ld: %s missing from the listing after its create "
		       "(dir ctime %s across it); %s after %.0f ms of no change "
		       "(%ld listings, %ld READDIR calls); after one more change: "
		       "%s\n", i, b, ctime_same ? "unchanged" : "changed",
		       seen ? "listed" : "still missing", el, probes, calls,
		       fresh ? "listed" : "still missing");
}

static int run_pair(const char *wmount, const char *lmount, const char *name,
		    long rounds, long seconds, long hold_ms)
{
	char wdir[PATH_MAX], ldir[PATH_MAX], a[64], b[64];
	struct pair_counts c = { 0 };
	double end = now() + seconds;
	long i;

	snprintf(wdir, sizeof(wdir), "%s/%s", wmount, name);
	snprintf(ldir, sizeof(ldir), "%s/%s", lmount, name);
	if (mkdir(wdir, 0755))
		die(3, "mkdir", wdir);
	/* the lister must see the directory (lookupcache=none: at once) */
	struct stat st;
	for (int k = 0; stat(ldir, &st); k++) {
		if (k > 500)
			die(3, "the lister's view of", ldir);
		nap_ms(PROBE_MS);
	}
	printf("pair: writer %s, lister %s (READDIR calls so far %ld)\n",
	       wdir, ldir, readdir_calls(ldir));
	for (i = 0; i < rounds && now() < end; i++) {
		snprintf(a, sizeof(a), "a.%ld", i);
		snprintf(b, sizeof(b), "b.%ld", i);
		create_file(wdir, a);
		if (!listed(ldir, a))
			c.first_missing++;	/* a.I's change may share a tick too */
		struct timespec c0 = dir_ctime(ldir);
		create_file(wdir, b);
		struct timespec c1 = dir_ctime(ldir);
		bool same = same_time(c0, c1);

		c.ctime_same += same;
		if (!listed(ldir, b)) {
			c.stale++;
			c.stale_ctime_same += same;
			hold_then_change(wdir, ldir, i, hold_ms, same, &c);
		}
	}
	c.rounds = i;
	for (long j = 0; j < i; j++) {
		snprintf(a, sizeof(a), "a.%ld", j);
		snprintf(b, sizeof(b), "b.%ld", j);
		remove_file(wdir, a);
		remove_file(wdir, b);
	}
	if (rmdir(wdir))
		fprintf(stderr, "dirtick: rmdir %s: %s\n", wdir, strerror(errno));

	printf("rounds %ld: ctime unchanged across the create of b.I %ld; "
	       "listing without b.I right after its create %ld (ctime unchanged "
	       "in %ld); a.I missing at its first listing %ld\n",
	       c.rounds, c.ctime_same, c.stale, c.stale_ctime_same,
	       c.first_missing);
	if (c.stale)
		printf("of the %ld stale listings: still stale after %ld ms with "
		       "no change %ld (mean %.0f ms listed stale); READDIR calls "
		       "during those holds %ld; listed after one more change "
		       "%ld\n", c.stale, hold_ms, c.held_stale,
		       c.held_stale ? c.held_ms / c.held_stale : 0.0,
		       c.held_readdirs, c.fresh_after_change);
	/*
	 * The verdict is the hold: a listing without b.I right after its
	 * create is allowed where attributes are cached (acdirmin), one still
	 * without it after HOLD_MS (set it above the mount's acdirmax) is not.
	 */
	printf("expected: no listing without b.I after %ld ms with nothing "
	       "changing (0 held stale)\nobserved: %ld held stale -> %s\n",
	       hold_ms, c.held_stale,
	       c.held_stale ? "BUG SHOWS: the listing stays stale until the "
			      "directory changes again"
			    : "not seen");
	return c.held_stale ? 1 : 0;
}

/* ---- two machines: churn and watch, meeting through CTL ---------------- */

static void ctl_put(const char *ctl, const char *what, long round, long val)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%ld", ctl, what, round);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%ld\n", val) < 0 || fclose(f) || rename(tmp, path))
		die(3, "write", path);
}

/* Poll for the peer's ctl file (up to PEER_WAIT_S); its number. */
static long ctl_wait(const char *ctl, const char *what, long round)
{
	char path[PATH_MAX];
	double end = now() + PEER_WAIT_S;
	long val;

	snprintf(path, sizeof(path), "%s/%s.%ld", ctl, what, round);
	for (;;) {
		FILE *f = fopen(path, "r");

		if (f) {
			int ok = fscanf(f, "%ld", &val) == 1;

			fclose(f);
			if (ok)
				return val;
		}
		if (now() > end) {
			fprintf(stderr, "dirtick: no %s within %d s\n", path,
				PEER_WAIT_S);
			exit(3);
		}
		nap_ms(5);
	}
}

static bool ctl_there(const char *ctl, const char *what, long round)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s.%ld", ctl, what, round);
	return access(path, F_OK) == 0;
}

static int run_churn(const char *wdir, const char *ctl, long rounds)
{
	char name[64];

	if (mkdir(wdir, 0755))
		die(3, "mkdir", wdir);
	ctl_put(ctl, "made", 0, 0);
	for (long r = 0; r < rounds; r++) {
		ctl_wait(ctl, "ready", r);
		for (int k = 0; k < CHURN_NAMES; k++) {
			snprintf(name, sizeof(name), "c.%ld.%d", r, k);
			create_file(wdir, name);
		}
		ctl_put(ctl, "done", r, CHURN_NAMES);
		ctl_wait(ctl, "ack", r);	/* no change while it holds */
		/* a small directory: one READDIR lists it, quickly */
		for (int k = 0; k < CHURN_NAMES; k++) {
			snprintf(name, sizeof(name), "c.%ld.%d", r, k);
			remove_file(wdir, name);
		}
	}
	rmdir(wdir);
	printf("churn: %ld rounds of %d creates in %s\n", rounds, CHURN_NAMES,
	       wdir);
	return 0;
}

static int run_watch(const char *ldir, const char *ctl, long rounds,
		     long hold_ms)
{
	long stale = 0, listings = 0, readdirs = 0, worst = 0;

	ctl_wait(ctl, "made", 0);
	for (long r = 0; r < rounds; r++) {
		long n = 0, want, calls0;
		double t0, el;

		ctl_put(ctl, "ready", r, 0);
		while (!ctl_there(ctl, "done", r)) {
			listed_count(ldir, NULL, &n);
			listings++;
		}
		want = ctl_wait(ctl, "done", r);
		calls0 = readdir_calls(ldir);
		t0 = now();
		for (;;) {
			listed_count(ldir, NULL, &n);
			el = (now() - t0) * 1000;
			if (n == want || el >= hold_ms)
				break;
			nap_ms(PROBE_MS);
		}
		if (n != want) {
			long calls = readdir_calls(ldir) - calls0;

			stale++;
			readdirs += calls;
			if (want - n > worst)
				worst = want - n;
			if (stale <= SHOW_ROUNDS)
				printf("round %ld: %ld of %ld names listed, still "
				       "after %.0f ms with no change (%ld READDIR "
				       "calls meanwhile)\n", r, n, want, el,
				       calls);
		}
		ctl_put(ctl, "ack", r, 0);
	}
	printf("watch: %ld rounds, %ld listings during the churn; rounds whose "
	       "listing stayed short for %ld ms after the churn: %ld (at most "
	       "%ld names missing; READDIR calls in those holds %ld)\n",
	       rounds, listings, hold_ms, stale, worst, readdirs);
	printf("expected: 0 rounds stale after the churn\nobserved: %ld -> %s\n",
	       stale, stale ? "BUG SHOWS: a listing stale with nothing changing"
			    : "not seen");
	return stale ? 1 : 0;
}

int main(int argc, char **argv)
{
	long rounds, seconds, hold_ms;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "server") &&
	    number(argv[3], 1, 100000, &rounds))
		return run_server(argv[2], rounds);
	if (argc == 8 && !strcmp(argv[1], "pair") &&
	    number(argv[5], 1, 100000, &rounds) &&
	    number(argv[6], 1, 600, &seconds) &&
	    number(argv[7], 0, 600000, &hold_ms))
		return run_pair(argv[2], argv[3], argv[4], rounds, seconds,
				hold_ms);
	if (argc == 5 && !strcmp(argv[1], "churn") &&
	    number(argv[4], 1, 10000, &rounds))
		return run_churn(argv[2], argv[3], rounds);
	if (argc == 6 && !strcmp(argv[1], "watch") &&
	    number(argv[4], 1, 10000, &rounds) &&
	    number(argv[5], 0, 600000, &hold_ms))
		return run_watch(argv[2], argv[3], rounds, hold_ms);
	return usage();
}
