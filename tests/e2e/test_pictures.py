"""gputrace report --dot / --svg and scan --for --dot (issue 17).

For every finding scenario of tests/scenarios/report_scenarios.md the DOT of
`gputrace report --dot` is laid out by Debian's own `dot -Tsvg` and read
back: the culprit node is red (error) or amber (warning), the nodes no
finding names are neither, and the edges into the culprit carry the
loader's rule. Healthy layouts must come out with no coloured node at all."""
import json
import os
import subprocess
import unittest

from tests.e2e.gtlib import GPUTRACE
from tests.e2e.picture_lib import (AMBER, CUDA_OPS, LOAD_AND_DIE, RED, Picture, dot_to_svg, fix, llp,
                                   new_dir, trace_into)


def real_driver_present():
    if os.path.exists("/lib/x86_64-linux-gnu/libcuda.so.1"):
        return True
    return b"libcuda.so.1 " in subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True).stdout


def report(*args):
    return subprocess.run([GPUTRACE, "report", *args], capture_output=True, timeout=120)


class PictureCase(unittest.TestCase):
    maxDiff = None

    def traced(self, argv, env=None):
        d = os.path.join(new_dir(self), "t")
        trace_into(d, argv, env)
        return d

    def picture(self, tracedir, *opts):
        """report --dot, laid out by `dot -Tsvg`; also the findings of --json."""
        rep = report("--dot", *opts, tracedir)
        self.assertIn(rep.returncode, (0, 1), rep.stderr.decode(errors="replace"))
        self.assertEqual(rep.stderr, b"")
        js = json.loads(report("--json", tracedir).stdout)
        errors = [f for f in js["findings"] if f["severity"] == "error"]
        self.assertEqual(rep.returncode, 1 if errors else 0, "--dot exits as --json does")
        self.findings = js["findings"]
        return Picture(dot_to_svg(rep.stdout))

    def ids(self):
        return {f["id"] for f in self.findings}

    def assert_culprit(self, pic, rel, colour, rules):
        n = pic.node_at(fix(rel))
        self.assertEqual(n.stroke, colour, n)
        self.assertIn("error" if colour == RED else "warning", n.classes, n)
        got = {e.label for e in pic.edges_into(n)}
        self.assertTrue(got, "an edge from the requester into %s" % rel)
        self.assertLessEqual(got, set(rules), "edge rules into %s" % rel)
        return n

    def assert_coloured_only(self, pic, colour, *rels):
        """Exactly the objects at rels (fixture paths) are drawn in colour."""
        want = sorted(os.path.realpath(fix(r)) for r in rels)
        got = sorted(os.path.realpath(n.tooltip) for n in pic.coloured(colour) if n.tooltip)
        self.assertEqual(got, want)

    def assert_not_found_node(self, pic, name, colour=RED):
        n = pic.node_named(name)
        self.assertEqual(n.stroke, colour, n)
        self.assertTrue(n.dashed, "a name not found is drawn dashed")
        self.assertTrue(any("not found" in t for t in n.texts), n.texts)
        self.assertTrue(any(t.startswith("/") for t in n.texts[1:]), "the folders tried: %s" % n.texts)
        self.assertEqual({e.label for e in pic.edges_into(n)}, {"not found"})
        return n


class DriverFindings(PictureCase):
    def test_driver_missing_is_a_red_node_with_the_folders_tried(self):
        if real_driver_present():
            self.skipTest("a real libcuda.so.1 is installed: the driver is not missing here")
        pic = self.picture(self.traced([fix("scenarios/sc_cuda")]))
        self.assertIn("driver-missing", self.ids())
        self.assert_not_found_node(pic, "libcuda.so.1")
        self.assert_coloured_only(pic, RED)
        self.assertEqual(pic.edges_into(pic.node_at(fix("cuda-13/lib64/libcudart.so.13")))[0].label, "absolute")

    def test_driver_stub(self):
        pic = self.picture(self.traced([fix("scenarios/sc_cuda")], llp("cuda-13/lib64/stubs")))
        self.assertIn("driver-stub", self.ids())
        self.assert_culprit(pic, "cuda-13/lib64/stubs/libcuda.so.1", RED, {"ld_library_path"})
        self.assert_coloured_only(pic, RED, "cuda-13/lib64/stubs/libcuda.so.1")

    def test_driver_too_old(self):
        pic = self.picture(self.traced([fix("scenarios/sc_cuda")], llp("driver-old")))
        self.assertIn("driver-too-old", self.ids())
        self.assert_culprit(pic, "driver-old/libcuda.so.1", RED, {"ld_library_path"})

    def test_no_device_colours_no_library(self):
        """The device is missing, not a file: the process's cluster is red, no library is."""
        pic = self.picture(self.traced([CUDA_OPS, "n"], dict(llp("driver"), FAKE_CUDA_DEVICES="0")))
        self.assertIn("no-device", self.ids())
        self.assertEqual([c["stroke"] for c in pic.clusters.values()], [RED])
        self.assertEqual(pic.coloured(RED), [])


