"""A newcomer's first hour (issue 30): every answer right, short and paste-able.

- the program's stdout is the program's, in every mode of the command: gputrace's
  own lines go to stderr (or to -o files), never to stdout;
- the text fits 100 columns (a long path on a line of its own under its item),
  paths have no `..` (the JSON keeps the loader's own), evidence alike but for
  the library is folded, and the first line says the verdict in words;
- every fix carries a command to paste (shell-quoted, for the user's own
  installer: a venv's pip, conda, or a new venv, never --break-system-packages),
  and retry prints it once it has verified the fix;
- a job of N ranks that left fewer traces is reported (missing-ranks); a
  pyenv shim's helper processes are one line, not "41 processes";
- the doctor shows its steps as they run on a terminal, puts the verdict and the
  first failing layer first, and names the interpreter that has torch;
- doc/newcomer-session.txt, a tmux capture of the five commands, fits 100 columns;
- a man page for every subcommand, its synopsis the options of its --help;
- -o DIR never overwrites a report.txt the user had; the README's jq recipes
  read the traces of processes killed as they ran (NUL-padded tails);
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, PROGS, unfold

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
        self.assertIn("mixed-versions gone", unfold(r.stderr.decode()))  # a long path folds it

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


def too_wide(text, width=100):
    """Lines wider than width that are more than one word (a path longer than
    the room cannot be cut: it stands alone on its line)."""
    return [l for l in text.splitlines() if len(l) > width and " " in l.strip()]


class TextFits(Case):
    def traced(self, env, prog=TORCHLIKE):
        out = os.path.join(self.tmp(), "o")
        r = self.gt("-o", out, "--", prog, env=env)
        self.assertNotEqual(r.returncode, 125, r.stderr)
        return out, r.stderr.decode()

    def test_broken_run_first_line_and_width(self):
        out, said = self.traced(MIXED_ENV)
        lines = said.splitlines()
        self.assertTrue(lines[0].startswith("gputrace report: 1 process, 3 errors, 0 warnings: NOT OK "
                                            "(mixed-versions, shadowed-library,"), lines[0])
        where = [i for i, l in enumerate(lines) if l.startswith("gputrace: traces in")]
        self.assertEqual(len(where), 1, said)
        self.assertGreaterEqual(where[0], len(lines) - 3, "where the traces are comes last")
        self.assertIn(out, " ".join(lines[where[0]:]))
        self.assertEqual(too_wide(said), [], said)
        text = self.gt("report", out).stdout.decode()
        self.assertEqual(too_wide(text), [], text)
        self.assertNotIn("/../", text)
        self.assertIn(fix("site-packages/nvidia/cudnn/lib/libcudnn.so.9"), text)
        # the JSON keeps the loader's own path, `..` and all (the contract)
        j = json.loads(self.gt("report", "--json", out).stdout)
        paths = [l["path"] for p in j["processes"] for l in p["libraries"]]
        self.assertIn(fix("site-packages/torchlike/lib/../../nvidia/cudnn/lib/libcudnn.so.9"), paths)

    def test_evidence_alike_is_folded(self):
        out, _ = self.traced(MIXED_ENV)
        text = self.gt("report", out).stdout.decode()
        words = " ".join(text.split())
        self.assertIn("- and 5 more like it, for: cudnn_engines_runtime_compiled, cudnn_heuristic, "
                      "cudnn_ops, cudnn_cnn, cudnn_adv", words)
        self.assertIn("- and 6 more like it, for: libcudnn_engines_precompiled.so.9,", words)
        # a part whose version differs is never folded into the others
        self.assertIn("- cudnn 9.19.0 from", words)
        self.assertEqual(text.count("libcudnn_ops.so.9"), 2, "once in the fold, once in the listing")

    def test_healthy_run_says_all_clear_first(self):
        out, said = self.traced({"LD_LIBRARY_PATH": fix("driver")})
        self.assertTrue(said.splitlines()[0].endswith("0 errors, 0 warnings: all clear"), said)
        self.assertEqual(too_wide(said), [], said)

    def test_scan_fits(self):
        for args in ((fix("system"), fix("site-packages"), fix("cuda-13")),
                     ("--for", fix("site-packages/torchlike/lib/libtorchlike_cuda.so"))):
            r = self.gt("scan", "--color=never", *args)
            text = r.stdout.decode()
            self.assertIn(r.returncode, (0, 1), r.stderr)
            self.assertEqual(too_wide(text), [], text)
            self.assertNotIn("/../", text)

    def test_failed_run_without_cause_says_so(self):
        out = os.path.join(self.tmp(), "o")
        r = self.gt("-o", out, "--", os.path.join(PROGS, "load_and_die"), "exit1")
        first = r.stderr.decode().splitlines()[0]
        self.assertTrue(first.endswith(": no CUDA library was loaded") or "a process failed" in first, first)


LOAD_AND_DIE = os.path.join(PROGS, "load_and_die")
README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


class ScanFirstLine(Case):
    """scan's first line says the verdict in words, about the program with
    --for, before any count: never "ok", nor a bare "0 CUDA library files",
    nor "needs no CUDA library" when what it needs is missing (issue 30)."""

    def first(self, *args, env=None):
        r = self.gt("scan", "--color=never", *args, env=env)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        text = unfold(r.stdout.decode())
        return r.returncode, text.splitlines()[0], text

    def needs_missing_cudart(self):
        """A program with DT_NEEDED libcudart.so.10.1, a name no folder holds."""
        d = self.tmp()
        with open(os.path.join(d, "s.c"), "w") as f:
            f.write("int cudaFake(void) { return 0; }\n")
        with open(os.path.join(d, "m.c"), "w") as f:
            f.write("int cudaFake(void);\nint main(void) { return cudaFake(); }\n")
        lib = os.path.join(d, "libcudart.so.10.1")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", lib, "-Wl,-soname,libcudart.so.10.1",
                        os.path.join(d, "s.c")], check=True)
        prog = os.path.join(d, "needs_cudart10")
        subprocess.run(["cc", "-o", prog, os.path.join(d, "m.c"), "-L" + d, "-l:libcudart.so.10.1"], check=True)
        os.unlink(lib)
        return prog, d

    def test_for_a_missing_runtime_is_not_ok(self):
        prog, empty = self.needs_missing_cudart()
        for roots in ((), (empty,)):
            rc, first, text = self.first("--for", prog, *roots)
            self.assertEqual(rc, 1)
            self.assertTrue(first.startswith("gputrace scan --for %s: NOT OK (library-not-found);" % prog), first)
            self.assertNotIn("needs no CUDA library", text)
            self.assertIn("%s would load no CUDA library: the loader does not find the one it asks for" % prog,
                          text)
            self.assertIn("verdict for %s: error" % prog, text)

    def test_for_a_program_without_cuda(self):
        rc, first, text = self.first("--for", "/bin/sh", self.tmp())
        self.assertEqual(rc, 0)
        self.assertTrue(first.startswith("gputrace scan --for /bin/sh: needs no CUDA library; 0 CUDA library "
                                         "files"), first)
        self.assertIn("verdict for /bin/sh: needs no CUDA library (0 findings", text)
        self.assertNotIn(": ok", text)

    def test_for_without_a_driver_and_with_one(self):
        fw = fix("bundle8/lib/libfw8.so")
        rc, first, _ = self.first("--for", fw, fix("bundle8"))
        self.assertEqual(rc, 1)
        self.assertTrue(first.startswith("gputrace scan --for %s: NOT OK (driver-missing); " % fw), first)
        rc, first, text = self.first("--for", fw, fix("bundle8"), env={"LD_LIBRARY_PATH": fix("driver")})
        self.assertEqual(rc, 0, text)
        self.assertTrue(first.startswith("gputrace scan --for %s: all clear: every CUDA library it asks for "
                                         "is found, no conflict; 8 CUDA library files" % fw), first)
        self.assertIn("verdict for %s: all clear (0 findings" % fw, text)

    def test_roots_without_cuda_and_with_a_conflict(self):
        rc, first, _ = self.first(self.tmp())
        self.assertEqual(rc, 0)
        self.assertTrue(first.startswith("gputrace scan: no CUDA library file found; 0 CUDA library files"),
                        first)
        broken = self.tmp()
        os.symlink("nowhere.so.13.0", os.path.join(broken, "libcudart.so.13"))
        rc, first, text = self.first(broken)
        self.assertTrue(first.startswith("gputrace scan: with warnings (broken-symlink); 1 CUDA library"), first)
        # a scan's finding says its command or why none, as the report's do
        self.assertIn(" no command: remove or repair the file by hand", text)
        rc, first, _ = self.first(fix("system"), fix("site-packages"))
        self.assertTrue(first.startswith("gputrace scan: all clear; "), first)


class ReportFileAndJq(Case):
    def test_users_report_txt_is_left_alone(self):
        out = self.tmp()
        mine = os.path.join(out, "report.txt")
        with open(mine, "w") as f:
            f.write("my notes, not gputrace's\n")
        r = self.gt("-o", out, "--", TORCHLIKE, env=MIXED_ENV)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(mine) as f:
            self.assertEqual(f.read(), "my notes, not gputrace's\n")
        with open(os.path.join(out, "report-2.txt")) as f:
            self.assertTrue(f.read().startswith("gputrace report: 1 process, 3 errors"))
        self.assertIn(b"report.txt was there before this run and is left alone", r.stderr)
        self.assertIn(os.path.join(out, "report-2.txt").encode(), r.stderr)

    def test_a_report_that_reads_like_ours_without_traces_is_left_alone(self):
        """A copy of an old report whose traces are gone is the user's now."""
        out = self.tmp()
        mine = os.path.join(out, "report.txt")
        with open(mine, "w") as f:
            f.write("gputrace report: 1 process, 0 errors, 0 warnings: all clear\n(kept for the bug)\n")
        self.gt("-q", "-o", out, "--", TORCHLIKE, env=MIXED_ENV)
        with open(mine) as f:
            self.assertIn("(kept for the bug)", f.read())
        self.assertTrue(os.path.exists(os.path.join(out, "report-2.txt")))

    def test_append_replaces_our_own_report(self):
        out = os.path.join(self.tmp(), "o")
        self.gt("-q", "-o", out, "--", TORCHLIKE, env={"LD_LIBRARY_PATH": fix("driver")})
        self.gt("-q", "-o", out, "--append", "--", TORCHLIKE, env=MIXED_ENV)
        with open(os.path.join(out, "report.txt")) as f:
            self.assertTrue(f.read().startswith("gputrace report: 2 processes, 3 errors"))
        self.assertFalse(os.path.exists(os.path.join(out, "report-2.txt")))

    def readme_recipes(self):
        with open(README) as f:
            text = f.read()
        block = text[text.index("# Read the traces:"):]
        block = block[:block.index("```")]
        cmds, cur = [], ""
        for line in block.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            cur += line + "\n"
            if line.rstrip().endswith("traces/*.jsonl"):
                cmds.append(cur)
                cur = ""
        self.assertEqual(len(cmds), 3, block)
        return cmds

    @unittest.skipUnless(shutil.which("jq"), "jq is not installed (tools/install-deps.sh installs it)")
    def test_readme_jq_recipes_read_killed_processes(self):
        work = self.tmp()
        traces = os.path.join(work, "traces")
        cudart = fix("site-packages/nvidia/cuda_runtime/lib/libcudart.so.13")
        # the command itself killed (its file is reaped), and a grandchild
        # killed that nobody reaped for gputrace (its NUL room stays)
        script = "%s exit1 libcuda.so.1; %s kill %s; true" % (LOAD_AND_DIE, LOAD_AND_DIE, cudart)
        self.gt("-q", "-o", traces, "--", LOAD_AND_DIE, "kill", cudart, env={"LD_LIBRARY_PATH": ""})
        self.gt("-q", "-o", traces, "--append", "--", "/bin/sh", "-c", script, env={"LD_LIBRARY_PATH": ""})
        files = [os.path.join(traces, f) for f in os.listdir(traces) if f.endswith(".jsonl")]
        raw = []
        for name in files:
            with open(name, "rb") as f:
                raw.append(f.read())
        self.assertTrue(any(r.rstrip(b"\n").endswith(b"\0") or b"\0\0" in r for r in raw),
                        "a killed grandchild leaves its reserved room")
        reaped = [r for r in raw if b'"ev":"reaped","pid"' in r and b'"signal":9' in r]
        self.assertTrue(reaped, "the launcher's own child was killed")
        for r in reaped:
            self.assertNotIn(b"\0\0", r, "the reaped file's room goes (nothing maps it any more)")
        results = []
        for cmd in self.readme_recipes():
            p = subprocess.run(["/bin/sh", "-c", cmd], cwd=work, capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 0, (cmd, p.stderr))
            self.assertEqual(p.stderr, b"", cmd)
            results.append(p.stdout.decode())
        self.assertIn(cudart, results[0])
        self.assertIn("libcuda.so.1", results[1])
        self.assertIn("/libcuda.so.1", results[2])
        # the reaped lines are read too
        p = subprocess.run(["jq", "-cR", 'fromjson? | select(.ev == "reaped")'] + files, capture_output=True)
        self.assertEqual(len(p.stdout.splitlines()), 2, p.stdout)


