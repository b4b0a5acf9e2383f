"""Many processes, many hosts (issue 7): per-rank traces, one merged report,
the odd rank out.

- mpirun (Debian's openmpi) both ways round: `mpirun -np 4 gputrace PROGRAM`
  and `gputrace mpirun -np 4 PROGRAM`, where rank 2 gets the system cuDNN 9.14
  through its LD_LIBRARY_PATH (tests/scripts/rank_cudnn.sh) and the others the
  wheel's 9.19: the report groups ranks 0, 1, 3 and names rank 2 in
  `divergent-processes`, both versions side by side.
- Python multiprocessing, a fork Pool of 4 workers: 5 traces, one report.
- torchrun (Debian's python3-torch, gloo): the launcher and both workers
  traced, the job's exit status kept.
- Hosts: traces of several hosts (GPUTRACE_HOST) in one folder, and two hosts
  with the same pid and rank, do not collide and merge into one report.

Report JSON used here (beyond test_report.py's contract): each process has
"pid", "host", "rank" (when known) and "group" (index into "groups"); each
group has "pids", "ranks", "hosts", "count", "representative"; each finding's
"processes" lists every pid it applies to, plus "ranks" and "hosts" when
known.  `divergent-processes` evidence items carry "component", "majority" and
"minority" ({"version", "path"}) for a library that differs, or "fn",
"majority_status", "minority_status" for an API outcome that differs."""
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, Trace, traces_in

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(HERE), "scripts")
RANK_CUDNN = os.path.join(SCRIPTS, "rank_cudnn.sh")
GLOO_TINY = os.path.join(SCRIPTS, "gloo_tiny.py")
PROGRAM = os.path.join(FIX, "scenarios", "sc_rank_cudnn")
PYTHON = "/usr/bin/python3"
ODD_RANK = 2
# Variables that steer loading, or that would give a process a rank: the tests
# set their own.
CLEAR = ("LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT", "CUDA_HOME", "CONDA_PREFIX",
         "VIRTUAL_ENV", "CUDA_VISIBLE_DEVICES", "GPUTRACE_DIR", "GPUTRACE_HOST",
         "RANK", "LOCAL_RANK", "WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
         "PMI_RANK", "SLURM_PROCID")
RANK_NAME = re.compile(r"\.rank(\d+)\.jsonl$")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in CLEAR}
    env["FIX"] = FIX
    env.update(extra)
    return env


def report_json(outdir):
    rep = subprocess.run([GPUTRACE, "report", "--json", outdir], capture_output=True,
                         timeout=120)
    if rep.returncode not in (0, 1):
        raise AssertionError("report exit %d: %s" % (rep.returncode,
                                                     rep.stderr.decode(errors="replace")))
    return rep.returncode, json.loads(rep.stdout)


def trace_files(outdir):
    return sorted(f for f in os.listdir(outdir) if f.endswith(".jsonl"))


