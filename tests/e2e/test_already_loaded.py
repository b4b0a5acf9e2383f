"""Issue 28, first loaded wins: a DT_NEEDED name that an object already
loaded answers to (its SONAME) is bound to it with no search, so the trace
used to hold nothing for it.

Layout (built here with cc): an older libnccl.so.2 (2.16.2) beside "other",
a newer one (2.20.5, which alone defines ncclCommRegister) beside "fw"; each
requester's DT_RPATH names its own folder and both need libnccl.so.2.

- other loaded first: fw's libnccl.so.2 is met by other's 2.16.2 with no
  search: a no_search line {name, requester, path} and no search line of fw
  for that name; the report's already-loaded is an error (fw needs a symbol
  that copy lacks) naming the copy it got, its own copy on paper, who loaded
  the first one, and a fix that says to load fw first;
- fw loaded first (the fix): other gets the newer 2.20.5 with no search: the
  line is there, and no finding (a newer release of the same major);
- both requesters find the same file: the line, no finding."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import GPUTRACE, cleanup, run_traced, value

PY = "/usr/bin/python3"

NCCL_OLD = "int ncclGetVersion(int *v) { *v = 21602; return 0; }\nint ncclAllReduce(void) { return 0; }\n"
NCCL_NEW = NCCL_OLD.replace("21602", "22005") + "int ncclCommRegister(void) { return 0; }\n"
FW = "int ncclCommRegister(void);\nint fw_init(void) { return ncclCommRegister(); }\n"
OTHER = "int ncclAllReduce(void);\nint other_init(void) { return ncclAllReduce(); }\n"

PROGRAM = r"""
import ctypes, sys
for path in sys.argv[1:]:
    try:
        ctypes.CDLL(path)
    except OSError as e:
        print("ImportError:", e)
        sys.exit(1)
