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
from tests.e2e import finding_table, test_facts

# The ids a case may expect: the finding table's (include/gputrace/findings.h).
IDS = set(finding_table.IDS)


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
        problems = corpus.problems(results)
        self.assertEqual(problems, [], "\n" + "\n".join(problems))
        healthy = [r for r in results if r["kind"] == "healthy"]
        self.assertTrue(all(r["ok"] or r["known_miss"] for r in healthy))
        # Every case's folder was read again with its layout renamed away
        # (corpus.report_elsewhere): the ids test_facts leaves to the corpus
        # must be among those it showed portable.
        got = {f["id"] for r in results if not r.get("portable") for f in r.get("findings", [])}
        self.assertLessEqual(test_facts.IN_CORPUS, got)
        self.assertFalse([r["name"] for r in results if r.get("portable")])
        # scan --for gives the trace's ids on every C program's layout
        asked = [r for r in results if "paper" in r]
        self.assertFalse([(r["name"], r["paper"]) for r in asked if r["paper"]])
        self.assertGreaterEqual(sum(1 for r in asked if corpus.load_case(r["name"])["program"].get("c")), 7)


class Judging(unittest.TestCase):
    """How a finding is matched to a case's culprit, and what fails the corpus."""

    def test_known_miss_that_passes_fails_and_broken_cases_fail(self):
        def r(name, ok, known_miss=None, why=""):
            return {"name": name, "ok": ok, "known_miss": known_miss, "why": why}
        self.assertEqual(corpus.problems([r("a", True), r("b", False, "needs x", "no error-level x naming y")]), [])
        self.assertEqual(len(corpus.problems([r("c", True, "needs x")])), 1)
        self.assertIn("remove its known_miss", corpus.problems([r("c", True, "needs x")])[0])
        self.assertEqual(len(corpus.problems([r("d", False, None, "no error-level x naming y")])), 1)
        for why in ("layout: no such file", "traced run differs: exit 1 vs 0", "does not reproduce the reported text",
                    "the trace folder read elsewhere gives another report: -x"):
            self.assertEqual(len(corpus.problems([r("e", False, "needs x", why)])), 1, why)

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
