"""Issue 29: retry and --try-fixes run what a trace header recorded (the
program, its folder, LD_PRELOAD, LD_LIBRARY_PATH, PYTHONPATH ...), and a trace
folder is data anyone may hand over. The question shows every one of them;
a trace that is not this user's on this host says so and needs a yes (a
header without a host is foreign); --try-fixes asks nothing for the run it
just traced. Before: the header's LD_PRELOAD was applied without being
shown, and a header without a host passed as this host's."""
import glob
import json
import os
import shutil

from tests.e2e.test_diff_retry import Case, clean_env, fix, gt, llp
from tests.e2e.gtlib import unfold

ZLIB = "/lib/x86_64-linux-gnu/libz.so.1"
# mixed-versions through LD_LIBRARY_PATH, and an LD_PRELOAD the fix keeps
MIXED_PRELOADED = ([fix("scenarios/sc_torchlike")],
                   dict(llp("system/lib", "driver"), LD_PRELOAD=ZLIB, PYTHONPATH="/nonexistent/gt-pp"))


def rewrite_headers(folder, change):
    """Applies change(header dict) to every header line of the folder's traces."""
    for path in glob.glob(os.path.join(folder, "*.jsonl")):
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        out = []
        for ln in lines:
            if ln.startswith(b'{"ev":"header"'):
                h = json.loads(ln)
                change(h)
                ln = json.dumps(h, separators=(",", ":")).encode()
            out.append(ln)
        with open(path, "wb") as f:
            f.write(b"\n".join(out))


class RetryTrust(Case):
    def setUp(self):
        if not os.path.exists(ZLIB):
            self.skipTest("needs %s" % ZLIB)

    def test_question_shows_what_the_header_sets(self):
        d = self.traced(*MIXED_PRELOADED)
        r = gt("retry", d)  # no terminal, no --yes: the question, then a refusal
        # read unfolded: a long build path puts a value on a line of its own
        err = unfold(r.stderr.decode(errors="replace"))
        self.assertEqual(r.returncode, 2, err)
        self.assertIn("  with LD_PRELOAD=%s\n" % ZLIB, err)
        self.assertIn("  with PYTHONPATH=/nonexistent/gt-pp\n", err)
        self.assertIn("  with LD_LIBRARY_PATH=%s:%s\n" % (fix("system/lib"), fix("driver")), err)
        self.assertIn("(%s, in %s)" % (fix("scenarios/sc_torchlike"), os.getcwd()), err)
        self.assertNotIn("not from you", err, "this user's own trace on this host")
        self.assertFalse(os.path.exists(os.path.join(d, "retry-1")), "nothing was run")

    def test_header_without_host_is_foreign(self):
        d = self.traced(*MIXED_PRELOADED)
        rewrite_headers(d, lambda h: h.pop("host", None))
        r = gt("retry", d)
        err = r.stderr.decode(errors="replace")
        self.assertEqual(r.returncode, 2, err)
        self.assertIn("this trace is not from you on this host (its header names no host)", err)
        self.assertIn("running a trace that is not yours needs a yes: give --yes", err)
        self.assertIn("  with LD_PRELOAD=%s\n" % ZLIB, err)
        self.assertFalse(os.path.exists(os.path.join(d, "retry-1")), "nothing was run")
        # --yes is the yes
        r = gt("retry", "--yes", d)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        self.assertTrue(os.path.isdir(os.path.join(d, "retry-1")))

    def test_header_of_another_user_is_foreign(self):
        d = self.traced(*MIXED_PRELOADED)
        other = 12345 if os.getuid() != 12345 else 12346
        rewrite_headers(d, lambda h: h.update(uid=other))
        r = gt("retry", d)
        err = r.stderr.decode(errors="replace")
        self.assertEqual(r.returncode, 2, err)
        self.assertIn("(it was traced as uid %d, you are uid %d)" % (other, os.getuid()), err)

    def test_try_fixes_asks_nothing_for_its_own_run(self):
        out = os.path.join(self.tmp(), "run")
        r = gt("-o", out, "--try-fixes", "--", *MIXED_PRELOADED[0], env=clean_env(MIXED_PRELOADED[1]))
        err = r.stderr.decode(errors="replace")
        self.assertEqual(r.returncode, 0, err)
        self.assertIn("  with LD_PRELOAD=%s\n" % ZLIB, err)
        self.assertNotIn("not from you", err)
        self.assertTrue(os.path.isdir(os.path.join(out, "retry-1")))
