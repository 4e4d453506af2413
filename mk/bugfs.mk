# SPDX-License-Identifier: GPL-2.0-or-later
# tools/bugfs: a passthrough FUSE filesystem with switchable namespace bugs,
# the target of the mutation run (lab/mutation).  Built with `make` when
# libfuse3 is installed (lab/install-deps installs libfuse3-dev and fuse3);
# skipped, with the rest of the build unaffected, when it is not.
# This file is included before the main Makefile's first rule: its first
# rule must be `all`, or it would become the default goal.

FUSE3_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null)
FUSE3_LIBS   := $(shell pkg-config --libs fuse3 2>/dev/null)
BUGFS        := $(BUILD)/bin/bugfs

ifneq ($(FUSE3_LIBS),)
all: $(BUGFS)
endif

.PHONY: bugfs
bugfs: $(BUGFS)

$(BUGFS): tools/bugfs/bugfs.c mk/bugfs.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUSE3_CFLAGS) $< -o $@ $(LDFLAGS) $(FUSE3_LIBS)
