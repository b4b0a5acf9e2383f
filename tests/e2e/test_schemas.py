"""The JSON Schemas of schema/ (issue 16): valid, every key described, strict
enough that a misspelled key fails, and applied: each format this file makes
(a trace, report --json, scan --json, doctor --json) goes through the
json.loads check that every e2e test uses (tests/e2e/schemas.py)."""
import copy
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e import finding_table, schemas
from tests.e2e.gtlib import GPUTRACE, PROGS, traces_in

MAN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "man")


def walk(node, path="#"):
    """Every (path, schema object) under node."""
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from walk(v, path + "/" + k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, "%s/%d" % (path, i))


class Schemas(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="gt-schema-")
        cls.traced = subprocess.run([GPUTRACE, "-q", "-o", cls.dir, "--", os.path.join(PROGS, "cuda_ops")],
                                    capture_output=True, timeout=120)
        cls.report = subprocess.run([GPUTRACE, "report", "--json", cls.dir], capture_output=True, timeout=120)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_every_schema_is_valid_and_every_key_described(self):
        files = sorted(glob.glob(os.path.join(schemas.SCHEMA_DIR, "*.schema.json")))
        self.assertEqual([os.path.basename(f) for f in files],
                         ["diff.schema.json", "doctor.schema.json", "facts.schema.json", "finding.schema.json",
                          "fleet.schema.json",
                          "report.schema.json", "retry.schema.json", "scan.schema.json",
                          "trace-line.schema.json"])
        for name in ("trace-line", "report", "scan", "doctor", "finding", "diff", "fleet", "retry", "facts"):
            v = schemas.validator(name)
            for where, node in walk(v.schema):
                # (an if's properties only pick the branch: no documentation there)
                skip = where.split("/")[-1] in ("properties", "if")
                for key, sub in node.get("properties", {}).items() if not skip else ():
                    self.assertTrue(isinstance(sub, dict) and (sub.get("description") or "$ref" in sub),
                                    "%s: %s/properties/%s has no description" % (name, where, key))
                if node.get("type") == "object" and "properties" in node and "allOf" not in node:
                    self.assertIs(node.get("additionalProperties"), False, "%s: %s is not strict" % (name, where))

    def test_each_format_is_checked(self):
        self.assertEqual(self.traced.returncode, 0, self.traced.stderr[-2000:])
        before = dict(schemas.validated)
        traces = traces_in(self.dir)  # each line through json.loads
        self.assertTrue(traces)
        json.loads(self.report.stdout)
        scan = subprocess.run([GPUTRACE, "scan", "--json", os.path.join(PROGS, "..", "fixtures", "cuda-13")],
                              capture_output=True, timeout=120)
        json.loads(scan.stdout)
        doctor = subprocess.run([GPUTRACE, "doctor", "--json", "--python", "/bin/false"], capture_output=True,
                                timeout=120)
        json.loads(doctor.stdout)
        for kind, n in (("trace-line", sum(len(t.lines) for t in traces)), ("report", 1), ("scan", 1),
                        ("doctor", 1)):
            self.assertEqual(schemas.validated[kind] - before.get(kind, 0), n, kind)

    def reject(self, obj, kind):
        with self.assertRaises(AssertionError) as cm:
            schemas.check(obj, kind)
        return str(cm.exception)

    def test_misspelled_keys_fail(self):
        rep = json.loads(self.report.stdout)
        lib = rep["processes"][0]["libraries"][0]
        bad = copy.deepcopy(rep)
        bad["processes"][0]["libraries"][0]["foundby"] = bad["processes"][0]["libraries"][0].pop("found_by")
        self.assertIn("foundby", self.reject(bad, "report"))
        bad = copy.deepcopy(rep)
        bad["processes"][0]["libraries"][0]["found_by"] = "ldcache"
        self.assertIn("ldcache", self.reject(bad, "report"))
        self.assertIn(lib["found_by"], ("ld_so_cache", "rpath", "runpath", "ld_library_path", "default", "absolute"))
        line = traces_in(self.dir)[0].lines[0]
        bad = dict(line, pid_=1)
        self.assertIn("pid_", self.reject(bad, "trace-line"))
        self.assertIn("'ev'", self.reject({"t_us": 1}, "trace-line"))
        self.assertIn("nonsense", self.reject({"ev": "nonsense"}, "trace-line"))
        finding = {"id": "driver-missing", "severity": "fatal", "summary": "s", "evidence": [], "fix": "f"}
        self.assertIn("fatal", self.reject(finding, "finding"))
        finding = {"id": "x", "severity": "error", "summary": "s", "fix": "f", "evidence": [{"what": "w", "pth": "/a"}]}
        self.assertIn("pth", self.reject(finding, "finding"))
        self.assertIn("'what'", self.reject(dict(finding, evidence=[{"path": "/a"}]), "finding"))

    def test_hex_siblings_and_chain(self):
        """A non-UTF-8 string's _hex sibling is allowed (and must be hex);
        scan's chain is an array, its place values the rules' spelling."""
        line = {"ev": "open", "t_us": 1, "path": "/a/\ufffd", "path_hex": "2f612fff", "ns": 0}
        schemas.check(line, "trace-line")
        self.assertIn("path_hex", self.reject(dict(line, path_hex="xyz"), "trace-line"))
        scan = subprocess.run([GPUTRACE, "scan", "--json", os.path.join(PROGS, "..", "fixtures", "cuda-13")],
                              capture_output=True, timeout=120)
        o = json.loads(scan.stdout)
        c = copy.deepcopy(o)
        c["copies"][0]["chain"] = " -> ".join(c["copies"][0]["chain"])
        self.assertIn("chain", self.reject(c, "scan"))
        c = copy.deepcopy(o)
        c["copies"][0]["where"] = "ld.so.cache"
        self.assertIn("ld.so.cache", self.reject(c, "scan"))


