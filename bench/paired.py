#!/usr/bin/python3
"""Paired bare/traced runs of one command; medians of what was measured.

    paired.py [options] -- COMMAND [ARG...]

Each round runs COMMAND bare and as `GPUTRACE -q -o DIR -- COMMAND`, in
alternating order (bare first on even rounds, traced first on odd ones), each
traced run into a fresh trace directory.  --decompose adds two arms to each
round (the order rotates): the launcher alone (GPUTRACE_DISABLE=1) and the
library alone (LD_AUDIT/LD_PRELOAD/GPUTRACE_DIR set directly, no launcher),
to tell what the launcher costs from what the traced process pays.  --also
NAME=GPUTRACE (repeatable) adds the traced arm of another build, in the same
rotating rounds (to compare two builds on a noisy machine).  Warm-up runs (one of each by default)
come first and are not counted.  Both runs must exit 0.

--metric wall          whole-process wall time (time.perf_counter around
                       subprocess.run), in ms
--metric ns_per_call   the `ns_per_call=X` that COMMAND prints (bench/malloc_loop)
--metric cpu_ns_per_call  the `cpu_ns_per_call=X` that COMMAND prints (bench/malloc_loop:
                       each thread's CPU time in its loop, without its waits for a CPU)
--metric ms_per_op     the `ms_per_op=X` that COMMAND prints (bench/proc_loop,
                       bench/exec_fork.sh's shell loops)
--extra NAME           also the `NAME=X` each run prints, summed up the same way
                       (bench/proc_loop's cpu_ms_per_op: CPU time, children's too)

Prints the medians of the bare and traced values, the median of the per-round
differences (traced - bare), the overhead in %, and the size and line count of
the traces written by the traced runs.  --calls also prints the trace's
{"ev":"calls"} lines (from the last traced run), summed over files, and its
{"ev":"allocs"} lines as written.
Python standard library only.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def metric_in(name, out):
    """The value of `name=X` in a program's output (not of `other_name=X`)."""
    return re.search(r"(?<![A-Za-z0-9_])%s=([0-9.]+)" % re.escape(name), out)


def run_once(argv, metric, timeout, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, env=env)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.stderr.write("paired.py: %s exited %d\n--- stdout\n%s--- stderr\n%s" % (
            " ".join(argv), p.returncode, p.stdout.decode(errors="replace"),
            p.stderr.decode(errors="replace")))
        sys.exit(1)
    out = p.stdout.decode(errors="replace")
    if metric == "wall":
        return wall * 1e3, out
    m = metric_in(metric, out)
    if not m:
        sys.stderr.write("paired.py: no %s= in output of %s:\n%s" % (
            metric, " ".join(argv), out))
        sys.exit(1)
    return float(m.group(1)), out


def trace_stats(d):
    files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".jsonl"))
    size = sum(os.path.getsize(f) for f in files)
    lines = 0
    for f in files:
        with open(f, "rb") as fh:
            lines += sum(1 for _ in fh)
    return files, size, lines


def calls_of(files):
    totals, allocs = {}, []
    for f in files:
        with open(f, "rb") as fh:
            for raw in fh:
                try:
                    ev = json.loads(raw)
                except ValueError:
                    continue
                if ev.get("ev") == "allocs":
                    allocs.append(raw.decode(errors="replace").strip())
                if ev.get("ev") != "calls":
                    continue
                key = (ev.get("fn"), ev.get("status"), ev.get("status_name"))
                c, b = totals.get(key, (0, 0))
                totals[key] = (c + int(ev.get("count", 0)), b + int(ev.get("bytes", 0)))
    return totals, allocs


def fmt(v, metric):
    if metric in ("ns_per_call", "cpu_ns_per_call"):
        return "%.2f ns" % v
    if metric == "ms_per_op":
        return "%.4f ms" % v
    return "%.1f ms" % v


