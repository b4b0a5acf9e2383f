"""Facts gathered once (issue 27): the diagnosis at the end of a traced run
writes the traced host's answers beside the traces (gputrace-facts.json),
and `gputrace report` on that folder gives the same report wherever and
whenever it runs.

Every finding a trace can give is produced here from a private copy of the
fixtures; the report is read once, then the copy is renamed away (the files
the trace names are gone, as on a maintainer's machine or after `pip install
-U`) and the report read again: it must be the same, answered wholly from
the facts file. The ids the corpus of reported failures covers
(tests/cases: every case is read again the same way, tests/cases/corpus.py)
are listed in IN_CORPUS, and test_cases checks that the corpus gives them.

Also: the facts file's schema, a file of an unknown version refused, a
foreign host without facts said, questions a facts file does not answer
counted and said, and the check that rules read nothing of the host."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e import finding_table, schemas
from tests.e2e.gtlib import BUILD, FIX, GPUTRACE, PROGS

FACTS = "gputrace-facts.json"
LOAD_AND_DIE = os.path.join(PROGS, "load_and_die")
CUDA_OPS = os.path.join(PROGS, "cuda_ops")
FORK = os.path.join(PROGS, "fork_after_init")
# Findings only `gputrace scan` gives: no trace has them.
SCAN_ONLY = {"broken-symlink", "wrong-architecture"}
# Findings the corpus's reported failures give, each read again with its
# layout renamed away (tests/cases/corpus.py, report_elsewhere).
IN_CORPUS = {"missing-symbol", "framework-mismatch", "already-loaded"}

KMOD = "580.159.04"
KMOD_SETUP = """set -e
mount -t tmpfs none /proc/driver
mkdir -p /proc/driver/nvidia/gpus/0000:00:1e.0
printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  (dvs@x)  Thu Oct 30 2025\\n' \
  > /proc/driver/nvidia/version
