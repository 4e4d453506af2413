#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The architecture of lib/, checked (TAP).  libdentrace is built in layers
# (ARCHITECTURE.md): base at the bottom; backend, check, coord and stats
# on base only; core on all of them.  This test reads what the build made
# and what the sources say:
#   - symbols: every undefined dt_* (or other lib-defined) symbol of an
#     object in build/lib/<layer>/ is defined in its own layer or in one it
#     may call (nm over the objects);
#   - no circle between objects (the same symbol graph, through tsort);
#   - #include "..." lines in lib/<layer>/ name only headers of layers it
#     may call, and never dentrace.h (the tests' header);
# and, so that it can fail, feeds its own checks a graph with a circle and
# an upward call and sees them refused.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${DT_BUILD:-$root/build}
n=0 bad=0
ok() {	# ok COND-RC DESCRIPTION [DIAG]
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"
	else echo "not ok $n - $2"; bad=1; [ -n "${3:-}" ] && sed 's/^/# /' <<<"$3"; fi
}

# the layers a layer may call, itself included
allowed() {
	case $1 in
	base) echo "base" ;;
	backend|check|coord|stats) echo "$1 base" ;;
	core) echo "core base backend check coord stats" ;;
	gen) echo "gen" ;;	# rpcgen output: the coord layer's XDR code
	*) echo "" ;;
	esac
}
layer_of() {	# build/lib/core/case.o -> core; build/gen/x.o -> coord
	case $1 in
	*/gen/*) echo coord ;;
	*) basename "$(dirname "$1")" ;;
	esac
}

# edges "from to" between objects, from their symbol tables on stdin:
# lines "OBJ D SYM" (defined) and "OBJ U SYM" (undefined)
edges() {
	awk '$2 == "D" { def[$3] = $1; next }
	     { use[NR] = $1 " " $3 }
	     END { for (i in use) { split(use[i], a, " ");
		   if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]] } }' | sort -u
}
# offending edges among "from to" lines: a call into a layer not allowed
# (one awk: a fork per edge took 25 s on a loaded machine)
upward() {
	awk 'function layer(p,   n, a) {
		if (p ~ /\/gen\//) return "coord"
		n = split(p, a, "/"); return a[n - 1]
	}
	BEGIN {
		ok["base"] = " base "
		ok["backend"] = " backend base "; ok["check"] = " check base "
		ok["coord"] = " coord base "; ok["stats"] = " stats base "
		ok["core"] = " core base backend check coord stats "
	}
	{ lf = layer($1); lt = layer($2)
	  if (index(ok[lf], " " lt " ") == 0)
		print $1 " -> " $2 " (" lf " may not call " lt ")" }'
}
circle() {	# prints tsort's complaint when the "from to" edges have a loop
	sed 's|[^ ]*/lib/||g; s|[^ ]*/gen/|gen/|g' | tsort 2>&1 >/dev/null | grep -i loop
}

objs=("$build"/lib/*/*.o "$build"/gen/*.o)
if [ ! -e "${objs[0]}" ]; then
	echo "1..0 # SKIP no objects under $build/lib (run make first)"
	exit 0
fi
echo "1..6"

syms=$({ nm -A --defined-only -g "${objs[@]}" | awk '{ sub(/:[^:]*$/, "", $1); if (NF == 3) print $1, "D", $3 }'
	  nm -A -u "${objs[@]}" | awk '{ sub(/:.*$/, "", $1); print $1, "U", $NF }'; })
graph=$(edges <<<"$syms")
up=$(upward <<<"$graph")
ok "$([ -z "$up" ]; echo $?)" "every call between lib objects goes to the same layer or one below ($(wc -l <<<"$graph") edges)" "$up"
loop=$(circle <<<"$graph")
ok "$([ -z "$loop" ]; echo $?)" "no circle between lib objects" "$loop"

inc_bad=$(cd "$root/lib" && grep -Hn '^#include "' */*.[ch] | awk -F: '
	BEGIN {
		ok["base"] = " base "
		ok["backend"] = " backend base "; ok["check"] = " check base "
		ok["coord"] = " coord base "; ok["stats"] = " stats base "
		ok["core"] = " core base backend check coord stats "
	}
	{ f = $1; line = $2; h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
	  split(f, fp, "/"); l = fp[1]
	  if (h == "dentrace.h") print f ": " line ": includes dentrace.h (the tests\x27 header)"
	  else if (h == "coord_prot.h") { if (l != "coord" && l != "core") print f ": includes " h }
	  else if (h ~ /\//) { split(h, hp, "/"); if (index(ok[l], " " hp[1] " ") == 0) print f ": " line ": " l " may not include " h }
	  else print f ": " line ": \"" h "\" without its layer folder" }')
ok "$([ -z "$inc_bad" ]; echo $?)" "#include lines in lib/ follow the layers" "$inc_bad"

# the checks themselves can fail
fake_up=$(printf '%s\n' "/b/lib/base/time.o /b/lib/core/case.o" | upward)
ok "$([ -n "$fake_up" ]; echo $?)" "self-check: a call from base into core is refused" "$fake_up"
fake_loop=$(printf '%s\n' "/b/lib/core/a.o /b/lib/core/b.o" "/b/lib/core/b.o /b/lib/core/c.o" \
	"/b/lib/core/c.o /b/lib/core/a.o" "/b/lib/core/a.o /b/gen/x.o" | circle)
ok "$([ -n "$fake_loop" ]; echo $?)" "self-check: a circle of three objects is found" "$fake_loop"
fake_edges=$(printf '%s\n' "/b/lib/core/x.o D f" "/b/lib/core/y.o U f" "/b/lib/core/y.o D g" \
	"/b/lib/core/x.o U g" | edges | circle)
ok "$([ -n "$fake_edges" ]; echo $?)" "self-check: two objects calling each other make a circle" "$fake_edges"
exit $bad
