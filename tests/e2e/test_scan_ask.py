"""gputrace scan --ask (issue 16): a version the file does not show, from the
library's own version function, called in a child process (gputrace-probe
--ask-version) that may crash or hang without harm to the scan.

Fixtures ($BUILD/ask-fixtures, fixtures/ask_version.c): a libcusparse.so.12
whose cusparseGetProperty answers 12.6.3, a libcurand.so.10 whose
curandGetProperty raises SIGSEGV, a libnccl.so.2 whose ncclGetVersion never
returns, a libcufft.so.11 without cufftGetProperty. And the real CUDA 13.0
libraries, whose files are named only to the major version."""
import json
import re
import os
import subprocess
import tempfile
import shutil
import unittest

from tests.e2e.gtlib import BUILD, GPUTRACE
from tests.e2e.test_scan import unfold

ASK = os.path.join(BUILD, "ask-fixtures")
REAL = "/usr/local/cuda-13.0/lib64"


def scan(*args, cwd=None, ask_ms=2000):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    env["GPUTRACE_ASK_TIMEOUT_MS"] = str(ask_ms)
    return subprocess.run([GPUTRACE, "scan", *args], capture_output=True, text=True, env=env, timeout=120,
                          cwd=cwd)


def files(o):
    """One copy per real file, by file name."""
    return {os.path.basename(c["real_path"]): c for c in o["copies"] if c["real_path"]}


class AskFixtures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cwd = tempfile.mkdtemp(prefix="gt-ask-")
        cls.p = scan("--json", "--ask", ASK, cwd=cls.cwd)
        cls.o = json.loads(cls.p.stdout)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.cwd, ignore_errors=True)

    def test_answer_becomes_the_version(self):
        c = files(self.o)["libcusparse.so.12"]
        self.assertEqual((c["version"], c["version_source"]), ("12.6.3", "asked"))
        self.assertNotIn("ask_error", c)

    def test_crash_is_reported_not_inherited(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)
        self.assertNotIn("AddressSanitizer", self.p.stderr)
        c = files(self.o)["libcurand.so.10"]
        self.assertEqual((c["version"], c["version_source"]), ("10", "file"))
        self.assertIn("killed by signal 11", c["ask_error"])
        self.assertEqual([n for n in os.listdir(self.cwd) if n.startswith("core")], [], "no core file")

    def test_hang_is_killed(self):
        c = files(self.o)["libnccl.so.2"]
        self.assertEqual(c["version_source"], "file")
        self.assertEqual(c["ask_error"], "no answer in 2000 ms: the child that called it was killed")

    def test_missing_function(self):
        c = files(self.o)["libcufft.so.11"]
        self.assertEqual(c["ask_error"], "cufftGetProperty is not in this library")
        self.assertEqual(c["version"], "11")

    def test_text(self):
        out = unfold(scan("--ask", ASK).stdout)  # the text is folded to 100 columns (issue 30)
        line = [ln for ln in out.splitlines() if "libcusparse.so.12" in ln][0]
        self.assertIn("12.6.3", line)
        self.assertIn("(version asked of the library)", line)
        self.assertIn("(--ask: the child that called it was killed by signal 11 (Segmentation fault))", out)

    def test_nothing_asked_without_ask(self):
        o = json.loads(scan("--json", ASK).stdout)
        for c in o["copies"]:
            self.assertNotEqual(c["version_source"], "asked", c)
            self.assertNotIn("ask_error", c)


SAFETY = os.path.join(BUILD, "ask-safety")