class LibraryFindings(PictureCase):
    def test_cpu_only_build_framework_library_amber(self):
        lib = "torch-cpu/site-packages/torch/lib/libtorch_cpu.so"
        pic = self.picture(self.traced([LOAD_AND_DIE, "exit", fix(lib)]))
        self.assertEqual(self.ids(), {"cpu-only-build"})
        self.assert_culprit(pic, lib, AMBER, {"absolute"})
        self.assertEqual(pic.coloured(RED), [])

    def test_library_not_found(self):
        pic = self.picture(self.traced([LOAD_AND_DIE, "exit1", "libcudnn.so.8"], {"CUDA_HOME": fix("cuda-12")}))
        self.assertIn("library-not-found", self.ids())
        self.assert_not_found_node(pic, "libcudnn.so.8")

    def test_mixed_versions_cudnn8(self):
        pic = self.picture(self.traced([fix("scenarios/sc_cudnn8")],
                                       llp("cuda-11.8/lib64", "cuda-12/lib64", "driver")))
        self.assertIn("mixed-versions", self.ids())
        self.assert_culprit(pic, "cuda-11.8/lib64/libcudnn.so.8", RED, {"ld_library_path"})
        self.assert_culprit(pic, "cuda-12/lib64/libcudnn_ops_infer.so.8", RED, {"ld_library_path"})
        self.assertNotEqual(pic.node_at(fix("cuda-11.8/lib64/libcudart.so.11.0")).stroke, RED)

    def test_mixed_cudnn9_with_the_wheels_copies_passed_over(self):
        pic = self.picture(self.traced([fix("scenarios/sc_torchlike")], llp("system/lib", "driver")))
        self.assertLessEqual({"mixed-versions", "shadowed-library"}, self.ids())
        graph = self.assert_culprit(pic, "system/lib/libcudnn_graph.so.9", RED, {"ld_library_path"})
        passed = [n for n in pic.nodes.values()
                  if n.names(fix("site-packages/nvidia/cudnn/lib/libcudnn_graph.so.9"))]
        self.assertEqual(len(passed), 1, "the wheel's copy, once")
        self.assertTrue(passed[0].dashed, passed[0])
        self.assertIn("passed over", passed[0].texts)
        self.assertNotEqual(passed[0].stroke, RED, "the copy passed over is not the culprit")
        beside = [e for e in pic.edges_from(graph) if e.head == passed[0].id]
        self.assertEqual([(e.label, e.dashed) for e in beside], [("shadows", True)])
        for healthy in ("site-packages/nvidia/cublas/lib/libcublas.so.13",
                        "site-packages/nvidia/cuda_runtime/lib/libcudart.so.13"):
            self.assertNotIn(pic.node_at(fix(healthy)).stroke, (RED, AMBER), healthy)

    def test_duplicate_library_both_amber(self):
        a, b = "cuda-13/lib64/libcudart.so.13", "site-packages/nvidia/cuda_runtime/lib/libcudart.so.13"
        pic = self.picture(self.traced([LOAD_AND_DIE, "exit", fix(a), fix(b)]))
        self.assertEqual(self.ids(), {"duplicate-library"})
        self.assert_culprit(pic, a, AMBER, {"absolute"})
        self.assert_culprit(pic, b, AMBER, {"absolute"})
        self.assert_coloured_only(pic, AMBER, a, b)

    def test_shadowed_bundle_copy_dashed_beside_the_winner(self):
        pic = self.picture(self.traced([fix("scenarios/sc_bundle8")], llp("cuda-11.8/lib64", "driver")))
        self.assertIn("shadowed-library", self.ids())
        win = self.assert_culprit(pic, "cuda-11.8/lib64/libcudnn.so.8", RED, {"ld_library_path"})
        (req,) = [pic.nodes[e.tail] for e in pic.edges_into(win)]
        self.assertTrue(req.names(fix("bundle8/lib/libfw8.so")), req)
        passed = pic.node_at(fix("bundle8/lib/libcudnn.so.8"))
        self.assertTrue(passed.dashed)
        self.assertIn(passed.id, [e.head for e in pic.edges_from(win)])

    def test_cuda_major_mismatch(self):
        a, b = "cuda-11.8/lib64/libcudart.so.11.0", "cuda-12/lib64/libcudart.so.12"
        pic = self.picture(self.traced([LOAD_AND_DIE, "exit", fix(a), fix(b)]))
        self.assertIn("cuda-major-mismatch", self.ids())
        self.assert_culprit(pic, a, RED, {"absolute"})
        self.assert_culprit(pic, b, RED, {"absolute"})

    def test_init_failed_without_driver(self):
        if real_driver_present():
            self.skipTest("a real libcuda.so.1 is installed")
        pic = self.picture(self.traced([fix("scenarios/sc_torchlike")]))
        self.assertLessEqual({"init-failed", "driver-missing"}, self.ids())
        self.assert_not_found_node(pic, "libcuda.so.1")

    def test_out_of_memory_colours_no_library(self):
        pic = self.picture(self.traced([CUDA_OPS, "m:1000", "m:1000000000000"],
                                       dict(llp("driver"), FAKE_CUDA_MEM_BYTES="1000000")))
        self.assertIn("out-of-memory", self.ids())
        self.assertEqual(pic.coloured(RED), [])
        self.assertEqual([c["stroke"] for c in pic.clusters.values()], [RED])

    def test_crashed(self):
        lib = "cuda-13/lib64/libcudart.so.13"
        pic = self.picture(self.traced([LOAD_AND_DIE, "segv", "libm.so.6", fix(lib)]))
        self.assertIn("crashed", self.ids())
        self.assert_culprit(pic, lib, RED, {"absolute"})