def unfold_command(text):
    """The command of the text's first "run:" line, its folded lines (each
    ending in a backslash) joined; None without one."""
    if "run: " not in text:
        return None
    cmd = ""
    for line in text[text.index("run: ") + 5:].split("\n"):
        if line.endswith(" \\"):
            cmd += line[:-2].strip() + " "
            continue
        return cmd + line.strip()
    return cmd


TORCH_CPU = fix("torch-cpu/site-packages/torch/lib/libtorch_cpu.so")


class PasteableFix(Case):
    def test_env_fix_command_runs_as_printed(self):
        out = os.path.join(self.tmp(), "o")
        self.gt("-q", "-o", out, "--", TORCHLIKE, "a b\nc'd", env=MIXED_ENV)
        text = self.gt("report", out).stdout.decode()
        cmd = unfold_command(text)
        self.assertIsNotNone(cmd, text)
        self.assertEqual(cmd, "LD_LIBRARY_PATH=%s %s $'a b\\x0ac\\x27d'" % (fix("driver"), TORCHLIKE))
        self.assertEqual(too_wide(text), [], text)
        j = json.loads(self.gt("report", "--json", out).stdout)
        self.assertEqual({f["command"] for f in j["findings"] if "command" in f}, {cmd})
        # pasted into bash, it runs the program with the fix: the conv works
        p = subprocess.run(["bash", "-c", cmd], capture_output=True, env=clean_env(MIXED_ENV), timeout=60)
        self.assertIn(b"torchlike_conv() = 0", p.stdout)

    def test_unset_is_env_u(self):
        env = dict(MIXED_ENV, LD_PRELOAD=fix("system/lib/libcudnn.so.9"))
        out = os.path.join(self.tmp(), "o")
        self.gt("-q", "-o", out, "--", TORCHLIKE, env=env)
        j = json.loads(self.gt("report", "--json", out).stdout)
        cmds = [f["command"] for f in j["findings"] if "command" in f]
        self.assertTrue([c for c in cmds if c.startswith("env -u LD_PRELOAD ")], cmds)

    def test_retry_prints_the_command_once_verified(self):
        out = os.path.join(self.tmp(), "o")
        self.gt("-q", "-o", out, "--", TORCHLIKE, env=MIXED_ENV)
        r = self.gt("retry", "--yes", out)
        said = r.stderr.decode()
        self.assertIn("fixed: all clear", said)
        self.assertEqual(unfold_command(said), "LD_LIBRARY_PATH=%s %s" % (fix("driver"), TORCHLIKE))
        j = json.loads(self.gt("retry", "--yes", "--json", out).stdout)
        self.assertEqual(j["runs"][0]["command"], "LD_LIBRARY_PATH=%s %s" % (fix("driver"), TORCHLIKE))

    def install_command(self, env):
        out = os.path.join(self.tmp(), "o")
        self.gt("-q", "-o", out, "--", os.path.join(PROGS, "load_and_die"), "exit", TORCH_CPU, env=env)
        j = json.loads(self.gt("report", "--json", out).stdout)
        (f,) = [f for f in j["findings"] if f["id"] == "cpu-only-build"]
        self.assertEqual(f["command"], f["fix_data"]["install"])
        self.assertNotIn("--break-system-packages", f["command"])
        return f["command"]

    def test_install_system_python_gets_a_venv(self):
        """No venv, no conda: an externally managed Python (PEP 668) refuses pip."""
        self.assertEqual(self.install_command({}),
                         "python3 -m venv ~/gpu-venv && ~/gpu-venv/bin/python -m pip install torch "
                         "--index-url https://download.pytorch.org/whl/cu130")

    def test_install_in_the_venv_it_came_from(self):
        self.assertEqual(self.install_command({"VIRTUAL_ENV": fix("torch-cpu")}),
                         "%s/bin/python -m pip install torch --index-url "
                         "https://download.pytorch.org/whl/cu130" % fix("torch-cpu"))

    def test_install_with_conda_in_its_env(self):
        self.assertEqual(self.install_command({"CONDA_PREFIX": fix("torch-cpu")}),
                         "conda install -p %s -c conda-forge pytorch-gpu" % fix("torch-cpu"))

    def test_conda_elsewhere_is_not_this_env(self):
        """CONDA_PREFIX set, but the framework is not in it: no conda install there."""
        self.assertTrue(self.install_command({"CONDA_PREFIX": self.tmp()}).startswith("python3 -m venv "))