printf 'Model: \\t\\t NVIDIA H200\\nBus Location: \\t 0000:00:1e.0\\n' > /proc/driver/nvidia/gpus/0000:00:1e.0/information
exec "$@"
""" % KMOD


def unshare_argv():
    return ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-rm"]


def kmod_emulation_works():
    return subprocess.run(unshare_argv() + ["sh", "-c", "mount -t tmpfs none /proc/driver"],
                          capture_output=True).returncode == 0


def comparable(report):
    """The report without what says where its facts came from."""
    return {k: v for k, v in report.items() if k != "facts"}


BYTES_REF = "#/$defs/bytes"


def spell_bytes_as_hex(node, schema, root):
    """node with every string the schema calls bytes ($defs.bytes, alone or
    as one of anyOf/oneOf) spelled {"hex": ...}, as the facts spell bytes
    that are not UTF-8: a reader that mishandles one gives another report."""
    if "$ref" in schema:
        if schema["$ref"] == BYTES_REF:
            return {"hex": node.encode("utf-8", "surrogateescape").hex()} if isinstance(node, str) else node
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    for alt in schema.get("anyOf", []) + schema.get("oneOf", []):
        if alt.get("$ref") == BYTES_REF and isinstance(node, str):
            return spell_bytes_as_hex(node, alt, root)
        if alt.get("type") == "object" and isinstance(node, dict):
            return spell_bytes_as_hex(node, alt, root)
        if alt.get("type") == "array" and isinstance(node, list):
            return spell_bytes_as_hex(node, alt, root)
    if isinstance(node, dict):
        props, extra = schema.get("properties", {}), schema.get("additionalProperties")
        return {k: spell_bytes_as_hex(v, props[k] if k in props else extra if isinstance(extra, dict) else {}, root)
                for k, v in node.items()}
    if isinstance(node, list) and isinstance(schema.get("items"), dict):
        return [spell_bytes_as_hex(v, schema["items"], root) for v in node]
    return node


def report_json(outdir):
    r = subprocess.run([GPUTRACE, "report", "--json", outdir], capture_output=True, timeout=120)
    return r.returncode, json.loads(r.stdout) if r.stdout else None, r.stderr.decode(errors="replace")


class Portable(unittest.TestCase):
    """One scenario per finding id, on a copy of the fixtures that goes away."""
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gt-facts-")
        cls.fx = os.path.join(cls.tmp, "fx")
        shutil.copytree(FIX, cls.fx, symlinks=True)
        cls.seen = set()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def f(self, rel):
        return os.path.join(self.fx, rel)

    def llp(self, *rels):
        return {"LD_LIBRARY_PATH": ":".join(self.f(r) for r in rels)}

    def trace(self, argv, env=None, wrap=(), outdir=None, append=False):
        outdir = outdir or tempfile.mkdtemp(prefix="t-", dir=self.tmp)
        full = dict(os.environ)
        full.pop("LD_LIBRARY_PATH", None)
        full.update(env or {})
        opts = ["--append"] if append else []
        subprocess.run(list(wrap) + [GPUTRACE, "-q", "-o", outdir] + opts + ["--"] + argv, env=full,
                       capture_output=True, timeout=120)
        return outdir

    def assert_portable(self, outdir, want_id):
        """The report names want_id; read again with the fixtures gone, the
        same report, every answer from the facts file."""
        self.assertTrue(os.path.exists(os.path.join(outdir, FACTS)), "the run ended without writing its facts")
        rc, here, err = report_json(outdir)
        self.assertIsNotNone(here, err)
        ids = {f["id"] for f in here["findings"]}
        self.assertIn(want_id, ids, json.dumps(here["findings"], indent=1)[:3000])
        self.assertEqual(here["facts"]["asked"], 0, "a later report reads the facts file: %s" % here["facts"])
        gone = self.fx + ".gone"
        os.rename(self.fx, gone)
        try:
            rc2, moved, err2 = report_json(outdir)
        finally:
            os.rename(gone, self.fx)
        self.assertIsNotNone(moved, err2)
        self.assertEqual(comparable(moved), comparable(here))
        self.assertEqual(rc2, rc)
        self.assertEqual((moved["facts"]["asked"], moved["facts"]["unanswered"]), (0, 0), moved["facts"])
        type(self).seen |= ids
        return here

    # ---- the driver

    def test_driver_missing(self):
        if os.path.exists("/lib/x86_64-linux-gnu/libcuda.so.1"):
            self.skipTest("a real libcuda.so.1 is installed: the driver is not missing here")
        self.assert_portable(self.trace([self.f("scenarios/sc_cuda")]), "driver-missing")

    def test_driver_stub(self):
        self.assert_portable(self.trace([self.f("scenarios/sc_cuda")], self.llp("cuda-13/lib64/stubs")),
                             "driver-stub")

    def test_driver_too_old(self):
        self.assert_portable(self.trace([self.f("scenarios/sc_cuda")], self.llp("driver-old")), "driver-too-old")

    @unittest.skipUnless(kmod_emulation_works(), "no private mount namespace for an emulated /proc/driver/nvidia")
    def test_driver_mismatch(self):
        d = self.trace([CUDA_OPS, "n"], self.llp("cuda-13.0/compat"), wrap=unshare_argv() + ["sh", "-c", KMOD_SETUP,
                                                                                           "sh"])
        self.assert_portable(d, "driver-mismatch")

    def test_no_device(self):
        env = dict(self.llp("driver"), FAKE_CUDA_DEVICES="0")
        self.assert_portable(self.trace([CUDA_OPS, "n"], env), "no-device")

    def test_init_failed(self):
        if os.path.exists("/lib/x86_64-linux-gnu/libcuda.so.1"):
            self.skipTest("a real libcuda.so.1 is installed")
        self.assert_portable(self.trace([self.f("scenarios/sc_torchlike")]), "init-failed")

    def test_out_of_memory(self):
        env = dict(self.llp("driver"), FAKE_CUDA_MEM_BYTES="1000000")
        self.assert_portable(self.trace([CUDA_OPS, "m:1000", "m:1000000000000"], env), "out-of-memory")

    @unittest.skipUnless(os.path.exists(os.path.join(FIX, "kernels", "launch_sm80")), "nvcc not on this host")
    def test_no_kernel_image(self):
        env = dict(self.llp("driver"), FAKE_CUDA_CC="9.0", FAKE_CUDA_NAME="NVIDIA H200", FAKE_LAUNCH_STATUS="209")
        self.assert_portable(self.trace([self.f("kernels/launch_sm80")], env), "no-kernel-image")

    # ---- the libraries

    def test_library_not_found(self):
        d = self.trace([LOAD_AND_DIE, "exit1", "libcudnn.so.8"], {"CUDA_HOME": self.f("cuda-12")})
        self.assert_portable(d, "library-not-found")

    def test_cpu_only_build(self):
        d = self.trace([LOAD_AND_DIE, "exit", self.f("torch-cpu/site-packages/torch/lib/libtorch_cpu.so")])
        self.assert_portable(d, "cpu-only-build")

    def test_cuda_major_mismatch(self):
        d = self.trace([LOAD_AND_DIE, "exit", self.f("cuda-11.8/lib64/libcudart.so.11.0"),
                        self.f("cuda-12/lib64/libcudart.so.12")])
        self.assert_portable(d, "cuda-major-mismatch")

    def test_duplicate_library(self):
        d = self.trace([LOAD_AND_DIE, "exit", self.f("cuda-13/lib64/libcudart.so.13"),
                        self.f("site-packages/nvidia/cuda_runtime/lib/libcudart.so.13")])
        self.assert_portable(d, "duplicate-library")

    def test_mixed_versions_and_shadowed_library(self):
        d = self.trace([self.f("scenarios/sc_torchlike")], self.llp("system/lib", "driver"))
        rep = self.assert_portable(d, "mixed-versions")
        self.assertIn("shadowed-library", {f["id"] for f in rep["findings"]})

    def test_shadowed_bundle(self):
        d = self.trace([self.f("scenarios/sc_bundle8")], self.llp("cuda-11.8/lib64", "driver"))
        self.assert_portable(d, "shadowed-library")

    # ---- the process

    def test_crashed(self):
        d = self.trace([LOAD_AND_DIE, "segv", "libm.so.6", self.f("cuda-13/lib64/libcudart.so.13")])
        self.assert_portable(d, "crashed")

    def test_fork_after_init(self):
        self.assert_portable(self.trace([FORK, "call"], self.llp("driver")), "fork-after-init")

    def test_end_unknown_on_a_trace_cut_after_the_run(self):
        """A trace cut after the run (no closing line): how it ended is not
        known, from the facts saved for the cut trace."""
        d = self.trace([self.f("scenarios/sc_cuda")], self.llp("driver"))
        (name,) = [n for n in os.listdir(d) if n.endswith(".jsonl")]
        path = os.path.join(d, name)
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        with open(path, "wb") as f:
            f.write(b"\n".join(lines[:len(lines) // 2]) + b"\n")
        # A trace changed after the run asks what the run's diagnosis did
        # not: --save-facts asks them now.
        r = subprocess.run([GPUTRACE, "report", "--save-facts", d], capture_output=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_portable(d, "end-unknown")

    def test_divergent_processes(self):
        d = tempfile.mkdtemp(prefix="t-", dir=self.tmp)
        for rank in range(4):
            env = self.llp("system/lib", "driver") if rank == 2 else self.llp("driver")
            env.update(RANK=str(rank), WORLD_SIZE="4")
            self.trace([self.f("scenarios/sc_torchlike")], env, outdir=d, append=rank > 0)
        self.assert_portable(d, "divergent-processes")

    def test_missing_ranks(self):
        d = tempfile.mkdtemp(prefix="t-", dir=self.tmp)
        for rank in (0, 1, 3):
            env = dict(self.llp("driver"), RANK=str(rank), WORLD_SIZE="4")
            self.trace([self.f("scenarios/sc_cuda")], env, outdir=d, append=rank > 0)
        self.assert_portable(d, "missing-ranks")

    def test_zz_every_trace_finding_is_covered(self):
        """Runs last (unittest sorts by name): every id of the finding table
        that a trace can give was shown portable here or by the corpus."""
        skipped = {"driver-missing", "init-failed"} if os.path.exists("/lib/x86_64-linux-gnu/libcuda.so.1") else set()
        want = set(finding_table.IDS) - SCAN_ONLY - IN_CORPUS - skipped
        if not kmod_emulation_works():
            want.discard("driver-mismatch")
        if not os.path.exists(os.path.join(FIX, "kernels", "launch_sm80")):
            want.discard("no-kernel-image")
        self.assertEqual(want - type(self).seen, set())


class FactsFile(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="gt-facts-f-")
        self.addCleanup(shutil.rmtree, self.d, True)
        env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(FIX, "system/lib") + ":" + os.path.join(FIX, "driver"))
        subprocess.run([GPUTRACE, "-q", "-o", self.d, "--", os.path.join(FIX, "scenarios/sc_torchlike")], env=env,
                       capture_output=True, timeout=120)
        self.path = os.path.join(self.d, FACTS)
        with open(self.path) as f:
            self.doc = json.load(f)

    def write(self, doc):
        with open(self.path, "w") as f:
            json.dump(doc, f)

    def test_matches_its_schema_and_holds_what_the_rules_asked(self):
        schemas.check(self.doc, "facts")
        (store,) = self.doc["hosts"].values()
        self.assertTrue(store["real"], "real paths of the loaded libraries")
        self.assertTrue(store["elf"], "the requesters' dynamic sections")
        self.assertIn(os.path.join(FIX, "system/lib/libcudnn_graph.so.9"), store["real"])

    def test_an_unknown_version_is_refused(self):
        self.doc["version"] = 99
        self.write(self.doc)
        r = subprocess.run([GPUTRACE, "report", self.d], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("facts format version 99; this gputrace reads version 1", r.stderr)

    def test_not_a_facts_file_is_refused(self):
        with open(self.path, "w") as f:
            f.write("{\"format\": \"something-else\"}")
        r = subprocess.run([GPUTRACE, "report", self.d], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a gputrace facts file", r.stderr)

    def test_a_cut_or_unreadable_facts_file_is_refused_with_why(self):
        """Read whole, then parsed (facts/facts.c load_facts_file): a file cut
        short names its line, a path that cannot be read says why."""
        with open(self.path) as f:
            text = f.read()
        with open(self.path, "w") as f:
            f.write(text[: len(text) // 2])
        r = subprocess.run([GPUTRACE, "report", self.d], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertRegex(r.stderr, re.escape(self.path) + r": line [1-9][0-9]*: ")
        os.unlink(self.path)
        os.mkdir(self.path)
        r = subprocess.run([GPUTRACE, "report", self.d], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(self.path + ": Is a directory", r.stderr)
        self.assertNotIn("line -1", r.stderr)  # no line to name: a read error, not a parse error

    def as_other_host(self, keep_facts):
        """The traces and facts renamed to a host that is not this one."""
        host = next(iter(self.doc["hosts"]))
        for n in os.listdir(self.d):
            if n.endswith(".jsonl"):
                p = os.path.join(self.d, n)
                with open(p) as f:
                    text = f.read().replace('"host":"%s"' % host, '"host":"elsewhere-0"')
                with open(p, "w") as f:
                    f.write(text)
        if keep_facts:
            self.doc["hosts"] = {"elsewhere-0": self.doc["hosts"][host]}
            self.write(self.doc)
        else:
            os.unlink(self.path)

    def test_a_foreign_host_without_facts_is_said(self):
        self.as_other_host(keep_facts=False)
        rc, rep, err = report_json(self.d)
        self.assertGreater(rep["facts"]["elsewhere"], 0)
        text = subprocess.run([GPUTRACE, "report", self.d], capture_output=True, text=True).stdout
        self.assertIn("no facts file for a traced host: its files were read on this host instead", text)

    def test_questions_the_file_does_not_answer_are_counted_and_said(self):
        host = next(iter(self.doc["hosts"]))
        del self.doc["hosts"][host]["real"]
        self.as_other_host(keep_facts=True)
        rc, rep, err = report_json(self.d)
        self.assertGreater(rep["facts"]["unanswered"], 0)
        self.assertEqual(rep["facts"]["asked"], 0, "another host's files are never asked here")
        text = subprocess.run([GPUTRACE, "report", self.d], capture_output=True, text=True).stdout
        self.assertRegex(text, r"facts: \d+ questions? about the traced host's files not answered")

    def test_bytes_spelled_as_hex_read_back_the_same(self):
        """Every value the schema calls bytes, spelled {"hex": ...} (as a
        path through a Latin-1 folder is): the same report, read wholly from
        the file (another host's: nothing is asked here)."""
        with open(os.path.join(schemas.SCHEMA_DIR, "facts.schema.json")) as f:
            schema = json.load(f)
        self.as_other_host(keep_facts=True)
        rc, plain, err = report_json(self.d)
        self.assertIsNotNone(plain, err)
        spelled = spell_bytes_as_hex(self.doc, schema, schema)
        text = json.dumps(spelled)
        # the answers of this scenario that carry paths, spelled (a framework's
        # needs and a symbol gap's files, which it has none of, are read back
        # in tests/unit: test_facts_keep_bytes_that_are_not_utf8,
        # test_facts_keep_a_gap_under_a_latin1_folder)
        wanted = ['"runpath": {"hex"', '"rpath": {"hex"', '"needed": [{"hex"', '"record": {"hex"', '"path": {"hex"']
        # a copy never reached is on this host only where /usr/local/cuda is
        if any(r["shadowed"] for r in next(iter(self.doc["hosts"].values())).get("resolve", {}).values()):
            wanted.append('"shadowed": [{"hex"')
        for where in wanted:
            self.assertTrue(where in text, "nothing spelled as " + where)
        self.assertTrue(all(v is None or "hex" in v for v in spelled["hosts"]["elsewhere-0"]["real"].values()))
        schemas.check(spelled, "facts")
        self.write(spelled)
        rc2, hexed, err = report_json(self.d)
        self.assertEqual(rc2, rc, err)
        self.assertEqual(hexed["facts"]["unanswered"], 0, err)
        self.assertEqual(comparable(hexed), comparable(plain))
        self.assertIn("mixed-versions", [f["id"] for f in plain["findings"]])

    def test_a_later_run_in_the_folder_merges_its_answers(self):
        before = sum(len(v) for v in next(iter(self.doc["hosts"].values())).values())
        env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(FIX, "driver"))
        subprocess.run([GPUTRACE, "-q", "--append", "-o", self.d, "--", os.path.join(FIX, "scenarios/sc_bundle8")],
                       env=env, capture_output=True, timeout=120)
        with open(self.path) as f:
            after_doc = json.load(f)
        after = sum(len(v) for v in next(iter(after_doc["hosts"].values())).values())
        self.assertGreater(after, before)
        self.assertEqual(len(after_doc["hosts"]), 1)


