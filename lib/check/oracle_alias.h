/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Aliases of one file on one client: several names (hard links) of one
 * file are one file.  POSIX gives a file one inode whatever name it is
 * reached by, so on one client what one name shows, every other name
 * shows: the same st_ino, and after this client's own change through one
 * name (a write that sets the size, a link that adds a name) the new size
 * and link count through every other name at once.  No cache bound
 * excuses the client's own change: a correct NFS client keeps one in-core
 * inode per file handle, its reply updates that inode's attributes (or
 * marks them for revalidation), and a stat through any name reads that
 * inode, whatever the attribute-cache options (actimeo, noac).  A client
 * that made two in-core inodes for one handle (the iget_locked class:
 * two tasks both missed the inode cache and each inserted its own) shows
 * the change through the names bound to the changed inode only, and the
 * old attributes through the others until that copy's cache times out.
 *
 * The oracle judges what the test saw with the attributes (struct
 * dt_history records only fileids), so its input is a list of its own.
 */
#ifndef DT_CHECK_ORACLE_ALIAS_H
#define DT_CHECK_ORACLE_ALIAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/history.h"
#include "check/oracle.h"

/* one stat of a name of the file, or one own change of the file */
struct dt_alias_seen {
	uint64_t start_ns, end_ns;	/* the call('s) interval */
	uint16_t host, thread;
	/*
	 * true: an own change by host through name, done over [start, end]
	 * (e.g. open, write, close, link): afterwards the file has size
	 * bytes and nlink names.  false: a stat through name that answered
	 * result (0 or -errno) and, when 0, fileid, dev, size, nlink.
	 */
	bool change;
	int result;
	char name[DT_EV_NAME];
	uint64_t fileid, dev;		/* st_ino, st_dev */
	uint64_t size;
	uint32_t nlink;
};

/*
 * s[0..n): everything seen of ONE file (any hosts, any order).  Judges,
 * per host:
 *  - every successful stat of a name of the file gives the same fileid
 *    and device (st_ino, st_dev);
 *  - a stat that began after the host's own change returned shows the
 *    size and link count of that change (the latest such change; a stat
 *    that overlaps one of the host's changes is not judged: either state
 *    is right).
 * Another host's stats are not judged against a change (its caches may
 * lag within the mount's bound); failed stats are not judged (the
 * history checker judges names).  Returns the number of violations and
 * describes the earliest in *v (NULL: only the count); nothing judged
 * after a change is itself a violation (a load that proved nothing).
 */
int dt_oracle_alias(const struct dt_alias_seen *s, size_t n,
		    struct dt_verdict *v);

/* "h1 t3 stat(d0/f.1) = 0 fileid 14 size 1003 nlink 5 @[+100,+180]ns" */
const char *dt_alias_desc(const struct dt_alias_seen *e, uint64_t t0,
			  char *buf, size_t len);

#endif /* DT_CHECK_ORACLE_ALIAS_H */
