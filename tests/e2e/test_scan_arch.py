"""gputrace scan --arch sm_XY and the doctor's device_code step (issue 18
part d): which CUDA library files could run on an architecture, on paper.

Fixtures: $BUILD/kernel-libs, shared libraries nvcc built here (Makefile):
libcublas.so.13 with sm_80 SASS only, libcublasLt.so.13 with compute_80 PTX
only, libcusparse.so.12 with sm_80 and sm_90 SASS, libcurand.so.10 whose
only cubin has no kernel, libcudart.so.13 a link to the fake runtime (no
device code). And the real CUDA 13.0 libraries where the host has them."""
import json
import os
import subprocess
import unittest

from tests.e2e.gtlib import BUILD, FIX, GPUTRACE
from tests.e2e.test_scan import unfold
from tests.e2e import test_doctor
from tests.e2e.test_doctor import FAKES, doctor, step

LIBS = os.path.join(BUILD, "kernel-libs")
REAL = "/usr/local/cuda-13.0/lib64"
KERNEL_RT = os.path.join(FIX, "cuda-13-kernels", "lib64", "libcudart.so.13")


def setUpModule():
    test_doctor.setUpModule()  # its --python interpreters (no_torch)


def tearDownModule():
    test_doctor.tearDownModule()


def scan(*args):
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    return subprocess.run([GPUTRACE, "scan", *args], capture_output=True, text=True, env=env, timeout=120)


def arch_json(arch, root):
    p = scan("--json", "--arch", arch, root)
    return p.returncode, json.loads(p.stdout)["arch"]


def fits(a):
    return {os.path.basename(f["path"]): f for f in a["files"]}


