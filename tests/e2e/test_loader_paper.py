"""The loader on paper against the real one (issue 33): `scan --for FILE`
against ldd (LD_TRACE_LOADED_OBJECTS=1 ld.so FILE) on layouts made for each
numbered item of the issue, and a random sample of the host's real files
(tests/difftest/difftest.py; `make difftest` runs all of them).

1. every name, not only CUDA names: a program linked to the real
   libnvblas.so.13 reaches cuBLAS through it; a missing non-CUDA library
   anywhere is an error with its requester
2. breadth-first: a name needed by the program and by its library is found
   with the program's RUNPATH (/usr/lib/systemd/systemd; and a copy of its
   layout), and a chain deeper than 6 is followed to the end
3. DT_RPATH of every object up the chain, the intermediate ones included
4. ld.so.cache's glibc-hwcaps entries: the best this CPU takes
5. $PLATFORM as ld.so has it (AT_PLATFORM)
6. LD_PRELOAD objects first, satisfying later names by SONAME (decoys)
7. a truncated file: the loader's own words
8. a set-user-ID copy: secure mode (LD_LIBRARY_PATH ignored, $ORIGIN limited)
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import GPUTRACE

RTLD = "/lib64/ld-linux-x86-64.so.2"
STEERING = ("LD_LIBRARY_PATH", "LD_PRELOAD", "GPUTRACE_LD_SO_CACHE")
HERE = os.path.dirname(os.path.abspath(__file__))
DIFFTEST = os.path.join(HERE, "..", "difftest", "difftest.py")
NVBLAS = "/usr/local/cuda-13.0/lib64/libnvblas.so.13"


def clean_env(extra=None):
    e = {k: v for k, v in os.environ.items() if k not in STEERING}
    e.update(extra or {})
    return e


def ldd(path, env=None):
    """{name: path or None} as ldd lists it (vdso and ld.so left out), and stderr."""
    r = subprocess.run([RTLD, path], env=clean_env(dict(env or {}, LD_TRACE_LOADED_OBJECTS="1")),
                       capture_output=True, timeout=60)
    got = {}
    for line in r.stdout.decode().splitlines():
        m = re.match(r"^\t(.+?) => (.+?)(?: \(0x[0-9a-f]+\))?$", line)
        if m and not m.group(1).startswith("linux-vdso"):
            got[m.group(1)] = None if m.group(2) == "not found" else m.group(2)
        m = re.match(r"^\t(\S+) \(0x[0-9a-f]+\)$", line)  # a preload, or ld.so: the name is the path
        if m and not m.group(1).startswith("linux-vdso") and m.group(1) != RTLD:
            got[m.group(1)] = m.group(1)
    return got, r.stderr.decode()


def ldso_platform():
    out = subprocess.run([RTLD, "--help"], capture_output=True).stdout.decode()
    m = re.search(r"^  (\S+) \(AT_PLATFORM", out, re.M)
    return m.group(1) if m else None


def ldso_hwcaps():
    out = subprocess.run([RTLD, "--help"], capture_output=True).stdout.decode()
    part = out.split("Subdirectories of glibc-hwcaps directories", 1)[-1].split("\n\n", 1)[0]
    return re.findall(r"^  (x86-64-v\d) \(supported, searched\)", part, re.M)


class LoaderCase(unittest.TestCase):

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="gt-ldp-")
        os.chmod(self.d, 0o755)
        self.addCleanup(shutil.rmtree, self.d, True)

    def path(self, *parts):
        p = os.path.join(self.d, *parts)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def cc(self, out, needs=(), soname=None, rpath=None, runpath=None, extra=(), program=False):
        """A tiny ELF file at out that needs the files in needs (by their SONAME)."""
        src = self.path("src", os.path.basename(out) + ".c")
        with open(src, "w") as f:
            f.write("int %s(void) { return 0; }\n" % re.sub(r"\W", "_", os.path.basename(out)))
            if program:
                f.write("int main(void) { return 0; }\n")
        argv = ["cc", "-o", self.path(out), src, "-Wl,--no-as-needed"]
        if not program:
            argv += ["-shared", "-fPIC"]
        if soname:
            argv.append("-Wl,-soname," + soname)
        flags = []
        if rpath is not None:
            flags += ["-Wl,--disable-new-dtags", "-Wl,-rpath," + rpath]
        if runpath is not None:
            flags += ["-Wl,--enable-new-dtags", "-Wl,-rpath," + runpath]
        for n in needs:
            argv.append(n if os.path.isabs(n) else self.path(n))
        subprocess.run(argv + flags + list(extra), check=True, capture_output=True)
        return self.path(out)

    def scan_for(self, path, env=None):
        r = subprocess.run([GPUTRACE, "scan", "--json", "--for", path], env=clean_env(env),
                           capture_output=True, timeout=120)
        self.assertIn(r.returncode, (0, 1), r.stderr.decode())
        o = json.loads(r.stdout)
        o["rc"] = r.returncode
        return o

    @staticmethod
    def objects(o):
        """{name: path} of what scan --for says the loader lists at start."""
        return {x["name"]: x["path"] for x in o["for"]["objects"]
                if x["how"] != "dlopen" and not x["rtld"] and x["path"] != RTLD}

    def same_as_ldd(self, path, env=None):
        o = self.scan_for(path, env)
        theirs, _ = ldd(path, env)
        self.assertEqual(self.objects(o), theirs)
        return o

    def finding(self, o, fid, mentioning):
        return [f for f in o["findings"] if f["id"] == fid and mentioning in json.dumps(f)]


class EveryName(LoaderCase):
    """Item 1."""

    @unittest.skipUnless(os.path.exists(NVBLAS), NVBLAS + " is not here")
    def test_libnvblas_program_reaches_cublas(self):
        prog = self.cc("bin/blas", needs=[NVBLAS], program=True, extra=["-Wl,-rpath," + os.path.dirname(NVBLAS)])
        o = self.same_as_ldd(prog)
        names = self.objects(o)
        self.assertIn("libnvblas.so.13", names)
        self.assertIn("libcublas.so.13", names)
        text = subprocess.run([GPUTRACE, "scan", "--for", prog], env=clean_env(), capture_output=True).stdout
        self.assertNotIn(b"needs no CUDA library", text)

    def test_missing_library_under_a_plain_one_is_an_error_with_its_requester(self):
        gone = self.cc("gone/libgone.so", soname="libgone.so")
        mid = self.cc("lib/libmid.so", soname="libmid.so", needs=[gone])
        prog = self.cc("bin/p", needs=[mid], program=True, runpath="$ORIGIN/../lib")
        os.unlink(gone)
        o = self.same_as_ldd(prog)
        self.assertIsNone(self.objects(o)["libgone.so"])
        (f,) = self.finding(o, "library-not-found", "libgone.so")
        self.assertEqual(f["severity"], "error")
        self.assertIn("/lib/libmid.so", f["summary"])
        self.assertEqual(o["for"]["verdict"], "error")
        self.assertEqual(o["rc"], 1)

    def test_healthy_program_is_ok(self):
        mid = self.cc("lib/libmid.so", soname="libmid.so")
        prog = self.cc("bin/p", needs=[mid], program=True, runpath="$ORIGIN/../lib")
        o = self.same_as_ldd(prog)
        self.assertEqual(o["for"]["verdict"], "ok", [f["summary"] for f in o["findings"]])
        self.assertEqual(o["rc"], 0)


class BreadthFirst(LoaderCase):
    """Item 2."""

    @unittest.skipUnless(os.path.exists("/usr/lib/systemd/systemd"), "no systemd here")
    def test_systemd(self):
        o = self.same_as_ldd("/usr/lib/systemd/systemd")
        self.assertTrue(self.objects(o)["libsystemd-shared-252.so"] if "libsystemd-shared-252.so" in
                        self.objects(o) else True)
        self.assertEqual(o["for"]["verdict"], "ok", [f["summary"] for f in o["findings"]])

    def test_systemd_layout(self):
        """The program's RUNPATH finds the shared library its core library
        (no RUNPATH) needs too: the program asks first."""
        shared = self.cc("lib/sd/libshared.so", soname="libshared.so")
        core = self.cc("lib/sd/libcore.so", soname="libcore.so", needs=[shared])
        prog = self.cc("bin/sd", needs=[core, shared], program=True, runpath=self.path("lib/sd"))
        o = self.same_as_ldd(prog)
        self.assertEqual(self.objects(o)["libshared.so"], shared)
        self.assertEqual(o["for"]["verdict"], "ok", [f["summary"] for f in o["findings"]])

    def test_deep_chain(self):
        prev = []
        for i in range(9, -1, -1):
            lib = self.cc("lib/libdeep%d.so" % i, soname="libdeep%d.so" % i, needs=prev, runpath="$ORIGIN")
            prev = [lib]
        prog = self.cc("bin/deep", needs=prev, program=True, runpath="$ORIGIN/../lib")
        o = self.same_as_ldd(prog)
        self.assertEqual(sorted(n for n in self.objects(o) if n.startswith("libdeep")),
                         sorted("libdeep%d.so" % i for i in range(10)))


class RpathChain(LoaderCase):
    """Item 3: libC is found only through libA's DT_RPATH, two loaders up."""

    def test_three_library_chain(self):
        libc_ = self.cc("dC/libC.so", soname="libC.so")
        libb = self.cc("dB/libB.so", soname="libB.so", needs=[libc_])
        liba = self.cc("dA/libA.so", soname="libA.so", needs=[libb], rpath=self.path("dB") + ":" + self.path("dC"))
        prog = self.cc("bin/chain", needs=[liba], program=True, rpath=self.path("dA"))
        o = self.same_as_ldd(prog)
        (r,) = [x for x in o["for"]["resolutions"] if x["name"] == "libC.so"]
        self.assertEqual((r["path"], r["rule"]), (libc_, "rpath"))
        self.assertTrue(r["requester"].endswith("libB.so"))


