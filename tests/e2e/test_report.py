"""gputrace report: one scenario per finding (tests/scenarios/report_scenarios.md).

Each test runs a fixture program under gputrace, then `gputrace report --json`
on the traces, and asserts the finding's id, severity and key evidence, and
that the report's exit status agrees with its findings (1 with an error-level
finding, else 0).  Bad input must give exit status 2 and one line on stderr."""
import json
import os
import random
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e import finding_table
from tests.e2e.gtlib import FIX, GPUTRACE, PROGS, real_cudnn_dir, value

SC = os.path.join(FIX, "scenarios")
LOAD_AND_DIE = os.path.join(PROGS, "load_and_die")
CUDA_OPS = os.path.join(PROGS, "cuda_ops")

# The severity a finding of these scenarios has unless a test says otherwise:
# the finding table's (include/gputrace/findings.h) where it allows one, else
# the one these scenarios give (SeverityDefaults checks it against the table).
SEVERITY = dict({r.id: r.lowest for r in finding_table.ROWS if r.lowest == r.highest},
                **{"library-not-found": "error", "duplicate-library": "warning", "shadowed-library": "warning"})
CUDA_FAMILIES = {"driver", "cudart", "cudnn", "cublas"}
FOUND_BY = {"rpath", "runpath", "ld_library_path", "ld_so_cache", "default", "absolute",
            "already_loaded", "preload", None}
# Variables that steer loading or the fakes: the tests set their own.
STEERING = ("LD_LIBRARY_PATH", "LD_PRELOAD", "CUDA_HOME", "CONDA_PREFIX", "VIRTUAL_ENV",
            "CUDA_VISIBLE_DEVICES", "FAKE_CUDA_DEVICES", "FAKE_DRIVER_VERSION",
            "FAKE_CUDA_INIT_RESULT", "FAKE_CUDA_MEM_BYTES", "FAKE_CUDART_FAIL")


def fix(rel):
    return os.path.join(FIX, rel)


def llp(*rels):
    return {"LD_LIBRARY_PATH": ":".join(fix(r) for r in rels)}


def same_file(a, b):
    """Paths name the same file (the report may normalise or resolve links)."""
    if a is None or b is None:
        return False
    return os.path.realpath(a) == os.path.realpath(b)


def real_driver_present():
    if os.path.exists("/lib/x86_64-linux-gnu/libcuda.so.1"):
        return True
    out = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True).stdout
    return b"libcuda.so.1 " in out


def torch_importable():
    return subprocess.run(["/usr/bin/python3", "-c", "import torch"],
                          capture_output=True, timeout=120).returncode == 0


def report(*args):
    return subprocess.run([GPUTRACE, "report", *args], capture_output=True, timeout=120)


class Diagnosis:
    """A traced run and the report on its traces."""

    def __init__(self, run, rep):
        self.run, self.rep = run, rep
        self.rc = rep.returncode
        self.obj = json.loads(rep.stdout)
        self.findings = self.obj["findings"]
        self.processes = self.obj["processes"]

    def ids(self):
        return [f["id"] for f in self.findings]

    def process(self):
        return self.processes[0]


class SeverityDefaults(unittest.TestCase):
    def test_defaults_are_the_tables(self):
        """Every default severity is one the finding table allows its id."""
        for fid, severity in SEVERITY.items():
            self.assertTrue(finding_table.allowed(fid, severity), "%s: %s" % (fid, severity))


