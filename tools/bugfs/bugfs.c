// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bugfs: a passthrough FUSE filesystem (libfuse3, low-level API,
 * multithreaded) over a backing directory, with switchable namespace bugs.
 * It exists to prove that dentrace catches what it claims to catch: the
 * mutation run (lab/mutation) mounts it once per bug and runs the suite.
 *
 *   bugfs BACKING MOUNTPOINT [-f] [-d] [-o OPT[,OPT...]]
 *
 * Options (-o):
 *   bug=NAME[:NAME...]   bugs on from the start (default: none)
 *   timeout=S            entry and attribute timeout in replies (default 0:
 *                        the kernel revalidates every cached name, which
 *                        makes it coherent with the backing directory)
 *   stale=S              how long stale_lookup and dcache_timeout keep an
 *                        answer (default 2)
 *   lag=MS               how late the "acknowledged before done" bugs do
 *                        the real work, and how wide rename_window is
 *                        (default 20)
 *   hang_name=GLOB       names whose lookup hangs under hang_lookup
 *                        (default "*.7"; only names absent from BACKING)
 *   dirchunk=BYTES       most bytes of entries per READDIR reply (default
 *                        4096), so a listing takes several replies, as a
 *                        server with small READDIR replies would
 *   default_permissions, and the other libfuse mount options
 *
 * Run-time control: the file .bugfs-ctl in the mount's root (not listed by
 * readdir).  Reading it shows the state; writing it takes lines of
 *   bug=NAME[:NAME...]|none   stale=S   lag=MS   hang_name=GLOB   release
 * ("release" lets every hung lookup finish normally).
 *
 * The bugs, one per class the suite claims to catch:
 *   rename_unlink_first  rename over an existing target unlinks the target,
 *                        acknowledges, and only then moves the source: after
 *                        rename() returned, neither name exists for lag ms
 *   rename_window        the same window inside the operation (reply after
 *                        the move).  Invisible through one kernel mount: the
 *                        VFS holds the directory lock across the rename and
 *                        every lookup that misses the dcache waits for it;
 *                        only a second client can see it
 *   readdir_drop         at each READDIR reply boundary the entry that did
 *                        not fit is lost
 *   readdir_dup          at each reply boundary the last entry sent is sent
 *                        again at the start of the next reply
 *   stale_lookup         LOOKUP answers (found or ENOENT) are kept for stale
 *                        seconds and replayed, whatever changed meanwhile.
 *                        Directories are always answered fresh, so that the
 *                        bug hits the names tests race on and not their
 *                        scratch directories (which would only make every
 *                        case BROKEN in its setup)
 *   dcache_timeout       replies carry entry/attr timeouts of stale seconds,
 *                        negative entries too: the kernel's dcache serves
 *                        them.  Coherent for the one kernel that makes every
 *                        change; stale only for changes made elsewhere
 *   hang_lookup          a LOOKUP of a name matching hang_name that does not
 *                        exist never returns (until the caller is killed,
 *                        which interrupts it, or "release")
 *   deadlock_lookup      the same, but like a deadlocked daemon it ignores
 *                        the kernel's interrupt: a killed caller cannot
 *                        die (its task waits in request_wait_answer) until
 *                        "release", an abort of the connection
 *                        (/sys/fs/fuse/connections/N/abort), or the daemon
 *                        ends
 *   fileid_readdir       readdir reports d_ino = st_ino + 1
 *   excl_create_twice    exclusive create checks that the name is free,
 *                        makes an unnamed file, acknowledges, and links it
 *                        under the name lag ms later, ignoring EEXIST: two
 *                        racing creators both succeed
 *   unlink_twice         unlink checks that the name exists, acknowledges,
 *                        and removes it lag ms later, ignoring ENOENT: two
 *                        racing unlinkers both succeed
 *   mkdir_lies           mkdir makes the directory and answers ENOENT: an
 *                        operation that reports failure but took effect
 *   noreplace_enoent     a rename with RENAME_NOREPLACE does nothing and
 *                        answers ENOENT although its source exists: a
 *                        client that lost the file it had just created
 *
 * Open files are passthrough fds.  Every inode the kernel knows is a node in
 * a hash table keyed by the backing (st_dev, st_ino) and file handle
 * (name_to_handle_at), counted by the kernel's lookups (FORGET), as in
 * libfuse's passthrough_ll.  Nodes keep handles, and as many as fds allow
 * also an O_PATH fd that pins the inode (see node_get), so the number the
 * kernel may know is not bounded by RLIMIT_NOFILE.  BACKING must be one
 * filesystem that supports file handles (ext4, xfs, btrfs, tmpfs), and the
 * daemon needs CAP_DAC_READ_SEARCH (open_by_handle_at): run it as root.
 */
#define _GNU_SOURCE
#define FUSE_USE_VERSION 312

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CTL_NAME	".bugfs-ctl"
#define CTL_INO		0x7ffffffffffffff0ull
#define HANG_MAX_S	600		/* "never" is bounded too */
#define CACHE_MAX	65536		/* stale_lookup entries at most */
#define NODE_BUCKETS	16384
#define CACHE_BUCKETS	4096

/* ---- bugs and configuration ------------------------------------------- */

enum bug {
	B_RENAME_UNLINK_FIRST,
	B_RENAME_WINDOW,
	B_READDIR_DROP,
	B_READDIR_DUP,
	B_STALE_LOOKUP,
	B_DCACHE_TIMEOUT,
	B_HANG_LOOKUP,
	B_FILEID_READDIR,
	B_EXCL_CREATE_TWICE,
	B_UNLINK_TWICE,
	B_DEADLOCK_LOOKUP,
	B_MKDIR_LIES,
	B_NOREPLACE_ENOENT,
	B__COUNT
};

static const char *const bug_names[B__COUNT] = {
	[B_RENAME_UNLINK_FIRST] = "rename_unlink_first",
	[B_RENAME_WINDOW] = "rename_window",
	[B_READDIR_DROP] = "readdir_drop",
	[B_READDIR_DUP] = "readdir_dup",
	[B_STALE_LOOKUP] = "stale_lookup",
	[B_DCACHE_TIMEOUT] = "dcache_timeout",
	[B_HANG_LOOKUP] = "hang_lookup",
	[B_FILEID_READDIR] = "fileid_readdir",
	[B_EXCL_CREATE_TWICE] = "excl_create_twice",
	[B_UNLINK_TWICE] = "unlink_twice",
	[B_DEADLOCK_LOOKUP] = "deadlock_lookup",
	[B_MKDIR_LIES] = "mkdir_lies",
	[B_NOREPLACE_ENOENT] = "noreplace_enoent",
};