def spread(diffs, metric):
    """The middle half of the per-round differences: [25th, 75th percentile]."""
    if len(diffs) < 2:
        return ""
    q = statistics.quantiles(diffs, n=4)
    return "  [middle half %s .. %s]" % (fmt(q[0], metric), fmt(q[2], metric))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--metric", choices=("wall", "ns_per_call", "cpu_ns_per_call", "ms_per_op"), default="wall")
    ap.add_argument("--gputrace", default=os.environ.get("GPUTRACE", "build/gputrace"))
    ap.add_argument("--label", default="")
    ap.add_argument("--calls", action="store_true")
    ap.add_argument("--decompose", action="store_true",
                    help="also time the launcher alone (GPUTRACE_DISABLE=1) and the "
                    "library alone (LD_AUDIT/LD_PRELOAD set directly, no launcher)")
    ap.add_argument("--lib", default=None,
                    help="libgputrace.so for --decompose (default: next to --gputrace)")
    ap.add_argument("--extra", action="append", default=[], metavar="NAME",
                    help="one more value NAME=X from each run's output, reported alike")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=GPUTRACE",
                    help="one more traced arm: another build's gputrace, same rounds")
    ap.add_argument("--same-output", action="store_true",
                    help="check that every counted run printed the same stdout")
    ap.add_argument("--budget", type=float, default=0,
                    help="seconds: start no round that would likely end after this "
                    "(0: no limit); the rounds done are reported")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every round")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd or a.rounds < 1:
        ap.error("need a command after -- and --rounds >= 1")
    if not os.access(a.gputrace, os.X_OK):
        ap.error("no gputrace at %s (set GPUTRACE or --gputrace)" % a.gputrace)

    base = tempfile.mkdtemp(prefix="gputrace-bench.")
    sizes, nlines, last_files = [], [], []

    def traced(gputrace=None):
        d = tempfile.mkdtemp(dir=base)
        v, out = run_once([gputrace or a.gputrace, "-q", "-o", d, "--"] + cmd, a.metric, a.timeout)
        files, size, lines = trace_stats(d)
        if not files:
            sys.stderr.write("paired.py: traced run wrote no trace in %s\n" % d)
            sys.exit(1)
        if gputrace:  # another build's arm: its traces are not counted
            shutil.rmtree(d, ignore_errors=True)
            return v, out
        sizes.append(size)
        nlines.append(lines)
        keep = os.path.join(base, "last")
        shutil.rmtree(keep, ignore_errors=True)
        os.rename(d, keep)
        last_files[:] = [os.path.join(keep, os.path.basename(f)) for f in files]
        return v, out

    def bare():
        return run_once(cmd, a.metric, a.timeout)

    lib = a.lib or os.path.join(os.path.dirname(a.gputrace), "libgputrace.so")

    def launcher_only():
        # The launcher (fork, exec, wait) with tracing switched off.
        env = dict(os.environ, GPUTRACE_DISABLE="1")
        return run_once([a.gputrace, "-q", "--"] + cmd, a.metric, a.timeout, env)

    def env_only():
        # The library in LD_AUDIT and LD_PRELOAD, set here: no launcher.
        d = tempfile.mkdtemp(dir=base)
        env = dict(os.environ, GPUTRACE_DIR=d)
        for var in ("LD_AUDIT", "LD_PRELOAD"):
            env[var] = lib + (":" + env[var] if env.get(var) else "")
        try:
            return run_once(cmd, a.metric, a.timeout, env)
        finally:
            shutil.rmtree(d, ignore_errors=True)

    t_start = time.perf_counter()
    try:
        for _ in range(a.warmup):
            bare()
            traced()
        sizes.clear()
        nlines.clear()
        arms = [("bare", bare), ("traced", traced)]
        if a.decompose:
            arms += [("launcher", launcher_only), ("env", env_only)]
        also = []
        for spec in a.also:
            name, _, path = spec.partition("=")
            if not path or not os.access(path, os.X_OK):
                ap.error("--also %r: NAME=GPUTRACE, an executable" % spec)
            also.append(name)
            arms.append((name, lambda p=path: traced(p)))
        vals = {name: [] for name, _ in arms}
        extra = {(x, name): [] for x in a.extra for name, _ in arms}
        outs = {}
        last_round = 0.0
        for r in range(a.rounds):
            if a.budget and r > 0 and time.perf_counter() - t_start + last_round > a.budget:
                print("budget: stopped after %d of %d rounds (--budget %.0f s)" % (
                    r, a.rounds, a.budget))
                break
            r0 = time.perf_counter()
            order = arms[r % len(arms):] + arms[:r % len(arms)]
            for name, fn in order:
                v, out = fn()
                vals[name].append(v)
                for x in a.extra:
                    m = metric_in(x, out)
                    if not m:
                        sys.stderr.write("paired.py: no %s= in output:\n%s" % (x, out))
                        sys.exit(1)
                    extra[(x, name)].append(float(m.group(1)))
                outs.setdefault(out, []).append(name)
            last_round = time.perf_counter() - r0
            if a.verbose:
                print("round %2d (%s first): %s" % (r + 1, order[0][0], "  ".join(
                    "%s %s" % (name, fmt(vals[name][-1], a.metric)) for name, _ in arms)),
                    flush=True)
        B, T = vals["bare"], vals["traced"]
        mb, mt = statistics.median(B), statistics.median(T)
        md = statistics.median([t - b for b, t in zip(B, T)])
        unit = {"ns_per_call": "ns/call", "cpu_ns_per_call": "CPU ns/call", "ms_per_op": "ms/op"}.get(a.metric, "ms wall")
        if a.label:
            print("== %s" % a.label)
        print("command: %s" % " ".join(cmd))
        print("rounds: %d, order %s each round; %d warm-up round(s) not counted" % (
            len(B), "rotating" if len(arms) > 2 else "alternating", a.warmup))
        print("bare    (%s): median %s  [min %s, max %s]" % (
            unit, fmt(mb, a.metric), fmt(min(B), a.metric), fmt(max(B), a.metric)))
        print("traced  (%s): median %s  [min %s, max %s]" % (
            unit, fmt(mt, a.metric), fmt(min(T), a.metric), fmt(max(T), a.metric)))
        print("added   (median of per-round traced-bare): %s%s" % (
            fmt(md, a.metric), spread([t - b for b, t in zip(B, T)], a.metric)))
        print("overhead: %+.2f%% (median traced vs median bare), %+.2f%% (median paired diff / median bare)" % (
            (mt - mb) / mb * 100, md / mb * 100))
        print("trace: %d bytes (median over traced rounds; min %d, max %d), %d lines (median)" % (
            statistics.median(sizes), min(sizes), max(sizes), statistics.median(nlines)))
        if a.same_output:
            if len(outs) == 1:
                print("output: identical in all %d counted runs: %r" % (
                    sum(len(v) for v in outs.values()), next(iter(outs)).strip()))
            else:
                print("output: DIFFERS between runs:")
                for out, names in outs.items():
                    print("  %d run(s) (%s): %r" % (len(names), ",".join(sorted(set(names))),
                                                     out.strip()))
        if a.decompose:
            for name, what in (("launcher", "launcher only, GPUTRACE_DISABLE=1"),
                               ("env", "library only, LD_AUDIT+LD_PRELOAD, no launcher")):
                m = statistics.median(vals[name])
                d = statistics.median([x - b for b, x in zip(B, vals[name])])
                print("%-8s(%s): median %s, median paired diff %s (%+.2f%%)" % (
                    name, what, fmt(m, a.metric), fmt(d, a.metric), d / mb * 100))
        for x in a.extra:
            eb = extra[(x, "bare")]
            print("%s: %s" % (x, ", ".join(
                "%s median %.4f%s" % (name, statistics.median(extra[(x, name)]), "" if name == "bare" else
                                      " (added %.4f)" % statistics.median(
                                          [t - b for b, t in zip(eb, extra[(x, name)])]))
                for name, _ in arms)))
        for name in also:
            m = statistics.median(vals[name])
            diffs = [x - b for b, x in zip(B, vals[name])]
            d = statistics.median(diffs)
            print("%-8s(%s): median %s, added (median of per-round %s-bare) %s%s" % (
                name, dict(x.partition("=")[::2] for x in a.also)[name], fmt(m, a.metric),
                name, fmt(d, a.metric), spread(diffs, a.metric)))
        if a.calls:
            tot, allocs = calls_of(last_files)
            print("calls lines (last traced run, %d file(s)):" % len(last_files))
            for (fn, st, sn), (c, b) in sorted(tot.items(), key=lambda kv: str(kv[0])):
                print("  fn=%s status=%s (%s) count=%d bytes=%d" % (fn, st, sn, c, b))
            print("  total count=%d" % sum(c for c, _ in tot.values()))
            for line in allocs:
                print("  %s" % line)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
