"""Prints what a folder of gputrace traces says about CUDA libraries: for the
GPU-machine runs, whose output is quoted in the issues' closing notes."""
import glob
import json
import os
import re
import sys

FAMILY = re.compile(r"lib(cuda|cudart|cudnn\w*|cublas\w*|nccl|nvrtc|nvJitLink|cufft|curand|cusparse|cusolver)\.so")


def value(o, k):
    h = o.get(k + "_hex")
    return bytes.fromhex(h).decode("utf-8", "replace") if h else o.get(k)


def summarize(path):
    lines = [json.loads(l) for l in open(path, "rb").read().split(b"\n") if l]
    hdr = lines[0]
    print("== %s pid %s argv %s" % (os.path.basename(path), hdr["pid"], " ".join(hdr.get("argv", []))[:120]))
    searches = {o["seq"]: o for o in lines if o["ev"] == "search"}
    tries, misses = {}, {}
    for o in lines:
        if o["ev"] in ("open", "search_end") and "search" in o:
            tries[o["search"]] = o.get("tries", [])
    for o in lines:
        ev = o["ev"]
        if ev == "open" and FAMILY.search(os.path.basename(value(o, "path") or "")):
            s = searches.get(o.get("search"), {})
            print("  open  %-40s rule=%-15s by %s%s" % (value(o, "path"), o.get("rule"),
                  os.path.basename(value(s, "requester") or "?"),
                  "  [cudart static]" if o.get("cudart_static") else ""))
        elif ev == "search_end" and FAMILY.search(value(o, "name") or ""):
            misses.setdefault(value(o, "name"), []).append(len(tries.get(o["search"], [])))
        elif ev in ("call", "alloc_fail"):
            print("  %-5s %s -> %s %s %s" % (ev, o["fn"], o["status"], o.get("status_name"),
                  o.get("reason") or o.get("size") or o.get("value") or ""))
        elif ev == "version":
            print("  ver   %-28s %s%s = %s (status %s)" % (os.path.basename(value(o, "lib")), o["fn"],
                  "[%d]" % o["property"] if "property" in o else "", o.get("value"), o["status"]))
        elif ev == "calls":
            print("  total %s status %s (%s): %d calls, %d bytes" % (o["fn"], o["status"],
                  o.get("status_name"), o["count"], o["bytes"]))
        elif ev == "allocs":
            print("  alloc peak %d bytes, held at exit %d, failed %d, partial %s" % (
                o["peak_bytes"], o["held_bytes"], o["failed"], o["partial"]))
        elif ev == "note" and not o.get("what", "").startswith("gputrace_queries"):
            print("  note  %s" % o)
    opened = {re.sub(r"\.so.*", "", os.path.basename(value(o, "path") or ""))
              for o in lines if o["ev"] == "open"}
    for name, ns in sorted(misses.items()):
        stem = re.sub(r"\.so.*", "", name)
        print("  miss  %-40s x%d (%s paths)%s" % (name, len(ns), ",".join(map(str, ns[:3])),
              "" if stem not in opened else "  [another name of it was loaded]"))
    # The launcher's "reaped" line comes after the process's own last line.
    own = [o for o in lines if o["ev"] != "reaped"]
    print("  ended cleanly: %s; %d lines, %d bytes" % (bool(own) and own[-1]["ev"] == "end",
                                                      len(lines), os.path.getsize(path)))


for d in sys.argv[1:]:
    for p in sorted(glob.glob(os.path.join(d, "*.jsonl"))):
        summarize(p)