static struct {
	pthread_mutex_t lock;		/* hang_name, and writers of the rest */
	unsigned bugs;			/* bit per enum bug; read atomically */
	double stale_s;
	int lag_ms;
	double timeout_s;
	size_t dirchunk;
	char hang_name[NAME_MAX + 1];
	unsigned release_gen;		/* bumped by "release" */
	unsigned hung;			/* lookups hanging now */
	struct fuse_session *se;
} cfg = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.stale_s = 2,
	.lag_ms = 20,
	.dirchunk = 4096,
	.hang_name = "*.7",
};

static bool bug_on(enum bug b)
{
	return __atomic_load_n(&cfg.bugs, __ATOMIC_ACQUIRE) & (1u << b);
}

/* "a:b", "a,b" or "none" -> bit set; -1 on an unknown name */
static int parse_bugs(const char *s, unsigned *out, char *bad, size_t badlen)
{
	unsigned set = 0;

	while (*s) {
		size_t len = strcspn(s, ":, \t\n");
		int i, found = -1;

		if (len == 4 && !strncmp(s, "none", 4))
			found = B__COUNT;
		for (i = 0; i < B__COUNT && found < 0; i++)
			if (strlen(bug_names[i]) == len &&
			    !strncmp(s, bug_names[i], len))
				found = i;
		if (len && found < 0) {
			snprintf(bad, badlen, "%.*s", (int)len, s);
			return -1;
		}
		if (len && found < B__COUNT)
			set |= 1u << found;
		s += len;
		s += strspn(s, ":, \t\n");
	}
	*out = set;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (ms > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int lag_ms(void)
{
	return __atomic_load_n(&cfg.lag_ms, __ATOMIC_RELAXED);
}

static double stale_s(void)
{
	double s;

	pthread_mutex_lock(&cfg.lock);
	s = cfg.stale_s;
	pthread_mutex_unlock(&cfg.lock);
	return s;
}

/* the entry/attr timeout replies carry */
static double reply_timeout(void)
{
	return bug_on(B_DCACHE_TIMEOUT) ? stale_s() : cfg.timeout_s;
}

/* ---- nodes: the inodes the kernel knows ------------------------------- */

struct node {
	struct node *hnext;
	dev_t dev;
	ino_t ino;
	uint64_t refs;		/* kernel lookups + stale cache references */
	struct file_handle *fh;	/* how to reopen it; immutable */
	int fd;			/* O_PATH pin, or -1 past the budget */
};

/*
 * Every node has a handle; the first pin_budget nodes also keep an O_PATH
 * fd, which pins the inode: a file unlinked while the kernel still knows it
 * stays reachable (GETATTR racing a rename over it answers, as a local
 * filesystem would, where a handle would give ESTALE).  Past the budget
 * (RLIMIT_NOFILE bounds fds; the kernel may know 50 000 inodes) nodes are
 * handles only.  FORGET frees a node and its pin.
 */
static struct node root_node = { .refs = 2, .fd = -1 };
static int root_fd = -1;
static struct node ctl_node = { .refs = 2, .fd = -1 };
static struct node *node_tab[NODE_BUCKETS];
static pthread_mutex_t node_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t pinned, pin_budget = 1000;

static struct node *node_of(fuse_ino_t ino)
{
	if (ino == FUSE_ROOT_ID)
		return &root_node;
	return (struct node *)(uintptr_t)ino;
}

static fuse_ino_t ino_of(struct node *n)
{
	return n == &root_node ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)n;
}

static bool is_ctl(fuse_ino_t ino)
{
	return ino != FUSE_ROOT_ID && node_of(ino) == &ctl_node;
}

static size_t node_hash(dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev;

	return (size_t)(h >> 32) % NODE_BUCKETS;
}

static bool same_handle(const struct file_handle *a,
			const struct file_handle *b)
{
	return a->handle_type == b->handle_type &&
	       a->handle_bytes == b->handle_bytes &&
	       !memcmp(a->f_handle, b->f_handle, a->handle_bytes);
}

/*
 * An fd for a node, the caller's own until fd_put(): the root's, a dup of
 * the node's pin, or its handle opened again (open_by_handle_at: needs
 * CAP_DAC_READ_SEARCH).  Owned, so that work done after the reply (the
 * "acknowledged before done" bugs) survives a FORGET meanwhile.  -1 with
 * errno set.  The backing directory must be one filesystem.
 */
static int fd_get(fuse_ino_t ino)
{
	struct node *n = node_of(ino);
	int fd = -1;

	if (n == &root_node)
		return root_fd;
	if (n == &ctl_node) {
		errno = EPERM;
		return -1;
	}
	pthread_mutex_lock(&node_lock);
	if (n->fd >= 0)
		fd = fcntl(n->fd, F_DUPFD_CLOEXEC, 0);
	pthread_mutex_unlock(&node_lock);
	if (fd >= 0)
		return fd;
	return open_by_handle_at(root_fd, n->fh, O_PATH | O_CLOEXEC);
}

static void fd_put(int fd)
{
	if (fd >= 0 && fd != root_fd)
		close(fd);
}

/*
 * The node for the file fd (not taken over) refers to, with one more
 * reference.  NULL (errno set) on failure.  A node is the file,
 * not its inode number: a reused inode number (same dev and ino, another
 * generation in the handle) is another node.
 */
static struct node *node_get(int fd, const struct stat *st)
{
	size_t b = node_hash(st->st_dev, st->st_ino);
	struct file_handle *fh;
	struct node *n;
	int mount_id;

	if (st->st_dev == root_node.dev && st->st_ino == root_node.ino) {
		pthread_mutex_lock(&node_lock);
		root_node.refs++;
		pthread_mutex_unlock(&node_lock);
		return &root_node;
	}
	fh = malloc(sizeof(*fh) + MAX_HANDLE_SZ);
	if (!fh)
		return NULL;
	fh->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", fh, &mount_id, AT_EMPTY_PATH) < 0) {
		int err = errno;

		free(fh);
		errno = err;
		return NULL;
	}
	pthread_mutex_lock(&node_lock);
	for (n = node_tab[b]; n; n = n->hnext)
		if (n->dev == st->st_dev && n->ino == st->st_ino &&
		    same_handle(n->fh, fh))
			break;
	if (n) {
		n->refs++;
		pthread_mutex_unlock(&node_lock);
		free(fh);
		return n;
	}
	n = calloc(1, sizeof(*n));
	if (!n) {
		pthread_mutex_unlock(&node_lock);
		free(fh);
		errno = ENOMEM;
		return NULL;
	}
	n->fh = fh;
	n->dev = st->st_dev;
	n->ino = st->st_ino;
	n->refs = 1;
	n->fd = -1;
	if (pinned < pin_budget) {
		n->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		pinned += n->fd >= 0;
	}
	n->hnext = node_tab[b];
	node_tab[b] = n;
	pthread_mutex_unlock(&node_lock);
	return n;
}

