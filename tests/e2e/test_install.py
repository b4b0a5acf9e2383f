"""make install, a moved install tree, make uninstall, and the shell
completions kept in step with the command's --help (issue 16)."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.e2e.gtlib import GPUTRACE, PROGS, FIX, traces_in

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE_TORCH = os.path.join(TOP, "tests", "fake_torch")
SUBCOMMANDS = ("report", "scan", "doctor", "diff", "retry", "inspect", "bundle")
with open(os.path.join(TOP, "VERSION")) as _f:
    VERSION = _f.read().strip()


def make(*args):
    """make ARGS in the source tree, with the settings of the build under test
    (so nothing is rebuilt)."""
    build_vars = shlex.split(os.environ.get("GPUTRACE_MAKE_VARS", ""))
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return subprocess.run(["make", "-s", "-C", TOP, *build_vars, *args], env=env,
                          capture_output=True, timeout=300)


def files_under(root):
    return sorted(os.path.relpath(os.path.join(d, n), root)
                  for d, _, names in os.walk(root) for n in names)


class InstallMoveUninstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = tempfile.mkdtemp(prefix="gt-install-")
        cls.dest = os.path.join(cls.base, "dest")
        cls.installed = make("install", "DESTDIR=" + cls.dest, "PREFIX=/usr")
        # The whole tree moved elsewhere: the command must find its parts from
        # its own path, not from where it was installed.
        cls.moved = os.path.join(cls.base, "elsewhere", "tree")
        os.makedirs(os.path.dirname(cls.moved))
        if cls.installed.returncode == 0:
            shutil.copytree(cls.dest, cls.moved, symlinks=True)
        cls.gputrace = os.path.join(cls.moved, "usr", "bin", "gputrace")
        cls.env = {k: v for k, v in os.environ.items()
                   if k not in ("GPUTRACE_LIB", "LD_LIBRARY_PATH", "LD_PRELOAD", "GPUTRACE_DIR")}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.base, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.installed.returncode, 0, self.installed.stderr.decode(errors="replace"))

    def test_layout(self):
        self.assertEqual(files_under(self.dest), sorted([
            "usr/bin/gputrace",
            "usr/lib/gputrace/libgputrace.so",
            "usr/lib/gputrace/gputrace-probe",
            "usr/lib/gputrace/torch_doctor.py",
            "usr/share/bash-completion/completions/gputrace",
            "usr/share/zsh/site-functions/_gputrace",
            "usr/share/man/man1/gputrace.1",
            "usr/share/man/man1/gputrace-diff.1",
            "usr/share/man/man1/gputrace-bundle.1",
            "usr/share/man/man1/gputrace-doctor.1",
            "usr/share/man/man1/gputrace-inspect.1",
            "usr/share/man/man1/gputrace-report.1",
            "usr/share/man/man1/gputrace-retry.1",
            "usr/share/man/man1/gputrace-scan.1",
            "usr/share/man/man5/gputrace-trace.5",
            "usr/share/man/man7/gputrace-python.7",
        ] + ["usr/share/gputrace/schema/" + n for n in os.listdir(os.path.join(TOP, "schema"))
             if n.endswith(".schema.json")]))
        with open(os.path.join(self.dest, "usr/share/man/man1/gputrace.1")) as f:
            th = [l for l in f if l.startswith(".TH ")][0]
        self.assertIn(f'"gputrace {VERSION}"', th)

    def test_schemas_where_their_id_says(self):
        """Installed under share/gputrace/schema, each $id the file's own place
        under PREFIX=/usr (issue 30: not example.org)."""
        folder = os.path.join(self.dest, "usr/share/gputrace/schema")
        names = sorted(os.listdir(folder))
        self.assertIn("report.schema.json", names)
        for name in names:
            with open(os.path.join(folder, name)) as f:
                text = f.read()
            self.assertEqual(json.loads(text)["$id"], "file:///usr/share/gputrace/schema/" + name)
            self.assertNotIn("example.org", text)

    def test_moved_tree_traces_a_fixture(self):
        out = os.path.join(self.base, "traces-%d" % os.getpid())
        prog = os.path.join(FIX, "scenarios", "sc_runpath")
        p = subprocess.run([self.gputrace, "-o", out, "--", "sh", "-c", 'echo "$LD_AUDIT"; exec "$0"', prog],
                           env=self.env, capture_output=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        lib = os.path.join(self.moved, "usr", "lib", "gputrace", "libgputrace.so")
        self.assertEqual(p.stdout.decode().splitlines()[0], lib)
        paths = [o.get("path", "") for t in traces_in(out) for o in t.events("open")]
        self.assertTrue(any(x.endswith("d_runpath/libsc_leaf.so") for x in paths), paths)
        self.assertIn(b"gputrace report: ", p.stderr)
        rep = subprocess.run([self.gputrace, "report", out, "--json"], env=self.env, capture_output=True)
        self.assertIn(rep.returncode, (0, 1), rep.stderr)
        self.assertIn(b'"processes"', rep.stdout)

    def test_moved_tree_runs_doctor_with_its_probe_and_script(self):
        folder = tempfile.mkdtemp(prefix="gt-install-py-", dir=self.base)
        python = os.path.join(folder, "python3")
        with open(python, "w") as f:
            f.write(f'#!/bin/sh\nPYTHONPATH={FAKE_TORCH} exec {sys.executable} -S "$@"\n')
        os.chmod(python, 0o755)
        env = dict(self.env, FAKE_TORCH_CUDART=os.path.join(FIX, "cuda-13", "lib64", "libcudart.so.13"),
                   FAKE_TORCH_CUDNN=os.path.join(FIX, "site-packages", "nvidia", "cudnn", "lib", "libcudnn.so.9"))
        p = subprocess.run([self.gputrace, "doctor", "--color=never", "--python", python], env=env,
                           capture_output=True, timeout=180)
        out = p.stdout.decode()
        self.assertIn(p.returncode, (0, 1), p.stderr)
        self.assertIn("gputrace doctor: the GPU chain, layer by layer", out)
        self.assertRegex(out, r"\n  (ok|FAILED|skipped) +driver +driver_load ")
        # torch_import ran: the script was found in the moved lib/gputrace/.
        self.assertRegex(out, r"\n  ok +framework +torch_import ")
        self.assertNotIn(b"not found", p.stderr)

    def test_version(self):
        p = subprocess.run([self.gputrace, "--version"], env=self.env, capture_output=True)
        self.assertEqual(p.stdout.decode(), f"gputrace {VERSION}\n")

    def test_uninstall_leaves_no_files(self):
        dest = os.path.join(self.base, "again")
        self.assertEqual(make("install", "DESTDIR=" + dest, "PREFIX=/usr").returncode, 0)
        self.assertTrue(files_under(dest))
        p = make("uninstall", "DESTDIR=" + dest, "PREFIX=/usr")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(files_under(dest), [])


def help_options(*sub):
    """The options a --help text lists: in its first usage line and in its
    table of options (the lines that start with one)."""
    lines = subprocess.run([GPUTRACE, *sub, "--help"], capture_output=True, text=True).stdout.splitlines()
    text = "\n".join([lines[0]] + [l for l in lines if re.match(r"\s+-", l)])
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text))


def bash_list(name):
    with open(os.path.join(TOP, "completions", "gputrace.bash")) as f:
        m = re.search(r'^_gputrace_%s="([^"]*)"' % name, f.read(), re.M)
    return set(m.group(1).split())


class Completions(unittest.TestCase):
    def test_bash_lists_match_the_help(self):
        self.assertEqual(bash_list("subcommands"), set(SUBCOMMANDS))
        for sub in SUBCOMMANDS:
            self.assertEqual(bash_list(sub + "_opts"), help_options(sub), sub)
        self.assertEqual(bash_list("trace_opts"), help_options())

    def test_zsh_names_every_option(self):
        with open(os.path.join(TOP, "completions", "_gputrace")) as f:
            zsh = f.read()
        for sub in SUBCOMMANDS:
            self.assertRegex(zsh, r"'%s:" % sub)
            block = zsh.split("\n%s)\n" % sub, 1)[1].split(";;", 1)[0]
            for opt in help_options(sub):
                if opt in ("-h", "--help"):
                    self.assertIn("{-h,--help}", block)
                elif opt == "--color":
                    self.assertIn("$color_opt", block)
                else:
                    self.assertIn("'" + opt + "[", block.replace("(--tree)", "").replace("(--json)", ""), opt)

    def complete(self, *words):
        """What the bash function offers for words (the last one being
        completed), with bash-completion's helpers stubbed."""
        script = (
            '_init_completion() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]};'
            ' words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }\n'
            '_filedir() { COMPREPLY=(FILES); }\n'
            '_command_offset() { COMPREPLY=(COMMAND-AT-$1); }\n'
            'compopt() { :; }\n'
            f'. {shlex.quote(os.path.join(TOP, "completions", "gputrace.bash"))}\n'
            'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gputrace\n'
            'printf "%s\\n" "${COMPREPLY[@]}"\n')
        p = subprocess.run(["bash", "-c", script, "bash", *words], capture_output=True, text=True)
        self.assertEqual(p.stderr, "")
        return p.stdout.split()

    def test_bash_completes_in_context(self):
        self.assertIn("report", self.complete("gputrace", "rep"))
        self.assertEqual(self.complete("gputrace", "report", "--j"), ["--json"])
        self.assertEqual(self.complete("gputrace", "scan", "--c"), ["--color="])
        self.assertEqual(sorted(self.complete("gputrace", "report", "--color", "a")), ["always", "auto"])
        self.assertEqual(self.complete("gputrace", "report", "tr"), ["FILES"])
        # After COMMAND the words are the command's: bash completes them for it.
        self.assertEqual(self.complete("gputrace", "-o", "d", "python3", "--j"), ["COMMAND-AT-3"])
        self.assertEqual(self.complete("gputrace", "-q", "--", "report", "x"), ["COMMAND-AT-3"])
        self.assertEqual(self.complete("gputrace", "--app"), ["--append"])


if __name__ == "__main__":
    unittest.main()
