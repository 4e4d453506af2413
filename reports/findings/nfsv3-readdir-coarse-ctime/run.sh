#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run.sh: dirtick in the kernel lab (lab/klab), as the README says.
#
#   run.sh [--parts server,pair3,pair4,ac,cross3,cross4]
#
# DT_KLAB: the lab/klab to use (default: this checkout's); DT_KLABDIR and
# DT_KLAB_NS as for lab/klab.  Needs a kernel lab that is up (lab/klab up,
# ext4 export, knfsd).  Parts (default all, ~3-4 min on a loaded host):
#   server  on srv, no NFS: two creates back to back, one ctime?
#   pair3   c1, writer /mnt/dt/v3, lister /mnt/dt/v3s (actimeo=0), hold 1 s
#   pair4   the same over NFSv4.2: v4 and v4s (the control)
#   ac      c1, writer v3, lister v3ac (acdirmax=4), hold 6 s
#   cross3  c1 churns through v3, c2 lists through v3s, hold 1 s
#   cross4  the same over NFSv4.2: v4 and v4s (the control)
# Prints each part's output and a table; exit 1 when the bug showed in a
# part (the NFSv3 ones are expected to show it, the v4.2 ones not), 0 when
# it showed nowhere, 2 on usage errors, 3 when the lab is not up or a part
# could not run.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd "$HERE/../../.." && pwd -P)
KLAB=${DT_KLAB:-$REPO/lab/klab}
if [ -n "${DT_KLAB_NS:-}" ] && [ "$DT_KLAB_NS" != dt-klab ]; then
	LABDIR=${DT_KLABDIR:-$REPO/.lab/klab.$DT_KLAB_NS}
else
	LABDIR=${DT_KLABDIR:-$REPO/.lab/klab}
fi
PARTS=server,pair3,pair4,ac,cross3,cross4

usage() { sed -n '/^#   run.sh/p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--parts) PARTS=${2:?}; shift ;;
	*) usage ;;
	esac
	shift
done
for p in ${PARTS//,/ }; do
	case $p in server|pair3|pair4|ac|cross3|cross4) ;; *) usage ;; esac
done

info=$("$KLAB" info 2>/dev/null) || { echo "run.sh: the kernel lab is not up (lab/klab up)" >&2; exit 3; }
echo "# $(tr '\n' ' ' <<<"$info")"

# built here, run in the guests from the share (they run the host's userland)
share=$LABDIR/share
work=dirtick/$$
mkdir -p "$share/$work"
trap 'rm -rf "${share:?}/${work:?}"' EXIT
cc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$share/$work/dirtick" "$HERE/dirtick.c"
bin=/mnt/dtshare/$work/dirtick

declare -A verdict
# run_part NAME VM ARGS...: one dirtick run in a guest; its verdict
run_part() {
	local name=$1 vm=$2 rc=0
	shift 2
	echo "## $name: $vm: dirtick $*"
	"$KLAB" exec "$vm" --timeout 300 "$bin" "$@" || rc=$?
	verdict[$name]=$rc
}

# cross PART WRITESET LISTSET: churn on c1, watch on c2, at once
cross() {
	local name=$1 wset=$2 lset=$3 rc=0 crc=0 dir=cross.$$.$1
	mkdir -p "$share/$work/$name"
	echo "## $name: c1 churns through $wset, c2 lists through $lset"
	"$KLAB" exec c2 --timeout 300 "$bin" watch "/mnt/dt/$lset/$dir" \
		"/mnt/dtshare/$work/$name" 100 1000 &
	local watcher=$!
	"$KLAB" exec c1 --timeout 300 "$bin" churn "/mnt/dt/$wset/$dir" \
		"/mnt/dtshare/$work/$name" 100 || crc=$?
	wait "$watcher" || rc=$?
	[ "$crc" = 0 ] || rc=3
	verdict[$name]=$rc
}

for p in ${PARTS//,/ }; do
	case $p in
	server) run_part server srv server "/run/export/dirtick.$$" 2000 ;;
	pair3) run_part pair3 c1 pair /mnt/dt/v3 /mnt/dt/v3s "pair3.$$" 200 60 1000 ;;
	pair4) run_part pair4 c1 pair /mnt/dt/v4 /mnt/dt/v4s "pair4.$$" 200 60 1000 ;;
	ac) run_part ac c1 pair /mnt/dt/v3 /mnt/dt/v3ac "ac.$$" 200 40 6000 ;;
	cross3) cross cross3 v3 v3s ;;
	cross4) cross cross4 v4 v4s ;;
	esac
done

echo
echo "part    expected           observed"
status=0
for p in ${PARTS//,/ }; do
	case ${verdict[$p]} in
	0) seen="not seen" ;;
	1) seen="BUG SHOWS"; status=1 ;;
	*) seen="did not run (rc ${verdict[$p]})" ;;
	esac
	printf '%-7s %-18s %s\n' "$p" "not seen" "$seen"
done
for p in ${PARTS//,/ }; do
	case ${verdict[$p]} in 0|1) ;; *) [ $status = 1 ] || status=3 ;; esac
done
exit $status