class ReportCase(unittest.TestCase):
    maxDiff = None

    def trace(self, argv, env=None):
        """Runs argv under gputrace -q -o DIR with a clean loader environment."""
        e = {k: v for k, v in os.environ.items() if k not in STEERING}
        e.update(env or {})
        outdir = tempfile.mkdtemp(prefix="gt-report-")
        self.addCleanup(shutil.rmtree, outdir, True)
        run = subprocess.run([GPUTRACE, "-q", "-o", outdir, "--", *argv], env=e,
                             capture_output=True, timeout=120)
        return run, outdir

    def diagnose(self, argv, env=None):
        run, outdir = self.trace(argv, env)
        rep = report("--json", outdir)
        self.assertIn(rep.returncode, (0, 1), rep.stderr.decode(errors="replace"))
        d = Diagnosis(run, rep)
        self.check_contract(d)
        return d

    def check_contract(self, d):
        o = d.obj
        self.assertEqual((o["format"], o["version"]), ("gputrace-report", 1))
        self.assertTrue(d.processes, "a process per trace")
        for f in d.findings:
            self.assertIn(f["id"], finding_table.IDS)
            self.assertIn(f["severity"], ("error", "warning", "info"))
            self.assertTrue(f["summary"] and f["fix"], f)
            self.assertTrue(f["evidence"], "every finding shows its evidence: %s" % f["id"])
            for ev in f["evidence"]:
                self.assertTrue(ev.get("what"), ev)
        for p in d.processes:
            for lib in p["libraries"]:
                self.assertIn(lib["found_by"], FOUND_BY, lib)
                for key in ("path", "family", "version"):
                    self.assertIn(key, lib)
        errors = [f for f in d.findings if f["severity"] == "error"]
        self.assertEqual(d.rc, 1 if errors else 0, d.ids())

    def finding(self, d, fid, severity=None):
        """The findings fid (the report may give one per library), merged into
        one; each has the id's severity (or the one given) and names the
        process."""
        found = [f for f in d.findings if f["id"] == fid]
        self.assertTrue(found, "%s in %s" % (fid, d.ids()))
        for f in found:
            self.assertEqual(f["severity"], severity or SEVERITY[fid], f)
            self.assertIn(d.processes[0]["pid"], f["processes"])
        return {"id": fid, "severity": found[0]["severity"],
                "summary": "\n".join(f["summary"] for f in found),
                "evidence": [ev for f in found for ev in f["evidence"]],
                "caused_by": [c for f in found for c in f.get("caused_by", [])]}

    def no_finding(self, d, *fids):
        for fid in fids:
            self.assertNotIn(fid, d.ids())

    def evidence_for(self, f, rel, key="path"):
        """The evidence item whose key names the file rel of the fixtures."""
        want = rel if rel.startswith("/") else fix(rel)
        items = [ev for ev in f["evidence"] if same_file(value(ev, key), want)]
        self.assertTrue(items, "%s=%s in %s" % (key, rel, json.dumps(f["evidence"], indent=1)))
        return items[0]

    def tried(self, f):
        """All tried candidates of the finding's evidence."""
        return [t for ev in f["evidence"] for t in ev.get("tried", [])]

    def library(self, d, rel):
        p = d.process()
        libs = [lib for lib in p["libraries"] if same_file(value(lib, "path"), fix(rel))]
        self.assertTrue(libs, "%s in %s" % (rel, [value(l, "path") for l in p["libraries"]]))
        return libs[0]


def ev_mentions(f, *alternatives):
    """Any of the alternatives appears in the finding's evidence values."""
    text = json.dumps(f["evidence"])
    return any(str(a) in text for a in alternatives)


class DriverMissing(ReportCase):
    def setUp(self):
        if real_driver_present():
            self.skipTest("a real libcuda.so.1 is installed: the driver is not missing here")

    def test_no_driver_on_any_path(self):
        d = self.diagnose([fix("scenarios/sc_cuda")])
        f = self.finding(d, "driver-missing")
        tried = self.tried(f)
        self.assertTrue(tried, "the folders searched for libcuda.so.1")
        for t in tried:
            self.assertTrue(t["path"].endswith("/libcuda.so.1"), t)
            self.assertTrue(t["rule"], t)
        self.assertIn("default", {t["rule"] for t in tried})
        self.no_finding(d, "no-device", "driver-stub", "driver-too-old")
        lib = self.library(d, "cuda-13/lib64/libcudart.so.13")
        self.assertEqual(lib["found_by"], "absolute")
        self.assertEqual(lib["family"], "cudart")
        self.assertTrue(lib["version"].startswith("13.0"), lib)

    def test_status_35_is_not_oom_nor_no_device(self):
        """The runtime's 35 (insufficient driver) on cudaMalloc is the driver, not memory."""
        d = self.diagnose([CUDA_OPS, "n", "m:4096"])
        self.finding(d, "driver-missing")
        self.no_finding(d, "no-device", "out-of-memory")


class DriverStub(ReportCase):
    def test_toolkit_stub_on_ld_library_path(self):
        d = self.diagnose([fix("scenarios/sc_cuda")], llp("cuda-13/lib64/stubs"))
        f = self.finding(d, "driver-stub")
        paths = [value(ev, "path") or "" for ev in f["evidence"]]
        self.assertTrue([p for p in paths if "/stubs/" in p], f["evidence"])
        self.assertTrue(ev_mentions(f, "ld_library_path"), f["evidence"])
        self.no_finding(d, "driver-missing")


