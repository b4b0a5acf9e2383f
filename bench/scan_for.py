#!/usr/bin/python3
"""What `gputrace scan --for FILE --json` costs a file, against ldd's way
(LD_TRACE_LOADED_OBJECTS=1 ld.so FILE), `ldd FILE` and, with --also, another
build of gputrace (issue 33: aim <= 3 ms a file).

    scan_for.py [--files 300] [--rounds 3] [--also NAME=GPUTRACE] [--floor] GPUTRACE TREE...

Picks --files dynamic ELF files at random (seed 33) under the trees (as
tests/difftest/difftest.py finds them). Each round runs every arm once on
every file, the arms in rotating order, after one warm-up round; a file's
time in an arm is its median over the rounds, and the figures are the
medians (and 90th percentiles) over the files, of wall time
(time.perf_counter around subprocess.run) and of CPU time (the child's
user + system time, which the other work on a shared machine disturbs less).
--floor adds each build's `gputrace --version` as an arm (run beside the
others, once per file and round): the cost of starting the process, so that
scan --for's own work is the difference. Python standard library only;
asserts nothing.
"""
import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "difftest"))
import difftest  # noqa: E402

RTLD = difftest.RTLD


def run_once(argv, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = (time.perf_counter() - t) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
    return wall, cpu


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--also", action="append", default=[], help="NAME=GPUTRACE: another build's scan --for")
    ap.add_argument("--floor", action="store_true", help="also each build's gputrace --version")
    ap.add_argument("gputrace")
    ap.add_argument("trees", nargs="+")
    a = ap.parse_args()
    files = difftest.files_under([t for t in a.trees if os.path.isdir(t)])
    files = sorted(random.Random(33).sample(files, min(a.files, len(files))))
    env = difftest.clean_env()
    trace_env = dict(env, LD_TRACE_LOADED_OBJECTS="1")
    arms = [("scan --for", lambda f: ([a.gputrace, "scan", "--for", f, "--json"], env)),
            ("ld.so (ldd's way)", lambda f: ([RTLD, f], trace_env)),
            ("ldd", lambda f: (["ldd", f], env))]
    builds = [("", a.gputrace)]
    for spec in a.also:
        name, path = spec.rsplit("=", 1)
        arms.append((name, lambda f, p=path: ([p, "scan", "--for", f, "--json"], env)))
        builds.append((name + ", ", path))
    if a.floor:
        for name, path in builds:
            arms.append((name + "--version", lambda f, p=path: ([p, "--version"], env)))
    times = {n: {f: [] for f in files} for n, _ in arms}
    for rnd in range(a.rounds + 1):
        for i, f in enumerate(files):
            k = (rnd + i) % len(arms)
            for name, make in arms[k:] + arms[:k]:
                w, c = run_once(*make(f))
                if rnd:
                    times[name][f].append((w, c))
    print("scan --for: %d files under %s, %d rounds (+1 warm-up), medians over files of each file's median" %
          (len(files), " ".join(a.trees), a.rounds))
    print("%-28s %10s %10s %10s %10s" % ("arm", "wall ms", "wall p90", "cpu ms", "cpu p90"))
    for name, _ in arms:
        wall = [statistics.median(w for w, _ in v) for v in times[name].values()]
        cpu = [statistics.median(c for _, c in v) for v in times[name].values()]
        print("%-28s %10.2f %10.2f %10.2f %10.2f" % (name, statistics.median(wall), pct(wall, 0.9),
                                                     statistics.median(cpu), pct(cpu, 0.9)))


if __name__ == "__main__":
    main()
