# SPDX-License-Identifier: GPL-2.0-or-later
# tools/dtab: interleaved, sequential A/B of one namespace op on two
# targets (the detector of lab/perf detector; lib/backend and lib/stats).
DTAB := $(BUILD)/bin/dtab
all: $(DTAB)
$(DTAB): tools/dtab/dtab.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TIRPC_CFLAGS) $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS)
