"""One command line (issue 16): options after operands, one error prefix and a
short hint, "did you mean", exit 125 for gputrace's own failures, -o refusal,
scan ROOT, colour."""
import json
import os
import pty
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import GPUTRACE, PROGS, FIX

LOAD_AND_DIE = os.path.join(PROGS, "load_and_die")
RED = b"\033[31m"
ESC = b"\033["


def gt(*args, env=None, **kw):
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e.update(env or {})
    return subprocess.run([GPUTRACE, *args], env=e, capture_output=True, timeout=120, **kw)


class CliCase(unittest.TestCase):
    def tmp(self):
        d = tempfile.mkdtemp(prefix="gt-cli-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def traces_with_an_error(self):
        """A folder of traces whose report has an error (library-not-found in
        a run that failed)."""
        out = os.path.join(self.tmp(), "t")
        env = {"LD_LIBRARY_PATH": "", "CUDA_HOME": os.path.join(FIX, "cuda-12")}
        p = gt("-q", "-o", out, "--", LOAD_AND_DIE, "exit1", "libcudnn.so.8", env=env)
        self.assertEqual(p.returncode, 1, p.stderr)
        return out


class OptionsAfterOperands(CliCase):
    def test_report_dir_then_json(self):
        out = self.traces_with_an_error()
        before, after = gt("report", "--json", out), gt("report", out, "--json")
        self.assertEqual(after.returncode, 1, after.stderr)
        self.assertEqual(json.loads(after.stdout)["findings"], json.loads(before.stdout)["findings"])
        self.assertEqual(after.stderr, b"")

    def test_scan_root_then_json(self):
        root = self.tmp()
        p = gt("scan", root, "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["format"], "gputrace-scan")
        self.assertNotIn(b"note:", p.stdout)

    def test_program_arguments_stay_the_programs(self):
        out = os.path.join(self.tmp(), "t")
        p = gt("-q", "-o", out, "sh", "-c", 'printf "%s|" "$@"', "sh", "--json", "-o", "x", "--help")
        self.assertEqual((p.returncode, p.stdout), (0, b"--json|-o|x|--help|"), p.stderr)


class Errors(CliCase):
    def assert_usage(self, p, who, status, message):
        self.assertEqual(p.returncode, status, p.stderr)
        self.assertEqual(p.stderr.decode(), f"{who}: {message}\nTry '{who} --help'.\n")
        self.assertEqual(p.stdout, b"")

    def test_one_prefix_and_a_short_hint(self):
        self.assert_usage(gt("--bogus", "true"), "gputrace", 125, "unknown option '--bogus'")
        self.assert_usage(gt("-o"), "gputrace", 125, "option '-o' needs a value")
        self.assert_usage(gt("report", "--bogus", "x"), "gputrace report", 2, "unknown option '--bogus'")
        self.assert_usage(gt("report"), "gputrace report", 2, "no trace file or folder given")
        self.assert_usage(gt("scan", "-x"), "gputrace scan", 2, "unknown option '-x'")
        self.assert_usage(gt("doctor", "extra"), "gputrace doctor", 2, "unexpected argument 'extra'")
        self.assert_usage(gt("doctor", "--python"), "gputrace doctor", 2, "option '--python' needs a value")

    def test_did_you_mean_a_subcommand(self):
        p = gt("reprot", "traces")
        self.assertEqual(p.returncode, 127)
        self.assertEqual(p.stderr.decode().splitlines(), [
            "gputrace: reprot: command not found",
            "gputrace: did you mean 'gputrace report'? (a subcommand; 'reprot' is not a program on PATH)"])
        self.assertIn(b"did you mean 'gputrace scan'?", gt("sacn").stderr)
        self.assertIn(b"did you mean 'gputrace doctor'?", gt("docter").stderr)

    def test_help_subcommand_points_to_its_help(self):
        p = gt("help", "report")
        self.assertEqual(p.returncode, 127)
        self.assertIn(b"did you mean 'gputrace report --help'?", p.stderr)
        self.assertIn(b"did you mean 'gputrace --help'?", gt("help").stderr)

    def test_no_hint_for_far_words_or_real_programs(self):
        p = gt("gputrace-no-such-program")
        self.assertEqual(p.returncode, 127)
        self.assertNotIn(b"did you mean", p.stderr)
        # A program of that name exists: it runs, as the first-word rule says.
        folder = self.tmp()
        with open(os.path.join(folder, "reprot"), "w") as f:
            f.write("#!/bin/sh\nexit 127\n")
        os.chmod(os.path.join(folder, "reprot"), 0o755)
        p = gt("-q", "reprot", env={"PATH": folder + ":" + os.environ["PATH"]})
        self.assertEqual(p.returncode, 127)
        self.assertNotIn(b"did you mean", p.stderr)
        # After '--' the word is a program, never a subcommand.
        self.assertNotIn(b"did you mean", gt("--", "reprot").stderr)


class OwnFailures(CliCase):
    """125 is gputrace's own; 126 and 127 stay the command's."""

    def test_statuses_apart(self):
        lib_missing = gt("true", env={"GPUTRACE_LIB": "/nonexistent/libgputrace.so"})
        self.assertEqual(lib_missing.returncode, 125)
        self.assertEqual(gt("--", "gputrace-no-such-program").returncode, 127)
        with tempfile.NamedTemporaryFile(suffix=".sh") as f:
            self.assertEqual(gt("--", f.name).returncode, 126)
        self.assertEqual(gt("--no-such-option", "true").returncode, 125)
        self.assertEqual(gt("-q", "sh", "-c", "exit 125").returncode, 125)  # the command's own


class OutputFolder(CliCase):
    def test_folder_with_traces_refused_unless_append(self):
        out = os.path.join(self.tmp(), "t")
        self.assertEqual(gt("-q", "-o", out, "true").returncode, 0)
        p = gt("-q", "-o", out, "sh", "-c", "echo ran")
        self.assertEqual(p.returncode, 125)
        self.assertEqual(p.stdout, b"")  # the command did not run
        self.assertIn(f"gputrace: {out} already holds 1 trace file of an earlier run".encode(), p.stderr)
        self.assertIn(b"--append", p.stderr)
        self.assertEqual(len([n for n in os.listdir(out) if n.endswith(".jsonl")]), 1)
        p = gt("-q", "-o", out, "--append", "true")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len([n for n in os.listdir(out) if n.endswith(".jsonl")]), 2)

    def test_ranks_of_one_job_share_a_folder(self):
        out = os.path.join(self.tmp(), "t")
        for rank in ("0", "1"):
            p = gt("-q", "-o", out, "true", env={"RANK": rank})
            self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len([n for n in os.listdir(out) if n.endswith(".jsonl")]), 2)

    def test_folder_with_only_a_report_is_fine(self):
        out = self.tmp()
        with open(os.path.join(out, "notes.txt"), "w") as f:
            f.write("mine\n")
        self.assertEqual(gt("-q", "-o", out, "true").returncode, 0)

    def test_a_file_is_not_a_directory(self):
        with tempfile.NamedTemporaryFile() as f:
            p = gt("-q", "-o", f.name, "true")
            self.assertEqual(p.returncode, 125)
            self.assertEqual(p.stderr.decode(), f"gputrace: {f.name}: not a directory\n")

    def test_append_needs_o(self):
        p = gt("--append", "true")
        self.assertEqual(p.returncode, 125)
        self.assertIn(b"--append needs -o DIR", p.stderr)