static void node_ref(struct node *n)
{
	pthread_mutex_lock(&node_lock);
	n->refs++;
	pthread_mutex_unlock(&node_lock);
}

static void node_unref(struct node *n, uint64_t count)
{
	struct node **pp;

	if (!n || n == &ctl_node)
		return;
	pthread_mutex_lock(&node_lock);
	n->refs = n->refs > count ? n->refs - count : 0;
	if (!n->refs && n != &root_node) {
		for (pp = &node_tab[node_hash(n->dev, n->ino)]; *pp;
		     pp = &(*pp)->hnext)
			if (*pp == n) {
				*pp = n->hnext;
				break;
			}
		if (n->fd >= 0)
			pinned--;
	} else {
		n = NULL;
	}
	pthread_mutex_unlock(&node_lock);
	if (n) {
		if (n->fd >= 0)
			close(n->fd);
		free(n->fh);
		free(n);
	}
}

/* ---- stale_lookup: a name cache that ignores changes ------------------ */

struct centry {
	struct centry *next;
	struct node *parent;	/* referenced */
	struct node *child;	/* referenced; NULL = ENOENT */
	struct stat st;
	uint64_t expires;
	char name[];
};

static struct centry *cache_tab[CACHE_BUCKETS];
static size_t cache_n;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t cache_hash(const struct node *parent, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uintptr_t)parent;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return (size_t)(h % CACHE_BUCKETS);
}

static void centry_free(struct centry *c)
{
	node_unref(c->parent, 1);
	node_unref(c->child, 1);
	free(c);
}

/*
 * A cached answer for parent/name: 1 found (*child referenced once more for
 * the reply, *st filled), 0 cached ENOENT, -1 no live entry.
 */
static int cache_get(struct node *parent, const char *name,
		     struct node **child, struct stat *st)
{
	size_t b = cache_hash(parent, name);
	uint64_t now = now_ns();
	struct centry *c;
	int rc = -1;

	pthread_mutex_lock(&cache_lock);
	for (c = cache_tab[b]; c; c = c->next) {
		if (c->parent != parent || strcmp(c->name, name) ||
		    c->expires < now)
			continue;
		if (c->child) {
			node_ref(c->child);
			*child = c->child;
			*st = c->st;
			rc = 1;
		} else {
			rc = 0;
		}
		break;
	}
	pthread_mutex_unlock(&cache_lock);
	return rc;
}

/* Remember an answer (child NULL = ENOENT); drops expired entries nearby. */
static void cache_put(struct node *parent, const char *name,
		      struct node *child, const struct stat *st)
{
	size_t b = cache_hash(parent, name), len = strlen(name);
	uint64_t now = now_ns();
	struct centry **pp, *c, *dead = NULL;

	c = malloc(sizeof(*c) + len + 1);
	if (!c)
		return;
	c->parent = parent;
	c->child = child;
	if (st)
		c->st = *st;
	c->expires = now + (uint64_t)(stale_s() * 1e9);
	memcpy(c->name, name, len + 1);
	node_ref(parent);
	if (child)
		node_ref(child);

	pthread_mutex_lock(&cache_lock);
	for (pp = &cache_tab[b]; *pp;) {
		struct centry *o = *pp;

		if (o->expires < now ||
		    (o->parent == parent && !strcmp(o->name, name))) {
			*pp = o->next;
			o->next = dead;
			dead = o;
			cache_n--;
		} else {
			pp = &o->next;
		}
	}
	if (cache_n < CACHE_MAX) {
		c->next = cache_tab[b];
		cache_tab[b] = c;
		cache_n++;
		c = NULL;
	}
	pthread_mutex_unlock(&cache_lock);
	/* node_unref takes node_lock: never under cache_lock */
	if (c)
		centry_free(c);
	while (dead) {
		c = dead->next;
		centry_free(dead);
		dead = c;
	}
}

static void cache_clear(void)
{
	struct centry *dead = NULL, *c;
	size_t b;

	pthread_mutex_lock(&cache_lock);
	for (b = 0; b < CACHE_BUCKETS; b++) {
		while ((c = cache_tab[b])) {
			cache_tab[b] = c->next;
			c->next = dead;
			dead = c;
		}
	}
	cache_n = 0;
	pthread_mutex_unlock(&cache_lock);
	while (dead) {
		c = dead->next;
		centry_free(dead);
		dead = c;
	}
}

/* ---- helpers ----------------------------------------------------------- */

/* fstatat(parent, name) for a parent given as a kernel inode */
static int stat_at(fuse_ino_t parent, const char *name, struct stat *st)
{
	int dfd = fd_get(parent), rc;

	if (dfd < 0)
		return -1;
	rc = fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW);
	if (rc < 0) {
		int err = errno;

		fd_put(dfd);
		errno = err;
		return -1;
	}
	fd_put(dfd);
	return 0;
}

static void ctl_stat(struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = CTL_INO;
	st->st_mode = S_IFREG | 0600;
	st->st_nlink = 1;
	st->st_blksize = 4096;
}

static void entry_init(struct fuse_entry_param *e)
{
	double t = reply_timeout();

	memset(e, 0, sizeof(*e));
	e->attr_timeout = t;
	e->entry_timeout = t;
}

/* Look parent/name up in the backing directory; e->ino referenced. */
static int do_lookup(fuse_ino_t parent, const char *name,
		     struct fuse_entry_param *e)
{
	struct node *n = NULL;
	int dfd, fd, err = 0;

