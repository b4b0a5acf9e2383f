"""What a framework was built for, read from its installation (issue 12,
classes 3 to 5), on fake framework layouts built from the fixtures' fake
libraries: a copy of fixtures/site-packages (the nvidia-* wheels: cuDNN
9.19.0.56, cudart 13, cuBLAS 13) with a torch-like, a TensorFlow-like and a
bundling framework beside it, each with the declaration files and keys the
real ones have (torch's METADATA Requires-Dist pins and torch/version.py,
TensorFlow's and-cuda pins and build_info.py).

- healthy layouts give no error: torch with its matching nvidia-* wheels,
  tensorflow[and-cuda], a torch wheel that bundles its own cuDNN 8 and an
  auditwheel-renamed libcudart-80664282.so.12;
- with the system cuDNN 9.14 first on LD_LIBRARY_PATH, torch's own pin
  (nvidia-cudnn-cu13==9.19.0.56) is violated by the 9.14 graph library:
  framework-mismatch, as on the GPU machine, where torch stops with
  "PyTorch was compiled against (9, 19, 0) but found runtime version
  (9, 14, 0)" (doc/design-notes.md; the field's form: pytorch/pytorch#5369,
  tensorflow/tensorflow#58986, jax-ml/jax#15230).
Processes run under /usr/bin/python3 (Debian's)."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, cleanup, run_bare, run_traced

PY = "/usr/bin/python3"
SYSTEM = os.path.join(FIX, "system", "lib")
DRIVER = os.path.join(FIX, "driver")
TORCHLIKE = os.path.join(FIX, "site-packages", "torchlike", "lib", "libtorchlike_cuda.so")

# Loads a framework library (RPATH into ../../nvidia/*/lib, as torch's) and
# runs its convolution: cudnnCreate's status.
CONV = """
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
rc = lib.torchlike_conv()
print("conv", rc)
sys.exit(1 if rc else 0)
"""

# torch 2.x's way: its CUDA wheels' libraries loaded by path first (ctypes),
# then libtorch_cuda.so, whose DT_NEEDED binds to them by SONAME without a
# search the trace could show.
CONV_PRELOADED = """
import ctypes, sys
nvidia = sys.argv[2]
ctypes.CDLL(nvidia + "/cuda_runtime/lib/libcudart.so.13")
ctypes.CDLL(nvidia + "/cudnn/lib/libcudnn.so.9")
lib = ctypes.CDLL(sys.argv[1])
rc = lib.torchlike_conv()
print("conv", rc)
sys.exit(1 if rc else 0)
"""

# A framework that bundles cuDNN 8 and an auditwheel-renamed cudart.
BUNDLED = """
import ctypes, sys
ctypes.CDLL(sys.argv[1] + "/libcudart-80664282.so.12")
c = ctypes.CDLL(sys.argv[1] + "/libcudnn.so.8")
h = ctypes.c_void_p()
rc = c.cudnnCreate(ctypes.byref(h))
print("create", rc)
sys.exit(1 if rc else 0)
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def wheel(site, name, version, metadata_lines, files):
    """NAME-VERSION.dist-info with METADATA and a RECORD listing files."""
    di = os.path.join(site, "%s-%s.dist-info" % (name.replace("-", "_"), version))
    write(os.path.join(di, "METADATA"),
          "Metadata-Version: 2.1\nName: %s\nVersion: %s\n%s" % (name, version,
                                                               "".join(l + "\n" for l in metadata_lines)))
    write(os.path.join(di, "RECORD"), "".join(f + ",,\n" for f in files))


def report_json(outdir):
    p = subprocess.run([GPUTRACE, "report", "--json", outdir], capture_output=True, timeout=120)
    return p.returncode, json.loads(p.stdout)


def findings(d, fid):
    return [f for f in d["findings"] if f["id"] == fid]


def errors(d):
    return [f["id"] for f in d["findings"] if f["severity"] == "error"]


