"""gputrace diff, fixes as data, gputrace retry / --try-fixes, and fleets.

The fixture scenarios of tests/scenarios/report_scenarios.md, run healthy and
broken: diff must name what differs and exit 1 for a different CUDA library;
each fix of the environment that a finding carries as data ("fix_data"),
applied by retry, must make that finding go; and where it does not (or
cannot) help, retry must say so and exit 1."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.e2e.gtlib import FIX, GPUTRACE, PROGS, unfold, value

SC = os.path.join(FIX, "scenarios")
CUDA_OPS = os.path.join(PROGS, "cuda_ops")
LOAD_AND_DIE = os.path.join(PROGS, "load_and_die")
STEERING = ("LD_LIBRARY_PATH", "LD_PRELOAD", "CUDA_HOME", "CONDA_PREFIX", "VIRTUAL_ENV",
            "CUDA_VISIBLE_DEVICES", "FAKE_CUDA_DEVICES", "FAKE_DRIVER_VERSION",
            "FAKE_CUDA_INIT_RESULT", "FAKE_CUDA_MEM_BYTES", "FAKE_CUDART_FAIL", "GPUTRACE_DIR")


def fix(rel):
    return os.path.join(FIX, rel)


def llp(*rels):
    return {"LD_LIBRARY_PATH": ":".join(fix(r) for r in rels)}


def clean_env(extra=None):
    e = {k: v for k, v in os.environ.items() if k not in STEERING}
    e.setdefault("ASAN_OPTIONS", "verify_asan_link_order=0")
    e.update(extra or {})
    return e


def gt(*args, env=None, stdin=subprocess.DEVNULL, timeout=120):
    return subprocess.run([GPUTRACE, *args], capture_output=True, env=env or clean_env(),
                          stdin=stdin, timeout=timeout)


class Case(unittest.TestCase):
    maxDiff = None

    def tmp(self):
        d = tempfile.mkdtemp(prefix="gt-diff-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def traced(self, argv, env=None, name="run"):
        out = os.path.join(self.tmp(), name)
        r = gt("-q", "-o", out, "--", *argv, env=clean_env(env))
        self.assertNotEqual(r.returncode, 125, r.stderr.decode(errors="replace"))
        return out

    def report(self, d):
        r = gt("report", "--json", d)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        return json.loads(r.stdout)

    def ids(self, d):
        return [f["id"] for f in self.report(d)["findings"]]

    def finding(self, d, fid):
        found = [f for f in self.report(d)["findings"] if f["id"] == fid]
        self.assertTrue(found, "%s in %s" % (fid, self.ids(d)))
        return found[0]

    def retry(self, d, *opts, env=None):
        r = gt("retry", "--yes", "--json", *opts, d, env=clean_env(env))
        self.assertIn(r.returncode, (0, 1), r.stderr.decode(errors="replace"))
        out = json.loads(r.stdout)
        self.assertEqual((out["format"], out["version"]), ("gputrace-retry", 1))
        return r.returncode, out


HEALTHY = ([fix("scenarios/sc_torchlike")], llp("driver"))
MIXED = ([fix("scenarios/sc_torchlike")], llp("system/lib", "driver"))


class Diff(Case):
    def test_healthy_against_mixed(self):
        healthy, mixed = self.traced(*HEALTHY), self.traced(*MIXED)
        r = gt("diff", "--json", healthy, mixed)
        self.assertEqual(r.returncode, 1, "a CUDA library differs: %s" % r.stderr)
        d = json.loads(r.stdout)
        self.assertEqual((d["format"], d["version"]), ("gputrace-diff", 1))
        self.assertTrue(d["libraries_differ"])
        fams = {f["family"]: f for f in d["families"]}
        self.assertFalse(fams["cudnn"]["same"])
        self.assertTrue(fams["cudart"]["same"], fams["cudart"])
        graph = [c for c in fams["cudnn"]["components"] if c["component"] == "cudnn_graph"][0]
        self.assertEqual(set(graph["differs"]) & {"path", "version", "rule"}, {"path", "version", "rule"})
        self.assertEqual(graph["a"][0]["rule"], "runpath")
        self.assertEqual(graph["b"][0]["rule"], "ld_library_path")
        self.assertTrue(value(graph["b"][0], "path").startswith(fix("system/lib")))
        self.assertTrue(graph["a"][0]["version"].startswith("9.19"))
        self.assertTrue(graph["b"][0]["version"].startswith("9.14"))
        self.assertIn("mixed-versions", [f["id"] for f in d["findings"]["appeared"]])
        self.assertEqual(d["findings"]["vanished"], [])
        env = {e["name"]: e for e in d["env"]}
        self.assertFalse(env["LD_LIBRARY_PATH"]["same"])
        self.assertEqual(env["LD_LIBRARY_PATH"]["a"], fix("driver"))
        self.assertEqual(env["LD_LIBRARY_PATH"]["b"], fix("system/lib") + ":" + fix("driver"))
        # the tracer's own library is not part of the user's environment
        self.assertNotIn("LD_AUDIT", env)
        self.assertNotIn("LD_PRELOAD", env)
        text = gt("diff", healthy, mixed)
        self.assertEqual(text.returncode, 1)
        out = text.stdout.decode()
        self.assertIn("cudnn: differs", out)
        self.assertIn("cudnn_graph", out)
        self.assertIn("+ new in b: mixed-versions", out)
        self.assertIn("a CUDA library differs", out)

    def test_same_layout_twice_is_the_same(self):
        a, b = self.traced(*HEALTHY, name="a"), self.traced(*HEALTHY, name="b")
        r = gt("diff", "--json", a, b)
        self.assertEqual(r.returncode, 0, r.stdout)
        d = json.loads(r.stdout)
        self.assertFalse(d["libraries_differ"])
        self.assertTrue(all(f["same"] for f in d["families"]), d["families"])
        self.assertEqual(d["findings"]["appeared"] + d["findings"]["vanished"], [])

    def test_report_json_files_across_hosts(self):
        """report --json copied from another host compares like a folder."""
        healthy, mixed = self.traced(*HEALTHY), self.traced(*MIXED)
        tmp = self.tmp()
        files = []
        for name, d in (("h.json", healthy), ("m.json", mixed)):
            o = self.report(d)
            for p in o["processes"]:
                p["host"] = "node-" + name[0]
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                json.dump(o, f)
            files.append(path)
        r = gt("diff", "--json", *files)
        self.assertEqual(r.returncode, 1)
        d = json.loads(r.stdout)
        self.assertEqual(d["a"]["hosts"], ["node-h"])
        self.assertEqual(d["b"]["hosts"], ["node-m"])
        self.assertIn("mixed-versions", [f["id"] for f in d["findings"]["appeared"]])

    def mixed_report_file(self, edit):
        """The mixed run's report --json in a file, its mixed-versions
        finding's fix_data changed by edit."""
        o = self.report(self.traced(*MIXED))
        f = [f for f in o["findings"] if f["id"] == "mixed-versions"][0]
        f["fix_data"] = edit(f["fix_data"])
        path = os.path.join(self.tmp(), "m.json")
        with open(path, "w") as out:
            json.dump(o, out)
        return path

    def test_fix_data_of_a_newer_gputrace(self):
        """Kinds of edit this gputrace does not know (a newer one's) are said
        and left out; the ones it knows go through unchanged (typed fixes:
        one parser, rules/fix_json.c)."""
        def newer(fd):
            fd["remove_file"] = "/x/libcudnn.so.9"
            fd["env"]["LD_LIBRARY_PATH"]["prepend"] = ["/y"]
            return fd
        path = self.mixed_report_file(newer)
        r = gt("diff", "--json", self.traced(*HEALTHY), path)
        self.assertEqual(r.returncode, 1, r.stderr)
        err = r.stderr.decode()
        self.assertIn("finding mixed-versions: fix_data: env.LD_LIBRARY_PATH.prepend, remove_file: not known to "
                      "this gputrace", err)
        appeared = [f for f in json.loads(r.stdout)["findings"]["appeared"] if f["id"] == "mixed-versions"][0]
        self.assertEqual(appeared["fix_data"], {"env": {"LD_LIBRARY_PATH": {"remove": [fix("system/lib")]}}})

    def test_fix_data_that_cannot_be_read_is_refused(self):
        def broken(fd):
            fd["env"]["LD_LIBRARY_PATH"]["remove"] = fix("system/lib")  # a string, not a list
            return fd
        path = self.mixed_report_file(broken)
        r = gt("diff", "--json", self.traced(*HEALTHY), path)
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertEqual(r.stdout, b"")
        self.assertIn("finding mixed-versions: fix_data: env.LD_LIBRARY_PATH.remove: not an array",
                      r.stderr.decode())

    def test_bad_input(self):
        tmp = self.tmp()
        junk = os.path.join(tmp, "junk.json")
        with open(junk, "w") as f:
            f.write('{"format": "something-else"}')
        for args in ((junk, junk), (tmp, tmp), (os.path.join(tmp, "nope"), junk)):
            r = gt("diff", *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertTrue(r.stderr.startswith(b"gputrace diff: "), r.stderr)
        r = gt("diff")
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"Try 'gputrace diff --help'", r.stderr)