class ScanRoot(CliCase):
    def test_missing_root_is_an_error(self):
        missing = os.path.join(self.tmp(), "no-such-root")
        for args in ((missing,), (missing, "--json")):
            p = gt("scan", *args)
            self.assertEqual(p.returncode, 2)
            self.assertEqual(p.stdout, b"")
            self.assertEqual(p.stderr.decode(), f"gputrace scan: {missing}: No such file or directory\n")

    def test_notes_go_to_stderr(self):
        root = self.tmp()
        cache = os.path.join(root, "ld.so.cache")
        with open(cache, "w") as f:
            f.write("not a cache\n")
        for args in ((root,), (root, "--json")):
            p = gt("scan", *args, env={"GPUTRACE_LD_SO_CACHE": cache})
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertNotIn(b"note:", p.stdout)
            self.assertIn(f"gputrace scan: note: {cache}: ".encode(), p.stderr)
            self.assertIn(b"not an ld.so cache", p.stderr)


class Colour(CliCase):
    """--color=auto|always|never everywhere; auto: a terminal, no NO_COLOR, TERM not dumb."""

    def on_a_terminal(self, args, env):
        """Runs gputrace with stdout on a pseudo-terminal; returns what it printed."""
        master, slave = pty.openpty()
        e = dict(os.environ)
        e.pop("NO_COLOR", None)
        e.update(env)
        p = subprocess.Popen([GPUTRACE, *args], stdout=slave, stderr=subprocess.DEVNULL, env=e)
        os.close(slave)
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        p.wait(timeout=60)
        return out

    def test_report(self):
        out = self.traces_with_an_error()
        self.assertIn(RED, gt("report", out, "--color=always").stdout)
        self.assertIn(RED, gt("report", "--color", out).stdout)
        self.assertNotIn(ESC, gt("report", out).stdout)  # a pipe: auto says no
        self.assertNotIn(ESC, gt("report", out, "--color=never").stdout)
        self.assertIn(RED, self.on_a_terminal(["report", out], {"TERM": "xterm"}))
        self.assertNotIn(ESC, self.on_a_terminal(["report", out], {"TERM": "dumb"}))
        self.assertNotIn(ESC, self.on_a_terminal(["report", out], {"TERM": "xterm", "NO_COLOR": "1"}))
        self.assertIn(RED, self.on_a_terminal(["report", "--color=always", out],
                                              {"TERM": "dumb", "NO_COLOR": "1"}))
        self.assertNotIn(ESC, self.on_a_terminal(["report", "--tree", "--color=never", out],
                                                 {"TERM": "xterm"}))
        p = gt("report", out, "--color=sometimes")
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"gputrace report: --color=sometimes: say auto, always or never", p.stderr)

    def test_trace_summary(self):
        env = {"LD_LIBRARY_PATH": "", "CUDA_HOME": os.path.join(FIX, "cuda-12")}
        argv = ["--", LOAD_AND_DIE, "exit1", "libcudnn.so.8"]
        self.assertIn(RED, gt("--color=always", *argv, env=env).stderr)
        self.assertNotIn(ESC, gt("--color=never", *argv, env=env).stderr)
        self.assertNotIn(ESC, gt(*argv, env=env).stderr)

    def test_scan(self):
        root = self.tmp()  # cuDNN parts of two releases in one folder: an error
        shutil.copy(os.path.join(FIX, "system", "lib", "libcudnn.so.9.14.0"), root)
        shutil.copy(os.path.join(FIX, "site-packages", "nvidia", "cudnn", "lib", "libcudnn_graph.so.9"),
                    os.path.join(root, "libcudnn_graph.so.9.19.0"))
        always, never = gt("scan", root, "--color=always"), gt("scan", "--color=never", root)
        self.assertEqual((always.returncode, never.returncode), (1, 1))
        self.assertIn(b"mixed-versions", never.stdout)
        self.assertIn(RED, always.stdout)
        self.assertNotIn(ESC, never.stdout)
        self.assertEqual(always.stdout.replace(RED, b"").replace(b"\033[0m", b""), never.stdout)

    def test_doctor(self):
        env = {"LD_LIBRARY_PATH": ""}
        always = gt("doctor", "--python", "/nonexistent-python", "--color=always", env=env)
        self.assertEqual(always.returncode, 2)  # a usage error comes before any colour
        p = gt("doctor", "--color=always", env=env)
        self.assertIn(p.returncode, (0, 1))
        self.assertIn(b"gputrace doctor: the GPU chain", p.stdout)
        self.assertIn(ESC, p.stdout)
        q = gt("doctor", "--color=never", env=env)
        self.assertNotIn(ESC, q.stdout)


if __name__ == "__main__":
    unittest.main()
