#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Self-test of tools/bugfs, the bug-injecting FUSE target of lab/mutation: the
# clean passthrough behaves, the control file switches bugs at run time,
# and each bug shows its symptom directly, by shell commands (the suite's
# verdicts on them are lab/mutation's business).  Also shows, with a second
# mount over the same backing directory (a second "client"), the two bugs a
# single mount cannot see.  Last, a reduced lab/mutation run (one bug, one
# test program, a few seconds) shows that the general history checker
# catches a bug by itself and passes the clean target.  Runs in a private
# mount namespace; leaves no mount and no daemon.  Skips without root,
# /dev/fuse or build/bin/bugfs.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${DT_BUILD:-$root/build}
bugfs=$build/bin/bugfs

# shellcheck source=t/fusens.sh
. "$root/t/fusens.sh"
fuse_ns_or_skip DT_BUGFS_NS "$0" "$@"

tmp=$(mktemp -d /tmp/dt-bugfs.XXXXXX)
pids=() mnts=()
cleanup() {
	local m p i
	for m in ${mnts[@]+"${mnts[@]}"}; do fusermount3 -u "$m" 2>/dev/null; done
	for p in ${pids[@]+"${pids[@]}"}; do
		for i in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
	done
	for m in ${mnts[@]+"${mnts[@]}"}; do
		grep -qs " $m fuse" /proc/self/mounts && umount -l "$m"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
check() { local d=$1; shift; "$@" >/dev/null 2>&1; ok $? "$d"; }
check_not() { local d=$1; shift; ! "$@" >/dev/null 2>&1; ok $? "$d"; }

# up DIR OPTS: mount bugfs over $tmp/backing on $tmp/DIR
up() {
	local m=$tmp/$1 i
	mkdir -p "$m"
	"$bugfs" "$tmp/backing" "$m" -f -o "default_permissions,$2" \
		2>>"$tmp/bugfs.log" &
	pids+=($!) mnts+=("$m")
	for i in $(seq 100); do
		grep -qs " $m fuse" /proc/self/mounts && return 0
		sleep 0.05
	done
	return 1
}
ctl() { printf '%s\n' "$@" >"$a/.bugfs-ctl"; }
# "d_ino name" per entry of DIR, as getdents64 returns them (ls -i and
# find -printf %i stat every name: they would not see readdir's fileids)
dents() {
	perl -e '
		require "syscall.ph";
		opendir(my $dh, $ARGV[0]) or die "$ARGV[0]: $!\n";
		my $buf = "\0" x 65536;
		while (1) {
			my $n = syscall(&SYS_getdents64, fileno($dh), $buf, 65536);
			die "getdents64: $!\n" if $n < 0;
			last if $n == 0;
			for (my $o = 0; $o < $n;) {
				my ($ino, $off, $len) = unpack("Q q S", substr($buf, $o, 18));
				my $name = unpack("Z*", substr($buf, $o + 19, $len - 19));
				print "$ino $name\n" unless $name eq "." || $name eq "..";
				$o += $len;
			}
		}' "$1"
}
# the fileids a listing gives agree with stat, for every entry of DIR
ids_agree() {
	local d=$1 ino name
	while read -r ino name; do
		[ "$(stat -c %i "$d/$name")" = "$ino" ] || return 1
	done < <(dents "$d")
}
# a new work directory: $w (the last one's late bugs may still act on it)
nw=0
fresh() { nw=$((nw + 1)); w=$a/w$nw; mkdir "$w"; }
# with_bug BUG CMD...: CMD with BUG on, its output in $out, its exit in $rc
with_bug() {
	local bug=$1
	shift
	ctl bug="$bug"
	out=$("$@" 2>&1); rc=$?
	ctl bug=none
}
# scratch_left DIR: how many case scratch directories DIR still holds
scratch_left() { find "$1" -mindepth 1 -maxdepth 1 -name 'dentrace.*' | wc -l; }

echo "1..34"
mkdir "$tmp/backing"
up a "lag=400,stale=1"; ok $? "bugfs mounts"
a=$tmp/a

# ---- clean: a passthrough --------------------------------------------------
fresh
check "create, write, read back" bash -c "echo hi >'$w/f' && [ \"\$(cat '$w/f')\" = hi ]"
check "rename, link, unlink" bash -c "mv '$w/f' '$w/g' && ln '$w/g' '$w/h' && [ \$(stat -c %h '$w/g') = 2 ] && rm '$w/h' && [ ! -e '$w/f' ]"
check "an open unlinked file stays readable" bash -c "exec 3<'$w/g' && rm '$w/g' && [ \"\$(cat <&3)\" = hi ]"
for i in $(seq 400); do : >"$w/e.$i"; done
check "a 400-entry listing is exact" bash -c "[ \$(ls -f '$w' | grep -c '^e\.') = 400 ] && [ -z \"\$(ls -f '$w' | sort | uniq -d)\" ]"
check "readdir fileids agree with stat" ids_agree "$w"
check "the backing directory sees the same" bash -c "[ \$(ls '$tmp/backing/w$nw' | wc -l) = 400 ]"
check "the control file is not listed" bash -c "! ls -a '$a' | grep -q bugfs-ctl"
check "the control file reads bug=none" grep -qx 'bug=none' "$a/.bugfs-ctl"
check_not "an unknown bug is refused" ctl bug=nosuch

# ---- each bug, switched at run time ------------------------------------------
ctl bug=readdir_dup
check "readdir_dup: a listing repeats entries" bash -c "[ -n \"\$(ls -f '$w' | sort | uniq -d)\" ]"
ctl bug=readdir_drop
check "readdir_drop: a listing misses entries" bash -c "[ \$(ls -f '$w' | grep -c '^e\.') -lt 400 ]"
ctl bug=fileid_readdir
check_not "fileid_readdir: readdir fileids differ from stat" ids_agree "$w"
ctl bug=none
check "bug=none: exact again" bash -c "[ \$(ls -f '$w' | grep -c '^e\.') = 400 ] && [ -z \"\$(ls -f '$w' | sort | uniq -d)\" ]"

fresh; ctl bug=stale_lookup
stat "$w/s" >/dev/null 2>&1; : >"$w/s"
check_not "stale_lookup: a created file is not found at once" stat "$w/s"
sleep 1.2
check "... and found once the cached answer expired" stat "$w/s"

# the removal comes lag ms after the answer: 1 s, so that a loaded machine
# (a sanitizer build beside other work) still looks within the window
fresh; ctl bug=unlink_twice lag=1000
: >"$w/u"; rm "$w/u"
check "unlink_twice: found right after unlink returned" stat "$w/u"
check "... and unlinked again, successfully" rm "$w/u"

fresh; ctl bug=excl_create_twice lag=400
check "excl_create_twice: two exclusive creates of one name succeed" \
	bash -c "set -C; : >'$w/x' && : >'$w/x'"

fresh; : >"$w/src"; : >"$w/dst"; ctl bug=rename_unlink_first
check "rename_unlink_first: after rename, neither name exists" \
	bash -c "mv '$w/src' '$w/dst' && ! stat '$w/dst' && sleep 0.6 && stat '$w/dst'"

fresh; ctl "bug=hang_lookup" "hang_name=*.hang"
{ timeout -s KILL 2 stat "$w/x.hang"; } >/dev/null 2>&1; rc=$?
sleep 0.3
ok $(( rc == 137 && $(grep -c '^hung=0$' "$a/.bugfs-ctl") == 1 ? 0 : 1 )) \
	"hang_lookup: the lookup hangs until its caller is killed (exit $rc), then lets go"
ctl bug=none hang_name=*.7

# ---- what only a second client sees ---------------------------------------------
# b: a second mount of the same backing directory, caching for 5 s
fresh; : >"$w/c"; up b "bug=dcache_timeout,stale=5"; b=$tmp/b
stat "$b/${w##*/}/c" >/dev/null; rm "$w/c"
check "dcache_timeout: a second client still finds an unlinked name" stat "$b/${w##*/}/c"

# rename_window: the window lies inside rename(2); watch dst while it runs
# poll PATH: 0 if PATH was missing at least once within ~1 s
poll() {
	local i
	for i in $(seq 400); do
		stat "$1" >/dev/null 2>&1 || return 0
		sleep 0.0025
	done
	return 1
}
up c "timeout=0"; c=$tmp/c
fresh; ctl bug=rename_window
: >"$w/src"; : >"$w/dst"
( sleep 0.1; mv "$w/src" "$w/dst" ) & mv1=$!
check "rename_window: a second client sees the target missing" poll "$c/${w##*/}/dst"
wait $mv1
: >"$w/src2"
( sleep 0.1; mv "$w/src2" "$w/dst" ) & mv2=$!
check_not "... the renaming client never does (the VFS lock hides it)" poll "$w/dst"
wait $mv2
ctl bug=none

# ---- mkdir_lies: the target probe tells a wrong target from a broken one -------
fresh; ctl bug=mkdir_lies
check "mkdir_lies: mkdir answers ENOENT yet the directory exists" \
	bash -c "! mkdir '$w/m' 2>/dev/null && [ -d '$w/m' ]"
ctl bug=none; mkdir "$w/t"
if [ -x "$build/bin/lookup_storm" ] &&
   "$build/bin/lookup_storm" --target "$w/t" --init-target >/dev/null; then
	with_bug mkdir_lies "$build/bin/lookup_storm" --target "$w/t" --case absent --duration 0.2
	ok $(( rc == 1 && $(grep -c '^not ok 1 - target_probe: mkdir answered ENOENT but the directory exists' <<<"$out") == 1 ? 0 : 1 )) \
		"the target probe fails a mkdir that lies (exit $rc), not 65 \"not writable\""
	ok $(( $(grep -c '^  then: "the directory exists"' <<<"$out") == 1 &&
		$(scratch_left "$w/t") == 0 ? 0 : 1 )) \
		"... with the evidence in YAML, and the probe dir removed"
	[ "$rc" = 1 ] || sed 's/^/# /' <<<"$out"
else
	ok 0 "# SKIP no lookup_storm"; ok 0 "# SKIP no lookup_storm"
fi
ctl bug=none

# ---- noreplace_enoent: a probe answer that contradicts this host's own act ----
# The RENAME_NOREPLACE probe renames a file this host has just created: an
# ENOENT is the target's inconsistency, a FAIL with the evidence (a lookup
# right after finds the file), not a BROKEN case or a SKIP.
ctl bug=noreplace_enoent
check "noreplace_enoent: a no-replace rename of an existing file answers ENOENT" \
	python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
p, q = sys.argv[1].encode(), sys.argv[2].encode()
open(p, "w").close()
rc = libc.renameat2(-100, p, -100, q, 1)  # AT_FDCWD, RENAME_NOREPLACE
sys.exit(0 if rc < 0 and ctypes.get_errno() == 2 and os.path.exists(p) else 1)' "$a/np.p" "$a/np.q"
ctl bug=none; mkdir "$a/np"
if [ -x "$build/bin/rename_race" ] &&
   "$build/bin/rename_race" --target "$a/np" --init-target >/dev/null; then
	with_bug noreplace_enoent "$build/bin/rename_race" --target "$a/np" --case noreplace --duration 0.2
	ok $(( rc == 1 && $(grep -c '^not ok 1 - rename_race.noreplace$' <<<"$out") == 1 &&
		$(grep -c '^  *observed: "ENOENT; a lookup of it right after: present, fileid' <<<"$out") == 1 ? 0 : 1 )) \
		"the RENAME_NOREPLACE probe fails with the evidence (exit $rc), not BROKEN or SKIP"
	ok $(( $(scratch_left "$a/np") == 0 ? 0 : 1 )) \
		"... and leaves no scratch directory behind"
	[ "$rc" = 1 ] || sed "s/^/# /" <<<"$out"
else
	ok 0 "# SKIP no rename_race"; ok 0 "# SKIP no rename_race"
fi
ctl bug=none

# ---- stale_lookup under lookup_storm.renamed: read your own rename -----------
# LOOKUP answers replayed across this client's own create and rename: a
# failure (the own-rename oracle itself: t/check/oracle_race_own_rename)
if [ -x "$build/bin/lookup_storm" ] && [ -d "$w/t" ]; then
	out=$("$build/bin/lookup_storm" --target "$w/t" --case renamed --duration 0.3 2>&1); rc=$?
	ok $(( rc == 0 ? 0 : 1 )) "lookup_storm.renamed passes on the clean mount (exit $rc)"
	[ "$rc" = 0 ] || sed 's/^/# /' <<<"$out"
	with_bug stale_lookup "$build/bin/lookup_storm" --target "$w/t" --case renamed --duration 0.3
	ok $(( rc == 1 && $(grep -c '^not ok 1 - lookup_storm.renamed' <<<"$out") == 1 ? 0 : 1 )) \
		"stale_lookup: lookup_storm.renamed fails (stale answers around its own rename; exit $rc)"
	[ "$rc" = 1 ] || sed 's/^/# /' <<<"$out"
else
	ok 0 "# SKIP no lookup_storm"; ok 0 "# SKIP no lookup_storm"
fi
# coherence.positive_aged: the negative answer for x is replayed after
# another name's change was seen (one host: bound 0)
if [ -x "$build/bin/coherence" ] && [ -d "$w/t" ]; then
	with_bug stale_lookup "$build/bin/coherence" --target "$w/t" --case positive_aged --duration 0.3
	ok $(( rc == 1 && $(grep -c '^not ok 1 - coherence.positive_aged' <<<"$out") == 1 ? 0 : 1 )) \
		"stale_lookup: coherence.positive_aged sees the old negative answer (exit $rc)"
	[ "$rc" = 1 ] || sed 's/^/# /' <<<"$out"
else
	ok 0 "# SKIP no coherence"
fi

# ---- the mutation run, reduced: the history checker's own column --------------
# unlink_twice under unlink_race: the checker must flag it by itself
# ("caught" in its table) and judge the clean run consistent; lab/mutation
# exits 1 otherwise.  In this namespace already (DT_MUTATION_NS).
if [ -x "$build/bin/unlink_race" ]; then
	DT_MUTATION_NS=1 "$root/lab/mutation" --bugs unlink_twice --two none \
		--tests unlink_race --out "$tmp/mutation" >"$tmp/mutation.out" 2>&1
	rc=$?
	chk=$(sed -n '/^general history checker, one client/,/^$/p' "$tmp/mutation.out")
	ok $(( rc == 0 && $(grep -cE '^clean +0 viol +PASS ' <<<"$chk") == 1 &&
		$(grep -cE '^unlink_twice +caught +caught +unlink_race\.' <<<"$chk") == 1 ? 0 : 1 )) \
		"mutation: the history checker alone catches unlink_twice, passes clean (exit $rc)"
	[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/mutation.out"
else
	echo "ok $((n += 1)) - # SKIP mutation: no $build/bin/unlink_race"
fi
exit $failed
