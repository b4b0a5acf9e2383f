"""no-kernel-image end to end (issue 18): programs nvcc built here with one
-gencode set, run against the fake runtime with a device (FAKE_CUDA_CC,
FAKE_LAUNCH_STATUS), traced, and reported. The device line comes from the
program's own cudaGetDeviceProperties / cudaDeviceGetAttribute calls; the
fat binary is read from the program file itself."""
import json
import os
import shutil
import struct
import subprocess
import tempfile
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

    def test_222_ptx_of_a_newer_cuda_than_the_driver(self):
        # NVIDIA/nvbandwidth#61: driver 580 (CUDA 13.0), a program built with
        # CUDA 13.2 whose kernels run on the H100 only through PTX: every
        # launch answers 222 "the provided PTX was compiled with an
        # unsupported toolchain" (minor-version compatibility runs the 13.2
        # runtime, never its PTX). nvcc here is 13.0, so the program's PTX
        # entries are given the header of PTX ISA 9.2 (CUDA 13.2); the fake
        # driver is libcuda.so.580.65.06.
        d = tempfile.mkdtemp(prefix="gt-ptx-")
        prog = os.path.join(d, "launch_sm80_ptx92")
        shutil.copy(SM80_PTX, prog)
        self.assertEqual(set_ptx_isa(prog, 9, 2), 1)
        r = run_traced([prog], env=device_env("9.0", 222), opts=["-q"])
        self.assertEqual(r.proc.returncode, 1)
        (t,) = r.traces
        self.assertTrue(any(c.get("status") == 222 for c in t.events("call")))
        rc, doc = report_json(r.outdir)
        self.assertEqual(rc, 1)
        (f,) = findings(doc, "no-kernel-image")
        self.assertEqual(f["severity"], "error")
        self.assertIn("CUDA error 222", f["summary"])
        self.assertIn("the driver (CUDA 13.0) cannot compile the PTX of 1 of them (PTX of CUDA 13.2)", f["summary"])
        (e,) = [e for e in f["evidence"] if e.get("path") == prog]
        self.assertEqual((e["fit"], e["via"], e["ptx_isa"], e["ptx_needs_cuda"]), ("none", "compute_80", 92, "13.2"))
        self.assertIn("Upgrade the NVIDIA driver to one of CUDA 13.2", f["fix"])
        cleanup(r)
        # the same program as nvcc 13.0 made it (PTX ISA 9.0): the driver
        # compiles it, only the info line
        shutil.copy(SM80_PTX, prog)
        r = run_traced([prog], env=device_env("9.0"), opts=["-q"])
        rc, doc = report_json(r.outdir)
        self.assertEqual(rc, 0)
        self.assertEqual([f["severity"] for f in findings(doc, "no-kernel-image")], ["info"])
        cleanup(r)
        shutil.rmtree(d)


def set_ptx_isa(path, major, minor):
    """Writes major.minor as the PTX ISA version of every PTX entry of the
    file's fat binaries (entry header: kind u16 @0, header size u32 @4,
    payload size u64 @8, minor u16 @24, major u16 @26; host/fatbin.c).
    Returns how many entries it changed."""
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        changed, at = 0, 0
        while True:
            at = data.find(struct.pack("<I", 0xBA55ED50), at)
            if at < 0:
                break
            hsize, size = struct.unpack_from("<HQ", data, at + 6)
            entry, end = at + hsize, at + hsize + size
            while entry + 64 <= end:
                kind, ehsize, payload = struct.unpack_from("<HxxIQ", data, entry)
                if kind == 1:
                    struct.pack_into("<HH", data, entry + 24, minor, major)
                    changed += 1
                entry += ehsize + payload
            at = max(at + 4, end)
        f.seek(0)
        f.write(data)
    return changed


if __name__ == "__main__":
    unittest.main()
