#!/usr/bin/python3
"""Paired rounds of several commands (arms), whole-process wall time, medians.

    arms.py [--rounds R] [--warmup W] NAME=COMMAND [NAME=COMMAND...]

Each round runs every arm once, in an order that rotates from round to round;
W warm-up rounds (1) are not counted.  COMMAND is a shell command line (sh -c),
its output thrown away; it must exit 0 or 1 (a report with an error-level
finding exits 1).  Prints each arm's median, min and max in ms, and the median
of its per-round difference to the first arm; then the same of its CPU time
(user + system of the command and its children, from getrusage): on a shared
machine other load stretches the wall time, far less the CPU time.  Python
standard library only.
"""
import argparse
import resource
import statistics
import subprocess
import sys
import time


def cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd):
    """(wall ms, CPU ms) of one run."""
    c0, t0 = cpu_s(), time.perf_counter()
    p = subprocess.run(["sh", "-c", cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ms = (time.perf_counter() - t0) * 1e3
    cpu = (cpu_s() - c0) * 1e3
    if p.returncode not in (0, 1):
        sys.exit("arms.py: %s exited %d: %s" % (cmd, p.returncode, p.stderr.decode(errors="replace")))
    return ms, cpu


def summary(arms, vals, what):
    first = arms[0][0]
    for name, cmd in arms:
        v = vals[name]
        diff = statistics.median(x - y for x, y in zip(v, vals[first]))
        print("%-10s %s median %8.1f ms  [min %.1f, max %.1f]  vs %s: %+.1f ms  (%s)" % (
            name, what, statistics.median(v), min(v), max(v), first, diff, cmd))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("arms", nargs="+", metavar="NAME=COMMAND")
    a = ap.parse_args()
    arms = []
    for spec in a.arms:
        name, eq, cmd = spec.partition("=")
        if not eq or not cmd:
            ap.error("%r: NAME=COMMAND" % spec)
        arms.append((name, cmd))
    for _ in range(a.warmup):
        for _, cmd in arms:
            run(cmd)
    wall = {name: [] for name, _ in arms}
    cpu = {name: [] for name, _ in arms}
    for r in range(a.rounds):
        for k in range(len(arms)):
            name, cmd = arms[(k + r) % len(arms)]
            ms, c = run(cmd)
            wall[name].append(ms)
            cpu[name].append(c)
    print("rounds: %d, order rotating, %d warm-up round(s) not counted" % (a.rounds, a.warmup))
    summary(arms, wall, "wall")
    summary(arms, cpu, "cpu ")


if __name__ == "__main__":
    main()
