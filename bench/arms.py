#!/usr/bin/python3
"""Paired rounds of several commands (arms), whole-process wall time, medians.

    arms.py [--rounds R] [--warmup W] [--json PATH] [--together CPUS] NAME=COMMAND [NAME=COMMAND...]
    arms.py --pool JSON [JSON...]

Each round runs every arm once, in an order that rotates from round to round;
with --together 3,7,11 the arms of a round run at the same time instead, each
pinned (taskset) to one of those CPUs, the CPUs rotating among the arms from
round to round: on a VM whose speed drifts over seconds, what slows one arm
slows the others in that round too, and the pairs' differences keep less of it;
W warm-up rounds (1) are not counted.  COMMAND is a shell command line (sh -c),
its output thrown away; it must exit 0 or 1 (a report with an error-level
finding exits 1).  Prints each arm's median, min and max in ms, and the median
of its per-round difference to the first arm (with the middle half of those
differences and 1 + that median over the first arm's median); then the same of its CPU time
(user + system of the command and its children, from getrusage): on a shared
machine other load stretches the wall time, far less the CPU time.  Python
standard library only.

--pool reads the --json files of several runs of the same arms and prints
the summary of all their rounds together: a long measurement can be run as
batches, each written when it ends, so that a time limit that stops the last
batch loses that batch only.
"""
import argparse
import json
import os
import resource
import shlex
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


def run_together(cmds, cpus):
    """[(wall ms, CPU ms)] of cmds started at once, cmds[k] pinned to cpus[k]."""
    t0 = time.perf_counter()
    procs = {}
    for k, (cmd, cpu) in enumerate(zip(cmds, cpus)):
        err = open(os.devnull, "wb")
        p = subprocess.Popen(["taskset", "-c", cpu, "sh", "-c", cmd], stdout=subprocess.DEVNULL, stderr=err)
        err.close()
        # Keep the Popen object: one dropped while its child runs is reaped
        # by the next Popen (subprocess's cleanup of dropped objects), and
        # wait4 below would then find no child (seen with a taskset that
        # failed at once).
        procs[p.pid] = (k, p)
    out = [None] * len(cmds)
    while procs:
        pid, status, ru = os.wait4(-1, 0)
        if pid not in procs:
            continue
        k, p = procs.pop(pid)
        code = p.returncode = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            sys.exit("arms.py: %s exited %d" % (cmds[k], code))
        out[k] = ((time.perf_counter() - t0) * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3)
    return out


def middle_half(v):
    """The 25th and 75th percentiles (statistics.quantiles, 'inclusive')."""
    if len(v) < 2:
        return v[0], v[0]
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[2]


def median_interval(v):
    """A 95% interval for the median of v that assumes nothing of v's
    distribution: the order statistics k and n+1-k, k from the binomial
    (n, 1/2) as its normal approximation gives it (n >= 10; None below).
    The middle half says how the rounds spread; this says how far the
    median itself could be off, which is what decides a 1% aim."""
    n = len(v)
    if n < 10:
        return None
    k = max(1, int((n - 1.96 * n ** 0.5) / 2))
    s = sorted(v)
    return s[k - 1], s[n - k]


def summary(arms, vals, what):
    first = arms[0][0]
    base = statistics.median(vals[first])
    for name, cmd in arms:
        v = vals[name]
        diffs = [x - y for x, y in zip(v, vals[first])]
        diff = statistics.median(diffs)
        print("%-10s %s median %8.1f ms  [min %.1f, max %.1f]  vs %s: %+.1f ms  (%s)" % (
            name, what, statistics.median(v), min(v), max(v), first, diff, cmd))
        if name != first:
            # How far the paired differences spread, and the median
            # difference over the first arm's median: the ratio an aim
            # such as "-o / bare <= 1.01" is about.
            lo, hi = middle_half(diffs)
            print("%-10s %s   per-round difference middle half [%+.1f, %+.1f] ms; "
                  "1 + median difference / %s median = %.4f" % ("", what, lo, hi, first, 1 + diff / base))
            ci = median_interval(diffs)
            if ci:
                print("%-10s %s   median difference's 95%% interval [%+.1f, %+.1f] ms: ratio %.4f to %.4f" % (
                    "", what, ci[0], ci[1], 1 + ci[0] / base, 1 + ci[1] / base))


def pool(paths):
    """The summary of the rounds of several --json files of the same arms."""
    arms, wall, cpu, orders = None, {}, {}, set()
    for path in paths:
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit("arms.py: --pool: %s: %s" % (path, e))
        if arms is None:
            arms = list(d["arms"].items())
            wall = {name: [] for name, _ in arms}
            cpu = {name: [] for name, _ in arms}
        elif list(d["arms"].items()) != arms:
            sys.exit("arms.py: %s: not the arms of %s" % (path, paths[0]))
        for name, _ in arms:
            wall[name] += d["wall_ms"][name]
            cpu[name] += d["cpu_ms"][name]
        orders.add(d["order"])
    print("rounds: %d, pooled from %d runs (%s)" % (len(wall[arms[0][0]]), len(paths), "; ".join(sorted(orders))))
    summary(arms, wall, "wall")
    summary(arms, cpu, "cpu ")


def main():
    if sys.argv[1:2] == ["--pool"]:
        if len(sys.argv) < 3:
            sys.exit("usage: arms.py --pool JSON [JSON...]")
        return pool(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--json", metavar="PATH", help="also write every round's figures there")
    ap.add_argument("--together", metavar="CPUS", help="run a round's arms at once, pinned to these CPUs (a,b,c)")
    ap.add_argument("arms", nargs="+", metavar="NAME=COMMAND")
    a = ap.parse_args()
    arms = []
    for spec in a.arms:
        name, eq, cmd = spec.partition("=")
        if not eq or not cmd:
            ap.error("%r: NAME=COMMAND" % spec)
        arms.append((name, cmd))
    cpus = a.together.split(",") if a.together else None
    if cpus and len(cpus) < len(arms):
        ap.error("--together needs a CPU for each of the %d arms" % len(arms))
    # taskset on a CPU this process may not use exits 1, which a command
    # may (see above): every run would then count as a run of nothing.
    if cpus and not {int(c) for c in cpus} <= os.sched_getaffinity(0):
        ap.error("--together %s: this process may run on CPUs %s only" % (
            a.together, ",".join(map(str, sorted(os.sched_getaffinity(0))))))
    wall = {name: [] for name, _ in arms}
    cpu = {name: [] for name, _ in arms}
    for r in range(-a.warmup, a.rounds):
        if cpus:
            # arm k on CPU (k + r) mod n: each arm meets each CPU in turn
            took = run_together([cmd for _, cmd in arms],
                                [cpus[(k + r) % len(cpus)] for k in range(len(arms))])
            for (name, _), (ms, c) in zip(arms, took):
                if r >= 0:
                    wall[name].append(ms)
                    cpu[name].append(c)
            continue
        for k in range(len(arms)):
            name, cmd = arms[(k + r) % len(arms)]
            ms, c = run(cmd)
            if r >= 0:
                wall[name].append(ms)
                cpu[name].append(c)
    print("rounds: %d, %s, %d warm-up round(s) not counted" % (
        a.rounds, "arms together on CPUs %s, rotating" % a.together if cpus else "order rotating", a.warmup))
    summary(arms, wall, "wall")
    summary(arms, cpu, "cpu ")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"arms": dict(arms), "rounds": a.rounds,
                       "order": "together on " + a.together if cpus else "rotating", "wall_ms": wall,
                       "cpu_ms": cpu}, f, indent=1)


if __name__ == "__main__":
    main()
