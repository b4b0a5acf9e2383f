"""The gputrace command: exit status, signals, errors, stdio, children, switches."""
import os
import re
import signal
import stat
import subprocess
import tempfile
import time
import unittest

from tests.e2e.gtlib import (GPUTRACE, PROGS, LIB, run_traced, run_bare, traces_in, value,
                             cleanup)


class ExitStatus(unittest.TestCase):
    def test_exit_code_kept(self):
        r = run_traced(["sh", "-c", "exit 3"])
        self.assertEqual(r.proc.returncode, 3)
        cleanup(r)

    def test_signal_death_passed_on(self):
        # gputrace dies by the command's signal (a shell's $? is then 128+N).
        r = run_traced(["sh", "-c", "kill -SEGV $$"])
        self.assertEqual(r.proc.returncode, -signal.SIGSEGV)
        shell = subprocess.run(["sh", "-c", '%s -q -- sh -c "kill -SEGV \\$\\$"; echo $?' % GPUTRACE],
                               capture_output=True)
        self.assertEqual(shell.stdout, b"139\n")
        cleanup(r)

    def test_missing_command_127(self):
        r = run_traced(["gputrace-no-such-command"])
        self.assertEqual(r.proc.returncode, 127)
        self.assertIn(b"gputrace-no-such-command: command not found", r.proc.stderr)
        cleanup(r)

    def test_not_executable_126(self):
        with tempfile.NamedTemporaryFile(suffix=".sh") as f:
            r = run_traced([f.name])
            self.assertEqual(r.proc.returncode, 126)
            self.assertIn(b"Permission denied", r.proc.stderr)
            cleanup(r)

    def test_no_command_is_usage_error(self):
        p = subprocess.run([GPUTRACE], capture_output=True)
        self.assertEqual(p.returncode, 125)
        self.assertEqual(p.stderr, b"gputrace: no command given\nTry 'gputrace --help'.\n")

    def test_help_and_version(self):
        self.assertEqual(subprocess.run([GPUTRACE, "--help"], capture_output=True).returncode, 0)
        p = subprocess.run([GPUTRACE, "--version"], capture_output=True)
        self.assertTrue(p.stdout.startswith(b"gputrace "))


class Environment(unittest.TestCase):
    def test_prepends_to_existing_preload_and_audit(self):
        # libz is a harmless library to preload; it must stay, after ours
        r = run_traced(["sh", "-c", 'printf "%s\\n%s\\n" "$LD_PRELOAD" "$LD_AUDIT"'],
                       env={"LD_PRELOAD": "libz.so.1", "LD_AUDIT": ""})
        pre, aud = r.proc.stdout.decode().splitlines()
        self.assertEqual(pre, LIB + ":libz.so.1")
        self.assertEqual(aud, LIB)
        cleanup(r)

    def test_users_own_preload_does_not_stop_gputrace(self):
        env = dict(os.environ, LD_PRELOAD="libz.so.1")
        env.pop("ASAN_OPTIONS", None)  # the command's own defaults must do
        out = tempfile.mkdtemp()
        p = subprocess.run([GPUTRACE, "-q", "-o", out, "sh", "-c", "echo ok"], env=env,
                           capture_output=True)
        self.assertEqual((p.returncode, p.stdout), (0, b"ok\n"), p.stderr)

    def test_stdio_untouched(self):
        argv = ["sh", "-c", "cat; echo err >&2; echo out"]
        bare = run_bare(argv, input=b"in\n")
        r = run_traced(argv, opts=["-q"], input=b"in\n")
        self.assertEqual(r.proc.stdout, bare.stdout)
        self.assertEqual(r.proc.stderr, bare.stderr)
        cleanup(r)

    def test_disable_switch(self):
        r = run_traced(["sh", "-c", 'echo "[$LD_AUDIT]"'], env={"GPUTRACE_DISABLE": "1"})
        self.assertEqual(r.proc.stdout, b"[]\n")
        self.assertEqual(r.traces, [])
        cleanup(r)

    def test_disable_in_library_alone(self):
        out = tempfile.mkdtemp()
        run_bare(["sh", "-c", "true"], env={"LD_PRELOAD": LIB, "LD_AUDIT": LIB,
                                            "GPUTRACE_DIR": out, "GPUTRACE_DISABLE": "1"})
        self.assertEqual(os.listdir(out), [])

    def test_library_not_found_names_where_it_looked(self):
        p = subprocess.run([GPUTRACE, "true"], capture_output=True,
                           env=dict(os.environ, GPUTRACE_LIB="/nonexistent/libgputrace.so"))
        self.assertEqual(p.returncode, 125)
        self.assertIn(b"libgputrace.so not found", p.stderr)
        self.assertIn(b"/nonexistent/libgputrace.so", p.stderr)

    def test_report_kept_in_output_folder(self):
        r = run_traced(["true"], opts=["-q"])
        self.assertEqual(r.proc.stderr, b"")  # -q: nothing of ours on stderr
        with open(os.path.join(r.outdir, "report.txt")) as f:
            self.assertIn("gputrace report: 1 process, 0 errors", f.read())
        cleanup(r)

    def test_facts_profile_says_what_the_diagnosis_cost(self):
        # GPUTRACE_FACTS_PROFILE=1: the launcher's line for its forked
        # diagnosis child (bench/README.md's end-of-run figure), with -q too
        r = run_traced(["true"], opts=["-q"], env={"GPUTRACE_FACTS_PROFILE": "1"})
        self.assertEqual(r.proc.returncode, 0)
        m = re.search(rb"^gputrace facts profile: diagnosis child ([0-9.]+) ms CPU, ([0-9.]+) ms wall$",
                      r.proc.stderr, re.M)
        self.assertIsNotNone(m, r.proc.stderr)
        self.assertGreater(float(m.group(2)), 0.0)
        self.assertTrue(os.path.exists(os.path.join(r.outdir, "report.txt")))
        cleanup(r)
        r = run_traced(["true"], opts=["-q"], env={"GPUTRACE_FACTS_PROFILE": "0"})
        self.assertEqual(r.proc.stderr, b"")
        cleanup(r)

    def test_trace_file_is_private(self):
        r = run_traced(["true"])
        self.assertEqual(len(r.traces), 1)
        st = os.stat(r.traces[0].path)
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
        self.assertTrue(r.traces[0].ended_cleanly())
        cleanup(r)