def orphans():
    """Processes named gt-ask-orphan (the ASK_ORPHAN fixture's grandchild) still alive."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
        except OSError:
            continue
        if "(gt-ask-orphan)" in stat and stat.rsplit(")", 1)[1].split()[0] != "Z":
            found.append(int(pid))
    return found


def kill_orphans():
    for pid in orphans():
        try:
            os.kill(pid, 9)
        except OSError:
            pass


class AskSafety(unittest.TestCase):
    """Issue 29: the child runs the library's code with as little as it needs.
    Before: a grandchild that called setsid() outlived the timeout, and the
    caller's whole environment reached the library."""

    @classmethod
    def setUpClass(cls):
        kill_orphans()
        cls.cwd = tempfile.mkdtemp(prefix="gt-ask-")
        env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
        env.update(GPUTRACE_ASK_TIMEOUT_MS="1500", GT_ASK_SECRET="hunter2")
        cls.p = subprocess.run([GPUTRACE, "scan", "--json", "--ask", SAFETY], capture_output=True, text=True,
                               env=env, timeout=120, cwd=cls.cwd)
        cls.o = json.loads(cls.p.stdout)
        cls.left = orphans()

    @classmethod
    def tearDownClass(cls):
        kill_orphans()
        shutil.rmtree(cls.cwd, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)

    def test_grandchild_in_its_own_session_is_killed(self):
        c = files(self.o)["libcublas.so.12"]
        if c.get("ask_error", "").startswith("not asked"):
            self.skipTest(c["ask_error"])
        self.assertEqual(c["ask_error"], "no answer in 1500 ms: the child that called it was killed")
        self.assertEqual(self.left, [], "the setsid grandchild outlived the scan")

    def test_secret_never_reaches_the_child(self):
        c = files(self.o)["libcusolver.so.11"]
        if c.get("ask_error", "").startswith("not asked"):
            self.skipTest(c["ask_error"])
        self.assertEqual((c["version"], c["version_source"]), ("11.2.3", "asked"), c)


