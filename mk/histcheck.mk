# SPDX-License-Identifier: GPL-2.0-or-later
# The general history checker (lib/check/histcheck.c, in libdentrace):
#
#   build/bin/dtcheck      judge dt_history_dump files (tools/dtcheck/dtcheck.c)
#   make bench-histcheck   figures: 100 000 and 1 000 000-op histories at
#                          4, 16 and 64 threads, with and without renames:
#                          ops, components, time, ops/s, peak RSS
#                          (BENCH_ARGS="--sizes 100000" to run less)
#
# The self-tests are t/check/histcheck_cases.c, t/check/histcheck_gen.c,
# t/tools/dtcheck.sh.
DTCHECK := $(BUILD)/bin/dtcheck
all: $(DTCHECK)
$(DTCHECK): tools/dtcheck/dtcheck.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TIRPC_CFLAGS) $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS)

# the benchmark shares the generator of t/check/histcheck_gen.c
HISTCHECK_BENCH := $(BUILD)/bench/histcheck_bench
$(HISTCHECK_BENCH): t/check/histcheck_gen.c t/check/histgen.h $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TIRPC_CFLAGS) -It -It/check -DHISTCHECK_BENCH $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS)

.PHONY: bench-histcheck
bench-histcheck: $(HISTCHECK_BENCH)
	$(HISTCHECK_BENCH) $(BENCH_ARGS)
