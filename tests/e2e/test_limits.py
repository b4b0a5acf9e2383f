"""Issue 29: the end of `gputrace PROGRAM` in bounded time, full disks said.

- the diagnosis at exit is cut at GPUTRACE_DIAGNOSIS_TIMEOUT (a trace with
  1,000 copies of cuDNN, from bench/gen_copies.py, and a tiny limit): one
  line says so and how to report later, the program's exit status stays;
- report.txt and --prometheus on a full file system (a small tmpfs, mounted
  when we may): one line naming the file and the error, no partial file.
Never asserts times."""
import errno
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE

PY = "/usr/bin/python3"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "bench", "gen_copies.py")

# Puts the trace of many copies in the run's folder, then exits 3.
COPY_IN = """
import os, shutil, sys
shutil.copy(sys.argv[1], os.path.join(os.environ["GPUTRACE_DIR"], "big.1.jsonl"))
sys.exit(3)
"""

# Fills the file system of the run's folder (not a trace), then exits 0.
FILL = """
import errno, os
try:
    with open(os.path.join(os.environ["GPUTRACE_DIR"], "..", "filler"), "wb") as f:
        while True:
            f.write(b"x" * 4096)
            f.flush()
except OSError as e:
    assert e.errno == errno.ENOSPC
"""


def gt(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([GPUTRACE, *args], capture_output=True, timeout=300, env=e)


def fill_up(folder):
    try:
        with open(os.path.join(folder, "filler"), "wb") as f:
            while True:
                f.write(b"x" * 4096)
                f.flush()
    except OSError as e:
        if e.errno != errno.ENOSPC:
            raise


@unittest.skipUnless(os.access(PY, os.X_OK), "needs Debian's /usr/bin/python3")
class DiagnosisTimeout(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gt-limits-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        tpl = os.path.join(self.tmp, "tpl")
        r = gt("-q", "-o", tpl, PY, "-c", "pass")
        self.assertEqual(r.returncode, 0, r.stderr)
        template = [os.path.join(tpl, n) for n in os.listdir(tpl) if n.endswith(".jsonl")][0]
        gen = os.path.join(self.tmp, "gen")
        subprocess.run([PY, GEN, "-n", "1000", gen, template, os.path.join(FIX, "system", "lib")],
                       check=True, timeout=300)
        trace = os.path.join(gen, "trace")
        self.big = os.path.join(trace, os.listdir(trace)[0])

    def run_with(self, out, env):
        return gt("-o", out, PY, "-c", COPY_IN, self.big, env=env)

    def test_cut_short_keeps_status_and_says_how_to_report(self):
        out = os.path.join(self.tmp, "out")
        r = self.run_with(out, {"GPUTRACE_DIAGNOSIS_TIMEOUT": "0.001"})
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 3, err)
        cut = [l for l in err.splitlines() if "the diagnosis was cut short" in l]
        self.assertEqual(len(cut), 1, err)
        self.assertIn("gputrace report " + out, cut[0])
        self.assertFalse(os.path.exists(os.path.join(out, "report.txt")), "no half report")
        self.assertTrue(os.path.exists(os.path.join(out, "big.1.jsonl")), "the traces stay")

    def test_default_limit_lets_it_finish(self):
        out = os.path.join(self.tmp, "out")
        r = self.run_with(out, {"GPUTRACE_DIAGNOSIS_TIMEOUT": ""})
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 3, err)
        self.assertNotIn("cut short", err)
        with open(os.path.join(out, "report.txt")) as f:
            self.assertIn("copies of cudnn", f.read())

    def test_bad_value_is_said_and_default_used(self):
        out = os.path.join(self.tmp, "out")
        r = self.run_with(out, {"GPUTRACE_DIAGNOSIS_TIMEOUT": "soon"})
        self.assertEqual(r.returncode, 3)
        self.assertIn(b"GPUTRACE_DIAGNOSIS_TIMEOUT=soon is not a number", r.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "report.txt")))


class FullDisk(unittest.TestCase):
    """A tmpfs of 2 MiB: room for the traces, then filled."""

    def setUp(self):
        self.mnt = tempfile.mkdtemp(prefix="gt-full-")
        self.addCleanup(shutil.rmtree, self.mnt, True)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", self.mnt],
                           capture_output=True)
        if r.returncode != 0:
            self.skipTest("cannot mount a tmpfs here (needs root): %s" % r.stderr.decode().strip())
        self.addCleanup(subprocess.run, ["umount", self.mnt])

    @unittest.skipUnless(os.access(PY, os.X_OK), "needs Debian's /usr/bin/python3")
    def test_report_txt_on_full_disk(self):
        out = os.path.join(self.mnt, "out")
        r = gt("-o", out, PY, "-c", FILL)
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 0, err)
        said = [l for l in err.splitlines() if "report.txt" in l]
        self.assertEqual(len(said), 1, err)
        self.assertIn("cannot write " + os.path.join(out, "report.txt"), said[0])
        self.assertIn(os.strerror(errno.ENOSPC), said[0])
        self.assertFalse(os.path.exists(os.path.join(out, "report.txt")))
        self.assertTrue([n for n in os.listdir(out) if n.endswith(".jsonl")], "the traces stay")

    def test_prometheus_on_full_disk(self):
        traces = os.path.join(tempfile.mkdtemp(prefix="gt-full-t-"))
        self.addCleanup(shutil.rmtree, traces, True)
        r = gt("-q", "-o", os.path.join(traces, "t"), "/bin/true")
        self.assertEqual(r.returncode, 0, r.stderr)
        fill_up(self.mnt)
        prom = os.path.join(self.mnt, "gputrace.prom")
        r = gt("report", "--prometheus", prom, os.path.join(traces, "t"))
        err = r.stderr.decode()
        self.assertNotEqual(r.returncode, 0, err)
        self.assertIn("cannot write " + prom, err)
        self.assertIn(os.strerror(errno.ENOSPC), err)
        self.assertEqual(sorted(os.listdir(self.mnt)), ["filler"], "no partial file")


if __name__ == "__main__":
    unittest.main()
