#!/usr/bin/python3
"""System calls the library adds per loaded library, counted by strace.

    syscalls_per_lib.py --lib LIB --prog LOAD_MANY [--small 300] [--large 900] [--rounds 5]

Each round runs LOAD_MANY (bench/load_many.c: dlopen of N generated libraries
by name through its RUNPATH) four times under `strace -f -c`: bare and with
the library alone (LD_AUDIT and LD_PRELOAD set to LIB, GPUTRACE_DIR a fresh
folder, no launcher), at N = SMALL and N = LARGE, in an order that rotates.
From each round:

  added(N)   = calls(traced, N) - calls(bare, N)
  per lib    = added(LARGE) / LARGE                  (start-up and exit included)
  steady     = (added(LARGE) - added(SMALL)) / (LARGE - SMALL)
               (what one more library costs: what the library pays once
               per process cancels out)

and the same per system call name for the calls whose steady figure is not 0.
Prints the median over rounds of each figure.  Python standard library only.
"""
import argparse
import collections
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

LINE = re.compile(r"^\s*[0-9.]+\s+[0-9.]+\s+[0-9]+\s+([0-9]+)\s+(?:([0-9]+)\s+)?([a-z_0-9]+)\s*$")


def counts(argv, env):
    """Calls per system call name of one run of argv (and its children)."""
    with tempfile.NamedTemporaryFile(prefix="gt-strace-", suffix=".txt", delete=False) as f:
        out = f.name
    try:
        p = subprocess.run(["strace", "-f", "-c", "-o", out, "--"] + argv, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            sys.exit("syscalls_per_lib.py: %s exited %d: %s" % (
                " ".join(argv), p.returncode, p.stderr.decode(errors="replace")))
        got = collections.Counter()
        with open(out) as fh:
            for line in fh:
                m = LINE.match(line)
                if m and m.group(3) != "total":
                    got[m.group(3)] += int(m.group(1))
        return got
    finally:
        os.unlink(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, help="libgputrace.so")
    ap.add_argument("--prog", required=True, help="bench/load_many")
    ap.add_argument("--small", type=int, default=300)
    ap.add_argument("--large", type=int, default=900)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    lib = os.path.abspath(args.lib)

    def bare(n):
        return counts([args.prog, str(n)], dict(os.environ))

    def traced(n):
        d = tempfile.mkdtemp(prefix="gt-sys-")
        env = dict(os.environ, GPUTRACE_DIR=d, LD_AUDIT=lib, LD_PRELOAD=lib)
        try:
            return counts([args.prog, str(n)], env)
        finally:
            shutil.rmtree(d, ignore_errors=True)

    arms = [("bare", args.small, bare), ("traced", args.small, traced),
            ("bare", args.large, bare), ("traced", args.large, traced)]
    per_lib, steady, by_name = [], [], collections.defaultdict(list)
    for r in range(args.rounds):
        got = {}
        for k in range(len(arms)):
            name, n, fn = arms[(k + r) % len(arms)]
            got[(name, n)] = fn(n)
        add_small = got[("traced", args.small)].copy()
        add_small.subtract(got[("bare", args.small)])
        add_large = got[("traced", args.large)].copy()
        add_large.subtract(got[("bare", args.large)])
        per_lib.append(sum(add_large.values()) / args.large)
        steady.append((sum(add_large.values()) - sum(add_small.values())) / (args.large - args.small))
        for call in set(add_large) | set(add_small):
            by_name[call].append((add_large[call] - add_small[call]) / (args.large - args.small))
        print("round %d: added %d calls at %d libraries, %d at %d; per library %.3f, steady %.3f" % (
            r + 1, sum(add_small.values()), args.small, sum(add_large.values()), args.large,
            per_lib[-1], steady[-1]))
    print("median over %d rounds: system calls added per library %.3f (start-up and exit included, "
          "N=%d), steady state %.3f (N=%d..%d)" % (
              args.rounds, statistics.median(per_lib), args.large, statistics.median(steady),
              args.small, args.large))
    for call in sorted(by_name, key=lambda c: -abs(statistics.median(by_name[c]))):
        m = statistics.median(by_name[call])
        if abs(m) >= 0.005:
            print("  %-16s %+.3f per library (steady)" % (call, m))


if __name__ == "__main__":
    main()
