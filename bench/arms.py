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
machine other load stretches the wall time, far less the CPU time.  Then its
system time alone and its minor page faults, to see where a traced arm's time
goes beyond the instructions it adds: a count of faults does not move with a
VM's speed, though on the H200 it moves by hundreds between identical runs
(bench/README.md section 24).  Python standard library only.

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


def usage(r):
    """(CPU ms, system ms, minor faults) of a struct rusage."""
    return (r.ru_utime + r.ru_stime) * 1e3, r.ru_stime * 1e3, r.ru_minflt


def run(cmd):
    """(wall ms, CPU ms, system ms, minor faults) of one run."""
    u0, t0 = usage(resource.getrusage(resource.RUSAGE_CHILDREN)), time.perf_counter()
    p = subprocess.run(["sh", "-c", cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ms = (time.perf_counter() - t0) * 1e3
    u1 = usage(resource.getrusage(resource.RUSAGE_CHILDREN))
    if p.returncode not in (0, 1):
        sys.exit("arms.py: %s exited %d: %s" % (cmd, p.returncode, p.stderr.decode(errors="replace")))
    return (ms,) + tuple(b - a for a, b in zip(u0, u1))


def run_together(cmds, cpus):
    """[(wall ms, CPU ms, system ms, minor faults)] of cmds started at once, cmds[k] pinned to cpus[k]."""
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
        out[k] = ((time.perf_counter() - t0) * 1e3,) + usage(ru)
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


def summary(arms, vals, what, unit="ms"):
    first = arms[0][0]
    base = statistics.median(vals[first])
    for name, cmd in arms:
        v = vals[name]
        diffs = [x - y for x, y in zip(v, vals[first])]
        diff = statistics.median(diffs)
        print("%-10s %s median %8.1f %s  [min %.1f, max %.1f]  vs %s: %+.1f %s  (%s)" % (
            name, what, statistics.median(v), unit, min(v), max(v), first, diff, unit, cmd))
        if name != first:
            # How far the paired differences spread, and the median
            # difference over the first arm's median: the ratio an aim
            # such as "-o / bare <= 1.01" is about.
            lo, hi = middle_half(diffs)
            print("%-10s %s   per-round difference middle half [%+.1f, %+.1f] %s; "
                  "1 + median difference / %s median = %.4f" % ("", what, lo, hi, unit, first, 1 + diff / base))
            ci = median_interval(diffs)
            if ci:
                print("%-10s %s   median difference's 95%% interval [%+.1f, %+.1f] %s: ratio %.4f to %.4f" % (
                    "", what, ci[0], ci[1], unit, 1 + ci[0] / base, 1 + ci[1] / base))
            # The same aim read round by round: each round's arm over its
            # own bare run. A VM that slows over the batches (gpu-s53: bare
            # 2.6 s a round at first, 3.7 s at the end) makes the difference
            # in ms grow with it, and dividing by the pooled bare median
            # would then flatter or blame the arm; a round's ratio does not
            # depend on how slow the VM was in that round.
            if all(x > 0 for x in vals[first]):
                ratios = [x / y for x, y in zip(v, vals[first])]
                rci = median_interval(ratios)
                if rci:
                    print("%-10s %s   per-round ratio median %.4f, 95%% interval %.4f to %.4f" % (
                        "", what, statistics.median(ratios), rci[0], rci[1]))


# What each run gives, in the order run() returns it: JSON key, label, unit.
SERIES = [("wall_ms", "wall", "ms"), ("cpu_ms", "cpu ", "ms"), ("sys_ms", "sys ", "ms"), ("minflt", "flts", "faults")]


def summaries(arms, vals):
    for key, label, unit in SERIES:
        if key in vals:
            summary(arms, vals[key], label, unit)


def pool(paths):
    """The summary of the rounds of several --json files of the same arms.
    Files written before sys_ms and minflt were recorded have wall and CPU
    only: a series is pooled where every file has it."""
    arms, vals, orders = None, None, set()
    for path in paths:
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit("arms.py: --pool: %s: %s" % (path, e))
        if arms is None:
            arms = list(d["arms"].items())
            vals = {key: {name: [] for name, _ in arms} for key, _, _ in SERIES if key in d}
        elif list(d["arms"].items()) != arms:
            sys.exit("arms.py: %s: not the arms of %s" % (path, paths[0]))
        for key in list(vals):
            if key not in d:
                del vals[key]
                continue
            for name, _ in arms:
                vals[key][name] += d[key][name]
        orders.add(d["order"])
    print("rounds: %d, pooled from %d runs (%s)" % (len(vals["wall_ms"][arms[0][0]]), len(paths), "; ".join(sorted(orders))))
    summaries(arms, vals)


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
    vals = {key: {name: [] for name, _ in arms} for key, _, _ in SERIES}

    def keep(name, figures):
        for (key, _, _), x in zip(SERIES, figures):
            vals[key][name].append(x)

    for r in range(-a.warmup, a.rounds):
        if cpus:
            # arm k on CPU (k + r) mod n: each arm meets each CPU in turn
            took = run_together([cmd for _, cmd in arms],
                                [cpus[(k + r) % len(cpus)] for k in range(len(arms))])
            for (name, _), figures in zip(arms, took):
                if r >= 0:
                    keep(name, figures)
            continue
        for k in range(len(arms)):
            name, cmd = arms[(k + r) % len(arms)]
            figures = run(cmd)
            if r >= 0:
                keep(name, figures)
    print("rounds: %d, %s, %d warm-up round(s) not counted" % (
        a.rounds, "arms together on CPUs %s, rotating" % a.together if cpus else "order rotating", a.warmup))
    summaries(arms, vals)
    if a.json:
        with open(a.json, "w") as f:
            d = {"arms": dict(arms), "rounds": a.rounds, "order": "together on " + a.together if cpus else "rotating"}
            d.update(vals)
            json.dump(d, f, indent=1)


if __name__ == "__main__":
    main()