print("ok")
"""


def cc(src, out, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write(src)
    try:
        subprocess.run(["cc", "-shared", "-fPIC", "-o", out, f.name, *args], check=True)
    finally:
        os.unlink(f.name)


def build(root, shared=False):
    """root/{old,new}/libnccl.so.2 -> libnccl.so.2.X.Y; root/other, root/fw."""
    for folder, src, ver in (("old", NCCL_OLD, "2.16.2"), ("new", NCCL_NEW, "2.20.5")):
        os.makedirs(os.path.join(root, folder))
        cc(src, os.path.join(root, folder, "libnccl.so." + ver), "-Wl,-soname,libnccl.so.2")
        os.symlink("libnccl.so." + ver, os.path.join(root, folder, "libnccl.so.2"))
    for name, src, folder in (("other", OTHER, "new" if shared else "old"), ("fw", FW, "new")):
        os.makedirs(os.path.join(root, name))
        lib = os.path.join(root, folder)
        cc(src, os.path.join(root, name, "lib%s.so" % name), "-Wl,-z,now", "-Wl,--disable-new-dtags",
           "-Wl,-rpath,$ORIGIN/../" + folder, "-L" + lib, "-l:libnccl.so.2")


def report_json(outdir):
    p = subprocess.run([GPUTRACE, "report", "--json", outdir], capture_output=True, timeout=120)
    return json.loads(p.stdout)


@unittest.skipUnless(os.access(PY, os.X_OK) and shutil.which("cc"), "needs /usr/bin/python3 and cc")
class AlreadyLoaded(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="gt-already-")
        self.addCleanup(shutil.rmtree, self.root, True)

    def run_order(self, *names):
        libs = [os.path.join(self.root, n, "lib%s.so" % n) for n in names]
        run = run_traced([PY, "-c", PROGRAM, *libs], opts=("-q",))
        self.addCleanup(cleanup, run)
        self.assertEqual(len(run.traces), 1, run.proc.stderr)
        return run, run.traces[0]

    def no_search(self, trace, requester):
        return [o for o in trace.events("no_search")
                if value(o, "name") == "libnccl.so.2" and value(o, "requester").endswith(requester)]

    def findings(self, run):
        return [f for f in report_json(run.outdir)["findings"] if f["id"] == "already-loaded"]

    def test_older_copy_loaded_first_is_recorded_and_judged(self):
        build(self.root)
        run, trace = self.run_order("other", "fw")
        self.assertEqual(run.proc.returncode, 1)
        self.assertIn(b"undefined symbol: ncclCommRegister", run.proc.stdout)
        lines = self.no_search(trace, "/fw/libfw.so")
        self.assertEqual(len(lines), 1, trace.events("no_search"))
        self.assertEqual(os.path.realpath(value(lines[0], "path")),
                         os.path.join(os.path.realpath(self.root), "old", "libnccl.so.2.16.2"))
        self.assertEqual([s for s in trace.searches("libnccl.so.2")
                          if value(s, "requester").endswith("/fw/libfw.so")], [],
                         "the loader searched: the case does not test a match without a search")
        found = self.findings(run)
        self.assertEqual(len(found), 1, found)
        f = found[0]
        self.assertEqual(f["severity"], "error")
        self.assertIn("old/libnccl.so.2", f["summary"])
        self.assertIn("ncclCommRegister", json.dumps(f["evidence"]))
        first = f["evidence"][0]
        self.assertTrue(first["requester"].endswith("/fw/libfw.so"))
        self.assertTrue(first["first_requester"].endswith("/other/libother.so"))
        self.assertTrue(f["evidence"][1]["own_copy"].endswith("new/libnccl.so.2"))
        self.assertEqual(f["evidence"][1]["own_version"], "2.20.5")
        self.assertIn("before", f["fix"])

    def test_copy_loaded_by_its_file_path_answers_by_its_soname(self):
        """The first copy loaded by the path of its file (old/libnccl.so.2.16.2,
        as torch's and conda's preloads load by path): no name it was loaded by
        is libnccl.so.2, only its SONAME answers to fw's DT_NEEDED, and the
        no_search line still names it (the audit module keeps each object's
        SONAME in its loaded index, issue 29)."""
        build(self.root)
        first = os.path.join(self.root, "old", "libnccl.so.2.16.2")
        run = run_traced([PY, "-c", PROGRAM, first, os.path.join(self.root, "fw", "libfw.so")], opts=("-q",))
        self.addCleanup(cleanup, run)
        self.assertEqual(len(run.traces), 1, run.proc.stderr)
        trace = run.traces[0]
        self.assertEqual(run.proc.returncode, 1)
        self.assertIn(b"undefined symbol: ncclCommRegister", run.proc.stdout)
        self.assertEqual([s for s in trace.searches("libnccl.so.2")
                          if value(s, "requester").endswith("/fw/libfw.so")], [],
                         "the loader searched: the case does not test a match by SONAME")
        lines = self.no_search(trace, "/fw/libfw.so")
        self.assertEqual(len(lines), 1, trace.events("no_search"))
        self.assertEqual(os.path.realpath(value(lines[0], "path")), os.path.realpath(first))
        found = self.findings(run)
        self.assertEqual(len(found), 1, found)
        self.assertEqual(found[0]["severity"], "error")

    def test_newer_copy_loaded_first_says_nothing(self):
        build(self.root)
        run, trace = self.run_order("fw", "other")
        self.assertEqual(run.proc.returncode, 0, run.proc.stdout)
        lines = self.no_search(trace, "/other/libother.so")
        self.assertEqual(len(lines), 1, trace.events("no_search"))
        self.assertTrue(os.path.realpath(value(lines[0], "path")).endswith("/new/libnccl.so.2.20.5"))
        self.assertEqual(self.findings(run), [])

    def test_the_same_file_says_nothing(self):
        build(self.root, shared=True)
        run, trace = self.run_order("other", "fw")
        self.assertEqual(run.proc.returncode, 0, run.proc.stdout)
        self.assertEqual(len(self.no_search(trace, "/fw/libfw.so")), 1, trace.events("no_search"))
        self.assertEqual(self.findings(run), [])

    def test_two_objects_of_one_load_need_the_same_name(self):
        """One dlopen maps libduo.so and the libfw.so it needs, and both need
        libnccl.so.2, loaded before with libother.so: the phase's end looks
        the name up once (the audit module's memo, session 42) and must
        still write one line for each requester, both naming that file."""
        build(self.root, shared=True)
        duo = os.path.join(self.root, "duo")
        os.makedirs(duo)
        cc("int fw_init(void);\nint ncclAllReduce(void);\n"
           "int duo_init(void) { return fw_init() + ncclAllReduce(); }\n",
           os.path.join(duo, "libduo.so"), "-Wl,--disable-new-dtags",
           "-Wl,-rpath,$ORIGIN/../fw:$ORIGIN/../new", "-L" + os.path.join(self.root, "fw"), "-lfw",
           "-L" + os.path.join(self.root, "new"), "-l:libnccl.so.2")
        run, trace = self.run_order("other", "duo")
        self.assertEqual(run.proc.returncode, 0, run.proc.stdout)
        want = os.path.join(os.path.realpath(self.root), "new", "libnccl.so.2.20.5")
        for requester in ("/duo/libduo.so", "/fw/libfw.so"):
            lines = self.no_search(trace, requester)
            self.assertEqual(len(lines), 1, (requester, trace.events("no_search")))
            self.assertEqual(os.path.realpath(value(lines[0], "path")), want)
        self.assertEqual(self.findings(run), [])

    def test_paths_shown_by_their_real_folder(self):
        """Issue 28: torch's layout, libfw.so in site-packages/torch/lib with a
        RUNPATH of $ORIGIN/../../nvidia/nccl/lib (as torch's
        $ORIGIN/../../nvidia/cudnn/lib), the older copy loaded first through
        $ORIGIN/../old: the loader's own names keep the `..`; the finding
        names each file by its real folder, the SONAME link with the file it
        stands for, in text and in JSON."""
        build(self.root)
        sp = os.path.join(self.root, "site-packages")
        own_dir = os.path.join(sp, "nvidia", "nccl", "lib")
        os.makedirs(os.path.join(sp, "torch", "lib"))
        shutil.copytree(os.path.join(self.root, "new"), own_dir, symlinks=True)
        cc(FW, os.path.join(sp, "torch", "lib", "libfw.so"), "-Wl,-z,now", "-Wl,--enable-new-dtags",
           "-Wl,-rpath,$ORIGIN/../../nvidia/nccl/lib", "-L" + own_dir, "-l:libnccl.so.2")
        libs = [os.path.join(self.root, "other", "libother.so"), os.path.join(sp, "torch", "lib", "libfw.so")]
        run = run_traced([PY, "-c", PROGRAM, *libs], opts=("-q",))
        self.addCleanup(cleanup, run)
        self.assertEqual(run.proc.returncode, 1, run.proc.stdout)
        (f,) = self.findings(run)
        real_own = os.path.join(os.path.realpath(own_dir), "libnccl.so.2")
        real_old = os.path.join(os.path.realpath(self.root), "old", "libnccl.so.2")
        paper = f["evidence"][1]
        self.assertEqual(paper["own_copy"], real_own)
        self.assertEqual(paper["own_real_path"], real_own + ".20.5")
        self.assertEqual(paper["own_rule"], "runpath")
        self.assertIn("finds %s -> libnccl.so.2.20.5 2.20.5 through runpath" % real_own, paper["what"])
        self.assertIn("not its own %s -> libnccl.so.2.20.5 2.20.5" % real_own, f["summary"])
        self.assertIn("got %s 2.16.2" % real_old, f["summary"])
        self.assertIn("at %s -> libnccl.so.2.20.5;" % real_own, f["fix"])
        self.assertIn("(%s)" % real_old, f["fix"])
        shown = [f["summary"], f["fix"]] + [e["what"] for e in f["evidence"]] + [paper["own_copy"]]
        for text in shown:
            for bad in ("/../", "/./", "//"):
                self.assertNotIn(bad, text)
        # Every finding's words, whatever rule wrote them (the shared pass
        # after the rules: report/report.c, rules/shown_path.c).
        every = report_json(run.outdir)["findings"]
        self.assertGreater(len(every), 1, [x["id"] for x in every])
        for x in every:
            for text in [x["summary"], x["fix"]] + [e["what"] for e in x["evidence"]]:
                self.assertNotIn("/../", text, x["id"])
        # The loader's own name of the older copy keeps its `..` where the
        # JSON names the object (processes' libraries, evidence "path").
        self.assertIn("/other/../old/", f["evidence"][0]["path"])
        text = subprocess.run([GPUTRACE, "report", run.outdir], capture_output=True, timeout=120).stdout
        text = b" ".join(text.split()).decode()
        self.assertIn("finds %s -> libnccl.so.2.20.5 2.20.5 through runpath" % real_own, text)
        self.assertNotIn("/../", text)


if __name__ == "__main__":
    unittest.main()
