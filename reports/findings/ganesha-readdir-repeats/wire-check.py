#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
wire-check.py CAPTURE: from a packet capture of NFSv3 READDIRPLUS traffic,
rebuild every listing (the calls of one TCP stream and directory handle
from cookie 0 to the reply that says EOF) and report the listings in which
the SERVER's replies carry one name twice, with the cookies: the client
asked to continue after cookie C and the server answered with a name it
had already returned before C.  Needs tshark.
"""
import subprocess
import sys

if len(sys.argv) != 2:
    sys.exit("usage: wire-check.py CAPTURE")
fields = ["frame.number", "tcp.stream", "rpc.msgtyp", "rpc.xid", "nfs.cookie3",
          "nfs.readdir.eof", "nfs.readdirplus.entry.name",
          "nfs.readdirplus.entry.cookie", "nfs.fh.hash"]
out = subprocess.run(["tshark", "-r", sys.argv[1], "-Y", "nfs.procedure_v3 == 17",
                      "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
                      "-E", "separator=\t"] + sum([["-e", f] for f in fields], []),
                     capture_output=True, text=True, check=True).stdout
calls, open_, done = {}, {}, []
bad_continuation = 0
for line in out.splitlines():
    fr, stream, typ, xid, cookie, eof, names, cookies, fh = (line.split("\t") + [""] * 9)[:9]
    if typ == "0":
        calls[xid] = (stream, cookie, fh.split(",")[0])
        continue
    if xid not in calls:
        continue
    stream, asked, fh = calls.pop(xid)
    key = (stream, fh)
    if asked == "0":
        open_[key] = {"entries": [], "pages": 0, "last": "0"}
    if key not in open_:
        continue
    listing = open_[key]
    if asked != listing["last"]:
        bad_continuation += 1      # the client did not continue where it stopped
    listing["pages"] += 1
    nl = [n for n in names.split(",") if n]
    cl = cookies.split(",") if cookies else []
    listing["entries"] += [(n, c, listing["pages"], asked, fr) for n, c in zip(nl, cl)]
    if cl:
        listing["last"] = cl[-1]
    if eof == "1":
        done.append(listing)
        del open_[key]
repeats = []
for listing in done:
    seen = {}
    for n, c, page, asked, fr in listing["entries"]:
        if n in (".", ".."):
            continue
        if n in seen and seen[n][2] != page:
            repeats.append((n, seen[n], (n, c, page, asked, fr)))
            break
        seen[n] = (n, c, page, asked, fr)
print(f"{len(done)} listings on the wire; {len(repeats)} of them carry a name twice "
      f"in the server's replies; {bad_continuation} continuations not at the last cookie")
for first, (n, c1, p1, a1, f1), (_, c2, p2, a2, f2) in repeats[:3]:
    print(f"  {n}: page {p1} (frame {f1}, after cookie {a1}) cookie {c1}; "
          f"again in page {p2} (frame {f2}, asked after cookie {a2}) cookie {c2}")
sys.exit(1 if repeats else 0)
