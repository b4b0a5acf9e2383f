"""The driver stack (issue 21): the user-space driver against the kernel
module. Fake libcuda copies (fixtures/cuda_driver.c built with FILE_VERSION)
answer as the real driver does against the kernel module that an emulated
/proc/driver/nvidia shows: a tmpfs mounted over /proc/driver in a private
mount namespace (`unshare -m` as root, `unshare -rm` otherwise), holding
`version` and one GPU's `information`, in the real files' formats.

The GPU machine's case: kernel module 580.159.04, /usr/local/cuda/compat's
libcuda.so.580.95.05 (cuda-compat-13-0) first on LD_LIBRARY_PATH: error 803,
"system has unsupported display driver / cuda driver combination"."""
import json
import os
import subprocess
import tempfile
import shutil
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, PROGS

CUDA_OPS = os.path.join(PROGS, "cuda_ops")
KMOD = "580.159.04"
VERSION_TEXT = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  "
                "(dvs-builder@U22-I3-AF03-09-1)  Thu Oct 30 00:00:00 UTC 2025\n"
                "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n")
INFO_TEXT = "Model: \t\t %s\nIRQ:   \t\t 38\nGPU UUID: \t GPU-49b00a40\nBus Location: \t 0000:00:1e.0\n"

SETUP = """set -e
mount -t tmpfs none /proc/driver
mkdir -p /proc/driver/nvidia/gpus/0000:00:1e.0
cat "$GT_VERSION" > /proc/driver/nvidia/version
cat "$GT_INFO" > /proc/driver/nvidia/gpus/0000:00:1e.0/information
exec "$@"
"""


def unshare_argv():
    return ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-rm"]


def emulation_works():
    r = subprocess.run(unshare_argv() + ["sh", "-c", "mount -t tmpfs none /proc/driver"],
                       capture_output=True)
    return r.returncode == 0, r.stderr.decode(errors="replace").strip()


WORKS, WHY = emulation_works()


@unittest.skipUnless(WORKS, "no private mount namespace here (%s): the emulated "
                     "/proc/driver/nvidia cannot be made" % WHY)