	entry_init(e);
	dfd = fd_get(parent);
	if (dfd < 0)
		return errno;
	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		err = errno;
	else if (fstatat(fd, "", &e->attr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		err = errno;
	else if (!(n = node_get(fd, &e->attr)))
		err = errno;
	if (fd >= 0)
		close(fd);
	fd_put(dfd);
	if (!err)
		e->ino = ino_of(n);
	return err;
}

static void reply_enoent(fuse_req_t req)
{
	struct fuse_entry_param e;

	if (bug_on(B_DCACHE_TIMEOUT)) {
		/* ino 0 with a timeout: the kernel caches the negative entry */
		entry_init(&e);
		fuse_reply_entry(req, &e);
	} else {
		fuse_reply_err(req, ENOENT);
	}
}

/* ---- hang_lookup -------------------------------------------------------- */

static bool hang_matches(fuse_ino_t parent, const char *name)
{
	struct stat st;
	bool m;

	pthread_mutex_lock(&cfg.lock);
	m = !fnmatch(cfg.hang_name, name, FNM_PERIOD);
	pthread_mutex_unlock(&cfg.lock);
	/* only a name that is absent: what exists stays reachable */
	return m && stat_at(parent, name, &st) < 0 && errno == ENOENT;
}

/*
 * Block like a server that never answers.  What ends it: the caller is
 * killed or interrupted (the kernel sends FUSE_INTERRUPT: reply EINTR, or
 * the caller could never die) unless deadlocked, "release" on the control
 * file, unmount or abort, or HANG_MAX_S.  Returns true if the lookup
 * should now proceed normally.
 */
static bool hang(fuse_req_t req, const char *name, bool deadlocked)
{
	uint64_t deadline = now_ns() + HANG_MAX_S * 1000000000ull;
	unsigned gen = __atomic_load_n(&cfg.release_gen, __ATOMIC_ACQUIRE);
	bool released = false;

	__atomic_add_fetch(&cfg.hung, 1, __ATOMIC_RELAXED);
	fprintf(stderr, "bugfs: %s: lookup of %s hangs\n",
		deadlocked ? "deadlock_lookup" : "hang_lookup", name);
	while (now_ns() < deadline) {
		if ((!deadlocked && fuse_req_interrupted(req)) ||
		    fuse_session_exited(cfg.se))
			break;
		if (__atomic_load_n(&cfg.release_gen, __ATOMIC_ACQUIRE) != gen) {
			released = true;
			break;
		}
		sleep_ms(20);
	}
	__atomic_sub_fetch(&cfg.hung, 1, __ATOMIC_RELAXED);
	if (!released)
		fuse_reply_err(req, EINTR);
	return released;
}

/* ---- namespace operations ---------------------------------------------- */

static bool is_dir_now(fuse_ino_t parent, const char *name)
{
	struct stat st;

	return !stat_at(parent, name, &st) && S_ISDIR(st.st_mode);
}

static void bf_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	struct node *child;
	int err, c;

	if (parent == FUSE_ROOT_ID && !strcmp(name, CTL_NAME)) {
		memset(&e, 0, sizeof(e));
		e.ino = (fuse_ino_t)(uintptr_t)&ctl_node;
		ctl_stat(&e.attr);
		fuse_reply_entry(req, &e);
		return;
	}
	if ((bug_on(B_HANG_LOOKUP) || bug_on(B_DEADLOCK_LOOKUP)) &&
	    hang_matches(parent, name) &&
	    !hang(req, name, bug_on(B_DEADLOCK_LOOKUP)))
		return;
	if (bug_on(B_STALE_LOOKUP)) {
		entry_init(&e);
		c = cache_get(node_of(parent), name, &child, &e.attr);
		if (c == 1) {
			e.ino = ino_of(child);
			fuse_reply_entry(req, &e);
			return;
		}
		/* directories are always answered fresh (see the header) */
		if (c == 0 && !is_dir_now(parent, name)) {
			reply_enoent(req);
			return;
		}
	}
	err = do_lookup(parent, name, &e);
	if (bug_on(B_STALE_LOOKUP) && (err == ENOENT ||
				       (!err && !S_ISDIR(e.attr.st_mode))))
		cache_put(node_of(parent), name,
			  err ? NULL : node_of(e.ino), err ? NULL : &e.attr);
	if (err == ENOENT)
		reply_enoent(req);
	else if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_entry(req, &e);
}

static void reply_new_entry(fuse_req_t req, fuse_ino_t parent,
			    const char *name)
{
	struct fuse_entry_param e;
	int err = do_lookup(parent, name, &e);

	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_entry(req, &e);
}

/* Reply with the entry parent/name after a successful make call. */
static void make_reply(fuse_req_t req, fuse_ino_t parent, const char *name,
		       int rc)
{
	if (rc < 0)
		fuse_reply_err(req, errno);
	else
		reply_new_entry(req, parent, name);
}

static void bf_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	int dfd = fd_get(parent), rc = -1;

	if (dfd >= 0)
		rc = mknodat(dfd, name, mode, rdev);
	fd_put(dfd);
	make_reply(req, parent, name, rc);
}

static void bf_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	int dfd = fd_get(parent), rc = -1;

	if (dfd >= 0)
		rc = mkdirat(dfd, name, mode);
	fd_put(dfd);
	if (rc == 0 && bug_on(B_MKDIR_LIES)) {
		fuse_reply_err(req, ENOENT);	/* made, yet "no such" */
		return;
	}
	make_reply(req, parent, name, rc);
}

static void bf_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		       const char *name)
{
	int dfd = fd_get(parent), rc = -1;

	if (dfd >= 0)
		rc = symlinkat(link, dfd, name);
	fd_put(dfd);
	make_reply(req, parent, name, rc);
}