def mpirun_argv(np):
    argv = ["mpirun", "--oversubscribe", "-np", str(np)]
    if os.geteuid() == 0:
        argv.insert(1, "--allow-run-as-root")
    return argv


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MultiCase(unittest.TestCase):
    """Checks shared by the many-process tests, on a report's JSON `obj`."""
    maxDiff = None
    obj = None

    def ids(self):
        return [f["id"] for f in self.obj["findings"]]

    def check_groups(self, nproc):
        """One entry per process, each in exactly one group; groups add up."""
        procs, groups = self.obj["processes"], self.obj["groups"]
        self.assertEqual(len(procs), nproc, [(p["pid"], p.get("rank")) for p in procs])
        for p in procs:
            for key in ("pid", "host", "group"):
                self.assertIn(key, p)
            self.assertTrue(0 <= p["group"] < len(groups), p["group"])
        self.assertEqual(sum(g["count"] for g in groups), nproc)
        for i, g in enumerate(groups):
            self.assertEqual(g["count"], len(g["pids"]), g)
            self.assertIn(g["representative"], g["pids"], g)
            members = [p for p in procs if p["group"] == i]
            self.assertEqual(len(members), g["count"], g)
            self.assertEqual(sorted(p["pid"] for p in members), sorted(g["pids"]), g)
            self.assertEqual(sorted({p["host"] for p in members}), sorted(set(g["hosts"])), g)
            ranks = {p["rank"] for p in members if p.get("rank") is not None}
            self.assertEqual(ranks, set(g.get("ranks", [])), g)

    def group_of_ranks(self, ranks):
        found = [g for g in self.obj["groups"] if set(g.get("ranks", [])) == set(ranks)]
        self.assertTrue(found, "a group of ranks %s in %s" % (ranks, self.obj["groups"]))
        return found[0]

    def process_of_rank(self, rank):
        found = [p for p in self.obj["processes"] if p.get("rank") == rank]
        self.assertEqual(len(found), 1, "one process of rank %d" % rank)
        return found[0]

    def divergent(self):
        found = [f for f in self.obj["findings"] if f["id"] == "divergent-processes"]
        self.assertEqual(len(found), 1, self.ids())
        f = found[0]
        self.assertEqual(f["severity"], "error")
        self.assertTrue(f["summary"] and f["fix"] and f["evidence"], f)
        return f

    def check_odd_rank_named(self, host):
        """divergent-processes names rank 2 and its host, 9.19 vs 9.14 side by side."""
        f = self.divergent()
        odd = self.process_of_rank(ODD_RANK)
        self.assertIn(odd["pid"], f["processes"])
        self.assertEqual(f.get("ranks"), [ODD_RANK], f)
        self.assertEqual(f.get("hosts"), [host], f)
        for r in (0, 1, 3):
            self.assertNotIn(self.process_of_rank(r)["pid"], f["processes"])
        self.assertRegex(f["summary"], r"\b%d\b" % ODD_RANK)
        self.assertIn(host, f["summary"])
        text = json.dumps(f["evidence"])
        self.assertRegex(text, r"\b%d\b" % ODD_RANK, "evidence names the odd rank")
        libs = [ev for ev in f["evidence"] if "component" in ev]
        self.assertTrue(libs, f["evidence"])
        front = [ev for ev in libs
                 if ev["component"] in ("cudnn", "libcudnn.so.9")
                 or str(ev["component"]).startswith("libcudnn.so")]
        self.assertTrue(front, "the cuDNN front library differs: %s" % libs)
        for ev in libs:
            for side in ("majority", "minority"):
                self.assertIn("version", ev[side], ev)
                self.assertIn("path", ev[side], ev)
        ev = front[0]
        self.assertTrue(ev["majority"]["version"].startswith("9.19"), ev)
        self.assertTrue(ev["minority"]["version"].startswith("9.14"), ev)
        self.assertIn("/site-packages/nvidia/cudnn/lib/", ev["majority"]["path"])
        self.assertIn("/system/lib/", ev["minority"]["path"])


def mpirun_missing():
    return shutil.which("mpirun") is None


@unittest.skipIf(mpirun_missing(), "mpirun is not installed (Debian: openmpi-bin)")
class GputraceUnderMpirun(MultiCase):
    """`mpirun -np 4 gputrace -q -o DIR -- rank_cudnn.sh PROGRAM`: each rank traced."""

    @classmethod
    def setUpClass(cls):
        cls.outdir = tempfile.mkdtemp(prefix="gt-multi-")
        cls.job = subprocess.run(
            mpirun_argv(4) + [GPUTRACE, "-q", "-o", cls.outdir, "--", RANK_CUDNN, PROGRAM],
            env=clean_env(), capture_output=True, timeout=120)
        cls.rc, cls.obj = report_json(cls.outdir)
        cls.host = Trace(os.path.join(cls.outdir, trace_files(cls.outdir)[0])).header["host"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.outdir, ignore_errors=True)

    def test_each_rank_ran_and_was_traced(self):
        self.assertEqual(self.job.returncode, 0, self.job.stderr.decode(errors="replace"))
        out = self.job.stdout.decode()
        self.assertEqual(len(re.findall(r"cudnnGetVersion\(\) = 91900", out)), 3, out)
        self.assertIn("rank %d: cudnnGetVersion() = 91400" % ODD_RANK, out)
        files = trace_files(self.outdir)
        self.assertEqual(len(files), 4, files)
        self.assertEqual(sorted(int(RANK_NAME.search(f).group(1)) for f in files),
                         [0, 1, 2, 3], files)
        for t in traces_in(self.outdir):
            self.assertEqual(t.header["world_size"], 4)
            self.assertEqual(t.header["rank_var"], "OMPI_COMM_WORLD_RANK")
            self.assertTrue(t.ended_cleanly(), t.path)

    def test_report_groups_the_three_alike(self):
        self.check_groups(4)
        g = self.group_of_ranks([0, 1, 3])
        self.assertEqual(g["count"], 3)
        self.assertEqual(g["hosts"], [self.host])
        self.assertEqual(self.process_of_rank(ODD_RANK)["group"],
                         self.obj["groups"].index(self.group_of_ranks([ODD_RANK])))

    def test_divergent_names_rank_2_and_both_versions(self):
        self.check_odd_rank_named(self.host)
        self.assertEqual(self.rc, 1, "divergent-processes is an error")