class HwcapsCache(LoaderCase):
    """Item 4: a private cache with glibc-hwcaps entries for one name."""

    def test_best_hwcaps_entry(self):
        levels = ("x86-64-v2", "x86-64-v3", "x86-64-v4")
        base = self.cc("L/libh.so.1", soname="libh.so.1")
        for lv in levels:
            self.cc("L/glibc-hwcaps/%s/libh.so.1" % lv, soname="libh.so.1")
        prog = self.cc("bin/h", needs=[base], program=True)
        conf, cache = self.path("ld.so.conf"), self.path("ld.so.cache")
        with open(conf, "w") as f:
            f.write(self.path("L") + "\n")
        r = subprocess.run(["/sbin/ldconfig", "-X", "-C", cache, "-f", conf], capture_output=True)
        if r.returncode != 0:
            self.skipTest("ldconfig cannot write a cache here")
        listed = subprocess.run(["/sbin/ldconfig", "-p", "-C", cache], capture_output=True).stdout.decode()
        self.assertIn('hwcap: "x86-64-v2"', listed)
        cpu = [lv for lv in ldso_hwcaps() if lv in levels]
        want = self.path("L/glibc-hwcaps/%s/libh.so.1" % cpu[0]) if cpu else base
        o = self.scan_for(prog, {"GPUTRACE_LD_SO_CACHE": cache})
        (res,) = [x for x in o["for"]["resolutions"] if x["name"] == "libh.so.1"]
        self.assertEqual((res["path"], res["rule"]), (want, "ld_so_cache"))


