"""no-kernel-image end to end (issue 18): programs nvcc built here with one
-gencode set, run against the fake runtime with a device (FAKE_CUDA_CC,
FAKE_LAUNCH_STATUS), traced, and reported. The device line comes from the
program's own cudaGetDeviceProperties / cudaDeviceGetAttribute calls; the
fat binary is read from the program file itself."""
import json
import os
import subprocess
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, cleanup, run_traced

KERNELS = os.path.join(FIX, "kernels")
SM80 = os.path.join(KERNELS, "launch_sm80")
SM80_PTX = os.path.join(KERNELS, "launch_sm80_ptx80")


def device_env(cc, launch_status=0):
    return {"LD_LIBRARY_PATH": os.path.join(FIX, "driver"), "FAKE_CUDA_CC": cc,
            "FAKE_CUDA_NAME": "NVIDIA H200", "FAKE_LAUNCH_STATUS": str(launch_status)}


def report_json(outdir):
    p = subprocess.run([GPUTRACE, "report", "--json", outdir], capture_output=True, text=True)
    return p.returncode, json.loads(p.stdout)


def findings(doc, fid):
    return [f for f in doc["findings"] if f["id"] == fid]


@unittest.skipUnless(os.path.exists(SM80) and os.path.exists(SM80_PTX), "nvcc not on this host")
class KernelImage(unittest.TestCase):
    def test_209_is_no_kernel_image(self):
        r = run_traced([SM80], env=device_env("9.0", 209), opts=["-q"])
        self.assertEqual(r.proc.returncode, 1)
        (t,) = r.traces
        dev = t.events("device")
        self.assertTrue(any(d.get("cc_major") == 9 and d.get("name") == "NVIDIA H200" for d in dev))
        self.assertTrue(any(c.get("status") == 209 for c in t.events("call")))
        rc, doc = report_json(r.outdir)
        self.assertEqual(rc, 1)
        (f,) = findings(doc, "no-kernel-image")
        self.assertEqual(f["severity"], "error")
        self.assertIn("sm_90", f["summary"])
        files = [e for e in f["evidence"] if e.get("path") == SM80]
        self.assertEqual(files[0]["carries"], ["sm_80"])
        self.assertTrue(any(e.get("status") == 209 and "caused by this" in e["what"] for e in f["evidence"]))
        text = subprocess.run([GPUTRACE, "report", r.outdir], capture_output=True, text=True).stdout
        self.assertIn("no-kernel-image", text)
        self.assertNotIn("no cause found", text)
        cleanup(r)

    def test_same_major_sass_is_healthy(self):
        for cc in ("8.0", "8.6", "8.9"):
            r = run_traced([SM80], env=device_env(cc), opts=["-q"])
            self.assertEqual(r.proc.returncode, 0)
            rc, doc = report_json(r.outdir)
            self.assertEqual(rc, 0)
            self.assertEqual(findings(doc, "no-kernel-image"), [], cc)
            cleanup(r)

    def test_ptx_jit_is_info(self):
        r = run_traced([SM80_PTX], env=device_env("9.0"), opts=["-q"])
        self.assertEqual(r.proc.returncode, 0)
        rc, doc = report_json(r.outdir)
        self.assertEqual(rc, 0)
        (f,) = findings(doc, "no-kernel-image")
        self.assertEqual(f["severity"], "info")
        self.assertIn("CUDA_CACHE_MAXSIZE", f["fix"])
        cleanup(r)

    def test_older_device_than_any_code(self):
        # compute 7.5 can run neither sm_80 nor compute_80: a warning without a 209
        r = run_traced([SM80_PTX], env=device_env("7.5"), opts=["-q"])
        rc, doc = report_json(r.outdir)
        (f,) = findings(doc, "no-kernel-image")
        self.assertEqual(f["severity"], "warning")
        cleanup(r)


if __name__ == "__main__":
    unittest.main()