class DriverTooOld(ReportCase):
    def check_old(self, d):
        f = self.finding(d, "driver-too-old")
        self.assertTrue(ev_mentions(f, "11080", "11.8"), f["evidence"])
        self.assertTrue(ev_mentions(f, "13000", "13.0"), f["evidence"])
        self.evidence_for(f, "driver-old/libcuda.so.1")
        self.no_finding(d, "driver-missing", "driver-stub", "no-device")

    def test_versions_asked_by_the_tracer(self):
        self.check_old(self.diagnose([fix("scenarios/sc_cuda")], llp("driver-old")))

    def test_with_the_runtime_status(self):
        self.check_old(self.diagnose([CUDA_OPS, "n", "m:100"], llp("driver-old")))


class NoDevice(ReportCase):
    def no_device(self, extra):
        env = dict(llp("driver"), FAKE_CUDA_DEVICES="0", **extra)
        d = self.diagnose([CUDA_OPS, "n"], env)
        f = self.finding(d, "no-device")
        self.assertTrue([ev for ev in f["evidence"] if ev.get("status") == 100], f["evidence"])
        self.no_finding(d, "driver-missing", "driver-too-old")
        return f

    def test_status_100(self):
        self.no_device({})

    def test_visible_devices_named(self):
        f = self.no_device({"CUDA_VISIBLE_DEVICES": "7"})
        envs = [ev for ev in f["evidence"] if ev.get("env") == "CUDA_VISIBLE_DEVICES"]
        self.assertTrue(envs, f["evidence"])
        self.assertEqual(envs[0]["value"], "7")

    def test_visible_devices_set_empty(self):
        f = self.no_device({"CUDA_VISIBLE_DEVICES": ""})
        envs = [ev for ev in f["evidence"] if ev.get("env") == "CUDA_VISIBLE_DEVICES"]
        self.assertTrue(envs, "set but empty hides every GPU: %s" % f["evidence"])
        self.assertEqual(envs[0]["value"], "")


class CpuOnlyBuild(ReportCase):
    def test_fake_cpu_framework(self):
        lib = fix("torch-cpu/site-packages/torch/lib/libtorch_cpu.so")
        d = self.diagnose([LOAD_AND_DIE, "exit", lib])
        f = self.finding(d, "cpu-only-build")
        self.evidence_for(f, lib)
        self.assertEqual(d.rc, 0)

    def test_debian_python3_torch(self):
        if not torch_importable():
            self.skipTest("Debian's python3-torch is not importable")
        d = self.diagnose(["/usr/bin/python3", "-c", "import torch"])
        f = self.finding(d, "cpu-only-build")
        paths = [value(ev, "path") or "" for ev in f["evidence"]]
        self.assertTrue([p for p in paths if "/libtorch" in p], f["evidence"])
        self.assertFalse([x for x in d.findings if x["severity"] == "error"], d.ids())
        self.assertEqual(d.rc, 0)


class LibraryNotFound(ReportCase):
    def not_found(self, env, copy):
        # The program fails when it cannot load cuDNN (exit 1), as torch's
        # import does: an error (a run that succeeded gets a warning at most).
        d = self.diagnose([LOAD_AND_DIE, "exit1", "libcudnn.so.8"], env)
        f = self.finding(d, "library-not-found")
        self.assertIn("libcudnn.so.8", f["summary"])
        tried = self.tried(f)
        self.assertTrue(tried, f["evidence"])
        for t in tried:
            self.assertTrue(t["path"].endswith("/libcudnn.so.8"), t)
        self.evidence_for(f, copy)
        p = d.process()
        (fail,) = [x for x in p["failed_loads"] if x["name"] == "libcudnn.so.8"]
        self.assertTrue(fail["tried"])

    def test_copy_in_cuda_home(self):
        self.not_found({"CUDA_HOME": fix("cuda-12")}, "cuda-12/lib64/libcudnn.so.8")

    def test_copy_in_conda_prefix(self):
        self.not_found({"CONDA_PREFIX": fix("conda")}, "conda/lib/libcudnn.so.8")

    def test_cudnn9_most_specific_first_misses(self):
        """libcudnn_graph.so.9.19.0 and .9.19 are not found, .9 is: not a finding."""
        d = self.diagnose([fix("scenarios/sc_cudnn9"), "site-packages/nvidia/cudnn/lib"],
                          llp("site-packages/nvidia/cuda_runtime/lib"))
        self.no_finding(d, "library-not-found")