@unittest.skipUnless(os.path.exists(os.path.join(LIBS, "libcublas.so.13")), "nvcc not on this host")
class ScanArch(unittest.TestCase):
    def test_sm90_each_kind(self):
        rc, a = arch_json("sm_90", LIBS)
        self.assertEqual(rc, 1, "libcublas.so.13 cannot run on sm_90: the scan fails")
        self.assertEqual((a["arch"], a["compute_capability"]), ("sm_90", "9.0"))
        f = fits(a)
        self.assertEqual((f["libcusparse.so.12"]["fit"], f["libcusparse.so.12"]["via"]), ("sass", "sm_90"))
        self.assertEqual(f["libcusparse.so.12"]["carries"], ["sm_80", "sm_90"])
        self.assertEqual((f["libcublasLt.so.13"]["fit"], f["libcublasLt.so.13"]["via"]), ("jit", "compute_80"))
        self.assertEqual((f["libcublas.so.13"]["fit"], f["libcublas.so.13"]["via"]), ("none", None))
        self.assertEqual(f["libcublas.so.13"]["carries"], ["sm_80"])
        # no device code: a kernel-less cubin, and a runtime without any
        self.assertEqual(f["libcurand.so.10"]["fit"], "no_code")
        self.assertEqual(f["libcudart.so.13"]["fit"], "no_code")
        self.assertEqual(f["libcudart.so.13"]["path"], os.path.realpath(KERNEL_RT))
        self.assertEqual(a["counts"], {"sass": 1, "jit": 1, "none": 1, "unknown": 0, "no_code": 2})

    def test_same_major_newer_minor_runs_sm80_sass(self):
        for arch in ("sm_86", "8.9", "compute_80"):
            rc, a = arch_json(arch, LIBS)
            f = fits(a)
            self.assertEqual((f["libcublas.so.13"]["fit"], f["libcublas.so.13"]["via"]), ("sass", "sm_80"), arch)
            self.assertEqual(f["libcusparse.so.12"]["via"], "sm_80", arch)
            self.assertEqual(f["libcublasLt.so.13"]["fit"], "jit", arch)
            self.assertEqual(a["counts"]["none"], 0, arch)

    def test_older_than_every_image(self):
        rc, a = arch_json("sm_75", LIBS)
        f = fits(a)
        for name in ("libcublas.so.13", "libcublasLt.so.13", "libcusparse.so.12"):
            self.assertEqual(f[name]["fit"], "none", name)
        self.assertEqual(f["libcurand.so.10"]["fit"], "no_code", "an sm_75 cubin without a kernel is no code")

    def test_text(self):
        p = scan("--arch", "sm_90", LIBS)
        self.assertEqual(p.returncode, 1, p.stderr)
        lines = unfold(p.stdout).splitlines()  # the text is folded to 100 columns (issue 30)
        self.assertTrue(lines[0].startswith("gputrace scan: "), lines[0])
        self.assertIn("; 5 CUDA library files", lines[0])
        self.assertIn("on paper, for sm_90 (compute capability 9.0): 3 files with device code: 1 runs as SASS, "
                      "1 through PTX (JIT), 1 cannot run, 0 not judged; 2 files carry no device code", lines[1])
        by_name = {os.path.basename(ln.split()[2].rstrip(":")): ln for ln in lines[2:] if ln.startswith("  ")}
        self.assertEqual(set(by_name), {"libcublas.so.13", "libcublasLt.so.13", "libcusparse.so.12"})
        self.assertTrue(by_name["libcublas.so.13"].split()[0] == "CANNOT")
        self.assertIn("carries sm_80: nothing that runs on sm_90", by_name["libcublas.so.13"])
        self.assertIn("PTX compute_80 is compiled at start-up", by_name["libcublasLt.so.13"])
        self.assertIn("sm_90 runs as it is (carries sm_80, sm_90)", by_name["libcusparse.so.12"])
        self.assertNotIn("libcudart", p.stdout.split("\n", 1)[1])
        self.assertNotIn("libcurand", p.stdout)

    def test_exit_zero_when_everything_runs(self):
        rc, a = arch_json("sm_86", LIBS)
        self.assertEqual((rc, a["counts"]["none"]), (0, 0))

    def test_files_that_use_cuda_are_judged(self):
        """Issue 28: not only CUDA library names. A framework's plug-in
        (libtorch_cuda.so), an extension module without the lib prefix and
        a program library that only needs a CUDA library are judged; a plain
        library is not."""
        import shutil
        import tempfile
        root = tempfile.mkdtemp(prefix="gt-arch-")
        self.addCleanup(shutil.rmtree, root)
        lib = os.path.join(root, "site-packages", "torch", "lib")
        os.makedirs(lib)
        shutil.copy(os.path.join(LIBS, "libcublas.so.13"), os.path.join(lib, "libtorch_cuda.so"))
        shutil.copy(os.path.join(LIBS, "libcusparse.so.12"), os.path.join(lib, "_C.cpython-311-x86_64-linux-gnu.so"))
        shutil.copy("/lib/x86_64-linux-gnu/libz.so.1", os.path.join(lib, "libplain.so"))
        rc, a = arch_json("sm_90", root)
        f = fits(a)
        self.assertEqual(rc, 1, "libtorch_cuda.so cannot run on sm_90")
        self.assertEqual(f["libtorch_cuda.so"]["fit"], "none")
        self.assertEqual(f["_C.cpython-311-x86_64-linux-gnu.so"]["fit"], "sass")
        self.assertNotIn("libplain.so", f)
        rc, a = arch_json("sm_80", root)
        self.assertEqual((rc, fits(a)["libtorch_cuda.so"]["fit"]), (0, "sass"))

    def test_bad_arch(self):
        for bad in ("sm_9x", "sm_9", "9.x", "", "sm_", "ninety", "10.10"):
            p = scan("--arch", bad, LIBS)
            self.assertEqual(p.returncode, 2, bad)
            self.assertEqual(p.stdout, "", bad)
            self.assertIn("gputrace scan: --arch %s: not a GPU architecture" % bad, p.stderr)
            self.assertIn("Try 'gputrace scan --help'", p.stderr)
        p = scan("--arch", "sm_90", "--for", os.path.join(LIBS, "libcublas.so.13"), LIBS)
        self.assertEqual(p.returncode, 2)
        self.assertIn("say one of --for and --arch", p.stderr)
        p = scan(LIBS, "--arch")
        self.assertEqual(p.returncode, 2)

    def test_option_after_root_and_output_dir(self):
        p = scan(LIBS, "--arch", "sm_90", "--json")
        self.assertEqual(json.loads(p.stdout)["arch"]["counts"]["sass"], 1)
        self.assertNotIn("arch", json.loads(scan("--json", LIBS).stdout))