class Platform(LoaderCase):
    """Item 5."""

    def test_platform_is_the_loaders(self):
        plat = ldso_platform()
        if not plat:
            self.skipTest("ld.so --help names no AT_PLATFORM")
        lib = self.cc("lib/%s/libplat.so" % plat, soname="libplat.so")
        prog = self.cc("bin/plat", needs=[lib], program=True, rpath="$ORIGIN/../lib/$PLATFORM")
        o = self.same_as_ldd(prog)
        self.assertEqual(self.objects(o)["libplat.so"], self.path("bin/../lib/%s/libplat.so" % plat))


class Preload(LoaderCase):
    """Item 6: preloaded objects answer later names by their SONAME."""

    def test_decoys(self):
        good = self.cc("lib/libdec.so.1", soname="libdec.so.1")
        decoy = self.cc("decoy/libdecoy.so", soname="libdec.so.1")
        other = self.cc("llp/libother.so", soname="libother.so")
        prog = self.cc("bin/dec", needs=[good], program=True, rpath="$ORIGIN/../lib")
        env = {"LD_PRELOAD": decoy + " libother.so:libnothere.so", "LD_LIBRARY_PATH": self.path("llp")}
        o = self.same_as_ldd(prog, env)
        names = self.objects(o)
        self.assertNotIn("libdec.so.1", names)  # answered by the decoy: no search, nothing listed
        self.assertEqual(names[decoy], decoy)
        self.assertEqual(names["libother.so"], other)
        (r,) = [x for x in o["for"]["resolutions"] if x["name"] == "libdec.so.1" and x["how"] == "needed"]
        self.assertEqual((r["path"], r["rule"]), (decoy, "preload"))
        (f,) = self.finding(o, "library-not-found", "libnothere.so")
        self.assertEqual(f["severity"], "warning")
        # without the preload, the program's own copy
        self.assertEqual(self.objects(self.same_as_ldd(prog))["libdec.so.1"], self.path("bin/../lib/libdec.so.1"))