def fake_dpkg(root, package, version, paths):
    """A dpkg database (GPUTRACE_DPKG_ROOT) in which package put paths there;
    no package at all when package is None."""
    os.makedirs(os.path.join(root, "info"), exist_ok=True)
    with open(os.path.join(root, "status"), "w") as f:
        if package:
            f.write("Package: %s\nStatus: install ok installed\nArchitecture: amd64\nVersion: %s\n"
                    % (package, version))
    if package:
        with open(os.path.join(root, "info", package + ":amd64.list"), "w") as f:
            f.write("".join(p + "\n" for p in paths))
    return root


SYSTEM_CUDNN = [os.path.join(fix("system/lib"), n) for n in sorted(os.listdir(fix("system/lib")))] \
    if os.path.isdir(fix("system/lib")) else []


class CommandOrWhy(Case):
    """Every finding with a fix carries a command to paste or one line that
    says why none can be right; a library a Debian package put there gets
    an apt-get command where that is the fix (issue 30, 2026-12-02 items 1-2:
    the H200's system cuDNN 9.14 is dpkg's libcudnn9-cuda-13 9.14.0.64-1,
    man/gputrace-scan.1's example; NVIDIA's names: libcudnn8, whose
    versions name their CUDA, 8.9.7.29-1+cuda12.2, and libcudnn9-cuda-12)."""

    def dpkg_env(self, package="libcudnn9-cuda-12", env=None):
        d = self.tmp()
        e = {"GPUTRACE_DPKG_ROOT": fake_dpkg(os.path.join(d, "dpkg"), package, "9.14.0.64-1", SYSTEM_CUDNN),
             "GPUTRACE_CACHE_DIR": os.path.join(d, "cache")}
        e.update(env or {})
        return e

    def traced(self, argv, env):
        out = os.path.join(self.tmp(), "o")
        r = self.gt("-q", "-o", out, "--", *argv, env=env)
        self.assertNotEqual(r.returncode, 125, r.stderr)
        return out

    def report(self, out, env=None):
        """The JSON and the unfolded text, from the facts file alone (no
        fake dpkg: what the traced host's records said is in that file)."""
        j = json.loads(self.gt("report", "--json", out, env=env).stdout)
        text = unfold(self.gt("report", "--color=never", out, env=env).stdout.decode()).replace(" \\ ", " ")
        return j, text

    def assert_each_says(self, j, text):
        for f in j["findings"]:
            self.assertEqual(("command" in f) + ("no_command" in f), 1, f)
            if "no_command" in f:
                self.assertTrue(f["no_command"] and "\n" not in f["no_command"], f)
                self.assertIn("no command: " + f["no_command"], text)
            else:
                self.assertIn("run: " + f["command"], text)

    def by_id(self, j, fid):
        return [f for f in j["findings"] if f["id"] == fid]

    def other_major(self, *first, package="libcudnn9-cuda-12"):
        """load_and_die asks for libcudnn.so.8; the host has only the system
        cuDNN 9.14 (found through CUDA_HOME), from dpkg's package."""
        env = self.dpkg_env(package=package, env={"CUDA_HOME": fix("system")})
        out = self.traced([os.path.join(PROGS, "load_and_die"), "exit1", *first, "libcudnn.so.8"], env)
        j, text = self.report(out)
        self.assert_each_says(j, text)
        (f,) = self.by_id(j, "library-not-found")
        return f

    def test_cudnn8_wanted_with_a_cuda12_runtime_is_apt_install(self):
        f = self.other_major(fix("cuda-12/lib64/libcudart.so.12"))
        self.assertEqual(f["command"], "sudo apt-get install libcudnn8")

    def test_cudnn8_wanted_from_a_cuda12_package_is_apt_install(self):
        """No runtime loaded: the CUDA of the host's cuDNN 9 package says 12."""
        self.assertEqual(self.other_major()["command"], "sudo apt-get install libcudnn8")

    def test_cudnn8_wanted_for_cuda11_says_why(self):
        """The newest libcudnn8 is built for CUDA 12: for 11, a version to pick."""
        f = self.other_major(package="libcudnn9-cuda-11")
        self.assertNotIn("command", f)
        self.assertIn("pick the one for CUDA 11 from apt-cache madison libcudnn8", f["no_command"])

    def test_cudnn8_wanted_with_a_cuda13_runtime_has_no_build(self):
        """cuDNN 8 stopped at 8.9.7, for CUDA 11 and 12: nothing to install for 13."""
        f = self.other_major(fix("cuda-13/lib64/libcudart.so.13"))
        self.assertNotIn("command", f)
        self.assertIn("cuDNN 8 has no build for CUDA 13", f["no_command"])

    def test_cudnn8_wanted_from_pip_or_by_hand_is_no_apt(self):
        f = self.other_major(fix("cuda-12/lib64/libcudart.so.12"), package=None)
        self.assertNotIn("command", f)
        self.assertNotIn("apt-get", f["no_command"])

    def system_copies_through_the_cache(self, package):
        """The torch-like scenario whose system cuDNN 9.14 the loader took from
        its cache, not LD_LIBRARY_PATH: the trace of the LD_LIBRARY_PATH run,
        its opens of the system folder marked ld_so_cache and the folder gone
        from the recorded LD_LIBRARY_PATH (no change of environment can undo
        that; only the package, or a hand, can)."""
        out = self.traced([TORCHLIKE], self.dpkg_env(package=package, env=MIXED_ENV))
        system = fix("system/lib")
        for name in os.listdir(out):
            if not name.endswith(".jsonl"):
                continue
            with open(os.path.join(out, name)) as f:
                lines = [json.loads(l) for l in f if l.strip()]
            for o in lines:
                if o.get("ev") == "header":
                    o["env"]["LD_LIBRARY_PATH"] = fix("driver")
                if o.get("ev") == "open" and o.get("path", "").startswith(system + "/") and \
                        o.get("rule") == "ld_library_path":
                    o["rule"] = "ld_so_cache"
            with open(os.path.join(out, name), "w") as f:
                f.write("".join(json.dumps(o) + "\n" for o in lines))
        j, text = self.report(out)
        self.assert_each_says(j, text)
        self.assertTrue(self.by_id(j, "mixed-versions") and self.by_id(j, "shadowed-library"), j["findings"])
        return j

    def test_stale_system_package_is_apt_remove(self):
        j = self.system_copies_through_the_cache("libcudnn9-cuda-12")
        for fid in ("mixed-versions", "shadowed-library"):
            self.assertEqual({f["command"] for f in self.by_id(j, fid)}, {"sudo apt-get remove libcudnn9-cuda-12"})

    def test_stale_copies_of_no_package_say_why(self):
        j = self.system_copies_through_the_cache(None)
        for fid in ("mixed-versions", "shadowed-library"):
            for f in self.by_id(j, fid):
                self.assertNotIn("command", f)
                self.assertIn("no Debian package", f["no_command"])

    def test_the_environment_fix_stays_first(self):
        """On LD_LIBRARY_PATH, the fix is the run without it, package or not."""
        out = self.traced([TORCHLIKE], self.dpkg_env(env=MIXED_ENV))
        j, text = self.report(out)
        self.assert_each_says(j, text)
        for fid in ("mixed-versions", "shadowed-library"):
            self.assertEqual({f["command"] for f in self.by_id(j, fid)},
                             {"LD_LIBRARY_PATH=%s %s" % (fix("driver"), TORCHLIKE)})
        (init,) = self.by_id(j, "init-failed")
        self.assertIn("caused by", init["no_command"])

    def sysroot(self, gpu=True, kmod=True, nodes=True):
        d = self.tmp()

        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        write("sys/bus/pci/devices/0000:00:00.0/vendor", "0x8086\n")
        write("sys/bus/pci/devices/0000:00:00.0/class", "0x060000\n")
        if gpu:
            write("sys/bus/pci/devices/0000:17:00.0/vendor", "0x10de\n")
            write("sys/bus/pci/devices/0000:17:00.0/class", "0x030200\n")
        if kmod:
            write("proc/driver/nvidia/version",
                  "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build\n")
        if nodes:
            write("dev/nvidiactl", "")
            write("dev/nvidia0", "")
        return {"GPUTRACE_SYSROOT": d}

    def test_driver_missing_says_why_for_each_host(self):
        for host, want in ((dict(gpu=False, kmod=False, nodes=False), "this host shows no NVIDIA GPU"),
                           (dict(kmod=False, nodes=False), "the driver must fit this kernel and GPU"),
                           (dict(nodes=False), "the container was started without the GPU"),
                           ({}, "install the user-space driver of kernel module 580.65.06")):
            with self.subTest(**host):
                out = self.traced([TORCHLIKE], self.sysroot(**host))
                j, text = self.report(out)
                self.assert_each_says(j, text)
                (f,) = self.by_id(j, "driver-missing")
                self.assertTrue(f["no_command"].startswith(want), f["no_command"])

    def test_every_finding_of_the_scenarios_says_one(self):
        for argv, env in (([TORCHLIKE], MIXED_ENV), ([TORCHLIKE], {}),
                          ([os.path.join(PROGS, "load_and_die"), "exit", TORCH_CPU], {}),
                          ([os.path.join(PROGS, "load_and_die"), "segv", fix("cuda-12/lib64/libcudart.so.12")], {})):
            with self.subTest(argv=argv[1:], env=sorted(env)):
                j, text = self.report(self.traced(argv, env))
                self.assertTrue(j["findings"])
                self.assert_each_says(j, text)


