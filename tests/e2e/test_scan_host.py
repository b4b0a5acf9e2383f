"""gputrace scan, issue 30: verdicts that never say ok when something needed
is missing.

1. scan --for PROGRAM whose libcuda.so.1 (or any DT_NEEDED name) the loader
   would not find: library-not-found, an error, verdict error, exit 1.
2. A scan of the host itself tells apart no NVIDIA GPU, no driver and no
   device node (a fake /sys, /proc and /dev under GPUTRACE_SYSROOT; the real
   build host, which has neither GPU nor driver, says so too), with the paths
   looked at; a scan of ROOTs judges the files only."""
import json
import os
import subprocess
import unittest

from tests.e2e.test_scan import ScanCase, fix, make_cache, scan_raw


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class ForNotFound(ScanCase):
    """A program linked to the fixture runtime, on a host without libcuda.so.1."""

    def program(self):
        d = self.tmpdir()
        src, prog = os.path.join(d, "p.c"), os.path.join(d, "prog")
        write(src, "int main(void) { return 0; }\n")
        lib = fix("cuda-13/lib64")
        subprocess.run(["cc", "-o", prog, src, "-Wl,--no-as-needed", "-L" + lib, "-l:libcudart.so.13",
                        "-Wl,-rpath," + lib], check=True)
        cache = os.path.join(d, "ld.so.cache")
        if not make_cache([], cache):
            self.skipTest("ldconfig cannot write a cache here")
        return d, prog, {"GPUTRACE_LD_SO_CACHE": cache}

    def test_libcuda_not_found_is_an_error(self):
        d, prog, env = self.program()
        o = self.scan("--for", prog, d, env=env, rc=1)
        self.assertEqual(o["for"]["verdict"], "error")
        # judged as a trace of it would be (report/paper.h): the driver's own finding
        (f,) = self.findings(o, "driver-missing", mentioning="libcuda.so.1")
        self.assertEqual(f["severity"], "error")
        self.assertEqual(self.findings(o, "library-not-found"), [])
        (asked,) = [e for e in f["evidence"] if e.get("name") == "libcuda.so.1"]
        self.assertIn("libcudart.so.13", asked["requester"])
        self.assertTrue(asked.get("tried"), f["evidence"])
        text = scan_raw("--for", prog, d, env=env).stdout.decode()
        self.assertIn("libcuda.so.1: NOT FOUND", text)
        self.assertIn("verdict for %s: error" % prog, text)

    def test_libcuda_found_is_ok(self):
        d, prog, env = self.program()
        o = self.scan("--for", prog, d, env=dict(env, LD_LIBRARY_PATH=fix("driver")), rc=0)
        self.assertEqual(o["for"]["verdict"], "ok", [f["summary"] for f in o["findings"]])
        self.assertFalse(self.findings(o, "library-not-found"))

    def test_needed_name_not_found(self):
        d = self.tmpdir()
        src, prog = os.path.join(d, "p.c"), os.path.join(d, "prog")
        write(src, "int main(void) { return 0; }\n")
        lib = os.path.join(d, "gone")
        os.makedirs(lib)
        subprocess.run(["cp", fix("cuda-13/lib64/libcudart.so.13.0.96"), os.path.join(lib, "libcudart.so.13")],
                       check=True)
        subprocess.run(["cc", "-o", prog, src, "-Wl,--no-as-needed", "-L" + lib, "-l:libcudart.so.13"],
                       check=True)
        os.unlink(os.path.join(lib, "libcudart.so.13"))
        cache = os.path.join(d, "ld.so.cache")
        if not make_cache([], cache):
            self.skipTest("ldconfig cannot write a cache here")
        o = self.scan("--for", prog, d, env={"GPUTRACE_LD_SO_CACHE": cache}, rc=1)
        self.assertEqual(o["for"]["verdict"], "error")
        self.assertTrue(self.findings(o, "library-not-found", mentioning="libcudart.so.13"))