class MixedVersions(ReportCase):
    def test_cudnn8_leftover_front_library(self):
        d = self.diagnose([fix("scenarios/sc_cudnn8")],
                          llp("cuda-11.8/lib64", "cuda-12/lib64", "driver"))
        f = self.finding(d, "mixed-versions")
        old = self.evidence_for(f, "cuda-11.8/lib64/libcudnn.so.8")
        new = self.evidence_for(f, "cuda-12/lib64/libcudnn_ops_infer.so.8")
        self.assertTrue(old["version"].startswith("8.6"), old)
        self.assertTrue(new["version"].startswith("8.9"), new)
        self.assertEqual((old["rule"], new["rule"]), ("ld_library_path", "ld_library_path"))

    def test_cudnn9_sublibraries_from_system(self):
        d = self.diagnose([fix("scenarios/sc_torchlike")], llp("system/lib", "driver"))
        f = self.finding(d, "mixed-versions")
        # cudnnGetVersion answers 9.14 here (the graph library's): the wheel's
        # front library is still 9.19 by its file and its package.
        front = self.evidence_for(f, "site-packages/nvidia/cudnn/lib/libcudnn.so.9")
        graph = self.evidence_for(f, "system/lib/libcudnn_graph.so.9")
        self.assertTrue(front["version"].startswith("9.19"), front)
        self.assertTrue(graph["version"].startswith("9.14"), graph)
        self.assertEqual(graph["rule"], "ld_library_path")
        init = self.finding(d, "init-failed")
        self.assertTrue([ev for ev in init["evidence"] if ev.get("status") == 1002], init)
        self.assertIn("mixed-versions", init["caused_by"])


class DuplicateLibrary(ReportCase):
    def test_two_cudart_13_files(self):
        a = fix("cuda-13/lib64/libcudart.so.13")
        b = fix("site-packages/nvidia/cuda_runtime/lib/libcudart.so.13")
        d = self.diagnose([LOAD_AND_DIE, "exit", a, b])
        f = self.finding(d, "duplicate-library")
        self.evidence_for(f, a)
        self.evidence_for(f, b)
        self.assertEqual(d.rc, 0)

    def test_already_loaded_is_not_a_duplicate(self):
        a = fix("cuda-13/lib64/libcudart.so.13")
        d = self.diagnose([LOAD_AND_DIE, "exit", a, a, "libcudart.so.13"])
        self.no_finding(d, "duplicate-library")


class ShadowedLibrary(ReportCase):
    """Both runs fail, and the shadowing copy is another release than the one
    it hid: the shadowing is the cause (an error, init-failed's caused_by),
    not a warning beside an unexplained failure (issue 12, class 6)."""

    def test_leftover_cudnn8_shadows_the_bundled_one(self):
        d = self.diagnose([fix("scenarios/sc_bundle8")], llp("cuda-11.8/lib64", "driver"))
        f = self.finding(d, "shadowed-library", "error")
        ev = self.evidence_for(f, "cuda-11.8/lib64/libcudnn.so.8")
        self.assertTrue(same_file(value(ev, "shadowed"), fix("bundle8/lib/libcudnn.so.8")), ev)
        self.assertEqual(ev["rule"], "ld_library_path")
        self.assertTrue(same_file(value(ev, "requester"), fix("bundle8/lib/libfw8.so")), ev)
        self.assertEqual((ev["version"], ev["shadowed_version"]), ("8.6.0", "8.9.7"))
        self.assertIn("shadowed-library", self.finding(d, "init-failed")["caused_by"])

    def test_system_cudnn9_sublibraries(self):
        d = self.diagnose([fix("scenarios/sc_torchlike")], llp("system/lib", "driver"))
        f = self.finding(d, "shadowed-library", "error")
        ev = self.evidence_for(f, "system/lib/libcudnn_graph.so.9")
        self.assertTrue(same_file(value(ev, "shadowed"),
                                  fix("site-packages/nvidia/cudnn/lib/libcudnn_graph.so.9")), ev)
        self.assertEqual(ev["rule"], "ld_library_path")
        # the wheel's graph library is named by soname only: its version is
        # its package's, the nvidia-cudnn-cu13 wheel's
        self.assertEqual(ev["shadowed_version"], "9.19.0.56")


