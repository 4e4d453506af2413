/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared glue of the fuzz targets in t/fuzz/.
 *
 * Every target is one C file with a libFuzzer entry point.  The same file is
 * also compiled into t/fuzz/fuzz_replay.c (plain cc, `make check`), which defines
 * DT_FUZZ_ENTRY and DT_FUZZ_INIT to unique names before including it and
 * feeds it the saved inputs under t/fuzz/regress/ and t/fuzz/corpus/.
 *
 * A target reports a broken invariant with fuzz_check(), which aborts: the
 * fuzzer saves the input, the replay reports the signal.
 */
#ifndef DT_FUZZ_H
#define DT_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef DT_FUZZ_ENTRY
#define DT_FUZZ_ENTRY LLVMFuzzerTestOneInput
#define DT_FUZZ_INIT LLVMFuzzerInitialize
#endif

#define fuzz_check(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant broken: %s: ",	\
				__FILE__, __LINE__, #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

#endif
