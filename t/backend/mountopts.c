/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/backend/mountopts.c: the mount holding a path, from mountinfo lines
 * as Linux 6.1 writes them (captured from the kernel lab's client guests
 * and this host), and the history checker's staleness bound an NFS
 * mount's options allow.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dentrace.h"
#include "tap.h"

static const char mountinfo[] =
"21 1 0:20 / / ro,relatime - hostfs none rw,/\n"
"22 21 0:21 / /tmp rw,relatime - tmpfs tmp rw\n"
"40 22 0:45 / /mnt/dt/v4 rw,relatime shared:1 - nfs4 10.98.0.1:/ "
	"rw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,"
	"timeo=600,retrans=2,sec=sys,clientaddr=10.98.0.11,local_lock=none,"
	"addr=10.98.0.1\n"
"41 22 0:46 / /mnt/dt/v4s rw,relatime - nfs4 10.98.0.1:/ rw,vers=4.2,"
	"rsize=1048576,wsize=1048576,namlen=255,acregmin=0,acregmax=0,"
	"acdirmin=0,acdirmax=0,hard,proto=tcp,timeo=600,retrans=2,sec=sys,"
	"lookupcache=none,local_lock=none,addr=10.98.0.1\n"
"42 22 0:47 / /mnt/dt/v3ac rw,relatime - nfs 10.98.0.1:/export rw,vers=3,"
	"rsize=1048576,acdirmin=2,acdirmax=4,hard,nolock,proto=tcp\n"
"43 22 0:48 / /mnt/dt/v3noac rw,sync,relatime - nfs 10.98.0.1:/export "
	"rw,sync,vers=3,noac,hard,nolock,proto=tcp\n"
"44 22 0:49 / /mnt/dt/with\\040blank rw - nfs 10.98.0.1:/export rw,vers=3\n"
"45 22 0:50 / /mnt/dt/bad rw - nfs 10.98.0.1:/export rw,vers=3,acdirmax=x\n"
"46 22 0:51 / /mnt/dt/v4 rw - tmpfs over rw\n"
"47 22 0:52 / /mnt/dt/huge rw - nfs 10.98.0.1:/export rw,acdirmax=7200\n";

static int find(const char *path, struct dt_mount_info *m)
{
	FILE *f = fmemopen((void *)mountinfo, sizeof(mountinfo) - 1, "r");
	int rc = dt_mountinfo_find(f, path, m);

	fclose(f);
	return rc;
}

/* the bound for path, or -errno */
static long long bound(const char *path, struct dt_stale_bound *b)
{
	struct dt_mount_info m;
	int rc = find(path, &m);

	if (!rc)
		rc = dt_stale_bound(&m, b);
	return rc < 0 ? rc : (long long)b->ms;
}

int main(void)
{
	struct dt_mount_info m;
	struct dt_stale_bound b;

	plan(14);
	ok(!find("/tmp/mnt/x", &m) && !strcmp(m.mnt, "/tmp") &&
	       !strcmp(m.fstype, "tmpfs"), "a path below /tmp is on the tmpfs");
	ok(!find("/mnt/dt/v4s/dentrace/a", &m) && !strcmp(m.mnt, "/mnt/dt/v4s"),
	       "the longest mount point wins, not the prefix /mnt/dt/v4");
	ok(!find("/mnt/dt/v4", &m) && !strcmp(m.fstype, "tmpfs"),
	       "of two mounts on one point, the later (on top) counts");
	ok(!find("/mnt/dt/with blank/x", &m) && !strcmp(m.fstype, "nfs"),
	       "an escaped blank (\\040) in a mount point is read back");
	ok(bound("/tmp/x", &b) == 0 && !b.nfs,
	       "a local filesystem: bound 0 (%s)", b.why);
	ok(bound("/mnt/dt/v4s/x", &b) == 0 && b.nfs,
	       "actimeo=0,lookupcache=none: bound 0 (%s)", b.why);
	ok(bound("/mnt/dt/v3noac/x", &b) == 0, "noac: bound 0");
	ok(bound("/mnt/dt/v3ac/x", &b) == 5000,
	       "acdirmax=4: 4 s + 1 s slack (%s)", b.why);
	struct dt_mount_info d = { .mnt = "/mnt/d", .fstype = "nfs4",
				   .source = "s:/", .opts = "rw,vers=4.2" };
	ok(!dt_stale_bound(&d, &b) && b.ms == 61000 && !b.unbounded,
	       "defaults (acdirmax 60 s, not printed by the kernel): 61 s");
	ok(bound("/mnt/dt/huge/x", &b) == 7201000 && b.unbounded,
	       "acdirmax=7200: said to be longer than any run");
	ok(bound("/mnt/dt/bad/x", &b) == -EINVAL,
	       "a malformed acdirmax is refused, not read as a default");
	ok(bound("/mnt/dt/v4", &b) == 0 && !b.nfs,
	       "the tmpfs mounted over an NFS mount point is what counts");
	ok(find("relative/path", &m) == -ENOENT,
	       "a path no mount point covers: -ENOENT");
	ok(!dt_mount_of("/proc/self", &m) && !strcmp(m.fstype, "proc"),
	       "this machine: /proc/self is on proc (%s)", m.fstype);
	return done();
}
