"""Loads the loader rolled back, missing symbols, and searches cut off by the
process's death (issue 12, failure classes 1 and 2), on the fixtures of
fixtures/fixtures.mk ("symbols"). Each failing run is checked against the
bare run (same output, same status), then the report must name the symbol,
the provider that lacks it and the copy that has it; healthy layouts must
give no missing-symbol at all."""
import json
import os
import subprocess
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, cleanup, run_bare, run_traced

SYM = os.path.join(FIX, "symbols")
WHEEL = os.path.join(SYM, "site-packages", "nvidia")
CUSPARSE = os.path.join(WHEEL, "cusparse", "lib", "libcusparse.so.12")
TORCH_NCCL = os.path.join(SYM, "site-packages", "torchlike", "lib", "libtorchlike_nccl.so")
OLD_TOOLKIT = os.path.join(SYM, "cuda-12.1", "lib64")
OLD_NCCL = os.path.join(SYM, "nccl-2.18", "lib")
SYSTEM_TOOLKIT = os.path.join(SYM, "cuda-12.4", "lib64")
DLOPEN = os.path.join(FIX, "scenarios", "sc_dlopen_err")
NEEDS_GONE = os.path.join(FIX, "scenarios", "sc_needs_gone")
CLEAN = {"LD_LIBRARY_PATH": "", "LD_PRELOAD": ""}


def same(a, b):
    return os.path.realpath(a) == os.path.realpath(b)


def in_ld_cache(name):
    out = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True).stdout.decode()
    return any(line.split()[0] == name for line in out.splitlines()[1:] if line.strip())


class Traced:
    """A run, bare and traced, and the JSON report on its traces."""

    def __init__(self, test, argv, env):
        full = dict(CLEAN, **env)
        self.bare = run_bare(argv, env=full)
        self.run = run_traced(argv, env=full)
        test.addCleanup(cleanup, self.run)
        # gputrace dies by the signal that killed the command
        test.assertEqual(self.run.proc.returncode, self.bare.returncode, self.run.proc.stderr)
        test.assertEqual(self.run.proc.stdout, self.bare.stdout)
        rep = subprocess.run([GPUTRACE, "report", "--json", self.run.outdir], capture_output=True, timeout=120)
        self.rc = rep.returncode
        self.obj = json.loads(rep.stdout)
        self.text = subprocess.run([GPUTRACE, "report", self.run.outdir], capture_output=True,
                                   timeout=120).stdout.decode()

    def findings(self, fid):
        return [f for f in self.obj["findings"] if f["id"] == fid]

    def failed_loads(self, kind):
        return [fl for p in self.obj["processes"] for fl in p["failed_loads"] if fl["kind"] == kind]


def evidence(f, key):
    return [e[key] for e in f["evidence"] if key in e]


