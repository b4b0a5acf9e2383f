"""Acceptance 1 of the loader tracer: zero observer effect, differential.

Every scenario of tests/scenarios/scenarios.tsv runs bare and under gputrace.
The set of files mapped must be the same, so must the program's output and
exit status, and the trace must name the right path and rule for each
expected load (or the failed search)."""
import os
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, Trace, traces_in, value

TSV = os.path.join(os.path.dirname(__file__), "..", "scenarios", "scenarios.tsv")


def load_scenarios():
    rows = []
    with open(TSV) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, cmd, env, expect = line.rstrip("\n").split("\t")
            rows.append((name, cmd, env, expect))
    return rows


def images(trace):
    """Splits a trace into program images (exec starts a new one)."""
    out, cur, img = [], [], None
    for o in trace.lines:
        if o.get("ev") == "header" and o.get("image") != img:
            img = o.get("image")
            cur = []
            out.append(cur)
        cur.append(o)
    return out


class Image:
    def __init__(self, lines):
        self.lines = lines

    def events(self, ev):
        return [o for o in self.lines if o.get("ev") == ev]


def norm(path, fix):
    path = os.path.normpath(path)
    return os.path.relpath(path, fix) if path.startswith(fix + "/") else path


class Differential(unittest.TestCase):
    maxDiff = None

    def run_one(self, argv, env, maps, outdir=None):
        e = dict(os.environ)
        e.pop("LD_LIBRARY_PATH", None)
        e.update(env)
        e["SCENARIO_MAPS"] = maps
        if outdir:
            argv = [GPUTRACE, "-q", "-o", outdir, "--"] + argv
        return subprocess.run(argv, env=e, capture_output=True, timeout=60)

    def check_expect(self, name, fix, expect, by_proc):
        for item in expect.split(";"):
            parts = item.split(",")
            req, path, rule = parts[0].replace("@FIX@", fix), parts[1], parts[2]
            proc = parts[3] if len(parts) > 3 else "main"
            img = by_proc[proc]
            what = "%s: %s -> %s [%s] in %s" % (name, req, path, rule, proc)
            if rule == "not_found":
                ends = [e for e in img.events("search_end") if value(e, "name") == req]
                self.assertTrue(ends, what)
                self.assertEqual(ends[0]["result"], "not_found", what)
                searches = [s for s in img.events("search") if s["seq"] == ends[0]["search"]]
                self.assertTrue(searches, what)
                continue
            opens = [o for o in img.events("open") if norm(value(o, "path"), fix) == path]
            if rule == "already_loaded":
                # A name the loader already has is matched without any search,
                # and rtld-audit is not called: the object's one open stands.
                self.assertEqual(len(opens), 1, what)
                continue
            if req == "-":
                # no search reached rtld-audit: the open stands alone
                self.assertTrue(opens, what)
                self.assertIsNone(opens[0].get("rule"), what)
                continue
            match = [o for o in opens if value(o, "name") == req]
            self.assertTrue(match, what + "; opens: %r" % [(value(o, "name"), o.get("rule")) for o in opens])
            self.assertEqual(match[0]["rule"], rule, what)

    def test_scenarios(self):
        fix = os.path.realpath(FIX)
        rows = load_scenarios()
        self.assertGreaterEqual(len(rows), 14)
        for name, cmd, env_s, expect in rows:
            with self.subTest(scenario=name):
                env = {}
                if env_s != "-":
                    for kv in env_s.split(" "):
                        k, v = kv.split("=", 1)
                        env[k] = v.replace("@FIX@", fix)
                argv = [a.replace("@FIX@", fix) for a in cmd.split(" ")]
                argv[0] = os.path.join(fix, argv[0])
                tmp = tempfile.mkdtemp(prefix="gt-sc-")
                bare = self.run_one(argv, env, os.path.join(tmp, "bare.maps"))
                traced = self.run_one(argv, env, os.path.join(tmp, "traced.maps"),
                                      outdir=os.path.join(tmp, "traces"))
                self.assertEqual(traced.returncode, bare.returncode, name)
                out_t, out_b = traced.stdout.splitlines(), bare.stdout.splitlines()
                if name == "dlmopen":
                    # The audit module takes a link-map namespace of its own
                    # (rtld-audit's design), so LM_ID_NEWLM hands out the next
                    # number: 2 instead of 1. The files are the same (below).
                    self.assertEqual(out_b, [b"namespace 1, leaf d_deep"])
                    self.assertEqual(out_t, [b"namespace 2, leaf d_deep"])
                elif name == "threads":
                    # two threads print in whichever order they finish
                    self.assertEqual(sorted(out_t), sorted(out_b), name)
                else:
                    self.assertEqual(out_t, out_b, name)
                for suffix in ("", ".child"):
                    b = os.path.join(tmp, "bare.maps" + suffix)
                    t = os.path.join(tmp, "traced.maps" + suffix)
                    if os.path.exists(b) or os.path.exists(t):
                        with open(b) as fb, open(t) as ft:
                            self.assertEqual(ft.read().splitlines(), fb.read().splitlines(),
                                             name + ": files mapped differ" + suffix)
                traces = traces_in(os.path.join(tmp, "traces"))
                main = [t for t in traces if os.path.basename(argv[0]) in
                        os.path.basename(t.header.get("exe", ""))]
                self.assertTrue(main, name + ": no trace of the program")
                root = min(main, key=lambda t: t.header["t_us"])
                imgs = images(root)
                by_proc = {"main": Image(imgs[0]), "exec": Image(imgs[-1])}
                kids = [t for t in traces if t.header.get("ppid") == root.pid]
                if kids:
                    by_proc["child"] = Image(kids[0].lines)
                self.check_expect(name, fix, expect, by_proc)


if __name__ == "__main__":
    unittest.main()