class MissingRanks(Case):
    HEALTHY = {"LD_LIBRARY_PATH": fix("driver")}

    def job(self, ranks, size_var="WORLD_SIZE", rank_var="RANK", size=4):
        out = os.path.join(self.tmp(), "job")
        for r in ranks:
            env = dict(self.HEALTHY, **{rank_var: str(r), size_var: str(size)})
            p = self.gt("-q", "-o", out, "--", TORCHLIKE, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
        return out

    def findings(self, out, fid):
        j = json.loads(self.gt("report", "--json", out).stdout)
        return [f for f in j["findings"] if f["id"] == fid]

    def test_three_of_four_ranks(self):
        out = self.job([0, 1, 3], "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK")
        (f,) = self.findings(out, "missing-ranks")
        self.assertEqual(f["severity"], "warning")
        self.assertEqual(f["summary"], "the job has 4 ranks, and 1 left no trace (rank 2)")
        self.assertEqual(f["evidence"][0]["world_size"], 4)
        self.assertEqual(f["evidence"][0]["ranks"], [0, 1, 3])
        self.assertEqual(f["evidence"][1]["ranks"], [2])
        text = self.gt("report", out).stdout.decode()
        self.assertIn("works, with warnings (missing-ranks)", text.splitlines()[0])

    def test_slurm_ranks_in_runs(self):
        out = self.job([0, 5], "SLURM_NTASKS", "SLURM_PROCID", size=6)
        (f,) = self.findings(out, "missing-ranks")
        self.assertIn("4 left no trace (ranks 1-4)", f["summary"])

    def test_whole_job_is_quiet(self):
        out = self.job([0, 1, 2, 3])
        self.assertEqual(self.findings(out, "missing-ranks"), [])
        self.assertTrue(self.gt("report", out).stdout.decode().splitlines()[0].endswith("all clear"))

    def test_no_world_size_is_not_judged(self):
        out = os.path.join(self.tmp(), "job")
        for r in (0, 2):
            self.gt("-q", "-o", out, "--", TORCHLIKE, env=dict(self.HEALTHY, RANK=str(r)))
        self.assertEqual(self.findings(out, "missing-ranks"), [])


SHIM = """#!/bin/bash
set -e
program="${0##*/}"
export PYENV_ROOT="%(root)s"
exec "%(root)s/libexec/pyenv" exec "$program" "$@"
"""
PYENV = """#!/bin/bash
v=$(cat "$PYENV_ROOT/version")
d=$(echo "$v" | sed 's/x/y/')
for i in 1 2 3 4 5 6; do n=$(printf '%%s' "$i" | wc -c); done
exec "$PYENV_ROOT/versions/$v/bin/$2" "${@:3}"
"""


class PyenvShim(Case):
    def test_shim_helpers_fold_into_one_line(self):
        root = os.path.join(self.tmp(), ".pyenv")
        for d in ("shims", "libexec", "versions/3.11/bin"):
            os.makedirs(os.path.join(root, d))
        for rel, text in (("shims/python", SHIM % {"root": root}), ("libexec/pyenv", PYENV)):
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
            os.chmod(os.path.join(root, rel), 0o755)
        with open(os.path.join(root, "version"), "w") as f:
            f.write("3.11\n")
        os.symlink(TORCHLIKE, os.path.join(root, "versions/3.11/bin/python"))
        out = os.path.join(self.tmp(), "o")
        r = self.gt("-o", out, "--", os.path.join(root, "shims/python"), env={"LD_LIBRARY_PATH": fix("driver")})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"torchlike_conv() = 0", r.stdout)
        text = self.gt("report", out).stdout.decode()
        procs = int(re.match(r"gputrace report: (\d+) processes", text).group(1))
        self.assertGreater(procs, 10, text)
        self.assertIn("pyenv's shim: %d helper processes that chose the interpreter" % (procs - 1), text)
        self.assertNotIn("loaded no CUDA library and had nothing to report", text)
        self.assertTrue(text.splitlines()[0].endswith("all clear"), text)


