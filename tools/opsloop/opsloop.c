// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dt-opsloop: namespace operations a second in one directory, the lab
 * figure that compares kinds of kernel-lab guests (lab/kfigures).
 *
 *   dt-opsloop DIR SECONDS
 *
 * One thread, one loop, bounded by SECONDS: create DIR/o.N (open O_CREAT
 * + close), stat it, rename it to DIR/r.N, stat the old name (ENOENT
 * expected), unlink the new name; every 16th round also lists DIR.  Each
 * system call counts as one operation.  N cycles over 64 names, so the
 * directory stays small.  Prints one line:
 *   ops O errors E seconds S ops_per_s R
 * and exits 0, or 1 when an operation failed unexpectedly (the errors are
 * counted, the loop goes on), 2 on usage errors.
 *
 * This is a stand-in until the catalogue's own tests give per-client op
 * rates on the kernel lab; it needs no dentrace library.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char a[4200], b[4200];
	long ops = 0, errors = 0, round;
	double secs, t0, end, el;
	struct stat st;
	char *rest;

	if (argc != 3 || strlen(argv[1]) > 4096 ||
	    (secs = strtod(argv[2], &rest)) <= 0 || *rest || secs > 3600) {
		fprintf(stderr, "usage: dt-opsloop DIR SECONDS (0 < SECONDS <= 3600)\n");
		return 2;
	}
	t0 = now();
	end = t0 + secs;
	for (round = 0; now() < end; round++) {
		int fd;

		snprintf(a, sizeof(a), "%s/o.%ld", argv[1], round % 64);
		snprintf(b, sizeof(b), "%s/r.%ld", argv[1], round % 64);
		fd = open(a, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			errors++;
		else if (close(fd) < 0)
			errors++;
		if (stat(a, &st) < 0)
			errors++;
		if (rename(a, b) < 0)
			errors++;
		if (stat(a, &st) == 0 || errno != ENOENT)
			errors++;
		if (unlink(b) < 0)
			errors++;
		ops += 6;
		if (round % 16 == 0) {
			DIR *d = opendir(argv[1]);

			if (!d) {
				errors++;
			} else {
				while (readdir(d))
					;
				closedir(d);
			}
			ops += 3;	/* open, getdents (at least once), close */
		}
	}
	el = now() - t0;
	printf("ops %ld errors %ld seconds %.2f ops_per_s %.0f\n", ops, errors, el, ops / el);
	return errors ? 1 : 0;
}