class DriverAgainstKernelModule(unittest.TestCase):
    def run_in_raw(self, gpu, cmd, extra_env=None):
        """cmd, in a mount namespace whose /proc/driver/nvidia shows the
        module KMOD and one GPU of this model."""
        tmp = tempfile.mkdtemp(prefix="gt-kmod-")
        self.addCleanup(shutil.rmtree, tmp, True)
        version, info = os.path.join(tmp, "version"), os.path.join(tmp, "information")
        with open(version, "w") as f:
            f.write(VERSION_TEXT % KMOD)
        with open(info, "w") as f:
            f.write(INFO_TEXT % gpu)
        env = dict(os.environ, GT_VERSION=version, GT_INFO=info, **(extra_env or {}))
        return subprocess.run(unshare_argv() + ["sh", "-c", SETUP, "sh", *cmd], env=env,
                              capture_output=True, timeout=120)

    def run_in(self, gpu, driver_dir, traced, outdir=None):
        cmd = [GPUTRACE, "-q", "-o", outdir, "--", CUDA_OPS, "n"] if traced else [CUDA_OPS, "n"]
        return self.run_in_raw(gpu, cmd, {"LD_LIBRARY_PATH": os.path.join(FIX, driver_dir)})

    def diagnose(self, gpu, driver_dir):
        bare = self.run_in(gpu, driver_dir, False)
        outdir = tempfile.mkdtemp(prefix="gt-kmod-out-")
        self.addCleanup(shutil.rmtree, outdir, True)
        traced = self.run_in(gpu, driver_dir, True, outdir)
        self.assertEqual((traced.returncode, traced.stdout), (bare.returncode, bare.stdout), traced.stderr)
        rep = subprocess.run([GPUTRACE, "report", "--json", outdir], capture_output=True, timeout=120)
        return bare.stdout.decode().strip(), json.loads(rep.stdout), rep.returncode

    def mismatch(self, d):
        return [f for f in d["findings"] if f["id"] == "driver-mismatch"]

    def test_compat_older_than_the_module(self):
        """The GPU machine's run: the compat copy is older than the module: 803."""
        out, d, rc = self.diagnose("NVIDIA H200", "cuda-13.0/compat")
        self.assertEqual(out, "cudaGetDeviceCount=803")
        (f,) = self.mismatch(d)
        self.assertEqual(f["severity"], "error")
        self.assertEqual(rc, 1)
        self.assertIn("580.95.05", f["summary"])
        self.assertIn(KMOD, f["summary"])
        self.assertIn("older", f["summary"])
        self.assertIn(os.path.join(FIX, "cuda-13.0", "compat"), f["fix"])
        self.assertIn("LD_LIBRARY_PATH", f["fix"])
        caused = [e for e in f["evidence"] if e.get("caused_by") == "driver-mismatch"]
        self.assertEqual([(e["fn"], e["status"]) for e in caused], [("cudaGetDeviceCount", 803)])
        self.assertEqual(d["processes"][0]["ended"]["how"], "exit")

    def test_compat_newer_than_the_module_on_a_data_center_gpu(self):
        out, d, rc = self.diagnose("NVIDIA H200", "cuda-13.1/compat")
        self.assertEqual(out, "cudaGetDeviceCount=0")
        self.assertEqual(self.mismatch(d), [])
        self.assertEqual(rc, 0)

    def test_compat_on_a_geforce(self):
        out, d, rc = self.diagnose("NVIDIA GeForce RTX 4090", "cuda-13.1/compat")
        self.assertEqual(out, "cudaGetDeviceCount=804")
        (f,) = self.mismatch(d)
        self.assertIn("not supported on this GPU", f["summary"])
        self.assertIn("GeForce RTX 4090", json.dumps(f["evidence"]))

    def test_an_images_own_driver(self):
        out, d, rc = self.diagnose("NVIDIA H200", "image-driver")
        self.assertEqual(out, "cudaGetDeviceCount=803")
        (f,) = self.mismatch(d)
        self.assertIn("570.86.15", f["summary"])
        self.assertIn("another release", f["summary"])

    def test_an_images_nvml_newer_than_the_module(self):
        """nvidia-smi in a container whose image carries its own NVML:
        "Failed to initialize NVML: Driver/library version mismatch" (18)."""
        code = ("import ctypes, sys\n"
                "rc = ctypes.CDLL('libnvidia-ml.so.1').nvmlInit_v2()\n"
                "print('nvmlInit_v2', rc)\nsys.exit(1 if rc else 0)\n")
        env = {"LD_LIBRARY_PATH": os.path.join(FIX, "image-nvml")}
        bare = self.run_in_raw("NVIDIA H200", ["/usr/bin/python3", "-c", code], env)
        outdir = tempfile.mkdtemp(prefix="gt-kmod-out-")
        self.addCleanup(shutil.rmtree, outdir, True)
        traced = self.run_in_raw("NVIDIA H200", [GPUTRACE, "-q", "-o", outdir, "--", "/usr/bin/python3", "-c", code],
                                 env)
        self.assertEqual((traced.returncode, traced.stdout), (bare.returncode, bare.stdout), traced.stderr)
        self.assertEqual(bare.stdout.decode().strip(), "nvmlInit_v2 18")
        rep = subprocess.run([GPUTRACE, "report", "--json", outdir], capture_output=True, timeout=120)
        (f,) = self.mismatch(json.loads(rep.stdout))
        self.assertIn("libnvidia-ml.so.1 590.48.01", f["summary"])
        self.assertIn("another release", f["summary"])
        self.assertIn("libnvidia-ml.so.1", f["fix"])

    def test_scan_names_the_copies_this_module_cannot_use(self):
        """scan reads the module too: under a ROOT every copy is a warning
        (it breaks whatever puts it on the search path)."""
        r = self.run_in_raw("NVIDIA H200", [GPUTRACE, "scan", "--json", FIX])
        d = json.loads(r.stdout)
        self.assertEqual(d["kernel_module"], KMOD)
        self.assertEqual(d["gpus"], "NVIDIA H200")
        flagged = {e["path"]: f for f in d["findings"] if f["id"] == "driver-mismatch"
                   for e in f["evidence"] if "path" in e}
        compat_old = os.path.join(FIX, "cuda-13.0", "compat", "libcuda.so.580.95.05")
        flagged_files = {os.path.realpath(p): f for p, f in flagged.items()}
        self.assertIn(compat_old, flagged_files)
        # one finding per file, not one per name (libcuda.so, .so.1, .so.580.95.05)
        per_file = [f for f in d["findings"] if f["id"] == "driver-mismatch" and
                    any(os.path.realpath(e.get("path", "")) == compat_old for e in f["evidence"])]
        self.assertEqual(len(per_file), 1, [f["summary"] for f in per_file])
        self.assertIn("this one is older", flagged_files[compat_old]["summary"])
        self.assertEqual(flagged_files[compat_old]["severity"], "warning")
        self.assertIn(os.path.join(FIX, "image-driver", "libcuda.so.570.86.15"), flagged_files)
        self.assertNotIn(os.path.join(FIX, "cuda-13.1", "compat", "libcuda.so.590.44.01"), flagged_files)
        self.assertNotIn(os.path.join(FIX, "driver-host", "libcuda.so.580.159.04"), flagged_files)

    def test_the_hosts_matching_driver(self):
        out, d, rc = self.diagnose("NVIDIA H200", "driver-host")
        self.assertEqual(out, "cudaGetDeviceCount=0")
        self.assertEqual(d["findings"], [])
        self.assertEqual(rc, 0)
        (lib,) = [l for l in d["processes"][0]["libraries"] if l["component"] == "cuda"]
        self.assertEqual(lib["version"], KMOD)


if __name__ == "__main__":
    unittest.main()
