/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Facts about processes of this machine: its short name, whether a pid
 * still runs, and the kernel stacks of a process's tasks, the evidence
 * that turns a hang into a failure a developer can read.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/base.h"

void dt_read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
	if (n <= 0)
		snprintf(buf, len, "(unreadable: %s)", strerror(errno));
}

double dt_uptime_s(void)
{
	char b[64];

	dt_read_small("/proc/uptime", b, sizeof(b));
	return atof(b);
}

void dt_kernel_log_since(double since_s, char *buf, size_t len)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *log, *line, *save = NULL;
	size_t used = 0;
	int n;

	buf[0] = 0;
	if (size <= 0 || !(log = malloc((size_t)size + 1)))
		return;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, size);
	if (n < 0) {
		snprintf(buf, len, "(kernel log unreadable: %s)",
			 strerror(errno));
		free(log);
		return;
	}
	log[n] = 0;
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *stamp = strchr(line, '[');
		size_t l = strlen(line);

		if (!stamp || atof(stamp + 1) < since_s)
			continue;
		/* keep the newest: drop the oldest lines that do not fit */
		while (used && used + l + 2 > len) {
			char *nl = strchr(buf, '\n');
			size_t cut = nl ? (size_t)(nl - buf) + 1 : used;

			memmove(buf, buf + cut, used - cut + 1);
			used -= cut;
		}
		if (l + 2 > len)
			continue;
		memcpy(buf + used, line, l);
		used += l;
		buf[used++] = '\n';
		buf[used] = 0;
	}
	free(log);
}

void dt_collect_stacks(pid_t pid, pid_t only_tid, char *buf, size_t len)
{
	char path[96], task[64], comm[64], wchan[128], stack[2048];
	size_t used = 0;
	char dirpath[64];

	buf[0] = 0;
	snprintf(dirpath, sizeof(dirpath), "/proc/%d/task", pid);
	/* opendir via the libc would be simpler, but keep allocation-free */
	int dfd = open(dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(buf, len, "(no %s: %s)", dirpath, strerror(errno));
		return;
	}
	char dents[8192];
	long n;
	while ((n = syscall(SYS_getdents64, dfd, dents, sizeof(dents))) > 0) {
		for (long off = 0; off < n;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(dents + off);
			off += d->reclen;
			if (d->name[0] == '.')
				continue;
			if (only_tid && atoi(d->name) != only_tid)
				continue;
			snprintf(task, sizeof(task), "/proc/%d/task/%s", pid,
				 d->name);
			snprintf(path, sizeof(path), "%s/comm", task);
			dt_read_small(path, comm, sizeof(comm));
			comm[strcspn(comm, "\n")] = 0;
			snprintf(path, sizeof(path), "%s/wchan", task);
			dt_read_small(path, wchan, sizeof(wchan));
			snprintf(path, sizeof(path), "%s/stack", task);
			dt_read_small(path, stack, sizeof(stack));
			/* an unreadable stack is a note without a newline */
			size_t sl = strlen(stack);
			if (used < len)
				used += snprintf(buf + used, len - used,
						 "task %s (%s) wchan=%s\n%s%s",
						 d->name, comm, wchan, stack,
						 sl && stack[sl - 1] != '\n'
							 ? "\n" : "");
		}
	}
	close(dfd);
}

static char hostname_buf[64];

const char *dt_short_hostname(void)
{
	if (!hostname_buf[0]) {
		gethostname(hostname_buf, sizeof(hostname_buf) - 1);
		/* the scratch name is split on '.', keep the host part */
		hostname_buf[strcspn(hostname_buf, ".")] = 0;
		if (!hostname_buf[0])
			strcpy(hostname_buf, "host");
	}
	return hostname_buf;
}

/* The state letter of a /proc/.../stat file ("pid (comm) S ..."), or 0. */
static char proc_state(const char *stat_path)
{
	char buf[512], *rp;

	buf[0] = 0;
	dt_read_small(stat_path, buf, sizeof(buf));
	rp = strrchr(buf, ')');		/* comm may hold spaces and ')' */
	return rp && rp[1] == ' ' ? rp[2] : 0;
}

/* A zombie (killed, not yet reaped) runs no more: its scratch is stale. */
bool dt_pid_running(pid_t pid)
{
	char path[64], state;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	state = proc_state(path);
	return state != 'Z' && state != 'X';
}

int dt_tasks_in_d_state(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stat",
			 (int)pid, d->d_name);
		n += proc_state(path) == 'D';
	}
	closedir(dir);
	return n;
}
