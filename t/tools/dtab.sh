#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build/bin/dtab, the interleaved A/B detector, can fail both ways: a B
# made 30% slower (--inject) is a regression (exit 1) of about that size,
# the same against the same is not (exit 0, or 3 when too noisy to tell);
# bad usage 64, an unmarked target 65; no scratch directory is left.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${DT_BUILD:-$root/build}/bin/dtab
tmp=$(mktemp -d /dev/shm/dt-dtab.XXXXXX 2>/dev/null || mktemp -d /tmp/dt-dtab.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }
echo "1..9"
mkdir -p "$tmp/t" "$tmp/plain"
: >"$tmp/t/.dentrace-target"

"$bin" >/dev/null 2>&1; rc=$?
ok $(( rc == 64 ? 0 : 1 )) "no --a: usage, exit 64 (got $rc)"
"$bin" --a "$tmp/t" --budget x >/dev/null 2>&1; rc=$?
ok $(( rc == 64 ? 0 : 1 )) "--budget x: exit 64 (got $rc)"
out=$("$bin" --a "$tmp/plain" 2>&1); rc=$?
ok $(( rc == 65 ? 0 : 1 )) "unmarked directory: exit 65 (got $rc)"
ok $(( $(grep -c 'not a dentrace target' <<<"$out") == 1 ? 0 : 1 )) "... saying so in one line"

out=$("$bin" --a "$tmp/t" --inject 30 --budget 3 --json "$tmp/v.jsonl" --quiet 2>&1); rc=$?
echo "# $out"
ok $(( rc == 1 ? 0 : 1 )) "B 30% slower: a regression, exit 1 (got $rc)"
eff=$(sed -n 's/.*"effect":\([-0-9.e]*\).*/\1/p' "$tmp/v.jsonl")
ok "$(awk -v e="${eff:-0}" 'BEGIN { print (e > 0.2 && e < 0.4) ? 0 : 1 }')" "... of about that size (effect $eff)"

# a change must be 5% to count here: the test may run on a busy machine
out=$("$bin" --a "$tmp/t" --budget 3 --min-effect 0.05 --quiet 2>&1); rc=$?
echo "# $out"
ok $(( rc == 0 || rc == 3 ? 0 : 1 )) "the same against the same: no regression (exit $rc)"
ok $(( $(grep -c '^dtab: lookup: \(no change\|inconclusive\|improvement\) ' <<<"$out") == 1 ? 0 : 1 )) "... one verdict line"
left=$(find "$tmp/t" -mindepth 1 -maxdepth 1 -name 'dentrace.*' | wc -l)
ok $(( left == 0 ? 0 : 1 )) "no scratch directory left ($left)"
exit $failed