MAN = os.path.join(os.path.dirname(__file__), "..", "..", "man")
OPTION = re.compile(r"(?<![\w-])(--?[a-zA-Z][a-zA-Z0-9-]*)")


def man_synopsis_options(page):
    """The options of the first synopsis block (.SY ... .YS) of a man page."""
    with open(os.path.join(MAN, page)) as f:
        text = f.read()
    syn = text[text.index(".SH SYNOPSIS"):text.index(".SH DESCRIPTION")]
    block = syn[syn.index(".SY"):syn.index(".YS")]
    block = re.sub(r"\\f[BIRP]", "", block).replace("\\-", "-").replace("\\%", "")
    return {o for o in OPTION.findall(block) if o != "--"}


def help_usage_options(*sub):
    """The options of the first usage: block of gputrace [SUB] --help."""
    out = subprocess.run([GPUTRACE, *sub, "--help"], capture_output=True, text=True).stdout
    lines = out.splitlines()
    block = [lines[0]]
    for line in lines[1:]:
        if not line.startswith(" ") or line.lstrip().startswith(("usage:", "gputrace ")):
            break
        block.append(line)
    return {o for o in OPTION.findall(" ".join(block).split(":", 1)[1]) if o != "--"}


class ManPages(unittest.TestCase):
    SUBCOMMANDS = ("report", "scan", "doctor", "diff", "retry", "inspect", "bundle")

    def test_a_page_per_subcommand_with_the_help_synopsis(self):
        for sub in self.SUBCOMMANDS:
            page = "gputrace-%s.1" % sub
            self.assertTrue(os.path.exists(os.path.join(MAN, page)), page)
            self.assertEqual(man_synopsis_options(page), help_usage_options(sub), page)

    def test_the_trace_command_synopsis(self):
        self.assertEqual(man_synopsis_options("gputrace.1"), help_usage_options())

    def test_pages_render_without_warnings(self):
        if not shutil.which("groff"):
            self.skipTest("no groff")
        for page in sorted(os.listdir(MAN)):
            p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", os.path.join(MAN, page)],
                               capture_output=True, text=True)
            self.assertEqual(p.stderr, "", page)