@unittest.skipUnless(os.access(PY, os.X_OK), "needs Debian's /usr/bin/python3")
class Frameworks(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gt-fw-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.site = os.path.join(self.tmp, "site-packages")
        # the fixtures' nvidia-* wheels with their dist-info, files by soname
        shutil.copytree(os.path.join(FIX, "site-packages"), self.site, symlinks=True)

    def run_both(self, argv, env):
        bare = run_bare(argv, env=env)
        traced = run_traced(argv, env=env)
        self.addCleanup(cleanup, traced)
        self.assertEqual(traced.proc.returncode, bare.returncode, traced.proc.stderr)
        self.assertEqual(traced.proc.stdout, bare.stdout)
        return traced

    def torch_layout(self):
        lib = os.path.join(self.site, "torch", "lib", "libtorch_cuda.so")
        os.makedirs(os.path.dirname(lib))
        shutil.copy(TORCHLIKE, lib)
        wheel(self.site, "torch", "2.11.0", [
            'Requires-Dist: filelock',
            'Requires-Dist: nvidia-cuda-runtime==13.0.96; platform_system == "Linux"',
            'Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == "Linux"',
            'Requires-Dist: nvidia-cublas==13.0.0.19; platform_system == "Linux"',
            'Requires-Dist: nvidia-nccl-cu13==2.28.9; platform_system == "Linux"',
        ], ["torch/lib/libtorch_cuda.so", "torch/version.py"])
        write(os.path.join(self.site, "torch", "version.py"),
              "from typing import Optional\n__version__ = '2.11.0+cu130'\n"
              "cuda: Optional[str] = '13.0'\n")
        return lib

    def test_torch_with_matching_wheels_is_healthy(self):
        lib = self.torch_layout()
        r = self.run_both([PY, "-c", CONV, lib], {"LD_LIBRARY_PATH": DRIVER})
        self.assertEqual(r.proc.returncode, 0, r.proc.stderr)
        rc, d = report_json(r.outdir)
        self.assertEqual((rc, errors(d)), (0, []), d["findings"])
        self.assertEqual(findings(d, "framework-mismatch"), [])

    def test_torch_pin_violated_by_system_cudnn_on_ld_library_path(self):
        """torch's own Requires-Dist pin names the culprit: the system 9.14
        graph library that LD_LIBRARY_PATH put under the wheel's 9.19 front."""
        lib = self.torch_layout()
        r = self.run_both([PY, "-c", CONV, lib], {"LD_LIBRARY_PATH": SYSTEM + ":" + DRIVER})
        rc, d = report_json(r.outdir)
        self.assertEqual(rc, 1)
        (f,) = findings(d, "framework-mismatch")
        self.assertEqual(f["severity"], "error")
        decl = f["evidence"][0]
        self.assertEqual(decl["declared_by"],
                         os.path.join(self.site, "torch-2.11.0.dist-info", "METADATA"))
        self.assertEqual((decl["distribution"], decl["spec"]), ("nvidia-cudnn-cu13", "==9.19.0.56"))
        short = {e["path"]: e for e in f["evidence"][1:]}
        self.assertIn(os.path.join(SYSTEM, "libcudnn_graph.so.9"), short, f)
        for path, e in short.items():
            self.assertTrue(path.startswith(SYSTEM), e)
            self.assertEqual(e["rule"], "ld_library_path")
            self.assertTrue(e["version"].startswith("9.14"), e)
        self.assertIn("Remove " + SYSTEM + " from LD_LIBRARY_PATH", f["fix"])
        self.assertEqual(f["fix_data"], {"env": {"LD_LIBRARY_PATH": {"remove": [SYSTEM]}}})
        # cudart 13 and cuBLAS 13 satisfy their pins: nothing said of them
        self.assertEqual({f["evidence"][0]["family"] for f in findings(d, "framework-mismatch")}, {"cudnn"})

    def test_torch_pin_when_its_cudnn_was_preloaded_by_path(self):
        """As on the GPU machine (torch 2.11): the front was loaded by
        _ctypes, and libtorch_cuda.so's DT_NEEDED libcudnn.so.9 bound to it
        by SONAME; the pin still judges the copy torch uses."""
        lib = self.torch_layout()
        nvidia = os.path.join(self.site, "nvidia")
        r = self.run_both([PY, "-c", CONV_PRELOADED, lib, nvidia], {"LD_LIBRARY_PATH": SYSTEM + ":" + DRIVER})
        rc, d = report_json(r.outdir)
        (f,) = findings(d, "framework-mismatch")
        short = {e["path"] for e in f["evidence"][1:]}
        self.assertIn(os.path.join(SYSTEM, "libcudnn_graph.so.9"), short, f)
        # and with the wheel's own graph library, nothing
        r = self.run_both([PY, "-c", CONV_PRELOADED, lib, nvidia], {"LD_LIBRARY_PATH": DRIVER})
        rc, d = report_json(r.outdir)
        self.assertEqual(findings(d, "framework-mismatch"), [])

    def test_torch_pin_and_a_system_cudnn_in_ld_preload(self):
        """A system cuDNN 9.14 front in LD_PRELOAD, under a torch that pins
        nvidia-cudnn-cu13==9.19.0.56: libtorch_cuda.so's DT_NEEDED binds to
        the preloaded copy without a search. shadowed-library names the wheel's
        copy its RPATH would give it (on paper), an error since torch declares
        another release; framework-mismatch says the pin is violated."""
        lib = self.torch_layout()
        r = self.run_both([PY, "-c", CONV, lib], {"LD_LIBRARY_PATH": DRIVER,
                                                  "LD_PRELOAD": os.path.join(SYSTEM, "libcudnn.so.9")})
        self.assertEqual(r.proc.returncode, 0, "the fake torch does not check: %s" % r.proc.stderr)
        rc, d = report_json(r.outdir)
        self.assertEqual(rc, 1)
        (sh,) = findings(d, "shadowed-library")
        self.assertEqual(sh["severity"], "error")
        front = [e for e in sh["evidence"] if e["path"] == os.path.join(SYSTEM, "libcudnn.so.9")][0]
        # By its real folder, not torch/lib/../../ as $ORIGIN built it (issue 28).
        self.assertEqual(front["shadowed"], os.path.join(os.path.realpath(self.site), "nvidia/cudnn/lib/libcudnn.so.9"))
        self.assertEqual((front["version"], front["shadowed_version"]), ("9.14.0", "9.19.0.56"))
        self.assertEqual(front["shadowed_requester"], lib)
        self.assertIn("a release its framework does not declare", sh["summary"])
        (fw,) = findings(d, "framework-mismatch")
        self.assertIn("out of LD_PRELOAD", fw["fix"])
        self.assertEqual(fw["fix_data"], {"env": {"unset": ["LD_PRELOAD"]}})

    def test_tensorflow_and_cuda_is_healthy(self):
        """tensorflow[and-cuda] pins the cuDNN wheel under an extra, and its
        build_info.py gives the majors; the installed wheel satisfies both."""
        lib = os.path.join(self.site, "tensorflow", "python", "_pywrap_tensorflow_internal.so")
        os.makedirs(os.path.dirname(lib))
        shutil.copy(TORCHLIKE, lib)
        wheel(self.site, "tensorflow", "2.20.0", [
            'Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; extra == "and-cuda"',
            'Requires-Dist: nvidia-nccl-cu13==2.28.9; extra == "and-cuda"',
        ], ["tensorflow/python/_pywrap_tensorflow_internal.so"])
        write(os.path.join(self.site, "tensorflow", "python", "platform", "build_info.py"),
              "import collections\nbuild_info = collections.OrderedDict([('cuda_version', '13.0'), "
              "('cudnn_version', '9'), ('is_cuda_build', True)])\n")
        r = self.run_both([PY, "-c", CONV, lib], {"LD_LIBRARY_PATH": DRIVER})
        rc, d = report_json(r.outdir)
        self.assertEqual((rc, errors(d)), (0, []), d["findings"])

    def test_framework_bundling_its_cudnn_and_a_renamed_cudart_is_healthy(self):
        """An older torch wheel (2.0.0+cu118 style) ships cuDNN 8 in torch/lib
        and lists it in its own RECORD, with an auditwheel-renamed cudart
        (pytorch/pytorch#52365: "auditwheel appends first 8 symbols of
        sha256 checksum to the library name"). 2.0.0 is not cuDNN's version:
        no mixed-versions; the renamed file is the CUDA runtime."""
        libdir = os.path.join(self.site, "torch", "lib")
        os.makedirs(libdir)
        cuda12 = os.path.join(FIX, "cuda-12", "lib64")
        files = []
        for name in os.listdir(cuda12):
            if name.startswith("libcudnn") and name.endswith(".so.8"):
                shutil.copy(os.path.join(cuda12, name), os.path.join(libdir, name))
                files.append("torch/lib/" + name)
        shutil.copy(os.path.join(cuda12, "libcudart.so.12"), os.path.join(libdir, "libcudart-80664282.so.12"))
        files.append("torch/lib/libcudart-80664282.so.12")
        wheel(self.site, "torch", "2.0.0", [], files)
        write(os.path.join(self.site, "torch", "version.py"), "__version__ = '2.0.0'\ncuda = '12.4'\n")
        r = self.run_both([PY, "-c", BUNDLED, libdir], {"LD_LIBRARY_PATH": DRIVER})
        self.assertEqual(r.proc.returncode, 0, r.proc.stderr)
        rc, d = report_json(r.outdir)
        self.assertEqual((rc, errors(d)), (0, []), d["findings"])
        self.assertEqual(findings(d, "mixed-versions"), [])
        libs = {os.path.basename(l["path"]): l for l in d["processes"][0]["libraries"]}
        rt = libs["libcudart-80664282.so.12"]
        self.assertEqual((rt["family"], rt["component"]), ("cudart", "cudart"))
        self.assertTrue(rt["version"].startswith("12"), rt)
        front = libs["libcudnn.so.8"]
        self.assertEqual(front["package"]["name"], "torch")
        self.assertNotIn("package", front["versions"])
        self.assertTrue(front["version"].startswith("8.9"), front)


if __name__ == "__main__":
    unittest.main()
