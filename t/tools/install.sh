#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make install into a temporary DESTDIR, then the installed `dentrace` on
# its own (no checkout on its paths): --list, a small run on a local
# directory target with its report, the bad-input exit codes; then make
# uninstall leaves no file behind.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# what `make install` installs is the plain build, also when the self-tests
# run from a sanitizer build (DT_BUILD=build-san): its objects would need
# the sanitizer's flags to link
build=$root/build
tmp=$(mktemp -d /tmp/dt-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }
echo "1..12"

dest=$tmp/dest prefix=/opt/pfx
make -s -C "$root" BUILD="$build" DESTDIR="$dest" PREFIX="$prefix" install >"$tmp/install.log" 2>&1
ok $? "make install DESTDIR=... PREFIX=$prefix"
dt=$dest$prefix/bin/dentrace
[ -x "$dt" ] && [ -x "$dest$prefix/bin/dtcoordd" ] && [ -f "$dest$prefix/share/man/man1/dentrace.1" ] &&
	[ -f "$dest$prefix/share/dentrace/xfail/lab-ganesha" ]
ok $? "front command, coordinator, man page and xfail lists installed"
man1=$dest$prefix/share/man/man1/dtab.1
[ -x "$dest$prefix/bin/dtab" ] && grep -q '^dtab \\- is B slower than A' "$man1" && grep -q -- '--inject PCT' "$man1" &&
	{ ! command -v man >/dev/null || MANWIDTH=80 man -l "$man1" 2>&1 | grep -q 'Bonferroni'; }
ok $? "dtab and its man page (its --help) installed"

# from the installed tree only: a copy of the checkout's build must not be used
cd "$tmp" || exit 2
nsuite=$(ls "$root"/suite/*/*.c | wc -l)
ntests=$(env -u DT_BUILD "$dt" --list | cut -d. -f1 | sort -u | wc -l)
[ "$ntests" = "$nsuite" ]
ok $? "dentrace --list: $ntests tests (suite/ has $nsuite)"

mkdir "$tmp/target"
env -u DT_BUILD "$dt" run --target "$tmp/target" --init-target --report "$tmp/report" \
	rename_chain.chain unlink_race -- -d 1 >"$tmp/run.log" 2>&1
ok $? "dentrace run: two tests on a local directory pass"
grep -qE '^posix +unlink_race +[1-9]' "$tmp/report/summary.txt" && [ -s "$tmp/report/junit.xml" ] &&
	[ -f "$tmp/report/posix/rename_chain.chain.tap" ]
ok $? "the run's report: summary.txt, junit.xml, one TAP per test"
[ -z "$(ls -A "$tmp/target" | grep -v '^\.dentrace-target$')" ]
ok $? "the target holds only its marker afterwards"

mkdir "$tmp/unmarked"
env -u DT_BUILD "$dt" run --target "$tmp/unmarked" --report "$tmp/r2" unlink_race >/dev/null 2>&1
ok $(( $? != 65 )) "an unmarked target: exit 65"
env -u DT_BUILD "$dt" run --target "$tmp/target" no_such_test >/dev/null 2>"$tmp/err"
ok $(( $? != 64 )) "an unknown test: exit 64 ($(cat "$tmp/err"))"
env -u DT_BUILD "$dt" run unlink_race >/dev/null 2>&1
ok $(( $? != 64 )) "no target: exit 64"

make -s -C "$root" BUILD="$build" DESTDIR="$dest" PREFIX="$prefix" uninstall >>"$tmp/install.log" 2>&1
ok $? "make uninstall"
left=$(find "$dest" -type f -o -type l -o -type d -name '*dentrace*' | sed "s|^$dest||")
[ -z "$left" ]
ok $? "nothing left after uninstall${left:+: $(echo $left)}"
[ $failed = 0 ] || cat "$tmp/install.log" "$tmp/run.log" 2>/dev/null | sed 's/^/# /'
exit $failed