static void bf_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t parent,
		    const char *name)
{
	struct fuse_entry_param e;
	int fd = -1, dfd = -1, err = 0;

	if (is_ctl(ino)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	entry_init(&e);
	if ((fd = fd_get(ino)) < 0 || (dfd = fd_get(parent)) < 0 ||
	    linkat(fd, "", dfd, name, AT_EMPTY_PATH) < 0 ||
	    fstatat(fd, "", &e.attr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		err = errno;
	fd_put(fd);
	fd_put(dfd);
	if (err) {
		fuse_reply_err(req, err);
		return;
	}
	node_ref(node_of(ino));
	e.ino = ino;
	fuse_reply_entry(req, &e);
}

static void bf_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct stat st;
	int dfd;

	if (parent == FUSE_ROOT_ID && !strcmp(name, CTL_NAME)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	dfd = fd_get(parent);
	if (dfd < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	if (!bug_on(B_UNLINK_TWICE)) {
		fuse_reply_err(req, unlinkat(dfd, name, 0) < 0 ? errno : 0);
	} else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		fuse_reply_err(req, errno);
	} else if (S_ISDIR(st.st_mode)) {
		fuse_reply_err(req, EISDIR);
	} else {
		/* bug: checked, acknowledged, removed later: twice "done" */
		fuse_reply_err(req, 0);
		sleep_ms(lag_ms());
		(void)unlinkat(dfd, name, 0);	/* ENOENT: "already done" */
	}
	fd_put(dfd);
}

static void bf_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int dfd = fd_get(parent);

	if (dfd < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_err(req, unlinkat(dfd, name, AT_REMOVEDIR) < 0 ?
				    errno : 0);
	fd_put(dfd);
}

static int do_rename(int sfd, const char *name, int dfd, const char *newname,
		     unsigned int flags)
{
	struct stat sst, dst;
	bool early = bug_on(B_RENAME_UNLINK_FIRST);

	if (flags)
		return syscall(SYS_renameat2, sfd, name, dfd, newname,
			       flags) < 0 ? errno : 0;
	if (!early && !bug_on(B_RENAME_WINDOW))
		return renameat(sfd, name, dfd, newname) < 0 ? errno : 0;
	/*
	 * bug: replace a target by unlinking it first, then moving the
	 * source: for lag ms neither name exists.
	 */
	if (fstatat(sfd, name, &sst, AT_SYMLINK_NOFOLLOW) < 0)
		return errno;
	if (fstatat(dfd, newname, &dst, AT_SYMLINK_NOFOLLOW) < 0 ||
	    (dst.st_dev == sst.st_dev && dst.st_ino == sst.st_ino) ||
	    S_ISDIR(sst.st_mode) != S_ISDIR(dst.st_mode))
		/* no target (or a case rename(2) judges itself): no window */
		return renameat(sfd, name, dfd, newname) < 0 ? errno : 0;
	if (unlinkat(dfd, newname, S_ISDIR(dst.st_mode) ? AT_REMOVEDIR : 0))
		return errno;
	if (early)
		return -1;	/* the caller acknowledges, then finishes */
	sleep_ms(lag_ms());
	return renameat(sfd, name, dfd, newname) < 0 ? errno : 0;
}

static void bf_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	int sfd = -1, dfd = -1, err;

	if ((parent == FUSE_ROOT_ID && !strcmp(name, CTL_NAME)) ||
	    (newparent == FUSE_ROOT_ID && !strcmp(newname, CTL_NAME))) {
		fuse_reply_err(req, EPERM);
		return;
	}
	if ((flags & RENAME_NOREPLACE) && bug_on(B_NOREPLACE_ENOENT)) {
		fuse_reply_err(req, ENOENT);	/* the source is there */
		return;
	}
	if ((sfd = fd_get(parent)) < 0 || (dfd = fd_get(newparent)) < 0) {
		fuse_reply_err(req, errno);
		fd_put(sfd);
		return;
	}
	err = do_rename(sfd, name, dfd, newname, flags);
	if (err >= 0) {
		fuse_reply_err(req, err);
	} else {
		/* rename_unlink_first: the target is gone; say done, move */
		fuse_reply_err(req, 0);
		sleep_ms(lag_ms());
		(void)renameat(sfd, name, dfd, newname);
	}
	fd_put(sfd);
	fd_put(dfd);
}

static void forget_one(fuse_ino_t ino, uint64_t nlookup)
{
	if (!is_ctl(ino))
		node_unref(node_of(ino), nlookup);
}

static void bf_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget_one(ino, nlookup);
	fuse_reply_none(req);
}

static void bf_forget_multi(fuse_req_t req, size_t count,
			    struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		forget_one(forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

/* ---- attributes --------------------------------------------------------- */

static void bf_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct stat st;
	int fd, rc;

	if (is_ctl(ino)) {
		ctl_stat(&st);
		fuse_reply_attr(req, &st, 0);
		return;
	}
	/* fstat(2) of an open file (maybe unlinked) comes with its handle */
	if (fi) {
		rc = fstat((int)fi->fh, &st);
	} else {
		fd = fd_get(ino);
		rc = fd < 0 ? -1 : fstatat(fd, "", &st,
					    AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
		if (rc < 0 && fd >= 0) {
			int err = errno;

			fd_put(fd);
			errno = err;
		} else {
			fd_put(fd);
		}
	}
	if (rc < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_attr(req, &st, reply_timeout());
}

static void bf_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int valid, struct fuse_file_info *fi)
{
	char proc[64];
	int fd, err;

	if (is_ctl(ino)) {
		/* `echo ... > .bugfs-ctl` truncates first: nothing to do */
		bf_getattr(req, ino, NULL);
		return;
	}
	fd = fd_get(ino);
	if (fd < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if ((valid & FUSE_SET_ATTR_MODE) &&
	    (fi ? fchmod((int)fi->fh, attr->st_mode) :
		  chmod(proc, attr->st_mode)) < 0)
		goto err;
	if (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
		uid_t uid = valid & FUSE_SET_ATTR_UID ? attr->st_uid : (uid_t)-1;
		gid_t gid = valid & FUSE_SET_ATTR_GID ? attr->st_gid : (gid_t)-1;

		if (fchownat(fd, "", uid, gid,
			     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			goto err;
	}
	if ((valid & FUSE_SET_ATTR_SIZE) &&
	    (fi ? ftruncate((int)fi->fh, attr->st_size) :
		  truncate(proc, attr->st_size)) < 0)
		goto err;
	if (valid & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME)) {
		struct timespec tv[2] = {
			{ 0, UTIME_OMIT }, { 0, UTIME_OMIT },
		};

		if (valid & FUSE_SET_ATTR_ATIME_NOW)
			tv[0].tv_nsec = UTIME_NOW;
		else if (valid & FUSE_SET_ATTR_ATIME)
			tv[0] = attr->st_atim;
		if (valid & FUSE_SET_ATTR_MTIME_NOW)
			tv[1].tv_nsec = UTIME_NOW;
		else if (valid & FUSE_SET_ATTR_MTIME)
			tv[1] = attr->st_mtim;
		if ((fi ? futimens((int)fi->fh, tv) :
			  utimensat(AT_FDCWD, proc, tv, 0)) < 0)
			goto err;
	}
	fd_put(fd);
	bf_getattr(req, ino, fi);
	return;
err:
	err = errno;
	fd_put(fd);
	fuse_reply_err(req, err);
}

static void bf_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char buf[PATH_MAX + 1];
	int fd = fd_get(ino), err = 0;
	ssize_t n = -1;

	if (fd >= 0)
		n = readlinkat(fd, "", buf, sizeof(buf));
	if (n < 0)
		err = errno;
	fd_put(fd);
	if (n < 0)
		fuse_reply_err(req, err);
	else if (n == (ssize_t)sizeof(buf))
		fuse_reply_err(req, ENAMETOOLONG);
	else {
		buf[n] = '\0';
		fuse_reply_readlink(req, buf);
	}
}

static void bf_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs sv;

	(void)ino;
	if (fstatvfs(root_fd, &sv) < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_statfs(req, &sv);
}

/* ---- directories -------------------------------------------------------- */

struct dirh {
	DIR *dp;
	struct dirent *entry;	/* read, not yet sent */
	off_t offset;		/* the stream's position for the kernel */
	/* readdir_dup: the last entry sent, to send again */
	bool replay;
	off_t replay_off;
	ino_t replay_ino;
	unsigned char replay_type;
	char replay_name[NAME_MAX + 1];
};

static struct dirh *dirh_of(struct fuse_file_info *fi)
{
	return (struct dirh *)(uintptr_t)fi->fh;
}

static void bf_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct dirh *d = calloc(1, sizeof(*d));
	int pfd, fd = -1, err;

	if (!d) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pfd = fd_get(ino);
	if (pfd >= 0)
		fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	fd_put(pfd);
	if (fd < 0 || !(d->dp = fdopendir(fd))) {
		if (fd >= 0)
			err = errno;
		if (fd >= 0)
			close(fd);
		free(d);
		fuse_reply_err(req, err);
		return;
	}
	fi->fh = (uintptr_t)d;
	fuse_reply_open(req, fi);
}

static size_t add_entry(fuse_req_t req, char *p, size_t rem,
			const char *name, ino_t ino, unsigned char type,
			off_t off)
{
	struct stat st = { .st_ino = ino, .st_mode = (mode_t)type << 12 };

	if (bug_on(B_FILEID_READDIR) && strcmp(name, ".") &&
	    strcmp(name, ".."))
		st.st_ino = ino + 1;
	return fuse_add_direntry(req, p, rem, name, &st, off);
}

static void bf_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
		       off_t offset, struct fuse_file_info *fi)
{
	struct dirh *d = dirh_of(fi);
	size_t rem, ent;
	char *buf, *p;
	int err = 0;

	(void)ino;
	if (cfg.dirchunk && size > cfg.dirchunk)
		size = cfg.dirchunk;
	buf = calloc(1, size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	p = buf;
	rem = size;
	if (offset != d->offset) {
		seekdir(d->dp, offset);
		d->entry = NULL;
		d->offset = offset;
		d->replay = false;
	}
	if (d->replay) {
		/* bug readdir_dup: the previous reply's last entry again */
		ent = add_entry(req, p, rem, d->replay_name, d->replay_ino,
				d->replay_type, d->replay_off);
		if (ent <= rem) {
			p += ent;
			rem -= ent;
		}
		d->replay = false;
	}
	for (;;) {
		if (!d->entry) {
			errno = 0;
			d->entry = readdir(d->dp);
			if (!d->entry) {
				err = errno;
				break;
			}
		}
		ent = add_entry(req, p, rem, d->entry->d_name,
				d->entry->d_ino, d->entry->d_type,
				d->entry->d_off);
		if (ent > rem) {
			/* the reply is full: a chunk boundary */
			if (bug_on(B_READDIR_DROP))
				d->entry = NULL;	/* lost */
			if (bug_on(B_READDIR_DUP) && rem < size)
				d->replay = true;
			break;
		}
		if (bug_on(B_READDIR_DUP)) {
			d->replay_off = d->entry->d_off;
			d->replay_ino = d->entry->d_ino;
			d->replay_type = d->entry->d_type;
			snprintf(d->replay_name, sizeof(d->replay_name), "%s",
				 d->entry->d_name);
		}
		p += ent;
		rem -= ent;
		d->offset = d->entry->d_off;
		d->entry = NULL;
	}
	/* an error after entries were sent would lose them: send those */
	if (err && rem == size)
		fuse_reply_err(req, err);
	else
		fuse_reply_buf(req, buf, size - rem);
	free(buf);
}

static void bf_releasedir(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_file_info *fi)
{
	struct dirh *d = dirh_of(fi);

	(void)ino;
	closedir(d->dp);
	free(d);
	fuse_reply_err(req, 0);
}

static void bf_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
			struct fuse_file_info *fi)
{
	int fd = dirfd(dirh_of(fi)->dp);

	(void)ino;
	fuse_reply_err(req, (datasync ? fdatasync(fd) : fsync(fd)) < 0 ?
			    errno : 0);
}

/* ---- files ---------------------------------------------------------------- */

/* bug excl_create_twice: see the header.  dfd is the parent's. */
static void create_late(fuse_req_t req, int dfd, const char *name,
			mode_t mode, struct fuse_file_info *fi)
{
	struct fuse_entry_param e;
	struct node *n;
	struct stat st;
	int fd, lfd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		fuse_reply_err(req, EEXIST);
		return;
	}
	fd = openat(dfd, ".", (fi->flags & ~(O_ACCMODE | O_CREAT | O_EXCL |
					     O_NOFOLLOW | O_TRUNC)) |
		    O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	if (fd < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	entry_init(&e);
	/* lfd: our own reference for the late link (the kernel closes fd) */
	if (fstat(fd, &e.attr) < 0 || (lfd = dup(fd)) < 0) {
		int err = errno;

		close(fd);
		fuse_reply_err(req, err);
		return;
	}
	n = node_get(fd, &e.attr);
	if (!n) {
		int err = errno;

		close(fd);
		close(lfd);
		fuse_reply_err(req, err);
		return;
	}
	e.ino = ino_of(n);
	fi->fh = (uint64_t)fd;
	if (fuse_reply_create(req, &e, fi))
		close(fd);	/* the kernel will not release it */
	sleep_ms(lag_ms());
	/* EEXIST: another creator got there first; "fine".  (An if, not a
	 * (void) cast: glibc's fortified headers warn on the cast.) */
	if (linkat(lfd, "", dfd, name, AT_EMPTY_PATH) != 0 && errno != EEXIST) {
		/* the bug being injected: the name may just not appear */
	}
	close(lfd);
}

static void bf_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	struct fuse_entry_param e;
	int dfd, fd, err;

	if (parent == FUSE_ROOT_ID && !strcmp(name, CTL_NAME)) {
		fuse_reply_err(req, EEXIST);
		return;
	}
	dfd = fd_get(parent);
	if (dfd < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	if (bug_on(B_EXCL_CREATE_TWICE) && (fi->flags & O_EXCL)) {
		create_late(req, dfd, name, mode, fi);
		fd_put(dfd);
		return;
	}
	fd = openat(dfd, name, (fi->flags | O_CREAT | O_CLOEXEC) & ~O_NOFOLLOW,
		    mode);
	err = fd < 0 ? errno : 0;
	fd_put(dfd);
	if (!err)
		err = do_lookup(parent, name, &e);
	if (err) {
		if (fd >= 0)
			close(fd);
		fuse_reply_err(req, err);
		return;
	}
	fi->fh = (uint64_t)fd;
	if (fuse_reply_create(req, &e, fi))
		close(fd);
}

static void bf_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	char proc[64];
	int pfd, fd = -1, err;

	if (is_ctl(ino)) {
		fi->direct_io = 1;
		fi->nonseekable = 1;
		fuse_reply_open(req, fi);
		return;
	}
	pfd = fd_get(ino);
	if (pfd >= 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
		fd = open(proc, (fi->flags & ~O_NOFOLLOW) | O_CLOEXEC);
	}
	err = errno;
	fd_put(pfd);
	if (fd < 0) {
		fuse_reply_err(req, err);
		return;
	}
	fi->fh = (uint64_t)fd;
	if (fuse_reply_open(req, fi))
		close(fd);
}

static void bf_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	if (!is_ctl(ino))
		close((int)fi->fh);
	fuse_reply_err(req, 0);
}

static void bf_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	int fd;

	if (is_ctl(ino)) {
		fuse_reply_err(req, 0);
		return;
	}
	/* close a dup: what close(2) on the backing file would report */
	fd = dup((int)fi->fh);
	fuse_reply_err(req, fd < 0 || close(fd) < 0 ? errno : 0);
}

