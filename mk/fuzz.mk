# SPDX-License-Identifier: GPL-2.0-or-later
# Fuzzing (included by the Makefile): the libFuzzer targets in t/fuzz/.
#
#   make fuzz              build with clang -fsanitize=fuzzer,address,undefined
#                          into build-fuzz/ and run every target for
#                          FUZZ_SECONDS (default 60) each; prints executions,
#                          time and crashes per target
#   make fuzz FUZZ_TARGETS="coordd histio" FUZZ_SECONDS=600
#   make fuzz-build        only build build-fuzz/fuzz/fuzz_<target>
#   make fuzz-seeds        rewrite the seed inputs t/fuzz/corpus/<t>/seed-*
#   make fuzz-merge        add what the runs found that covers new code to
#                          t/fuzz/corpus/<t>/ (libFuzzer -merge=1)
#
# Targets (t/fuzz/fuzz_<name>.c): target_parse (dt_target_parse), histio
# (dt_history_decode, then the oracles on what it decoded), options
# (dt_main's option parsing, through --list), coordd (the coordinator's
# record reader, RPC decoding and request handlers).
#
# New inputs a run finds go to build-fuzz/corpus/<t>/ (not in git);
# t/fuzz/corpus/<t>/ is the kept corpus, read only during runs.  A crash,
# leak, hang (10 s) or broken invariant is copied to t/fuzz/regress/<t>/
# and `make fuzz` fails.  build/t/fuzz_replay, one of the self-tests of
# `make check` and `make sanitize`, replays t/fuzz/regress/ and
# t/fuzz/corpus/ through the same targets built with plain cc, so a crash
# input stays red until the bug is fixed and guards the fix afterwards.

# This file is included before the Makefile's first rule: keep `all` the
# default goal.
.DEFAULT_GOAL := all

FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= target_parse histio options coordd
# compile: instrument for coverage, ASan, UBSan (every UB report is fatal)
FUZZ_SAN  := -fsanitize=fuzzer-no-link,address,undefined \
	     -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_LINK := -fsanitize=fuzzer,address,undefined

.PHONY: fuzz fuzz-build fuzz-bins fuzz-seeds fuzz-merge

fuzz: fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) \
		t/fuzz/run $(FUZZ_TARGETS)

fuzz-build:
	@command -v $(FUZZ_CC) >/dev/null || \
		{ echo "make fuzz: $(FUZZ_CC) not found (apt-get install clang)" >&2; exit 2; }
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) \
		SAN="$(FUZZ_SAN)" fuzz-bins

fuzz-seeds: fuzz-build
	$(FUZZ_BUILD)/fuzz/mkseeds t/fuzz/corpus

fuzz-merge: fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) t/fuzz/run --merge $(FUZZ_TARGETS)

# Run inside the sub-make above, where BUILD = $(FUZZ_BUILD), CC = clang
# and the library is built instrumented.
fuzz-bins: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%) $(BUILD)/fuzz/mkseeds

$(BUILD)/fuzz/fuzz_%: t/fuzz/fuzz_%.c t/fuzz/fuzz.h $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TIRPC_CFLAGS) $< -o $@ $(FUZZ_LINK) $(LIBA) $(LDLIBS)

# lib/coord/coordd.c is compiled into its fuzz target whole
$(BUILD)/fuzz/fuzz_coordd: lib/coord/coordd.c $(BUILD)/gen/coord_prot.h

$(BUILD)/fuzz/mkseeds: t/fuzz/mkseeds.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TIRPC_CFLAGS) $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS)
