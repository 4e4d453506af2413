#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fd-leak.sh: ganesha's open file descriptors after bounded loops of one
# operation each (fdloop.c).
#
#   fd-leak.sh [--klab] [ROUNDS]      (default 300 rounds per operation)
#
# Where: the embedded lab (lab/lab: ganesha in dt-srv, the libnfs client
# in dt-c1; brought up if down, with DT_LAB_LEASE=10, and down again at
# the end), or with --klab the kernel lab's ganesha (lab/klab up --server
# ganesha: ganesha in the srv guest, the client in c1; DT_KLAB_NS as for
# lab/klab; the lab must be up).  On a shared machine hold the lab's lock
# around it.  Needs root and libnfs-dev.
# Per NFS version (3, 4.0) and operation, one fdloop run of ROUNDS rounds;
# then, the client gone, wait until every NFSv4 lease it had is over (the
# server's Lease_Lifetime + 2 s: ganesha may keep a departed client's open
# state that long), and count ganesha's fds (/proc/PID/fd) and those
# whose file is deleted.  The control operation "write" creates, writes,
# closes and removes files one after the other; "race" does the same work
# with the remove racing the create, write and close from a second
# connection.
# Exit 1 when an operation left fds of deleted files open (the leak), 0
# when none did, 2 on usage errors, 3 when the lab or a run failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
labdir=${DT_LABDIR:-$root/.lab}
klab=${DT_KLAB:-$root/lab/klab}
mode=tier1
if [ "${1:-}" = --klab ]; then
	mode=klab
	shift
fi
rounds=${1:-300}
if [ $# -gt 1 ] || ! [[ $rounds =~ ^[0-9]+$ ]] || [ "$rounds" -lt 1 ] || [ "$rounds" -gt 100000 ]; then
	echo "usage: fd-leak.sh [--klab] [ROUNDS 1..100000]" >&2
	exit 2
fi
tmp=$(mktemp -d /tmp/dt-fdleak.XXXXXX)
was_up=1
cleanup() {
	[ "$was_up" = 1 ] || "$root/lab/lab" down >/dev/null 2>&1
	rm -rf "$tmp"
	[ -n "${share:-}" ] && rm -rf "$share"
}
trap cleanup EXIT

# the ways of the two labs: run fdloop on the client, read the server
if [ $mode = tier1 ]; then
	"$root/lab/lab" status >/dev/null 2>&1 || was_up=0
	if [ $was_up = 0 ]; then
		DT_LAB_LEASE=${DT_LAB_LEASE:-10} "$root/lab/lab" up >/dev/null || exit 3
	fi
	bin=$tmp/fdloop
	url3="nfs://10.99.0.1/export?version=3"
	url4="nfs://10.99.0.1/export?version=4"
	client() { ip netns exec dt-c1 "$bin" "$@"; }
	on_server() { bash -c "$1"; }
	pidfile=$labdir/run/ganesha.pid
	conf=$labdir/run/ganesha.conf
else
	if [ -n "${DT_KLAB_NS:-}" ] && [ "$DT_KLAB_NS" != dt-klab ]; then
		klabdir=${DT_KLABDIR:-$root/.lab/klab.$DT_KLAB_NS}
	else
		klabdir=${DT_KLABDIR:-$root/.lab/klab}
	fi
	grep -qx server=ganesha < <("$klab" info 2>/dev/null) ||
		{ echo "fd-leak.sh: the kernel lab is not up with ganesha (lab/klab up --server ganesha)" >&2; exit 3; }
	share=$klabdir/share/fdleak.$$
	mkdir -p "$share"
	bin=$share/fdloop
	url3="nfs://10.77.0.1/run/export?version=3"
	url4="nfs://10.77.0.1/?version=4"
	client() { "$klab" exec c1 --timeout 600 "/mnt/dtshare/fdleak.$$/fdloop" "$@"; }
	on_server() { "$klab" exec srv --timeout 60 bash -c "$1"; }
	pidfile=/run/ganesha/ganesha.pid
	conf=/run/ganesha/ganesha.conf
fi
cc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -o "$bin" "$here/fdloop.c" -lnfs || exit 3
pid=$(on_server "awk '{ print \$1 }' $pidfile")
if ! [[ $pid =~ ^[0-9]+$ ]]; then
	echo "fd-leak.sh: no ganesha pid in $pidfile" >&2
	exit 3
fi
lease=$(on_server "sed -n 's/^[[:space:]]*Lease_Lifetime *= *\([0-9]*\).*/\1/p' $conf")
lease=${lease:-60}
echo "# $mode lab: ganesha pid $pid ($(ganesha.nfsd -v 2>&1 | head -n 1)); Lease_Lifetime $lease s;" \
	"$(on_server "grep 'open files' /proc/$pid/limits" | tr -s ' ')" \
	"; libnfs $(dpkg-query -W -f '${Version}' libnfs13 2>/dev/null); $rounds rounds per run"

# count: "FDS DELETED" of ganesha now
count() {
	on_server "n=0 d=0; for f in /proc/$pid/fd/*; do n=\$((n + 1));
		case \$(readlink \$f 2>/dev/null) in *'(deleted)') d=\$((d + 1)) ;; esac
	done; echo \$n \$d"
}

read -r fds0 del0 < <(count)
echo "before: $fds0 fds, $del0 of deleted files"
printf '%-5s %-6s %7s %6s %14s   %s\n' vers op rounds "fds +" "deleted fds +" "fdloop"
status=0
for v in 3 4; do
	url=$url3
	[ $v = 4 ] && url=$url4
	for op in write race; do
		read -r fa da < <(count)
		out=$(client "$url" "$op" "$rounds" 2>&1) || {
			echo "fd-leak.sh: fdloop $url $op failed: $out" >&2
			exit 3
		}
		# the client is gone; its v4 state may live until its lease ends
		sleep $((lease + 2))
		read -r fb db < <(count)
		printf '%-5s %-6s %7s %6s %14s   %s\n' "v$v" "$op" "$rounds" \
			"$((fb - fa))" "$((db - da))" "${out#fdloop: }"
		[ $((db - da)) -gt 0 ] && status=1
	done
done
read -r fds1 del1 < <(count)
echo "after: $fds1 fds, $del1 of deleted files; some of them:"
on_server "ls -l /proc/$pid/fd | grep -F '(deleted)' | head -n 4" | sed 's/^/  /'
echo "expected: no fd of a deleted file stays open once its clients are gone"
if [ $status = 1 ]; then
	echo "observed: $((del1 - del0)) more fds of deleted files -> BUG SHOWS"
else
	echo "observed: none -> not seen"
fi
exit $status
