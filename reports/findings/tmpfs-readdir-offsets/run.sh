#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run.sh: readdir-churn in the kernel lab (lab/klab), as the README says.
#
#   run.sh [--seconds S] [--rounds N] [--sets v3,v3s,v4,v4s]
#
# DT_KLAB: the lab/klab to use (default: this checkout's); DT_KLABDIR and
# DT_KLAB_NS as for lab/klab.
# Needs a kernel lab that is up (lab/klab up [--export tmpfs|ext4]); the
# export kind and kernel come from `lab/klab info`.  Per set and round, at
# the same time: c1 is the writer (churn for S seconds, default 10); c2
# lists the directory over NFS; and on srv, with no NFS, two readers list
# the same directory on the exported filesystem itself: "local" with
# opendir/readdir, "reopen" the way knfsd serves each READDIR (open, seek
# to the cookie, read a batch, close).  One line per round, then the
# totals per set.  Exit status 0 when it ran (whatever it found), 2 on
# usage errors, 3 when the lab is not up.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd "$HERE/../../.." && pwd -P)
KLAB=${DT_KLAB:-$REPO/lab/klab}
# the lab's state dir, as lab/klab finds it (its share is /mnt/dtshare in
# the guests)
if [ -n "${DT_KLAB_NS:-}" ] && [ "$DT_KLAB_NS" != dt-klab ]; then
	LABDIR=${DT_KLABDIR:-$REPO/.lab/klab.$DT_KLAB_NS}
else
	LABDIR=${DT_KLABDIR:-$REPO/.lab/klab}
fi
SECONDS_=10 ROUNDS=3 SETS=v3,v3s,v4,v4s

usage() { sed -n '/^#   run.sh/p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) SECONDS_=${2:?}; shift ;;
	--rounds) ROUNDS=${2:?}; shift ;;
	--sets) SETS=${2:?}; shift ;;
	*) usage ;;
	esac
	shift
done
if ! [[ $SECONDS_ =~ ^[0-9]+$ ]] || [ "$SECONDS_" -lt 1 ] || [ "$SECONDS_" -gt 600 ]; then usage; fi
if ! [[ $ROUNDS =~ ^[0-9]+$ ]] || [ "$ROUNDS" -lt 1 ] || [ "$ROUNDS" -gt 100 ]; then usage; fi

info=$("$KLAB" info 2>/dev/null) || { echo "run.sh: the kernel lab is not up (lab/klab up --export tmpfs)" >&2; exit 3; }
export_kind=$(sed -n 's/^export=//p' <<<"$info")
echo "# $(tr '\n' ' ' <<<"$info")"

# the program, built here and put in the share (the guests run the host's
# userland, so a host build runs there as it is)
share=$LABDIR/share
work=readdir-churn/$$
mkdir -p "$share/$work"
trap 'rm -rf "${share:?}/${work:?}"' EXIT
cc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$share/$work/readdir-churn" "$HERE/readdir-churn.c"
gw=/mnt/dtshare/$work
bin=$gw/readdir-churn

printf '%-5s %-4s %-5s %6s | %-42s | %-30s | %s\n' export set round loops \
	"c2 NFS: listings missed repeated dup rpcs" "srv local: lists missed rep" "srv reopen: lists missed rep"
declare -A tot
for set in ${SETS//,/ }; do
	for ((r = 1; r <= ROUNDS; r++)); do
		name=rdchurn.$$.$set.$r
		ctl=$gw/$set.$r
		mkdir -p "$share/$work/$set.$r"
		# the lister and the control start first and wait for "go"
		"$KLAB" exec c2 --timeout $((SECONDS_ + 120)) "$bin" reader "/mnt/dt/$set/$name" "$ctl" "$SECONDS_" \
			>"$share/$work/$set.$r/c2" 2>&1 &
		c2=$!
		"$KLAB" exec srv --timeout $((SECONDS_ + 120)) "$bin" reader "/run/export/$name" "$ctl" "$SECONDS_" \
			>"$share/$work/$set.$r/srv" 2>&1 &
		srv=$!
		"$KLAB" exec srv --timeout $((SECONDS_ + 120)) "$bin" reopen "/run/export/$name" "$ctl" "$SECONDS_" \
			>"$share/$work/$set.$r/reopen" 2>&1 &
		reo=$!
		"$KLAB" exec c1 --timeout $((SECONDS_ + 120)) "$bin" writer "/mnt/dt/$set/$name" "$ctl" "$SECONDS_" \
			>"$share/$work/$set.$r/c1" 2>&1 || true
		wait "$c2" "$srv" "$reo" || true
		"$KLAB" exec c1 --timeout 120 rm -rf "/mnt/dt/$set/$name" >/dev/null 2>&1 || true
		loops=$(awk '/^writer loops/ { print $3 }' "$share/$work/$set.$r/c1")
		read -r -a a < <(awk '/^listings/ { print $2, $4, $6, $8, $14 }' "$share/$work/$set.$r/c2")
		read -r -a b < <(awk '/^listings/ { print $2, $4, $6 }' "$share/$work/$set.$r/srv")
		read -r -a c < <(awk '/^listings/ { print $2, $4, $6 }' "$share/$work/$set.$r/reopen")
		if [ ${#a[@]} != 5 ] || [ ${#b[@]} != 3 ] || [ ${#c[@]} != 3 ] || [ -z "$loops" ]; then
			echo "run.sh: round $set.$r did not report; its output:" >&2
			tail -n 5 "$share/$work/$set.$r"/* >&2
			continue
		fi
		printf '%-5s %-4s %-5s %6s | %8s %6s %8s %3s %6s | %10s %6s %6s   | %11s %6s %6s\n' \
			"$export_kind" "$set" "$r" "$loops" "${a[@]}" "${b[@]}" "${c[@]}"
		for k in 0 1 2 3; do
			tot[$set.c2.$k]=$((${tot[$set.c2.$k]:-0} + a[k]))
		done
		for k in 0 1 2; do
			tot[$set.srv.$k]=$((${tot[$set.srv.$k]:-0} + b[k]))
			tot[$set.reo.$k]=$((${tot[$set.reo.$k]:-0} + c[k]))
		done
	done
done
echo
echo "totals ($export_kind export, $ROUNDS rounds of $SECONDS_ s per set)"
printf '%-5s %-4s | %-35s | %-27s | %s\n' export set "c2 NFS: listings missed repeated dup" "srv local: lists missed rep" "srv reopen: lists missed rep"
for set in ${SETS//,/ }; do
	printf '%-5s %-4s | %8s %6s %8s %3s      | %10s %6s %6s   | %11s %6s %6s\n' "$export_kind" "$set" \
		"${tot[$set.c2.0]:-0}" "${tot[$set.c2.1]:-0}" "${tot[$set.c2.2]:-0}" "${tot[$set.c2.3]:-0}" \
		"${tot[$set.srv.0]:-0}" "${tot[$set.srv.1]:-0}" "${tot[$set.srv.2]:-0}" \
		"${tot[$set.reo.0]:-0}" "${tot[$set.reo.1]:-0}" "${tot[$set.reo.2]:-0}"
done
