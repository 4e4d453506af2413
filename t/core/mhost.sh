#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A multi-host run goes on after one host's hung or failed case (issues 17
# and 19): three hosts on loopback, one coordinator, lookup_storm's cases
# "absent" then "present" on a local directory.  Host hA's lookups block
# in "absent" only (--hang-op lookup@absent):
#   1. hung: the case timeout kills it; hA says "hung", comes back on a new
#      connection, and the other two hosts' verdict for "absent" names hA
#      and the hang; then all three run "present" to a PASS;
#   2. failed: the watchdog (--op-timeout 1) fails hA's case before its
#      last barrier; the others' verdict names hA and the failure, and
#      all three run "present" to a PASS.
# Before each case the hosts still in the run meet at a case start; the
# old behaviour (every later barrier of the run failed once one did) turns
# "present" into BROKEN on every host.
# Agreement mode (--check-history) counts every host's test failures, not
# only the leader's (hA joins first: the leader; hB gets the knob
# --inject-failure, which makes its test fail once):
#   3. unlink_race.lookup_vs_unlink, hB's first close fails (EIO, recorded):
#      hB's test failed, the leader's oracle passed, the checker flags the
#      close: "agree" (the leader alone said "oracle gap");
#   4. lookup_storm.present, hB's test fails outside the history: the
#      checker finds none, a "checker gap" naming hB (the leader alone
#      said "agree: both found none").
# No root needed; ~20 s.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${DT_BUILD:-$root/build}
bin=$build/bin/lookup_storm
coordd=$build/bin/dtcoordd
skip() { echo "1..0 # SKIP $*"; exit 0; }
[ -x "$bin" ] && [ -x "$coordd" ] || skip "not built ($bin, $coordd)"

tmp=$(mktemp -d /tmp/dt-mhost.XXXXXX)
coord_pid=
trap '[ -n "$coord_pid" ] && kill "$coord_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir "$tmp/target"
"$bin" --target "$tmp/target" --init-target >/dev/null
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tmp/token"
chmod 600 "$tmp/token"

n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

# run NAME ARGS...: a coordinator and three hosts; host $knob (hA unless
# set) gets ARGS; each runs $prog (lookup_storm) --case $cases
# (absent,present) plus $common; hA joins first (the leader); TAP in
# $tmp/NAME.hX.tap, exit statuses in rc_hX, seconds in el
knob=hA prog=$bin cases=absent,present common=
run() {
	local name=$1 addr= h s
	shift
	: >"$tmp/$name.coord"
	"$coordd" --hosts 3 --listen 127.0.0.1:0 --token-file "$tmp/token" \
		--timeout 30 --idle 60 >"$tmp/$name.coord" 2>&1 &
	coord_pid=$!
	for _ in $(seq 200); do
		addr=$(sed -n 's/^listening //p' "$tmp/$name.coord")
		[ -n "$addr" ] && break
		sleep 0.05
	done
	s=$(date +%s%N)
	for h in hA hB hC; do
		# shellcheck disable=SC2046,SC2086 # the host's own arguments
		timeout -s KILL 90 "$prog" --target "$tmp/target" --coord "$addr" \
			--token-file "$tmp/token" --host-name "$h" --run-id "$name" \
			--case "$cases" --duration 1 --threads 2 $common \
			$([ "$h" = "$knob" ] && echo "$@") \
			>"$tmp/$name.$h.tap" 2>&1 &
		eval "pid_$h=\$!"
		# hA first: host 0, the leader (polled, bounded)
		[ "$h" = hA ] || continue
		for _ in $(seq 200); do
			grep -q "host 0 'hA' joined" "$tmp/$name.coord" && break
			sleep 0.05
		done
	done
	for h in hA hB hC; do
		eval "wait \$pid_$h; rc_$h=\$?"
	done
	el=$(( ($(date +%s%N) - s) / 1000000000 ))
	wait "$coord_pid" 2>/dev/null
	coord_pid=
}
echo "1..17"

# 1. hA's case hangs: killed at the 8 s timeout (the next case, 1 s of load,
# must fit in it too: under ThreadSanitizer at load ~7 4 s did not)
run hung --hang-op lookup@absent --timeout 8 --op-timeout 60
ok "$(grep -q '^not ok 1 - lookup_storm.absent # hung' "$tmp/hung.hA.tap" &&
      grep -q '^  outcome: hung' "$tmp/hung.hA.tap"; echo $?)" \
	"hung: hA's case is not ok, outcome hung (exit $rc_hA)"
good=0
for h in hB hC; do
	grep -q "^not ok 1 - lookup_storm.absent # BROKEN: .*host [0-9] (hA) gave up the case: lookup_storm.absent hung" \
		"$tmp/hung.$h.tap" || good=1
done
ok "$good" "... hB's and hC's verdict for it names hA and the hang"
good=0
for h in hA hB hC; do grep -q '^ok 2 - lookup_storm.present$' "$tmp/hung.$h.tap" || good=1; done
ok "$good" "... and all three hosts run the next case to a PASS"
ok "$([ "$rc_hA" = 1 ] && [ "$rc_hB" = 2 ] && [ "$rc_hC" = 2 ] &&
      [ "$el" -lt 30 ]; echo $?)" \
	"... exits: hA 1 (fail), hB $rc_hB, hC $rc_hC (broken), all in $el s"