@unittest.skipUnless(os.path.exists(os.path.join(REAL, "libcublas.so.13")), "no CUDA 13.0 libraries here")
class ScanArchRealLibraries(unittest.TestCase):
    def test_h200_healthy(self):
        rc, a = arch_json("sm_90", REAL)
        f = fits(a)
        self.assertEqual((f["libcublas.so.13"]["fit"], f["libcublas.so.13"]["via"]), ("sass", "sm_90"))
        self.assertIn("sm_90", f["libcublas.so.13"]["carries"])
        self.assertEqual(f["libcudart.so.13"]["fit"], "no_code")
        # libcufftw.so.12's only cubin (sm_75) has no kernel: never "cannot run"
        if "libcufftw.so.12" in f:
            self.assertEqual(f["libcufftw.so.12"]["fit"], "no_code")
        # cuFFT keeps most of its fat binaries in .ldata: not judged
        if "libcufft.so.12" in f:
            self.assertEqual(f["libcufft.so.12"]["fit"], "unknown")
        self.assertEqual([n for n, x in f.items() if x["fit"] == "none"], [])

    def test_pascal_is_gone_from_cuda_13(self):
        rc, a = arch_json("sm_61", REAL)
        f = fits(a)
        self.assertEqual(f["libcublas.so.13"]["fit"], "none")
        self.assertEqual(f["libcudart.so.13"]["fit"], "no_code")


@unittest.skipUnless(os.path.exists(os.path.join(LIBS, "libcublas.so.13")), "nvcc not on this host")
class DoctorDeviceCode(unittest.TestCase):
    """The probe's device (the fake runtime's FAKE_CUDA_CC, seen by the
    tracer's device hooks) against the cuBLAS it loaded."""

    def run_doctor(self, cc, runtime=KERNEL_RT):
        env = dict(FAKES, GPUTRACE_PROBE_CUDART=runtime,
                   GPUTRACE_PROBE_CUBLAS=os.path.join(LIBS, "libcublas.so.13"),
                   LD_LIBRARY_PATH=os.path.join(FIX, "driver"), FAKE_CUDA_NAME="NVIDIA H200")
        if cc:
            env["FAKE_CUDA_CC"] = cc
        return doctor(env)

    def test_no_code_for_the_device_fails_the_device_layer(self):
        rc, d = self.run_doctor("9.0")
        s = step(d, "device_code")
        self.assertEqual((s["status"], s["layer"]), ("FAILED", "device"), s)
        self.assertIn("compute 9.0 (NVIDIA H200)", s["detail"])
        self.assertIn("nothing that runs on it in libcublas.so.13 (carries sm_80)", s["detail"])
        self.assertIn("(JIT), in libcublasLt.so.13 (compute_80)", s["detail"])
        self.assertNotIn("libcudart", s["detail"])
        self.assertEqual(d["first_failing_layer"], "device")
        self.assertEqual(rc, 1)
        names = [x["name"] for x in d["steps"]]
        self.assertEqual(names.index("device_code"), names.index("device") + 1, names)

    def test_same_major_runs(self):
        rc, d = self.run_doctor("8.6")
        s = step(d, "device_code")
        self.assertEqual(s["status"], "ok", s)
        self.assertIn("SASS for it in libcublas.so.13 (sm_80)", s["detail"])
        self.assertNotIn("nothing", s["detail"])
        self.assertIsNone(d["first_failing_layer"], d["steps"])
        self.assertEqual(rc, 0)

    def test_no_device_line_no_step(self):
        # the plain fake runtime has no cudaGetDeviceProperties: no device line
        rc, d = self.run_doctor(None, runtime=FAKES["GPUTRACE_PROBE_CUDART"])
        self.assertIsNone(step(d, "device_code"))
