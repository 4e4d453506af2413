/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/stats/mountstats.c: the /proc/self/mountstats parser, fed a sample captured
 * in a tier-2 client guest (Debian 6.1 kernel: `lab/klab exec c1 cat
 * /proc/self/mountstats` after one stat on the v4 mount), plus hand-made
 * blocks for what the capture lacks: an escaped mount point, two mounts
 * stacked on one point, a statvers=1.0 op line (no errors column), and
 * malformed input.
 */
#include <errno.h>
#include <stdlib.h>

#include "stats/mountstats.h"
#include "tap.h"

/* captured: three non-NFS mounts, v3 (defaults), v4.2, v4.2 lookupcache=pos */
static const char captured[] =
	"device ovl mounted on / with fstype overlay\n"
	"device share mounted on /dtshare with fstype 9p\n"
	"device proc mounted on /proc with fstype proc\n"
	"device 10.77.0.1:/export mounted on /mnt/dt/v3 with fstype nfs statvers=1.1\n"
	"\topts:\trw,vers=3,rsize=32768,wsize=32768,namlen=255,acregmin=3,acregmax=60,acdirmin=30,acdirmax=60,hard,nolock,proto=tcp,timeo=600,retrans=2,sec=sys,mountaddr=10.77.0.1,mountvers=3,mountport=42512,mountproto=udp,local_lock=all\n"
	"\tage:\t15\n"
	"\tcaps:\tcaps=0xf,wtmult=4096,dtsize=32768,bsize=0,namlen=255\n"
	"\tsec:\tflavor=1,pseudoflavor=1\n"
	"\tevents:\t0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 \n"
	"\tbytes:\t0 0 0 0 0 0 0 0 \n"
	"\tRPC iostats version: 1.1  p/v: 100003/3 (nfs)\n"
	"\txprt:\ttcp 925 1 2 0 9 20 20 0 20 0 2 0 0\n"
	"\tper-op statistics\n"
	"\t        NULL: 1 1 0 44 24 49 9 58 0\n"
	"\t     GETATTR: 2 2 0 160 224 0 3 3 0\n"
	"\t     SETATTR: 0 0 0 0 0 0 0 0 0\n"
	"\t      LOOKUP: 0 0 0 0 0 0 0 0 0\n"
	"\t      ACCESS: 0 0 0 0 0 0 0 0 0\n"
	"\t    READLINK: 0 0 0 0 0 0 0 0 0\n"
	"\t        READ: 0 0 0 0 0 0 0 0 0\n"
	"\t       WRITE: 0 0 0 0 0 0 0 0 0\n"
	"\t      CREATE: 0 0 0 0 0 0 0 0 0\n"
	"\t       MKDIR: 0 0 0 0 0 0 0 0 0\n"
	"\t     SYMLINK: 0 0 0 0 0 0 0 0 0\n"
	"\t       MKNOD: 0 0 0 0 0 0 0 0 0\n"
	"\t      REMOVE: 0 0 0 0 0 0 0 0 0\n"
	"\t       RMDIR: 0 0 0 0 0 0 0 0 0\n"
	"\t      RENAME: 0 0 0 0 0 0 0 0 0\n"
	"\t        LINK: 0 0 0 0 0 0 0 0 0\n"
	"\t     READDIR: 0 0 0 0 0 0 0 0 0\n"
	"\t READDIRPLUS: 0 0 0 0 0 0 0 0 0\n"
	"\t      FSSTAT: 0 0 0 0 0 0 0 0 0\n"
	"\t      FSINFO: 2 2 0 160 160 0 23 23 0\n"
	"\t    PATHCONF: 1 1 0 80 56 0 2 2 0\n"
	"\t      COMMIT: 0 0 0 0 0 0 0 0 0\n"
	"\n"
	"device 10.77.0.1:/ mounted on /mnt/dt/v4 with fstype nfs4 statvers=1.1\n"
	"\topts:\trw,vers=4.2,rsize=32768,wsize=32768,namlen=255,acregmin=3,acregmax=60,acdirmin=30,acdirmax=60,hard,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=10.77.0.11,local_lock=none\n"
	"\tage:\t12\n"
	"\timpl_id:\tname='',domain='',date='0,0'\n"
	"\tcaps:\tcaps=0xeffbc0bf,wtmult=512,dtsize=32768,bsize=0,namlen=255\n"
	"\tnfsv4:\tbm0=0xfdffbfff,bm1=0x40fdbe3e,bm2=0x60803,acl=0x3,sessions,pnfs=not configured,lease_time=10,lease_expired=0\n"
	"\tsec:\tflavor=1,pseudoflavor=1\n"
	"\tevents:\t0 0 0 0 0 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 \n"
	"\tbytes:\t0 0 0 0 0 0 0 0 \n"
	"\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n"
	"\txprt:\ttcp 0 0 2 0 0 45 45 0 45 0 2 0 0\n"
	"\tper-op statistics\n"
	"\t        NULL: 1 1 0 44 24 44 14 61 0\n"
	"\t        READ: 0 0 0 0 0 0 0 0 0\n"
	"\t       WRITE: 0 0 0 0 0 0 0 0 0\n"
	"\t      COMMIT: 0 0 0 0 0 0 0 0 0\n"
	"\t        OPEN: 0 0 0 0 0 0 0 0 0\n"
	"\tOPEN_CONFIRM: 0 0 0 0 0 0 0 0 0\n"
	"\t OPEN_NOATTR: 0 0 0 0 0 0 0 0 0\n"
	"\tOPEN_DOWNGRADE: 0 0 0 0 0 0 0 0 0\n"
	"\t       CLOSE: 0 0 0 0 0 0 0 0 0\n"
	"\t     SETATTR: 0 0 0 0 0 0 0 0 0\n"
	"\t      FSINFO: 2 2 0 304 336 0 17 17 0\n"
	"\t       RENEW: 0 0 0 0 0 0 0 0 0\n"
	"\t SETCLIENTID: 0 0 0 0 0 0 0 0 0\n"
	"\tSETCLIENTID_CONFIRM: 0 0 0 0 0 0 0 0 0\n"
	"\t        LOCK: 0 0 0 0 0 0 0 0 0\n"
	"\t       LOCKT: 0 0 0 0 0 0 0 0 0\n"
	"\t       LOCKU: 0 0 0 0 0 0 0 0 0\n"
	"\t      ACCESS: 1 1 0 156 168 0 18 19 0\n"
	"\t     GETATTR: 1 1 0 148 240 0 4 5 0\n"
	"\t      LOOKUP: 1 1 0 176 280 0 11 12 0\n"
	"\t LOOKUP_ROOT: 1 1 0 140 260 0 8 9 0\n"
	"\t      REMOVE: 0 0 0 0 0 0 0 0 0\n"
	"\t      RENAME: 0 0 0 0 0 0 0 0 0\n"
	"\t        LINK: 0 0 0 0 0 0 0 0 0\n"
	"\t     SYMLINK: 0 0 0 0 0 0 0 0 0\n"
	"\t      CREATE: 0 0 0 0 0 0 0 0 0\n"
	"\t    PATHCONF: 1 1 0 144 116 0 11 12 0\n"
	"\t      STATFS: 0 0 0 0 0 0 0 0 0\n"
	"\t    READLINK: 0 0 0 0 0 0 0 0 0\n"
	"\t     READDIR: 0 0 0 0 0 0 0 0 0\n"
	"\t SERVER_CAPS: 3 3 0 456 516 0 22 22 0\n"
	"\t DELEGRETURN: 0 0 0 0 0 0 0 0 0\n"
	"\t      GETACL: 0 0 0 0 0 0 0 0 0\n"
	"\t      SETACL: 0 0 0 0 0 0 0 0 0\n"
	"\tFS_LOCATIONS: 0 0 0 0 0 0 0 0 0\n"
	"\tRELEASE_LOCKOWNER: 0 0 0 0 0 0 0 0 0\n"
	"\t     SECINFO: 0 0 0 0 0 0 0 0 0\n"
	"\tFSID_PRESENT: 0 0 0 0 0 0 0 0 0\n"
	"\t EXCHANGE_ID: 2 2 0 504 184 1 79 81 0\n"
	"\tCREATE_SESSION: 1 1 0 192 124 0 38 39 0\n"
	"\tDESTROY_SESSION: 0 0 0 0 0 0 0 0 0\n"
	"\t    SEQUENCE: 1 1 0 116 80 3 51 56 0\n"
	"\tGET_LEASE_TIME: 0 0 0 0 0 0 0 0 0\n"
	"\tRECLAIM_COMPLETE: 1 1 0 124 88 0 431 431 0\n"
	"\t   LAYOUTGET: 0 0 0 0 0 0 0 0 0\n"
	"\tGETDEVICEINFO: 0 0 0 0 0 0 0 0 0\n"
	"\tLAYOUTCOMMIT: 0 0 0 0 0 0 0 0 0\n"
	"\tLAYOUTRETURN: 0 0 0 0 0 0 0 0 0\n"
	"\tSECINFO_NO_NAME: 1 1 0 128 104 432 4 437 0\n"
	"\tTEST_STATEID: 0 0 0 0 0 0 0 0 0\n"
	"\tFREE_STATEID: 0 0 0 0 0 0 0 0 0\n"
	"\tGETDEVICELIST: 0 0 0 0 0 0 0 0 0\n"
	"\tBIND_CONN_TO_SESSION: 0 0 0 0 0 0 0 0 0\n"
	"\tDESTROY_CLIENTID: 0 0 0 0 0 0 0 0 0\n"
	"\t        SEEK: 0 0 0 0 0 0 0 0 0\n"
	"\t    ALLOCATE: 0 0 0 0 0 0 0 0 0\n"
	"\t  DEALLOCATE: 0 0 0 0 0 0 0 0 0\n"
	"\t LAYOUTSTATS: 0 0 0 0 0 0 0 0 0\n"
	"\t       CLONE: 0 0 0 0 0 0 0 0 0\n"
	"\t        COPY: 0 0 0 0 0 0 0 0 0\n"
	"\tOFFLOAD_CANCEL: 0 0 0 0 0 0 0 0 0\n"
	"\t     LOOKUPP: 0 0 0 0 0 0 0 0 0\n"
	"\t LAYOUTERROR: 0 0 0 0 0 0 0 0 0\n"
	"\t COPY_NOTIFY: 0 0 0 0 0 0 0 0 0\n"
	"\t    GETXATTR: 0 0 0 0 0 0 0 0 0\n"
	"\t    SETXATTR: 0 0 0 0 0 0 0 0 0\n"
	"\t  LISTXATTRS: 0 0 0 0 0 0 0 0 0\n"
	"\t REMOVEXATTR: 0 0 0 0 0 0 0 0 0\n"
	"\t   READ_PLUS: 0 0 0 0 0 0 0 0 0\n"
	"\n"
	"device 10.77.0.1:/ mounted on /mnt/dt/v4pos with fstype nfs4 statvers=1.1\n"
	"\topts:\trw,vers=4.2,rsize=32768,wsize=32768,namlen=255,acregmin=3,acregmax=60,acdirmin=2,acdirmax=4,hard,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=10.77.0.11,lookupcache=pos,local_lock=none\n"
	"\tage:\t7\n"
	"\timpl_id:\tname='',domain='',date='0,0'\n"
	"\tcaps:\tcaps=0xeffbc0bf,wtmult=512,dtsize=32768,bsize=0,namlen=255\n"
	"\tnfsv4:\tbm0=0xfdffbfff,bm1=0x40fdbe3e,bm2=0x60803,acl=0x3,sessions,pnfs=not configured,lease_time=10,lease_expired=0\n"
	"\tsec:\tflavor=1,pseudoflavor=1\n"
	"\tevents:\t0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 \n"
	"\tbytes:\t0 0 0 0 0 0 0 0 \n"
	"\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n"
	"\txprt:\ttcp 0 0 2 0 0 45 45 0 45 0 2 0 0\n"
	"\tper-op statistics\n"
	"\t        NULL: 1 1 0 44 24 44 14 61 0\n"
	"\t        READ: 0 0 0 0 0 0 0 0 0\n"
	"\t       WRITE: 0 0 0 0 0 0 0 0 0\n"
	"\t      COMMIT: 0 0 0 0 0 0 0 0 0\n"
	"\t        OPEN: 0 0 0 0 0 0 0 0 0\n"
	"\tOPEN_CONFIRM: 0 0 0 0 0 0 0 0 0\n"
	"\t OPEN_NOATTR: 0 0 0 0 0 0 0 0 0\n"
	"\tOPEN_DOWNGRADE: 0 0 0 0 0 0 0 0 0\n"
	"\t       CLOSE: 0 0 0 0 0 0 0 0 0\n"
	"\t     SETATTR: 0 0 0 0 0 0 0 0 0\n"
	"\t      FSINFO: 2 2 0 304 336 0 9 10 0\n"
	"\t       RENEW: 0 0 0 0 0 0 0 0 0\n"
	"\t SETCLIENTID: 0 0 0 0 0 0 0 0 0\n"
	"\tSETCLIENTID_CONFIRM: 0 0 0 0 0 0 0 0 0\n"
	"\t        LOCK: 0 0 0 0 0 0 0 0 0\n"
	"\t       LOCKT: 0 0 0 0 0 0 0 0 0\n"
	"\t       LOCKU: 0 0 0 0 0 0 0 0 0\n"
	"\t      ACCESS: 0 0 0 0 0 0 0 0 0\n"
	"\t     GETATTR: 1 1 0 148 240 0 1 2 0\n"
	"\t      LOOKUP: 0 0 0 0 0 0 0 0 0\n"
	"\t LOOKUP_ROOT: 1 1 0 140 260 0 99 100 0\n"
	"\t      REMOVE: 0 0 0 0 0 0 0 0 0\n"
	"\t      RENAME: 0 0 0 0 0 0 0 0 0\n"
	"\t        LINK: 0 0 0 0 0 0 0 0 0\n"
	"\t     SYMLINK: 0 0 0 0 0 0 0 0 0\n"
	"\t      CREATE: 0 0 0 0 0 0 0 0 0\n"
	"\t    PATHCONF: 1 1 0 144 116 0 2 2 0\n"
	"\t      STATFS: 0 0 0 0 0 0 0 0 0\n"
	"\t    READLINK: 0 0 0 0 0 0 0 0 0\n"
	"\t     READDIR: 0 0 0 0 0 0 0 0 0\n"
	"\t SERVER_CAPS: 3 3 0 456 516 0 16 17 0\n"
	"\t DELEGRETURN: 0 0 0 0 0 0 0 0 0\n"
	"\t      GETACL: 0 0 0 0 0 0 0 0 0\n"
	"\t      SETACL: 0 0 0 0 0 0 0 0 0\n"
	"\tFS_LOCATIONS: 0 0 0 0 0 0 0 0 0\n"
	"\tRELEASE_LOCKOWNER: 0 0 0 0 0 0 0 0 0\n"
	"\t     SECINFO: 0 0 0 0 0 0 0 0 0\n"
	"\tFSID_PRESENT: 0 0 0 0 0 0 0 0 0\n"
	"\t EXCHANGE_ID: 2 2 0 504 184 1 79 81 0\n"
	"\tCREATE_SESSION: 1 1 0 192 124 0 38 39 0\n"
	"\tDESTROY_SESSION: 0 0 0 0 0 0 0 0 0\n"
	"\t    SEQUENCE: 1 1 0 116 80 3 51 56 0\n"
	"\tGET_LEASE_TIME: 0 0 0 0 0 0 0 0 0\n"
	"\tRECLAIM_COMPLETE: 1 1 0 124 88 0 431 431 0\n"
	"\t   LAYOUTGET: 0 0 0 0 0 0 0 0 0\n"
	"\tGETDEVICEINFO: 0 0 0 0 0 0 0 0 0\n"
	"\tLAYOUTCOMMIT: 0 0 0 0 0 0 0 0 0\n"
	"\tLAYOUTRETURN: 0 0 0 0 0 0 0 0 0\n"
	"\tSECINFO_NO_NAME: 1 1 0 128 104 0 5 6 0\n"
	"\tTEST_STATEID: 0 0 0 0 0 0 0 0 0\n"
	"\tFREE_STATEID: 0 0 0 0 0 0 0 0 0\n"
	"\tGETDEVICELIST: 0 0 0 0 0 0 0 0 0\n"
	"\tBIND_CONN_TO_SESSION: 0 0 0 0 0 0 0 0 0\n"
	"\tDESTROY_CLIENTID: 0 0 0 0 0 0 0 0 0\n"
	"\t        SEEK: 0 0 0 0 0 0 0 0 0\n"
	"\t    ALLOCATE: 0 0 0 0 0 0 0 0 0\n"
	"\t  DEALLOCATE: 0 0 0 0 0 0 0 0 0\n"
	"\t LAYOUTSTATS: 0 0 0 0 0 0 0 0 0\n"
	"\t       CLONE: 0 0 0 0 0 0 0 0 0\n"
	"\t        COPY: 0 0 0 0 0 0 0 0 0\n"
	"\tOFFLOAD_CANCEL: 0 0 0 0 0 0 0 0 0\n"
	"\t     LOOKUPP: 0 0 0 0 0 0 0 0 0\n"
	"\t LAYOUTERROR: 0 0 0 0 0 0 0 0 0\n"
	"\t COPY_NOTIFY: 0 0 0 0 0 0 0 0 0\n"
	"\t    GETXATTR: 0 0 0 0 0 0 0 0 0\n"
	"\t    SETXATTR: 0 0 0 0 0 0 0 0 0\n"
	"\t  LISTXATTRS: 0 0 0 0 0 0 0 0 0\n"
	"\t REMOVEXATTR: 0 0 0 0 0 0 0 0 0\n"
	"\t   READ_PLUS: 0 0 0 0 0 0 0 0 0\n"
	"\n"
	"\n";