static void bf_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		     struct fuse_file_info *fi)
{
	int fd = (int)fi->fh;

	if (is_ctl(ino)) {
		fuse_reply_err(req, 0);
		return;
	}
	fuse_reply_err(req, (datasync ? fdatasync(fd) : fsync(fd)) < 0 ?
			    errno : 0);
}

static void ctl_read(fuse_req_t req, size_t size, off_t off);

static void bf_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fuse_bufvec buf = FUSE_BUFVEC_INIT(size);

	if (is_ctl(ino)) {
		ctl_read(req, size, off);
		return;
	}
	buf.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	buf.buf[0].fd = (int)fi->fh;
	buf.buf[0].pos = off;
	fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
}

static void ctl_write(fuse_req_t req, const char *data, size_t size);

static void bf_write(fuse_req_t req, fuse_ino_t ino, const char *data,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	ssize_t n;

	if (is_ctl(ino)) {
		ctl_write(req, data, size);
		return;
	}
	n = pwrite((int)fi->fh, data, size, off);
	if (n < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_write(req, (size_t)n);
}

/* ---- the control file ---------------------------------------------------- */

static void ctl_read(fuse_req_t req, size_t size, off_t off)
{
	char buf[1024];
	size_t len = 0;
	int i;

	pthread_mutex_lock(&cfg.lock);
	len += (size_t)snprintf(buf + len, sizeof(buf) - len, "bug=");
	if (!cfg.bugs)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "none");
	for (i = 0; i < B__COUNT; i++)
		if (cfg.bugs & (1u << i))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"%s%s", buf[len - 1] == '=' ?
						"" : ":", bug_names[i]);
	len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				"\nstale=%g\nlag=%d\nhang_name=%s\ntimeout=%g\n"
				"dirchunk=%zu\nhung=%u\n",
				cfg.stale_s, cfg.lag_ms, cfg.hang_name,
				cfg.timeout_s, cfg.dirchunk,
				__atomic_load_n(&cfg.hung, __ATOMIC_RELAXED));
	pthread_mutex_unlock(&cfg.lock);
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	if (off < 0 || (size_t)off >= len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, buf + off,
			       len - (size_t)off < size ? len - (size_t)off :
							  size);
}

