"""The preload half: intercepted CUDA calls, their statuses and names, totals,
allocations, versions from the libraries themselves, static runtimes."""
import os
import unittest

from tests.e2e.gtlib import FIX, PROGS, cleanup, real_cudnn_dir, run_bare, run_traced, value

CUDA_OPS = os.path.join(PROGS, "cuda_ops")
DRIVER = {"LD_LIBRARY_PATH": os.path.join(FIX, "driver")}


def calls(trace, fn):
    """{status: (count, bytes)} from the totals lines of fn."""
    return {c["status"]: (c["count"], c["bytes"]) for c in trace.events("calls") if c["fn"] == fn}


def versions(trace):
    return {(v["fn"], v.get("property")): v for v in trace.events("version")}


class RealLibraries(unittest.TestCase):
    """Acceptance 1: the real CUDA 13.0 runtime and cuDNN 9.19, no driver."""

    def setUp(self):
        self.prog = os.path.join(PROGS, "real_cuda_api")
        if not real_cudnn_dir() or not os.path.exists(self.prog):
            self.skipTest("no real CUDA runtime and cuDNN on this host")

    def test_statuses_reason_versions(self):
        bare = run_bare([self.prog])
        r = run_traced([self.prog], opts=["-q"])
        self.assertEqual(r.proc.stdout, bare.stdout)
        self.assertEqual(r.proc.returncode, bare.returncode)
        (t,) = r.traces
        count = [c for c in t.events("call") if c["fn"] == "cudaGetDeviceCount"]
        self.assertEqual(count[0]["status"], 35)
        self.assertEqual(count[0]["status_name"], "cudaErrorInsufficientDriver")
        fail = t.events("alloc_fail")[0]
        self.assertEqual((fail["fn"], fail["size"], fail["status"]), ("cudaMalloc", 1 << 20, 35))
        create = [c for c in t.events("call") if c["fn"] == "cudnnCreate"][0]
        self.assertEqual(create["status"], 1001)
        self.assertEqual(create["status_name"], "CUDNN_STATUS_NOT_INITIALIZED")
        # by default cuDNN's own text for the code (cudnnGetErrorString): reading
        # its last-error string would take it away from the program
        self.assertEqual(create.get("reason"), "CUDNN_STATUS_NOT_INITIALIZED")
        self.assertTrue(value(create, "lib").endswith("/libcudnn.so.9"))
        v = versions(t)
        rt = v[("cudaRuntimeGetVersion", None)]
        self.assertEqual(rt["value"], 13000)  # 13.0
        self.assertTrue(value(rt, "lib").endswith("/libcudart.so.13"))
        self.assertEqual(v[("cudnnGetVersion", None)]["value"], 91900)  # 9.19.0
        # no driver is loaded: the runtime's driver query would load one, so it is not asked
        self.assertNotIn(("cudaDriverGetVersion", None), v)
        self.assertEqual(calls(t, "cudnnCreate"), {1001: (1, 0)})
        self.assertEqual(calls(t, "cudaMalloc"), {35: (1, 1 << 20)})
        # our own version calls make cuDNN search again: marked, and "end" stays last
        self.assertTrue([n for n in t.events("note") if n["what"] == "gputrace_queries_begin"])
        self.assertTrue(t.ended_cleanly())
        cleanup(r)


    def test_cudnn_last_error_when_asked(self):
        """GPUTRACE_CUDNN_REASON=1: cuDNN's cause, at the price of reading it."""
        r = run_traced([self.prog], env={"GPUTRACE_CUDNN_REASON": "1"}, opts=["-q"])
        (t,) = r.traces
        create = [c for c in t.events("call") if c["fn"] == "cudnnCreate"][0]
        self.assertEqual(create["reason"], "cudaGetDeviceCount(&count) != cudaSuccess")
        cleanup(r)


