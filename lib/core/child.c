/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Children of the harness: every case, target probe and sweep runs in a
 * forked child of its own process group, and the parent waits for it
 * with a deadline (a pidfd poll), never without one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"

volatile sig_atomic_t dt_interrupted;

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static void on_signal(int sig)
{
	dt_interrupted = sig;
}

/* SIGINT/SIGTERM end the run after the current case, with a Bail out */
void dt_catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * Wait for pid until deadline (monotonic ns).  Returns its wait status, or
 * -ETIMEDOUT, or -EINTR when we were told to stop.
 */
int dt_wait_deadline(pid_t pid, uint64_t deadline, bool interruptible)
{
	int pfd = pidfd_open_(pid), status;

	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid) {
			if (pfd >= 0)
				close(pfd);
			return status;
		}
		if (dt_interrupted && interruptible) {
			if (pfd >= 0)
				close(pfd);
			return -EINTR;
		}
		uint64_t now = dt_now_ns();
		if (now >= deadline) {
			if (pfd >= 0)
				close(pfd);
			return -ETIMEDOUT;
		}
		int ms = (int)((deadline - now) / 1000000) + 1;
		if (pfd >= 0) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };

			poll(&p, 1, ms);
		} else {
			/* no pidfd (old kernel): poll the status instead */
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
}

/*
 * A process with a thread in uninterruptible sleep (a kernel that lost a
 * wake-up) does not die of SIGKILL until that thread wakes: waiting for it
 * without a bound would hang the harness and lose the verdict and the
 * evidence already collected.  Give it a few seconds, then leave it.
 */
#define KILL_REAP_MS 5000

void dt_kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	if (dt_wait_deadline(pid, dt_now_ns() + KILL_REAP_MS * 1000000ull,
			     false) == -ETIMEDOUT)
		fprintf(stderr, "dentrace: child %d did not die of SIGKILL "
			"within %d ms (a task in uninterruptible sleep?): "
			"left behind\n", (int)pid, KILL_REAP_MS);
}
