# SPDX-License-Identifier: GPL-2.0-or-later
# The perf suite through lab/perf (see lab/perf --help):
#   make perf        CI form: a few minutes, report in reports/<run-id>/
#   make perf-full   every target, threads up to 16, 3 s a point
# (mk/*.mk are read before the main Makefile's rules: keep "all" the
# default goal whatever these files define first.)
.DEFAULT_GOAL := all
.PHONY: perf perf-full
perf:
	@lab/perf run --short
perf-full:
	@lab/perf run