class Truncated(LoaderCase):
    """Item 7: a file cut short is refused, in the loader's words."""

    def test_truncated_library(self):
        lib = self.cc("lib/libcut.so", soname="libcut.so")
        with open(lib, "rb") as f:
            whole = f.read()
        prog = self.cc("bin/cut", needs=[lib], program=True, runpath="$ORIGIN/../lib")
        for size, words in ((10, "file too short"), (100, "cannot read file data"),
                            (len(whole) // 2, "file too short for its segments")):
            with self.subTest(size=size):
                with open(lib, "wb") as f:
                    f.write(whole[:size])
                o = self.scan_for(prog)
                (r,) = [x for x in o["for"]["resolutions"] if x["name"] == "libcut.so"]
                self.assertIsNone(r["path"])
                self.assertTrue(r["error"].startswith(words), r["error"])
                self.assertEqual(o["for"]["verdict"], "error")
                _, err = ldd(prog)
                if size < 200:  # the loader's own message; past the headers it dies of SIGBUS
                    self.assertIn("%s: %s" % (self.path("bin/../lib/libcut.so"), words), err)


    def test_refused_files_in_the_loaders_words(self):
        """Files the loader opens and refuses: our words are ldd's."""
        lib = self.cc("lib/libx.so", soname="libx.so")
        prog = self.cc("bin/x", needs=[lib], program=True, runpath="$ORIGIN/../lib")
        pie = self.cc("src/pie", program=True, extra=["-pie", "-fPIE"])
        exe = self.cc("src/exe", program=True, extra=["-no-pie"])
        with open(pie, "rb") as f:
            pie_bytes = f.read()
        with open(exe, "rb") as f:
            exe_bytes = f.read()
        cases = {"invalid ELF header": b"#!/bin/sh\n" + b"x" * 100,
                 "cannot dynamically load position-independent executable": pie_bytes,
                 "cannot dynamically load executable": exe_bytes,
                 "ELF file OS ABI invalid": pie_bytes[:7] + b"\x09" + pie_bytes[8:]}
        for words, data in cases.items():
            with self.subTest(words=words):
                with open(lib, "wb") as f:
                    f.write(data)
                o = self.scan_for(prog)
                (r,) = [x for x in o["for"]["resolutions"] if x["name"] == "libx.so"]
                self.assertEqual(r["error"], words)
                _, err = ldd(prog)
                # the header's words name the path, the later checks' the name asked for
                self.assertRegex(err, r"(%s|libx\.so): %s\n" % (re.escape(self.path("bin/../lib/libx.so")),
                                                              re.escape(words)))


@unittest.skipUnless(os.geteuid() == 0, "needs root to make a set-user-ID copy for another user")
class SetUid(LoaderCase):
    """Item 8: a set-user-ID copy owned by another user runs in secure mode."""

    def test_secure_mode(self):
        decoy = self.cc("llp/libsec.so", soname="libsec.so")
        own = self.cc("bin/sub/libsec.so", soname="libsec.so")
        prog = self.cc("bin/sec", needs=[own], program=True, runpath="$ORIGIN/sub")
        env = {"LD_LIBRARY_PATH": self.path("llp")}
        plain = self.scan_for(prog, env)
        self.assertFalse(plain["for"]["secure"])
        self.assertEqual(self.objects(plain)["libsec.so"], decoy)
        os.chown(prog, 65534, 65534)
        os.chmod(prog, 0o4755)
        o = self.scan_for(prog, env)
        self.assertTrue(o["for"]["secure"])
        # LD_LIBRARY_PATH ignored; $ORIGIN/sub is not a trusted folder: not found
        self.assertIsNone(self.objects(o)["libsec.so"])
        self.assertEqual(o["for"]["verdict"], "error")
        # the real loader, in the real program started by root: the same
        r = subprocess.run([prog], env=clean_env(env), capture_output=True, timeout=30)
        if r.returncode == 0 or b"libsec.so" not in r.stderr:
            self.skipTest("set-user-ID is not honoured here (nosuid mount?): %r" % r.stderr)
        self.assertIn(b"libsec.so: cannot open shared object file", r.stderr)


class Sample(unittest.TestCase):
    """A sample of the host's real files, against ldd: every name the same."""

    def test_sample(self):
        trees = [t for t in ("/usr/local/cuda-13.0", "/usr/lib/x86_64-linux-gnu", "/usr/bin") if os.path.isdir(t)]
        r = subprocess.run(["/usr/bin/python3", DIFFTEST, "--gputrace", GPUTRACE, "--sample", "30", *trees],
                           env=clean_env(), capture_output=True, timeout=600)
        out = r.stdout.decode()
        self.assertEqual(r.returncode, 0, out[-4000:] + r.stderr.decode()[-2000:])
        self.assertRegex(out, r"files: 30, the same in 30 ")


if __name__ == "__main__":
    unittest.main()
