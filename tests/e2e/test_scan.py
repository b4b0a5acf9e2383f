"""gputrace scan: the CUDA library files of a host, audited without running them.

1. The copies a scan of the fixture trees finds (component, version from the
   file name or the pip RECORD, symlink chain, SONAME, ELF class and machine,
   the stub), and each finding on a layout made for it: mixed-versions,
   duplicate-library, broken-symlink, wrong-architecture, driver-stub,
   shadowed-library.
2. Agreement with the real loader (issue 5, acceptance 1): for each fixture
   layout, `scan --json --for CONSUMER` names the same file for every CUDA
   library as the loader really opens under gputrace, with the same
   LD_LIBRARY_PATH in both runs.
3. Bad input (acceptance 2): unreadable folders, symlink loops, truncated and
   corrupt ELF files, lib*.so files that are not ELF, a corrupt ld.so.cache,
   each reported in one line (a note or a finding), never a crash; a bad
   --for FILE is one stderr line and exit status 2."""
import json
import os
import glob
import random
import re
import shutil
import struct
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import unfold, FIX, GPUTRACE, traces_in, value

# Variables that steer loading or the scan: each test sets its own.
STEERING = ("LD_LIBRARY_PATH", "LD_PRELOAD", "CUDA_HOME", "CONDA_PREFIX", "VIRTUAL_ENV",
            "GPUTRACE_LD_SO_CACHE", "FAKE_CUDA_DEVICES", "FAKE_DRIVER_VERSION",
            "FAKE_CUDA_INIT_RESULT", "FAKE_CUDA_MEM_BYTES", "FAKE_CUDART_FAIL")
FINDINGS = {"driver-stub": "error", "mixed-versions": "error", "shadowed-library": "warning",
            "duplicate-library": None, "broken-symlink": "warning", "wrong-architecture": "warning"}
COPY_KEYS = ("path", "real_path", "chain", "where", "family", "component", "version",
             "version_source", "soname", "stub", "in_ld_so_cache", "package")
EM_386, EM_X86_64, EM_AARCH64 = 3, 62, 183
WHEEL = os.path.join(FIX, "site-packages", "nvidia")


def fix(rel):
    return os.path.join(FIX, rel)


def clean_env(env=None):
    e = {k: v for k, v in os.environ.items() if k not in STEERING}
    e.update(env or {})
    return e


def scan_raw(*args, env=None, cwd=None, user=None):
    argv = [GPUTRACE, "scan", *args]
    if user is not None:
        argv = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups", *argv]
    return subprocess.run(argv, env=clean_env(env), capture_output=True, timeout=120, cwd=cwd)


def real(p):
    return os.path.realpath(p) if p else None


def cuda_cache_dir():
    """The folder the host's ld.so.cache names for libcudart.so.13, or None."""
    out = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True).stdout.decode(errors="replace")
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("libcudart.so.13 ") and "x86-64" in line:
            return os.path.dirname(line.split("=> ", 1)[1])
    return None


def make_cache(dirs, path):
    """An ld.so.cache of dirs (and the trusted folders), written by ldconfig."""
    conf = path + ".conf"
    with open(conf, "w") as f:
        f.write("".join(d + "\n" for d in dirs))
    r = subprocess.run(["/sbin/ldconfig", "-X", "-C", path, "-f", conf], capture_output=True)
    return r.returncode == 0 and os.path.exists(path)


def elf32_file():
    """A real 32-bit x86 shared object on this host, or None."""
    for p in ("/usr/lib32/libc.so.6", "/lib32/libc.so.6", "/usr/lib/i386-linux-gnu/libc.so.6",
              "/usr/libexec/valgrind/vgpreload_core-x86-linux.so"):
        try:
            with open(p, "rb") as f:
                head = f.read(20)
        except OSError:
            continue
        if head[:4] == b"\x7fELF" and head[4] == 1 and struct.unpack("<H", head[18:20])[0] == EM_386:
            return p
    return None


