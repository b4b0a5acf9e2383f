"""gputrace doctor: the GPU chain step by step, on the real libraries of the
build machines (no driver) and on the fake ones (each way a chain breaks)."""
import json
import os
import shutil
import subprocess
import platform
import re
import sys
import time
import tempfile
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, real_cudnn_dir, unfold

WHEEL = os.path.join(FIX, "site-packages", "nvidia")
FAKES = {
    "GPUTRACE_PROBE_CUDART": os.path.join(FIX, "cuda-13", "lib64", "libcudart.so.13"),
    "GPUTRACE_PROBE_CUBLAS": os.path.join(WHEEL, "cublas", "lib", "libcublas.so.13"),
    "GPUTRACE_PROBE_CUDNN": os.path.join(WHEEL, "cudnn", "lib", "libcudnn.so.9"),
}


FAKE_TORCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fake_torch")
PYTHONS = {}  # name -> an interpreter script made in setUpModule


def setUpModule():
    """Interpreters the tests name with --python, so that no test depends on
    which python3 comes first on PATH (issue 20): one that cannot import any
    torch (-S: no site-packages), one that imports the fake CUDA build of
    tests/fake_torch."""
    folder = tempfile.mkdtemp(prefix="gt-doctor-py-")
    scripts = {
        "no_torch": f'exec {sys.executable} -S "$@"\n',
        "fake_cuda_torch": f'PYTHONPATH={FAKE_TORCH} exec {sys.executable} -S "$@"\n',
        # the framework checks take 3 s: the steps before them must show first
        "slow_framework": 'case "$1" in *torch_doctor.py) sleep 3;; esac\n'
                          f'PYTHONPATH={FAKE_TORCH} exec {sys.executable} -S "$@"\n',
    }
    for name, body in scripts.items():
        os.mkdir(os.path.join(folder, name))
        path = os.path.join(folder, name, "python3")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)
        PYTHONS[name] = path
    PYTHONS["folder"] = folder


def tearDownModule():
    shutil.rmtree(PYTHONS["folder"], ignore_errors=True)


def doctor(env=None, python="no_torch", args=()):
    """Runs gputrace doctor --json; python: a key of PYTHONS, a path, or None
    for no --python (the python3 on PATH)."""
    e = dict(os.environ)
    e.pop("LD_LIBRARY_PATH", None)
    e.update(env or {})
    argv = [GPUTRACE, "doctor", "--json", *args]
    if python:
        argv += ["--python", PYTHONS.get(python, python)]
    p = subprocess.run(argv, env=e, capture_output=True, timeout=120)
    return p.returncode, json.loads(p.stdout)


def step(d, name):
    found = [s for s in d["steps"] if s["name"] == name]
    return found[0] if found else None


def ids(findings):
    return {f["id"]: f for f in findings}


