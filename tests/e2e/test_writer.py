"""The trace writer (common/trace_sink.c): lines copied into a shared mapping
of the trace file, so a process killed at any point keeps every line it
finished; a full file system costs the program nothing and the trace says it
was cut; write(2) where mapping is refused; no fd left in the program."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import GPUTRACE, PROGS, Trace, cleanup, run_bare, run_traced, traces_in

LOAD_LOOP = os.path.join(PROGS, "load_loop")
LIB = "libm.so.6"


def opens_of(trace, suffix):
    return [o for o in trace.events("open") if o.get("path", "").endswith(suffix)]


def report_json(outdir):
    p = subprocess.run([GPUTRACE, "report", "--json", outdir], capture_output=True, timeout=120)
    return p.returncode, json.loads(p.stdout)


class KilledMidway(unittest.TestCase):
    def test_sigkill_in_the_middle_of_10000_loads(self):
        """Every load that completed before SIGKILL is in the trace."""
        outdir = tempfile.mkdtemp(prefix="gt-writer-")
        self.addCleanup(shutil.rmtree, outdir, True)
        proc = subprocess.Popen([GPUTRACE, "-q", "-o", outdir, "--", LOAD_LOOP, "10000", LIB],
                                stdout=subprocess.PIPE)
        pid = int(proc.stdout.readline())
        done = 0
        while done < 4000:
            line = proc.stdout.readline()
            self.assertTrue(line, "the program ended before it was killed")
            done = int(line)
        os.kill(pid, signal.SIGKILL)
        proc.stdout.close()
        self.assertEqual(proc.wait(timeout=60), -signal.SIGKILL)  # gputrace dies by it too
        (trace,) = traces_in(outdir)
        self.assertEqual(trace.header["writer"], "mmap")
        self.assertGreaterEqual(len(opens_of(trace, "/" + LIB)), done)
        self.assertLess(len(opens_of(trace, "/" + LIB)), 10000)
        # No exit trimmed the room reserved ahead: the launcher cuts it once it
        # has reaped the process (issue 30: jq reads the file line by line); a
        # line the kill cut keeps one NUL. The launcher's line comes last, and
        # the report reads through.
        self.assertLessEqual(trace.raw.count(b"\0"), 1)
        self.assertEqual(trace.reaped()["signal"], signal.SIGKILL)
        rc, d = report_json(outdir)
        self.assertEqual(d["processes"][0]["ended"], {"how": "signal", "signal": 9})
        self.assertIn("crashed", {f["id"] for f in d["findings"]})


class Trimmed(unittest.TestCase):
    def test_file_cut_to_its_lines_at_exit(self):
        r = run_traced([LOAD_LOOP, "3000", LIB], opts=["-q"])
        self.addCleanup(cleanup, r)
        self.assertEqual(r.proc.returncode, 0)
        (trace,) = r.traces
        self.assertNotIn(b"\0", trace.raw)
        self.assertTrue(trace.raw.endswith(b"\n"))
        self.assertEqual(len(opens_of(trace, "/" + LIB)), 3000)
        self.assertTrue(trace.ended_cleanly())

    def test_write2_when_asked(self):
        """GPUTRACE_WRITER=write: the fallback of file systems that refuse
        fallocate or mmap, said in the header."""
        r = run_traced([LOAD_LOOP, "500", LIB], env={"GPUTRACE_WRITER": "write"}, opts=["-q"])
        self.addCleanup(cleanup, r)
        (trace,) = r.traces
        self.assertEqual(trace.header["writer"], "write")
        self.assertEqual(trace.header["writer_why"], "GPUTRACE_WRITER=write")
        self.assertEqual(len(opens_of(trace, "/" + LIB)), 500)
        self.assertNotIn(b"\0", trace.raw)


class NoFdInTheProgram(unittest.TestCase):
    def test_same_fds_as_bare(self):
        """The mapped trace holds no fd in the program (the shell lists its own)."""
        argv = ["sh", "-c", "ls /proc/$$/fd"]
        bare = run_bare(argv)
        r = run_traced(argv, opts=["-q"])
        self.addCleanup(cleanup, r)
        self.assertEqual(r.proc.stdout, bare.stdout)
        self.assertEqual(r.traces[0].header["writer"], "mmap")


class FullFileSystem(unittest.TestCase):
    """A 64 KiB tmpfs as the trace folder."""

    def setUp(self):
        self.mnt = tempfile.mkdtemp(prefix="gt-tiny-")
        self.addCleanup(os.rmdir, self.mnt)
        if os.geteuid() != 0:
            self.skipTest("mounting a tmpfs needs root")
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", self.mnt],
                           capture_output=True)
        if m.returncode != 0:
            self.skipTest("cannot mount a tmpfs here: " + m.stderr.decode().strip())
        self.addCleanup(subprocess.run, ["umount", self.mnt])

    def test_program_untouched_trace_says_cut(self):
        argv = [LOAD_LOOP, "3000", LIB]
        bare = run_bare(argv)
        outdir = os.path.join(self.mnt, "t")
        r = run_traced(argv, outdir=outdir, opts=["-q"])
        self.assertEqual(r.proc.returncode, bare.returncode)
        self.assertEqual(r.proc.stdout.split(b"\n")[1:], bare.stdout.split(b"\n")[1:])
        (trace,) = r.traces
        self.assertLessEqual(len(trace.raw), 64 << 10)
        cuts = [n for n in trace.events("note") if n.get("what") == "trace_cut"]
        self.assertEqual([n["reason"] for n in cuts], ["ENOSPC"])
        self.assertGreater(len(opens_of(trace, "/" + LIB)), 0)
        self.assertLess(len(opens_of(trace, "/" + LIB)), 3000)
        rc, d = report_json(outdir)
        (p,) = d["processes"]
        self.assertEqual(p["trace_cut"], "ENOSPC")
        self.assertNotIn("crashed", {f["id"] for f in d["findings"]})
        text = subprocess.run([GPUTRACE, "report", outdir], capture_output=True, text=True)
        self.assertIn("the trace was cut (ENOSPC)", text.stdout)
        shutil.rmtree(outdir)


if __name__ == "__main__":
    unittest.main()
