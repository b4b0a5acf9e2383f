#!/usr/bin/python3
"""Differential test of gputrace on real commands (issue 34): each command of
tests/real/commands.py runs bare twice and traced once, and what it did must
be the same: exit status or signal, stdout, stderr, and the files it left.

    /usr/bin/python3 tests/real/run_real.py --all --build build -j 2
    /usr/bin/python3 tests/real/run_real.py --sample 40 --build /tmp/b
    /usr/bin/python3 tests/real/run_real.py --only sh-yes-head --keep -v

A stream that differs between the two bare runs (a date, a pid, a temporary
name) is "nondeterministic" for that command and left out of its comparison;
a stream the command list marks as showing gputrace's documented process
state (its environment variables, /proc/self/maps) is "expected". Each
traced run is also judged by `gputrace report --json`: a command that ended
as the list says (healthy) must get no error-level finding. Standard library
only; exits 1 on any difference, error finding or broken report.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if ROOT not in sys.path:  # run as a script: make `tests.real` importable
    sys.path.insert(0, ROOT)

from tests.real import commands as command_list  # noqa: E402

FIXTURE = os.path.join(HERE, "fixture")

# The fixed environment of every run, bare and traced. PATH leaves out
# /usr/local/bin and pyenv's shims: `python3` there is not Debian's. The git
# identity and dates make commits (and so their hashes) the same each run.
CALLER_CACHE = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
FIXED_ENV = {
    "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
    "LC_ALL": "C",
    "LANG": "C",
    "TZ": "UTC",
    "TERM": "dumb",
    "SHELL": "/bin/sh",
    "USER": "tester",
    "LOGNAME": "tester",
    "PYTHONHASHSEED": "0",
    "OMP_NUM_THREADS": "1",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Real Test",
    "GIT_AUTHOR_EMAIL": "real@example.invalid",
    "GIT_AUTHOR_DATE": "2024-01-02T03:04:05Z",
    "GIT_COMMITTER_NAME": "Real Test",
    "GIT_COMMITTER_EMAIL": "real@example.invalid",
    "GIT_COMMITTER_DATE": "2024-01-02T03:04:05Z",
}
# A sanitizer build of the gputrace command (make check's) reads these; they
# change nothing in the commands themselves, so both arms get them.
PASSED_THROUGH = ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")

EXCERPT = 300  # characters of each side shown for a difference


class Arm:
    """One run of a command: how it ended and what it left behind."""

    def __init__(self, status, streams, seconds, trace_dir=None):
        self.status = status        # "exit N", "signal SIGX" or "timeout"
        self.streams = streams      # name -> bytes or str (files: a digest)
        self.seconds = seconds
        self.trace_dir = trace_dir


def status_text(returncode):
    if returncode is None:
        return "timeout"
    if returncode < 0:
        try:
            return "signal " + signal.Signals(-returncode).name
        except ValueError:
            return "signal %d" % -returncode
    return "exit %d" % returncode


def listed_status(cmd):
    return status_text(cmd.status)


def snapshot(top, prefix):
    """Each entry under top as a stream: its kind and, for a file, the hash
    of its contents and whether it is executable (not times or owners)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, top)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                desc = "link -> " + os.readlink(path)
            elif stat.S_ISDIR(st.st_mode):
                desc = "dir"
            elif stat.S_ISREG(st.st_mode):
                desc = "file %d bytes sha256 %s%s" % (
                    st.st_size, digest(path), " executable" if st.st_mode & 0o100 else "")
            else:
                desc = "special %o" % stat.S_IFMT(st.st_mode)
            out[prefix + rel] = desc
    return out


def digest(path):
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError as e:  # a command may leave a file it made unreadable
        return "unreadable (%s)" % e.strerror
    return h.hexdigest()[:16]


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)


