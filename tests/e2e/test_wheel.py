"""The Python package (issue 31): `make wheel` builds it offline; a fresh venv
installs it with pip install --no-index; python -m gputrace traces a command
or a script (exit status passed on); gputrace.check() inspects the running
interpreter and returns a structured result that a notebook shows as HTML.

The venv is made with --system-site-packages so that Debian's python3-torch
(/usr/lib/python3/dist-packages) is importable in it, as a user's venv on a
host with a distribution torch would be. Its pip is the one ensurepip puts
there from Debian's python3-pip-whl (a dependency of python3-venv): no
network. Where the test may make a network namespace (root, as in CI), the
wheel's setup.py and the venv's pip run inside one with no network at all."""
import glob
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

from tests.e2e.gtlib import BUILD, FIX, traces_in, unfold, value

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(TOP, "VERSION")) as _f:
    VERSION = _f.read().strip()
WHEEL_NAME = re.compile(r"gputrace-%s-py3-none-(manylinux_2_(\d+)_x86_64|linux_x86_64)\.whl$"
                        % re.escape(VERSION))
# What a manylinux wheel may need from the system (tools/build-wheel.py).
MANYLINUX_LIBS = {"libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0",
                  "libresolv.so.2", "libutil.so.1", "libnsl.so.1", "libgcc_s.so.1",
                  "libstdc++.so.6", "ld-linux-x86-64.so.2"}


def offline_prefix():
    """unshare -n (a new network namespace: no interface but lo) where this
    user may make one; else nothing."""
    try:
        ok = subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10).returncode == 0
    except OSError:
        ok = False
    return ["unshare", "-n"] if ok else []


def make_wheel():
    """The wheel `make wheel` built in this build folder (make check builds it
    before the tests), made here when it is missing (the module run alone)."""
    found = glob.glob(os.path.join(BUILD, "dist", "gputrace-%s-*.whl" % VERSION))
    if not found:
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        subprocess.run(["make", "-s", "-C", TOP, "BUILD=" + BUILD, "wheel"], env=env, check=True,
                       capture_output=True, timeout=600)
        found = glob.glob(os.path.join(BUILD, "dist", "gputrace-%s-*.whl" % VERSION))
    return found[0]


def needed_and_glibc(path):
    out = subprocess.run(["readelf", "-W", "-d", "-V", path], capture_output=True, text=True,
                         env=dict(os.environ, LC_ALL="C")).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))
    glibc = {(int(a), int(b)) for a, b in re.findall(r"Name: GLIBC_(\d+)\.(\d+)", out)}
    return needed, glibc


class TagChecker(html.parser.HTMLParser):
    """Counts tags and fails on a close tag that does not close the open one."""

    VOID = {"br", "hr", "img", "meta", "link", "input", "col", "wbr"}

    def __init__(self):
        super().__init__()
        self.stack, self.seen, self.errors, self.text = [], {}, [], []

    def handle_starttag(self, tag, attrs):
        self.seen[tag] = self.seen.get(tag, 0) + 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)

    def handle_data(self, data):
        self.text.append(data)