class PreloadShadows(ReportCase):
    """A system cuDNN left in LD_PRELOAD (a shell profile, a launcher script,
    or set "to fix" an earlier error, as davisking/dlib#2719 advises:
    `export LD_PRELOAD=/usr/local/cuda-11.1/targets/x86_64-linux/lib/libcudnn_ops_train.so.8`)
    is in the process before the framework asks: its DT_NEEDED libcudnn.so.9
    binds to it by SONAME, and the loader never searches (no search line in
    the trace). The report redoes the framework's search on paper (its RPATH
    into the nvidia-cudnn wheel) and names both copies with their versions.
    The run goes well on a consistent 9.14: a warning, unset LD_PRELOAD."""

    SYSTEM_FRONT = "system/lib/libcudnn.so.9"
    WHEEL = "site-packages/nvidia/"

    def test_system_cudnn_front_in_ld_preload(self):
        d = self.diagnose([fix("scenarios/sc_torchlike")],
                          dict(llp("driver"), LD_PRELOAD=fix(self.SYSTEM_FRONT)))
        self.assertIn(b"torchlike: cudart 13000, cudnn 91400", d.run.stdout, "runs on the preloaded 9.14")
        (f,) = [f for f in d.findings if f["id"] == "shadowed-library"]
        self.assertEqual(f["severity"], "warning", "the run went well")
        front = self.evidence_for(f, self.SYSTEM_FRONT)
        self.assertEqual(front["rule"], "preload")
        self.assertEqual(front["version"], "9.14.0")
        self.assertTrue(same_file(value(front, "shadowed"), fix(self.WHEEL + "cudnn/lib/libcudnn.so.9")), front)
        self.assertEqual(front["shadowed_version"], "9.19.0.56")
        self.assertEqual(front["shadowed_rule"], "rpath")
        self.assertEqual(front["soname"], "libcudnn.so.9")
        self.assertTrue(same_file(front["shadowed_requester"],
                                  fix("site-packages/torchlike/lib/libtorchlike_cuda.so")), front)
        self.assertTrue(same_file(front["preloaded"], fix(self.SYSTEM_FRONT)))
        self.assertIn("on paper", front["what"])
        self.assertIn("without a search", front["what"])
        # the system front's own cudart came in with it, from system/lib
        rt = self.evidence_for(f, "system/lib/libcudart.so.13")
        self.assertTrue(same_file(value(rt, "shadowed"), fix(self.WHEEL + "cuda_runtime/lib/libcudart.so.13")))
        self.assertIn("needed by LD_PRELOAD's", rt["what"])
        self.assertIn("9.14.0", f["summary"])
        self.assertIn("9.19.0.56", f["summary"])
        self.assertIn("out of LD_PRELOAD", f["fix"])
        self.assertEqual(f["fix_data"], {"env": {"unset": ["LD_PRELOAD"]}})
        # the trace has no search for it: the report's word is on paper
        self.assertEqual(d.rc, 0)

    def test_only_that_entry_is_removed_from_a_longer_list(self):
        zlib = "/lib/x86_64-linux-gnu/libz.so.1"
        if not os.path.exists(zlib):
            self.skipTest("needs " + zlib)
        d = self.diagnose([fix("scenarios/sc_torchlike")],
                          dict(llp("driver"), LD_PRELOAD=zlib + ":" + fix(self.SYSTEM_FRONT)))
        (f,) = [f for f in d.findings if f["id"] == "shadowed-library"]
        self.assertEqual(f["fix_data"], {"env": {"LD_PRELOAD": {"remove": [fix(self.SYSTEM_FRONT)]}}})

    def test_failed_run_on_another_release_is_an_error(self):
        """As torch does at its first convolution: the loaded cuDNN's version
        against the one it was built with (pytorch/pytorch#80637: "PyTorch was
        compiled against (8, 3, 2) but linked against (8, 0, 3)")."""
        check = ("import ctypes, sys\n"
                 "lib = ctypes.CDLL(sys.argv[1])\n"
                 "dnn = ctypes.CDLL('libcudnn.so.9')\n"
                 "v = dnn.cudnnGetVersion()\n"
                 "if v != 91900:\n"
                 "    print('cuDNN version incompatibility: PyTorch was compiled against (9, 19, 0) '\n"
                 "          'but found runtime version (%d, %d, %d)' % (v // 10000, v // 100 % 100, v % 100))\n"
                 "    sys.exit(1)\n")
        if not os.access("/usr/bin/python3", os.X_OK):
            self.skipTest("needs /usr/bin/python3")
        d = self.diagnose(["/usr/bin/python3", "-c", check, fix("site-packages/torchlike/lib/libtorchlike_cuda.so")],
                          dict(llp("driver"), LD_PRELOAD=fix(self.SYSTEM_FRONT)))
        self.assertIn(b"found runtime version (9, 14, 0)", d.run.stdout)
        self.assertEqual(d.run.returncode, 1)
        (f,) = [f for f in d.findings if f["id"] == "shadowed-library"]
        self.assertEqual(f["severity"], "error")
        self.assertIn("9.14.0 instead of 9.19.0.56", f["summary"])
        self.assertEqual(d.rc, 1)

    def test_same_file_in_ld_preload_is_healthy(self):
        """Preloading the very files the framework would load changes nothing."""
        pre = ":".join(fix(self.WHEEL + p) for p in ("cuda_runtime/lib/libcudart.so.13", "cudnn/lib/libcudnn.so.9"))
        d = self.diagnose([fix("scenarios/sc_torchlike")], dict(llp("driver"), LD_PRELOAD=pre))
        self.assertIn(b"torchlike_conv() = 0", d.run.stdout)
        self.assertEqual(d.findings, [], json.dumps(d.findings, indent=1))
        self.assertEqual(d.rc, 0)

    def test_unrelated_library_in_ld_preload_is_healthy(self):
        zlib = "/lib/x86_64-linux-gnu/libz.so.1"
        if not os.path.exists(zlib):
            self.skipTest("needs " + zlib)
        d = self.diagnose([fix("scenarios/sc_torchlike")], dict(llp("driver"), LD_PRELOAD=zlib))
        self.assertIn(b"torchlike_conv() = 0", d.run.stdout)
        self.assertEqual(d.findings, [], json.dumps(d.findings, indent=1))