def run_arm(cmd, base, build, traced):
    """Runs cmd once in base/work (a fresh copy of the fixture tree), with
    HOME and TMPDIR fresh folders beside it. The same paths serve all three
    runs of a command, so a command that prints its folder prints the same."""
    work, home, tmp = (os.path.join(base, d) for d in ("work", "home", "tmp"))
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(FIXTURE, work, symlinks=True)
    fresh_dir(home)
    fresh_dir(tmp)
    # gputrace keeps its index of dpkg's lists under XDG_CACHE_HOME
    # (gputrace-report(1), GPUTRACE_CACHE_DIR): its own file, not the
    # command's, so the caller's cache, outside the HOME whose files are
    # compared (and made once for all the commands, not once each).
    env = dict(FIXED_ENV, HOME=home, TMPDIR=tmp, XDG_CACHE_HOME=CALLER_CACHE)
    env.update({k: os.environ[k] for k in PASSED_THROUGH if k in os.environ})
    env.update(cmd.env)

    argv = list(cmd.argv)
    trace_dir = None
    if traced:
        trace_dir = os.path.join(base, "trace")
        shutil.rmtree(trace_dir, ignore_errors=True)  # gputrace wants a new folder
        argv = [os.path.join(build, "gputrace"), "-q", "-o", trace_dir, "--"] + argv
    if cmd.wrapper:
        # A wrapper outside gputrace (the kill -USR1 $PPID case): the
        # command's parent is the wrapper bare and the launcher traced.
        argv = list(cmd.wrapper) + argv

    start = time.monotonic()
    # A session of its own, so that a command that hangs can be killed with
    # everything it started, and its signals stay among its own processes.
    proc = subprocess.Popen(argv, cwd=work, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(cmd.stdin.encode(), timeout=cmd.timeout)
        returncode = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # a process that left the session holds the pipes
            proc.kill()
            out, err = b"", b""
        returncode = None
    seconds = time.monotonic() - start

    streams = {"status": status_text(returncode), "stdout": out, "stderr": err}
    streams.update(snapshot(work, "file:"))
    streams.update(snapshot(home, "home:"))
    for f in cmd.filters:
        for name in f.streams:
            streams[name] = f.apply(streams[name])
    return Arm(streams["status"], streams, seconds, trace_dir)


def excerpt(value, other):
    """The part of value around its first difference from other."""
    if value is None:
        return "(absent)"
    if not isinstance(value, bytes) or not isinstance(other, bytes):
        return str(value)
    i = 0
    n = min(len(value), len(other))
    while i < n and value[i] == other[i]:
        i += 1
    start = max(0, value.rfind(b"\n", 0, max(0, i - 80)) + 1)
    text = value[start:start + EXCERPT].decode("utf-8", "backslashreplace")
    more = "..." if start + EXCERPT < len(value) else ""
    return ("..." if start else "") + repr(text)[1:-1] + more + " (%d bytes)" % len(value)


def judge_report(build, trace_dir):
    """Runs gputrace report --json on a traced run's folder; returns
    (error findings, problem): problem is a sentence when the report itself
    misbehaved (exit status other than 0 or 1, output that is not JSON).
    A folder without traces is no report's business: a static program (or
    one run by valgrind's own loader) loads no libgputrace.so, and report
    rightly refuses an empty folder (exit 2)."""
    if not glob.glob(os.path.join(trace_dir, "*.jsonl")):
        return None, None
    try:
        r = subprocess.run([os.path.join(build, "gputrace"), "report", "--json", trace_dir],
                           capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return [], "report --json took more than 120 s"
    if r.returncode not in (0, 1):
        return [], "report --json exited %d: %s" % (
            r.returncode, r.stderr.decode("utf-8", "replace").strip()[:EXCERPT])
    try:
        doc = json.loads(r.stdout)
        argv_of = {p["pid"]: p.get("argv") or [p.get("exe", "?")] for p in doc["processes"]}
        errors = []
        for f in doc["findings"]:
            if f["severity"] == "error":
                # Which processes: in a pipeline or a make, the one that
                # earned the finding is rarely the command itself.
                pids = f.get("processes", [])
                where = "; ".join("pid %s: %s" % (pid, " ".join(map(str, argv_of.get(pid, ["?"])))[:80])
                                  for pid in pids[:3])
                if len(pids) > 3:
                    where += "; and %d more" % (len(pids) - 3)
                errors.append((f["id"], f.get("summary", "") + (" [%s]" % where if where else "")))
    except (ValueError, KeyError, TypeError) as e:
        return [], "report --json printed no valid report (%s: %s): %r" % (
            type(e).__name__, e, r.stdout[:EXCERPT])
    if (r.returncode == 1) != bool(errors):
        return errors, "report --json exited %d with %d error findings" % (r.returncode, len(errors))
    return errors, None


class Result:
    """What one command's three runs showed."""

    def __init__(self, cmd):
        self.cmd = cmd
        self.skipped = None        # why, when it did not run
        self.differences = []      # (stream, bare excerpt, traced excerpt)
        self.nondeterministic = []  # streams that differed between the bare runs
        self.expected = []         # (stream, reason): documented process state
        self.errors = []           # (finding id, summary) not allowed for it
        self.allowed_errors = []   # (finding id, reason) the list allows
        self.report_problem = None
        self.bare_problem = None   # the bare runs did not end as the list says
        self.harness_problem = None  # the harness itself failed on this command
        self.untraced = False      # the traced run left no trace file
        self.seconds = 0.0

    @property
    def failed(self):
        return bool(self.differences or self.errors or self.report_problem or self.bare_problem
                    or self.harness_problem)


def run_command(cmd, build, tmp_root, keep=False):
    res = Result(cmd)
    missing = [p for p in cmd.needs if not os.path.exists(p)]
    if missing:
        res.skipped = "missing " + ", ".join(missing)
        return res
    base = os.path.join(tmp_root, cmd.id)
    os.makedirs(base)
    try:
        compare_runs(res, cmd, base, build)
    except Exception as e:  # one command's trouble must not end the whole run
        res.harness_problem = "%s: %s" % (type(e).__name__, e)
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)
    return res


def compare_runs(res, cmd, base, build):
    """The three runs of cmd in base, compared into res."""
    bare1 = run_arm(cmd, base, build, traced=False)
    bare2 = run_arm(cmd, base, build, traced=False)
    traced = run_arm(cmd, base, build, traced=True)
    res.seconds = bare1.seconds + bare2.seconds + traced.seconds

    healthy = bare1.status == bare2.status == listed_status(cmd)
    if not healthy:
        res.bare_problem = "the list says %s, the bare runs ended with %s and %s" % (
            listed_status(cmd), bare1.status, bare2.status)

    names = sorted(set(bare1.streams) | set(bare2.streams) | set(traced.streams))
    for name in names:
        b1, b2, t = (a.streams.get(name) for a in (bare1, bare2, traced))
        if b1 != b2:
            res.nondeterministic.append(name)
        elif name in cmd.expect_diff:
            if t != b1:
                res.expected.append((name, cmd.expect_diff[name]))
        elif t != b1:
            res.differences.append((name, excerpt(b1, t), excerpt(t, b1)))

    errors, res.report_problem = judge_report(build, traced.trace_dir)
    res.untraced = errors is None
    for fid, summary in errors or []:
        if fid in cmd.allow_errors:
            res.allowed_errors.append((fid, cmd.allow_errors[fid]))
        elif healthy:
            res.errors.append((fid, summary))


def run_all(cmds, build, jobs=2, keep=False, progress=None):
    """Runs each command (jobs at a time); returns the Results in list order."""
    build = os.path.abspath(build)
    for f in ("gputrace", "libgputrace.so"):
        if not os.path.exists(os.path.join(build, f)):
            raise SystemExit("run_real: %s/%s is missing: build it first (make BUILD=%s all)"
                             % (build, f, build))
    tmp_root = tempfile.mkdtemp(prefix="gt-real-")
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {pool.submit(run_command, c, build, tmp_root, keep): c for c in cmds}
            done = {}
            for fut in concurrent.futures.as_completed(futures):
                res = fut.result()
                done[res.cmd.id] = res
                if progress:
                    progress(res, len(done), len(cmds))
    finally:
        if keep:
            print("run_real: kept the runs' folders in " + tmp_root, file=sys.stderr)
        else:
            shutil.rmtree(tmp_root, ignore_errors=True)
    return [done[c.id] for c in cmds]


def problem_lines(r):
    """Each problem of one command, with the command and both sides."""
    head = "%s [%s]: %s" % (r.cmd.id, r.cmd.category, r.cmd.display())
    lines = []
    if r.differences:
        lines.append("DIFFERENCE " + head)
    for stream, bare, traced in r.differences:
        lines += ["    stream: " + stream, "      bare:   " + bare, "      traced: " + traced]
    for fid, text in r.errors:
        lines += ["ERROR FINDING " + head, "    %s: %s" % (fid, text)]
    if r.report_problem:
        lines += ["REPORT PROBLEM " + head, "    " + r.report_problem]
    if r.bare_problem:
        lines += ["BARE RUN NOT AS LISTED " + head, "    " + r.bare_problem]
    if r.harness_problem:
        lines += ["HARNESS ERROR " + head, "    " + r.harness_problem]
    return lines


def summary(results, seconds, build):
    """The report a person reads: counts first, then each problem."""
    ran = [r for r in results if not r.skipped]
    skipped = [r for r in results if r.skipped]
    differing = [r for r in ran if r.differences]
    erring = [r for r in ran if r.errors]
    lines = [
        "real commands: %d listed, %d run, %d skipped; build %s; %.1f s" % (
            len(results), len(ran), len(skipped), build, seconds),
        "  same: %d" % sum(1 for r in ran if not r.failed),
        "  with differences: %d commands (%d streams)" % (
            len(differing), sum(len(r.differences) for r in differing)),
        "  with error findings on a healthy run: %d commands (%d findings)" % (
            len(erring), sum(len(r.errors) for r in erring)),
        "  report problems: %d; bare runs not ending as listed: %d; harness errors: %d" % (
            sum(1 for r in ran if r.report_problem), sum(1 for r in ran if r.bare_problem),
            sum(1 for r in ran if r.harness_problem)),
        "  nondeterministic streams (left out): %d in %d commands" % (
            sum(len(r.nondeterministic) for r in ran), sum(1 for r in ran if r.nondeterministic)),
        "  expected differences (documented process state): %d in %d commands" % (
            sum(len(r.expected) for r in ran), sum(1 for r in ran if r.expected)),
    ]
    for r in ran:
        lines += problem_lines(r)
    for r in ran:
        if r.nondeterministic:
            lines.append("nondeterministic %s: %s" % (r.cmd.id, ", ".join(r.nondeterministic)))
    for r in ran:
        for stream, reason in r.expected:
            lines.append("expected %s: %s (%s)" % (r.cmd.id, stream, reason))
        for fid, reason in r.allowed_errors:
            lines.append("allowed finding %s: %s (%s)" % (r.cmd.id, fid, reason))
    for r in ran:
        if r.untraced:
            lines.append("untraced %s: the traced run left no trace file" % r.cmd.id)
    for r in skipped:
        lines.append("skipped %s: %s" % (r.cmd.id, r.skipped))
    return "\n".join(lines) + "\n"


def spread_sample(cmds, n, seed):
    """n commands taken in turn from each category (in a seeded order), so
    that a small sample still touches every kind of command."""
    rng = random.Random(seed)
    by_cat = {}
    for c in cmds:
        by_cat.setdefault(c.category, []).append(c)
    for group in by_cat.values():
        rng.shuffle(group)
    picked = []
    while len(picked) < min(n, len(cmds)):
        for group in by_cat.values():
            if group and len(picked) < n:
                picked.append(group.pop())
    order = {c.id: i for i, c in enumerate(cmds)}
    return sorted(picked, key=lambda c: order[c.id])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--all", action="store_true", help="every listed command")
    which.add_argument("--sample", type=int, metavar="N", help="N commands spread over the categories")
    which.add_argument("--only", nargs="+", metavar="ID", help="these commands")
    which.add_argument("--list", action="store_true", help="print the list and exit")
    ap.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    ap.add_argument("--build", default=os.environ.get("BUILD", os.path.join(ROOT, "build")),
                    help="the folder holding gputrace and libgputrace.so")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="commands run at once")
    ap.add_argument("--log", help="also write the summary to this file")
    ap.add_argument("--keep", action="store_true", help="keep the runs' folders")
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per command as it ends")
    args = ap.parse_args(argv)

    cmds = command_list.COMMANDS
    if args.list:
        for c in cmds:
            print("%-28s %-12s %s" % (c.id, c.category, c.display()))
        return 0
    if args.sample is not None:
        cmds = spread_sample(cmds, args.sample, args.seed)
    elif args.only:
        by_id = {c.id: c for c in cmds}
        unknown = [i for i in args.only if i not in by_id]
        if unknown:
            ap.error("no such command: " + ", ".join(unknown))
        cmds = [by_id[i] for i in args.only]

    def progress(res, n, total):
        state = ("skipped" if res.skipped else "FAILED" if res.failed else "ok")
        print("[%d/%d] %-8s %s (%.1f s)" % (n, total, state, res.cmd.id, res.seconds),
              file=sys.stderr, flush=True)

    start = time.monotonic()
    results = run_all(cmds, args.build, args.jobs, args.keep, progress if args.verbose else None)
    text = summary(results, time.monotonic() - start, os.path.abspath(args.build))
    sys.stdout.write(text)
    if args.log:
        with open(args.log, "w") as f:
            f.write(text)
    return 1 if any(r.failed for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
