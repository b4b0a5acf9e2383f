#!/usr/bin/python3
"""Instructions of several commands (arms), counted by the CPU, paired rounds.
    arm_instructions.py [--rounds R] [--json PATH] NAME=COMMAND [NAME=COMMAND...]
Each COMMAND (sh -c, output thrown away, exit 0 or 1) runs under a hardware
counter of user-space instructions (perf_event_open, PERF_COUNT_HW_INSTRUCTIONS,
inherit: every process it starts counts, the diagnosis child of `gputrace -o`
too), the arms of a round in an order that rotates from round to round.
Prints each arm's median count and the median of its per-round difference to
the first arm, and 1 + that over the first arm's median.

Why: a 1% cost drowns in the wall and CPU times of a VM whose speed drifts by
tens of percent over minutes (bench/results/gpu-s42 call 3, gpu-s43); the
instructions a command executes do not drift with the host's load. It is not
a time (cache misses, system calls and page faults cost without counting
here): bench/torch_batches.sh stays the measure on a quiet VM. Where the
machine exposes no CPU counter (a VM without a virtual PMU, like the build
VM), it says so and exits 2; bench/torch_instructions.sh counts with
callgrind there. Python standard library only.
"""
import argparse
import ctypes
import json
import os
import statistics
import struct
import subprocess
import sys

SYS_PERF_EVENT_OPEN = 298  # x86_64
PERF_TYPE_HARDWARE = 0
PERF_COUNT_HW_INSTRUCTIONS = 1
# perf_event_attr's flag bits
DISABLED, INHERIT, EXCLUDE_KERNEL, EXCLUDE_HV = 1 << 0, 1 << 1, 1 << 5, 1 << 6
IOC_ENABLE, IOC_DISABLE, IOC_RESET = 0x2400, 0x2401, 0x2403

libc = ctypes.CDLL(None, use_errno=True)


def open_counter():
    """A disabled counter of this process's user-space instructions and its
    future children's (inherit), or exit 2."""
    # PERF_ATTR_SIZE_VER0 (64 bytes): type, size, config, sample_period,
    # sample_type, read_format, flags, wakeup_events, bp_type, config1
    attr = struct.pack("IIQQQQQIIQ", PERF_TYPE_HARDWARE, 64, PERF_COUNT_HW_INSTRUCTIONS, 0, 0, 0,
                       DISABLED | INHERIT | EXCLUDE_KERNEL | EXCLUDE_HV, 0, 0, 0)
    buf = ctypes.create_string_buffer(attr, 64)
    fd = libc.syscall(SYS_PERF_EVENT_OPEN, buf, 0, -1, -1, 0)
    if fd < 0:
        e = ctypes.get_errno()
        print("arm_instructions.py: no CPU instruction counter here (perf_event_open: %s); "
              "bench/torch_instructions.sh counts with callgrind" % os.strerror(e), file=sys.stderr)
        sys.exit(2)
    return fd


def count(fd, cmd):
    """User-space instructions of sh -c cmd and everything it started."""
    libc.ioctl(fd, IOC_RESET, 0)
    libc.ioctl(fd, IOC_ENABLE, 0)
    p = subprocess.run(["sh", "-c", cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    libc.ioctl(fd, IOC_DISABLE, 0)
    if p.returncode not in (0, 1):
        sys.exit("arm_instructions.py: %s exited %d: %s" % (cmd, p.returncode, p.stderr.decode(errors="replace")))
    return struct.unpack("Q", os.read(fd, 8))[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--json")
    ap.add_argument("arms", nargs="+", metavar="NAME=COMMAND")
    a = ap.parse_args()
    arms = [x.split("=", 1) for x in a.arms]
    if any(len(x) != 2 for x in arms):
        sys.exit("arm_instructions.py: each arm is NAME=COMMAND")
    fd = open_counter()
    counts = {n: [] for n, _ in arms}
    count(fd, arms[0][1])  # one warm-up run, not counted (the page cache)
    for r in range(a.rounds):
        order = arms[r % len(arms):] + arms[:r % len(arms)]
        for n, c in order:
            counts[n].append(count(fd, c))
    base = arms[0][0]
    b = statistics.median(counts[base])
    print("rounds: %d, user-space instructions (CPU counter, every process)" % a.rounds)
    for n, c in arms:
        diffs = [x - y for x, y in zip(counts[n], counts[base])]
        d = statistics.median(diffs)
        q = statistics.quantiles(diffs, n=4) if len(diffs) > 1 else [d, d, d]
        print("%-10s median %15.0f [min %.0f, max %.0f]  vs %s: %+.0f (%.4f), middle half [%+.0f, %+.0f]  (%s)"
              % (n, statistics.median(counts[n]), min(counts[n]), max(counts[n]), base, d, 1 + d / b,
                 q[0], q[2], c))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"arms": dict(arms), "counts": counts}, f)


if __name__ == "__main__":
    main()