@unittest.skipUnless(os.geteuid() == 0, "the root-only refusals")
class AskAsRoot(unittest.TestCase):
    """Run as root, --ask runs no file that another user could have put or
    changed, and says so."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gt-ask-root-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        for sub in ("mine", "theirs", "open"):
            os.mkdir(os.path.join(self.dir, sub))
            shutil.copy(os.path.join(ASK, "libcusparse.so.12"), os.path.join(self.dir, sub))
        os.chown(os.path.join(self.dir, "theirs", "libcusparse.so.12"), 65534, 65534)
        os.chmod(os.path.join(self.dir, "open"), 0o777)

    def asked(self, sub):
        p = scan("--json", "--ask", os.path.join(self.dir, sub))
        self.assertEqual(p.returncode, 0, p.stderr)
        return files(json.loads(p.stdout))["libcusparse.so.12"], p

    def test_root_owned_file_in_a_root_folder_is_asked(self):
        c, _ = self.asked("mine")
        self.assertEqual((c["version"], c["version_source"]), ("12.6.3", "asked"), c)

    def test_file_of_another_user_is_not_run(self):
        c, p = self.asked("theirs")
        self.assertEqual(c["version_source"], "file", c)
        self.assertEqual(c["ask_error"], "not asked: gputrace runs as root and the file is not owned by root")
        text = scan("--ask", os.path.join(self.dir, "theirs")).stdout
        self.assertIn("(--ask: not asked: gputrace runs as root and the file is not owned by root)", text)

    def test_file_in_a_folder_anyone_may_write_is_not_run(self):
        c, _ = self.asked("open")
        self.assertEqual(c["version_source"], "file", c)
        self.assertEqual(c["ask_error"], "not asked: gputrace runs as root and the folder %s is writable by "
                         "others" % os.path.join(self.dir, "open"))


@unittest.skipUnless(os.path.exists(os.path.join(REAL, "libcublas.so.13")), "no CUDA 13.0 libraries here")
class AskRealLibraries(unittest.TestCase):
    """No GPU and no driver here: these functions need neither."""

    def test_versions_of_major_only_names(self):
        # The real cuBLAS takes a while to load on a busy machine: this test
        # is about the answers, not the time limit (the fixtures test that).
        p = scan("--json", "--ask", REAL, ask_ms=30000)
        self.assertEqual(p.returncode, 0, p.stderr)
        f = files(json.loads(p.stdout))
        for name, prefix in (("libcublas.so.13", "13."), ("libcublasLt.so.13", "13."), ("libcudart.so.13", "13.0"),
                             ("libcudnn.so.9", "9.19."), ("libcurand.so.10", "10."), ("libcusparse.so.12", "12."),
                             ("libnvrtc.so.13", "13.0"), ("libnvJitLink.so.13", "13.0")):
            if name not in f:
                continue
            c = f[name]
            self.assertEqual(c["version_source"], "asked", c)
            self.assertTrue(c["version"].startswith(prefix), c)
            self.assertGreater(c["version"].count("."), 0, c)
        self.assertEqual(f["libcublas.so.13"]["version"], f["libcublasLt.so.13"]["version"])
        # read from the file already: not asked
        self.assertEqual(f["libcudnn_graph.so.9"]["version_source"], "embedded")
        # cuDNN's engine libraries have no version function of their own: nothing to ask, no error
        ops = f["libcudnn_ops.so.9"]
        self.assertEqual((ops["version"], ops["version_source"]), ("9", "file"))
        self.assertNotIn("ask_error", ops)
        # the stub is never loaded
        stubs = [c for c in json.loads(p.stdout)["copies"] if c["stub"]]
        self.assertTrue(all(c["version_source"] != "asked" and "ask_error" not in c for c in stubs))


# One line of the listing: component (30 wide), version (12 wide), the file,
# its place, then the links that lead to it, its package and the notes.
LISTING_LINE = re.compile(r"^  (?P<component>\S+) +(?P<version>\S+) +(?P<file>/\S+) \[(?P<place>[^\]]+)\]"
                          r"( <- (?P<links>\S+(, \S+)*))?( (pip|conda|dpkg):\S+ \S+)?"
                          r"( \(version read from the file\)| \(version asked of the library\))?( \(stub\))?$")


class ManPageListing(unittest.TestCase):
    """man/gputrace-scan.1's sample listing has the lines scan prints today
    (one per real file, links after <-), not the old per-name lines."""

    def sample_lines(self):
        man = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "man", "gputrace-scan.1")
        with open(man) as f:
            text = f.read()
        block = text.split("On an H200 machine", 1)[1].split(".EX\n", 1)[1].split(".EE", 1)[0]
        listing = []
        for ln in block.replace("\\-", "-").splitlines()[2:]:  # after the header and module lines
            if not ln.startswith("  "):
                break  # the findings
            if ln.strip() != "...":
                listing.append(ln)
        return listing

    def test_format_matches_the_scan(self):
        root = os.path.join(BUILD, "fixtures", "system", "lib")
        raw = scan(root).stdout
        out = unfold(raw).splitlines()[1:]  # folded to 100 columns (issue 30)
        self.assertTrue(out)
        for ln in out:  # the pattern holds for the real output ...
            if ln.startswith("  "):
                self.assertRegex(ln, LISTING_LINE)
        cudnn = [ln for ln in out if "/libcudnn.so.9.14.0 " in ln][0]
        self.assertEqual(LISTING_LINE.match(cudnn).group("links"), "libcudnn.so, libcudnn.so.9")
        sample = self.sample_lines()
        self.assertGreaterEqual(len(sample), 3)
        for ln in sample:  # ... and for the man page's, in the same columns
            m = LISTING_LINE.match(ln)
            self.assertIsNotNone(m, ln)
            self.assertNotIn(" -> ", ln)
            self.assertEqual(m.start("version"), cudnn.index("9.14.0"), ln)
            # the file's column, where the real line kept its path (a long build
            # path is folded onto a line of its own, issue 30)
            whole = [r for r in raw.splitlines() if r.startswith("  cudnn ") and "/libcudnn.so.9.14.0" in r]
            if whole:
                self.assertEqual(m.start("file"), whole[0].index("/"), ln)