class RolledBackLoad(unittest.TestCase):
    def test_older_nvjitlink_first_on_ld_library_path(self):
        """pytorch/pytorch#134929 and #131312, infiniflow/ragflow#4466: an older
        toolkit's folder first on LD_LIBRARY_PATH gives its libnvJitLink.so.12 to
        the wheel's libcusparse.so.12: "undefined symbol: __nvJitLinkComplete_12_4,
        version libnvJitLink.so.12"; the wheel's own nvidia/nvjitlink/lib has it."""
        d = Traced(self, [DLOPEN, CUSPARSE], {"LD_LIBRARY_PATH": OLD_TOOLKIT})
        self.assertIn(b"undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12", d.bare.stdout)
        self.assertEqual(d.rc, 1)
        [f] = d.findings("missing-symbol")
        self.assertEqual(f["severity"], "error")
        self.assertIn("__nvJitLinkComplete_12_4", f["summary"])
        self.assertIn(evidence(f, "symbol_version")[0], "libnvJitLink.so.12")
        provider = [e for e in f["evidence"] if e.get("role") == "provider"][0]
        self.assertTrue(same(provider["path"], os.path.join(OLD_TOOLKIT, "libnvJitLink.so.12")))
        self.assertEqual(provider["rule"], "ld_library_path")
        self.assertEqual(provider["version"], "12.1.105")
        good = evidence(f, "good_copy")[0]
        self.assertTrue(same(good, os.path.join(WHEEL, "nvjitlink", "lib", "libnvJitLink.so.12")))
        self.assertIn(OLD_TOOLKIT, f["fix"])
        [fl] = d.failed_loads("rolled_back")
        self.assertEqual([os.path.basename(o["path"]) for o in fl["objects"]],
                         ["libcusparse.so.12", "libnvJitLink.so.12"])
        self.assertEqual([o["found_by"] for o in fl["objects"]], ["absolute", "ld_library_path"])
        self.assertEqual(fl["missing_symbols"][0]["symbol"], "__nvJitLinkComplete_12_4")
        self.assertIn("failed load:", d.text)
        self.assertIn("12.1.105", d.text)
        # the undone objects are not among the libraries the process holds
        self.assertEqual(d.obj["processes"][0]["libraries"], [])

    def test_older_nccl_unversioned_symbol(self):
        """NVIDIA/nccl#1180 and pytorch/pytorch#119932: "libtorch_cuda.so: undefined
        symbol: ncclCommRegister" when an older libnccl.so.2 (2.18) is taken instead
        of the wheel's nvidia/nccl/lib copy; NCCL's symbols are unversioned."""
        d = Traced(self, [DLOPEN, TORCH_NCCL], {"LD_LIBRARY_PATH": OLD_NCCL})
        self.assertIn(b"undefined symbol: ncclCommRegister", d.bare.stdout)
        [f] = d.findings("missing-symbol")
        self.assertIn("ncclCommRegister", f["summary"])
        self.assertEqual(evidence(f, "symbol_version"), [])
        provider = [e for e in f["evidence"] if e.get("role") == "provider"][0]
        self.assertTrue(same(provider["path"], os.path.join(OLD_NCCL, "libnccl.so.2")))
        self.assertTrue(same(evidence(f, "good_copy")[0], os.path.join(WHEEL, "nccl", "lib", "libnccl.so.2")))


class HealthyLayouts(unittest.TestCase):
    def assert_healthy(self, d):
        self.assertEqual(d.run.proc.returncode, 0, d.run.proc.stdout)
        self.assertEqual(d.findings("missing-symbol"), [])
        self.assertEqual(d.failed_loads("rolled_back"), [])
        self.assertEqual(d.rc, 0, d.text)

    def test_wheel_with_its_own_nvjitlink(self):
        self.assert_healthy(Traced(self, [DLOPEN, CUSPARSE], {}))

    def test_system_toolkit(self):
        self.assert_healthy(Traced(self, [DLOPEN, "libcusparse.so.12"], {"LD_LIBRARY_PATH": SYSTEM_TOOLKIT}))

    def test_new_nccl(self):
        self.assert_healthy(Traced(self, [DLOPEN, TORCH_NCCL], {}))


class PlainDlclose(unittest.TestCase):
    """A dlclose is not an undone load: the loader undoes a failed dlopen
    under its load lock, so the objects it unmaps are the newest mapped and
    all of them go. torch 2.11 on the H200 dlcloses libcuda.so.1 at exit,
    after loading more; the report read every symbol table of the process
    for it on every import torch (2.2 ms there, issue 29). The facts file
    says which questions were asked."""

    LATER = os.path.join(FIX, "image-nvml", "libnvidia-ml.so.1")
    SCRIPT = ("import ctypes, _ctypes, sys\n"
              "a = ctypes.CDLL(sys.argv[1])\n"
              "b = ctypes.CDLL(sys.argv[2]) if sys.argv[2] else None\n"
              "_ctypes.dlclose(a._handle)\n"
              "print('closed')\n")

    def symbol_questions(self, later):
        d = Traced(self, ["/usr/bin/python3", "-c", self.SCRIPT, CUSPARSE, later], {})
        self.assertEqual(d.run.proc.stdout, b"closed\n")
        self.assertEqual(d.findings("missing-symbol"), [])
        self.assertEqual(d.failed_loads("rolled_back"), [])
        with open(os.path.join(d.run.outdir, "gputrace-facts.json")) as f:
            [host] = json.load(f)["hosts"].values()
        return host.get("symbol_gaps", {})

    def test_closed_after_a_later_load_is_not_judged(self):
        self.assertEqual(self.symbol_questions(self.LATER), {})

    def test_closing_the_newest_objects_is_judged(self):
        # the same close with nothing mapped after it could have been an
        # undone load: its symbols are checked (and found whole)
        self.assertEqual(len(self.symbol_questions("")), 1)


