"""gputrace inspect PID (issue 31 part 2): a running process read from /proc
and judged by the report's rules, without stopping it.

- A running /usr/bin/python3 that imported torch (Debian's python3-torch):
  inspect lists the same files as a trace of the same program (real paths
  compared), the same findings, and the process goes on running.
- A fixture program holding a cuDNN 9.19 front with 9.14 sub-libraries
  (found through LD_LIBRARY_PATH): mixed-versions through inspect, as in its
  trace; the same program with one install only: no error.
- Errors: no such pid, another user's process (not permitted), a process that
  has exited (a zombie), bad usage: one line on stderr and exit 2."""
import json
import os
import pwd
import shutil
import subprocess
import time
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, PROGS, run_traced, unfold, value

PYTHON = "/usr/bin/python3"
WAIT_ON_STDIN = "import torch, sys; print('ready', flush=True); sys.stdin.read()"
HOLD = os.path.join(PROGS, "hold_loaded")
CONV = os.path.join(FIX, "site-packages/torchlike/lib/libtorchlike_cuda.so") + ":torchlike_conv"


def torch_importable():
    r = subprocess.run([PYTHON, "-c", "import torch"], capture_output=True)
    return r.returncode == 0


def fixture_env(*dirs):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join(os.path.join(FIX, d) for d in dirs)
    return env


