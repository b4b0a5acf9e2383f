#!/usr/bin/python3
"""Writes N trace files of one PyTorch-sized process, as if N ranks of a job on
many hosts had each written its own, for timing `gputrace report` over them.

    gen_traces.py [-n N] [--odd K] [--per-host G] OUT TEMPLATE [EXTRA]

TEMPLATE is a real trace (e.g. of `python3 -c "import torch"`). EXTRA, when
given, is a second real trace (e.g. of fixtures' sc_torchlike) whose events are
spliced in before TEMPLATE's closing line, its search numbers shifted past
TEMPLATE's: so each process has the framework's ~600 loader lines plus real
CUDA libraries (cudart, cuDNN and sub-libraries, cuBLAS), API calls and
versions. Every copy is identical in libraries and outcomes except for its pid
(100000 + i), host (node0000, node0001, ..., G ranks per host), rank (i, from
RANK) and world size (N); with --odd K, the last K ranks load cuDNN from the
fixtures' system copy (9.14) instead of the wheel's (9.19), so that the report
has a `divergent-processes` finding. Names: <host>.<pid>.rank<i>.jsonl.
Standard library only."""
import argparse
import json
import os
import re
import sys

WHEEL_CUDNN = "/site-packages/torchlike/lib/../../nvidia/cudnn/lib/libcudnn"


def read_lines(path):
    with open(path, "rb") as f:
        return [l for l in f.read().decode("utf-8", "surrogateescape").split("\n") if l]


def ev_of(line):
    m = re.match(r'\{"ev":"([a-z_]+)"', line)
    return m.group(1) if m else None


def splice(template, extra):
    """The headers (parsed) and the rest as a format string: {h0}, {h1} where
    the headers were, {pid} where the pid was; and the closing lines."""
    t = read_lines(template)
    heads = [json.loads(l) for l in t if ev_of(l) == "header"]
    tail = [l for l in t if ev_of(l) in ("end", "reaped")]
    old_pids = {h["pid"] for h in heads}
    body, marks = [], []
    for line in t:
        if ev_of(line) == "header":
            marks.append(len(body))
            body.append(None)
        elif ev_of(line) not in ("end", "reaped"):
            body.append(line)
    if extra:
        seqs = [json.loads(l).get("seq", 0) for l in body if l and ev_of(l) == "search"]
        shift = max(seqs or [0])
        e = read_lines(extra)
        old_pids |= {json.loads(l)["pid"] for l in e if ev_of(l) == "header"}
        for line in e:
            if ev_of(line) in ("header", "end", "reaped"):
                continue
            if ev_of(line) in ("search", "search_end", "open"):
                obj = json.loads(line)
                for key in ("seq", "search"):
                    if key in obj:
                        obj[key] += shift
                line = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
            body.append(line)
    pid_re = re.compile(r'"(pid|tid)":(%s)\b' % "|".join(str(p) for p in old_pids))
    out = []
    for i, line in enumerate(body):
        if line is None:
            out.append("{h%d}" % marks.index(i))
            continue
        line = line.replace("{", "{{").replace("}", "}}")
        out.append(pid_re.sub(r'"\1":{pid}', line))
    return heads, "\n".join(out) + "\n", tail


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=1000, help="number of trace files (1000)")
    ap.add_argument("--odd", type=int, default=0, help="ranks with another cuDNN (0)")
    ap.add_argument("--per-host", type=int, default=8, help="ranks per host (8)")
    ap.add_argument("--fixtures", default=None,
                    help="fixtures folder whose system/lib holds cuDNN 9.14 (for --odd); "
                    "default: the one the EXTRA trace names")
    ap.add_argument("out")
    ap.add_argument("template")
    ap.add_argument("extra", nargs="?")
    a = ap.parse_args()
    heads, body, tail = splice(a.template, a.extra)
    odd_body = None
    if a.odd:
        m = re.search(r'"path":"([^"]*)/site-packages/torchlike/lib/', body)
        if not m:
            sys.exit("gen_traces: --odd needs an EXTRA trace of sc_torchlike")
        fix = a.fixtures or m.group(1)
        odd_body = body.replace(m.group(1) + WHEEL_CUDNN, fix + "/system/lib/libcudnn")
        # what cuDNN 9.14 itself answers
        odd_body = re.sub(r'("fn":"cudnnGetVersion",[^\n]*"value":)91900\b', r"\g<1>91400",
                          odd_body)
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.n):
        pid, host = 100000 + i, "node%04d" % (i // a.per_host)
        hs = {}
        for k, h in enumerate(heads):
            h = dict(h, pid=pid, ppid=99999, host=host, rank=i, rank_var="RANK",
                     world_size=a.n)
            h["env"] = dict(h.get("env", {}), RANK=str(i), WORLD_SIZE=str(a.n))
            hs["h%d" % k] = json.dumps(h, separators=(",", ":"), ensure_ascii=False)
        b = odd_body if a.odd and i >= a.n - a.odd else body
        text = b.format(pid=pid, **hs)
        for t in tail:
            obj = json.loads(t)
            obj["pid"] = pid
            text += json.dumps(obj, separators=(",", ":")) + "\n"
        name = os.path.join(a.out, "%s.%d.rank%d.jsonl" % (host, pid, i))
        with open(name, "wb") as f:
            f.write(text.encode("utf-8", "surrogateescape"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