# 2. hA's case fails early: the watchdog ends it before its last barrier
run failed --hang-op lookup@absent --timeout 20 --op-timeout 1
ok "$(grep -q '^not ok 1 - lookup_storm.absent$' "$tmp/failed.hA.tap" &&
      grep -q '^  outcome: fail' "$tmp/failed.hA.tap"; echo $?)" \
	"failed: hA's case fails (watchdog) (exit $rc_hA)"
good=0
for h in hB hC; do
	grep -q "^not ok 1 - lookup_storm.absent # BROKEN: .*host [0-9] (hA) gave up the case: lookup_storm.absent fail" \
		"$tmp/failed.$h.tap" || good=1
done
ok "$good" "... hB's and hC's verdict for it names hA and the failure"
good=0
for h in hA hB hC; do grep -q '^ok 2 - lookup_storm.present$' "$tmp/failed.$h.tap" || good=1; done
ok "$good" "... and all three hosts run the next case to a PASS"
ok "$([ "$el" -lt 15 ]; echo $?)" \
	"... without waiting for the 20 s timeout ($el s)"

# 3. a non-leader's test failed, and the checker saw it too: agree
knob=hB prog=$build/bin/unlink_race cases=lookup_vs_unlink common=--check-history
run agree --inject-failure close@lookup_vs_unlink
ok "$(grep -q '^not ok 1 - unlink_race.lookup_vs_unlink' "$tmp/agree.hB.tap" &&
      grep -q 'injected' "$tmp/agree.hB.tap" &&
      grep -q 'history_check: "judged by the leader host"' "$tmp/agree.hB.tap"
      echo $?)" "agree: hB's test fails (its close, injected), the leader judges"
ok "$(grep -q 'handle lifetime: close of open' "$tmp/agree.hA.tap"; echo $?)" \
	"... the leader's checker flags hB's failed close"
# hB's index: hB and hC join in either order
hb=$(sed -n 's/^# joined .* as host \([0-9]*\) of .*(hB)$/\1/p' "$tmp/agree.hB.tap")
ok "$(grep -qF "  history_agreement: \"agree: both found a violation (host $hb: 1)\"" \
	"$tmp/agree.hA.tap"; echo $?)" \
	"... and the agreement counts hB's failure (host $hb): agree, not an oracle gap"

# 4. a non-leader's test failed outside the history: a checker gap
prog=$bin cases=present
run gap --inject-failure present
ok "$(grep -q '^ok 1 - lookup_storm.present' "$tmp/gap.hA.tap" &&
      grep -q '^not ok 1 - lookup_storm.present' "$tmp/gap.hB.tap"; echo $?)" \
	"gap: hB's test fails (injected), the leader's passes"
hb=$(sed -n 's/^# joined .* as host \([0-9]*\) of .*(hB)$/\1/p' "$tmp/gap.hB.tap")
ok "$(grep -qF "  history_agreement: \"checker gap: the test failed 1 time(s) (host $hb: 1), the checker found the history consistent" \
	"$tmp/gap.hA.tap"; echo $?)" \
	"... and the leader reports a checker gap naming hB (host $hb)"

# 5. the settle check: after the load and the stale bound every host
# re-reads the case's names; hA misreports one (--settle-lie, as a client
# that kept a stale dentry would): every host's verdict fails on it
good=0
for h in hA hB hC; do grep -q '^  settle: .* agree after' "$tmp/hung.$h.tap" || good=1; done
ok "$good" "settle: in a good run all three hosts agree after the load"
knob=hA prog=$bin cases=absent,present common=
run lie --settle-lie --timeout 20
good=0
for h in hA hB hC; do
	for c in '1 - lookup_storm.absent' '2 - lookup_storm.present'; do
		grep -q "^not ok $c\$" "$tmp/lie.$h.tap" || good=1
	done
	grep -q '^      op: "settle: every host' "$tmp/lie.$h.tap" || good=1
done
ok "$good" "settle: hA's lie fails both cases on all three hosts"
ok "$(grep -q 'observed: "host [0-9]: lookup(dentrace.*) = ' "$tmp/lie.hB.tap" &&
      grep -q 'hosts disagree after the load and the stale bound' "$tmp/lie.hB.tap"; echo $?)" \
	"... naming the name, both hosts' answers and the rule"

# 6. a probe all hosts run (RENAME_NOREPLACE) meets at a barrier before any
# host acts on its answer: three hosts in one scratch dir all pass
knob=hA prog=$build/bin/rename_race cases=noreplace common=
run probe --timeout 30
good=0
for h in hA hB hC; do grep -q '^ok 1 - rename_race.noreplace$' "$tmp/probe.$h.tap" || good=1; done
ok "$good" "noreplace: three hosts probe, then race, in one scratch dir: all pass"

if [ "$failed" != 0 ] || [ -n "${DT_MHOST_SHOW:-}" ]; then
	for f in "$tmp"/*.tap "$tmp"/*.coord; do sed "s|^|# ${f##*/}: |" "$f"; done
fi
exit "$failed"