class FixData(Case):
    def test_forms(self):
        stub = self.finding(self.traced([fix("scenarios/sc_cuda")], llp("cuda-13/lib64/stubs", "driver")),
                            "driver-stub")
        self.assertEqual(stub["fix_data"], {"env": {"LD_LIBRARY_PATH": {"remove": [fix("cuda-13/lib64/stubs")]}}})
        self.assertIn("stubs", stub["fix"], "the sentence stays")
        mixed = self.finding(self.traced(*MIXED), "mixed-versions")
        self.assertEqual(mixed["fix_data"], {"env": {"LD_LIBRARY_PATH": {"remove": [fix("system/lib")]}}})
        pre = self.finding(self.traced([fix("scenarios/sc_torchlike")],
                                       dict(llp("driver"), LD_PRELOAD=fix("system/lib/libcudnn_graph.so.9"))),
                           "mixed-versions")
        self.assertEqual(pre["fix_data"], {"env": {"unset": ["LD_PRELOAD"]}})
        nodev = self.finding(self.traced([CUDA_OPS, "n"], dict(llp("driver"), CUDA_VISIBLE_DEVICES="")),
                             "no-device")
        self.assertEqual(nodev["fix_data"], {"env": {"set": {"CUDA_VISIBLE_DEVICES": "0"}}})
        cpu = self.finding(self.traced([LOAD_AND_DIE, "exit",
                                        fix("torch-cpu/site-packages/torch/lib/libtorch_cpu.so")]),
                           "cpu-only-build")
        self.assertIn("pip install torch", cpu["fix_data"]["install"])

    def test_no_device_without_a_visible_devices_setting_has_no_data(self):
        f = self.finding(self.traced([CUDA_OPS, "n"], dict(llp("driver"), FAKE_CUDA_DEVICES="0")), "no-device")
        self.assertNotIn("fix_data", f, "nothing in the environment to change")