class CutOffSearch(unittest.TestCase):
    def setUp(self):
        if in_ld_cache("libcufft.so.11"):
            self.skipTest("this host's ld.so.cache has a libcufft.so.11")

    def assert_not_found_on_paper(self, d):
        [f] = d.findings("library-not-found")
        self.assertIn("libcufft.so.11", f["summary"])
        self.assertTrue(any("died in this search" in e["what"] for e in f["evidence"]))
        [fl] = [fl for fl in d.failed_loads("not_found") if fl["name"] == "libcufft.so.11"]
        self.assertTrue(fl["cut_off"])
        self.assertTrue(any(t["rule"] == "default" for t in fl["tried"]))

    def test_loader_exits_127_at_start_up(self):
        """asadprodhan/GPU-accelerated-guppy-basecalling#1: "error while loading
        shared libraries: libcuda.so.1: cannot open shared object file" (the loader
        exits 127 before main); here with a DT_NEEDED libcufft.so.11."""
        d = Traced(self, [NEEDS_GONE], {})
        self.assertEqual(d.bare.returncode, 127)
        self.assertIn(b"error while loading shared libraries: libcufft.so.11", d.bare.stderr)
        self.assert_not_found_on_paper(d)

    def test_abort_right_after_failed_dlopen(self):
        d = Traced(self, [DLOPEN, "libcufft.so.11", "abort"], {})
        self.assertEqual(d.bare.returncode, -6)
        self.assert_not_found_on_paper(d)


def scan_for(consumer, env):
    full = dict(os.environ, **CLEAN)
    full.update(env)
    out = subprocess.run([GPUTRACE, "scan", "--json", "--for", consumer, SYM], capture_output=True,
                         env=full, timeout=120)
    return out.returncode, json.loads(out.stdout)


class ScanForOnPaper(unittest.TestCase):
    """The same check before the run: gputrace scan --for FILE."""

    def test_older_nvjitlink_predicted(self):
        rc, obj = scan_for(CUSPARSE, {"LD_LIBRARY_PATH": OLD_TOOLKIT})
        [f] = [f for f in obj["findings"] if f["id"] == "missing-symbol"]
        self.assertEqual(rc, 1)
        self.assertIn("__nvJitLinkComplete_12_4", f["summary"])
        provider = [e for e in f["evidence"] if e.get("role") == "provider"][0]
        self.assertTrue(same(provider["path"], os.path.join(OLD_TOOLKIT, "libnvJitLink.so.12")))
        self.assertTrue(same(evidence(f, "good_copy")[0], os.path.join(WHEEL, "nvjitlink", "lib", "libnvJitLink.so.12")))

    def test_older_nccl_predicted(self):
        rc, obj = scan_for(TORCH_NCCL, {"LD_LIBRARY_PATH": OLD_NCCL})
        self.assertEqual([f for f in obj["findings"] if f["id"] == "missing-symbol"][0]["severity"], "error")

    def test_healthy_layouts_predict_nothing(self):
        for consumer, env in ((CUSPARSE, {}), (TORCH_NCCL, {}),
                              (os.path.join(SYSTEM_TOOLKIT, "libcusparse.so.12"), {"LD_LIBRARY_PATH": SYSTEM_TOOLKIT})):
            with self.subTest(consumer=consumer):
                _, obj = scan_for(consumer, env)
                self.assertEqual([f for f in obj["findings"] if f["id"] == "missing-symbol"], [])


if __name__ == "__main__":
    unittest.main()
