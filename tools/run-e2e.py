"""Runs the end-to-end test modules (tests/e2e/test_*.py) in parallel, one
`python3 -m unittest` process per module, and prints each module's output
whole as it finishes, then a summary. Exit status 1 if any module failed.

Why: the tests spend most of their time waiting on the programs they run
(gputrace, Python, mpirun), so a few modules at once use two cores far
better than one after the other; CI must stay under 8 minutes on 2 cores.
Each module keeps running in one process, in unittest's order, so tests that
share a class fixture (setUpClass) are unaffected.

    /usr/bin/python3 tools/run-e2e.py [-j N] [MODULE...]
"""
import argparse
import concurrent.futures
import glob
import os
import subprocess
import sys
import tempfile
import time

# The slowest modules first, so that the pool does not end waiting on one.
# By wall time in CI (longest first, so that no long one starts last: with
# the old list test_writer, 31 s of CPU, started last and ran alone for 15 s).
SLOW_FIRST = ["test_cases", "test_multi", "test_report", "test_real_commands", "test_newcomer", "test_scan",
              "test_diff_retry", "test_loader_paper", "test_facts", "test_writer", "test_pictures", "test_html",
              "test_hardening", "test_wheel", "test_doctor", "test_inspect", "test_checkers", "test_trust",
              "test_cli", "test_scan_ask", "test_scenarios", "test_scan_host", "test_crash"]


# Modules whose gputrace processes run without LeakSanitizer (ASan and UBSan
# stay on). Why: LSan's scan at exit costs about 57 ms of CPU per process on
# this 2-core VM, more than ASan's own start (issue 27: CI in 8 minutes), and
# these modules start most processes while adding no code path the leak-
# checked ones lack: the corpus's rules run in test_facts (every finding id,
# leaks checked), the real commands, ranks and big traces run the tracer,
# the reader and the renderers that test_report and test_cli check; the
# newcomer's commands (report, retry, scan) and scan's trees are report,
# retry and scan again, which test_report, test_diff_retry and test_cli run
# leak-checked (LSan was 9 and 14 of their 37 and 42 s of CPU). The unit
# tests and every other module keep leak detection.
LEAKS_UNCHECKED = {"test_cases", "test_real_commands", "test_multi", "test_hardening", "test_writer",
                   "test_limits", "test_copies", "test_html", "test_newcomer", "test_scan"}


def module_env(module):
    if module not in LEAKS_UNCHECKED:
        return os.environ
    # LSAN_OPTIONS, not ASAN_OPTIONS: the tests set ASAN_OPTIONS of their own
    opts = os.environ.get("LSAN_OPTIONS", "")
    return dict(os.environ, LSAN_OPTIONS=(opts + ":" if opts else "") + "detect_leaks=0")


def modules(names):
    found = sorted(os.path.basename(p)[:-3] for p in glob.glob("tests/e2e/test_*.py"))
    if names:
        missing = [n for n in names if n not in found]
        if missing:
            sys.exit("run-e2e: no such test module: %s" % ", ".join(missing))
        found = names
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    return sorted(found, key=lambda n: (rank.get(n, len(SLOW_FIRST)), n))


def run(module):
    """Runs one module; returns its name, exit status, output, wall seconds
    and CPU seconds (user + system of the module and every process it
    waited for: the figure that other load on the machine does not change)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen([sys.executable, "-m", "unittest", "-v", "tests.e2e." + module],
                             stdout=out, stderr=subprocess.STDOUT, env=module_env(module))
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode(errors="replace")
    return module, p.returncode, text, time.monotonic() - start, usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-j", type=int, default=(os.cpu_count() or 2) + 1, help="modules at once")
    ap.add_argument("module", nargs="*")
    args = ap.parse_args()
    todo = modules(args.module)
    failed, times, cpu = [], [], []
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as ex:
        for done in concurrent.futures.as_completed([ex.submit(run, m) for m in todo]):
            module, rc, out, secs, cpu_secs = done.result()
            sys.stdout.write("==== %s (%.0f s, %.0f s CPU, exit %d)\n%s\n" % (module, secs, cpu_secs, rc, out))
            sys.stdout.flush()
            times.append((secs, module))
            cpu.append((cpu_secs, module))
            if rc != 0:
                failed.append(module)
    print("run-e2e: %d modules in %.0f s with -j %d; slowest: %s" % (
        len(todo), time.monotonic() - start, args.j,
        ", ".join("%s %.0f s" % (m, s) for s, m in sorted(times, reverse=True)[:5])))
    print("run-e2e: %.0f s CPU in all; most: %s" % (
        sum(c for c, _ in cpu), ", ".join("%s %.0f s" % (m, c) for c, m in sorted(cpu, reverse=True)[:8])))
    if failed:
        print("run-e2e: FAILED: %s" % ", ".join(failed))
        return 1
    print("run-e2e: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
