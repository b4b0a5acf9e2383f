"""The corpus of publicly reported failures and healthy layouts (tests/cases/,
README there): every case's fake layout is built, its program run bare and
under gputrace in a private mount namespace with the case's own ld.so.cache,
and the report judged.

- a reproduction passes when the traced run's stdout and exit status equal
  the bare run's and an error-level finding of one of its expected ids names
  its culprit (a file or folder of the layout, or a bare name such as
  libcuda.so.1 when what is missing is the culprit);
- a healthy layout passes when its program succeeds and no finding is an
  error;
- a case marked known_miss (with its reason) is expected to miss; one that
  passes now fails this test, so that the mark goes when the feature lands.
A known_miss case must still be a valid case: its layout builds, its program
fails the way the thread says, and tracing changes nothing."""
import json
import os
import shutil
import sys
import unittest

from tests.cases import corpus

IDS = {"driver-missing", "driver-stub", "driver-too-old", "no-device", "cpu-only-build",
       "library-not-found", "mixed-versions", "duplicate-library", "shadowed-library",
       "cuda-major-mismatch", "init-failed", "out-of-memory", "crashed", "missing-symbol",
       "framework-mismatch", "fork-after-init", "no-kernel-image", "driver-mismatch"}
# A known_miss case that fails for one of these reasons is a broken case,
# not a diagnosis gputrace does not make yet.
BROKEN = ("layout:", "traced run differs", "does not reproduce", "the reproduction did not fail",
          "the healthy program failed", "report --json")


class CaseFiles(unittest.TestCase):
    def test_every_case_says_where_it_comes_from_and_what_it_expects(self):
        names = corpus.list_cases()
        kinds = [corpus.load_case(n)["kind"] for n in names]
        self.assertGreaterEqual(kinds.count("reproduction"), 25)
        self.assertGreaterEqual(kinds.count("healthy"), 10)
        threads = set()
        for n in names:
            c = corpus.load_case(n)
            with self.subTest(case=n):
                self.assertIn(c["kind"], ("reproduction", "healthy"))
                self.assertTrue(c["layout"], "a case needs a layout")
                self.assertTrue(set(c["program"]) & {"python", "c", "argv"})
                if "known_miss" in c:
                    self.assertTrue(c["known_miss"].strip(), "known_miss needs its reason")
                if c["kind"] == "healthy":
                    self.assertTrue(c.get("title"))
                    continue
                t = c["thread"]
                self.assertRegex(t["project"], r"^[\w.-]+/[\w.-]+$")
                self.assertIsInstance(t["number"], int)
                self.assertNotIn((t["project"], t["number"]), threads, "one case per thread")
                threads.add((t["project"], t["number"]))
                for key in ("error", "root_cause"):
                    self.assertGreater(len(c[key]), 20, key)
                # the program must print a piece of the reported text
                self.assertGreater(len(c["reproduces"]), 20)
                want = c["expected"]
                self.assertTrue(want["ids"])
                self.assertLessEqual(set(want["ids"]), IDS)
                self.assertTrue(want["culprits"])


@unittest.skipUnless(os.access(corpus.PY, os.X_OK), "needs Debian's /usr/bin/python3")
class Corpus(unittest.TestCase):
    def test_corpus(self):
        problem = corpus.namespace_problem()
        if problem:
            self.skipTest("the case corpus runs each case with its own /etc/ld.so.cache: " + problem)
        results, workroot = corpus.run_all()
        self.addCleanup(shutil.rmtree, workroot, True)
        print("\n" + corpus.table(results), file=sys.stderr)
        problems = []
        for r in results:
            if r["ok"] and r["known_miss"]:
                problems.append("%s passes now: remove its known_miss (%s)" % (r["name"], r["known_miss"]))
            elif not r["ok"] and (not r["known_miss"] or r["why"].startswith(BROKEN)):
                problems.append("%s: %s" % (r["name"], r["why"]))
        self.assertEqual(problems, [], "\n" + "\n".join(problems))
        healthy = [r for r in results if r["kind"] == "healthy"]
        self.assertTrue(all(r["ok"] or r["known_miss"] for r in healthy))


class Judging(unittest.TestCase):
    """How a finding is matched to a case's culprit."""

    def test_culprit_named_by_path_link_folder_or_name(self):
        import tempfile
        root = tempfile.mkdtemp(prefix="gt-judge-")
        self.addCleanup(shutil.rmtree, root, True)
        os.makedirs(os.path.join(root, "lib"))
        real = os.path.join(root, "lib", "libx.so.1.2")
        open(real, "w").close()
        os.symlink("libx.so.1.2", os.path.join(root, "lib", "libx.so.1"))
        by_link = {"summary": "s", "evidence": [{"path": os.path.join(root, "lib", "libx.so.1")}], "fix": ""}
        self.assertTrue(corpus.names_culprit(by_link, "lib/libx.so.1.2", root))
        self.assertTrue(corpus.names_culprit(by_link, "lib", root))
        self.assertFalse(corpus.names_culprit(by_link, "other", root))
        in_fix = {"summary": "", "evidence": [], "fix": "remove %s/lib from LD_LIBRARY_PATH." % root}
        self.assertTrue(corpus.names_culprit(in_fix, "lib", root))
        self.assertFalse(corpus.names_culprit(in_fix, "lib/libx.so.1.2", root))
        by_name = {"summary": "libcuda.so.1: cannot open shared object file", "evidence": [], "fix": ""}
        self.assertTrue(corpus.names_culprit(by_name, "libcuda.so.1", root))
        self.assertFalse(corpus.names_culprit(by_name, "libcuda.so", root))
        self.assertTrue(corpus.names_culprit({"summary": "no libcuda.so: gone", "evidence": [], "fix": ""}, "libcuda.so", root))
        self.assertFalse(corpus.names_culprit({"summary": json.dumps({}), "evidence": [], "fix": ""},
                                              "libcuda.so.1", root))


if __name__ == "__main__":
    unittest.main()