class CudaMajorMismatch(ReportCase):
    def test_cudart_11_and_12(self):
        d = self.diagnose([LOAD_AND_DIE, "exit", fix("cuda-11.8/lib64/libcudart.so.11.0"),
                           fix("cuda-12/lib64/libcudart.so.12")])
        f = self.finding(d, "cuda-major-mismatch")
        v11 = self.evidence_for(f, "cuda-11.8/lib64/libcudart.so.11.0")
        v12 = self.evidence_for(f, "cuda-12/lib64/libcudart.so.12")
        self.assertTrue(str(v11["version"]).startswith("11"), v11)
        self.assertTrue(str(v12["version"]).startswith("12"), v12)


class InitFailed(ReportCase):
    def check_caused_by_driver(self, d):
        f = self.finding(d, "init-failed")
        st = [ev for ev in f["evidence"] if ev.get("status") == 1001]
        self.assertTrue(st, f["evidence"])
        self.assertEqual(st[0].get("status_name"), "CUDNN_STATUS_NOT_INITIALIZED")
        self.assertIn("driver-missing", f["caused_by"])
        self.assertEqual(d.rc, 1)
        return self.finding(d, "driver-missing")

    def test_fake_cudnn_without_driver(self):
        if real_driver_present():
            self.skipTest("a real libcuda.so.1 is installed")
        d = self.diagnose([fix("scenarios/sc_torchlike")])
        miss = self.check_caused_by_driver(d)
        rules = {t["rule"] for t in self.tried(miss)}
        self.assertIn("rpath", rules, "torchlike's RPATH was searched for libcuda.so.1 too")

    def test_real_cudnn_without_driver(self):
        prog = os.path.join(PROGS, "real_cuda_api")
        if not real_cudnn_dir() or not os.path.exists(prog):
            self.skipTest("no real CUDA runtime and cuDNN on this host")
        if real_driver_present():
            self.skipTest("a real libcuda.so.1 is installed")
        miss = self.check_caused_by_driver(self.diagnose([prog]))
        tried = self.tried(miss)
        self.assertTrue(tried, "the folders searched for libcuda.so.1")
        self.assertTrue(all(t["path"].endswith("/libcuda.so.1") for t in tried), tried)


class OutOfMemory(ReportCase):
    def test_failing_cudamalloc(self):
        d = self.diagnose([CUDA_OPS, "m:1000", "m:1000000000000"],
                          dict(llp("driver"), FAKE_CUDA_MEM_BYTES="1000000"))
        f = self.finding(d, "out-of-memory")
        ev = [e for e in f["evidence"] if e.get("size") == 1000000000000]
        self.assertTrue(ev, f["evidence"])
        self.assertEqual(ev[0]["status"], 2)
        allocs = d.process()["allocations"]
        self.assertEqual((allocs["peak_bytes"], allocs["held_bytes"], allocs["failed"]),
                         (1000, 1000, 1))
        self.no_finding(d, "driver-missing", "no-device")