class ScanCase(unittest.TestCase):
    maxDiff = None

    def tmpdir(self):
        d = tempfile.mkdtemp(prefix="gt-scan-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def scan(self, *args, env=None, cwd=None, user=None, rc=None):
        """scan --json ARGS: the parsed object, its contract checked."""
        r = scan_raw("--json", *args, env=env, cwd=cwd, user=user)
        err = r.stderr.decode(errors="replace")
        self.assertIn(r.returncode, (0, 1), "exit %d: %s" % (r.returncode, err[-3000:]))
        self.assertNotIn("runtime error", err)
        self.assertNotIn("AddressSanitizer", err)
        o = json.loads(r.stdout)
        self.assertEqual((o["format"], o["version"]), ("gputrace-scan", 1))
        self.assertIsInstance(o["copies"], list)
        for f in o["findings"]:
            self.assertIn(f["severity"], ("error", "warning", "info"), f)
            self.assertTrue(f["summary"] and f["fix"], f)
            self.assertTrue(f["evidence"], f)
            if FINDINGS.get(f["id"]):
                self.assertEqual(f["severity"], FINDINGS[f["id"]], f)
        for n in o["notes"]:
            self.assertIsInstance(n, str)
            self.assertNotIn("\n", n)
        errors = [f for f in o["findings"] if f["severity"] == "error"]
        self.assertEqual(r.returncode, 1 if errors else 0, [f["id"] for f in o["findings"]])
        if rc is not None:
            self.assertEqual(r.returncode, rc)
        return o

    @staticmethod
    def copy_at(o, path):
        found = [c for c in o["copies"] if c["path"] == path]
        return found[0] if len(found) == 1 else None

    def findings(self, o, fid, mentioning=None):
        out = [f for f in o["findings"] if f["id"] == fid]
        if mentioning is not None:
            out = [f for f in out if mentioning in json.dumps(f)]
        return out


class ScanCopies(ScanCase):
    """What one scan of the fixture trees says about each copy."""

    @classmethod
    def setUpClass(cls):
        r = scan_raw("--json", FIX)
        cls.rc, cls.obj = r.returncode, json.loads(r.stdout)
        cls.text = scan_raw(FIX).stdout.decode(errors="replace")

    def copy(self, rel):
        c = self.copy_at(self.obj, fix(rel))
        self.assertIsNotNone(c, "%s in the scan" % rel)
        self.assertEqual(c["where"], "root")
        return c

    def test_wheel_copy_has_package_version(self):
        c = self.copy("site-packages/nvidia/cudnn/lib/libcudnn.so.9")
        self.assertEqual((c["family"], c["component"]), ("cudnn", "cudnn"))
        self.assertEqual(c["version"], "9.19.0.56")
        self.assertEqual(c["version_source"], "package")
        self.assertEqual(c["package"], {"manager": "pip", "name": "nvidia-cudnn-cu13", "version": "9.19.0.56"})
        self.assertEqual((c["soname"], c["elf_class"], c["machine"]), ("libcudnn.so.9", 64, EM_X86_64))
        self.assertEqual(c["chain"], [c["path"]])
        self.assertEqual(c["real_path"], c["path"])
        self.assertFalse(c["stub"])
        sub = self.copy("site-packages/nvidia/cudnn/lib/libcudnn_graph.so.9")
        self.assertEqual((sub["component"], sub["version"]), ("cudnn_graph", "9.19.0.56"))
        rt = self.copy("site-packages/nvidia/cuda_runtime/lib/libcudart.so.13")
        self.assertEqual((rt["family"], rt["package"]["name"], rt["version"]),
                         ("cudart", "nvidia-cuda-runtime", "13.0.96"))
        lt = self.copy("site-packages/nvidia/cublas/lib/libcublasLt.so.13")
        self.assertEqual((lt["family"], lt["component"], lt["package"]["name"]),
                         ("cublas", "cublasLt", "nvidia-cublas"))

    def test_system_copy_version_from_file_name_and_chain(self):
        c = self.copy("system/lib/libcudnn.so.9")
        self.assertEqual(c["real_path"], fix("system/lib/libcudnn.so.9.14.0"))
        self.assertEqual(c["chain"], [fix("system/lib/libcudnn.so.9"), "libcudnn.so.9.14.0"])
        self.assertEqual((c["version"], c["version_source"]), ("9.14.0", "file"))
        self.assertIsNone(c["package"])
        self.assertEqual(c["soname"], "libcudnn.so.9")
        dev = self.copy("system/lib/libcudnn.so")
        self.assertEqual(len(dev["chain"]), 3, dev["chain"])
        self.assertEqual(dev["real_path"], c["real_path"])
        f = self.copy("system/lib/libcudnn_engines_precompiled.so.9.14.0")
        self.assertEqual((f["component"], f["version"], f["soname"]),
                         ("cudnn_engines_precompiled", "9.14.0", "libcudnn_engines_precompiled.so.9"))

    def test_old_toolkit_copies(self):
        c = self.copy("cuda-11.8/lib64/libcudart.so.11.0")
        self.assertEqual((c["soname"], c["version"]), ("libcudart.so.11.0", "11.8.89"))
        c = self.copy("cuda-11.8/lib64/libcudnn.so.8")
        self.assertEqual(c["version"], "8.6.0")
        c = self.copy("cuda-12/lib64/libcublasLt.so.12.4.5.8")
        self.assertEqual((c["component"], c["version"], c["soname"]),
                         ("cublasLt", "12.4.5.8", "libcublasLt.so.12"))
        c = self.copy("driver/libcuda.so.1")
        self.assertEqual((c["family"], c["version"], c["stub"]), ("driver", "580.65.06", False))

    def test_stub_is_marked(self):
        for rel in ("cuda-13/lib64/stubs/libcuda.so", "cuda-13/lib64/stubs/libcuda.so.1"):
            c = self.copy(rel)
            self.assertTrue(c["stub"], rel)
            self.assertEqual(c["family"], "driver")
        self.assertEqual([c["path"] for c in self.obj["copies"] if c["stub"]],
                         [c["path"] for c in self.obj["copies"] if "/stubs/" in c["path"]])
        self.assertIn("(stub)", self.text)

    def test_every_fixture_library_found_once(self):
        want = set()
        for dirpath, _, files in os.walk(FIX):
            if "/scenarios" in dirpath or "/torch-cpu" in dirpath:
                continue
            for name in files:
                if name.startswith(("libcud", "libcublas")) and ".so" in name:
                    want.add(os.path.join(dirpath, name))
        paths = [c["path"] for c in self.obj["copies"]]
        self.assertEqual(len(paths), len(set(paths)), "each path once")
        self.assertEqual(want - set(paths), set())
        self.assertFalse([p for p in paths if "libtorchlike" in p or "libsc_" in p], "only CUDA libraries")

    def test_findings_and_status(self):
        self.assertEqual(self.obj["notes"], [])
        dup = self.findings(self.obj, "duplicate-library", mentioning=fix("system/lib/"))
        dup = [f for f in dup if fix("site-packages/nvidia/cudnn/lib/libcudnn.so.9") in json.dumps(f)]
        self.assertEqual(len(dup), 1, "one duplicate-library for libcudnn.so.9")
        self.assertNotIn("mixed-versions", [f["id"] for f in self.obj["findings"]])
        self.assertEqual(self.rc, 0)
        self.assertIn("pip:nvidia-cudnn-cu13", self.text.replace(" ", ""))

    def test_json_keys(self):
        """Every copy has every key, null when unknown (a broken link has no
        real_path, a file that is no ELF no soname)."""
        d = tempfile.mkdtemp(prefix="gt-scan-")
        self.addCleanup(shutil.rmtree, d, True)
        os.symlink("libcudnn.so.9.99.0", os.path.join(d, "libcudnn.so.9"))
        with open(os.path.join(d, "libcudart.so.13"), "w") as f:
            f.write("text\n")
        o = json.loads(scan_raw("--json", d).stdout)
        for c in self.obj["copies"] + o["copies"]:
            for k in COPY_KEYS:
                self.assertIn(k, c, c["path"])

    def test_text_lists_every_copy(self):
        head = self.text.splitlines()[0]
        files = {c["real_path"] or c["path"] for c in self.obj["copies"]}
        self.assertEqual(self.obj["files"], len(files))
        self.assertIn("%d CUDA library files (%d names)" % (len(files), len(self.obj["copies"])), head)
        self.assertIn("; %d findings" % len(self.obj["findings"]), head)


class ScanFindings(ScanCase):
    """One layout per finding, made in a temporary folder from fixture files."""

    def place(self, d, src_rel, name, link_names=()):
        os.makedirs(d, exist_ok=True)
        shutil.copy(fix(src_rel), os.path.join(d, name))
        for ln in link_names:
            os.symlink(name, os.path.join(d, ln))
        return os.path.join(d, name)

    def test_mixed_versions_cudnn9(self):
        d = self.tmpdir()
        self.place(d, "system/lib/libcudnn.so.9.14.0", "libcudnn.so.9.14.0", ["libcudnn.so.9"])
        self.place(d, "system/lib/libcudnn_graph.so.9.14.0", "libcudnn_graph.so.9.14.0")
        self.place(d, "site-packages/nvidia/cudnn/lib/libcudnn_ops.so.9", "libcudnn_ops.so.9.19.0",
                   ["libcudnn_ops.so.9"])
        o = self.scan(d, rc=1)
        f = self.findings(o, "mixed-versions")
        self.assertEqual(len(f), 1, o["findings"])
        self.assertIn("9.14.0", f[0]["summary"])
        self.assertIn("9.19.0", f[0]["summary"])
        self.assertIn(d, f[0]["summary"])
        self.assertIn(os.path.join(d, "libcudnn_ops.so.9"), json.dumps(f[0]["evidence"]))

    def test_mixed_versions_cudnn8(self):
        d = self.tmpdir()
        self.place(d, "cuda-11.8/lib64/libcudnn.so.8.6.0", "libcudnn.so.8.6.0", ["libcudnn.so.8"])
        self.place(d, "cuda-12/lib64/libcudnn_ops_infer.so.8.9.7", "libcudnn_ops_infer.so.8.9.7",
                   ["libcudnn_ops_infer.so.8"])
        o = self.scan(d, rc=1)
        f = self.findings(o, "mixed-versions")
        self.assertTrue(f, o["findings"])
        self.assertIn("8.6.0", f[0]["summary"])
        self.assertIn("8.9.7", f[0]["summary"])
        self.assertIn(d, f[0]["summary"])

    def test_one_version_is_not_mixed(self):
        d = self.tmpdir()
        for name in ("libcudnn.so.9.14.0", "libcudnn_graph.so.9.14.0", "libcudnn_ops.so.9.14.0"):
            self.place(d, "system/lib/" + name, name, [name[:-5]])
        o = self.scan(d, rc=0)
        self.assertEqual(o["findings"], [])
        self.assertEqual(len(o["copies"]), 6)

    def test_duplicate_library(self):
        d = self.tmpdir()
        a = self.place(os.path.join(d, "a"), "system/lib/libcudart.so.13.0.96", "libcudart.so.13.0.96",
                       ["libcudart.so.13"])
        b = self.place(os.path.join(d, "b", "lib"), "site-packages/nvidia/cuda_runtime/lib/libcudart.so.13",
                       "libcudart.so.13")
        o = self.scan(d)
        f = self.findings(o, "duplicate-library")
        self.assertEqual(len(f), 1, o["findings"])
        self.assertIn("libcudart.so.13", f[0]["summary"])
        paths = {real(e.get("real_path") or e.get("path")) for e in f[0]["evidence"]}
        self.assertEqual(paths, {real(a), real(b)})

    def test_links_to_one_file_are_no_duplicate(self):
        d = self.tmpdir()
        self.place(d, "system/lib/libcudart.so.13.0.96", "libcudart.so.13.0.96", ["libcudart.so.13"])
        os.symlink("libcudart.so.13", os.path.join(d, "libcudart.so"))
        o = self.scan(d, rc=0)
        self.assertEqual(self.findings(o, "duplicate-library"), [])

    def test_broken_symlink(self):
        d = self.tmpdir()
        link = os.path.join(d, "libcudnn.so.9")
        os.symlink("libcudnn.so.9.99.0", link)
        o = self.scan(d)
        c = self.copy_at(o, link)
        self.assertIsNotNone(c)
        self.assertIsNone(c.get("real_path"))
        self.assertEqual(c["chain"], [link, "libcudnn.so.9.99.0"])
        f = self.findings(o, "broken-symlink")
        self.assertEqual(len(f), 1)
        self.assertIn(link, f[0]["summary"])

    def test_broken_links_of_one_folder_are_one_finding(self):
        """A package removed under its links (cuDNN's libcudnn_*.so.9 left
        pointing at .so.9.1.0 files that are gone): one cause, one finding
        per folder, every link in its evidence."""
        d = self.tmpdir()
        other = os.path.join(d, "other")
        os.makedirs(other)
        names = ["libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9"]
        for n in names:
            os.symlink(n + ".1.0", os.path.join(d, n))
        os.symlink("libcublas.so.12.1.0", os.path.join(other, "libcublas.so.12"))
        o = self.scan(d)
        f = self.findings(o, "broken-symlink", mentioning=os.path.join(d, "libcudnn"))
        self.assertEqual(len(f), 1, [x["summary"] for x in o["findings"]])
        self.assertIn("3 broken links in %s: " % d, f[0]["summary"])
        for n in names:
            self.assertIn(n, f[0]["summary"])
        self.assertEqual(sorted(e["path"] for e in f[0]["evidence"]), sorted(os.path.join(d, n) for n in names))
        self.assertTrue(all(e.get("chain") for e in f[0]["evidence"]))
        g = self.findings(o, "broken-symlink", mentioning=os.path.join(other, "libcublas.so.12"))
        self.assertEqual(len(g), 1)
        self.assertIn(os.path.join(other, "libcublas.so.12") + " is a broken link", g[0]["summary"])

    def arch_layout(self):
        """A folder of lib*.so files the loader refuses: not ELF, 32-bit, aarch64."""
        d = self.tmpdir()
        with open(os.path.join(d, "libcudart.so.13"), "w") as f:
            f.write("this is not a library\n")
        arm = self.place(d, "cuda-12/lib64/libcublas.so.12.4.5.8", "libcublas.so.12")
        with open(arm, "r+b") as f:
            f.seek(18)
            f.write(struct.pack("<H", EM_AARCH64))
        e32 = elf32_file()
        if e32:
            shutil.copy(e32, os.path.join(d, "libcudart.so.12"))
        return d, e32

    def test_wrong_architecture_in_loader_folder(self):
        d, e32 = self.arch_layout()
        o = self.scan(env={"LD_LIBRARY_PATH": d})
        text = os.path.join(d, "libcudart.so.13")
        arm = os.path.join(d, "libcublas.so.12")
        f = self.findings(o, "wrong-architecture", mentioning=text)
        self.assertEqual(len(f), 1, [x["summary"] for x in o["findings"]])
        self.assertIn(text, f[0]["summary"])
        f = self.findings(o, "wrong-architecture", mentioning=arm)
        self.assertEqual(len(f), 1)
        self.assertEqual((self.copy_at(o, arm)["elf_class"], self.copy_at(o, arm)["machine"]), (64, EM_AARCH64))
        if e32:
            p32 = os.path.join(d, "libcudart.so.12")
            f = self.findings(o, "wrong-architecture", mentioning=p32)
            self.assertEqual(len(f), 1)
            self.assertIn("32", f[0]["summary"])
            self.assertEqual((self.copy_at(o, p32)["elf_class"], self.copy_at(o, p32)["machine"]), (32, EM_386))
        for c in o["copies"]:
            if c["path"].startswith(d + "/"):
                self.assertEqual(c["where"], "ld_library_path")

    def test_wrong_architecture_under_root(self):
        """Under a ROOT the copies still show their class and machine, and the
        file that is no ELF at all is reported (one line)."""
        d, e32 = self.arch_layout()
        o = self.scan(d)
        arm = self.copy_at(o, os.path.join(d, "libcublas.so.12"))
        self.assertEqual((arm["elf_class"], arm["machine"]), (64, EM_AARCH64))
        if e32:
            c = self.copy_at(o, os.path.join(d, "libcudart.so.12"))
            self.assertEqual((c["elf_class"], c["machine"], c["soname"]), (32, EM_386, "libc.so.6"))
        text = os.path.join(d, "libcudart.so.13")
        said = [n for n in o["notes"] if text in n] + \
            [f for f in o["findings"] if text in json.dumps(f)]
        self.assertEqual(len(said), 1, "the non-ELF %s reported once under a ROOT: %s" % (text, o))

    def test_driver_stub_on_ld_library_path(self):
        stubs = fix("cuda-13/lib64/stubs")
        o = self.scan(env={"LD_LIBRARY_PATH": stubs}, rc=1)
        f = self.findings(o, "driver-stub")
        self.assertTrue(f, [x["id"] for x in o["findings"]])
        self.assertTrue(all(stubs in x["summary"] for x in f))
        self.assertIn(os.path.join(stubs, "libcuda.so.1"), json.dumps(f))
        c = self.copy_at(o, os.path.join(stubs, "libcuda.so"))
        self.assertTrue(c["stub"])
        self.assertEqual(c["where"], "ld_library_path")

    def test_stub_under_root_is_no_error(self):
        o = self.scan(fix("cuda-13"), rc=0)
        self.assertEqual(self.findings(o, "driver-stub"), [])

    def test_shadowed_library_own_cache(self):
        """LD_LIBRARY_PATH's copy of libcudart.so.13 hides the one an
        ld.so.cache (made here by ldconfig) names."""
        d = self.tmpdir()
        cached = self.place(os.path.join(d, "cached"), "system/lib/libcudart.so.13.0.96", "libcudart.so.13")
        llp = self.place(os.path.join(d, "llp"), "site-packages/nvidia/cuda_runtime/lib/libcudart.so.13",
                         "libcudart.so.13")
        cache = os.path.join(d, "ld.so.cache")
        if not make_cache([os.path.dirname(cached)], cache):
            self.skipTest("ldconfig cannot write a cache here")
        o = self.scan(env={"LD_LIBRARY_PATH": os.path.dirname(llp), "GPUTRACE_LD_SO_CACHE": cache})
        f = self.findings(o, "shadowed-library", mentioning=llp)
        self.assertEqual(len(f), 1, [x["summary"] for x in o["findings"]])
        self.assertIn(cached, f[0]["summary"])
        self.assertTrue(self.copy_at(o, cached)["in_ld_so_cache"])
        self.assertFalse(self.copy_at(o, llp)["in_ld_so_cache"])
        self.assertEqual(o["notes"], [])

    def test_shadowed_library_host_cache(self):
        cdir = cuda_cache_dir()
        if not cdir:
            self.skipTest("no libcudart.so.13 in this host's ld.so.cache")
        d = self.place(self.tmpdir(), "system/lib/libcudart.so.13.0.96", "libcudart.so.13")
        o = self.scan(env={"LD_LIBRARY_PATH": os.path.dirname(d)})
        f = self.findings(o, "shadowed-library", mentioning=d)
        self.assertEqual(len(f), 1)
        self.assertIn(os.path.join(cdir, "libcudart.so.13"), json.dumps(f[0]))

    def test_not_elf_on_llp_shadows_nothing(self):
        """The loader skips a file that is no ELF and goes on: it hides nothing."""
        d = self.tmpdir()
        cached = self.place(os.path.join(d, "cached"), "system/lib/libcudart.so.13.0.96", "libcudart.so.13")
        bad = os.path.join(d, "llp", "libcudart.so.13")
        os.makedirs(os.path.dirname(bad))
        with open(bad, "w") as f:
            f.write("not a library\n")
        cache = os.path.join(d, "ld.so.cache")
        if not make_cache([os.path.dirname(cached)], cache):
            self.skipTest("ldconfig cannot write a cache here")
        o = self.scan(env={"LD_LIBRARY_PATH": os.path.dirname(bad), "GPUTRACE_LD_SO_CACHE": cache})
        self.assertTrue(self.findings(o, "wrong-architecture", mentioning=bad))
        self.assertEqual(self.findings(o, "shadowed-library", mentioning=bad), [])


# ---- 2. agreement with the real loader ----

# (name, consumer, command, LD_LIBRARY_PATH entries). The consumer is what
# --for gets; the command loads it (a scenario program, or python3 ctypes
# that loads the consumer by its path and calls init, which makes cuDNN load
# its sub-libraries). Paths are relative to the fixtures folder.
PY_LOAD = ("import ctypes, sys\n"
           "lib = ctypes.CDLL(sys.argv[1])\n"
           "for fn in sys.argv[2:]:\n"
           "    f = getattr(lib, fn)\n"
           "    f.restype = ctypes.c_size_t\n"
           "    f() if fn.endswith('Version') else f(ctypes.byref(ctypes.c_void_p()))\n")
LAYOUTS = [
    ("torchlike_rpath", "site-packages/torchlike/lib/libtorchlike_cuda.so",
     ["scenarios/sc_torchlike"], ["driver"]),
    ("torchlike_system_cudnn_on_llp", "site-packages/torchlike/lib/libtorchlike_cuda.so",
     ["scenarios/sc_torchlike"], ["system/lib", "driver"]),
    ("torchlike_cudart_on_llp", "site-packages/torchlike/lib/libtorchlike_cuda.so",
     ["scenarios/sc_torchlike"], ["cuda-13/lib64", "driver"]),
    ("cudnn9_wheel", "site-packages/nvidia/cudnn/lib/libcudnn.so.9",
     ["scenarios/sc_cudnn9", "site-packages/nvidia/cudnn/lib"], ["site-packages/nvidia/cuda_runtime/lib"]),
    ("cudnn9_wheel_cudart_from_cache", "site-packages/nvidia/cudnn/lib/libcudnn.so.9",
     ["scenarios/sc_cudnn9", "site-packages/nvidia/cudnn/lib"], []),
    ("cudnn9_system", "system/lib/libcudnn.so.9",
     ["scenarios/sc_cudnn9", "system/lib"], []),
    ("cudnn9_system_wheel_on_llp", "system/lib/libcudnn.so.9",
     ["scenarios/sc_cudnn9", "system/lib"], ["site-packages/nvidia/cudnn/lib"]),
    ("cudnn8_toolkit", "cuda-12/lib64/libcudnn.so.8",
     ["scenarios/sc_cudnn8"], ["cuda-12/lib64", "driver"]),
    ("cudnn8_leftover", "cuda-11.8/lib64/libcudnn.so.8",
     ["scenarios/sc_cudnn8"], ["cuda-11.8/lib64", "cuda-12/lib64", "driver"]),
    ("bundle8_runpath", "bundle8/lib/libfw8.so", ["scenarios/sc_bundle8"], ["driver"]),
    ("bundle8_leftover_on_llp", "bundle8/lib/libfw8.so", ["scenarios/sc_bundle8"],
     ["cuda-11.8/lib64", "driver"]),
    ("cublas_wheel_runpath", "site-packages/nvidia/cublas/lib/libcublas.so.13",
     ["@py", "site-packages/nvidia/cublas/lib/libcublas.so.13"], []),
    ("cublas_toolkit_wheel_lt_on_llp", "cuda-12/lib64/libcublas.so.12",
     ["@py", "cuda-12/lib64/libcublas.so.12"], ["site-packages/nvidia/cublas/lib"]),
    ("cuda_driver_on_llp", "cuda-13/lib64/libcudart.so.13", ["scenarios/sc_cuda"], ["driver"]),
    ("cuda_stub_on_llp", "cuda-13/lib64/libcudart.so.13", ["scenarios/sc_cuda"], ["cuda-13/lib64/stubs"]),
    ("cudnn9_wheel_by_ctypes", "site-packages/nvidia/cudnn/lib/libcudnn.so.9",
     ["@py", "site-packages/nvidia/cudnn/lib/libcudnn.so.9", "cudnnGetVersion"],
     ["system/lib"]),
]


def component_of(name):
    """libcudnn_ops_infer.so.8.9.7 -> libcudnn_ops_infer: the library a name
    stands for, whatever the version suffix cuDNN asked with."""
    return name.split(".so", 1)[0]


class LoaderAgreement(ScanCase):
    """scan --for CONSUMER predicts the file the loader opens, name by name."""

    def traced(self, argv, env):
        outdir = self.tmpdir()
        r = subprocess.run([GPUTRACE, "-q", "-o", outdir, "--", *argv], env=clean_env(env),
                           capture_output=True, timeout=120, cwd=FIX)
        traces = traces_in(outdir)
        self.assertTrue(traces, r.stderr.decode(errors="replace"))
        return r, traces

    @staticmethod
    def loader_choices(traces):
        """{name: realpath or None} for every name the loader searched or
        opened, first answer per name, over all processes."""
        out = {}
        for t in traces:
            for o in t.lines:
                if o.get("ev") == "open" and value(o, "name"):
                    out.setdefault(value(o, "name"), real(value(o, "path")))
                elif o.get("ev") == "search_end" and o.get("result") == "not_found":
                    out.setdefault(value(o, "name"), None)
        return out

    def check_layout(self, name, consumer, cmd, llp):
        env = {"LD_LIBRARY_PATH": ":".join(fix(p) for p in llp)} if llp else {}
        consumer = fix(consumer)
        if cmd[0] == "@py":
            argv = ["/usr/bin/python3", "-c", PY_LOAD, fix(cmd[1]), *cmd[2:]]
        else:
            argv = [fix(cmd[0]), *cmd[1:]]
        o = self.scan("--for", consumer, FIX, env=env)
        self.assertEqual(real(o["for"]["consumer"]), real(consumer))
        res = o["for"]["resolutions"]
        self.assertTrue(res, "%s: the scan resolved nothing" % name)
        _, traces = self.traced(argv, env)
        loader = self.loader_choices(traces)

        by_component = {}
        for r in res:
            if r["path"]:
                by_component.setdefault(component_of(r["name"]), real(r["path"]))
        compared, wrong = [], []
        for r in res:
            n = r["name"]
            if n in loader:
                got, want = real(r["path"]), loader[n]
            elif component_of(n) in {component_of(k) for k in loader if loader[k]} and r["path"]:
                # cuDNN asked under another version suffix: same library, same file?
                k = [k for k in loader if loader[k] and component_of(k) == component_of(n)][0]
                got, want = real(r["path"]), loader[k]
            else:
                continue
            compared.append(n)
            if got != want:
                wrong.append("%s: scan %s [%s], loader %s" % (n, got, r.get("rule"), want))
        # and every CUDA library the loader opened on the consumer's behalf was predicted
        for k, v in loader.items():
            if v and component_of(k).startswith(("libcudnn", "libcublas", "libcudart")) and \
                    component_of(k) not in by_component and real(consumer) != v and \
                    not k.startswith("/"):
                wrong.append("%s: loader %s, the scan has no answer" % (k, v))
        self.assertTrue(compared, "%s: no name in common; scan %s, loader %s"
                        % (name, [r["name"] for r in res], sorted(loader)))
        self.assertEqual(wrong, [], "%s (LD_LIBRARY_PATH=%s)" % (name, env.get("LD_LIBRARY_PATH")))
        return compared

    def test_layouts(self):
        self.assertGreaterEqual(len(LAYOUTS), 10)
        for layout in LAYOUTS:
            with self.subTest(layout=layout[0]):
                self.check_layout(*layout)

    def test_torchlike_rules(self):
        """The names and rules the issue cares about, on the torch-like layout."""
        o = self.scan("--for", fix("site-packages/torchlike/lib/libtorchlike_cuda.so"),
                      env={"LD_LIBRARY_PATH": fix("system/lib")})
        res = {r["name"]: r for r in o["for"]["resolutions"]}
        self.assertEqual(res["libcudnn.so.9"]["rule"], "rpath")
        self.assertEqual(real(res["libcudnn.so.9"]["path"]), fix("site-packages/nvidia/cudnn/lib/libcudnn.so.9"))
        self.assertEqual(res["libcudnn_graph.so.9"]["rule"], "ld_library_path")
        self.assertEqual(real(res["libcudnn_graph.so.9"]["path"]), fix("system/lib/libcudnn_graph.so.9.14.0"))
        self.assertIsNone(res["libcudnn_graph.so.9.19.0"]["path"])
        self.assertTrue(res["libcudnn_graph.so.9.19.0"]["tried"])
        self.assertTrue(self.findings(o, "shadowed-library", mentioning="libcudnn_graph.so.9"))
        self.assertEqual(res["libcudnn_graph.so.9"]["requester"].rsplit("/", 1)[1], "libcudnn.so.9")

    def test_text_for(self):
        r = scan_raw("--for", fix("bundle8/lib/libfw8.so"), fix("bundle8"))
        out = unfold(r.stdout.decode())  # a long build path folds under its name
        self.assertIn(r.returncode, (0, 1))
        self.assertIn("libcudnn.so.8 -> ", out)
        self.assertIn("[runpath]", out)
        # the consumer's tree is the answer: no host listing before it
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith("gputrace scan --for %s: " % fix("bundle8/lib/libfw8.so")), lines[0])
        self.assertTrue(lines[1].startswith("for "), lines[:3])

    def test_text_for_a_consumer_without_cuda(self):
        """Every name is resolved (issue 33): the tree, then the sentence."""
        r = scan_raw("--for", "/bin/sh", fix("bundle8"))
        self.assertEqual(r.returncode, 0)
        out = r.stdout.decode()
        self.assertIn("/bin/sh needs no CUDA library", out)
        self.assertRegex(out, r"\n  libc\.so\.6 -> \S+ \[")


