"""Sanitizers and valgrind under gputrace (issue 34): a program built with
AddressSanitizer, ThreadSanitizer or LeakSanitizer, or run by valgrind, ends
as it ends bare (exit status, stdout, stderr), with one line of gputrace's
saying what it did, which the trace headers record (GPUTRACE_MODE). The
programs are compiled here, in a temporary folder; a compiler or runtime
this host lacks skips its tests."""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, traces_in

HERE = os.path.dirname(os.path.abspath(__file__))
CUDA_OPS = os.path.join(HERE, "..", "progs_fake", "cuda_ops.c")
FAKE_CUDART = os.path.join(FIX, "cuda-13", "lib64")

HELLO = r"""#include <stdio.h>
int main(void) { puts("hello"); return 0; }
"""
# The index comes from argc, so that the compiler cannot see the overflow.
OVERFLOW = r"""#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) { char *p = malloc(8); (void)argv; puts("before");
	fflush(stdout); p[7 + argc] = 1; free(p); return 0; }
"""
LEAK = r"""#include <stdio.h>
#include <stdlib.h>
void *volatile sink;
int main(void) { sink = malloc(77); sink = 0; puts("leaked"); return 0; }
"""
THREADS = r"""#include <pthread.h>
#include <stdio.h>
static int x;
static void *f(void *a) { (void)a; __atomic_add_fetch(&x, 1, __ATOMIC_SEQ_CST); return NULL; }
int main(void) { pthread_t t[2]; int i; for (i = 0; i < 2; i++) pthread_create(&t[i], NULL, f, NULL);
	for (i = 0; i < 2; i++) pthread_join(t[i], NULL); printf("x=%d\n", x); return 0; }
"""
# Two threads write x with nothing ordering them: a race whatever the timing.
RACE = r"""#include <pthread.h>
#include <stdio.h>
int x;
static void *f(void *a) { (void)a; x++; return NULL; }
int main(void) { pthread_t t[2]; int i; for (i = 0; i < 2; i++) pthread_create(&t[i], NULL, f, NULL);
	for (i = 0; i < 2; i++) pthread_join(t[i], NULL); puts("joined"); return 0; }
"""
# A library loaded at start whose thread-local variable is reached through
# __tls_get_addr (gcc's default for -fPIC): ASan's leak check dies at exit
# on such a program under any audit module.
TLS_LIB = "__thread int tv;\nint touch(void) { return ++tv; }\n"
TLS_MAIN = r"""#include <stdio.h>
int touch(void);
int main(void) { printf("%d\n", touch()); return 0; }
"""

# The variables a run of ours or the user's shell may carry that change
# what the programs do; each test sets what it means to.
SCRUB = ("ASAN_OPTIONS", "TSAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS", "LD_PRELOAD", "LD_AUDIT",
         "GPUTRACE_DIR", "GPUTRACE_MODE", "GPUTRACE_DISABLE")


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items() if k not in SCRUB}
    env.update(extra or {})
    return env


def normalised(text):
    """A sanitizer's report names the pid, thread ids and addresses: those differ run to run."""
    text = re.sub(r"==\d+==", "==PID==", text)
    text = re.sub(r"0x[0-9a-f]+", "0xADDR", text)
    return re.sub(r"(pid|tid)=\d+", r"\1=N", text)


