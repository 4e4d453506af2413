# SPDX-License-Identifier: GPL-2.0-or-later
# dentrace: build, `make check`, `make run`, sanitizers, lint.
#
#   make            build lib, suite and self-tests into build/
#   make check      install missing packages, build, run t/ and the quick
#                   suite on the embedded lab (started and stopped here)
#   make run        the whole suite on the embedded lab, report in reports/
#   make sanitize   ASan+UBSan build, then the self-tests and quick suite
#   make tsan       ThreadSanitizer build, the same
#   make clean

CC      ?= cc
BUILD   ?= build
SAN     ?=
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -pthread -Ilib -I$(BUILD)/gen \
	   -MMD -MP $(SAN)
TIRPC_CFLAGS := $(shell pkg-config --cflags libtirpc 2>/dev/null)
TIRPC_LIBS   := $(shell pkg-config --libs libtirpc 2>/dev/null || echo -ltirpc)
LDLIBS  += -lnfs $(TIRPC_LIBS) -lm -pthread
LDFLAGS += $(SAN)

# lib/ is built in layers (lib/<layer>/*.c, see ARCHITECTURE.md); the
# coordinator daemon is a program of its own.
LIB_SRCS := $(filter-out lib/coord/coordd.c,$(wildcard lib/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIBA     := $(BUILD)/libdentrace.a

SUITE_SRCS := $(wildcard suite/*/*.c)
SUITE_BINS := $(patsubst %.c,$(BUILD)/bin/%,$(notdir $(SUITE_SRCS)))

# self-tests, by the layer they test (t/<layer>/); fuzz targets are built
# by mk/fuzz.mk, their replay (t/fuzz/fuzz_replay.c) is a self-test
T_DIRS := t/core t/backend t/check t/coord t/stats t/tools
T_SRCS := $(wildcard $(T_DIRS:%=%/*.c)) t/fuzz/fuzz_replay.c
T_BINS := $(patsubst %.c,$(BUILD)/t/%,$(notdir $(T_SRCS)))

# rpcgen output for the coordination protocol (lib/coord/coord.x).  rpcgen -c
# includes a header named after its input, so the .x is copied under the
# name the generated code expects.
GEN_OBJS := $(BUILD)/gen/coord_xdr.o
COORDD   := $(BUILD)/bin/dtcoordd

-include mk/*.mk

.PHONY: all check run sanitize tsan clean deps lint list
all: $(LIBA) $(SUITE_BINS) $(T_BINS) $(COORDD)

$(BUILD)/lib/%.o: lib/%.c | $(BUILD)/gen/coord_prot.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TIRPC_CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJS) $(GEN_OBJS)
	$(AR) rcs $@ $^

vpath %.c $(sort $(dir $(SUITE_SRCS)))
$(BUILD)/bin/%: %.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TIRPC_CFLAGS) $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS)

vpath %.c $(sort $(dir $(T_SRCS)))
$(BUILD)/t/%: %.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TIRPC_CFLAGS) -It $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS)

# generated code is not ours to lint: relax the warnings rpcgen trips
GEN_CFLAGS = $(filter-out -Werror -Wextra,$(CFLAGS)) -Wno-unused-variable
$(BUILD)/gen/coord_prot.x: lib/coord/coord.x
	@mkdir -p $(@D)
	cp $< $@
$(BUILD)/gen/coord_prot.h: $(BUILD)/gen/coord_prot.x
	cd $(@D) && rm -f coord_prot.h && rpcgen -h -o coord_prot.h coord_prot.x
$(BUILD)/gen/coord_xdr.c: $(BUILD)/gen/coord_prot.x $(BUILD)/gen/coord_prot.h
	cd $(@D) && rm -f coord_xdr.c && rpcgen -c -o coord_xdr.c coord_prot.x
$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(GEN_CFLAGS) $(TIRPC_CFLAGS) -c $< -o $@
$(BUILD)/bin/dtcoordd: lib/coord/coordd.c $(BUILD)/lib/coord/addr.o $(GEN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TIRPC_CFLAGS) $< $(BUILD)/lib/coord/addr.o $(GEN_OBJS) -o $@ $(LDFLAGS) $(TIRPC_LIBS)

deps:
	@lab/install-deps

# The README's test command.  lab/check installs what is missing, builds,
# brings the lab up, runs everything through prove and takes the lab down.
check:
	@lab/check --quick

run:
	@lab/check --run

sanitize:
	@lab/check --sanitize

tsan:
	@lab/check --tsan

list: all
	@for b in $(SUITE_BINS); do $$b --list; done

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
