"""Issue 29, the audit half without a system call per library: what the
cached thread id and the index of loaded files must still get right.

- every search line carries the id of the thread that made it: a second
  thread's, and in a fork child the child's own (its pid), not the cached id
  of the thread it was forked from;
- a search that ends on a file already loaded under another name (a
  symlink) says "already_loaded" with the loaded object's path; after that
  object was unloaded (dlclose), the same search maps it again (an "open",
  not "already_loaded": the index forgot it); a name found nowhere is
  "not_found".
Never asserts times (bench/syscalls_per_lib.sh and bench/loaded_again.sh
measure the cost)."""
import json
import os
import unittest

from tests.e2e.gtlib import cleanup, run_traced, value

PY = "/usr/bin/python3"
LIBDIR = "/usr/lib/x86_64-linux-gnu"

THREADS_AND_FORK = r"""
import ctypes, json, os, threading
ids = {"main": threading.get_native_id()}
ctypes.CDLL("libbz2.so.1.0")
def in_thread():
    ids["thread"] = threading.get_native_id()
    ctypes.CDLL("liblzma.so.5")
t = threading.Thread(target=in_thread)
t.start(); t.join()
# a second thread after the first ended: glibc gives it the first one's
# cached stack, and its thread-local cache must start empty all the same
def in_second_thread():
    ids["second"] = threading.get_native_id()
    ctypes.CDLL("libbz2.so.1")
t = threading.Thread(target=in_second_thread)
t.start(); t.join()
pid = os.fork()
if pid == 0:
    ctypes.CDLL("libuuid.so.1")
    os._exit(0)
os.waitpid(pid, 0)
ids["child"] = pid
print(json.dumps(ids))
"""

ALREADY_LOADED = r"""
import ctypes, sys
libdl = ctypes.CDLL(None)
dlopen, dlclose = libdl.dlopen, libdl.dlclose
dlopen.restype = ctypes.c_void_p
dlopen.argtypes = [ctypes.c_char_p, ctypes.c_int]
dlclose.argtypes = [ctypes.c_void_p]
RTLD_NOW = 2
real = dlopen(b"libbz2.so.1.0", RTLD_NOW)
alias = dlopen(sys.argv[1].encode(), RTLD_NOW)       # the same file: already loaded
assert real and alias == real, (real, alias)
dlclose(alias); dlclose(real)                          # unloaded now
again = dlopen(sys.argv[2].encode(), RTLD_NOW)        # another alias: mapped again
assert again
assert not dlopen(b"libgputrace-no-such-library.so.7", RTLD_NOW)
print("ok")
"""


def searches_named(trace, name):
    return [s for s in trace.events("search") if value(s, "name") == name]


def conclusion(trace, seq):
    """The line that ends search seq: its open, or its search_end."""
    for o in trace.lines:
        if o.get("ev") in ("open", "search_end") and o.get("search") == seq:
            return o
    return None


@unittest.skipUnless(os.access(PY, os.X_OK), "needs Debian's /usr/bin/python3")
class ThreadIds(unittest.TestCase):
    def test_each_search_has_its_threads_id(self):
        for lib in ("libbz2.so.1.0", "libbz2.so.1", "liblzma.so.5", "libuuid.so.1"):
            if not os.path.exists(os.path.join(LIBDIR, lib)):
                self.skipTest("needs %s" % lib)
        run = run_traced([PY, "-c", THREADS_AND_FORK])
        self.addCleanup(cleanup, run)
        self.assertEqual(run.proc.returncode, 0, run.proc.stderr)
        ids = json.loads(run.proc.stdout.decode().strip().splitlines()[-1])
        self.assertNotEqual(ids["main"], ids["thread"])
        parent = [t for t in run.traces if t.pid != ids["child"]]
        child = run.trace_of(ids["child"])
        self.assertEqual(len(parent), 1)
        self.assertIsNotNone(child, "the fork child wrote its own trace")
        parent = parent[0]
        self.assertEqual({s["tid"] for s in searches_named(parent, "libbz2.so.1.0")}, {ids["main"]})
        self.assertEqual({s["tid"] for s in searches_named(parent, "liblzma.so.5")}, {ids["thread"]})
        self.assertNotEqual(ids["second"], ids["thread"])
        self.assertEqual({s["tid"] for s in searches_named(parent, "libbz2.so.1")}, {ids["second"]})
        child_searches = searches_named(child, "libuuid.so.1")
        self.assertTrue(child_searches, "the child's dlopen is in its trace")
        self.assertEqual({s["tid"] for s in child_searches}, {ids["child"]})
        # and the main thread's searches before the thread ran are not the thread's
        self.assertFalse(searches_named(parent, "libuuid.so.1"))


@unittest.skipUnless(os.access(PY, os.X_OK), "needs Debian's /usr/bin/python3")
class AlreadyLoaded(unittest.TestCase):
    def test_alias_then_unloaded_then_missing(self):
        real = os.path.join(LIBDIR, "libbz2.so.1.0")
        if not os.path.exists(real):
            self.skipTest("needs libbz2.so.1.0")
        run = run_traced([PY, "-c", ALREADY_LOADED, os.path.join(LIBDIR, "libbz2.so.1.0.4"),
                          os.path.join(LIBDIR, "libbz2.so.1")])
        self.addCleanup(cleanup, run)
        self.assertEqual(run.proc.returncode, 0, run.proc.stderr)
        self.assertIn(b"ok", run.proc.stdout)
        (trace,) = [t for t in run.traces if t.ended_cleanly()]
        first = searches_named(trace, os.path.join(LIBDIR, "libbz2.so.1.0.4"))
        self.assertEqual(len(first), 1)
        end = conclusion(trace, first[0]["seq"])
        self.assertEqual(end["ev"], "search_end", end)
        self.assertEqual(end["result"], "already_loaded")
        self.assertEqual(os.path.realpath(value(end, "path")), os.path.realpath(real))
        again = searches_named(trace, os.path.join(LIBDIR, "libbz2.so.1"))
        self.assertEqual(len(again), 1)
        end = conclusion(trace, again[0]["seq"])
        self.assertEqual(end["ev"], "open", "an unloaded file is mapped again: %s" % end)
        missing = searches_named(trace, "libgputrace-no-such-library.so.7")
        self.assertEqual(len(missing), 1)
        self.assertEqual(conclusion(trace, missing[0]["seq"])["result"], "not_found")


if __name__ == "__main__":
    unittest.main()