@unittest.skipIf(mpirun_missing(), "mpirun is not installed (Debian: openmpi-bin)")
class MpirunUnderGputrace(MultiCase):
    """`gputrace -q -o DIR -- mpirun -np 4 rank_cudnn.sh PROGRAM`: the launcher
    and everything it starts traced."""

    @classmethod
    def setUpClass(cls):
        cls.outdir = tempfile.mkdtemp(prefix="gt-multi-")
        cls.job = subprocess.run(
            [GPUTRACE, "-q", "-o", cls.outdir, "--"] + mpirun_argv(4) + [RANK_CUDNN, PROGRAM],
            env=clean_env(), capture_output=True, timeout=120)
        cls.rc, cls.obj = report_json(cls.outdir)
        cls.traces = traces_in(cls.outdir)
        cls.host = cls.traces[0].header["host"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.outdir, ignore_errors=True)

    def test_launcher_and_ranks_traced(self):
        self.assertEqual(self.job.returncode, 0, self.job.stderr.decode(errors="replace"))
        names = [os.path.basename(t.path) for t in self.traces]
        ranks = sorted(int(RANK_NAME.search(n).group(1)) for n in names if RANK_NAME.search(n))
        self.assertEqual(ranks, [0, 1, 2, 3], names)
        launcher = [t for t in self.traces
                    if os.path.basename(t.header.get("exe", "")) in ("orterun", "mpirun")
                    and t.header.get("rank") is None and t.events("end")]
        self.assertTrue(launcher, "the launcher's own trace: %s" % names)
        pids = {t.pid for t in self.traces}
        self.assertGreaterEqual(len(self.obj["processes"]), 5)
        self.assertEqual({p["pid"] for p in self.obj["processes"]}, pids)
        # one file per process: the fork stage of each rank, before its exec
        # gave it a rank, leaves no file of its own beside the rank's
        self.assertEqual(len(pids), len(self.traces), names)

    def test_report_groups_the_three_alike(self):
        self.check_groups(len(self.obj["processes"]))
        g = self.group_of_ranks([0, 1, 3])
        self.assertEqual(g["count"], 3)

    def test_divergent_names_rank_2_and_both_versions(self):
        self.check_odd_rank_named(self.host)

    def test_exec_after_fork_is_not_a_crash(self):
        """mpirun forks, sets the rank variables, then execs: the child's
        pre-exec trace has no closing line, but nothing crashed."""
        self.assertNotIn("crashed", self.ids(), [
            (f["processes"], f["summary"]) for f in self.obj["findings"]
            if f["id"] == "crashed"])


MP_POOL4 = r"""
import multiprocessing as mp


def square(x):
    return x * x


if __name__ == "__main__":
    with mp.get_context("fork").Pool(4) as pool:
        print(sum(pool.map(square, range(100), chunksize=1)), flush=True)
"""


class PythonPool(MultiCase):
    """`gputrace python3 script.py` with a fork Pool(4): 5 traces, one report."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gt-multi-")
        cls.outdir = os.path.join(cls.tmp, "traces")
        script = os.path.join(cls.tmp, "pool4.py")
        with open(script, "w") as f:
            f.write(MP_POOL4)
        cls.job = subprocess.run([GPUTRACE, "-q", "-o", cls.outdir, "--", PYTHON, script],
                                 env=clean_env(), capture_output=True, timeout=120)
        cls.rc, cls.obj = report_json(cls.outdir)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_five_traces_one_report(self):
        self.assertEqual(self.job.returncode, 0, self.job.stderr.decode(errors="replace"))
        self.assertEqual(self.job.stdout.decode().split(), ["328350"])
        traces = traces_in(self.outdir)
        self.assertEqual(len(traces), 5, trace_files(self.outdir))
        main = [t for t in traces if t.header["ppid"] == self.run_pid_parent(traces)]
        self.assertEqual(len(main), 1)
        workers = [t for t in traces if t.header["ppid"] == main[0].pid]
        self.assertEqual(len(workers), 4)
        self.assertEqual(len(self.obj["processes"]), 5)
        self.assertEqual(sorted(p["pid"] for p in self.obj["processes"]),
                         sorted(t.pid for t in traces))

    @staticmethod
    def run_pid_parent(traces):
        """The main process's parent: the one ppid that is not a traced pid."""
        pids = {t.pid for t in traces}
        parents = {t.header["ppid"] for t in traces} - pids
        return parents.pop() if len(parents) == 1 else None

    def test_pool_workers_are_not_crashes(self):
        """Pool workers leave through os._exit: no closing line, yet no crash."""
        self.assertNotIn("crashed", self.ids())
        self.assertEqual(self.rc, 0, self.ids())

    def test_workers_grouped(self):
        """The 4 workers are alike but for how they ended: os._exit(0) (their
        end line says so) or the pool's terminate (SIGTERM, stopped): at most
        two groups, each all stopped or all exit 0."""
        self.check_groups(5)
        main = [p for p in self.obj["processes"] if p["ppid"] not in {q["pid"] for q in self.obj["processes"]}]
        workers = [p for p in self.obj["processes"] if p not in main]
        self.assertEqual(len(workers), 4)
        self.assertLessEqual(len({p["group"] for p in workers}), 2, self.obj["groups"])
        for p in workers:
            self.assertTrue(p["ended"] == {"how": "exit", "status": 0} or p["ended"].get("stopped"), p["ended"])


