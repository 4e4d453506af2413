# SPDX-License-Identifier: GPL-2.0-or-later
# lab/kernel: User-Mode Linux kernels for the kernel lab, built from Debian's
# linux-source-6.1 at the pinned config lab/kernel/config, in a cache outside
# the checkout (DT_KERNEL_CACHE, default /var/cache/dentrace/kernel).
#   make kernel           the unmutated control kernel
#   make kernel-mutants   the control and every lab/kernel/mutants/*.patch
#   make mutants          the mutant table: lab/kmutation (kernel lab, per variant)
# Not part of `make all` or `make check`: a first build takes ~15-30 min on
# two cores, each mutant after it under a minute (lab/kernel/README.md).
# This file is included before the main Makefile's first rule: its first
# rule must be `all` (with nothing added to it), or `kernel` would become
# the default goal.
all:

KERNEL_CACHE_ARG := $(if $(DT_KERNEL_CACHE),--cache $(DT_KERNEL_CACHE))

.PHONY: kernel kernel-mutants
kernel:
	lab/kernel/build --control $(KERNEL_CACHE_ARG)

kernel-mutants:
	lab/kernel/build --all $(KERNEL_CACHE_ARG)

# The mutant table (lab/kmutation): control + every mutant, each booted in
# the kernel lab (which it locks per variant) under the general catalogue.
# Takes tens of minutes; KMUTATION_ARGS e.g. --short, --mutants A,B, --first.
.PHONY: mutants kmutation
mutants kmutation: all
	lab/kmutation $(KMUTATION_ARGS)
