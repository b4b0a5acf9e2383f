"""End-to-end: a fixed sample of the real commands (tests/real/commands.py,
every category) runs bare twice and under gputrace once, and must do the
same, with no error finding on a healthy command. The whole list is
`make check-real-commands`; this is its quick, deterministic part."""
import os
import re
import shutil
import stat
import tempfile
import unittest

from tests.e2e import gtlib, schemas
from tests.real import commands, run_real

# About 40 commands, chosen so that each category of the list and each case
# issue 34 names is here: pipelines that end by SIGPIPE, dash's ends, make's
# and git's shells, self-inflicted signals, _exit one process down, env -i,
# ldd, the environment and maps, nvcc.
SAMPLE = [
    "cat-n", "sort-rn", "cp-r",
    "sh-echo-ab", "sh-subst", "sh-subshell", "sh-script",
    "bash-array", "bash-procsubst", "bash-fd-801",
    "sh-yes-head", "bash-pipestatus", "sh-sort-uniq",
    "make-all", "make-fail",
    "git-hook",
    "tar-gzip", "tar-xz",
    "gcc-run", "clang-run", "gcc-dlopen",
    "perl-fork",
    "node-execsync",
    "py-ctypes-libc", "py-fork",
    "np-basic",
    "torch-import",
    "mp-fork-pool", "mp-spawn-pool",
    "os-system", "subprocess-shell",
    "sh-kill-term", "sh-kill-segv", "py-kill-term", "sh-kill-usr1-parent",
    "py-_exit-3", "sh-py-_exit",
    "sh-env-i", "ldd-names", "env-print", "maps-lines",
    "ulimit-n4",
    "nvcc-compile",
    "jq-sort", "grep-none",
]


def explain(res):
    """The runner's own account of one command, for a failure message."""
    return "\n" + "\n".join(run_real.problem_lines(res))


class RealCommandsList(unittest.TestCase):
    def test_list(self):
        ids = [c.id for c in commands.COMMANDS]
        self.assertGreaterEqual(len(ids), 300)
        self.assertEqual(len(ids), len(set(ids)), "ids must be unique")
        # The first python3 on a PATH may be one without Debian's packages.
        for c in commands.COMMANDS:
            self.assertIsNone(re.search(r"(?<![/\w])python3\b", " ".join(c.argv)),
                              c.id + ": name /usr/bin/python3, not python3")

    def test_sample_covers_every_category(self):
        by_id = {c.id: c for c in commands.COMMANDS}
        self.assertEqual([i for i in SAMPLE if i not in by_id], [])
        self.assertEqual(set(commands.CATEGORIES), {by_id[i].category for i in SAMPLE})


class RealCommandsSample(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The e2e package checks every report it parses against schema/; its
        # validators are built on first use, which two of the runner's
        # threads must not race to do.
        schemas.validator("report")
        by_id = {c.id: c for c in commands.COMMANDS}
        cls.results = run_real.run_all([by_id[i] for i in SAMPLE], gtlib.BUILD, jobs=2)

    def test_bare_runs_as_listed(self):
        for res in self.results:
            with self.subTest(res.cmd.id):
                self.assertIsNone(res.bare_problem, explain(res))

    def test_same_under_gputrace(self):
        for res in self.results:
            with self.subTest(res.cmd.id):
                self.assertEqual(res.differences, [], explain(res))

    def test_no_error_finding_on_healthy_runs(self):
        for res in self.results:
            with self.subTest(res.cmd.id):
                self.assertEqual(res.errors, [], explain(res))

    def test_report_exits_0_or_1_with_json(self):
        for res in self.results:
            with self.subTest(res.cmd.id):
                self.assertIsNone(res.report_problem, explain(res))


# A stand-in for gputrace that changes what the command prints and whose
# report has one error finding: the harness must see both, or a passing
# sample would prove nothing.
FAKE_GPUTRACE = """#!/usr/bin/python3
import json, os, subprocess, sys
if sys.argv[1] == "report":
    print(json.dumps({"findings": [{"id": "crashed", "severity": "error", "summary": "fake",
                                    "processes": [1]}],
                      "processes": [{"pid": 1, "argv": ["x"]}]}))
    sys.exit(1)
argv = sys.argv[sys.argv.index("--") + 1:]
out = sys.argv[sys.argv.index("-o") + 1]
os.makedirs(out)
open(os.path.join(out, "fake.1.jsonl"), "w").close()
r = subprocess.run(argv)
print("observer effect")
sys.exit(r.returncode)
"""


class HarnessSeesDifferences(unittest.TestCase):
    def test_fake_tracer_is_caught(self):
        build = tempfile.mkdtemp(prefix="gt-real-fake-")
        self.addCleanup(shutil.rmtree, build, ignore_errors=True)
        path = os.path.join(build, "gputrace")
        with open(path, "w") as f:
            f.write(FAKE_GPUTRACE)
        os.chmod(path, stat.S_IRWXU)
        open(os.path.join(build, "libgputrace.so"), "w").close()

        same = commands.run("echo-x", "echo x")
        noisy = commands.run("noisy", "date +%N")
        for c in (same, noisy):
            c.category = "test"
        res_same, res_noisy = run_real.run_all([same, noisy], build, jobs=2)

        self.assertEqual([d[0] for d in res_same.differences], ["stdout"])
        self.assertIn("observer effect", res_same.differences[0][2])
        self.assertEqual([e[0] for e in res_same.errors], ["crashed"])
        self.assertIsNone(res_same.report_problem)
        # date's stdout differs between the bare runs: left out, not a difference.
        self.assertEqual(res_noisy.nondeterministic, ["stdout"])
        self.assertEqual(res_noisy.differences, [])
        text = run_real.summary([res_same, res_noisy], 1.0, build)
        self.assertIn("DIFFERENCE echo-x", text)
        self.assertIn("nondeterministic noisy: stdout", text)


if __name__ == "__main__":
    unittest.main()