/* Apply one "key=value" or "release" line; 0 or an errno. */
static int ctl_apply(const char *line)
{
	char bad[64];
	unsigned bugs;
	char *end;
	double d;
	long l;

	if (!strcmp(line, "release")) {
		__atomic_add_fetch(&cfg.release_gen, 1, __ATOMIC_RELEASE);
		return 0;
	}
	if (!strncmp(line, "bug=", 4)) {
		if (parse_bugs(line + 4, &bugs, bad, sizeof(bad))) {
			fprintf(stderr, "bugfs: control: unknown bug '%s'\n",
				bad);
			return EINVAL;
		}
		if (!(bugs & (1u << B_STALE_LOOKUP)))
			cache_clear();
		__atomic_store_n(&cfg.bugs, bugs, __ATOMIC_RELEASE);
		fprintf(stderr, "bugfs: control: %s\n", line);
		return 0;
	}
	if (!strncmp(line, "stale=", 6)) {
		d = strtod(line + 6, &end);
		if (*end || !(d >= 0) || d > 86400)
			return EINVAL;
		pthread_mutex_lock(&cfg.lock);
		cfg.stale_s = d;
		pthread_mutex_unlock(&cfg.lock);
		return 0;
	}
	if (!strncmp(line, "lag=", 4)) {
		l = strtol(line + 4, &end, 10);
		if (*end || l < 0 || l > 60000)
			return EINVAL;
		__atomic_store_n(&cfg.lag_ms, (int)l, __ATOMIC_RELAXED);
		return 0;
	}
	if (!strncmp(line, "hang_name=", 10)) {
		if (!line[10] || strlen(line + 10) > NAME_MAX)
			return EINVAL;
		pthread_mutex_lock(&cfg.lock);
		snprintf(cfg.hang_name, sizeof(cfg.hang_name), "%s", line + 10);
		pthread_mutex_unlock(&cfg.lock);
		return 0;
	}
	fprintf(stderr, "bugfs: control: cannot parse '%s'\n", line);
	return EINVAL;
}

static void ctl_write(fuse_req_t req, const char *data, size_t size)
{
	char line[512];
	size_t i = 0;
	int err = 0;

	while (i < size && !err) {
		size_t len = 0;

		while (i < size && (data[i] == '\n' || data[i] == ' ' ||
				    data[i] == '\t' || data[i] == ';'))
			i++;
		while (i < size && data[i] != '\n' && data[i] != ' ' &&
		       data[i] != '\t' && data[i] != ';') {
			if (len + 1 < sizeof(line))
				line[len++] = data[i];
			i++;
		}
		line[len] = '\0';
		if (len)
			err = ctl_apply(line);
	}
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_write(req, size);
}

/* ---- setup ---------------------------------------------------------------- */

static void bf_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* no writeback cache, no readdirplus (it would carry the fileid) */
	conn->want &= ~(unsigned)FUSE_CAP_WRITEBACK_CACHE;
	conn->want &= ~(unsigned)(FUSE_CAP_READDIRPLUS |
				  FUSE_CAP_READDIRPLUS_AUTO);
}

static void bf_destroy(void *userdata)
{
	(void)userdata;
	cache_clear();
}

static const struct fuse_lowlevel_ops bf_ops = {
	.init = bf_init,
	.destroy = bf_destroy,
	.lookup = bf_lookup,
	.forget = bf_forget,
	.forget_multi = bf_forget_multi,
	.getattr = bf_getattr,
	.setattr = bf_setattr,
	.readlink = bf_readlink,
	.mknod = bf_mknod,
	.mkdir = bf_mkdir,
	.symlink = bf_symlink,
	.link = bf_link,
	.unlink = bf_unlink,
	.rmdir = bf_rmdir,
	.rename = bf_rename,
	.opendir = bf_opendir,
	.readdir = bf_readdir,
	.releasedir = bf_releasedir,
	.fsyncdir = bf_fsyncdir,
	.create = bf_create,
	.open = bf_open,
	.release = bf_release,
	.flush = bf_flush,
	.fsync = bf_fsync,
	.read = bf_read,
	.write = bf_write,
	.statfs = bf_statfs,
};

struct opts {
	char *backing;
	char *bug;
	char *hang_name;
	double stale, timeout;
	int lag;
	int dirchunk;
	int nonopts;
};

#define OPT(t, f) { t, offsetof(struct opts, f), 0 }
static const struct fuse_opt opt_spec[] = {
	OPT("bug=%s", bug),
	OPT("stale=%lf", stale),
	OPT("lag=%d", lag),
	OPT("hang_name=%s", hang_name),
	OPT("timeout=%lf", timeout),
	OPT("dirchunk=%d", dirchunk),
	FUSE_OPT_END
};

