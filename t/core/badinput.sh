#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input ends in one clear message and a documented exit status, in
# bounded time, without touching anything (TAP).  What t/core/harness.sh already
# checks (--threads 0, --duration -1, unknown case and tag, 'nfs://',
# a relative directory, an unmarked local directory) is not repeated here.
#
#   malformed targets   more URL shapes, DT_TARGET, a file, a missing dir
#   option values       out of range, not numbers, NaN/inf, extra args
#   unreachable server  refused, no route, unresolvable name, no such host
#   missing export      on the lab server (v3 and v4)
#   read-only target    the lab's /export-ro (v3, v4), and a read-only
#                       tmpfs in a private mount namespace (POSIX)
#   not a target        an unmarked directory over NFS; --init-target on a
#                       directory that is not empty
#   unknown test        lab/multihost with a test that does not exist
#   multi-host input    --coord without a token, a missing token file, no
#                       coordinator, a wrong token; coordd's own options
#   bad inventory       unparseable YAML, no server group (ansible-playbook
#                       in an empty network namespace: nothing is reached)
#
# Cases that need the lab (DT_NFS_URL4 from lab/check, or lab/lab urls)
# or root (namespaces, mounts) are skipped without them.  Exit statuses
# checked: 64 usage, 65 target rejected or unreachable, 2 broken (see
# README).  At the end the table of every case (input, message, exit,
# time) is printed as TAP comments.

# shellcheck disable=SC2034 # the snapshots are read in the t conditions
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${DT_BUILD:-$root/build}
bin=$build/bin/lookup_storm
tmp=$(mktemp -d /tmp/dt-badinput.XXXXXX)
own_ns=()
coord_pid=
cleanup() {
	[ -n "$coord_pid" ] && kill "$coord_pid" 2>/dev/null && wait "$coord_pid" 2>/dev/null
	for ns in "${own_ns[@]}"; do ip netns del "$ns" 2>/dev/null; done
	[ -n "${unmarked:-}" ] && rm -rf "$unmarked"
	rm -rf "$tmp"
}
trap cleanup EXIT

