"""Issue 29: gputrace doctor --python imports the framework once (the
environment block reads torch's version.py without importing it; the
framework checks, traced, import it and say its cuDNN). Before: imported
twice, about 1.3 s of a 2.3 s doctor with a real torch."""
import json
import os
import subprocess
import sys
import tempfile
import shutil
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE

FAKE_TORCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fake_torch")
WHEEL = os.path.join(FIX, "site-packages", "nvidia")
CUDART = os.path.join(FIX, "cuda-13", "lib64", "libcudart.so.13")
CUDNN = os.path.join(WHEEL, "cudnn", "lib", "libcudnn.so.9")


class ImportOnce(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gt-doctor-once-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.python = os.path.join(self.dir, "python")
        with open(self.python, "w") as f:
            f.write('#!/bin/sh\nPYTHONPATH=%s exec %s -S "$@"\n' % (FAKE_TORCH, sys.executable))
        os.chmod(self.python, 0o755)
        self.log = os.path.join(self.dir, "imports")

    def doctor(self, *args):
        env = dict(os.environ, GPUTRACE_PROBE_CUDART=CUDART, GPUTRACE_PROBE_CUDNN=CUDNN,
                   GPUTRACE_PROBE_CUBLAS=os.path.join(WHEEL, "cublas", "lib", "libcublas.so.13"),
                   LD_LIBRARY_PATH=os.path.join(FIX, "driver"), FAKE_TORCH_CUDART=CUDART,
                   FAKE_TORCH_CUDNN=CUDNN, FAKE_TORCH_IMPORT_LOG=self.log)
        return subprocess.run([GPUTRACE, "doctor", *args, "--python", self.python], capture_output=True,
                              text=True, env=env, timeout=120)

    def imports(self):
        with open(self.log) as f:
            return f.read().count("imported")

    def test_json_imports_once_and_still_says_everything(self):
        p = self.doctor("--json")
        d = json.loads(p.stdout)
        self.assertEqual(self.imports(), 1)
        (fw,) = d["environment"]["frameworks"]
        self.assertEqual((fw["name"], fw["version"], fw["cuda"], fw["cudnn"]), ("torch", "2.11.0+cu130", "13.0", None),
                         "the fake torch has no torch._C: no compile-time cuDNN to say")
        steps = {s["name"]: s for s in d["steps"]}
        self.assertEqual(steps["torch_import"]["status"], "ok", steps)
        self.assertEqual(steps["torch_cudnn"]["detail"], "9.19.0")

    def test_text_imports_once(self):
        p = self.doctor()
        self.assertEqual(self.imports(), 1)
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("  torch ")]
        self.assertEqual(line, ["  torch         2.11.0+cu130, CUDA 13.0"], p.stdout)

    def test_torch_that_does_not_import_is_a_failed_step(self):
        broken = os.path.join(self.dir, "broken", "torch")
        os.makedirs(broken)
        with open(os.path.join(broken, "__init__.py"), "w") as f:
            f.write("raise ImportError('libtorch_cuda.so: cannot open shared object file')\n")
        with open(os.path.join(broken, "version.py"), "w") as f:
            f.write("__version__ = '9.9.9'\ncuda = '13.0'\n")
        with open(self.python, "w") as f:
            f.write('#!/bin/sh\nPYTHONPATH=%s exec %s -S "$@"\n' % (os.path.dirname(broken), sys.executable))
        d = json.loads(self.doctor("--json").stdout)
        steps = {s["name"]: s for s in d["steps"]}
        self.assertEqual(steps["torch_import"]["status"], "FAILED", steps)
        self.assertIn("libtorch_cuda.so: cannot open shared object file", steps["torch_import"]["detail"])
        self.assertEqual(d["first_failing_layer"], "framework")


if __name__ == "__main__":
    unittest.main()