class Healthy(PictureCase):
    def test_clean_layouts_have_no_coloured_node(self):
        for argv, env in (([fix("scenarios/sc_torchlike")], llp("driver")),
                          ([fix("scenarios/sc_bundle8")], llp("driver")),
                          ([fix("scenarios/sc_cudnn8")], llp("cuda-12/lib64", "driver")),
                          ([fix("scenarios/sc_cuda")], llp("driver"))):
            with self.subTest(argv=argv[0], env=env):
                pic = self.picture(self.traced(argv, env))
                self.assertEqual([f for f in self.findings if f["severity"] != "info"], [])
                self.assertEqual(pic.coloured(RED) + pic.coloured(AMBER), [])
                self.assertFalse([n for n in pic.nodes.values() if n.dashed], "nothing passed over")

    def test_torchlike_edges_carry_each_rule(self):
        pic = self.picture(self.traced([fix("scenarios/sc_torchlike")], llp("driver")))
        rules = {
            "site-packages/nvidia/cuda_runtime/lib/libcudart.so.13": "rpath",
            "site-packages/nvidia/cudnn/lib/libcudnn.so.9": "rpath",
            "site-packages/nvidia/cublas/lib/libcublasLt.so.13": "runpath",
            "site-packages/nvidia/cudnn/lib/libcudnn_graph.so.9": "runpath",
            "driver/libcuda.so.1": "ld_library_path",
        }
        for rel, rule in rules.items():
            (e,) = pic.edges_into(pic.node_at(fix(rel)))
            self.assertEqual(e.label, rule, rel)
        labels = [n.texts for n in pic.nodes.values() if n.names(fix("site-packages/nvidia/cudnn/lib/libcudnn.so.9"))]
        self.assertEqual(labels[0][:3], ["libcudnn.so.9", "9.19.0.56", "pip nvidia-cudnn-cu13 9.19.0.56"])

    def test_non_cuda_objects_folded_unless_all(self):
        d = self.traced([fix("scenarios/sc_torchlike")], llp("driver"))
        folded, full = self.picture(d), self.picture(d, "--all")
        libc = [n for n in full.nodes.values() if n.texts and n.texts[0] == "libc.so.6"]
        self.assertTrue(libc, "--all draws libc")
        self.assertFalse([n for n in folded.nodes.values() if n.texts and n.texts[0] == "libc.so.6"])
        note = [n for n in folded.nodes.values() if any("--all" in t for t in n.texts)]
        self.assertEqual(len(note), 1, "the folded objects are counted")
        self.assertFalse([n for n in full.nodes.values() if any("--all" in t for t in n.texts)])