NO_TORCH_PY = """#!/bin/sh
# python3 without its site-packages: it cannot import torch
exec /usr/bin/python3 -S "$@"
"""


class Doctor(Case):
    def interpreter(self, folder, name="python3", text=NO_TORCH_PY):
        path = os.path.join(folder, name)
        os.makedirs(folder, exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
        return path

    def test_verdict_and_first_failing_layer_on_the_first_screen(self):
        py = self.interpreter(self.tmp())
        r = self.gt("doctor", "--color=never", "--python", py, env={"LD_LIBRARY_PATH": ""})
        self.assertIn(r.returncode, (0, 1), r.stderr)
        text = r.stdout.decode()
        first = text.splitlines()[:24]
        self.assertTrue(first[0].startswith("gputrace doctor: the GPU chain, layer by layer: "), first)
        if r.returncode == 1:
            self.assertIn("FAILED at the ", first[0])
            self.assertTrue([l for l in first if l.startswith("the first layer that fails: ")], first)
        self.assertEqual(too_wide(text), [], text)
        self.assertEqual(r.stderr, b"", "no progress line without a terminal")

    def test_names_the_interpreter_that_has_torch(self):
        base = self.tmp()
        venv = os.path.join(base, "venv")
        os.makedirs(os.path.join(venv, "lib/python3.11/site-packages/torch"))
        open(os.path.join(venv, "lib/python3.11/site-packages/torch/__init__.py"), "w").close()
        good = self.interpreter(os.path.join(venv, "bin"), "python")
        py = self.interpreter(os.path.join(base, "sys"))
        r = self.gt("doctor", "--color=never", "--python", py, env={"VIRTUAL_ENV": venv, "LD_LIBRARY_PATH": ""})
        text = r.stdout.decode()
        head = " ".join(" ".join(text.splitlines()[:6]).split())
        self.assertIn("%s cannot import torch, and %s can: gputrace doctor --python %s" % (py, good, good), head)
        j = json.loads(self.gt("doctor", "--json", "--python", py,
                               env={"VIRTUAL_ENV": venv, "LD_LIBRARY_PATH": ""}).stdout)
        self.assertEqual(j["torch_python"], good)
        # the interpreter asked has torch's folder too: nothing to name
        j = json.loads(self.gt("doctor", "--json", "--python", good,
                               env={"VIRTUAL_ENV": venv, "LD_LIBRARY_PATH": ""}).stdout)
        self.assertIsNone(j["torch_python"])

    def test_steps_show_on_a_terminal_as_they_run(self):
        import pty
        py = self.interpreter(self.tmp())
        master, slave = pty.openpty()
        p = subprocess.Popen([GPUTRACE, "doctor", "--color=never", "--python", py], stdout=subprocess.PIPE,
                             stderr=slave, stdin=subprocess.DEVNULL, env=clean_env({"LD_LIBRARY_PATH": ""}))
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        out = p.communicate(timeout=120)[0]
        os.close(master)
        self.assertIn(b"gputrace doctor: reading the environment", seen)
        self.assertIn(b"driver_load", seen, "each step on the progress line as it finishes")
        self.assertIn(b"cudnn_create", seen)
        self.assertTrue(seen.endswith(b"\r\x1b[K"), "the progress line is gone at the end: %r" % seen[-40:])
        self.assertTrue(out.startswith(b"gputrace doctor: the GPU chain, layer by layer: "), out[:200])


class RecordedSession(unittest.TestCase):
    """doc/newcomer-session.txt: tools/record-newcomer.sh's tmux capture of
    gputrace CMD, report, scan, scan --for and doctor (capture-pane -J:
    lines tmux wrapped are joined, so a line gputrace did not fold shows)."""

    def test_five_commands_every_line_fits(self):
        path = os.path.join(os.path.dirname(__file__), "..", "..", "doc", "newcomer-session.txt")
        with open(path) as f:
            lines = f.read().splitlines()
        commands = [l[2:] for l in lines if l.startswith("$ ") and l[2:].strip()]
        self.assertEqual([c.split()[:2] for c in commands],
                         [["gputrace", "-o"], ["gputrace", "report"], ["gputrace", "scan"],
                          ["gputrace", "scan"], ["gputrace", "doctor"]])
        self.assertIn("--for", commands[3])
        self.assertEqual([l for l in lines if len(l) > 100], [])
        self.assertTrue(any(l.startswith("gputrace doctor: the GPU chain, layer by layer: ") for l in lines))
        # current: scan's first lines say the verdict in words, never "ok"
        # nor a bare count first (2026-12-02), and each finding its command
        # or why none
        self.assertTrue(any(re.match(r"gputrace scan: (NOT OK|with warnings|all clear|no CUDA)", l)
                            for l in lines), "scan's verdict first")
        self.assertTrue(any(l.startswith("gputrace scan --for /") for l in lines), "scan --for's verdict first")
        self.assertEqual([l for l in lines if re.match(r"verdict for .*: ok ", l)], [])
        findings = [l for l in lines if re.match(r"\s*(error|warning|info) +[a-z-]+: ", l)]
        answers = [l for l in lines if re.match(r"\s+(run|no command): ", l)]
        self.assertEqual(len(answers), len(findings), "a run: or no command: line for each finding")


if __name__ == "__main__":
    unittest.main()