class Wheel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = tempfile.mkdtemp(prefix="gt-wheel-")
        cls.offline = offline_prefix()
        cls.wheel = make_wheel()
        cls.venv = os.path.join(cls.base, "venv")
        cls.py = os.path.join(cls.venv, "bin", "python")
        cls.made = subprocess.run(cls.offline + ["/usr/bin/python3", "-m", "venv", "--system-site-packages",
                                                 cls.venv], capture_output=True, timeout=120)
        cls.installed = subprocess.run(cls.offline + [os.path.join(cls.venv, "bin", "pip"), "install", "-q",
                                                      "--no-index", cls.wheel], capture_output=True,
                                       timeout=120)
        cls.pkg = os.path.join(cls.venv, "lib", "python%d.%d" % sys.version_info[:2], "site-packages",
                               "gputrace")
        # The traced programs' own environment: nothing of the test's gputrace.
        cls.env = {k: v for k, v in os.environ.items()
                   if k not in ("GPUTRACE_LIB", "GPUTRACE_DIR", "LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH",
                                "ASAN_OPTIONS", "PYTHONPATH")}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.base, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.made.returncode, 0, self.made.stderr.decode(errors="replace"))
        self.assertEqual(self.installed.returncode, 0, self.installed.stderr.decode(errors="replace"))

    def venv_python(self, *args, **kw):
        return subprocess.run([self.py, *args], env=self.env, capture_output=True, timeout=120, **kw)

    def test_name_tag_and_bundled_binaries(self):
        """The tag says what the binaries need: manylinux_2_Y only when they
        need glibc (2.Y at most) and nothing else; no sanitizer runtime."""
        m = WHEEL_NAME.search(os.path.basename(self.wheel))
        self.assertTrue(m, self.wheel)
        with zipfile.ZipFile(self.wheel) as z:
            names = z.namelist()
            wheel_meta = z.read("gputrace-%s.dist-info/WHEEL" % VERSION).decode()
        self.assertIn("Tag: py3-none-%s\n" % m.group(1), wheel_meta)
        self.assertIn("Root-Is-Purelib: false", wheel_meta)
        for part in ("gputrace/__init__.py", "gputrace/__main__.py", "gputrace/bin/gputrace",
                     "gputrace/lib/gputrace/libgputrace.so", "gputrace/lib/gputrace/gputrace-probe",
                     "gputrace/lib/gputrace/torch_doctor.py"):
            self.assertIn(part, names)
        needed, glibc = set(), set()
        for rel in ("bin/gputrace", "lib/gputrace/libgputrace.so", "lib/gputrace/gputrace-probe"):
            path = os.path.join(self.pkg, rel)
            n, g = needed_and_glibc(path)
            needed |= n
            glibc |= g
            self.assertFalse([l for l in n if "asan" in l or "ubsan" in l], (rel, n))
        self.assertTrue(os.access(os.path.join(self.pkg, "bin/gputrace"), os.X_OK))
        if m.group(2):
            self.assertLessEqual(needed, MANYLINUX_LIBS)
            self.assertEqual(max(glibc), (2, int(m.group(2))))
        else:
            self.assertTrue(needed - MANYLINUX_LIBS, "linux_x86_64 although only glibc is needed")

    def test_built_offline(self):
        """setup.py bdist_wheel from the staged package, with no network."""
        if not self.offline:
            self.skipTest("cannot make a network namespace here (not root)")
        dist = os.path.join(self.base, "dist-offline")
        p = subprocess.run(self.offline + ["/usr/bin/python3", os.path.join(TOP, "tools", "build-wheel.py"),
                                           "--build", os.path.join(BUILD, "wheel", "build"),
                                           "--stage", os.path.join(self.base, "stage"), "--dist", dist],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(os.path.basename(p.stdout.strip()), os.path.basename(self.wheel))

    def test_trace_a_command(self):
        """python -m gputrace -- CMD: traces written, the diagnosis names libtorch."""
        out = os.path.join(self.base, "trace-cmd")
        p = self.venv_python("-m", "gputrace", "--color=never", "-o", out, "--",
                             "/usr/bin/python3", "-c", "import torch")
        err = unfold(p.stderr.decode(errors="replace"))
        self.assertEqual(p.returncode, 0, err)
        traces = traces_in(out)
        self.assertEqual(len(traces), 1, err)
        opened = [value(o, "path") for o in traces[0].events("open")]
        self.assertTrue([x for x in opened if "/libtorch_cpu.so" in x], opened)
        # The library that went in is the wheel's own.
        self.assertIn(os.path.realpath(os.path.join(self.pkg, "lib/gputrace/libgputrace.so")),
                      [os.path.realpath(x) for x in opened])
        self.assertTrue(os.path.exists(os.path.join(out, "gputrace-facts.json")))
        self.assertIn("libtorch_cpu.so", err)
        with open(os.path.join(out, "report.txt")) as f:
            self.assertIn("libtorch_cpu.so", unfold(f.read()))

    def test_trace_a_script_exit_status_passed_on(self):
        """python -m gputrace SCRIPT.py runs it under this venv's interpreter;
        the script's exit status is the module's."""
        script = os.path.join(self.base, "exit3.py")
        with open(script, "w") as f:
            f.write("import sys\nprint(sys.prefix, sys.argv[1:])\nsys.exit(3)\n")
        out = os.path.join(self.base, "trace-script")
        p = self.venv_python("-m", "gputrace", "-q", "-o", out, script, "a b", "--flag")
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertEqual(p.stdout.decode().strip(), "%s ['a b', '--flag']" % self.venv)
        header = traces_in(out)[0].header
        self.assertEqual(header["argv"], [self.py, script, "a b", "--flag"])

    def test_killed_by_a_signal_as_the_command_is(self):
        """A signal's death reaches the caller as the bundled command gives it
        (the module execs it: no Python in between)."""
        code = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
        via_module = self.venv_python("-m", "gputrace", "-q", "-o", os.path.join(self.base, "sig1"), "--",
                                      "/usr/bin/python3", "-c", code)
        direct = subprocess.run([os.path.join(self.pkg, "bin/gputrace"), "-q", "-o",
                                 os.path.join(self.base, "sig2"), "--", "/usr/bin/python3", "-c", code],
                                env=self.env, capture_output=True, timeout=120)
        self.assertIn(direct.returncode, (-15, 128 + 15))
        self.assertEqual(via_module.returncode, direct.returncode)

    def test_console_script_and_subcommands(self):
        """The venv's `gputrace` is the bundled command; subcommands pass through."""
        p = subprocess.run([os.path.join(self.venv, "bin", "gputrace"), "--version"], env=self.env,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(VERSION, p.stdout)
        p = self.venv_python("-m", "gputrace", "report", os.path.join(self.base, "no-such-folder"))
        self.assertEqual(p.returncode, 2, p.stderr)

    def test_command_line(self):
        """Where python -m gputrace puts `-- PYTHON`: before a .py script that
        comes after gputrace's options; `--python PYTHON` for doctor unless
        it has one; nothing elsewhere."""
        cases = [
            (["train.py", "--lr", "1"], ["--", "PY", "train.py", "--lr", "1"]),
            (["-o", "d.py", "-q", "t.py"], ["-o", "d.py", "-q", "--", "PY", "t.py"]),
            (["--output", "x", "t.py"], ["--output", "x", "--", "PY", "t.py"]),
            (["--", "python3", "t.py"], ["--", "python3", "t.py"]),
            (["-q", "./prog", "x.py"], ["-q", "./prog", "x.py"]),
            (["report", "t.py"], ["report", "t.py"]),
            (["doctor", "--json"], ["doctor", "--python", "PY", "--json"]),
            (["doctor", "--python", "/x/py"], ["doctor", "--python", "/x/py"]),
            (["doctor", "--python=/x/py"], ["doctor", "--python=/x/py"]),
            ([], []),
        ]
        code = ("import json, sys; from gputrace.__main__ import command_line; "
                "print(json.dumps([command_line(a, 'PY') for a in json.loads(sys.argv[1])]))")
        p = self.venv_python("-c", code, json.dumps([c[0] for c in cases]))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout), [c[1] for c in cases])

    def test_check_after_import_torch(self):
        """gputrace.check() in a live interpreter that imported torch: the
        libraries it has now (libtorch_cpu.so among them), findings as a
        list of structured items, text and an HTML table."""
        code = """
import json, torch, gputrace
r = gputrace.check()
print(json.dumps({"cuda_build": torch.version.cuda is not None,
    "pid": r.pid, "verdict": r.verdict, "ok": r.ok,
    "libraries": [[l.path, l.version, l.package] for l in r.libraries],
    "findings": [[f.id, f.severity, f.title, f.fix] for f in r.findings],
    "findings_type": type(r.findings).__name__,
    "text": str(r), "html": r._repr_html_(), "getpid": __import__("os").getpid()}))
"""
        p = self.venv_python("-c", code)
        self.assertEqual(p.returncode, 0, p.stderr.decode(errors="replace"))
        r = json.loads(p.stdout)
        self.assertEqual(r["pid"], r["getpid"])
        self.assertEqual(r["findings_type"], "list")
        paths = [l[0] for l in r["libraries"]]
        self.assertTrue([x for x in paths if "/libtorch_cpu.so" in x], paths)
        for fid, severity, title, _fix in r["findings"]:
            self.assertIn(severity, ("error", "warning", "info"))
            self.assertTrue(fid and title)
        if not r["cuda_build"]:
            # Debian's python3-torch: judged from the live process alone, as a trace judges it.
            self.assertIn("cpu-only-build", [f[0] for f in r["findings"]])
        self.assertEqual(r["verdict"] == "error", not r["ok"])
        self.assertTrue(r["text"].startswith("gputrace check: pid %d " % r["pid"]), r["text"])
        self.assertIn("libtorch_cpu.so", r["text"])
        checker = TagChecker()
        checker.feed(r["html"])
        checker.close()
        self.assertEqual((checker.errors, checker.stack), ([], []), r["html"])
        self.assertEqual(checker.seen.get("table"), 2, r["html"])
        self.assertIn("libtorch_cpu.so", "".join(checker.text))

    def test_check_names_versions_and_packages(self):
        """A CUDA library the interpreter mapped (ctypes, the fixtures' pip
        layout of cuBLAS) carries the report's family, version and package."""
        lib = os.path.join(FIX, "site-packages", "nvidia", "cublas", "lib", "libcublas.so.13")
        code = ("import ctypes, json, sys, gputrace; ctypes.CDLL(sys.argv[1]); r = gputrace.check(); "
                "print(json.dumps([[l.path, l.family, l.version, l.package] for l in r.libraries if l.family]))")
        p = self.venv_python("-c", code, lib)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn([os.path.realpath(lib), "cublas", "13.0.0.19", "pip nvidia-cublas 13.0.0.19"],
                      json.loads(p.stdout))

    def test_check_of_no_such_process_raises(self):
        """The command's exit 2 becomes GputraceError with its message, never
        an empty result (a pid above the kernel's largest cannot exist)."""
        code = ("import gputrace\ntry:\n    gputrace.check(pid=(1 << 22) + 12345)\n"
                "except gputrace.GputraceError as e:\n    print('raised:', e)\n")
        p = self.venv_python("-c", code)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.decode().startswith("raised: gputrace inspect %d: exit 2: " % ((1 << 22) + 12345)),
                        p.stdout)

    def test_html_and_text_from_a_document(self):
        """The result's rendering, from a document as inspect gives it (the
        report's JSON with a "live" part): every mapped object a library,
        the report's facts on the CUDA ones, values escaped, a table row per
        finding and per library, the ids not judged named."""
        doc = {"format": "gputrace-report", "version": 1,
               "findings": [{"id": "mixed-versions", "severity": "error", "summary": "cuDNN <9.19> & 9.14",
                             "evidence": [{"what": "a <b> c"}], "fix": "remove </td> from PATH"}],
               "processes": [{"pid": 7, "exe": "/x/python", "libraries": [
                   {"path": "/l/<libcudnn.so.9>", "family": "cudnn", "version": "9.19.0",
                    "package": {"manager": "pip", "name": "nvidia-cudnn-cu13", "version": "9.19.0.56"}}]}],
               "live": {"pid": 7, "objects": [{"path": "/x/python", "deleted": False},
                                              {"path": "/l/<libcudnn.so.9>", "deleted": True}],
                        "not_judged": [{"id": "library-not-found", "why": "no searches"}]}}
        code = ("import json, sys; from gputrace import CheckResult; r = CheckResult(json.loads(sys.argv[1]), 1); "
                "d = json.loads(sys.argv[1]); d['findings'] = []; live_ok = CheckResult(d, 0).headline(); "
                "del d['live']; trace_ok = CheckResult(d, 0).headline(); "
                "print(json.dumps([r._repr_html_(), str(r), r.verdict, r.ok, "
                "[[l.path, l.family, l.package, l.deleted] for l in r.libraries], r.not_judged, live_ok, trace_ok]))")
        p = self.venv_python("-c", code, json.dumps(doc))
        self.assertEqual(p.returncode, 0, p.stderr)
        page, text, verdict, ok, libs, not_judged, live_ok, trace_ok = json.loads(p.stdout)
        # Never "all clear" from a live process (inspect's words); a trace's report may say it.
        self.assertTrue(live_ok.endswith(": no problem in what it has loaded (a live process: what needs a run "
                                         "is not judged)"), live_ok)
        self.assertTrue(trace_ok.endswith("1 library, 0 errors, 0 warnings: all clear"), trace_ok)
        self.assertEqual((verdict, ok), ("error", False))
        self.assertEqual(libs, [["/x/python", None, None, False],
                                ["/l/<libcudnn.so.9>", "cudnn", "pip nvidia-cudnn-cu13 9.19.0.56", True]])
        self.assertEqual(not_judged, [["library-not-found", "no searches"]])
        checker = TagChecker()
        checker.feed(page)
        checker.close()
        self.assertEqual((checker.errors, checker.stack), ([], []), page)
        self.assertEqual(checker.seen.get("tr"), 5, page)  # two heads, one finding, two libraries
        self.assertEqual(checker.seen.get("b"), 1, page)  # the headline's, not the evidence's <b>
        shown = "".join(checker.text)
        for words in ("cuDNN <9.19> & 9.14", "/l/<libcudnn.so.9>", "not judged from a live process: "
                      "library-not-found"):
            self.assertIn(words, shown)
        self.assertTrue(text.startswith("gputrace check: pid 7 (/x/python): 2 libraries, 1 error, 0 warnings: "
                                        "NOT OK (mixed-versions)"), text)
        self.assertIn("fix: remove </td> from PATH", text)
        self.assertIn("/l/<libcudnn.so.9> (deleted)  9.19.0  pip nvidia-cudnn-cu13 9.19.0.56", text)

if __name__ == "__main__":
    unittest.main()
