#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fd-leak.sh: ganesha's open file descriptors after bounded loops of one
# operation each (fdloop.c), on the embedded lab (lab/lab: ganesha in
# dt-srv, the libnfs client in dt-c1).
#
#   fd-leak.sh [ROUNDS]      (default 300 rounds per operation)
#
# Per NFS version (3, 4.0) and operation, one fdloop run of ROUNDS rounds
# from dt-c1; then, the client gone, wait until every NFSv4 lease it had
# is over (the lab's Lease_Lifetime + 2 s: ganesha may keep a departed
# client's open state that long), and count ganesha's fds
# (/proc/PID/fd) and those whose file is deleted.  The control operation
# "write" creates, writes, closes and removes files one after the other;
# "race" does the same work with the remove racing the create, write and
# close from a second connection.
# Brings the lab up if it is down, with DT_LAB_LEASE=10 (and down again
# at the end); on a shared machine hold the lab's lock around it.  Needs
# root and libnfs-dev.  Exit 1 when an operation left fds of deleted files
# open (the leak), 0 when none did, 2 on usage errors, 3 when the lab or
# a run failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
labdir=${DT_LABDIR:-$root/.lab}
rounds=${1:-300}
if ! [[ $rounds =~ ^[0-9]+$ ]] || [ "$rounds" -lt 1 ] || [ "$rounds" -gt 100000 ]; then
	echo "usage: fd-leak.sh [ROUNDS 1..100000]" >&2
	exit 2
fi
tmp=$(mktemp -d /tmp/dt-fdleak.XXXXXX)
was_up=0
"$root/lab/lab" status >/dev/null 2>&1 && was_up=1
cleanup() {
	[ "$was_up" = 1 ] || "$root/lab/lab" down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
cc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -o "$tmp/fdloop" "$here/fdloop.c" -lnfs || exit 3
if [ $was_up = 0 ]; then
	DT_LAB_LEASE=${DT_LAB_LEASE:-10} "$root/lab/lab" up >/dev/null || exit 3
fi
pid=$(awk '{ print $1 }' "$labdir/run/ganesha.pid" 2>/dev/null)
if [ -z "$pid" ] || [ ! -d "/proc/$pid/fd" ]; then
	echo "fd-leak.sh: no ganesha pid in $labdir/run" >&2
	exit 3
fi
lease=$(sed -n 's/^[[:space:]]*Lease_Lifetime *= *\([0-9]*\).*/\1/p' "$labdir/run/ganesha.conf")
lease=${lease:-60}
echo "# ganesha pid $pid ($(ganesha.nfsd -v 2>&1 | head -n 1)); Lease_Lifetime $lease s; libnfs $(dpkg-query -W -f '${Version}' libnfs13 2>/dev/null); $rounds rounds per run"

# count: "FDS DELETED" of ganesha now
count() {
	local n=0 d=0 f
	for f in /proc/"$pid"/fd/*; do
		n=$((n + 1))
		case $(readlink "$f" 2>/dev/null) in *"(deleted)") d=$((d + 1)) ;; esac
	done
	echo "$n $d"
}

read -r fds0 del0 < <(count)
echo "before: $fds0 fds, $del0 of deleted files"
printf '%-5s %-8s %8s %14s %14s   %s\n' vers op rounds "fds +" "deleted fds +" "fdloop"
status=0
for v in 3 4; do
	url="nfs://10.99.0.1/export?version=$v"
	for op in write race; do
		read -r fa da < <(count)
		out=$(ip netns exec dt-c1 "$tmp/fdloop" "$url" "$op" "$rounds" 2>&1) || {
			echo "fd-leak.sh: fdloop $url $op failed: $out" >&2
			exit 3
		}
		# the client is gone; its v4 state may live until its lease ends
		sleep $((lease + 2))
		read -r fb db < <(count)
		printf '%-5s %-8s %8s %14s %14s   %s\n' "v$v" "$op" "$rounds" \
			"$((fb - fa))" "$((db - da))" "${out#fdloop: }"
		[ $((db - da)) -gt 0 ] && status=1
	done
done
read -r fds1 del1 < <(count)
echo "after: $fds1 fds, $del1 of deleted files; some of them:"
for f in /proc/"$pid"/fd/*; do
	l=$(readlink "$f" 2>/dev/null) || continue
	case $l in *"(deleted)") echo "  fd ${f##*/} -> $l" ;; esac
done | head -n 5
echo "expected: no fd of a deleted file stays open once its clients are gone"
if [ $status = 1 ]; then
	echo "observed: $((del1 - del0)) more fds of deleted files -> BUG SHOWS"
else
	echo "observed: none -> not seen"
fi
exit $status