class Checkers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gt-checkers-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def build(self, name, source, flags, cc="gcc", libs=()):
        """Compiles source into the temporary folder; skips the test where this host cannot."""
        src = os.path.join(self.tmp, name + ".c")
        out = os.path.join(self.tmp, name)
        with open(src, "w") as f:
            f.write(source)
        if not shutil.which(cc):
            self.skipTest("no " + cc)
        p = subprocess.run([cc, "-g", *flags, src, "-o", out, *libs], capture_output=True, text=True)
        if p.returncode != 0:
            self.skipTest("%s %s cannot build here: %s" % (cc, " ".join(flags), p.stderr[-300:]))
        return out

    def bare(self, argv, env=None, expect=None):
        p = subprocess.run(argv, env=clean_env(env), capture_output=True, text=True, timeout=300)
        if expect is not None and p.returncode != expect:
            self.skipTest("%s does not run here bare (status %d): %s" % (argv[0], p.returncode,
                                                                           p.stderr[-300:]))
        return p

    def traced(self, argv, env=None, quiet=True):
        out = tempfile.mkdtemp(prefix="o-", dir=self.tmp)
        opts = ["-q"] if quiet else []
        p = subprocess.run([GPUTRACE, *opts, "-o", out, "--", *argv], env=clean_env(env),
                           capture_output=True, text=True, timeout=300)
        return p, traces_in(out), out

    def assert_same_as_bare(self, argv, env=None, expect=0):
        """Status, stdout and stderr of `gputrace -q` are those of the bare run."""
        bare = self.bare(argv, env, expect)
        traced, traces, out = self.traced(argv, env)
        self.assertEqual(traced.returncode, bare.returncode, traced.stderr[-2000:])
        self.assertEqual(traced.stdout, bare.stdout)
        self.assertEqual(normalised(traced.stderr), normalised(bare.stderr))
        return bare, traces, out

    def assert_mode(self, traces, mode):
        """Every trace of the run says the mode; the audit half was left out."""
        self.assertTrue(traces)
        for t in traces:
            headers = t.events("header")
            self.assertTrue(headers)
            for h in headers:
                self.assertEqual(h.get("env", {}).get("GPUTRACE_MODE"), mode, t.path)
                self.assertEqual(h["source"], "preload", t.path)

    def assert_note(self, argv, start, mode, env=None):
        """Without -q, one line of gputrace's comes before the program's own output."""
        p, _, _ = self.traced(argv, env, quiet=False)
        first = p.stderr.splitlines()[0]
        self.assertTrue(first.startswith("gputrace: " + start), p.stderr[-2000:])
        self.assertTrue(first.endswith("GPUTRACE_MODE=" + mode), first)
        self.assertEqual(sum(l.startswith("gputrace: " + start) for l in p.stderr.splitlines()), 1)

    # ---- AddressSanitizer

    def test_gcc_asan_hello_runs_as_bare(self):
        prog = self.build("asan_hello", HELLO, ["-fsanitize=address"])
        _, traces, _ = self.assert_same_as_bare([prog])
        self.assert_mode(traces, "preload-only:asan")
        self.assert_note([prog], "AddressSanitizer (libasan.so.", "preload-only:asan")

    def test_asan_error_report_unchanged(self):
        prog = self.build("asan_overflow", OVERFLOW, ["-fsanitize=address"])
        bare, _, _ = self.assert_same_as_bare([prog], expect=1)
        self.assertIn("heap-buffer-overflow", bare.stderr)

    def test_asan_leak_report_unchanged(self):
        prog = self.build("asan_leak", LEAK, ["-fsanitize=address"])
        bare, _, _ = self.assert_same_as_bare([prog], expect=1)
        self.assertIn("detected memory leaks", bare.stderr)

    def test_users_asan_options_kept(self):
        # gputrace adds its option after the user's: leaks stay unreported.
        prog = self.build("asan_leak_off", LEAK, ["-fsanitize=address"])
        self.assert_same_as_bare([prog], env={"ASAN_OPTIONS": "detect_leaks=0"}, expect=0)

    def test_asan_with_a_library_using_dynamic_tls(self):
        lib = os.path.join(self.tmp, "libtlsuser.so")
        with open(lib + ".c", "w") as f:
            f.write(TLS_LIB)
        subprocess.run(["gcc", "-shared", "-fPIC", lib + ".c", "-o", lib], check=True)
        for cc in ("gcc", "clang"):
            with self.subTest(cc=cc):
                prog = self.build("asan_tls_" + cc, TLS_MAIN, ["-fsanitize=address"], cc=cc,
                                  libs=[lib, "-Wl,-rpath," + self.tmp])
                self.assert_same_as_bare([prog])

    def test_clang_asan_static_runtime(self):
        prog = self.build("asan_clang", HELLO, ["-fsanitize=address"], cc="clang")
        _, traces, _ = self.assert_same_as_bare([prog])
        self.assert_mode(traces, "preload-only:asan")
        self.assert_note([prog], "AddressSanitizer (__asan_init)", "preload-only:asan")

    def test_asan_cuda_calls_still_traced(self):
        with open(CUDA_OPS) as f:
            source = f.read()
        prog = self.build("asan_cuda_ops", source, ["-fsanitize=address"],
                          libs=["-L" + FAKE_CUDART, "-l:libcudart.so.13", "-Wl,-rpath," + FAKE_CUDART,
                                "-lpthread"])
        argv = [prog, "n", "m:100", "f"]
        bare = self.bare(argv)
        _, traces, out = self.assert_same_as_bare(argv, expect=bare.returncode)
        calls = [c["fn"] for t in traces for c in t.events("call")]
        self.assertIn("cudaGetDeviceCount", calls)
        rep = subprocess.run([GPUTRACE, "report", out], capture_output=True, text=True)
        self.assertIn("(GPUTRACE_MODE=preload-only:asan", rep.stdout)

    def test_runtime_preloaded_by_the_user(self):
        # How the sanitizers' documents run an interpreter with an
        # instrumented extension: the runtime first in LD_PRELOAD.
        asan = self.build("asan_for_ldd", HELLO, ["-fsanitize=address"])
        ldd = subprocess.run(["ldd", asan], capture_output=True, text=True).stdout
        m = re.search(r"(libasan\.so\.\d+) => ", ldd)
        if not m:
            self.skipTest("no libasan in ldd's answer")
        env = {"LD_PRELOAD": m.group(1), "ASAN_OPTIONS": "detect_leaks=0"}
        self.assert_same_as_bare(["/bin/echo", "hi"], env=env)
        self.assert_note(["/bin/echo", "hi"], "AddressSanitizer (libasan.so.", "preload-only:asan", env=env)

    # ---- ThreadSanitizer, LeakSanitizer

    def test_gcc_tsan_runs_as_bare(self):
        prog = self.build("tsan_threads", THREADS, ["-fsanitize=thread"], libs=["-lpthread"])
        _, traces, _ = self.assert_same_as_bare([prog])
        self.assert_mode(traces, "preload-only:tsan")
        self.assert_note([prog], "ThreadSanitizer (libtsan.so.", "preload-only:tsan")

    def test_tsan_race_still_reported(self):
        prog = self.build("tsan_race", RACE, ["-fsanitize=thread"], libs=["-lpthread"])
        bare = self.bare([prog], expect=66)
        traced, _, _ = self.traced([prog])
        self.assertEqual((traced.returncode, traced.stdout), (66, bare.stdout))
        self.assertIn("WARNING: ThreadSanitizer: data race", traced.stderr)

    def test_gcc_lsan_runs_as_bare(self):
        prog = self.build("lsan_leak", LEAK, ["-fsanitize=leak"])
        bare, traces, _ = self.assert_same_as_bare([prog], expect=23)
        self.assertIn("detected memory leaks", bare.stderr)
        self.assert_mode(traces, "preload-only:lsan")

    # ---- what is left as it was

    def test_ubsan_traced_with_both_halves(self):
        prog = self.build("ubsan_hello", HELLO, ["-fsanitize=undefined"])
        _, traces, _ = self.assert_same_as_bare([prog])
        sources = {h["source"] for t in traces for h in t.events("header")}
        self.assertEqual(sources, {"audit", "preload"})
        self.assertFalse([h for t in traces for h in t.events("header") if "GPUTRACE_MODE" in h.get("env", {})])
        p, _, _ = self.traced([prog], quiet=False)
        self.assertNotIn("Sanitizer", p.stderr)

    def test_mode_of_an_outer_run_not_kept(self):
        p, traces, _ = self.traced(["sh", "-c", 'echo "[$GPUTRACE_MODE]"'],
                                   env={"GPUTRACE_MODE": "preload-only:tsan"})
        self.assertEqual(p.stdout, "[]\n")
        self.assertTrue(any(h["source"] == "audit" for t in traces for h in t.events("header")))

    # ---- valgrind

    def test_valgrind_runs_untraced(self):
        if not shutil.which("valgrind"):
            self.skipTest("no valgrind")
        argv = ["valgrind", "-q", "--error-exitcode=9", "/bin/true"]
        _, traces, _ = self.assert_same_as_bare(argv)
        self.assertEqual(traces, [])
        p, _, _ = self.traced(argv, quiet=False)
        self.assertEqual(p.returncode, 0)
        lines = p.stderr.splitlines()
        self.assertTrue(lines[0].startswith("gputrace: ") and lines[0].endswith("running it untraced."),
                        p.stderr)
        self.assertEqual([l for l in lines if "is valgrind" in l], [lines[0]])

    def test_valgrind_reports_no_error_of_ours(self):
        if not shutil.which("valgrind"):
            self.skipTest("no valgrind")
        argv = ["valgrind", "--error-exitcode=9", "/bin/true"]
        self.bare(argv, expect=0)
        p, _, _ = self.traced(argv)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        self.assertRegex(p.stderr, r"ERROR SUMMARY: 0 errors from 0 contexts")


if __name__ == "__main__":
    unittest.main()