class HostGpuDriverNode(ScanCase):
    """scan with no ROOT: the host's GPU, driver and device nodes."""

    def sysroot(self, gpu=True, kmod=True, nodes=True):
        d = self.tmpdir()
        write(os.path.join(d, "sys/bus/pci/devices/0000:00:00.0/vendor"), "0x8086\n")
        write(os.path.join(d, "sys/bus/pci/devices/0000:00:00.0/class"), "0x060000\n")
        if gpu:
            write(os.path.join(d, "sys/bus/pci/devices/0000:17:00.0/vendor"), "0x10de\n")
            write(os.path.join(d, "sys/bus/pci/devices/0000:17:00.0/class"), "0x030200\n")
        if kmod:
            write(os.path.join(d, "proc/driver/nvidia/version"),
                  "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build\n")
        if nodes:
            write(os.path.join(d, "dev/nvidiactl"), "")
            write(os.path.join(d, "dev/nvidia0"), "")
        cache = os.path.join(d, "ld.so.cache")
        if not make_cache([], cache):
            self.skipTest("ldconfig cannot write a cache here")
        return d, {"GPUTRACE_SYSROOT": d, "GPUTRACE_LD_SO_CACHE": cache}

    def host_findings(self, o):
        return [f for f in o["findings"] if f["id"] in ("no-device", "driver-missing")]

    @staticmethod
    def cause(f):
        return [e["cause"] for e in f["evidence"] if "cause" in e]

    def test_no_gpu(self):
        d, env = self.sysroot(gpu=False, kmod=False, nodes=False)
        o = self.scan(env=env, rc=1)
        (f,) = self.host_findings(o)
        self.assertEqual((f["id"], self.cause(f)), ("no-device", ["no-gpu"]))
        self.assertIn("no NVIDIA GPU", f["summary"])
        paths = json.dumps(f["evidence"])
        for p in ("sys/bus/pci/devices", "proc/driver/nvidia/version", "dev/nvidiactl", "dev/nvidia0", "dev/dxg"):
            self.assertIn(os.path.join(d, p), paths)

    def test_no_driver(self):
        for kmod, llp in ((False, None), (True, None), (False, fix("driver"))):
            with self.subTest(kmod=kmod, libcuda=bool(llp)):
                d, env = self.sysroot(kmod=kmod, nodes=False)
                if llp:
                    env["LD_LIBRARY_PATH"] = llp
                (f,) = self.host_findings(self.scan(env=env, rc=1))
                self.assertEqual((f["id"], self.cause(f)), ("driver-missing", ["no-driver"]))
                self.assertIn("no NVIDIA driver", f["summary"])
                self.assertIn("no libcuda.so.1" if not llp else "no kernel module", f["summary"])

    def test_no_device_node(self):
        d, env = self.sysroot(nodes=False)
        env["LD_LIBRARY_PATH"] = fix("driver")
        (f,) = self.host_findings(self.scan(env=env, rc=1))
        self.assertEqual((f["id"], self.cause(f)), ("no-device", ["no-device-node"]))
        self.assertIn(os.path.join(d, "dev/nvidia0"), f["summary"])

    def test_all_there(self):
        d, env = self.sysroot()
        env["LD_LIBRARY_PATH"] = fix("driver")
        o = self.scan(env=env)
        self.assertEqual(self.host_findings(o), [])

    def test_wsl(self):
        d, env = self.sysroot(gpu=False, kmod=False, nodes=False)
        write(os.path.join(d, "dev/dxg"), "")
        env["LD_LIBRARY_PATH"] = fix("driver")
        self.assertEqual(self.host_findings(self.scan(env=env)), [])

    def test_text_says_which(self):
        d, env = self.sysroot(kmod=False, nodes=False)
        r = scan_raw(env=env)
        self.assertEqual(r.returncode, 1)
        out = r.stdout.decode()
        self.assertIn("driver-missing: no NVIDIA driver", out)
        self.assertIn(os.path.join(d, "proc/driver/nvidia/version"), out)

    def test_roots_judge_files_only(self):
        d, env = self.sysroot(gpu=False, kmod=False, nodes=False)
        o = self.scan(fix("system/lib"), env=env)
        self.assertEqual(self.host_findings(o), [])

    def test_real_host(self):
        """This build machine has no GPU and no driver: the scan says so."""
        if os.path.exists("/dev/nvidiactl") or os.path.exists("/proc/driver/nvidia/version"):
            self.skipTest("this host has an NVIDIA driver")
        o = self.scan(rc=1)
        (f,) = self.host_findings(o)
        self.assertTrue(set(self.cause(f)) <= {"no-gpu", "no-driver"}, f)


if __name__ == "__main__":
    unittest.main()