# ---- 3. bad input ----

class BadInput(ScanCase):

    def said_once(self, o, path):
        """path is told of once: in a note, or in one finding (its summary, or
        one evidence line of a finding that groups a folder's files)."""
        lines = [n for n in o["notes"] if path in n] + \
            [f["summary"] for f in o["findings"]
             if path in f["summary"] or any(e.get("path") == path for e in f["evidence"])]
        self.assertEqual(len(lines), 1, "%s reported in one line: notes %s, findings %s"
                         % (path, o["notes"], [f["summary"] for f in o["findings"]]))
        return lines[0]

    def test_unreadable_folder(self):
        d = self.tmpdir()
        os.chmod(d, 0o755)
        shutil.copy(fix("system/lib/libcudart.so.13.0.96"), os.path.join(d, "libcudart.so.13"))
        closed = os.path.join(d, "closed")
        os.makedirs(os.path.join(closed, "lib"))
        shutil.copy(fix("system/lib/libcudart.so.13.0.96"), os.path.join(closed, "lib", "libcudart.so.13"))
        os.chmod(closed, 0)
        self.addCleanup(os.chmod, closed, 0o755)
        user = None
        if os.geteuid() == 0:
            if not shutil.which("setpriv"):
                self.skipTest("root reads any folder, and no setpriv to drop that")
            user = 65534
        o = self.scan(d, user=user)
        self.assertIn("closed", self.said_once(o, closed))
        self.assertIsNotNone(self.copy_at(o, os.path.join(d, "libcudart.so.13")), "the rest is scanned")

    def test_missing_root_and_file_for_folder(self):
        d = self.tmpdir()
        missing = os.path.join(d, "no-such-folder")
        # a ROOT that does not exist is a typo, not an empty host (issue 16)
        r = scan_raw("--json", missing, fix("system/lib"))
        self.assertEqual((r.returncode, r.stdout), (2, b""))
        self.assertIn(missing + ": No such file or directory", r.stderr.decode())
        # a file where LD_LIBRARY_PATH expects a folder: no crash, the rest scanned
        f = os.path.join(d, "file")
        open(f, "w").close()
        self.scan(env={"LD_LIBRARY_PATH": f + ":" + fix("system/lib")})

    def test_symlink_loop(self):
        d = self.tmpdir()
        os.symlink("libcudnn_b.so.9", os.path.join(d, "libcudnn.so.9"))
        os.symlink("libcudnn.so.9", os.path.join(d, "libcudnn_b.so.9"))
        os.symlink(".", os.path.join(d, "lib"))  # a folder loop too
        o = self.scan(d)
        line = self.said_once(o, os.path.join(d, "libcudnn.so.9"))
        self.assertLess(len(line), 2000, "a loop is named, not unrolled: %s" % line[:300])
        c = self.copy_at(o, os.path.join(d, "libcudnn.so.9"))
        self.assertIsNone(c.get("real_path"))
        text = scan_raw(d).stdout.decode()
        self.assertIn("libcudnn.so.9", text)

    def bad_elf_folder(self):
        d = self.tmpdir()
        good = open(fix("system/lib/libcudnn.so.9.14.0"), "rb").read()
        files = {
            "libcudnn_graph.so.9": good[:100],                      # truncated inside the headers
            "libcudnn_ops.so.9": good[:3000],                       # truncated after them
            "libcudnn_cnn.so.9": good[:16] + b"\xff" * 48 + good[64:],   # corrupt ELF header
            "libcudnn_adv.so.9": good[:0x28] + b"\xff" * 8 + good[0x30:],  # e_shoff far away
            "libcudart.so": b"/* GNU ld script */\nINPUT(-lcudart_static)\n",
            "libcublas.so.13": b"",                                 # empty
            "libcudnn_heuristic.so.9": bytes(random.Random(5).getrandbits(8) for _ in range(4096)),
            "libcudnn_engines_precompiled.so.9": b"\x7fELF" + bytes(random.Random(6).getrandbits(8)
                                                                    for _ in range(2000)),
        }
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        return d, sorted(files)

    def test_bad_elf_files_under_root(self):
        d, names = self.bad_elf_folder()
        o = self.scan(d)
        self.assertEqual(len(o["copies"]), len(names))
        for n in names:
            with self.subTest(file=n):
                c = self.copy_at(o, os.path.join(d, n))
                self.assertIsNone(c.get("soname"))
                self.said_once(o, os.path.join(d, n))

    def test_bad_elf_files_on_ld_library_path(self):
        d, names = self.bad_elf_folder()
        o = self.scan(env={"LD_LIBRARY_PATH": d})
        for n in names:
            with self.subTest(file=n):
                f = self.findings(o, "wrong-architecture", mentioning=os.path.join(d, n))
                self.assertEqual(len(f), 1)

    def test_bad_elf_as_for(self):
        d, names = self.bad_elf_folder()
        for n in names:
            with self.subTest(file=n):
                r = scan_raw("--for", os.path.join(d, n), d)
                self.assertEqual(r.returncode, 2, r.stderr)
                err = r.stderr.decode()
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn(n, err)
                self.assertEqual(r.stdout, b"")

    def test_corrupt_ld_so_cache(self):
        d = self.tmpdir()
        src = "/etc/ld.so.cache"
        real_cache = open(src, "rb").read() if os.path.exists(src) else b""
        rng = random.Random(11)
        cases = {
            "empty": b"",
            "short": real_cache[:10],
            "head": real_cache[:47],
            "truncated": real_cache[:len(real_cache) // 2],
            "random": bytes(rng.getrandbits(8) for _ in range(8192)),
            "magic-only": b"glibc-ld.so.cache1.1" + bytes(rng.getrandbits(8) for _ in range(200)),
            "old-magic": b"ld.so-1.7.0" + bytes(rng.getrandbits(8) for _ in range(500)),
        }
        if real_cache.startswith(b"glibc-ld.so.cache1.1"):
            big = bytearray(real_cache)
            big[20:24] = struct.pack("<I", 0xFFFFFFF0)          # nlibs far too many
            cases["nlibs"] = bytes(big)
            off = bytearray(real_cache)
            for i in range(min(8, struct.unpack("<I", real_cache[20:24])[0])):
                e = 48 + 24 * i
                off[e + 4:e + 8] = struct.pack("<I", 0x7FFFFFF0)  # key string far outside
                off[e + 8:e + 12] = struct.pack("<I", len(real_cache) - 1)  # value not terminated
            cases["offsets"] = bytes(off)
        for label, data in cases.items():
            with self.subTest(cache=label):
                p = os.path.join(d, "cache-" + label)
                with open(p, "wb") as f:
                    f.write(data)
                o = self.scan(fix("system/lib"), env={"GPUTRACE_LD_SO_CACHE": p})
                self.assertIsNotNone(self.copy_at(o, fix("system/lib/libcudnn.so.9")), label)
                self.said_once(o, p)
                # and the loader-place scan, with --for, does not fall over either
                o = self.scan("--for", fix("site-packages/torchlike/lib/libtorchlike_cuda.so"),
                              env={"GPUTRACE_LD_SO_CACHE": p})
                self.said_once(o, p)
        with self.subTest(cache="missing"):
            p = os.path.join(d, "no-cache-here")
            o = self.scan(fix("system/lib"), env={"GPUTRACE_LD_SO_CACHE": p})
            self.said_once(o, p)

    def test_for_missing_text_and_folder(self):
        d = self.tmpdir()
        text = os.path.join(d, "notes.txt")
        with open(text, "w") as f:
            f.write("hello\n")
        for p in (os.path.join(d, "missing"), text, d):
            with self.subTest(consumer=p):
                r = scan_raw("--for", p, fix("system/lib"))
                self.assertEqual(r.returncode, 2)
                err = r.stderr.decode()
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn(p, err)
                self.assertEqual(r.stdout, b"")

    def test_bad_usage(self):
        for args in (["--no-such-option"], ["--for"]):
            with self.subTest(args=args):
                r = scan_raw(*args)
                self.assertEqual(r.returncode, 2)
                self.assertTrue(r.stderr.strip())
                self.assertEqual(r.stdout, b"")

    def test_relative_paths(self):
        """A ROOT given as a relative file name (no slash in it at all)."""
        o = self.scan("libcudnn.so.9", cwd=fix("system/lib"))
        self.assertEqual(len(o["copies"]), 1)
        self.assertEqual(o["copies"][0]["soname"], "libcudnn.so.9")
        o = self.scan("lib", cwd=fix("system"))
        self.assertTrue(o["copies"])


def build_lib(d, name, rodata):
    """A shared library named `name` whose .rodata holds the string `rodata`."""
    src = os.path.join(d, "v.c")
    with open(src, "w") as f:
        f.write('const char gt_marker[] = "%s";\nconst char *gt_get(void) { return gt_marker; }\n' % rodata)
    out = os.path.join(d, name)
    subprocess.run(["cc", "-shared", "-fPIC", "-Wl,-soname," + name, "-o", out, src], check=True)
    os.unlink(src)
    return out


class ScanOutputIssue16(ScanCase):
    """scan's output (issue 16): one line per real file, the version a file
    carries, one finding per cause with a count in the header, --for's verdict."""

    place = ScanFindings.place

    def test_relative_root_lists_as_the_absolute_one(self):
        """A ROOT given relative to the working folder: each file once, its
        links folded as with the absolute ROOT (it used to list the file as a
        link of itself, by its relative name, and drop the shortest link)."""
        d = self.tmpdir()
        os.makedirs(os.path.join(d, "lib"))
        shutil.copy(fix("system/lib/libcudart.so.13.0.96"), os.path.join(d, "lib", "libcudart.so.13.0.96"))
        os.symlink("libcudart.so.13.0.96", os.path.join(d, "lib", "libcudart.so.13"))
        os.symlink("libcudart.so.13", os.path.join(d, "lib", "libcudart.so"))
        absolute = scan_raw(os.path.join(d, "lib")).stdout.decode()
        relative = scan_raw("lib", cwd=d).stdout.decode()
        self.assertIn(os.path.join(d, "lib", "libcudart.so.13.0.96") + " [root] <- libcudart.so, libcudart.so.13",
                      unfold(relative))
        self.assertEqual(relative.replace(os.path.join(d, "lib"), "ROOT"),
                         absolute.replace(os.path.join(d, "lib"), "ROOT"))
        o = self.scan("lib", cwd=d, rc=0)
        self.assertEqual(sorted(c["path"] for c in o["copies"]),
                         sorted(os.path.join(d, "lib", n) for n in ("libcudart.so", "libcudart.so.13",
                                                                     "libcudart.so.13.0.96")))

    def test_one_text_line_per_real_file(self):
        d = self.tmpdir()
        os.makedirs(os.path.join(d, "lib"))
        shutil.copy(fix("system/lib/libcudart.so.13.0.96"), os.path.join(d, "lib", "libcudart.so.13.0.96"))
        os.symlink("libcudart.so.13.0.96", os.path.join(d, "lib", "libcudart.so.13"))
        os.symlink("libcudart.so.13", os.path.join(d, "lib", "libcudart.so"))
        r = scan_raw(d)
        lines = unfold(r.stdout.decode()).splitlines()
        self.assertIn("1 CUDA library files (3 names)", lines[0])
        file_lines = [l for l in lines[1:] if "libcudart" in l]
        self.assertEqual(len(file_lines), 1, lines)
        self.assertIn(os.path.join(d, "lib", "libcudart.so.13.0.96") + " [root] <- libcudart.so, libcudart.so.13",
                      file_lines[0])
        o = self.scan(d, rc=0)
        self.assertEqual((o["files"], len(o["copies"])), (1, 3))
        self.assertEqual(self.copy_at(o, os.path.join(d, "lib", "libcudart.so"))["chain"],
                         [os.path.join(d, "lib", "libcudart.so"), "libcudart.so.13", "libcudart.so.13.0.96"])

    def test_version_the_file_carries(self):
        d = self.tmpdir()
        build_lib(d, "libcudnn_graph.so.9", "cudnn_version_9_3_0_75_")
        build_lib(d, "libnccl.so.2", "NCCL version 2.21.5+cuda12.4")
        build_lib(d, "libcudnn_ops.so.9", "no version here")
        o = self.scan(d, rc=0)
        got = {c["component"]: (c["version"], c["version_source"]) for c in o["copies"]}
        self.assertEqual(got, {"cudnn_graph": ("9.3.0.75", "embedded"), "nccl": ("2.21.5", "embedded"),
                               "cudnn_ops": ("9", "file")})
        self.assertIn("9.3.0.75", scan_raw(d).stdout.decode())

    def test_real_cudnn_graph_version(self):
        graph = glob.glob("/usr/local/cuda*/lib*/libcudnn_graph.so.9")
        if not graph:
            self.skipTest("no real cuDNN 9 here")
        with open(graph[0], "rb") as f:
            data = f.read()
        m = re.search(rb"cudnn_version_(\d+)_(\d+)_(\d+)_(\d+)_", data)
        if not m:
            self.skipTest("this cuDNN carries no version string")
        o = self.scan(os.path.dirname(graph[0]))
        c = self.copy_at(o, graph[0])
        self.assertEqual((c["version"], c["version_source"]), (b".".join(m.groups()).decode(), "embedded"))

    def stale_folder(self, d):
        """Three cuDNN 9.14 parts in d/old and their 9.19 copies in d/new."""
        for name in ("libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9"):
            self.place(os.path.join(d, "old"), "system/lib/%s.14.0" % name, name)
            self.place(os.path.join(d, "new"), "site-packages/nvidia/cudnn/lib/" + name, name)

    def test_one_duplicate_finding_per_cause(self):
        d = self.tmpdir()
        self.stale_folder(d)
        self.place(os.path.join(d, "x"), "system/lib/libcudart.so.13.0.96", "libcudart.so.13")
        self.place(os.path.join(d, "y"), "site-packages/nvidia/cuda_runtime/lib/libcudart.so.13", "libcudart.so.13")
        o = self.scan(d)
        dup = self.findings(o, "duplicate-library")
        self.assertEqual(len(dup), 2, [f["summary"] for f in dup])
        cudnn = [f for f in dup if "libcudnn" in f["summary"]][0]
        names = [e for e in cudnn["evidence"] if "names" in e][0]["names"]
        self.assertEqual(sorted(names), ["libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9"])
        self.assertIn("3 libraries", cudnn["summary"])
        self.assertEqual(len([e for e in cudnn["evidence"] if "path" in e]), 6)
        cudart = [f for f in dup if "libcudart" in f["summary"]][0]
        self.assertNotIn("names", json.dumps(cudart["evidence"]))
        head = scan_raw(d).stdout.decode().splitlines()[0]
        self.assertIn("; %d findings" % len(o["findings"]), head)

    def test_one_shadowed_finding_per_folder(self):
        d = self.tmpdir()
        self.stale_folder(d)
        cache = os.path.join(d, "ld.so.cache")
        if not make_cache([os.path.join(d, "new")], cache):
            self.skipTest("ldconfig cannot write a cache here")
        o = self.scan(env={"LD_LIBRARY_PATH": os.path.join(d, "old"), "GPUTRACE_LD_SO_CACHE": cache})
        sh = self.findings(o, "shadowed-library", mentioning=os.path.join(d, "old"))
        self.assertEqual(len(sh), 1, [f["summary"] for f in sh])
        self.assertIn("3 libraries", sh[0]["summary"])
        self.assertEqual(len([e for e in sh[0]["evidence"] if e.get("shadowed")]), 3)
        self.assertEqual({c["where"] for c in o["copies"] if c["path"].startswith(os.path.join(d, "old"))},
                         {"ld_library_path"})
        self.assertIn("[LD_LIBRARY_PATH]", scan_raw(env={"LD_LIBRARY_PATH": os.path.join(d, "old"),
                                                         "GPUTRACE_LD_SO_CACHE": cache}).stdout.decode())

    def test_for_verdict_mixed_versions(self):
        """--for a program whose cuDNN front comes from d/new (9.19) and whose
        graph library LD_LIBRARY_PATH's d/old (9.14) would give: mixed-versions
        on the predicted set, verdict error, exit 1; without that
        LD_LIBRARY_PATH, verdict ok (the graph library's own 9.19.0.56)."""
        d = self.tmpdir()
        old, new = os.path.join(d, "old"), os.path.join(d, "new")
        self.place(old, "system/lib/libcudnn_graph.so.9.14.0", "libcudnn_graph.so.9.14.0", ["libcudnn_graph.so.9"])
        self.place(new, "site-packages/nvidia/cudnn/lib/libcudnn.so.9", "libcudnn.so.9.19.0", ["libcudnn.so.9"])
        build_lib(new, "libcudnn_graph.so.9", "cudnn_version_9_19_0_56_")
        # ok needs all it needs (issue 30): the runtime, the driver, cuDNN's other parts
        for sub in ("engines_precompiled", "engines_runtime_compiled", "heuristic", "ops", "cnn", "adv"):
            build_lib(new, "libcudnn_%s.so.9" % sub, "cudnn_version_9_19_0_56_")
        shutil.copy(fix("cuda-13/lib64/libcudart.so.13.0.96"), os.path.join(new, "libcudart.so.13"))
        shutil.copy(fix("driver/libcuda.so.580.65.06"), os.path.join(new, "libcuda.so.1"))
        prog = os.path.join(d, "prog")
        src = os.path.join(d, "p.c")
        with open(src, "w") as f:
            f.write("int main(void) { return 0; }\n")
        # The fixture front needs libcudart.so.13, which a fresh host has
        # nowhere the link editor looks: the program itself only names it.
        subprocess.run(["cc", "-o", prog, src, "-Wl,--no-as-needed", "-L" + new, "-l:libcudnn.so.9",
                        "-Wl,--allow-shlib-undefined", "-Wl,-rpath," + new], check=True)
        cache = os.path.join(d, "ld.so.cache")
        if not make_cache([new], cache):
            self.skipTest("ldconfig cannot write a cache here")
        env = {"GPUTRACE_LD_SO_CACHE": cache}
        r = scan_raw("--json", "--for", prog, d, env=dict(env, LD_LIBRARY_PATH=old))
        o = json.loads(r.stdout)
        self.assertEqual(o["for"]["verdict"], "error", [f["summary"] for f in o["findings"]])
        self.assertEqual(r.returncode, 1)
        # the trace's rule judges the program on paper (report/paper.h): its words
        (f,) = [f for f in o["findings"] if f["id"] == "mixed-versions"]
        said = json.dumps(f)
        self.assertIn("9.14.0", said)
        self.assertIn("9.19.0", said)
        text = scan_raw("--for", prog, d, env=dict(env, LD_LIBRARY_PATH=old)).stdout.decode()
        self.assertIn("verdict for %s: error" % prog, text)
        r = scan_raw("--json", "--for", prog, d, env=env)
        healthy = json.loads(r.stdout)
        self.assertEqual(healthy["for"]["verdict"], "ok", [f["summary"] for f in healthy["findings"]])
        self.assertEqual(r.returncode, 0)


if __name__ == "__main__":
    unittest.main()