/* hand-made: escapes, stacking, an old statvers, a non-NFS block last */
static const char handmade[] =
	"device srv:/my\\040export mounted on /mnt/my\\040dir with fstype nfs statvers=1.0\n"
	"\topts:\trw,vers=3,lookupcache=none,acdirmin=0,acdirmax=0,hard\n"
	"\tage:\t7\n"
	"\tevents:\t1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 \n"
	"\tper-op statistics\n"
	"\t      LOOKUP: 5 6 1 100 200 3 4 5\n"
	"\n"
	"device srv:/ mounted on /mnt/stack with fstype nfs4 statvers=1.1\n"
	"\topts:\trw,vers=4.1\n"
	"\tper-op statistics\n"
	"\t      LOOKUP: 1 1 0 0 0 0 0 0 0\n"
	"device srv:/ mounted on /mnt/stack with fstype nfs4 statvers=1.1\n"
	"\topts:\trw,vers=4.2,acdirmax=9\n"
	"\tper-op statistics\n"
	"\t      LOOKUP: 2 2 0 0 0 0 0 0 0\n"
	"device tmp mounted on /mnt/stack/tmp with fstype tmpfs\n";

static int parse(const char *text, const char *mp, struct dt_mountstats *m)
{
	return dt_mountstats_parse(text, mp, m);
}

