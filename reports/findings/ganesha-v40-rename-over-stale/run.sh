#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run.sh [--klab] [SECONDS] [READERS]: rename-over-stale over NFSv4.0 and
# NFSv3, with a capture of the NFS traffic (tshark on the lab's bridge,
# inside the lab's namespace) and the replies that carry STALE, by the
# operations of their call: which operation the server answered STALE.
# Where: the embedded lab (lab/lab: ganesha in dt-srv, libnfs in dt-c1;
# brought up if down, and down again at the end), or with --klab the
# kernel lab (lab/klab up [--server ganesha]: the client in guest c1;
# DT_KLAB_NS as for lab/klab; the lab must be up).  On a shared machine
# hold the lab's lock around it.  Needs root, libnfs-dev, tshark.
# Exit 1 when a stat over NFSv4.0 failed (the finding), 0 when not, 2 on
# usage errors, 3 when set-up failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
klab=${DT_KLAB:-$root/lab/klab}
mode=tier1
if [ "${1:-}" = --klab ]; then
	mode=klab
	shift
fi
secs=${1:-5}
readers=${2:-4}
if [ $# -gt 2 ] || ! [[ $secs =~ ^[0-9]+$ ]] || [ "$secs" -lt 1 ] || [ "$secs" -gt 600 ] ||
	! [[ $readers =~ ^[0-9]+$ ]] || [ "$readers" -lt 1 ] || [ "$readers" -gt 16 ]; then
	echo "usage: run.sh [--klab] [SECONDS 1..600] [READERS 1..16]" >&2
	exit 2
fi
tmp=$(mktemp -d /tmp/dt-rover.XXXXXX)
was_up=1
cap=
cleanup() {
	[ -n "$cap" ] && kill "$cap" 2>/dev/null && wait "$cap" 2>/dev/null
	[ "$was_up" = 1 ] || "$root/lab/lab" down >/dev/null 2>&1
	rm -rf "$tmp"
	[ -n "${share:-}" ] && rm -rf "$share"
}
trap cleanup EXIT

if [ $mode = tier1 ]; then
	"$root/lab/lab" status >/dev/null 2>&1 || was_up=0
	"$root/lab/lab" up >/dev/null || exit 3
	bin=$tmp/rename-over-stale
	url3="nfs://10.99.0.1/export?version=3"
	url4="nfs://10.99.0.1/export?version=4"
	client() { ip netns exec dt-c1 "$bin" "$@"; }
	ns=dt-srv bridge=dt-br0
	server=$(ganesha.nfsd -v 2>&1 | head -n 1)
else
	if [ -n "${DT_KLAB_NS:-}" ] && [ "$DT_KLAB_NS" != dt-klab ]; then
		klabdir=${DT_KLABDIR:-$root/.lab/klab.$DT_KLAB_NS}
	else
		klabdir=${DT_KLABDIR:-$root/.lab/klab}
	fi
	info=$("$klab" info 2>/dev/null) || { echo "run.sh: the kernel lab is not up" >&2; exit 3; }
	share=$klabdir/share/rover.$$
	mkdir -p "$share"
	bin=$share/rename-over-stale
	url3="nfs://10.77.0.1/run/export?version=3"
	url4="nfs://10.77.0.1/?version=4"
	client() { "$klab" exec c1 --timeout $((secs + 120)) "/mnt/dtshare/rover.$$/rename-over-stale" "$@"; }
	ns=${DT_KLAB_NS:-dt-klab} bridge=dtk-br0
	server="kernel lab: $(grep -E '^(server|kernel_release|export)=' <<<"$info" | tr '\n' ' ')"
fi
cc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -o "$bin" \
	"$here/rename-over-stale.c" -lnfs || exit 3
echo "# $mode lab: $server; libnfs $(dpkg-query -W -f '${Version}' libnfs13 2>/dev/null); host $(uname -r)"
ip netns exec "$ns" tshark -q -i "$bridge" -f "tcp port 2049" -w "$tmp/cap.pcap" 2>/dev/null &
cap=$!
# tshark is capturing once its file has its header
for _ in $(seq 100); do [ -s "$tmp/cap.pcap" ] && break; sleep 0.05; done
rc=0
for v in 4 3; do
	url=$url3
	[ $v = 4 ] && url=$url4
	client "$url" "$secs" "$readers"
	st=$?
	[ $st -ge 2 ] && exit 3
	[ $v = 4 ] && [ $st = 1 ] && rc=1
done
kill "$cap" && wait "$cap" 2>/dev/null
cap=
tshark -r "$tmp/cap.pcap" -Y nfs -V 2>/dev/null | grep '^Network File System, ' |
	sed 's/^Network File System, //' >"$tmp/ops"
echo "on the wire: $(grep -c 'PUTFH, LOOKUP' "$tmp/ops") NFSv4 calls with a LOOKUP," \
	"$(grep -c '^LOOKUP Call' "$tmp/ops") NFSv3 LOOKUP calls; the replies with a STALE status"
echo "(NFSv4: the reply lists the operations done, the one in parentheses failed):"
grep STALE "$tmp/ops" | sort | uniq -c | sort -rn
exit $rc
