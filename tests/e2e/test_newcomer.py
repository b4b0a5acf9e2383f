"""A newcomer's first hour (issue 30): every answer right, short and paste-able.

- the program's stdout is the program's, in every mode of the command: gputrace's
  own lines go to stderr (or to -o files), never to stdout;
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, PROGS

TORCHLIKE = os.path.join(FIX, "scenarios", "sc_torchlike")
STEERING = ("LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT", "CUDA_HOME", "CONDA_PREFIX", "VIRTUAL_ENV",
            "CUDA_VISIBLE_DEVICES", "GPUTRACE_DIR", "GPUTRACE_DISABLE", "RANK", "OMPI_COMM_WORLD_RANK",
            "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", "NO_COLOR", "PIP_REQUIRE_VIRTUALENV")


def fix(rel):
    return os.path.join(FIX, rel)


def clean_env(extra=None):
    e = {k: v for k, v in os.environ.items() if k not in STEERING}
    e.setdefault("ASAN_OPTIONS", "verify_asan_link_order=0")
    e.update(extra or {})
    return e


# The torch-like scenario with the system cuDNN 9.14 first on LD_LIBRARY_PATH:
# mixed-versions and shadowed-library, with a fix of the environment.
MIXED_ENV = {"LD_LIBRARY_PATH": "%s:%s" % (fix("system/lib"), fix("driver"))}


class Case(unittest.TestCase):
    maxDiff = None

    def tmp(self):
        d = tempfile.mkdtemp(prefix="gt-newcomer-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def gt(self, *args, env=None, timeout=120):
        return subprocess.run([GPUTRACE, *args], capture_output=True, env=clean_env(env),
                              stdin=subprocess.DEVNULL, timeout=timeout)


class ProgramOwnsStdout(Case):
    """gputrace's own lines never reach the program's stdout, in any mode."""

    def bare(self, argv, env=None):
        return subprocess.run(argv, capture_output=True, env=clean_env(env), stdin=subprocess.DEVNULL,
                              timeout=60).stdout

    def check_mode(self, args, env=None, expect=None):
        want = self.bare([TORCHLIKE], dict(MIXED_ENV, **(env or {}))) if expect is None else expect
        r = self.gt(*args, env=dict(MIXED_ENV, **(env or {})))
        self.assertNotEqual(r.returncode, 125, r.stderr)
        self.assertEqual(r.stdout, want, "mode %s: stdout must be the program's alone" % (args,))
        self.assertNotIn(b"gputrace", r.stdout)
        return r

    def test_plain_run(self):
        r = self.check_mode(["--", TORCHLIKE])
        self.assertIn(b"mixed-versions", r.stderr, "the diagnosis is on stderr")

    def test_quiet_and_output_folder(self):
        out = os.path.join(self.tmp(), "o")
        self.check_mode(["-q", "-o", out, "--", TORCHLIKE])
        r = self.check_mode(["-o", out, "--append", "--", TORCHLIKE])
        self.assertIn(b"mixed-versions", r.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "report.txt")))

    def test_colour_always(self):
        self.check_mode(["--color=always", "--", TORCHLIKE])

    def test_rank_of_a_job(self):
        out = os.path.join(self.tmp(), "job")
        r = self.check_mode(["-o", out, "--", TORCHLIKE], env={"RANK": "0"})
        self.assertIn(b"gputrace report", r.stderr)

    def test_disabled(self):
        self.check_mode(["--", TORCHLIKE], env={"GPUTRACE_DISABLE": "1"})

    def test_static_program_runs_untraced(self):
        prog = os.path.join(PROGS, "static_hello")
        r = self.check_mode(["--", prog], expect=self.bare([prog]))
        self.assertIn(b"untraced", r.stderr)

    def test_try_fixes(self):
        """The program's stdout of the first run, then of each run again: nothing else."""
        out = os.path.join(self.tmp(), "o")
        fixed = self.bare([TORCHLIKE], {"LD_LIBRARY_PATH": fix("driver")})
        first = self.bare([TORCHLIKE], MIXED_ENV)
        r = self.check_mode(["-o", out, "--try-fixes", "--", TORCHLIKE], expect=first + fixed)
        self.assertIn(b"fixed: all clear", r.stderr)

    def test_retry(self):
        out = os.path.join(self.tmp(), "o")
        self.check_mode(["-q", "-o", out, "--", TORCHLIKE])
        fixed = self.bare([TORCHLIKE], {"LD_LIBRARY_PATH": fix("driver")})
        r = self.gt("retry", "--yes", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, fixed, "retry's own lines go to stderr")
        self.assertIn(b"mixed-versions gone", r.stderr)

    def test_retry_json(self):
        """--json: stdout is gputrace's one object, the program's output goes to stderr."""
        out = os.path.join(self.tmp(), "o")
        self.check_mode(["-q", "-o", out, "--", TORCHLIKE])
        r = self.gt("retry", "--yes", "--json", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["format"], "gputrace-retry")
        self.assertIn(b"torchlike_conv() = 0", r.stderr)

    def test_command_not_found(self):
        r = self.gt("--", "no-such-program-gt30")
        self.assertEqual(r.returncode, 127)
        self.assertEqual(r.stdout, b"")


if __name__ == "__main__":
    unittest.main()
