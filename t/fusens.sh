# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the self-tests that mount tools/bugfs (t/tools/bugfs.sh,
# t/core/hang.sh): skip (TAP) without what a FUSE mount needs, else run
# the script again in a private mount namespace, so no mount it makes is
# seen outside or outlives it.  Needs $bugfs; the script's "$0" "$@" follow.
#   fuse_ns_or_skip ENVVAR "$0" "$@"
skip() { echo "1..0 # SKIP $*"; exit 0; }
fuse_ns_or_skip() {
	local var=$1
	shift
	[ -n "${!var:-}" ] && return 0
	[ "$(id -u)" = 0 ] || skip "needs root (FUSE mounts)"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	command -v fusermount3 >/dev/null || skip "no fusermount3 (package fuse3)"
	[ -x "$bugfs" ] || skip "no $bugfs (libfuse3-dev missing at build time?)"
	command -v unshare >/dev/null || skip "no unshare"
	export "$var=1"
	exec unshare --mount --propagation private -- "$@"
}
