#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh [SECONDS]: the ganesha readdir repeats in seconds, on the embedded
# lab (lab/lab: ganesha in dt-srv, libnfs clients in dt-cI), with a capture
# of the READDIRPLUS traffic that shows whose fault it is (wire-check.py).
# Brings the lab up if it is down (and down again at the end).  Needs root,
# libnfs-dev, tshark.  Exit 0 no repeat seen, 1 repeats, 2 set-up failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
secs=${1:-5}
tmp=$(mktemp -d /tmp/dt-rdr.XXXXXX)
was_up=0
"$root/lab/lab" status >/dev/null 2>&1 && was_up=1
cleanup() {
	[ -n "${cap:-}" ] && kill "$cap" 2>/dev/null && wait "$cap" 2>/dev/null
	[ $was_up = 1 ] || "$root/lab/lab" down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
cc -O2 -Wall -Wextra -pthread -o "$tmp/readdir-repeats" "$here/readdir-repeats.c" -lnfs || exit 2
"$root/lab/lab" up >/dev/null || exit 2
ip netns exec dt-srv tshark -q -i dt-br0 -f "tcp port 2049" -w "$tmp/cap.pcap" 2>/dev/null &
cap=$!
# tshark is capturing once its file has its header
for _ in $(seq 100); do [ -s "$tmp/cap.pcap" ] && break; sleep 0.05; done
rc=0
for v in 3 4; do
	echo -n "NFSv$v: "
	ip netns exec dt-c1 "$tmp/readdir-repeats" "nfs://10.99.0.1/export?version=$v" "$secs" 2 || rc=1
done
kill "$cap" && wait "$cap" 2>/dev/null
cap=
echo "on the wire (NFSv3 READDIRPLUS):"
python3 "$here/wire-check.py" "$tmp/cap.pcap"
exit $rc
