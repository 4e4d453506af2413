#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build/bin/dtcheck on history dumps (the dt_history_dump text format):
# a good history exits 0, a bad one 1 with its counterexample, a search
# out of budget 4, bad input 65 with one line naming file:line, bad usage
# 64; several files of one run are merged and duplicate events dropped.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${DT_BUILD:-$root/build}/bin/dtcheck
tmp=$(mktemp -d /tmp/dt-dtcheck.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }
echo "1..14"

head='# dentrace history: 6 events
# t0_ns 1000 (the recorder'"'"'s clock; start and end are ns after t0)
# index host thread op[!=exclusive] name name2 result fileid start end [name:fileid,...]'
# a rename seen in order; names with escapes; a listing
cat >"$tmp/good.hist" <<EOT
$head
0 0 65535 create! s/a%20b - 0 5 0 10
1 0 65535 lookup s/c - ENOENT 0 11 12
2 0 1 rename s/a%20b s/c 0 0 100 200
3 0 2 lookup s/a%20b - ENOENT 0 120 130
4 0 2 lookup s/c - 0 5 140 150
5 0 3 readdir s - 1 0 210 220 [c:5]
EOT
# the lost rename window: neither name exists between 120 and 150
sed 's/^4 0 2 lookup s\/c - 0 5/4 0 2 lookup s\/c - ENOENT 0/' "$tmp/good.hist" >"$tmp/bad.hist"

out=$("$bin" "$tmp/good.hist" 2>&1); rc=$?
ok $(( rc == 0 ? 0 : 1 )) "good history exits 0"
ok $(( $(grep -c '^verdict: consistent' <<<"$out") == 1 ? 0 : 1 )) "... and says consistent"
ok $(( $(grep -c '^time: ' <<<"$out") == 1 ? 0 : 1 )) "... and the time taken"
out=$("$bin" "$tmp/bad.hist" 2>&1); rc=$?
ok $(( rc == 1 ? 0 : 1 )) "bad history exits 1"
ok $(( $(grep -c '^verdict: violation' <<<"$out") == 1 && $(grep -c 'not linearizable' <<<"$out") == 1 ? 0 : 1 )) "... says violation: not linearizable"
cex=$(sed -n '/^counterexample/,/^time/p' <<<"$out" | grep -c '^[0-9]')
ok $(( cex == 3 ? 0 : 1 )) "... with the 3-event counterexample (got $cex)"
echo "$out" | sed 's/^/# /'
# the same from stdin
"$bin" --quiet - <"$tmp/bad.hist" >/dev/null 2>&1; ok $(( $? == 1 ? 0 : 1 )) "- reads stdin"
# one host's dump twice: duplicates dropped, same verdict
out=$("$bin" "$tmp/good.hist" "$tmp/good.hist" 2>&1); rc=$?
ok $(( rc == 0 && $(grep -c '6 duplicate events dropped' <<<"$out") == 1 ? 0 : 1 )) "two copies of one history: duplicates dropped, consistent"
# a stale read (by another host: a host sees its own rename at once) is
# fine with --stale covering it
sed 's/^4 0 2 lookup s\/c - 0 5 140 150/4 1 2 lookup s\/a%20b - 0 5 300 310/' "$tmp/good.hist" >"$tmp/stale.hist"
"$bin" "$tmp/stale.hist" >/dev/null 2>&1; r1=$?
"$bin" --stale 0.001 "$tmp/stale.hist" >/dev/null 2>&1; r2=$?
ok $(( r1 == 1 && r2 == 0 ? 0 : 1 )) "stale lookup: violation, consistent with --stale 0.001 ms ($r1, $r2)"
# budget: 1 step cannot judge it
"$bin" --budget 1 "$tmp/good.hist" >/dev/null 2>&1; ok $(( $? == 4 ? 0 : 1 )) "--budget 1 exits 4 (inconclusive)"

# malformed input: 65 and one line naming file:line
printf '%s\n0 0 1 lookup s/x - ENOENT 0 1\n' "$head" >"$tmp/short.hist"
"$bin" "$tmp/short.hist" >/dev/null 2>"$tmp/err"; rc=$?
ok $(( rc == 65 && $(wc -l <"$tmp/err") == 1 && $(grep -c "short.hist:4:" "$tmp/err") == 1 ? 0 : 1 )) "a short line exits 65 naming file:line ($(cat "$tmp/err"))"
bad=0
for l in '0 0 1 frobnicate s/x - 0 0 1 2' '0 0 1 lookup s/x%2 - 0 0 1 2' '0 0 1 lookup s/x - EWHAT 0 1 2' \
	 '0 0 1 readdir s - 0 0 1 2 [a:1,' '0 0 1 readdir s - 0 0 1 2 [a]' '0 99999 1 lookup s/x - 0 0 1 2' \
	 '0 0 1 lookup s/x - 0 0 1 2 extra' '0 0 1 unlink! s/x - 0 0 1 2' '0 0 1 lookup s/x%00 - 0 0 1 2' \
	 "$(head -c 3000 /dev/zero | tr '\0' a) 0 1 lookup"; do
	printf '%s\n' "$l" >"$tmp/m.hist"
	"$bin" "$tmp/m.hist" >/dev/null 2>"$tmp/err"; rc=$?
	[ "$rc" = 65 ] && [ "$(wc -l <"$tmp/err")" = 1 ] || { bad=$((bad + 1)); echo "# '$l': exit $rc: $(cat "$tmp/err")"; }
done
head -c 100000 /dev/urandom >"$tmp/random.hist"
"$bin" "$tmp/random.hist" >/dev/null 2>&1; rc=$?
[ "$rc" = 65 ] || { bad=$((bad + 1)); echo "# random bytes: exit $rc"; }
ok $(( bad == 0 ? 0 : 1 )) "11 kinds of malformed input: 65, one line each"
"$bin" "$tmp/nosuch.hist" >/dev/null 2>&1; ok $(( $? == 65 ? 0 : 1 )) "a missing file exits 65"

# usage: 64
"$bin" >/dev/null 2>&1; r1=$?
"$bin" --stale x "$tmp/good.hist" >/dev/null 2>&1; r2=$?
"$bin" --nosuch "$tmp/good.hist" >/dev/null 2>&1; r3=$?
ok $(( r1 == 64 && r2 == 64 && r3 == 64 ? 0 : 1 )) "no file, bad --stale, unknown option exit 64 ($r1 $r2 $r3)"
exit $failed
