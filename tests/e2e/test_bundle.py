"""gputrace bundle DIR (issue 31 part 3): one .tar.gz of the traces, the facts,
the report and a SUMMARY.md for a bug report, with secrets removed.

A trace whose process held SECRET_TOKEN=s3cr3t-value (argv of env, the header's
environment, an option --token VALUE) and a URL https://user:pw@host (PYTHONPATH,
an exact-bytes _hex twin, the facts file): no member of the archive holds the
value, the password or their hex, compressed or not; the traces and the JSON
still parse; SUMMARY.md names what went (names only), renders as GitHub
Markdown (cmark-gfm, Debian's) with well-formed tables, and carries the verdict,
the findings with fixes, the libraries and the host."""
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, run_traced

SECRET = b"s3cr3t-value"
PASSWORD = b"user:pw"
URL = "https://user:pw@host/py"
# The planted header holds variables no writer records (the schema says which):
# its lines are read without the schema check the e2e tests put on json.loads.
plain_loads = json.JSONDecoder().decode
CMARK = shutil.which("cmark-gfm")


def bundle(*args):
    return subprocess.run([GPUTRACE, "bundle", *args], capture_output=True, timeout=120)


def members(path):
    """name -> bytes of every regular member, gzip members opened too."""
    out = {}
    with tarfile.open(path, "r:gz") as t:
        for m in t.getmembers():
            if m.isfile():
                data = t.extractfile(m).read()
                if data[:2] == b"\x1f\x8b":
                    data = gzip.decompress(data)
                out[m.name] = data
    return out


def leaks(data):
    found = []
    for secret in (SECRET, PASSWORD, b"pw@host"):
        for form in (secret, secret.hex().encode(), secret.hex().upper().encode()):
            if form in data:
                found.append(form)
    return found


