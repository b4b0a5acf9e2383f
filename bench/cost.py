#!/usr/bin/python3
"""What tracing costs a whole process, against the floor: paired rounds of
one command under several arms, the order rotating each round.

    cost.py [--rounds R] [--floor FLOOR.so] [--lib NAME=LIB.so]...
            [--cmd NAME=GPUTRACE]... [--out-dir NAME=GPUTRACE]... -- COMMAND [ARG...]

Arms (each run of an arm in a fresh trace folder, removed after):
  bare          COMMAND alone
  floor         LD_AUDIT=FLOOR.so: a module that returns what the loader gives
                it (bench/floor_audit.c): the cost of rtld-audit itself
  lib:NAME      LD_AUDIT and LD_PRELOAD = LIB.so, GPUTRACE_DIR set: the library
                alone, no launcher (to compare two builds of it, paired)
  q:NAME        GPUTRACE -q -- COMMAND (the launcher, traces in a temporary folder)
  o:NAME        GPUTRACE -q -o DIR -- COMMAND (the diagnosis kept as DIR/report.txt)

For each arm: the median, min and max wall time (ms) and peak RSS, then the
ratio to the bare run and to the floor, each the median (min, max) of the per-round
ratios, so that a slow round slows both sides of its ratio. Every run must
exit as the bare run did, with the same stdout. Python standard library only.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def parse_named(values):
    out = []
    for v in values or []:
        name, _, path = v.partition("=")
        if not path:
            sys.exit(f"cost.py: {v!r}: NAME=PATH expected")
        out.append((name, os.path.abspath(path)))
    return out


def arms_of(args):
    arms = [("bare", None)]
    if args.floor:
        arms.append(("floor", ("floor", os.path.abspath(args.floor))))
    arms += [("lib:" + n, ("lib", p)) for n, p in parse_named(args.lib)]
    arms += [("q:" + n, ("q", p)) for n, p in parse_named(args.cmd)]
    arms += [("o:" + n, ("o", p)) for n, p in parse_named(args.out_dir)]
    return arms


def run_arm(arm, command, timeout):
    env = dict(os.environ)
    for k in ("LD_AUDIT", "LD_PRELOAD", "GPUTRACE_DIR"):
        env.pop(k, None)
    folder = tempfile.mkdtemp(prefix="gt-cost-")
    argv = list(command)
    if arm:
        kind, path = arm
        if kind == "floor":
            env["LD_AUDIT"] = path
        elif kind == "lib":
            env.update(LD_AUDIT=path, LD_PRELOAD=path, GPUTRACE_DIR=folder)
        elif kind == "q":
            env["TMPDIR"] = folder
            argv = [path, "-q", "--", *command]
        elif kind == "o":
            argv = [path, "-q", "-o", os.path.join(folder, "t"), "--", *command]
    # GNU time reports the peak RSS of what it ran (and of what that reaped:
    # the launcher reaps the traced program); a child forked from Python would
    # count Python's own pages from before its exec.
    timed = [TIME, "-f", "gt-cost-rss %M", *argv] if TIME else argv
    try:
        t0 = time.perf_counter()
        p = subprocess.run(timed, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        ms = (time.perf_counter() - t0) * 1e3
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    kb = [int(l.split()[1]) for l in p.stderr.decode(errors="replace").splitlines()
          if l.startswith("gt-cost-rss ")]
    return ms, p.returncode, p.stdout, kb[-1] if kb else 0


def spread(values):
    return statistics.median(values), min(values), max(values)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--floor")
    ap.add_argument("--lib", action="append")
    ap.add_argument("--cmd", action="append")
    ap.add_argument("--out-dir", action="append")
    ap.add_argument("--label", default="")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("command", nargs="+")
    args = ap.parse_args()
    arms = arms_of(args)
    times = {name: [] for name, _ in arms}
    rss = {name: [] for name, _ in arms}
    ref = run_arm(None, args.command, args.timeout)
    for r in range(args.warmup + args.rounds):
        k = r % len(arms)
        for name, arm in arms[k:] + arms[:k]:
            ms, rc, out, kb = run_arm(arm, args.command, args.timeout)
            if rc != ref[1] or out != ref[2]:
                sys.exit(f"cost.py: arm {name}: exit {rc} or output differs from the bare run")
            if r >= args.warmup:
                times[name].append(ms)
                rss[name].append(kb)
    print(f"== {args.label or ' '.join(args.command)}")
    print(f"rounds: {args.rounds} (+{args.warmup} warm-up), arm order rotating; {os.cpu_count()} CPU(s)")
    for name, _ in arms:
        med, lo, hi = spread(times[name])
        line = f"  {name:<14} {med:9.2f} ms  [{lo:.2f} .. {hi:.2f}]"
        if name != "bare":
            line += "  /bare %.3f (%.3f..%.3f)" % spread([a / b for a, b in zip(times[name], times["bare"])])
        if "floor" in times and name not in ("bare", "floor"):
            line += "  /floor %.3f (%.3f..%.3f)" % spread([a / b for a, b in zip(times[name], times["floor"])])
        print(line)
    if not TIME:
        return
    print("peak RSS (GNU time %M, KB; the launcher's arms include the program it reaped):")
    for name, _ in arms:
        med, lo, hi = spread(rss[name])
        line = f"  {name:<14} {med:9.0f} KB [{lo} .. {hi}]"
        if name != "bare":
            line += "  +%.0f KB over bare (median of per-round differences)" % statistics.median(
                [a - b for a, b in zip(rss[name], rss["bare"])])
        print(line)


if __name__ == "__main__":
    main()