class RealLibrariesNoDriver(unittest.TestCase):
    """Acceptance 1: CUDA 13.0 and cuDNN 9.19 here, no driver."""

    def setUp(self):
        if not real_cudnn_dir():
            self.skipTest("no real CUDA libraries on this host")

    def test_driver_layer_fails_the_rest_reported(self):
        rc, d = doctor()
        self.assertEqual(rc, 1)
        self.assertEqual(d["first_failing_layer"], "driver")
        self.assertEqual(step(d, "driver_load")["status"], "FAILED")
        self.assertIn("libcuda.so.1", step(d, "driver_load")["detail"])
        self.assertEqual(step(d, "runtime_version")["status"], "ok")
        self.assertTrue(step(d, "runtime_version")["detail"].startswith("13."))
        self.assertEqual(step(d, "cudnn_version")["status"], "ok")
        self.assertIn("9.19", step(d, "cudnn_version")["detail"])
        for gpu_step in ("device", "malloc_256mib", "sgemm"):
            self.assertEqual(step(d, gpu_step)["status"], "skipped", gpu_step)
        missing = ids(d["findings"])["driver-missing"]
        self.assertEqual(missing["severity"], "error")
        tried = [t["path"] for e in missing["evidence"] for t in e.get("tried", [])]
        self.assertIn("/lib/x86_64-linux-gnu/libcuda.so.1", tried)

    def test_text_says_where_it_looked(self):
        p = subprocess.run([GPUTRACE, "doctor", "--python", PYTHONS["no_torch"]],
                           capture_output=True, timeout=120,
                           env={k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"})
        out = p.stdout.decode()
        self.assertEqual(p.returncode, 1)
        self.assertIn("the first layer that fails: driver", out)
        self.assertIn("searched: ", out)
        # the places are the folders of the searched: line, hwcaps subfolders
        # folded in (issue 16); the paths are every one the loader tried
        # lines are folded to 100 columns (issue 30): read the words
        words = " ".join(out.split())
        m = re.search(r"searched for libcuda\.so\.1 in (\d+) places \((\d+) paths, with the hwcaps subfolders\)", words)
        self.assertIsNotNone(m, out)
        self.assertFalse([ln for ln in out.splitlines() if len(ln) > 100 and " " in ln.strip()], out)
        line = re.search(r"searched: (.*?) \(\d+ paths\)", words).group(0)
        folders = line.strip()[len("searched: "):].rsplit(" (", 1)[0].split(", ")
        self.assertEqual(int(m.group(1)), len(folders), line)
        self.assertFalse([f for f in folders if "hwcaps" in f or f.endswith(("/haswell", "/avx512_1", "/tls"))])
        self.assertIn("(%s paths)" % m.group(2), line)


class FakeChains(unittest.TestCase):
    """Acceptance 2: each way the chain breaks, on the fake libraries."""

    def run_with(self, driver_dir, **extra):
        env = dict(FAKES, LD_LIBRARY_PATH=os.path.join(FIX, driver_dir), **extra)
        return doctor(env)

    def test_healthy_fake_chain(self):
        rc, d = self.run_with("driver")
        self.assertIsNone(d["first_failing_layer"], d["steps"])
        self.assertEqual(rc, 0)

    def test_driver_too_old(self):
        rc, d = self.run_with("driver-old")
        self.assertEqual(rc, 1)
        self.assertEqual(step(d, "device_count")["status"], "FAILED")
        self.assertIn("35", step(d, "device_count")["detail"])
        self.assertIn("driver-too-old", ids(d["findings"]))

    def test_no_device(self):
        rc, d = self.run_with("driver", FAKE_CUDA_DEVICES="0")
        self.assertEqual(rc, 1)
        self.assertIn("100", step(d, "device_count")["detail"])
        self.assertIn("no-device", ids(d["findings"]))

    def test_stub_driver(self):
        rc, d = self.run_with(os.path.join("cuda-13", "lib64", "stubs"))
        self.assertEqual(rc, 1)
        self.assertEqual(d["first_failing_layer"], "driver")
        self.assertIn("34", step(d, "driver_version")["detail"])
        self.assertIn("driver-stub", ids(d["findings"]))

    def test_out_of_memory(self):
        rc, d = self.run_with("driver", FAKE_CUDA_MEM_BYTES="1000")
        self.assertEqual(rc, 1)
        self.assertEqual(d["first_failing_layer"], "memory")
        self.assertIn("2 cudaErrorMemoryAllocation", step(d, "malloc_256mib")["detail"])
        self.assertIn("out-of-memory", ids(d["findings"]))


def torch_steps(d):
    return {s["name"]: s for s in d["steps"] if s["layer"] == "framework"}


class FrameworkLayer(unittest.TestCase):
    """The framework layer for each kind of Python a newcomer may have, on the
    healthy fake chain (issue 20): no torch, Debian's CPU-only torch, a CUDA
    build (the fake one)."""

    def run_with(self, python, env=None):
        return doctor(dict(FAKES, LD_LIBRARY_PATH=os.path.join(FIX, "driver"), **(env or {})), python)

    def test_no_torch_is_one_skipped_step(self):
        rc, d = self.run_with("no_torch")
        self.assertEqual(rc, 0)
        self.assertIsNone(d["first_failing_layer"])
        steps = torch_steps(d)
        self.assertEqual(list(steps), ["torch_import"])
        self.assertEqual(steps["torch_import"]["status"], "skipped")
        self.assertIn("framework checks skipped: " + PYTHONS["no_torch"] + " cannot import torch",
                      steps["torch_import"]["detail"])
        self.assertIn("No module named 'torch'", steps["torch_import"]["detail"])
        self.assertEqual(d["environment"]["frameworks"], [])
        self.assertTrue(d["environment"]["python"].startswith(PYTHONS["no_torch"] + " 3."), d["environment"])

    def test_python3_on_path_when_not_named(self):
        path = os.path.dirname(PYTHONS["no_torch"]) + os.pathsep + os.environ.get("PATH", "")
        rc, d = self.run_with(None, {"PATH": path})
        self.assertEqual(rc, 0)
        self.assertIn(PYTHONS["no_torch"] + " cannot import torch",
                      torch_steps(d)["torch_import"]["detail"])

    def test_cpu_only_torch(self):
        """Debian's python3-torch (installed by tools/install-deps.sh)."""
        probe = subprocess.run(["/usr/bin/python3", "-c", "import torch; print(torch.version.cuda)"],
                               capture_output=True, text=True)
        if probe.returncode != 0 or probe.stdout.strip() != "None":
            self.skipTest("/usr/bin/python3 has no CPU-only torch")
        rc, d = self.run_with("/usr/bin/python3")
        self.assertEqual(rc, 1)
        self.assertEqual(d["first_failing_layer"], "framework")
        steps = torch_steps(d)
        self.assertEqual(steps["torch_import"]["status"], "ok")
        self.assertEqual(steps["torch_cuda_build"]["status"], "FAILED")
        self.assertIn("CPU-only build", steps["torch_cuda_build"]["detail"])
        self.assertEqual(steps["torch_cudnn"]["status"], "skipped")
        self.assertIn("cpu-only-build", ids(d["findings"]))

    def test_cuda_build_on_the_fake_chain(self):
        env = {"FAKE_TORCH_CUDART": FAKES["GPUTRACE_PROBE_CUDART"],
               "FAKE_TORCH_CUDNN": FAKES["GPUTRACE_PROBE_CUDNN"]}
        rc, d = self.run_with("fake_cuda_torch", env)
        self.assertIsNone(d["first_failing_layer"], d["steps"])
        self.assertEqual(rc, 0)
        steps = torch_steps(d)
        for name in ("torch_import", "torch_cuda_build", "torch_is_available", "torch_device",
                     "torch_matmul", "torch_cudnn"):
            self.assertEqual(steps[name]["status"], "ok", steps)
        self.assertEqual(steps["torch_cuda_build"]["detail"], "13.0")
        self.assertEqual(steps["torch_cudnn"]["detail"], "9.19.0")
        (fw,) = d["environment"]["frameworks"]
        self.assertEqual((fw["name"], fw["version"], fw["cuda"]), ("torch", "2.11.0+cu130", "13.0"))


    def test_cuda_build_without_a_device(self):
        env = {"FAKE_TORCH_CUDART": FAKES["GPUTRACE_PROBE_CUDART"],
               "FAKE_TORCH_CUDNN": FAKES["GPUTRACE_PROBE_CUDNN"], "FAKE_CUDA_DEVICES": "0"}
        rc, d = self.run_with("fake_cuda_torch", env)
        self.assertEqual(rc, 1)
        steps = torch_steps(d)
        self.assertEqual(steps["torch_is_available"]["status"], "FAILED")
        self.assertIn("100", steps["torch_is_available"]["detail"])
        self.assertEqual(steps["torch_matmul"]["status"], "skipped")

    def test_python_that_does_not_exist(self):
        p = subprocess.run([GPUTRACE, "doctor", "--python", "/nonexistent/python3"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--python /nonexistent/python3: No such file or directory", p.stderr)
        self.assertEqual(p.stdout, "")


class TextOutput(unittest.TestCase):
    """The text as users read and paste it (issue 16): the environment block
    first, then each step's line as the step finishes."""

    def test_environment_block_after_the_verdict(self):
        """Verdict first, then the steps, then the block users paste (issue 30:
        on a terminal the steps show on stderr as they run, test_newcomer)."""
        env = dict(os.environ, **FAKES, LD_LIBRARY_PATH=os.path.join(FIX, "driver"),
                   FAKE_TORCH_CUDART=FAKES["GPUTRACE_PROBE_CUDART"], FAKE_TORCH_CUDNN=FAKES["GPUTRACE_PROBE_CUDNN"])
        p = subprocess.run([GPUTRACE, "doctor", "--python", PYTHONS["slow_framework"]], env=env,
                           capture_output=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertEqual(p.stderr, b"", "no progress line without a terminal")
        text = p.stdout.decode().splitlines(True)
        # the fakes lack a kernel module and the device and sgemm functions:
        # those steps are skipped, and the verdict says so (issue 30), never
        # "all steps ran."
        self.assertEqual(unfold(p.stdout.decode()).splitlines(True)[0],
                         "gputrace doctor: the GPU chain, layer by layer: no step failed, 3 skipped, "
                         "not checked (driver_module, device, sgemm)\n")
        start = next(i for i, l in enumerate(text) if l.startswith("environment (traces in "))
        block = text[start + 1:start + 7]
        self.assertEqual([l.split()[0] for l in block], ["OS", "kernel", "glibc", "driver", "CUDA", "Python"], text)
        self.assertIn(platform.release(), block[1])
        self.assertIn(os.confstr("CS_GNU_LIBC_VERSION").split()[-1], block[2])
        self.assertTrue(any(l.startswith("  torch ") and "CUDA 13.0" in l for l in text[start + 7:start + 9]), text)
        self.assertLess(text.index(next(l for l in text if "driver_module" in l)),
                        text.index(next(l for l in text if "driver_load" in l)))
        self.assertLess(text.index(next(l for l in text if " cudnn_create " in l)), start)


if __name__ == "__main__":
    unittest.main()