def torch_distributed():
    try:
        r = subprocess.run([PYTHON, "-c", "import torch.distributed as d; "
                            "raise SystemExit(0 if d.is_available() else 1)"],
                           capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


@unittest.skipUnless(torch_distributed(), "import torch.distributed fails (Debian: python3-torch)")
class Torchrun(MultiCase):
    """`gputrace python3 -m torch.distributed.run --nproc_per_node=2 gloo_tiny.py`."""

    def torchrun(self, **env):
        outdir = tempfile.mkdtemp(prefix="gt-multi-")
        logs = tempfile.mkdtemp(prefix="gt-multi-logs-")
        self.addCleanup(shutil.rmtree, outdir, True)
        self.addCleanup(shutil.rmtree, logs, True)
        # torch 1.13 on Python 3.11: "--redirects 0" (the default) parses to
        # None (IntFlag iteration skips 0) and torchrun dies in to_map();
        # redirect stdout to its log and tee it back instead.
        argv = [GPUTRACE, "-q", "-o", outdir, "--", PYTHON, "-m", "torch.distributed.run",
                "--nproc_per_node=2", "--master_addr=127.0.0.1",
                "--master_port=%d" % free_port(), "--redirects", "1", "--tee", "1",
                "--log_dir", logs, GLOO_TINY]
        run = subprocess.run(argv, env=clean_env(OMP_NUM_THREADS="1", **env),
                             capture_output=True, timeout=120)
        rc, self.obj = report_json(outdir)
        return run, traces_in(outdir)

    def check_traced(self, traces):
        names = [os.path.basename(t.path) for t in traces]
        self.assertGreaterEqual(len(traces), 3, names)
        launcher = [t for t in traces if "torch.distributed.run" in t.header["argv"]]
        self.assertEqual(len(launcher), 1, names)
        workers = [t for t in traces if t.header.get("rank") is not None]
        self.assertEqual(sorted(t.header["rank"] for t in workers), [0, 1], names)
        for t in workers:
            self.assertEqual(t.header["rank_var"], "RANK")
            self.assertEqual(t.header["world_size"], 2)
            self.assertTrue(RANK_NAME.search(t.path), t.path)
            self.assertIn(GLOO_TINY, " ".join(t.header["argv"]))
        self.assertEqual(sorted(p["pid"] for p in self.obj["processes"]),
                         sorted(t.pid for t in traces))
        return launcher[0]

    def test_launcher_and_both_workers(self):
        run, traces = self.torchrun()
        out = run.stdout.decode(errors="replace")
        self.assertEqual(run.returncode, 0, out + run.stderr.decode(errors="replace"))
        self.assertEqual(len(re.findall(r"all_reduce = 3\b", out)), 2, out)
        self.check_traced(traces)
        self.check_groups(len(self.obj["processes"]))
        self.group_of_ranks([0, 1])

    def test_failed_worker_status_kept(self):
        run, traces = self.torchrun(GLOO_TINY_FAIL_RANK="0")
        err = run.stderr.decode(errors="replace")
        self.assertNotEqual(run.returncode, 0, err)
        launcher = self.check_traced(traces)
        reaped = launcher.reaped()
        self.assertTrue(reaped, "the launcher's trace has its reaped line")
        self.assertEqual(reaped.get("exit_status"), run.returncode)
        proc = [p for p in self.obj["processes"] if p["pid"] == launcher.pid][0]
        self.assertEqual(proc["ended"].get("status"), run.returncode, proc["ended"])
        rank0 = [t for t in traces if t.header.get("rank") == 0][0]
        p0 = [p for p in self.obj["processes"] if p["pid"] == rank0.pid][0]
        if "status" in p0["ended"]:
            self.assertEqual(p0["ended"]["status"], 3, p0["ended"])


def rehost(src, dst_dir, host):
    """Copies a trace as if written on another host: "host" in its header and
    the host part of its name rewritten (same pid, same rank)."""
    with open(src, "rb") as f:
        lines = f.read().split(b"\n")
    header = json.loads(lines[0])
    old = header["host"]
    header["host"] = host
    lines[0] = json.dumps(header, separators=(",", ":")).encode()
    name = os.path.basename(src)
    assert name.startswith(old + ".")
    dst = os.path.join(dst_dir, host + name[len(old):])
    with open(dst, "wb") as f:
        f.write(b"\n".join(lines))
    return dst


class Hosts(MultiCase):
    """Traces of several hosts in one shared folder."""

    def trace_on(self, outdir, host, **env):
        run = subprocess.run([GPUTRACE, "-q", "-o", outdir, "--append", "--", RANK_CUDNN, PROGRAM],
                             env=clean_env(GPUTRACE_HOST=host, **env), capture_output=True,
                             timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr.decode(errors="replace"))

    def outdir(self):
        d = tempfile.mkdtemp(prefix="gt-multi-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def test_two_hosts_one_folder(self):
        d = self.outdir()
        self.trace_on(d, "hostA")
        self.trace_on(d, "hostB")
        files = trace_files(d)
        self.assertEqual(len(files), 2, files)
        self.assertEqual(sorted(f.split(".")[0] for f in files), ["hostA", "hostB"])
        rc, self.obj = report_json(d)
        self.assertEqual(rc, 0, self.ids())
        self.assertEqual(sorted(p["host"] for p in self.obj["processes"]), ["hostA", "hostB"])
        self.check_groups(2)
        self.assertEqual([(g["count"], sorted(g["hosts"])) for g in self.obj["groups"]],
                         [(2, ["hostA", "hostB"])])
        self.assertNotIn("divergent-processes", self.ids())

    def test_same_pid_and_rank_on_two_hosts(self):
        d = self.outdir()
        self.trace_on(d, "hostA", RANK="0", WORLD_SIZE="2")
        [src] = trace_files(d)
        self.assertRegex(src, r"^hostA\.\d+\.rank0\.jsonl$")
        dst = rehost(os.path.join(d, src), d, "hostB")
        files = trace_files(d)
        self.assertEqual(files, [src, os.path.basename(dst)])
        pid = Trace(os.path.join(d, src)).pid
        self.assertEqual(Trace(dst).pid, pid)
        rc, self.obj = report_json(d)
        self.assertEqual(rc, 0, self.ids())
        procs = self.obj["processes"]
        self.assertEqual(len(procs), 2, procs)
        self.assertEqual(sorted((p["host"], p["pid"], p.get("rank")) for p in procs),
                         [("hostA", pid, 0), ("hostB", pid, 0)])
        self.check_groups(2)
        [g] = self.obj["groups"]
        self.assertEqual((g["count"], sorted(g["hosts"]), set(g["ranks"])),
                         (2, ["hostA", "hostB"], {0}))

    def test_odd_host_is_named(self):
        """Three hosts, one with the system cuDNN: divergent-processes names it."""
        d = self.outdir()
        self.trace_on(d, "hostA", RANK="0")
        self.trace_on(d, "hostB", RANK="1")
        self.trace_on(d, "hostC", RANK=str(ODD_RANK))
        self.hostc_pid = Trace(os.path.join(d, [f for f in trace_files(d)
                                                if f.startswith("hostC.")][0])).pid
        rc, self.obj = report_json(d)
        self.check_groups(3)
        f = self.divergent()
        self.assertEqual(f.get("hosts"), ["hostC"], f)
        self.assertEqual(f.get("ranks"), [ODD_RANK], f)
        self.assertIn("hostC", f["summary"])
        self.assertIn(self.hostc_pid, f["processes"])
        self.assertEqual(rc, 1)


if __name__ == "__main__":
    unittest.main()
