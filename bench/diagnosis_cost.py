#!/usr/bin/python3
"""The end-of-run diagnosis of `gputrace [-q] -o DIR COMMAND`, timed in the
real launcher (issue 29: at most 10 ms for `import torch`).

    diagnosis_cost.py [--rounds R] [--command CMD] NAME=GPUTRACE [NAME=GPUTRACE...]

Each round runs every arm (a gputrace binary) in -o and in -q -o mode, in an
order that rotates from round to round, under `strace -ttt` of the launcher
alone (not its children, which run at full speed): the diagnosis is the
child the launcher forks after it reaped the command, and its time the span
from that fork to the launcher's wait that collects it. The span from the
command's reaping to the launcher's exit is printed too (what a user waits
for after the program ended). Medians, min and max in ms. Python standard
library only; needs strace.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

CLONE = re.compile(r"^(\d+\.\d+) clone\(.*\) = (\d+)$")
WAIT = re.compile(r"^(\d+\.\d+) wait4\((\d+), .*\) = (\d+)$")
REAPED_WRITE = re.compile(r'^(\d+\.\d+) write\(\d+, "\{\\"ev\\":\\"reaped\\"')
EXIT = re.compile(r"^(\d+\.\d+) exit_group\(")


def one_run(gputrace, quiet, command):
    """(diagnosis ms, reaped-to-exit ms) of one traced run."""
    work = tempfile.mkdtemp(prefix="gt-diag-")
    log = os.path.join(work, "strace.log")
    argv = ["strace", "-ttt", "-e", "trace=clone,wait4,write,exit_group", "-o", log, gputrace]
    argv += (["-q"] if quiet else []) + ["-o", os.path.join(work, "t"), "--"] + command
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    lines = open(log, encoding="utf-8", errors="replace").read().splitlines()
    shutil.rmtree(work, ignore_errors=True)
    if p.returncode != 0:
        sys.exit("diagnosis_cost.py: %s exited %d" % (" ".join(argv), p.returncode))
    clones = [(float(m.group(1)), m.group(2)) for m in map(CLONE.match, lines) if m]
    forked_at, pid = clones[-1]  # the diagnosis child: the last fork
    waited = [float(m.group(1)) for m in map(WAIT.match, lines) if m and m.group(3) == pid]
    reaped = [float(m.group(1)) for m in map(REAPED_WRITE.match, lines) if m]
    ended = [float(m.group(1)) for m in map(EXIT.match, lines) if m]
    if not waited or not reaped or not ended:
        sys.exit("diagnosis_cost.py: no diagnosis child seen in the strace log of %s" % gputrace)
    return (waited[-1] - forked_at) * 1e3, (ended[-1] - reaped[-1]) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--command", default="/usr/bin/python3 -c 'import torch'")
    ap.add_argument("arms", nargs="+", metavar="NAME=GPUTRACE")
    a = ap.parse_args()
    command = ["sh", "-c", a.command]
    arms = []
    for spec in a.arms:
        name, eq, path = spec.partition("=")
        if not eq:
            ap.error("%r: NAME=GPUTRACE" % spec)
        arms += [(name + " -o", path, False), (name + " -q -o", path, True)]
    for _, path, quiet in arms:  # warm-up: caches, the dpkg index
        one_run(path, quiet, command)
    diag = {name: [] for name, _, _ in arms}
    tail = {name: [] for name, _, _ in arms}
    for r in range(a.rounds):
        for k in range(len(arms)):
            name, path, quiet = arms[(k + r) % len(arms)]
            d, t = one_run(path, quiet, command)
            diag[name].append(d)
            tail[name].append(t)
    print("command: %s; rounds: %d, order rotating, 1 warm-up round not counted" % (a.command, a.rounds))
    for name, path, _ in arms:
        print("%-14s diagnosis median %7.1f ms [min %.1f, max %.1f]   reaped->exit median %7.1f ms "
              "[min %.1f, max %.1f]  (%s)" % (name, statistics.median(diag[name]), min(diag[name]),
                                              max(diag[name]), statistics.median(tail[name]),
                                              min(tail[name]), max(tail[name]), path))


if __name__ == "__main__":
    main()