n=0 failed=0
table=()
ok() { # COND-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
todo() { # COND-STATUS DESCRIPTION REASON: a known gap, reported as TODO
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2 # TODO $3"; else echo "not ok $n - $2 # TODO $3"; fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
t() { if eval "$*"; then echo 0; else echo 1; fi; }
now_us() { echo "${EPOCHREALTIME/./}"; }

# run LABEL CMD...: RC, EL (seconds), MSG (the one message); the output
# stays in $tmp/out and $tmp/err
run() {
	local label=$1 t0
	shift
	t0=$(now_us)
	timeout -k 5 60 "$@" >"$tmp/out" 2>"$tmp/err"
	RC=$?
	EL=$(( ($(now_us) - t0) / 1000 ))
	EL=$(printf '%d.%03d' $((EL / 1000)) $((EL % 1000)))
	MSG=$(grep -m1 -E '^(Bail out!|not ok)' "$tmp/out")
	[ -n "$MSG" ] || MSG=$(grep -m1 -v '^dtcoordd: seed ' "$tmp/err")
	[ -n "$MSG" ] || MSG=$(grep -m1 -v '^TAP version' "$tmp/out")
	table+=("| $label | $(cut -c1-160 <<<"$MSG" | tr '|' '/') | $RC | ${EL}s |")
}
err_lines() { grep -c . "$tmp/err"; }
out_lines() { grep -c . "$tmp/out"; }

# a local marked target, and a snapshot of it: nothing may change there
mkdir -p "$tmp/t"
"$bin" --target "$tmp/t" --init-target >/dev/null || { echo "Bail out! cannot make a local target"; exit 2; }
snap() { (cd "$1" && find . -printf '%p %y %s %T@\n' | sort | md5sum); }
tsnap=$(snap "$tmp/t")

# ---- malformed targets: exit 65, one line on stderr, nothing started ----
for spec in 'nfs://h/e?version=5' 'ftp://srv/export' 'nfs://h:99999/e' 'nfs://[::1/e' \
	'nfs://user@h/e' 'nfs://h/e?nfsport=1&nfsport=2' 'nfs://h/e#frag' 'posix:relative/dir' \
	'nfs://999.1.1.1/e' "$(printf 'nfs://h/e\033[31m')" "/$(head -c 1100 /dev/zero | tr '\0' a)"; do
	run "target $(printf '%q' "$spec" | cut -c1-40)" "$bin" --target "$spec"
	# (control characters are quoted, never echoed to the terminal)
	ok "$(t '[ $RC = 65 ] && [ "$(err_lines)" = 1 ] && [ "$(out_lines)" = 0 ] && grep -q "^dentrace: target " "$tmp/err" && ! grep -q $'"'"'\033'"'"' "$tmp/err"')" \
		"target $(printf '%q' "$spec" | cut -c1-50): exit 65, one line naming the target ($(cut -c1-70 <<<"$MSG"))"
done
run "DT_TARGET=nfs://h/e?version=9" env DT_TARGET='nfs://h/e?version=9' "$bin"
ok "$(t '[ $RC = 65 ] && [ "$(err_lines)" = 1 ]')" "a malformed \$DT_TARGET: exit 65, one line"
run "target is a file" "$bin" --target /etc/hostname
ok "$(t '[ $RC = 65 ] && grep -q "^Bail out!.*ENOTDIR" "$tmp/out"')" "a file as target: Bail out! ENOTDIR, exit 65"
run "target missing" "$bin" --target "$tmp/nonexistent"
ok "$(t '[ $RC = 65 ] && grep -q "^Bail out!.*ENOENT" "$tmp/out"')" "a missing directory: Bail out! ENOENT, exit 65"

# ---- nonsensical option values: exit 64 before anything is touched -----
for args in "--threads 1025" "--threads abc" "--threads -4" "--duration 0" "--duration nan" \
	"--duration inf" "--duration 1e999" "--iterations 0" "--iterations -3" "--timeout 0" \
	"--timeout 86401" "--op-timeout 0" "--op-timeout -1" "--seed -5" "--seed 12x" \
	"--xfail $tmp/no-such-file" "--check-history=stale:x" "--check-history=sometimes" \
	"--check-history=skew:5,"; do
	# shellcheck disable=SC2086 # split the option from its value
	run "$args" "$bin" --target "$tmp/t" $args
	ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && [ "$(out_lines)" = 0 ] && grep -q -- "${args%% *}" "$tmp/err"')" \
		"$args: exit 64, one line naming the option ($MSG)"
done
run "DT_CHECK_HISTORY=stale" env DT_CHECK_HISTORY=stale "$bin" --target "$tmp/t"
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q DT_CHECK_HISTORY "$tmp/err"')" \
	"a malformed \$DT_CHECK_HISTORY: exit 64, one line naming it ($MSG)"
run "extra argument" "$bin" --target "$tmp/t" stray
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ]')" "a stray argument: exit 64, one line ($MSG)"
run "--bogus" "$bin" --target "$tmp/t" --bogus
ok "$(t '[ $RC = 64 ] && head -1 "$tmp/err" | grep -q "bogus"')" "an unknown option: exit 64, the first line names it, usage follows"
ok "$(t '[ "$(snap "$tmp/t")" = "$tsnap" ]')" "... the target was not touched by any of the above"

# ---- unreachable servers: Bail out!, exit 65, in bounded time -----------
# nothing listens on port 1 of this host's loopback
run "server refuses (v4)" "$bin" --target 'nfs://127.0.0.1/export?version=4&nfsport=1'
ok "$(t '[ $RC = 65 ] && grep -q "^Bail out! cannot reach target.*ECONNREFUSED" "$tmp/out"')" \
	"connection refused (v4): Bail out! ... ECONNREFUSED, exit 65 in ${EL}s"
run "server refuses (v3)" "$bin" --target 'nfs://127.0.0.1/export?version=3&nfsport=1&mountport=1'
ok "$(t '[ $RC = 65 ] && grep -q "^Bail out! cannot reach target" "$tmp/out"')" \
	"connection refused (v3): Bail out!, exit 65 in ${EL}s ($MSG)"
if [ "$(id -u)" = 0 ]; then
	# a namespace with nothing but loopback: no route, no name server
	ns=dtb-$$
	ip netns add "$ns" && own_ns+=("$ns") && ip -n "$ns" link set lo up
	run "no route to server" ip netns exec "$ns" "$bin" --target 'nfs://192.0.2.1/export?version=4'
	ok "$(t '[ $RC = 65 ] && grep -q "^Bail out! cannot reach target" "$tmp/out" && [ ${EL%.*} -lt 30 ]')" \
		"no route to the server: Bail out!, exit 65 in ${EL}s ($MSG)"
	run "unresolvable host" ip netns exec "$ns" "$bin" --target 'nfs://no-such-host.invalid/export?version=3'
	ok "$(t '[ $RC = 65 ] && grep -q "^Bail out! cannot reach target" "$tmp/out" && [ ${EL%.*} -lt 30 ]')" \
		"a host name that does not resolve: Bail out!, exit 65 in ${EL}s ($MSG)"
else
	skip "no route / unresolvable host" "needs root (network namespace)"
	skip "unresolvable host" "needs root"
fi

# ---- the lab: missing export, no such host, read-only, unmarked ---------
url4=${DT_NFS_URL4:-$(cd "$root" && lab/lab urls 2>/dev/null | grep 'version=4' | head -1)}
labns=dt-c1
if [ -n "$url4" ] && [ "$(id -u)" = 0 ] && [ -e /run/netns/$labns ]; then
	srv=${url4#nfs://}
	srv=${srv%%/*}
	for v in 3 4; do
		run "missing export v$v" ip netns exec $labns "$bin" --target "nfs://$srv/no-such-export?version=$v"
		ok "$(t '[ $RC = 65 ] && grep -qE "^Bail out! cannot reach target.*(ENOENT|EACCES)" "$tmp/out"')" \
			"missing export (v$v): Bail out! ... $(grep -oE "(ENOENT|EACCES)$" "$tmp/out"), exit 65 in ${EL}s"
	done
	run "missing dir in export" ip netns exec $labns "$bin" --target "nfs://$srv/export/no/such/dir?version=4"
	ok "$(t '[ $RC = 65 ] && grep -q "^Bail out!.*ENOENT" "$tmp/out"')" "a missing directory in the export: Bail out! ENOENT, exit 65"
	# an address in the lab subnet where no host answers (ARP fails)
	run "no such host in the lab subnet" ip netns exec $labns "$bin" --target 'nfs://10.99.0.99/export?version=4'
	ok "$(t '[ $RC = 65 ] && grep -q "^Bail out! cannot reach target" "$tmp/out" && [ ${EL%.*} -lt 40 ]')" \
		"a server address nobody answers: Bail out!, exit 65 in ${EL}s ($MSG)"

	# read only: every verdict names EROFS; nothing is written
	labdir=$(cat /run/dentrace-lab/owner 2>/dev/null)
	if [ -n "$labdir" ] && ip netns exec $labns timeout 10 nfs-ls "nfs://$srv/export-ro?version=4" >/dev/null 2>&1; then
		rosnap=$(snap "$labdir/export-ro")
		for v in 3 4; do
			run "read-only export v$v" ip netns exec $labns "$bin" --target "nfs://$srv/export-ro?version=$v" -d 0.5
			ok "$(t '{ [ $RC = 2 ] || [ $RC = 65 ]; } && [ "$(grep -cE "^(not ok|Bail out!)" "$tmp/out")" -ge 1 ] && ! grep -E "^(not ok|Bail out!)" "$tmp/out" | grep -qvE "EROFS|EACCES|read-only"')" \
				"read-only export (v$v): exit $RC, every verdict names EROFS ($(cut -c1-90 <<<"$MSG"))"
			ok "$(t '[ $RC = 65 ] && [ "$(grep -c "^Bail out!" "$tmp/out")" = 1 ] && ! grep -q "^not ok" "$tmp/out"')" \
				"read-only export (v$v): refused up front, one Bail out! (exit 65)"
		done
		ok "$(t '[ "$(snap "$labdir/export-ro")" = "$rosnap" ]')" "... the read-only export is as it was"
	else
		skip "read-only export" "the lab serves no /export-ro yet (lab/lab down; lab/lab up)"
	fi

	# an unmarked directory on the server is refused and left alone
	if [ -n "$labdir" ] && [ -d "$labdir/export" ]; then
		unmarked=$labdir/export/dtb-unmarked-$$
		mkdir -p "$unmarked/precious" && echo keep >"$unmarked/precious/file"
		mkdir -p "$unmarked/dentrace.$(hostname -s | cut -d. -f1).999999999.lookup_storm.absent"
		usnap=$(snap "$unmarked")
		run "unmarked NFS directory" ip netns exec $labns "$bin" --target "nfs://$srv/export/dtb-unmarked-$$?version=4"
		ok "$(t '[ $RC = 65 ] && grep -q "^Bail out!.*not a dentrace target" "$tmp/out" && [ "$(snap "$unmarked")" = "$usnap" ]')" \
			"unmarked directory over NFS: Bail out!, exit 65, nothing swept or written there"
		rm -rf "$unmarked"
		unmarked=
	fi
else
	skip "missing export, read-only export, unmarked NFS directory" "no lab (lab/lab up) or not root"
fi

# a read-only local filesystem, in a mount namespace of our own
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	mkdir -p "$tmp/ro"
	run "read-only tmpfs (posix)" unshare -m --propagation private bash -c '
		mount -t tmpfs -o size=1m tmpfs "$1" && : >"$1/.dentrace-target" &&
		mount -o remount,ro "$1" && exec "$2" --target "$1" -d 0.5' ro "$tmp/ro" "$bin"
	ok "$(t '{ [ $RC = 2 ] || [ $RC = 65 ]; } && ! grep -E "^(not ok|Bail out!)" "$tmp/out" | grep -qvE "EROFS|EACCES|read-only"')" \
		"read-only filesystem (posix): exit $RC, every verdict names EROFS"
else
	skip "read-only tmpfs" "needs root (mount namespace)"
fi

# ---- not a target ------------------------------------------------------
mkdir -p "$tmp/full" && echo mine >"$tmp/full/mine"
fsnap=$(snap "$tmp/full")
run "--init-target on a non-empty dir" "$bin" --target "$tmp/full" --init-target
ok "$(t '[ $RC = 65 ] && [ "$(err_lines)" = 1 ] && grep -q "refusing to mark.*not empty" "$tmp/err" && [ "$(snap "$tmp/full")" = "$fsnap" ]')" \
	"--init-target on a directory that is not empty: refused, exit 65, untouched"

# ---- unknown test -------------------------------------------------------
run "lab/multihost no-such-test" "$root/lab/multihost" no_such_test
ok "$(t '[ $RC = 64 ] && grep -q "^Bail out! no test program" "$tmp/out"')" "lab/multihost with an unknown test: Bail out!, exit 64"
run "lab/multihost --version 5" "$root/lab/multihost" --version 5 lookup_storm
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ]')" "lab/multihost --version 5: exit 64, one line"
run "lab/multihost --batch without --klab" "$root/lab/multihost" --batch "$tmp/b" lookup_storm,create_race
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q "batch needs --klab" "$tmp/err"')" "lab/multihost --batch without --klab: exit 64, one line"
run "lab/multihost --batch, an unknown test" "$root/lab/multihost" --klab v3ac --batch "$tmp/b" lookup_storm,no_such_test.x
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q "no test program .*/no_such_test$" "$tmp/err" && [ ! -e "$tmp/b" ]')" \
	"lab/multihost --batch with an unknown test (TEST.CASE): exit 64 before anything runs"
run "lab/multihost --lanes 0" "$root/lab/multihost" --klab v3ac --batch "$tmp/b" --lanes 0 lookup_storm,create_race
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q "lanes .0.: a number" "$tmp/err"')" "lab/multihost --lanes 0: exit 64, one line"
run "lab/multihost --lanes without --batch" "$root/lab/multihost" --klab v3ac --lanes 2 lookup_storm
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q "lanes needs --batch" "$tmp/err"')" "lab/multihost --lanes without --batch: exit 64, one line"
run "lab/multihost --solo without --batch" "$root/lab/multihost" --klab v3ac --solo kn_xclient lookup_storm
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q "solo needs --batch" "$tmp/err"')" "lab/multihost --solo without --batch: exit 64, one line"
run "lab/kmutation --lanes x" "$root/lab/kmutation" --lanes x
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q "lanes .x.: tests side" "$tmp/err"')" "lab/kmutation --lanes x: exit 64, one line"
run "lab/kmutation --sweep x" "$root/lab/kmutation" --sweep x
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ]')" "lab/kmutation --sweep x: exit 64, one line"
run "lab/kmutation --sweep-only --sweep 0" "$root/lab/kmutation" --sweep-only --sweep 0
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q "runs nothing" "$tmp/err"')" "lab/kmutation --sweep-only --sweep 0: exit 64, one line"
run "lab/kmutation --smp 2 on UML" "$root/lab/kmutation" --smp 2
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q "smp needs --vm qemu" "$tmp/err"')" "lab/kmutation --smp without --vm qemu: exit 64, one line"
run "lab/kmutation --vm qemu, a built-in mutant" "$root/lab/kmutation" --vm qemu --tests lookup_storm --mutants vfs-dirseq-noretry
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q "a module cannot carry it" "$tmp/err"')" "lab/kmutation --vm qemu with a VFS mutant: exit 64, one line"
run "lab/kmutation, a mutant not in DT_KERNEL_MUTANTS" env DT_KERNEL_MUTANTS=lab/kernel/sleep-controls "$root/lab/kmutation" --tests lookup_storm --mutants vfs-inlookup-braino
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q "sleep-controls/vfs-inlookup-braino.patch" "$tmp/err"')" "lab/kmutation: a mutant not in DT_KERNEL_MUTANTS: exit 64, one line"
run "lab/kernel/nfs-modules, a built-in mutant" "$root/lab/kernel/nfs-modules" --mutant vfs-dirseq-noretry
ok "$(t '[ $RC = 2 ] && [ "$(err_lines)" = 1 ] && grep -q "a module cannot carry it" "$tmp/err"')" "lab/kernel/nfs-modules --mutant of built-in code: exit 2, one line"

# ---- multi-host input ---------------------------------------------------
run "--coord without --token-file" "$bin" --target "$tmp/t" --coord 127.0.0.1:1
ok "$(t '[ $RC = 64 ] && [ "$(err_lines)" = 1 ] && grep -q "coord and --token-file go together" "$tmp/err"')" "--coord without --token-file: one line, exit 64, before the target is touched"
run "--token-file missing" "$bin" --target "$tmp/t" --coord 127.0.0.1:1 --token-file "$tmp/no-token"
ok "$(t '[ $RC = 64 ] && grep -q "^Bail out! run token.*ENOENT" "$tmp/out"')" "a missing token file: Bail out!, exit 64"
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tmp/token"
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tmp/wrong"
run "no coordinator" "$bin" --target "$tmp/t" --coord 127.0.0.1:1 --token-file "$tmp/token"
ok "$(t '[ $RC = 2 ] && grep -q "^Bail out! joining the run" "$tmp/out" && [ ${EL%.*} -lt 30 ]')" \
	"no coordinator at --coord: Bail out!, exit 2 in ${EL}s"
"$build/bin/dtcoordd" --hosts 2 --listen 127.0.0.1:0 --token-file "$tmp/token" --timeout 10 --idle 30 \
	>"$tmp/coord.out" 2>"$tmp/coord.err" &
coord_pid=$!
addr=
for _ in $(seq 100); do
	addr=$(sed -n 's/^listening //p' "$tmp/coord.out")
	[ -n "$addr" ] && break
	sleep 0.02
done
if [ -n "$addr" ]; then
	run "wrong run token" "$bin" --target "$tmp/t" --coord "$addr" --token-file "$tmp/wrong"
	ok "$(t '[ $RC = 2 ] && grep -q "^Bail out! joining the run.*" "$tmp/out" && grep -q "wrong run token" "$tmp/coord.err"')" \
		"a wrong run token: refused (Bail out!, exit 2), the coordinator logs it ($MSG)"
else
	skip "wrong run token" "dtcoordd did not start: $(head -1 "$tmp/coord.err")"
fi
kill "$coord_pid" 2>/dev/null
wait "$coord_pid" 2>/dev/null
coord_pid=
for args in "--hosts 0 --listen 127.0.0.1:0 --token-file $tmp/token" \
	"--hosts 65 --listen 127.0.0.1:0 --token-file $tmp/token" \
	"--hosts 2 --listen nowhere --token-file $tmp/token" \
	"--hosts 2 --listen 127.0.0.1:0 --token-file $tmp/no-token" \
	"--hosts 2 --listen 127.0.0.1:0 --token-file /dev/null"; do
	# shellcheck disable=SC2086
	run "dtcoordd ${args/$tmp\//}" "$build/bin/dtcoordd" $args
	ok "$(t '[ $RC = 64 ] && [ -n "$MSG" ] && [ "$(out_lines)" = 0 ]')" "dtcoordd ${args//$tmp\//}: exit 64 before listening ($MSG)"
done

# ---- bad inventory --------------------------------------------------------
if command -v ansible-playbook >/dev/null && [ "$(id -u)" = 0 ] && [ -f "$root/playbooks/check.yml" ]; then
	ns=dtb-inv-$$
	ip netns add "$ns" && own_ns+=("$ns") && ip -n "$ns" link set lo up
	printf 'all:\n  children:\n    server:\n      hosts: [\n' >"$tmp/inv-broken.yml"
	printf 'all:\n  children:\n    clients:\n      hosts:\n        c1:\n          ansible_host: 192.0.2.11\n' >"$tmp/inv-noserver.yml"
	run "inventory: no server group" ip netns exec "$ns" env ANSIBLE_NOCOLOR=1 \
		ansible-playbook -i "$tmp/inv-noserver.yml" "$root/playbooks/check.yml"
	ok "$(t '[ $RC != 0 ] && grep -q "the inventory needs exactly one host in group server" "$tmp/out"')" \
		"an inventory without a server: the playbook stops naming what is missing (exit $RC)"
	table[-1]="| inventory: no server group | $(grep -o -m1 'the inventory needs exactly one host in group server[^"]*' "$tmp/out" | cut -c1-120) | $RC | ${EL}s |"
	run "inventory: unparseable YAML" ip netns exec "$ns" env ANSIBLE_NOCOLOR=1 \
		ansible-playbook -i "$tmp/inv-broken.yml" "$root/playbooks/check.yml"
	ok "$(t '[ $RC != 0 ]')" "an unparseable inventory: the playbook fails (exit $RC)"
	# ansible.cfg sets [inventory] unparsed_is_failed: it stops at once
	ok "$(t 'grep -E "fatal|ERROR" "$tmp/out" "$tmp/err" | head -1 | grep -qi "inventory"')" \
		"... and the first error says the inventory could not be parsed"
	table[-1]="| inventory: unparseable YAML | $(grep -h -m1 -E "fatal|ERROR" "$tmp/out" "$tmp/err" | head -1 | cut -c1-120) | $RC | ${EL}s |"
else
	skip "bad inventory" "needs ansible-playbook, root and playbooks/check.yml"
fi

echo "1..$n"
echo "# | bad input | what the user saw | exit | time |"
echo "# |---|---|---|---|"
printf '# %s\n' "${table[@]}"
exit $failed