RECORDED_H200 = os.path.join(os.path.dirname(__file__), "recorded", "h200-import-torch-2.11")


class RecordedElsewhere(unittest.TestCase):
    """A trace folder must give the same findings on any machine. A real one:
    `gputrace -q -o DIR -- python3 -c 'import torch'` on the H200 (torch 2.11
    with its CUDA 13 and cuDNN 9.19 wheels in a venv, a system cuDNN 9.14
    beside them; 4720f82, bench/results/gpu-s46 call 6), its trace and facts
    file kept in tests/e2e/recorded, and report.txt as the H200 printed it.
    This host has none of those files and another CUDA 13 and cuDNN 9.19 in
    /usr/local/cuda-13.0: the report must be the H200's word for word, every
    answer read from the facts file, none asked here."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gt-recorded-")
        self.dir = os.path.join(self.tmp, "t")
        shutil.copytree(RECORDED_H200, self.dir)
        os.remove(os.path.join(self.dir, "report.txt"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_the_h200_report_word_for_word(self):
        with open(os.path.join(RECORDED_H200, "report.txt")) as f:
            there = f.read()
        p = subprocess.run([GPUTRACE, "report", self.dir], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, there)
        self.assertIn("0 errors, 0 warnings: all clear", there)
        self.assertIn("13 CUDA libraries", there)

    def test_every_answer_from_the_facts_file(self):
        p = subprocess.run([GPUTRACE, "report", "--json", self.dir], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["facts"]["asked"], 0, doc["facts"])
        self.assertEqual(doc["facts"]["unanswered"], 0, doc["facts"])
        self.assertGreater(doc["facts"]["recorded"], 100, doc["facts"])
        self.assertEqual([f["id"] for f in doc["findings"] if f["severity"] in ("error", "warning")], [])
        with open(os.path.join(RECORDED_H200, FACTS)) as f:
            schemas.check(json.load(f), "facts")


class PureRules(unittest.TestCase):
    TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "check-pure-rules.py")

    def test_the_build_passes(self):
        r = subprocess.run(["/usr/bin/python3", self.TOOL, BUILD], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_a_rule_that_reads_the_host_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            rules = os.path.join(tmp, "cmd", "rules")
            os.makedirs(rules)
            src = os.path.join(tmp, "bad.c")
            with open(src, "w") as f:
                f.write("#include <stdlib.h>\n#include <stdbool.h>\nstruct host_elf_info;\n"
                        "bool host_elf_read(const char *, struct host_elf_info *);\n"
                        "int rule_bad(void) { return getenv(\"X\") != 0 || host_elf_read(\"/x\", 0); }\n")
            subprocess.run(["cc", "-c", src, "-o", os.path.join(rules, "rule_bad.o")], check=True)
            r = subprocess.run(["/usr/bin/python3", self.TOOL, tmp], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("rule_bad.o: getenv", r.stdout)
        self.assertIn("rule_bad.o: host_elf_read", r.stdout)


if __name__ == "__main__":
    unittest.main()
