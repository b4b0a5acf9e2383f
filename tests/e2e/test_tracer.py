"""The loader tracer on real and fake CUDA libraries: the search trail, LD_PRELOAD
alone, deaths that leave no closing line, and paths no JSON writer expects."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import (FIX, LIB, PROGS, Trace, cleanup, real_cudnn_dir, run_bare,
                             run_traced, traces_in, value)

CUDART13 = os.path.join(FIX, "cuda-13", "lib64", "libcudart.so.13")
LOAD_AND_DIE = os.path.join(PROGS, "load_and_die")


class RealCudnn(unittest.TestCase):
    """Acceptance 2: the real cuDNN 9 of the build machines, no driver."""

    def setUp(self):
        self.dir = real_cudnn_dir()
        if not self.dir:
            self.skipTest("no /usr/local/cuda*/lib*/libcudnn.so.9 on this host")

    def test_cudnn_search_trail(self):
        prog = os.path.join(PROGS, "real_cudnn")
        bare = run_bare([prog])
        r = run_traced([prog])
        self.assertEqual(r.proc.stdout, bare.stdout)
        self.assertEqual(r.proc.returncode, bare.returncode)
        self.assertEqual(len(r.traces), 1)
        t = r.traces[0]
        cudnn = t.open_of("/libcudnn.so.9")
        graph = t.open_of("/libcudnn_graph.so.9")
        self.assertIsNotNone(cudnn)
        self.assertIsNotNone(graph)
        self.assertEqual(os.path.dirname(value(cudnn, "path")), self.dir.rstrip("/"))
        self.assertEqual(value(graph, "name"), "libcudnn_graph.so.9")
        self.assertEqual(graph["rule"], "runpath")  # cuDNN's RUNPATH is $ORIGIN
        # cuDNN asks for the most specific name first: .9.<minor>.<patch>, .9.<minor>, .9
        names = [value(s, "name") for s in t.searches() if "cudnn_graph" in value(s, "name")]
        self.assertRegex(names[0], r"^libcudnn_graph\.so\.9\.\d+\.\d+$")
        self.assertRegex(names[1], r"^libcudnn_graph\.so\.9\.\d+$")
        self.assertEqual(names[2], "libcudnn_graph.so.9")
        first = t.searches(names[0])[0]
        self.assertEqual(first["end"]["result"], "not_found")
        self.assertEqual(value(first, "requester"), value(cudnn, "path"))
        # no driver here: libcuda.so.1 was searched for, everywhere, in vain
        cuda = t.searches("libcuda.so.1")
        self.assertTrue(cuda)
        self.assertEqual(cuda[0]["end"]["result"], "not_found")
        tried = [value(x, "path") for x in cuda[0]["tries"]]
        self.assertIn("/lib/x86_64-linux-gnu/libcuda.so.1", tried)
        self.assertIn("/usr/lib/libcuda.so.1", tried)
        self.assertTrue(all(x["rule"] in ("runpath", "default", "ld_library_path", "rpath")
                            for x in cuda[0]["tries"]))
        # the diagnosis at exit names the missing driver
        self.assertIn(b"driver-missing", r.proc.stderr)
        cleanup(r)


class PreloadAlone(unittest.TestCase):
    """Acceptance 3: LD_PRELOAD=libgputrace.so without the command."""

    def test_linkmap_listing(self):
        out = tempfile.mkdtemp()
        p = run_bare([LOAD_AND_DIE, "exit", CUDART13], env={"LD_PRELOAD": LIB, "GPUTRACE_DIR": out})
        self.assertEqual(p.returncode, 0)
        (t,) = traces_in(out)
        self.assertEqual(t.header["source"], "preload")
        self.assertFalse(t.events("search"))  # no audit half, no search trail
        paths = t.linkmap_paths()
        self.assertIn(CUDART13, paths)
        self.assertTrue(t.ended_cleanly())
        shutil.rmtree(out)

    def test_default_folder_is_cwd(self):
        cwd = tempfile.mkdtemp()
        p = subprocess.run([LOAD_AND_DIE, "exit"], cwd=cwd, capture_output=True,
                           env=dict(os.environ, LD_PRELOAD=LIB))
        self.assertEqual(p.returncode, 0)
        self.assertEqual(len(traces_in(cwd)), 1)
        shutil.rmtree(cwd)


class Deaths(unittest.TestCase):
    """Acceptance 4: the trace keeps every load before the death, no closing line."""

    def check_death(self, how, status):
        r = run_traced([LOAD_AND_DIE, how, "libm.so.6", CUDART13], opts=["-q"])
        # gputrace dies by the command's signal (subprocess: -N)
        self.assertEqual(r.proc.returncode, status if status < 128 else 128 - status)
        (t,) = r.traces
        # the launcher saw how its child ended and says so after the last line
        want = {"signal": status - 128} if status > 128 else {"exit_status": status}
        self.assertEqual(t.lines[-1], dict({"ev": "reaped", "pid": t.pid}, **want))
        self.assertIsNotNone(t.open_of("/libm.so.6"))
        self.assertIsNotNone(t.open_of(CUDART13))
        self.assertEqual(t.open_of(CUDART13)["rule"], "absolute")
        if how == "_exit":
            # no exit handlers ran; the _exit hook wrote the end with its status
            (end,) = t.events("end")
            self.assertEqual((end["via"], end["exit_status"]), ("_exit", status))
        else:
            self.assertFalse(t.events("end"))
            self.assertFalse(t.ended_cleanly())
        cleanup(r)

    def test_sigsegv(self):
        self.check_death("segv", 139)

    def test_abort(self):
        self.check_death("abort", 134)

    def test__exit(self):
        self.check_death("_exit", 7)

    def test_sigkill(self):
        self.check_death("kill", 137)

    def test_clean_exit_has_closing_line(self):
        r = run_traced([LOAD_AND_DIE, "exit", CUDART13], opts=["-q"])
        (t,) = r.traces
        self.assertTrue(t.ended_cleanly())
        self.assertEqual(t.events("end")[0]["pid"], t.pid)
        self.assertEqual(t.reaped(), {"ev": "reaped", "pid": t.pid, "exit_status": 0})
        cleanup(r)


class HostilePaths(unittest.TestCase):
    """Any path must survive: quotes, newlines, backslashes, bytes not UTF-8."""

    def test_path_roundtrip(self):
        base = tempfile.mkdtemp().encode()
        weird = base + b'/q"uo\\te\nnew\tline \xff\xfe caf\xc3\xa9'
        os.makedirs(weird)
        lib = weird + b"/libcudart.so.13"
        shutil.copy(CUDART13, lib)
        out = tempfile.mkdtemp()
        p = subprocess.run([os.fsencode(LOAD_AND_DIE), b"exit", lib],
                           env=dict(os.environ, GPUTRACE_DIR=out, LD_AUDIT=LIB, LD_PRELOAD=LIB),
                           capture_output=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        (t,) = traces_in(out)
        want = os.fsdecode(lib)
        opened = [o for o in t.events("open") if value(o, "path") == want]
        self.assertEqual(len(opened), 1)
        self.assertIn("path_hex", opened[0])
        # the audit half saw it all: no exit listing; LD_PRELOAD alone lists it
        self.assertEqual(t.linkmap_paths(), [])
        out2 = tempfile.mkdtemp()
        subprocess.run([os.fsencode(LOAD_AND_DIE), b"exit", lib], check=True, capture_output=True,
                       env=dict(os.environ, GPUTRACE_DIR=out2, LD_PRELOAD=LIB))
        (t2,) = traces_in(out2)
        self.assertIn(want, t2.linkmap_paths())
        shutil.rmtree(base)
        shutil.rmtree(out)
        shutil.rmtree(out2)

    def test_long_argv_is_truncated_not_lost(self):
        r = run_traced(["sh", "-c", "exit 0", "x" * 100000], opts=["-q"])
        t = r.traces[0]
        self.assertTrue(t.header.get("argv_truncated"))
        self.assertEqual(t.header["argv"][:2], ["sh", "-c"])
        cleanup(r)


if __name__ == "__main__":
    unittest.main()
