#!/usr/bin/python3
"""Writes one trace whose process holds N copies of cuDNN (issue 29: the
diagnosis was super-quadratic in the copies of one family), for timing
`gputrace report` on it.

    gen_copies.py -n N OUT TEMPLATE LIBDIR

TEMPLATE is a real trace of one process (any: its events are kept). LIBDIR
holds the library files each copy points at (fixtures' system/lib: cuDNN
9.14's front and graph library). OUT/lib/cNNNNN/ get hard links to them (a
copy where LIBDIR is on another file system), so that every copy is a file of
its own folder on disk, and OUT/trace/<host>.<pid>.jsonl the trace: TEMPLATE with, before its closing line, each copy's front opened by
absolute path and its graph library searched for by the front and found
through its RUNPATH. --versions adds each front's cudnnGetVersion answer
(9.14.0, forwarded to its graph library), --global a global-scope lookup at
exit that finds each front: the paths of the model and rules that answer
versions and judge global copies. Standard library only."""
import argparse
import json
import os
import shutil
import sys

PARTS = (("libcudnn.so.9", "libcudnn.so.9.14.0"),
         ("libcudnn_graph.so.9", "libcudnn_graph.so.9.14.0"))
SONAME, FILE = 0, 1


def jdump(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def copy_events(i, folder, pid, t_us, seq):
    """The open events of copy i: front by path, graph library by name."""
    front = os.path.join(folder, PARTS[0][FILE])
    graph = os.path.join(folder, PARTS[1][FILE])
    return [
        {"ev": "search", "t_us": t_us, "tid": pid, "seq": seq, "name": front},
        {"ev": "search", "t_us": t_us, "tid": pid, "seq": seq + 1, "name": PARTS[1][SONAME],
         "requester": front},
        {"ev": "search_end", "t_us": t_us + 1, "search": seq + 1, "name": PARTS[1][SONAME],
         "result": "found", "path": graph, "tries": [{"path": graph, "rule": "runpath"}]},
        {"ev": "open", "t_us": t_us, "path": front, "soname": PARTS[0][0], "ns": 0,
         "search": seq, "name": front, "rule": "absolute"},
        {"ev": "open", "t_us": t_us + 1, "path": graph, "soname": PARTS[1][0], "ns": 0,
         "search": seq + 1, "name": PARTS[1][SONAME], "rule": "runpath",
         "tries": [{"path": graph, "rule": "runpath"}]},
    ]


def extra_events(folder, pid, t_us, versions, scope):
    """The version answer and the global lookup of a copy's front, as asked."""
    front = os.path.join(folder, PARTS[0][FILE])
    ev = []
    if versions:
        ev.append({"ev": "version", "t_us": t_us, "tid": pid, "lib": front, "fn": "cudnnGetVersion",
                   "status": 0, "value": 91400})
    if scope:
        ev.append({"ev": "global", "t_us": t_us, "lib": front})
    return ev


def make_folders(out, n, libdir):
    folders = []
    for i in range(n):
        d = os.path.join(out, "lib", "c%05d" % i)
        os.makedirs(d, exist_ok=True)
        for _, name in PARTS:
            p = os.path.join(d, name)
            if not os.path.lexists(p):
                try:
                    os.link(os.path.join(libdir, name), p)
                except OSError:
                    shutil.copyfile(os.path.join(libdir, name), p)
        folders.append(d)
    return folders


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=1000, help="copies (1000)")
    ap.add_argument("out")
    ap.add_argument("template")
    ap.add_argument("libdir")
    ap.add_argument("--versions", action="store_true", help="each front answers cudnnGetVersion")
    ap.add_argument("--global", dest="scope", action="store_true", help="each front found by a global lookup")
    a = ap.parse_args()
    with open(a.template, "rb") as f:
        lines = [l for l in f.read().decode("utf-8", "surrogateescape").split("\n") if l]
    closing = [l for l in lines if l.startswith(('{"ev":"end"', '{"ev":"reaped"'))]
    body = [l for l in lines if l not in closing]
    head = json.loads(body[0])
    pid, t_us = head["pid"], head["t_us"] + 1000
    seq = 1 << 20  # past the template's own search numbers
    out = [*body]
    for i, d in enumerate(make_folders(a.out, a.n, os.path.abspath(a.libdir))):
        out += [jdump(e) for e in copy_events(i, d, pid, t_us + 2 * i, seq + 2 * i)]
        out += [jdump(e) for e in extra_events(d, pid, t_us + 2 * i + 1, a.versions, a.scope)]
    out += closing
    tdir = os.path.join(a.out, "trace")
    os.makedirs(tdir, exist_ok=True)
    name = os.path.join(tdir, "%s.%d.jsonl" % (head.get("host", "host"), pid))
    with open(name, "wb") as f:
        f.write(("\n".join(out) + "\n").encode("utf-8", "surrogateescape"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