class Crashed(ReportCase):
    def test_segv_after_loading_cudart(self):
        cudart = fix("cuda-13/lib64/libcudart.so.13")
        d = self.diagnose([LOAD_AND_DIE, "segv", "libm.so.6", cudart])
        self.assertEqual(d.run.returncode, -11)
        f = self.finding(d, "crashed")
        self.evidence_for(f, cudart)
        self.assertTrue([e for e in f["evidence"] if e.get("signal") == 11], f["evidence"])
        self.assertEqual(d.process()["ended"], {"how": "signal", "signal": 11})

    def test_abort(self):
        d = self.diagnose([LOAD_AND_DIE, "abort", "libm.so.6"])
        self.finding(d, "crashed")
        self.assertEqual(d.process()["ended"], {"how": "signal", "signal": 6})

    def test_exit_status_is_not_a_crash(self):
        """_exit(7) skips the trace's closing line; the launcher saw an exit."""
        d = self.diagnose([LOAD_AND_DIE, "_exit", "libm.so.6"])
        self.no_finding(d, "crashed")
        self.assertEqual(d.process()["ended"], {"how": "exit", "status": 7})

    def test_trace_cut_at_a_line_end(self):
        """No closing line and no launcher record: how it ended is not known,
        which is said (info), never called a crash."""
        run, outdir = self.trace([fix("scenarios/sc_cuda")], llp("driver"))
        (name,) = [n for n in os.listdir(outdir) if n.endswith(".jsonl")]
        path = os.path.join(outdir, name)
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        with open(path, "wb") as f:
            f.write(b"\n".join(lines[:len(lines) // 2]) + b"\n")
        rep = report("--json", outdir)
        self.assertEqual(rep.returncode, 0, rep.stderr)
        d = Diagnosis(run, rep)
        self.finding(d, "end-unknown", "info")
        self.no_finding(d, "crashed")
        self.assertEqual(d.process()["ended"]["how"], "unknown")


class Clean(ReportCase):
    """Consistent installs: no finding at all, exit status 0."""

    def clean(self, argv, env=None):
        d = self.diagnose(argv, env)
        self.assertEqual(d.findings, [], json.dumps(d.findings, indent=1))
        self.assertEqual(d.rc, 0)
        self.assertEqual(d.process()["ended"], {"how": "exit", "status": 0})
        return d

    def test_torchlike(self):
        d = self.clean([fix("scenarios/sc_torchlike")], llp("driver"))
        self.assertIn(b"torchlike_conv() = 0", d.run.stdout)
        libs = [lib for lib in d.process()["libraries"] if lib["family"] in CUDA_FAMILIES]
        self.assertEqual(len(libs), 12, [value(l, "path") for l in libs])
        for lib in libs:
            self.assertTrue(lib["version"], lib)
            self.assertTrue(lib["found_by"], lib)
        wheel = "site-packages/nvidia/"
        expect = {wheel + "cuda_runtime/lib/libcudart.so.13": ("rpath", "13.0"),
                  wheel + "cudnn/lib/libcudnn.so.9": ("rpath", "9.19"),
                  wheel + "cudnn/lib/libcudnn_graph.so.9": ("runpath", "9.19"),
                  wheel + "cublas/lib/libcublas.so.13": ("rpath", "13.0"),
                  wheel + "cublas/lib/libcublasLt.so.13": ("runpath", "13.0"),
                  "driver/libcuda.so.1": ("ld_library_path", "")}
        for rel, (rule, version) in expect.items():
            lib = self.library(d, rel)
            self.assertEqual(lib["found_by"], rule, lib)
            self.assertTrue(str(lib["version"]).startswith(version), lib)
        pkg = self.library(d, wheel + "cudnn/lib/libcudnn.so.9")["package"]
        self.assertEqual(pkg, {"manager": "pip", "name": "nvidia-cudnn-cu13", "version": "9.19.0.56"})

    def test_bundled_cudnn8(self):
        d = self.clean([fix("scenarios/sc_bundle8")], llp("driver"))
        self.assertIn(b"fw8_conv() = 0", d.run.stdout)
        self.assertEqual(self.library(d, "bundle8/lib/libcudnn.so.8")["found_by"], "runpath")

    def test_cudnn8_toolkit(self):
        self.clean([fix("scenarios/sc_cudnn8")], llp("cuda-12/lib64", "driver"))

    def test_runtime_and_driver(self):
        self.clean([fix("scenarios/sc_cuda")], llp("driver"))

    def test_no_cuda_at_all(self):
        self.clean([LOAD_AND_DIE, "exit", "libm.so.6"])

    def test_text_and_tree(self):
        run, outdir = self.trace([fix("scenarios/sc_torchlike")], llp("system/lib", "driver"))
        text = report(outdir)
        self.assertEqual(text.returncode, 1, text.stderr)
        self.assertIn(b"mixed-versions", text.stdout)
        self.assertIn(b"system/lib", text.stdout)
        tree = report("--tree", outdir)
        self.assertEqual(tree.returncode, 1, tree.stderr)
        self.assertIn(b"libcudnn_graph.so.9", tree.stdout)

    def test_report_on_one_file(self):
        run, outdir = self.trace([fix("scenarios/sc_cuda")], llp("cuda-13/lib64/stubs"))
        (name,) = [n for n in os.listdir(outdir) if n.endswith(".jsonl")]
        rep = report("--json", os.path.join(outdir, name))
        self.assertEqual(rep.returncode, 1, rep.stderr)
        self.assertIn("driver-stub", Diagnosis(run, rep).ids())


class BadInput(ReportCase):
    """Unreadable input: exit 2, one line on stderr naming the file, no crash."""

    def bad(self, *args, names=None, one_line=True):
        rep = report("--json", *args)
        err = rep.stderr.decode(errors="replace")
        self.assertEqual(rep.returncode, 2, err)
        self.assertNotIn("Sanitizer", err)
        self.assertNotIn("runtime error", err)
        self.assertTrue(err.strip(), "a message on stderr")
        if one_line:
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        if names:
            self.assertIn(names, err)
        return rep

    def write(self, name, data):
        d = tempfile.mkdtemp(prefix="gt-bad-")
        self.addCleanup(shutil.rmtree, d, True)
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def good_trace(self):
        run, outdir = self.trace([fix("scenarios/sc_cuda")], llp("driver"))
        (name,) = [n for n in os.listdir(outdir) if n.endswith(".jsonl")]
        with open(os.path.join(outdir, name), "rb") as f:
            return f.read()

    def test_empty_file(self):
        path = self.write("vm.1.jsonl", b"")
        self.bad(path, names="vm.1.jsonl")

    def test_cut_mid_line(self):
        """A last line cut off (a disk that filled as it was written, issue 15
        item 7): everything before it is read, and the report says the line
        is missing, in text and in JSON."""
        data = self.good_trace()
        cut = data.rindex(b"\n", 0, len(data) - 1) + 10  # inside the last line
        path = self.write("vm.2.jsonl", data[:cut])
        rep = report("--json", path)
        self.assertIn(rep.returncode, (0, 1), rep.stderr)
        (p,) = json.loads(rep.stdout)["processes"]
        self.assertTrue(p["last_line_cut"])
        # The CUDA libraries of the whole trace that were opened before the
        # cut, and only those, are the cut trace's libraries.
        whole = report("--json", self.write("vm.6.jsonl", data))
        before_cut = [json.loads(l) for l in data[:cut].split(b"\n")[:-1]]
        opened = {o["path"] for o in before_cut if o.get("ev") == "open"}
        expected = {l["path"] for l in json.loads(whole.stdout)["processes"][0]["libraries"]} & opened
        self.assertTrue(expected)
        self.assertEqual({l["path"] for l in p["libraries"]}, expected)
        text = report(path)
        self.assertIn(b"the trace's last line is cut off", text.stdout)

    def test_binary_garbage(self):
        junk = bytes(random.Random(7).getrandbits(8) for _ in range(8192))
        self.bad(self.write("vm.3.jsonl", junk), names="vm.3.jsonl")

    def test_line_over_1mib(self):
        header = self.good_trace().split(b"\n")[0]
        line = b'{"ev":"note","what":"' + b"x" * (3 << 19) + b'"}'
        self.bad(self.write("vm.4.jsonl", header + b"\n" + line + b"\n"), names="vm.4.jsonl")

    def test_unknown_format_version(self):
        data = self.good_trace().replace(b'"version":1,', b'"version":99,')
        self.assertIn(b'"version":99,', data)
        self.bad(self.write("vm.5.jsonl", data), names="vm.5.jsonl")

    def test_missing_path_argument(self):
        self.bad(one_line=False)  # a usage error may show the usage

    def test_no_such_path(self):
        self.bad("/nonexistent/gt-report-trace", names="/nonexistent/gt-report-trace")

    def test_directory_without_traces(self):
        d = tempfile.mkdtemp(prefix="gt-empty-")
        self.addCleanup(shutil.rmtree, d, True)
        self.bad(d, names=d)


class HostilePath(ReportCase):
    """Quotes, a newline and bytes that are not UTF-8 in a library's path are
    valid input: valid JSON out, the exact path back through <key>_hex."""

    def test_path_round_trips(self):
        top = tempfile.mkdtemp(prefix="gt-hostile-")
        self.addCleanup(shutil.rmtree, top, True)
        odd = os.path.join(os.fsencode(top), b'we"ird\n\\dir\xff\xfe')
        os.mkdir(odd)
        lib = os.path.join(odd, b"libcudart.so.13")
        shutil.copyfile(os.fsencode(fix("cuda-13/lib64/libcudart.so.13.0.96")), lib)
        d = self.diagnose([os.fsencode(LOAD_AND_DIE), b"exit", lib])
        want = os.fsdecode(lib)
        paths = [value(l, "path") for l in d.process()["libraries"]]
        self.assertIn(want, paths)


if __name__ == "__main__":
    unittest.main()
