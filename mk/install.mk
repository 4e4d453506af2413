# SPDX-License-Identifier: GPL-2.0-or-later
# make install / make uninstall: an installed suite, run with `dentrace`.
#
#   make install   [PREFIX=/usr/local] [DESTDIR=]
#   make uninstall [PREFIX=/usr/local] [DESTDIR=]
#
# Layout under $(DESTDIR)$(PREFIX):
#   bin/dentrace                 the front command (tools/dentrace)
#   bin/dtcoordd dtcheck dtcompare dtproxy dtab   coordinator and tools
#   lib/dentrace/suite/<test>    the test programs (not on PATH: their
#                                names are common words)
#   lib/dentrace/tools/          bugfs, dt-opsloop (mutation and perf helpers)
#   share/dentrace/xfail/        known-failure lists of the labs' servers
#   share/dentrace/lab/report    TAP -> summary.txt + junit.xml
#   share/man/man1/dentrace.1    and one page per tool of bin/ (its --help)
# The file list is kept in lib/dentrace/installed, so uninstall removes
# exactly what install put there.
#
# This file is included before the main Makefile's first rule: its first
# rule must be `all`, or it would become the default goal.
all:

PREFIX  ?= /usr/local
DESTDIR ?=
# the package's version: the first line of debian/changelog
VERSION ?= $(or $(shell awk -F'[()]' 'NR == 1 { print $$2 }' debian/changelog 2>/dev/null),0)
INSTALL ?= install
I_ROOT   = $(DESTDIR)$(PREFIX)
I_BIN    = $(I_ROOT)/bin
I_LIB    = $(I_ROOT)/lib/dentrace
I_SHARE  = $(I_ROOT)/share/dentrace
I_MAN1   = $(I_ROOT)/share/man/man1
I_TOOLS  = $(COORDD) $(DTCHECK) $(DTCOMPARE) $(DTPROXY) $(DTAB)
I_HELPERS = $(BUGFS) $(OPSLOOP)
I_XFAIL  = $(wildcard suite/xfail/*)
# every file install writes, relative to $(I_ROOT): the manifest
I_FILES  = bin/dentrace $(addprefix bin/,$(notdir $(I_TOOLS))) \
	   $(addprefix lib/dentrace/suite/,$(notdir $(SUITE_BINS))) \
	   $(addprefix lib/dentrace/tools/,$(notdir $(I_HELPERS))) \
	   $(addprefix share/dentrace/xfail/,$(notdir $(I_XFAIL))) \
	   share/dentrace/lab/report share/man/man1/dentrace.1 \
	   $(patsubst %,share/man/man1/%.1,$(notdir $(I_TOOLS))) lib/dentrace/installed
# the tools' man pages are their --help (tools/help-to-man)
I_MANSUM_dtcoordd  = coordinator of a multi-host dentrace run
I_MANSUM_dtcheck   = judge saved dentrace histories with the history checker
I_MANSUM_dtcompare = compare dentrace performance samples statistically
I_MANSUM_dtproxy   = TCP forwarder with delay and faults for dentrace labs
I_MANSUM_dtab      = is B slower than A: interleaved A/B of one namespace operation

.PHONY: install uninstall
install: all
	$(INSTALL) -d $(I_BIN) $(I_LIB)/suite $(I_LIB)/tools $(I_SHARE)/xfail $(I_SHARE)/lab $(I_MAN1)
	sed 's/@VERSION@/$(VERSION)/' tools/dentrace >$(I_BIN)/dentrace
	chmod 0755 $(I_BIN)/dentrace
	$(INSTALL) -m 0755 $(I_TOOLS) $(I_BIN)/
	$(INSTALL) -m 0755 $(SUITE_BINS) $(I_LIB)/suite/
	$(INSTALL) -m 0755 $(I_HELPERS) $(I_LIB)/tools/
	$(INSTALL) -m 0644 $(I_XFAIL) $(I_SHARE)/xfail/
	$(INSTALL) -m 0755 lab/report $(I_SHARE)/lab/
	sed 's/@VERSION@/$(VERSION)/' man/dentrace.1 >$(I_MAN1)/dentrace.1
	chmod 0644 $(I_MAN1)/dentrace.1
	$(foreach t,$(I_TOOLS),tools/help-to-man $(t) '$(VERSION)' '$(I_MANSUM_$(notdir $(t)))' >$(I_MAN1)/$(notdir $(t)).1 && \
		chmod 0644 $(I_MAN1)/$(notdir $(t)).1 &&) true
	printf '%s\n' $(I_FILES) >$(I_LIB)/installed

# removes the listed files, then whichever of our directories are empty
uninstall:
	@[ -f $(I_LIB)/installed ] || { echo "uninstall: no $(I_LIB)/installed: nothing of dentrace under $(I_ROOT)" >&2; exit 1; }
	cd $(I_ROOT) && xargs rm -f <lib/dentrace/installed
	-rmdir $(I_LIB)/suite $(I_LIB)/tools $(I_LIB) $(I_SHARE)/xfail $(I_SHARE)/lab $(I_SHARE) 2>/dev/null

# make deb: the Debian package from debian/, built in a copy of the tree
# under $(BUILD)/deb/ (the checkout stays clean: dpkg-buildpackage writes
# beside its source directory), then lintian on it.
DEB_DIR := $(BUILD)/deb
DEB_SRC := $(DEB_DIR)/dentrace-$(VERSION)
.PHONY: deb
deb:
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_SRC)
	git ls-files -co --exclude-standard | grep -v '^reports/' | \
		while read -r f; do [ -e "$$f" ] && printf '%s\n' "$$f"; done | \
		tar -cf - -T - | tar -xf - -C $(DEB_SRC)
	cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b
	lintian --info --fail-on error,warning $(DEB_DIR)/dentrace_$(VERSION)_*.changes
	@ls -l $(DEB_DIR)/*.deb