class Totals(unittest.TestCase):
    def test_threads_exact_counts(self):
        """Acceptance 2: 8 threads x 1,000,000 cudaMalloc/cudaFree pairs."""
        r = run_traced([CUDA_OPS, "t:8:1000000"], env=DRIVER, opts=["-q"], timeout=300)
        self.assertEqual(r.proc.returncode, 0, r.proc.stderr)
        (t,) = r.traces
        self.assertEqual(calls(t, "cudaMalloc"), {0: (8000000, 8000000 * 256)})
        self.assertEqual(calls(t, "cudaFree"), {0: (8000000, 0)})
        allocs = t.events("allocs")[0]
        self.assertEqual(allocs["held_bytes"], 0)
        self.assertLessEqual(allocs["peak_bytes"], 8 * 256)
        self.assertGreaterEqual(allocs["peak_bytes"], 256)
        self.assertFalse(allocs["partial"])
        self.assertEqual(allocs["unknown_frees"], 0)
        # counted, not written: the trace stays small
        self.assertLess(os.path.getsize(t.path), 64 * 1024)
        cleanup(r)

    def test_peak_held_and_failed_allocation(self):
        r = run_traced([CUDA_OPS, "m:100", "m:200", "f", "m:50", "m:1000000000000"],
                       env=dict(DRIVER, FAKE_CUDA_MEM_BYTES="1000000"), opts=["-q"])
        (t,) = r.traces
        allocs = t.events("allocs")[0]
        self.assertEqual((allocs["peak_bytes"], allocs["held_bytes"], allocs["failed"]), (300, 250, 1))
        (fail,) = t.events("alloc_fail")
        self.assertEqual((fail["size"], fail["status"], fail["status_name"]),
                         (1000000000000, 2, "cudaErrorMemoryAllocation"))
        self.assertEqual(calls(t, "cudaMalloc"), {0: (3, 350), 2: (1, 1000000000000)})
        cleanup(r)

    def test_frees_by_another_thread(self):
        """A thread's calls after its first take the fast path (its own block
        alone): a second thread's frees of the main thread's pointers, the
        first through the slow path and the next two through the fast one,
        still take the bytes out of what the process holds; the main thread's
        allocations after its first, and its own free after the others, are
        counted the same way."""
        argv = [CUDA_OPS, "m:100", "m:200", "m:300", "m:400", "F:3", "f"]
        bare = run_bare(argv, env=DRIVER)
        r = run_traced(argv, env=DRIVER, opts=["-q"])
        self.assertEqual(r.proc.stdout, bare.stdout)
        (t,) = r.traces
        self.assertEqual(calls(t, "cudaMalloc"), {0: (4, 1000)})
        self.assertEqual(calls(t, "cudaFree"), {0: (4, 0)})
        allocs = t.events("allocs")[0]
        self.assertEqual((allocs["held_bytes"], allocs["peak_bytes"], allocs["unknown_frees"]), (0, 1000, 0))
        self.assertFalse(allocs["partial"])
        cleanup(r)

    def test_no_device_status(self):
        r = run_traced([CUDA_OPS, "n"], env=dict(DRIVER, FAKE_CUDA_DEVICES="0"), opts=["-q"])
        (t,) = r.traces
        (c,) = [c for c in t.events("call") if c["fn"] == "cudaGetDeviceCount"]
        self.assertEqual((c["status"], c["status_name"]), (100, "cudaErrorNoDevice"))
        cleanup(r)

    def test_fatal_signal_flushes_then_dies(self):
        r = run_traced([CUDA_OPS, "m:4096", "segv"], env=DRIVER, opts=["-q"])
        self.assertEqual(r.proc.returncode, -11)  # the signal went on: SIGSEGV's default, gputrace dies by it too
        (t,) = r.traces
        self.assertEqual(calls(t, "cudaMalloc"), {0: (1, 4096)})
        notes = [n for n in t.events("note") if n.get("what") == "fatal_signal"]
        self.assertEqual(notes[0]["signal"], 11)
        self.assertFalse(t.ended_cleanly())
        cleanup(r)

    def test_errno_untouched(self):
        """The fake runtime leaves errno alone; with the hooks it must stay so,
        also on the calls that make gputrace write and ask versions."""
        bare = run_bare([CUDA_OPS, "errno"], env=DRIVER)
        r = run_traced([CUDA_OPS, "errno"], env=DRIVER, opts=["-q"])
        self.assertIn(b"errno=77", bare.stdout)
        self.assertEqual(r.proc.stdout, bare.stdout)
        self.assertTrue(r.traces[0].events("alloc_fail"))
        cleanup(r)

    def test_output_and_status_unchanged(self):
        argv = [CUDA_OPS, "m:100", "n", "f"]
        bare = run_bare(argv, env=DRIVER)
        r = run_traced(argv, env=DRIVER, opts=["-q"])
        self.assertEqual(r.proc.stdout, bare.stdout)
        self.assertEqual(r.proc.returncode, bare.returncode)
        cleanup(r)


class StaticRuntime(unittest.TestCase):
    """Acceptance 4: nvcc's default static cudart is named in the trace."""

    def test_static_cudart_flagged(self):
        prog = os.path.join(PROGS, "static_cudart")
        if not os.path.exists(prog):
            self.skipTest("nvcc not on this host")
        r = run_traced([prog], opts=["-q"])
        (t,) = r.traces
        main = [o for o in t.events("open") if o.get("main")][0]
        self.assertTrue(main.get("cudart_static"))
        self.assertFalse([o for o in t.events("open") if "libcudart" in value(o, "path")])
        # and a program that loads libcudart dynamically is not flagged
        r2 = run_traced([CUDA_OPS, "n"], env=DRIVER, opts=["-q"])
        main2 = [o for o in r2.traces[0].events("open") if o.get("main")][0]
        self.assertNotIn("cudart_static", main2)
        cleanup(r)
        cleanup(r2)


if __name__ == "__main__":
    unittest.main()
