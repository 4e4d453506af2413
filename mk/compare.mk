# SPDX-License-Identifier: GPL-2.0-or-later
# tools/dtcompare: baseline vs candidate perf samples -> TAP verdicts
# (uses lib/stats and lib/metrics from libdentrace).
DTCOMPARE := $(BUILD)/bin/dtcompare
all: $(DTCOMPARE)
$(DTCOMPARE): tools/dtcompare/dtcompare.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TIRPC_CFLAGS) $< -o $@ $(LDFLAGS) $(LIBA) $(LDLIBS)
