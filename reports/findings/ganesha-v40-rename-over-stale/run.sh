#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run.sh [SECONDS] [READERS]: rename-over-stale on the embedded lab
# (lab/lab: ganesha in dt-srv, libnfs in dt-c1) over NFSv4.0 and NFSv3,
# with a capture of the NFS traffic (tshark on the lab's bridge, inside
# dt-srv) and the replies that carry STALE, by the operations of their
# call: which operation of which call the server answered STALE.
# Brings the lab up if it is down (and down again at the end); on a
# shared machine hold the lab's lock around it.  Needs root, libnfs-dev,
# tshark.  Exit 1 when a stat over NFSv4.0 failed (the finding), 0 when
# not, 2 on usage errors, 3 when set-up failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
secs=${1:-5}
readers=${2:-4}
if ! [[ $secs =~ ^[0-9]+$ ]] || [ "$secs" -lt 1 ] || [ "$secs" -gt 600 ] ||
	! [[ $readers =~ ^[0-9]+$ ]] || [ "$readers" -lt 1 ] || [ "$readers" -gt 16 ]; then
	echo "usage: run.sh [SECONDS 1..600] [READERS 1..16]" >&2
	exit 2
fi
tmp=$(mktemp -d /tmp/dt-rover.XXXXXX)
was_up=0
"$root/lab/lab" status >/dev/null 2>&1 && was_up=1
cap=
cleanup() {
	[ -n "$cap" ] && kill "$cap" 2>/dev/null && wait "$cap" 2>/dev/null
	[ "$was_up" = 1 ] || "$root/lab/lab" down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
cc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -o "$tmp/rename-over-stale" \
	"$here/rename-over-stale.c" -lnfs || exit 3
"$root/lab/lab" up >/dev/null || exit 3
echo "# $(ganesha.nfsd -v 2>&1 | head -n 1); libnfs $(dpkg-query -W -f '${Version}' libnfs13 2>/dev/null); host $(uname -r)"
ip netns exec dt-srv tshark -q -i dt-br0 -f "tcp port 2049" -w "$tmp/cap.pcap" 2>/dev/null &
cap=$!
# tshark is capturing once its file has its header
for _ in $(seq 100); do [ -s "$tmp/cap.pcap" ] && break; sleep 0.05; done
rc=0
for v in 4 3; do
	ip netns exec dt-c1 "$tmp/rename-over-stale" "nfs://10.99.0.1/export?version=$v" \
		"$secs" "$readers"
	st=$?
	[ $st -ge 2 ] && exit 3
	[ $v = 4 ] && [ $st = 1 ] && rc=1
done
kill "$cap" && wait "$cap" 2>/dev/null
cap=
echo "on the wire: replies with a STALE status, by the operations of the call"
echo "(NFSv4: the operation in parentheses is the one that failed)"
tshark -r "$tmp/cap.pcap" -Y 'nfs.nfsstat4 == 70 || nfs.nfsstat3 == 70' -V 2>/dev/null |
	grep '^Network File System' | sed 's/^Network File System, /  /' | sort | uniq -c | sort -rn
echo "  calls in the capture: $(tshark -r "$tmp/cap.pcap" -Y 'rpc.msgtyp == 0 && nfs' 2>/dev/null | wc -l)"
exit $rc