class Waiting:
    """A program started with a pipe on its stdin, read until it says ready."""

    def __init__(self, argv, env=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        for line in self.proc.stdout:
            if line.strip() == b"ready":
                return
        raise AssertionError("%s never got ready: %s" % (argv, self.proc.stderr.read()))

    def running(self):
        return self.proc.poll() is None

    def finish(self):
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return self.proc.wait(timeout=60)


def inspect(*args, **kw):
    return subprocess.run([GPUTRACE, "inspect", *args], capture_output=True, timeout=120, **kw)


def inspect_json(pid):
    r = inspect("--json", str(pid))
    if r.returncode not in (0, 1):
        raise AssertionError(r.stderr.decode(errors="replace"))
    return r.returncode, json.loads(r.stdout)


def live_files(doc):
    return {os.path.realpath(value(o, "path")) for o in doc["live"]["objects"]}


def traced_files(run):
    """The files a trace says are mapped at the end: opened, not closed, not
    gputrace's own library (inspect reads processes gputrace did not start)."""
    (t,) = run.traces
    closed = {value(c, "path") for c in t.events("close")}
    out = set()
    for o in t.events("open"):
        path = value(o, "path")
        if path.startswith("/") and path not in closed and "libgputrace" not in path:
            out.add(os.path.realpath(path))
    return out


def library_paths(doc):
    return {os.path.realpath(l.get("real_path") or value(l, "path"))
            for p in doc["processes"] for l in p["libraries"]}


def report_json(outdir):
    r = subprocess.run([GPUTRACE, "report", "--json", outdir], capture_output=True, timeout=120)
    return json.loads(r.stdout)


def ids(doc):
    return sorted(f["id"] for f in doc["findings"])


@unittest.skipUnless(torch_importable(), "import torch fails (Debian: python3-torch)")
class TorchPython(unittest.TestCase):
    def test_same_files_as_a_trace(self):
        w = Waiting([PYTHON, "-c", WAIT_ON_STDIN])
        try:
            status, doc = inspect_json(w.proc.pid)
            self.assertTrue(w.running(), "inspect stopped the process")
            text = inspect("--color=never", str(w.proc.pid))
            self.assertTrue(w.running())
        finally:
            self.assertEqual(w.finish(), 0)
        run = run_traced([PYTHON, "-c", WAIT_ON_STDIN], input=b"")
        self.addCleanup(shutil.rmtree, run.outdir, True)
        self.assertEqual(run.proc.returncode, 0, run.proc.stderr)
        files = live_files(doc)
        self.assertTrue(any("libtorch_cpu" in f for f in files), files)
        self.assertEqual(files, traced_files(run))
        traced = report_json(run.outdir)
        self.assertEqual(library_paths(doc), library_paths(traced))
        self.assertEqual(ids(doc), ids(traced))
        (p,) = doc["processes"]
        self.assertEqual((p["pid"], p["ended"]["how"], p["search_trail"]), (w.proc.pid, "running", False))
        self.assertEqual(doc["live"]["pid"], w.proc.pid)
        self.assertEqual(status, text.returncode)
        out = unfold(text.stdout.decode())
        self.assertIn("running, read from /proc without stopping it", out)
        self.assertIn("read from /proc/%d: %d ELF files mapped" % (w.proc.pid, len(doc["live"]["objects"])), out)
        self.assertIn("not judged from a live process", out)
        if "cpu-only-build" in ids(doc):
            self.assertIn("no libcudart is mapped (read live", out)


class Fixtures(unittest.TestCase):
    def inspected_and_traced(self, env):
        w = Waiting([HOLD, CONV], env=env)
        try:
            status, doc = inspect_json(w.proc.pid)
            self.text = unfold(inspect("--color=never", str(w.proc.pid)).stdout.decode())
            self.assertTrue(w.running())
        finally:
            self.assertEqual(w.finish(), 0)
        run = run_traced([HOLD, CONV], env={"LD_LIBRARY_PATH": env["LD_LIBRARY_PATH"]}, input=b"")
        self.addCleanup(shutil.rmtree, run.outdir, True)
        self.assertEqual(run.proc.returncode, 0, run.proc.stderr)
        self.assertEqual(live_files(doc), traced_files(run))
        traced = report_json(run.outdir)
        self.assertEqual(library_paths(doc), library_paths(traced))
        return status, doc, traced

    def test_mixed_cudnn(self):
        status, doc, traced = self.inspected_and_traced(fixture_env("system/lib", "driver"))
        self.assertIn("mixed-versions", ids(traced))
        self.assertEqual(status, 1)
        (mixed,) = [f for f in doc["findings"] if f["id"] == "mixed-versions"]
        self.assertEqual(mixed["severity"], "error")
        said = json.dumps(mixed["evidence"])
        self.assertIn("system/lib/libcudnn_graph.so.9.14.0", said)
        self.assertIn("nvidia/cudnn/lib/libcudnn.so.9", said)

    def test_one_cudnn_is_clean(self):
        status, doc, traced = self.inspected_and_traced(fixture_env("driver"))
        self.assertEqual([f for f in doc["findings"] if f["severity"] == "error"], [])
        self.assertEqual(status, 0)
        self.assertTrue(any(l["family"] == "cudnn" for l in doc["processes"][0]["libraries"]))
        # never "all clear": what needs a run was not judged
        self.assertIn(": no problem in what it has loaded (a live process: what needs a run is not judged)",
                      self.text.splitlines()[0])
        self.assertNotIn("all clear", self.text)

    def test_not_judged_listed(self):
        status, doc, traced = self.inspected_and_traced(fixture_env("system/lib", "driver"))
        not_judged = {n["id"] for n in doc["live"]["not_judged"]}
        # the ids that need searches or CUDA call results, and never a finding given
        for fid in ("library-not-found", "shadowed-library", "init-failed", "crashed", "no-device"):
            self.assertIn(fid, not_judged)
        self.assertFalse(not_judged & set(ids(doc)))
        # the fixture's conv fails with 1002, and the loader's searches show the shadowing:
        # only the trace sees them
        self.assertIn("init-failed", ids(traced))
        self.assertIn("shadowed-library", ids(traced))


class Errors(unittest.TestCase):
    def assert_refused(self, r, words):
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, b"")
        err = r.stderr.decode()
        self.assertIn(words, err)
        self.assertTrue(err.startswith("gputrace inspect: "), err)

    def test_no_such_pid(self):
        with open("/proc/sys/kernel/pid_max") as f:
            pid = int(f.read()) + 1
        self.assert_refused(inspect(str(pid)), "no process has pid %d" % pid)

    def test_exited_process(self):
        child = subprocess.Popen(["/bin/true"])
        try:
            for _ in range(500):
                with open("/proc/%d/stat" % child.pid) as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                        break
                time.sleep(0.01)
            self.assert_refused(inspect(str(child.pid)), "pid %d has exited" % child.pid)
        finally:
            child.wait()

    @unittest.skipUnless(os.geteuid() == 0, "needs root to run as another user")
    def test_another_users_process(self):
        nobody = pwd.getpwnam("nobody")
        w = Waiting([PYTHON, "-c", "import sys; print('ready', flush=True); sys.stdin.read()"])
        try:
            probe = subprocess.run([GPUTRACE, "--version"], capture_output=True, user=nobody.pw_uid,
                                   group=nobody.pw_gid, extra_groups=[])
            if probe.returncode != 0:
                self.skipTest("the build cannot be run as nobody here")
            r = subprocess.run([GPUTRACE, "inspect", str(w.proc.pid)], capture_output=True,
                               user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[])
            self.assert_refused(r, "not permitted")
            self.assertIn("root's process", r.stderr.decode())
        finally:
            w.finish()

    def test_usage(self):
        self.assert_refused(inspect(), "no PID given")
        self.assert_refused(inspect("abc"), "abc: a PID is a positive number")
        self.assert_refused(inspect("1", "2"), "one PID at a time")


if __name__ == "__main__":
    unittest.main()
