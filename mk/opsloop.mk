# SPDX-License-Identifier: GPL-2.0-or-later
# tools/opsloop: a one-directory namespace-ops loop, the per-client op rate
# lab/kfigures measures on each kind of kernel-lab guest.  Standalone: no
# libdentrace, no libnfs.  This file is included before the main
# Makefile's first rule: its first rule must be `all`.
OPSLOOP := $(BUILD)/bin/dt-opsloop
all: $(OPSLOOP)
$(OPSLOOP): tools/opsloop/opsloop.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ $(LDFLAGS)