class Signals(unittest.TestCase):
    def test_sigterm_forwarded(self):
        out = tempfile.mkdtemp()
        p = subprocess.Popen([GPUTRACE, "-q", "-o", out, "sleep", "30"])
        # wait until the child has started (its trace exists)
        for _ in range(100):
            if traces_in(out):
                break
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=10), -signal.SIGTERM)


class Children(unittest.TestCase):
    def test_fork_exec_spawn_vfork_each_own_file(self):
        prog = os.path.join(PROGS, "children")
        r = run_traced([prog], opts=["-q"])
        self.assertEqual(r.proc.returncode, 0)
        lines = r.proc.stdout.decode().splitlines()
        pids = {int(l.split()[2]) for l in lines if " child " in l}
        parent = int(lines[-1].split()[1])
        # the parent, the fork child, and three children that exec'd
        self.assertEqual(len(pids), 4)
        self.assertEqual({t.pid for t in r.traces}, pids | {parent})
        for t in r.traces:
            self.assertTrue(t.ended_cleanly(), t.path)
        fork_child = [int(l.split()[2]) for l in lines if l.startswith("fork child")][0]
        t = r.trace_of(fork_child)
        self.assertIsNotNone(t.open_of("/libz.so.1"))
        for l in lines:
            if l.startswith("exec child"):
                t = r.trace_of(int(l.split()[2]))
                self.assertIsNotNone(t.open_of("/libm.so.6"), t.path)
                # the exec'd image starts with a header of its own
                images = {h["image"] for h in t.events("header")}
                self.assertGreaterEqual(len(images), 1)
        cleanup(r)

    def test_python_multiprocessing(self):
        script = os.path.join(os.path.dirname(__file__), "..", "scripts", "mp_pool.py")
        r = run_traced(["/usr/bin/python3", script], opts=["-q"])
        self.assertEqual(r.proc.stdout, b"285\n285\n")
        self.assertEqual(r.proc.returncode, 0)
        # the parent, 2 fork workers, 2 spawn workers, and spawn's resource tracker
        self.assertGreaterEqual(len(r.traces), 5)
        self.assertEqual(len({t.pid for t in r.traces}), len(r.traces))
        cleanup(r)


class Untraceable(unittest.TestCase):
    def test_static_executable(self):
        prog = os.path.join(PROGS, "static_hello")
        r = run_traced([prog])
        self.assertEqual(r.proc.stdout, b"hello from a static program\n")
        self.assertEqual(r.proc.returncode, 0)
        self.assertIn(b"statically linked", r.proc.stderr)
        self.assertIn(b"running it untraced", r.proc.stderr)
        cleanup(r)

    @unittest.skipUnless(os.geteuid() == 0, "needs root to make a set-user-ID program of another user")
    def test_setuid_executable(self):
        d = tempfile.mkdtemp()
        os.chmod(d, 0o755)
        prog = os.path.join(d, "setuid_hello")
        subprocess.run(["cp", os.path.join(PROGS, "children"), prog], check=True)
        os.chown(prog, 65534, 65534)
        os.chmod(prog, 0o4755)
        r = run_traced([prog, "child"])
        self.assertIn(b"set-user-ID", r.proc.stderr)
        self.assertTrue(r.proc.stdout.startswith(b"exec child"))
        self.assertEqual(r.proc.returncode, 0)
        cleanup(r)


if __name__ == "__main__":
    unittest.main()
