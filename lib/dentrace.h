/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libdentrace: the one header a test includes.
 *
 * A test is one C file that fills a struct dt_test and ends with
 * DT_TEST_MAIN(name); core/core.h has the descriptor, the run context,
 * the reporting calls, the workers and the recorded operations.  The
 * library is built in layers, each with a header that says what it offers
 * and what it may call (ARCHITECTURE.md has the map):
 *
 *   core     harness, workers, watchdog, multi-host glue, perf engine
 *   backend  the ops table: POSIX and libnfs; --target parsing
 *   check    histories, oracles, the general history checker
 *   coord    the ONC RPC coordinator (protocol, daemon, client)
 *   stats    statistics, metrics lines, mountstats
 *   base     clocks, messages, listings, process facts
 *
 * Conventions: library calls return 0 (or a count) on success and -errno
 * on failure; public symbols are prefixed dt_.
 */
#ifndef DENTRACE_H
#define DENTRACE_H

#include "core/core.h"
#include "core/perf.h"
#include "check/check.h"
#include "stats/mountstats.h"

#endif /* DENTRACE_H */
