# SPDX-License-Identifier: GPL-2.0-or-later
# tools/dtproxy: the lab's TCP delay proxy (latency without netem, stalls,
# drops).  A standalone program: no libdentrace, no libnfs.
DTPROXY := $(BUILD)/bin/dtproxy
all: $(DTPROXY)
$(DTPROXY): tools/dtproxy/dtproxy.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ $(LDFLAGS)