class FindingTable(unittest.TestCase):
    """What repeats the finding ids of include/gputrace/findings.h agrees with
    it: the schema's enum, the man page's sections, the severities."""

    def test_schema_enum_is_the_table(self):
        with open(os.path.join(schemas.SCHEMA_DIR, "finding.schema.json")) as f:
            ids = json.load(f)["properties"]["id"]["enum"]
        self.assertEqual(ids, finding_table.IDS, "schema/finding.schema.json's id enum, in the table's order")
        self.assertEqual(len(set(ids)), len(ids))

    def test_table_rows(self):
        self.assertTrue(finding_table.ROWS)
        for r in finding_table.ROWS:
            self.assertEqual(r.enum, r.id.upper().replace("-", "_"), r)
            self.assertRegex(r.id, r"^[a-z]+(-[a-z]+)*$")
            self.assertLessEqual(finding_table.SEVERITIES.index(r.lowest),
                                 finding_table.SEVERITIES.index(r.highest), r)
            self.assertTrue(r.title, r)

    def test_man_page_section_per_id(self):
        """Each id's anchor names a .SS section of its man page, and
        gputrace-report(1) has one for every id."""
        def sections(page):
            with open(os.path.join(MAN_DIR, page)) as f:
                heads = re.findall(r"^\.SS (.*)$", f.read(), re.M)
            return {h.replace("\\-", "-").split(" (")[0].strip() for h in heads}
        report = sections("gputrace-report.1")
        for r in finding_table.ROWS:
            page, _, name = r.anchor.partition("#")
            self.assertEqual(name, r.id, r)
            self.assertIn(name, sections(page), "%s: no .SS %s in man/%s" % (r.id, name, page))
            self.assertIn(r.id, report, "man/gputrace-report.1 has no section for %s" % r.id)

    def reject(self, obj, kind):
        with self.assertRaises(AssertionError) as cm:
            schemas.check(obj, kind)
        return str(cm.exception)

    def test_severity_outside_the_table_fails(self):
        finding = {"id": "crashed", "severity": "warning", "summary": "s", "evidence": [], "fix": "f"}
        self.assertIn("severity outside the finding table", self.reject(finding, "finding"))
        schemas.check(dict(finding, severity="error"), "finding")
        self.assertIn("not-an-id", self.reject(dict(finding, id="not-an-id"), "finding"))
        self.assertIn("not-an-id", self.reject(dict(finding, severity="error", caused_by=["not-an-id"]),
                                               "finding"))


if __name__ == "__main__":
    unittest.main()