int main(void)
{
	struct dt_mountstats *m = calloc(1, sizeof(*m));
	const struct dt_ms_op *op;
	char buf[256];

	if (!m)
		bail_out("out of memory");

	/* the captured v3 mount with default options */
	is_int(parse(captured, "/mnt/dt/v3", m), 0, "v3 block parses");
	is_str(m->device, "10.77.0.1:/export", "v3 device");
	is_str(m->fstype, "nfs", "v3 fstype");
	is_str(m->statvers, "1.1", "v3 statvers");
	is_int(dt_mountstats_vers(m), 30, "vers=3 -> 30");
	is_int((int)m->nops, 22, "v3 has 22 procedures (NULL..COMMIT)");
	is_int((int)dt_mountstats_count(m, "LOOKUP"), 0, "v3 LOOKUP count 0");
	is_int((int)dt_mountstats_count(m, "GETATTR"), 2, "v3 GETATTR count 2");
	op = dt_mountstats_op(m, "FSINFO");
	ok(op && op->trans == 2 && op->bytes_sent == 160 && op->bytes_recv == 160 &&
	   op->rtt_ms == 23 && op->execute_ms == 23 && op->errors == 0,
	   "v3 FSINFO: every column");
	is_int((int)dt_mountstats_count(m, "SEQUENCE"), -ENOENT, "v3 has no SEQUENCE op");
	is_int((int)dt_mountstats_opt_long(m, "acdirmin", -1), 30, "acdirmin=30");
	is_int((int)dt_mountstats_opt_long(m, "acdirmax", -1), 60, "acdirmax=60");
	is_int(dt_mountstats_opt(m, "hard", buf, sizeof(buf)), 0, "flag 'hard' present");
	is_str(buf, "", "... with an empty value");
	is_int(dt_mountstats_opt(m, "lookupcache", buf, sizeof(buf)), -ENOENT,
	       "no lookupcache= on a default mount");
	is_int(dt_mountstats_opt(m, "acdir", buf, sizeof(buf)), -ENOENT,
	       "an option name's prefix does not match");
	is_int(m->nevents, DT_MS_EVENTS, "27 event counters");
	is_int((int)m->age, 15, "age 15 s");

	/* the captured v4.2 mount: one LOOKUP after one stat */
	is_int(parse(captured, "/mnt/dt/v4/", m), 0, "v4 block parses (trailing / ignored)");
	is_str(m->fstype, "nfs4", "v4 fstype");
	is_int(dt_mountstats_vers(m), 42, "vers=4.2 -> 42");
	is_int((int)dt_mountstats_count(m, "LOOKUP"), 1, "v4 LOOKUP count 1");
	is_int((int)dt_mountstats_count(m, "LOOKUP_ROOT"), 1, "v4 LOOKUP_ROOT is its own op");
	op = dt_mountstats_op(m, "SECINFO_NO_NAME");
	ok(op && op->queue_ms == 432 && op->execute_ms == 437, "v4 SECINFO_NO_NAME queue and execute");
	ok(dt_mountstats_op(m, "SETCLIENTID_CONFIRM") != NULL, "long op names parse");
	is_int((int)dt_mountstats_count(m, "READ_PLUS"), 0, "the last op line parses");
	ok(m->nevents == DT_MS_EVENTS && m->events[DT_MS_VFSOPEN] == 0 &&
	   m->events[DT_MS_VFSLOOKUP] == 1 && m->events[DT_MS_VFSACCESS] == 1,
	   "v4 events: vfslookup 1, vfsaccess 1");

	/* lookupcache=positive prints as "pos" */
	is_int(parse(captured, "/mnt/dt/v4pos", m), 0, "v4pos block parses");
	is_int(dt_mountstats_opt(m, "lookupcache", buf, sizeof(buf)), 0, "lookupcache present");
	is_str(buf, "pos", "lookupcache=pos");
	is_int(dt_mountstats_opt(m, "lookupcache", buf, 3), -ENAMETOOLONG,
	       "a value longer than the buffer is refused");

	/* what is not there, or not NFS */
	is_int(parse(captured, "/mnt/dt", m), -ENOENT, "no mount at /mnt/dt");
	is_int(parse(captured, "/mnt/dt/v4s", m), -ENOENT, "a mount not in the sample");
	is_int(parse(captured, "/proc", m), -ENODATA, "proc has no NFS statistics");

	/* mount point of a path: longest '/'-prefix, not a string prefix */
	is_int(dt_mountstats_mountpoint(captured, "/mnt/dt/v4/dentrace.c1.1/x", buf,
					sizeof(buf)), 0, "mount point of a path below v4");
	is_str(buf, "/mnt/dt/v4", "... is /mnt/dt/v4");
	dt_mountstats_mountpoint(captured, "/mnt/dt/v4pos", buf, sizeof(buf));
	is_str(buf, "/mnt/dt/v4pos", "/mnt/dt/v4pos is not under /mnt/dt/v4");
	dt_mountstats_mountpoint(captured, "/mnt/dt/v4x/y", buf, sizeof(buf));
	is_str(buf, "/", "/mnt/dt/v4x is under / only");
	is_int(dt_mountstats_mountpoint(captured, "relative", buf, sizeof(buf)), -EINVAL,
	       "a relative path is refused");
	is_int(dt_mountstats_mountpoint(handmade, "/srv/x", buf, sizeof(buf)), -ENOENT,
	       "no mount contains /srv/x in the hand-made sample");

	/* escapes, old statvers */
	is_int(parse(handmade, "/mnt/my dir", m), 0, "escaped mount point matches unescaped");
	is_str(m->device, "srv:/my export", "escaped device name");
	is_str(m->statvers, "1.0", "statvers 1.0");
	op = dt_mountstats_op(m, "LOOKUP");
	ok(op && op->ops == 5 && op->trans == 6 && op->timeouts == 1 &&
	   op->execute_ms == 5 && op->errors == 0, "8-column op line: errors 0");
	ok(m->events[DT_MS_SILLYRENAME] == 22 && m->events[DT_MS_PNFS_WRITE] == 27,
	   "events by index");
	is_int(dt_mountstats_opt(m, "lookupcache", buf, sizeof(buf)), 0, "lookupcache=none");
	is_str(buf, "none", "... none");
	dt_mountstats_mountpoint(handmade, "/mnt/my dir/a", buf, sizeof(buf));
	is_str(buf, "/mnt/my dir", "mount point of a path, unescaped");

	/* stacked: the later (upper) mount wins */
	is_int(parse(handmade, "/mnt/stack", m), 0, "stacked mounts parse");
	is_int((int)dt_mountstats_count(m, "LOOKUP"), 2, "the upper mount's counts");
	is_int((int)dt_mountstats_opt_long(m, "acdirmax", -1), 9, "... and options");
	dt_mountstats_mountpoint(handmade, "/mnt/stack/tmp/f", buf, sizeof(buf));
	is_str(buf, "/mnt/stack/tmp", "the deeper mount contains its paths");

	/* malformed input is refused, not half-read */
	is_int(parse("device x mounted on /m with fstype nfs\n\tper-op statistics\n"
		     "\t      LOOKUP: 1 2 x\n", "/m", m), -EINVAL, "bad op numbers: -EINVAL");
	is_int(parse("device x mounted on /m with fstype nfs\n\tper-op statistics\n"
		     "\t      LOOKUP: 1 2 3\n", "/m", m), -EINVAL, "short op line: -EINVAL");
	is_int(parse("device x mounted /m with fstype nfs\n", "/m", m), -EINVAL,
	       "a broken header: -EINVAL");
	is_int(parse("", "/m", m), -ENOENT, "empty text: -ENOENT");

	free(m);
	return done();
}