class ManyProcesses(PictureCase):
    def test_identical_ranks_drawn_once_divergent_rank_first_in_its_own_cluster(self):
        d = os.path.join(new_dir(self), "t")
        for rank in range(4):
            env = llp("system/lib", "driver") if rank == 2 else llp("driver")
            env.update(RANK=str(rank), WORLD_SIZE="4")
            trace_into(d, [fix("scenarios/sc_torchlike")], env, append=rank > 0)
        pic = self.picture(d)
        self.assertIn("divergent-processes", self.ids())
        ids = list(pic.clusters)
        self.assertEqual(len(ids), 2, pic.clusters)
        odd, rest = pic.clusters[ids[0]], pic.clusters[ids[1]]
        self.assertEqual(odd["stroke"], RED)
        self.assertTrue(any("rank 2" in t for t in odd["texts"]), odd)
        self.assertTrue(any(t.startswith("3 processes like") for t in rest["texts"]), rest)
        self.assertTrue(any(t.startswith("ranks 0,1,3 ") for t in rest["texts"]), rest)
        graphs = [n for n in pic.nodes.values() if n.texts and n.texts[0] == "libcudnn_graph.so.9"
                  and not n.dashed]
        self.assertEqual(len(graphs), 2, "one per cluster, not one per rank")


class Svg(PictureCase):
    def test_svg_from_libgvc_matches_dot(self):
        d = self.traced([fix("scenarios/sc_torchlike")], llp("system/lib", "driver"))
        by_dot = self.picture(d)
        rep = report("--svg", d)
        self.assertEqual(rep.returncode, 1, rep.stderr)
        self.assertEqual(rep.stderr, b"")
        by_lib = Picture(rep.stdout)
        self.assertEqual({k: (n.stroke, n.texts) for k, n in by_lib.nodes.items()},
                         {k: (n.stroke, n.texts) for k, n in by_dot.nodes.items()})
        self.assertEqual(sorted((e.tail, e.head, e.label) for e in by_lib.edges),
                         sorted((e.tail, e.head, e.label) for e in by_dot.edges))

    def test_pictures_are_exclusive_with_other_outputs(self):
        d = self.traced([fix("scenarios/sc_cuda")], llp("driver"))
        rep = report("--dot", "--json", d)
        self.assertEqual(rep.returncode, 2)
        self.assertIn(b"gputrace report: say one of", rep.stderr)
        self.assertIn(b"Try 'gputrace report --help'", rep.stderr)

    def test_hostile_path_is_text_in_dot_and_svg(self):
        hostile = os.path.join(new_dir(self), 'we"ird\\n <script>alert(1)</script> & \x01 dir')
        os.makedirs(hostile)
        lib = os.path.join(hostile, "libcudart.so.13")
        os.symlink(fix("cuda-13/lib64/libcudart.so.13"), lib)
        d = self.traced([LOAD_AND_DIE, "exit", lib])
        pic = self.picture(d)
        (n,) = [n for n in pic.nodes.values() if n.tooltip and "script" in n.tooltip]
        self.assertEqual(n.tooltip, lib.replace("\x01", "\\x01"), "the path, as text")
        self.assertEqual(pic.root.findall(".//script"), [])
        self.assertEqual(pic.root.findall(".//{http://www.w3.org/2000/svg}script"), [])


class ScanForDot(PictureCase):
    def test_scan_for_draws_the_loaders_choices(self):
        env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH",)}
        env.update(llp("system/lib", "driver"))
        consumer = fix("site-packages/torchlike/lib/libtorchlike_cuda.so")
        out = subprocess.run([GPUTRACE, "scan", "--for", consumer, "--dot", fix("system")], env=env,
                             capture_output=True, timeout=120)
        self.assertIn(out.returncode, (0, 1), out.stderr)
        pic = Picture(dot_to_svg(out.stdout))
        root = pic.node_at(consumer)
        self.assertEqual({e.label for e in pic.edges_from(root)}, {"rpath"})
        graph = pic.node_at(fix("system/lib/libcudnn_graph.so.9"))
        # as in the trace of the same layout: the front's 9.19 with this 9.14 graph
        # library is mixed-versions, an error (report/paper.h)
        self.assertEqual(graph.stroke, RED, "mixed-versions names it: %r" % graph)
        self.assertEqual({e.label for e in pic.edges_into(graph)}, {"ld_library_path"})
        passed = pic.node_at(fix("site-packages/nvidia/cudnn/lib/libcudnn_graph.so.9"))
        self.assertTrue(passed.dashed)
        cudart = pic.node_at(fix("site-packages/nvidia/cuda_runtime/lib/libcudart.so.13"))
        self.assertIsNone(cudart.stroke if cudart.stroke in (RED, AMBER) else None)

    def test_dot_needs_for(self):
        out = subprocess.run([GPUTRACE, "scan", "--dot"], capture_output=True, timeout=60)
        self.assertEqual(out.returncode, 2)
        self.assertIn(b"--dot draws the choices of --for FILE", out.stderr)


if __name__ == "__main__":
    unittest.main()