static int opt_proc(void *data, const char *arg, int key,
		    struct fuse_args *outargs)
{
	struct opts *o = data;

	(void)outargs;
	if (key != FUSE_OPT_KEY_NONOPT)
		return 1;
	if (o->nonopts++ == 0) {
		o->backing = strdup(arg);
		return o->backing ? 0 : -1;
	}
	return 1;		/* the mount point: for fuse_parse_cmdline */
}

static void usage(const char *prog)
{
	int i;

	printf("usage: %s BACKING MOUNTPOINT [-f] [-d] [-s] "
	       "[-o bug=NAME[:NAME..],timeout=S,stale=S,lag=MS,"
	       "hang_name=GLOB,dirchunk=BYTES,default_permissions,...]\n"
	       "bugs:", prog);
	for (i = 0; i < B__COUNT; i++)
		printf(" %s", bug_names[i]);
	printf("\ncontrol file: MOUNTPOINT/%s (see tools/bugfs/bugfs.c)\n",
	       CTL_NAME);
}

/*
 * Pins and the callers' open files and directories are fds here: raise the
 * limit as far as the system allows (up to fs.nr_open with
 * CAP_SYS_RESOURCE, else the hard limit), and give pins half of it.
 */
static void raise_nofile(void)
{
	struct rlimit rl;
	unsigned long nr_open = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");

	if (f) {
		if (fscanf(f, "%lu", &nr_open) != 1)
			nr_open = 0;
		fclose(f);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (nr_open > rl.rlim_max) {
		struct rlimit want = { nr_open, nr_open };

		if (!setrlimit(RLIMIT_NOFILE, &want))
			rl = want;
	}
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* half for pins, half for open files, directories and the rest */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		pin_budget = rl.rlim_cur / 2;
}

/* can we name a file by handle and open it again? */
static bool handles_work(int fd)
{
	struct file_handle *fh = malloc(sizeof(*fh) + MAX_HANDLE_SZ);
	int mount_id, rfd = -1;

	if (!fh)
		return false;
	fh->handle_bytes = MAX_HANDLE_SZ;
	if (!name_to_handle_at(fd, "", fh, &mount_id, AT_EMPTY_PATH))
		rfd = open_by_handle_at(fd, fh, O_PATH | O_CLOEXEC);
	free(fh);
	if (rfd < 0)
		return false;
	close(rfd);
	return true;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct opts o = { .stale = -1, .timeout = -1, .lag = -1,
			  .dirchunk = -1 };
	struct fuse_cmdline_opts cmd;
	struct fuse_loop_config *lc;
	struct stat st;
	char bad[64];
	int ret = 1;

	/*
	 * build/bin holds the tests and tools like this one: answer a test
	 * runner as the other tools do (no cases; skipped, not broken).
	 */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list"))
			return 0;
		if (!strcmp(argv[i], "--target") ||
		    !strncmp(argv[i], "--target=", 9)) {
			printf("TAP version 13\n1..0 # SKIP bugfs is a tool, "
			       "not a test (see lab/mutation)\n");
			return 3;
		}
	}
	umask(0);	/* the kernel applied the caller's umask already */
	if (fuse_opt_parse(&args, &o, opt_spec, opt_proc) < 0)
		return 2;
	if (fuse_parse_cmdline(&args, &cmd) != 0)
		return 2;
	if (cmd.show_help || cmd.show_version) {
		usage(argv[0]);
		if (cmd.show_help) {
			fuse_cmdline_help();
			fuse_lowlevel_help();
		}
		return 0;
	}
	if (!o.backing || !cmd.mountpoint) {
		usage(argv[0]);
		return 2;
	}
	if (o.bug && parse_bugs(o.bug, &cfg.bugs, bad, sizeof(bad))) {
		fprintf(stderr, "bugfs: unknown bug '%s'\n", bad);
		usage(argv[0]);
		return 2;
	}
	if (o.stale >= 0)
		cfg.stale_s = o.stale;
	if (o.timeout >= 0)
		cfg.timeout_s = o.timeout;
	if (o.lag >= 0)
		cfg.lag_ms = o.lag;
	if (o.dirchunk >= 0)
		cfg.dirchunk = (size_t)o.dirchunk;
	if (cfg.dirchunk && cfg.dirchunk < 512)
		cfg.dirchunk = 512;	/* room for one entry of any name */
	if (o.hang_name)
		snprintf(cfg.hang_name, sizeof(cfg.hang_name), "%s",
			 o.hang_name);

	raise_nofile();
	/* not O_PATH: open_by_handle_at wants a real fd on the filesystem */
	root_fd = open(o.backing, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0 || fstat(root_fd, &st) < 0) {
		fprintf(stderr, "bugfs: backing directory %s: %s\n", o.backing,
			strerror(errno));
		return 2;
	}
	root_node.dev = st.st_dev;
	root_node.ino = st.st_ino;
	if (!handles_work(root_fd)) {
		fprintf(stderr, "bugfs: file handles on %s: %s (needs a "
			"filesystem with handles and CAP_DAC_READ_SEARCH)\n",
			o.backing, strerror(errno));
		return 2;
	}

	cfg.se = fuse_session_new(&args, &bf_ops, sizeof(bf_ops), NULL);
	if (!cfg.se)
		goto out;
	if (fuse_set_signal_handlers(cfg.se) != 0)
		goto out_destroy;
	if (fuse_session_mount(cfg.se, cmd.mountpoint) != 0)
		goto out_handlers;
	fprintf(stderr, "bugfs: %s on %s, bugs:", o.backing, cmd.mountpoint);
	for (int i = 0; i < B__COUNT; i++)
		if (cfg.bugs & (1u << i))
			fprintf(stderr, " %s", bug_names[i]);
	fprintf(stderr, "%s\n", cfg.bugs ? "" : " none");
	fuse_daemonize(cmd.foreground);
	if (cmd.singlethread) {
		ret = fuse_session_loop(cfg.se);
	} else {
		lc = fuse_loop_cfg_create();
		if (!lc) {
			ret = 1;
		} else {
			/* ops that sleep after replying hold a thread each */
			fuse_loop_cfg_set_max_threads(lc, 256);
			fuse_loop_cfg_set_idle_threads(lc, 16);
			fuse_loop_cfg_set_clone_fd(lc, (unsigned)cmd.clone_fd);
			ret = fuse_session_loop_mt(cfg.se, lc);
			fuse_loop_cfg_destroy(lc);
		}
	}
	fuse_session_unmount(cfg.se);
out_handlers:
	fuse_remove_signal_handlers(cfg.se);
out_destroy:
	fuse_session_destroy(cfg.se);
out:
	free(cmd.mountpoint);
	free(o.backing);
	free(o.bug);
	free(o.hang_name);
	fuse_opt_free_args(&args);
	close(root_fd);
	return ret ? 1 : 0;
}