class Secrets(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gt-bundle-")
        env = {"LD_LIBRARY_PATH": "%s/system/lib:%s/driver" % (FIX, FIX)}
        run = run_traced(["env", "SECRET_TOKEN=s3cr3t-value", "PYTHONPATH=" + URL,
                          os.path.join(FIX, "scenarios/sc_torchlike"), "--token", "s3cr3t-value"],
                         env=env, outdir=os.path.join(cls.tmp, "run"))
        cls.dir = run.outdir
        cls.plant_secrets(cls.dir)
        cls.result = bundle("-o", os.path.join(cls.tmp, "bug.tar.gz"), cls.dir)
        cls.members = members(os.path.join(cls.tmp, "bug.tar.gz")) if cls.result.returncode == 0 else {}

    @classmethod
    def plant_secrets(cls, d):
        """What a later writer or another host might record: the variable in the
        header's environment, a URL as exact bytes, and in the facts file."""
        (trace,) = [os.path.join(d, f) for f in os.listdir(d) if f.endswith(".jsonl")]
        with open(trace, "rb") as f:
            lines = f.read().split(b"\n")
        head = json.loads(lines[0])
        head["env"]["SECRET_TOKEN"] = "s3cr3t-value"
        head["env"]["CUDA_HOME_hex"] = "https://user:pw@host/cuda".encode().hex()
        lines[0] = json.dumps(head, separators=(",", ":")).encode()
        with open(trace, "wb") as f:
            f.write(b"\n".join(lines))
        facts_path = os.path.join(d, "gputrace-facts.json")
        with open(facts_path) as f:
            facts = json.load(f)
        (host,) = facts["hosts"].values()
        host.setdefault("exists", {})["/opt/" + URL + "/libx.so"] = False
        with open(facts_path, "w") as f:
            json.dump(facts, f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)

    def test_the_folder_did_hold_the_secrets(self):
        held = b""
        for f in os.listdir(self.dir):
            with open(os.path.join(self.dir, f), "rb") as fh:
                held += fh.read()
        self.assertIn(SECRET, held)
        self.assertIn(PASSWORD, held)
        self.assertIn(URL.encode().hex().encode()[:20], held)

    def test_members(self):
        names = sorted(self.members)
        self.assertIn("gputrace-bundle/SUMMARY.md", names)
        self.assertIn("gputrace-bundle/report.json", names)
        self.assertIn("gputrace-bundle/gputrace-facts.json", names)
        self.assertEqual(len([n for n in names if re.match(r"gputrace-bundle/traces/.+\.jsonl$", n)]), 1, names)

    def test_no_member_holds_a_secret(self):
        for name, data in self.members.items():
            self.assertEqual(leaks(data), [], name)
        with gzip.open(os.path.join(self.tmp, "bug.tar.gz")) as f:
            self.assertEqual(leaks(f.read()), [])

    def test_members_still_parse(self):
        for name, data in self.members.items():
            if name.endswith(".jsonl"):
                lines = [plain_loads(l.decode()) for l in data.split(b"\n") if l.strip()]
                head = lines[0]
                self.assertEqual(head["env"]["SECRET_TOKEN"], "[removed]")
                self.assertIn("SECRET_TOKEN=[removed]", [a for t in lines if t.get("ev") == "header"
                                                         for a in t.get("argv", [])])
                self.assertEqual(bytes.fromhex(head["env"]["CUDA_HOME_hex"]), b"https://host/cuda")
            elif name.endswith(".json"):
                json.loads(data)
        report = json.loads(self.members["gputrace-bundle/report.json"])
        self.assertIn("mixed-versions", [f["id"] for f in report["findings"]])

    def test_summary_says_what_went(self):
        md = self.members["gputrace-bundle/SUMMARY.md"].decode()
        removed = md.split("## Removed before sharing", 1)[1]
        self.assertIn("the value of `SECRET_TOKEN`", removed)
        self.assertIn("the value of `token`", removed)
        self.assertRegex(removed, r"the user info \(user:password@\) of \d+ URLs?")
        out = self.result.stdout.decode()
        self.assertIn("SUMMARY.md", out)

    def test_summary_content(self):
        md = self.members["gputrace-bundle/SUMMARY.md"].decode()
        self.assertTrue(md.startswith("# gputrace: NOT OK (`mixed-versions`"), md[:200])
        for heading in ("## Findings", "## Libraries", "## Processes", "## Host", "## Removed before sharing"):
            self.assertIn("\n" + heading + "\n", md)
        self.assertIn("**Fix:** Load every part from one install", md)
        self.assertIn("sc_torchlike --token [removed]` |", md)  # the code span closed after the cut
        self.assertIn("libcudnn\\_graph", md.replace("`", ""))  # the library table, escaped or as code

    @unittest.skipUnless(CMARK, "no cmark-gfm (Debian's cmark-gfm; tools/install-deps.sh installs it)")
    def test_summary_renders_as_github_markdown(self):
        md = self.members["gputrace-bundle/SUMMARY.md"]
        html = subprocess.run([CMARK, "-e", "table", "--unsafe"], input=md, capture_output=True,
                              check=True).stdout.decode()
        tables = re.findall(r"<table>(.*?)</table>", html, re.S)
        separators = [l for l in md.decode().splitlines() if re.match(r"^\| ---( \| ---)* \|$", l)]
        self.assertEqual(len(tables), len(separators))
        self.assertGreaterEqual(len(tables), 3)
        for table in tables:
            heads = len(re.findall(r"<th[ >]", table))
            rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]
            self.assertTrue(rows)
            for row in rows:
                self.assertEqual(len(re.findall(r"<td[ >]", row)), heads, row)
        self.assertIn("<h1>gputrace: NOT OK", html)
        self.assertIn("<details>", html)
        self.assertNotIn("|", re.sub(r"<code>.*?</code>", "", "".join(tables), flags=re.S).replace("\\|", ""))


class Command(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gt-bundle-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def traced(self):
        run = run_traced([os.path.join(FIX, "scenarios/sc_torchlike")],
                         env={"LD_LIBRARY_PATH": "%s/driver" % FIX}, outdir=os.path.join(self.tmp, "run"))
        return run.outdir

    def test_default_name_beside_the_folder_and_no_overwrite(self):
        d = self.traced()
        r = bundle(d + "/")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(d + ".tar.gz"))
        self.assertIn(d + ".tar.gz", r.stdout.decode())
        md = members(d + ".tar.gz")["gputrace-bundle/SUMMARY.md"].decode()
        self.assertIn("Nothing: no variable or option named like a secret", md)
        again = bundle(d)
        self.assertEqual(again.returncode, 125)
        self.assertIn("exists already", again.stderr.decode())

    def test_dot_gets_a_dated_name(self):
        d = self.traced()
        r = subprocess.run([GPUTRACE, "bundle", "."], cwd=d, capture_output=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        made = [f for f in os.listdir(d) if re.match(r"gputrace-bundle-\d{8}T\d{6}Z\.tar\.gz$", f)]
        self.assertEqual(len(made), 1, os.listdir(d))

    def test_bad_input(self):
        self.assertEqual(bundle().returncode, 2)
        self.assertEqual(bundle(os.path.join(self.tmp, "none")).returncode, 2)
        empty = os.path.join(self.tmp, "empty")
        os.mkdir(empty)
        r = bundle("-o", os.path.join(self.tmp, "x.tar.gz"), empty)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "x.tar.gz")))


if __name__ == "__main__":
    unittest.main()