class Retry(Case):
    def check_gone(self, argv, env, fid, run_env=None):
        d = self.traced(argv, env)
        self.assertIn(fid, self.ids(d))
        rc, out = self.retry(d, "--fix", fid, env=run_env)
        self.assertEqual(rc, 0, out)
        run = out["runs"][0]
        self.assertIn(fid, run["gone"])
        self.assertEqual(run["still"], [])
        self.assertTrue(run["helped"])
        self.assertNotIn(fid, self.ids(run["traces"]), "the new run's own report agrees")
        return run

    def test_driver_stub_on_ld_library_path(self):
        run = self.check_gone([fix("scenarios/sc_cuda")], llp("cuda-13/lib64/stubs", "driver"), "driver-stub")
        self.assertIn("LD_LIBRARY_PATH minus " + fix("cuda-13/lib64/stubs"), run["fix"])

    def test_mixed_cudnn_through_ld_library_path(self):
        run = self.check_gone(*MIXED, "mixed-versions")
        self.assertTrue(run["all_clear"], run["new"])
        self.assertEqual(run["exit"], 0)

    def test_ld_preload(self):
        run = self.check_gone([fix("scenarios/sc_torchlike")],
                              dict(llp("driver"), LD_PRELOAD=fix("system/lib/libcudnn_graph.so.9")),
                              "mixed-versions")
        self.assertEqual(run["fix"], "unset LD_PRELOAD")

    def test_system_cudnn_front_in_ld_preload(self):
        """The whole system cuDNN 9.14 front in LD_PRELOAD (left in a shell
        profile or a launcher, or set "to fix" an earlier error as
        davisking/dlib#2719 advises): torchlike's DT_NEEDED binds to it with no
        search; shadowed-library says so, and retry without LD_PRELOAD runs on
        the wheel's 9.19 with nothing left to say."""
        env = dict(llp("driver"), LD_PRELOAD=fix("system/lib/libcudnn.so.9"))
        pre = self.finding(self.traced([fix("scenarios/sc_torchlike")], env), "shadowed-library")
        self.assertEqual(pre["fix_data"], {"env": {"unset": ["LD_PRELOAD"]}})
        run = self.check_gone([fix("scenarios/sc_torchlike")], env, "shadowed-library")
        self.assertEqual(run["fix"], "unset LD_PRELOAD")
        self.assertTrue(run["all_clear"], run["new"])
        self.assertEqual(run["exit"], 0)

    def test_visible_devices_set_empty(self):
        run = self.check_gone([CUDA_OPS, "n"], dict(llp("driver"), CUDA_VISIBLE_DEVICES=""), "no-device")
        self.assertEqual(run["fix"], 'CUDA_VISIBLE_DEVICES="0"')

    def test_visible_device_that_is_not_there(self):
        self.check_gone([CUDA_OPS, "n"], dict(llp("driver"), CUDA_VISIBLE_DEVICES="7"), "no-device")

    def test_the_run_gets_its_folder_and_gputrace_keeps_its_own(self):
        """One launcher (issue 27): the command runs in the recorded folder with
        the fixed environment, set in its own process; the gputrace process that
        runs it (its parent) stays where it was started."""
        ran_in, retry_in = self.tmp(), self.tmp()
        script = 'printf "%s|%s\\n" "$PWD" "$(readlink /proc/$PPID/cwd)"; ' + fix("scenarios/sc_torchlike")
        out = os.path.join(self.tmp(), "run")
        r = subprocess.run([GPUTRACE, "-q", "-o", out, "--", "/bin/sh", "-c", script], cwd=ran_in,
                           env=clean_env(MIXED[1]), capture_output=True, timeout=120)
        self.assertIn("mixed-versions", self.ids(out), r.stderr)
        r = subprocess.run([GPUTRACE, "retry", "--yes", "--fix", "mixed-versions", out], cwd=retry_in,
                           env=clean_env(), capture_output=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        first = r.stdout.decode().splitlines()[0]
        self.assertEqual(first, "%s|%s" % (os.path.realpath(ran_in), os.path.realpath(retry_in)))

    def test_its_own_lines_fit_100_columns(self):
        """Issue 30 (the H200's newcomer run: retry's 'the command:' and 'with ...:
        gone' lines ran past 100 columns): every line retry writes is folded,
        but for one word too long for any line."""
        long_arg = "x" * 30
        argv = [fix("scenarios/sc_torchlike")] + [long_arg] * 5
        d = self.traced(argv, MIXED[1])
        r = gt("retry", "--yes", "--fix", "mixed-versions", d)
        self.assertEqual(r.returncode, 0, r.stderr)
        for line in r.stderr.decode().splitlines():
            if len(line) > 100:
                self.assertEqual(len(line.split()), 1, line)

    def test_text_names_what_went_and_the_exit_status(self):
        d = self.traced(*MIXED)
        r = gt("retry", "--yes", d)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = unfold(r.stderr.decode())  # gputrace's own lines: stderr (issue 30)
        self.assertIn("with LD_LIBRARY_PATH minus %s: mixed-versions gone" % fix("system/lib"), out)
        self.assertIn("exit 0 (was 0)", out)
        self.assertIn("fixed: all clear", out)

    def test_fix_that_does_not_help(self):
        """No GPU at all (FAKE_CUDA_DEVICES=0): naming device 0 changes nothing."""
        env = dict(llp("driver"), CUDA_VISIBLE_DEVICES="", FAKE_CUDA_DEVICES="0")
        d = self.traced([CUDA_OPS, "n"], env)
        rc, out = self.retry(d, env={"FAKE_CUDA_DEVICES": "0"})
        self.assertEqual(rc, 1)
        run = out["runs"][0]
        self.assertFalse(run["helped"])
        self.assertEqual(run["still"], ["no-device"])
        text = gt("retry", "--yes", d, env=clean_env({"FAKE_CUDA_DEVICES": "0"}))
        self.assertEqual(text.returncode, 1)
        self.assertIn(b"no-device still there", text.stderr)
        self.assertIn(b"did not help", text.stderr)
        self.assertNotIn(b"fixed", text.stderr)

    def test_setting_made_inside_the_command(self):
        """env(1) exec's the program: its own recorded environment is changed."""
        argv = ["env", "LD_LIBRARY_PATH=%s:%s" % (fix("system/lib"), fix("driver")), fix("scenarios/sc_torchlike")]
        d = self.traced(argv)
        self.assertIn("mixed-versions", self.ids(d))
        rc, out = self.retry(d)
        self.assertEqual(rc, 0, out)
        self.assertTrue(out["runs"][0]["all_clear"])

    def test_setting_made_in_a_child_is_out_of_reach(self):
        script = "LD_LIBRARY_PATH=%s:%s; export LD_LIBRARY_PATH; %s; true" % (
            fix("system/lib"), fix("driver"), fix("scenarios/sc_torchlike"))
        d = self.traced(["/bin/sh", "-c", script])
        self.assertIn("mixed-versions", self.ids(d))
        rc, out = self.retry(d)
        self.assertEqual(rc, 1)
        self.assertIn("not_run", out["runs"][0])
        self.assertFalse(out["runs"][0]["helped"])

    def test_all_fixes_in_one_run(self):
        """--all-fixes: every fix applied in turn in one run; its fix_data is
        {"all": [each finding's]} (retry.schema.json), each as the report has it."""
        env = dict(llp("system/lib", "driver"), LD_PRELOAD=fix("system/lib/libcudnn_graph.so.9"))
        d = self.traced([fix("scenarios/sc_torchlike")], env)
        fixes = [f["fix_data"] for f in self.report(d)["findings"] if "fix_data" in f]
        self.assertEqual(len(fixes), 2, fixes)
        rc, out = self.retry(d, "--all-fixes")
        self.assertEqual(rc, 0, out)
        run = out["runs"][0]
        self.assertEqual(run["fix_data"], {"all": fixes})
        self.assertEqual(sorted(run["for"]), ["mixed-versions", "shadowed-library"])
        self.assertTrue(run["helped"])
        self.assertEqual(run["command"], "env -u LD_PRELOAD LD_LIBRARY_PATH=%s %s" %
                         (fix("driver"), fix("scenarios/sc_torchlike")))

    def test_try_fixes_in_one_go(self):
        out = os.path.join(self.tmp(), "run")
        r = gt("-o", out, "--try-fixes", "--", fix("scenarios/sc_torchlike"),
               env=clean_env(llp("system/lib", "driver")))
        self.assertEqual(r.returncode, 0, "the command's own status: %s" % r.stderr)
        self.assertIn(b"mixed-versions", r.stderr, "the first diagnosis")
        # gputrace's own lines go to stderr: stdout is the program's (issue 30)
        self.assertIn("mixed-versions gone", unfold(r.stderr.decode()))  # a long path folds it
        self.assertIn(b"fixed: all clear", r.stderr)
        self.assertNotIn(b"fixed:", r.stdout)
        bare = subprocess.run([fix("scenarios/sc_torchlike")], env=clean_env(llp("system/lib", "driver")),
                              capture_output=True)
        self.assertTrue(r.stdout.startswith(bare.stdout), (r.stdout, bare.stdout))
        self.assertTrue(os.path.isdir(os.path.join(out, "retry-1")))

    def test_asks_without_yes_and_refuses_without_a_terminal(self):
        d = self.traced(*MIXED)
        r = gt("retry", d)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"--yes", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(d, "retry-1")), "nothing was run")

    def test_recorded_command_not_available(self):
        tmp = self.tmp()
        prog = os.path.join(tmp, "cuda_ops")
        shutil.copy(CUDA_OPS, prog)
        d = self.traced([prog, "n"], dict(llp("driver"), CUDA_VISIBLE_DEVICES=""))
        self.assertIn("no-device", self.ids(d))
        os.unlink(prog)
        r = gt("retry", "--yes", d)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"not available", r.stderr)

    def test_installer_fix_is_named_never_run(self):
        d = self.traced([LOAD_AND_DIE, "exit", fix("torch-cpu/site-packages/torch/lib/libtorch_cpu.so")])
        r = gt("retry", "--yes", d)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"pip install torch", r.stderr)
        self.assertIn(b"never runs", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(d, "retry-1")))

    def test_usage(self):
        for args in ((), ("--fix", "x", "--all-fixes", "d"), ("a", "b"), ("--bogus", "d")):
            r = gt("retry", *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(b"Try 'gputrace retry --help'", r.stderr)


class Fleet(Case):
    def scans(self):
        d = os.path.join(self.tmp(), "scans")
        r = gt("scan", "--json", "-o", d, fix("system"), fix("site-packages"))
        self.assertIn(r.returncode, (0, 1), r.stderr)
        self.assertEqual(r.stdout, b"", "the JSON went to the file")
        files = os.listdir(d)
        self.assertEqual(len(files), 1)
        self.assertTrue(files[0].endswith(".scan.json"))
        with open(os.path.join(d, files[0])) as f:
            base = json.load(f)
        self.assertEqual(files[0], base["host"] + ".scan.json")
        os.unlink(os.path.join(d, files[0]))
        for k in range(5):
            o = json.loads(json.dumps(base))
            o["host"] = "gpu%02d" % k
            if k == 3:
                graph = [c for c in o["copies"] if c["component"] == "cudnn_graph"][0]
                graph["version"] = "8.0.3"
            with open(os.path.join(d, o["host"] + ".scan.json"), "w") as f:
                json.dump(o, f)
        return d

    def test_report_names_the_odd_host(self):
        d = self.scans()
        r = gt("report", d)
        self.assertEqual(r.returncode, 1, r.stderr)
        out = r.stdout.decode()
        self.assertIn("5 inputs in 2 groups", out)
        self.assertIn("host gpu03: cudnn_graph 8.0.3", out)
        self.assertIn("4 others:", out)
        j = json.loads(gt("report", "--json", d).stdout)
        self.assertEqual(j["format"], "gputrace-fleet")
        self.assertEqual([g["count"] for g in j["groups"]], [4, 1])
        self.assertEqual(j["groups"][1]["hosts"], ["gpu03"])
        self.assertEqual(j["groups"][1]["differences"][0]["component"], "cudnn_graph")

    def test_unknown_version_is_refused(self):
        """Issue 29: a scan of version 99 was read as if it were 1."""
        d = self.scans()
        odd = os.path.join(d, "gpu02.scan.json")
        with open(odd) as f:
            o = json.load(f)
        o["version"] = 99
        with open(odd, "w") as f:
            json.dump(o, f)
        for args in (("report", d), ("diff", d), ("diff", odd, os.path.join(d, "gpu00.scan.json"))):
            r = gt(*args)
            self.assertEqual(r.returncode, 2, args)
            err = r.stderr.decode()
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertIn("gpu02.scan.json", err)
            self.assertIn("version 99", err)
            self.assertIn("reads version 1", err)

    def test_identical_hosts_are_one_group(self):
        d = self.scans()
        os.unlink(os.path.join(d, "gpu03.scan.json"))
        j = json.loads(gt("report", "--json", d).stdout)
        self.assertEqual([g["count"] for g in j["groups"]], [4])
        r = gt("diff", os.path.join(d, "gpu00.scan.json"), os.path.join(d, "gpu01.scan.json"))
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_prometheus(self):
        d = self.scans()
        prom = os.path.join(self.tmp(), "gputrace.prom")
        r = gt("report", "--prometheus", prom, d)
        self.assertEqual(r.returncode, 1)
        with open(prom) as f:
            lines = f.read().splitlines()
        self.assertIn("# TYPE gputrace_cuda_library gauge", lines)
        self.assertIn("# TYPE gputrace_finding gauge", lines)
        graph = [l for l in lines if l.startswith("gputrace_cuda_library{") and 'component="cudnn_graph"' in l]
        self.assertEqual(len([l for l in graph if 'host="gpu03"' in l and 'version="8.0.3"' in l]), 1)
        self.assertEqual(len([l for l in graph if 'version="8.0.3"' in l]), 1)
        self.assertTrue(all(l.endswith("} 1") for l in graph))
        self.assertIn('gputrace_fleet_odd{host="gpu03"} 1', lines)
        self.assertIn('gputrace_fleet_odd{host="gpu00"} 0', lines)
        series = [l.rsplit(" ", 1)[0] for l in lines if not l.startswith("#")]
        self.assertEqual(len(series), len(set(series)), "one series per label set")
        self.assertFalse(os.path.exists(prom + ".tmp"))

    def test_scan_prometheus_of_this_host(self):
        prom = os.path.join(self.tmp(), "host.prom")
        r = gt("scan", "--prometheus", prom, fix("system"))
        self.assertIn(r.returncode, (0, 1))
        with open(prom) as f:
            text = f.read()
        self.assertIn('component="cudnn_graph"', text)


if __name__ == "__main__":
    unittest.main()
