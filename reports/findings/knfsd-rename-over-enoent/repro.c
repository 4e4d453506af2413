// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A name replaced by rename(2) over it must never be missing: POSIX says
 * "If the link named by the new argument exists, it shall be removed and
 * old renamed to new. In this case, a link named new shall remain visible
 * to other threads throughout the renaming operation and refer either to
 * the file referred to by new or old before the operation began."
 *
 *   repro writer DIR SECONDS      create DIR/tmp.N, rename it over DIR/target
 *   repro reader DIR SECONDS N    N threads stat(DIR/target) in a loop;
 *                                 prints how many stats saw ENOENT/ESTALE
 *
 * Run the writer on one NFS client and the reader on another (or the
 * same) client of the same export: a correct client never reports a
 * missing target.  Exit status of the reader: 0 none missing, 1 some.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static double seconds;
static long stats, enoent, estale, other;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *reader(void *arg)
{
	char path[4096];
	long n = 0, ne = 0, ns = 0, no = 0;
	double end = now() + seconds;
	struct stat st;

	(void)arg;
	snprintf(path, sizeof(path), "%s/target", dir);
	while (now() < end) {
		n++;
		if (stat(path, &st) == 0)
			continue;
		if (errno == ENOENT)
			ne++;
		else if (errno == ESTALE)
			ns++;
		else
			no++;
	}
	pthread_mutex_lock(&lock);
	stats += n, enoent += ne, estale += ns, other += no;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4 || (strcmp(argv[1], "writer") && strcmp(argv[1], "reader"))) {
		fprintf(stderr, "usage: %s writer DIR SECONDS | reader DIR SECONDS THREADS\n", argv[0]);
		return 64;
	}
	dir = argv[2];
	seconds = atof(argv[3]);
	if (!strcmp(argv[1], "writer")) {
		char tmp[4096], target[4096];
		double end = now() + seconds;
		long i;

		snprintf(target, sizeof(target), "%s/target", dir);
		for (i = 0; now() < end; i++) {
			snprintf(tmp, sizeof(tmp), "%s/tmp.%ld", dir, i);
			int fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY, 0644);

			if (fd < 0 || close(fd) || rename(tmp, target)) {
				perror(tmp);
				return 2;
			}
		}
		printf("writer: %ld renames over %s\n", i, target);
		return 0;
	}
	int n = argc > 4 ? atoi(argv[4]) : 1;
	pthread_t t[256];

	if (n < 1 || n > 256)
		return 64;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("reader: %d threads, %ld stats, %ld ENOENT, %ld ESTALE, %ld other\n",
	       n, stats, enoent, estale, other);
	return enoent || estale || other;
}
