"""Several copies of one library in one process (issue 13), on the fake cuDNN
installs of fixtures/ (fronts that load their sub-libraries by name and
forward cudnnGetVersion to the graph library they got, as cuDNN 9 does):

- two consistent copies, each loaded RTLD_LOCAL (ctypes.CDLL, as a second
  framework loads its own): one duplicate-library warning, no error, and
  every file's version its own -- the measured failure was the wheel's
  libcudnn_graph.so.9 shown as 9.14.0, the other copy's answer;
- the same with the system copy in LD_PRELOAD: an error, found_by
  "preload", a fix that names LD_PRELOAD;
- a 9.19 front whose graph library came from a 9.14 install: mixed-versions;
- fork after CUDA init; SIGTERM is "stopped", not "crashed".
Processes run under /usr/bin/python3 (Debian's), named so that a python3
first on PATH cannot change what is loaded."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, PROGS, cleanup, run_bare, run_traced, unfold

PY = "/usr/bin/python3"
WHEEL = os.path.join(FIX, "site-packages", "nvidia")
SYSTEM = os.path.join(FIX, "system", "lib")
DRIVER = os.path.join(FIX, "driver")

# Loads torch's way (the wheel's cudart first, then its cuDNN, by path), then
# a second framework's system cuDNN; argv[1] says whether that copy is used.
TWO_COPIES = """
import ctypes, sys
wheel, system, use_system = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
ctypes.CDLL(wheel + "/cuda_runtime/lib/libcudart.so.13")
w = ctypes.CDLL(wheel + "/cudnn/lib/libcudnn.so.9")
h = ctypes.c_void_p()
rc = w.cudnnCreate(ctypes.byref(h))
s = ctypes.CDLL(system + "/libcudnn.so.9.14.0")
rc2 = s.cudnnCreate(ctypes.byref(h)) if use_system else 0
print("wheel", rc, "system", rc2)
sys.exit(1 if rc or rc2 else 0)
"""


def report_json(outdir):
    p = subprocess.run([GPUTRACE, "report", "--json", outdir], capture_output=True, timeout=120)
    return p.returncode, json.loads(p.stdout)


def report_text(outdir):
    return subprocess.run([GPUTRACE, "report", outdir], capture_output=True, timeout=120,
                          text=True).stdout


def findings(d, fid):
    return [f for f in d["findings"] if f["id"] == fid]


def errors(d):
    return [f["id"] for f in d["findings"] if f["severity"] == "error"]


@unittest.skipUnless(os.access(PY, os.X_OK), "needs Debian's /usr/bin/python3")
class Copies(unittest.TestCase):
    def run_both(self, argv, env):
        bare = run_bare(argv, env=env)
        traced = run_traced(argv, env=env)
        self.addCleanup(cleanup, traced)
        self.assertEqual(traced.proc.returncode, bare.returncode, traced.proc.stderr)
        self.assertEqual(traced.proc.stdout.splitlines()[:1], bare.stdout.splitlines()[:1])
        return traced

    def libs(self, d):
        return d["processes"][0]["libraries"]

    def test_two_local_copies_warn_and_keep_their_versions(self):
        env = {"LD_LIBRARY_PATH": DRIVER}
        for use_system in ("0", "1"):
            r = self.run_both([PY, "-c", TWO_COPIES, WHEEL, SYSTEM, use_system], env)
            rc, d = report_json(r.outdir)
            self.assertEqual(rc, 0, d["findings"])
            self.assertEqual(errors(d), [])
            (dup,) = findings(d, "duplicate-library")
            self.assertEqual(dup["severity"], "warning")
            self.assertEqual([e.get("scope") for e in dup["evidence"]], ["local", "local"])
            self.assertEqual(findings(d, "mixed-versions"), [])
            cudnn = [l for l in self.libs(d) if l["family"] == "cudnn"]
            # each file's version is its own: the wheel's 9.19, the system's 9.14
            for lib in cudnn:
                want = "9.19" if lib["path"].startswith(WHEEL) else "9.14"
                self.assertTrue(lib["version"].startswith(want), lib)
                self.assertTrue(lib["versions"].get("api", want).startswith(want), lib)
                self.assertEqual(lib["copy"], 1 if lib["path"].startswith(WHEEL) else 2, lib)
            graphs = {l["path"]: l for l in cudnn if l["component"] == "cudnn_graph"}
            wheel_graph = graphs[os.path.join(WHEEL, "cudnn", "lib", "libcudnn_graph.so.9")]
            self.assertEqual(wheel_graph["versions"]["api"], "9.19.0")
            # the second copy's graph library is only there when it was used:
            # gputrace's own version questions must not load it
            sys_graph = os.path.join(SYSTEM, "libcudnn_graph.so.9.14.0")
            self.assertEqual(sys_graph in graphs, use_system == "1")
            if use_system == "1":
                self.assertEqual(graphs[sys_graph]["versions"]["api"], "9.14.0")
            text = unfold(report_text(r.outdir))
            self.assertIn("cudnn copy 1 of 2, in " + os.path.join(WHEEL, "cudnn", "lib"), text)
            self.assertIn("cudnn copy 2 of 2, in " + SYSTEM, text)

    def test_preloaded_copy_is_an_error_naming_ld_preload(self):
        sys_front = os.path.join(SYSTEM, "libcudnn.so.9.14.0")
        env = {"LD_LIBRARY_PATH": DRIVER, "LD_PRELOAD": sys_front}
        r = self.run_both([PY, "-c", TWO_COPIES, WHEEL, SYSTEM, "0"], env)
        rc, d = report_json(r.outdir)
        self.assertEqual(rc, 1)
        # the fake front needs libcudart.so.13 (the real one does not), so
        # the preload brings a second cudart too: that finding names
        # LD_PRELOAD as well
        dups = {f["summary"].split(":")[0]: f for f in findings(d, "duplicate-library")}
        self.assertLessEqual(set(dups), {"two copies of cudnn are loaded", "two copies of cudart are loaded"})
        for f in dups.values():
            self.assertIn("LD_PRELOAD", f["fix"])
            self.assertIn(sys_front, f["fix"])
        dup = dups["two copies of cudnn are loaded"]
        self.assertEqual(dup["severity"], "error")
        self.assertIn("LD_PRELOAD", dup["fix"])
        self.assertNotIn("LD_LIBRARY_PATH", dup["fix"])
        self.assertIn(sys_front, dup["fix"])
        (pre,) = [l for l in self.libs(d) if l["path"] == sys_front]
        self.assertEqual(pre["found_by"], "preload")
        scopes = {e["path"]: e["scope"] for e in dup["evidence"]}
        self.assertEqual(scopes[sys_front], "global")
        self.assertEqual(scopes[os.path.join(WHEEL, "cudnn", "lib", "libcudnn.so.9")], "local")
        # the exit's global-scope lookup found the preloaded copy
        (trace,) = [os.path.join(r.outdir, f) for f in os.listdir(r.outdir) if f.endswith(".jsonl")]
        with open(trace, "rb") as f:
            lines = [json.loads(l) for l in f.read().split(b"\n") if l.strip(b"\0")]
        self.assertIn(sys_front, [l["lib"] for l in lines if l.get("ev") == "global"])

    def test_front_with_another_installs_graph_is_mixed(self):
        """The wheel's 9.19 front finds libcudnn_graph.so.9 of the 9.14 install
        first on LD_LIBRARY_PATH: one copy, parts of two releases."""
        env = {"LD_LIBRARY_PATH": SYSTEM + ":" + DRIVER}
        script = ("import ctypes, sys\n"
                  "ctypes.CDLL(sys.argv[1] + '/cuda_runtime/lib/libcudart.so.13')\n"
                  "w = ctypes.CDLL(sys.argv[1] + '/cudnn/lib/libcudnn.so.9')\n"
                  "h = ctypes.c_void_p()\n"
                  "rc = w.cudnnCreate(ctypes.byref(h))\n"
                  "print('create', rc)\nsys.exit(1 if rc else 0)\n")
        r = self.run_both([PY, "-c", script, WHEEL], env)
        self.assertEqual(r.proc.returncode, 1)
        rc, d = report_json(r.outdir)
        (mixed,) = findings(d, "mixed-versions")
        self.assertEqual(mixed["severity"], "error")
        self.assertIn("remove " + SYSTEM + " from LD_LIBRARY_PATH", mixed["fix"])
        self.assertEqual(findings(d, "duplicate-library"), [])
        graph = [l for l in self.libs(d) if l["component"] == "cudnn_graph"]
        self.assertEqual([g["version"] for g in graph], ["9.14.0"])
        self.assertEqual({l["copy"] for l in self.libs(d) if l["family"] == "cudnn"}, {1})


FORK = os.path.join(PROGS, "fork_after_init")


class ForkAfterInit(unittest.TestCase):
    def diagnose(self, how):
        env = {"LD_LIBRARY_PATH": DRIVER}
        bare = run_bare([FORK, how], env=env)
        r = run_traced([FORK, how], env=env)
        self.addCleanup(cleanup, r)
        self.assertEqual(r.proc.returncode, bare.returncode)
        self.assertEqual(r.proc.stdout.splitlines()[:2], bare.stdout.splitlines()[:2])
        return report_json(r.outdir)[1]

    def test_child_that_calls_cuda(self):
        d = self.diagnose("call")
        (f,) = findings(d, "fork-after-init")
        self.assertEqual(f["severity"], "error")
        self.assertIn("cudaGetDeviceCount", f["evidence"][0]["what"])
        self.assertEqual(f["evidence"][1]["status"], 3)
        self.assertIn("spawn", f["fix"])

    def test_failed_parent_of_a_quiet_child(self):
        d = self.diagnose("quiet")
        (f,) = findings(d, "fork-after-init")
        self.assertEqual(f["severity"], "warning")
        self.assertIn("child_pid", f["evidence"][0])

    def test_child_that_execs_is_fine(self):
        d = self.diagnose("exec")
        self.assertEqual(findings(d, "fork-after-init"), [])
        self.assertEqual(errors(d), [])


STOP_SELF = ("import ctypes, os, signal, sys\n"
             "rt = ctypes.CDLL(sys.argv[1] + '/cuda_runtime/lib/libcudart.so.13')\n"
             "n = ctypes.c_int()\n"
             "print('devices', rt.cudaGetDeviceCount(ctypes.byref(n)), flush=True)\n"
             # under nohup (make check run so) SIGHUP comes in ignored
             "signal.signal(int(sys.argv[2]), signal.SIG_DFL)\n"
             "os.kill(os.getpid(), int(sys.argv[2]))\n")


@unittest.skipUnless(os.access(PY, os.X_OK), "needs Debian's /usr/bin/python3")
class Stopped(unittest.TestCase):
    def test_sigterm_and_sighup_are_stopped_not_crashed(self):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            r = run_traced([PY, "-c", STOP_SELF, WHEEL, str(int(sig))], env={"LD_LIBRARY_PATH": DRIVER})
            self.addCleanup(cleanup, r)
            self.assertEqual(r.proc.returncode, -sig)  # gputrace dies by the same signal
            rc, d = report_json(r.outdir)
            self.assertEqual(rc, 0, d["findings"])
            self.assertEqual(findings(d, "crashed"), [])
            self.assertEqual(d["processes"][0]["ended"], {"how": "signal", "signal": int(sig), "stopped": True})
            text = report_text(r.outdir)
            self.assertIn("stopped by signal %d" % sig, text)
            # stopped is not success: never "all clear"
            self.assertNotIn("all clear", text)
            self.assertIn("no cause found", text)

    def test_spawn_pool_workers_terminated_by_the_pool(self):
        """multiprocessing's pool ends its workers with SIGTERM at the end of
        the `with` block: they leave no closing line, and are stopped (the
        pool's kill() is noted), never crashed. A worker that ran the main module loads a CUDA
        runtime, so without the note the report would blame it."""
        script = os.path.join(tempfile.mkdtemp(prefix="gt-pool-"), "pool.py")
        self.addCleanup(shutil.rmtree, os.path.dirname(script), True)
        with open(script, "w") as f:
            f.write("import ctypes, multiprocessing as mp, sys\n"
                    "ctypes.CDLL(%r)\n"
                    "def square(i):\n    return i * i\n"
                    "if __name__ == '__main__':\n"
                    "    with mp.get_context('spawn').Pool(2) as p:\n"
                    "        print(p.map(square, range(4)))\n"
                    % os.path.join(WHEEL, "cuda_runtime", "lib", "libcudart.so.13"))
        bare = run_bare([PY, script])
        r = run_traced([PY, script])
        self.addCleanup(cleanup, r)
        self.assertEqual((r.proc.returncode, r.proc.stdout), (bare.returncode, bare.stdout))
        rc, d = report_json(r.outdir)
        self.assertEqual(findings(d, "crashed"), [])
        parent = [p for p in d["processes"] if p["argv"][1:] == [script]][0]
        workers = [p for p in d["processes"] if "spawn_main" in " ".join(p["argv"])]
        self.assertEqual(len(workers), 2)
        for w in workers:
            self.assertEqual(w["ended"].get("stopped_by"), parent["pid"], w["ended"])
            self.assertEqual(w["ended"]["signal"], signal.SIGTERM)
        # a worker the pool stops before it ran the main module loaded nothing
        self.assertTrue([l for w in workers for l in w["libraries"] if l["family"] == "cudart"])

    def test_crash_evidence_never_names_gputrace(self):
        r = run_traced([PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"])
        self.addCleanup(cleanup, r)
        rc, d = report_json(r.outdir)
        (f,) = findings(d, "crashed")
        self.assertTrue(f["evidence"])
        for e in f["evidence"]:
            self.assertNotIn("libgputrace", json.dumps(e))


if __name__ == "__main__":
    unittest.main()
