"""gputrace doctor: the GPU chain step by step, on the real libraries of the
build machines (no driver) and on the fake ones (each way a chain breaks)."""
import json
import os
import subprocess
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, real_cudnn_dir

WHEEL = os.path.join(FIX, "site-packages", "nvidia")
FAKES = {
    "GPUTRACE_PROBE_CUDART": os.path.join(FIX, "cuda-13", "lib64", "libcudart.so.13"),
    "GPUTRACE_PROBE_CUBLAS": os.path.join(WHEEL, "cublas", "lib", "libcublas.so.13"),
    "GPUTRACE_PROBE_CUDNN": os.path.join(WHEEL, "cudnn", "lib", "libcudnn.so.9"),
}


def doctor(env=None):
    e = dict(os.environ)
    e.pop("LD_LIBRARY_PATH", None)
    e.update(env or {})
    p = subprocess.run([GPUTRACE, "doctor", "--json"], env=e, capture_output=True, timeout=120)
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
        p = subprocess.run([GPUTRACE, "doctor"], capture_output=True, timeout=120,
                           env={k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"})
        out = p.stdout.decode()
        self.assertEqual(p.returncode, 1)
        self.assertIn("the first layer that fails: driver", out)
        self.assertIn("searched: ", out)


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


if __name__ == "__main__":
    unittest.main()
