"""gputrace report --html FILE in headless Chromium (issue 17, acceptance 2).

One Chromium (Debian's `chromium`, driven over its DevTools pipe by
tools/cdp.py, python3's standard library only) opens the pages of a mixed
cuDNN run, a healthy run, four ranks with one odd, and a trace whose path
holds <script>: the findings count equals --json's, the culprit is red in
the graph and in the table, nothing was logged as an error, no request left
the file, and the page fits a narrow screen. Screenshots are kept under
$BUILD/test-artefacts/html/.

Where Chromium cannot start at all (the fresh Debian chroot of
tools/fresh-check.sh has no /dev/shm, say), the tests are skipped and say
why; GPUTRACE_REQUIRE_CHROMIUM=1 makes that a failure."""
import json
import os
import subprocess
import sys
import unittest

from tests.e2e.gtlib import BUILD, GPUTRACE
from tests.e2e.picture_lib import LOAD_AND_DIE, fix, llp, new_dir, trace_into

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import cdp  # noqa: E402

ARTEFACTS = os.path.join(BUILD, "test-artefacts", "html")
RED = "rgb(198, 40, 40)"
XLINK = "http://www.w3.org/1999/xlink"


def html_report(case, tracedir, name):
    out = os.path.join(new_dir(case), name + ".html")
    rep = subprocess.run([GPUTRACE, "report", "--html", out, tracedir], capture_output=True, timeout=120)
    case.assertIn(rep.returncode, (0, 1), rep.stderr.decode(errors="replace"))
    case.assertEqual(rep.stderr, b"")
    js = json.loads(subprocess.run([GPUTRACE, "report", "--json", tracedir], capture_output=True,
                                   timeout=120).stdout)
    return out, js


class InChromium(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        try:
            cls.browser = cdp.Browser()
        except (cdp.BrowserError, OSError) as e:
            if os.environ.get("GPUTRACE_REQUIRE_CHROMIUM") == "1":
                raise
            raise unittest.SkipTest("headless Chromium cannot run here: %s" % e)
        os.makedirs(ARTEFACTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()

    def open(self, html, shot=None):
        page = cdp.Page(self.browser)
        url = page.load(html)
        self.assertEqual(page.problems(), [], "no script error, no console error")
        self.assertEqual(set(page.requests()), {url}, "no request leaves the file")
        if shot:
            page.screenshot(os.path.join(ARTEFACTS, shot))
            self.assertGreater(os.path.getsize(os.path.join(ARTEFACTS, shot)), 10000)
        return page

    def facts(self, page, culprit=""):
        """What the page shows: findings, the culprit's graph node and table row."""
        return page.eval("""(() => {
            const culprit = %s, real = culprit.split('/').pop();
            const items = [...document.querySelectorAll('#findings li.finding')];
            const nodes = [...document.querySelectorAll('figure svg g.node')].filter(g => {
                const a = g.querySelector('a');
                return a && a.getAttributeNS('%s', 'title') === culprit; });
            const rows = [...document.querySelectorAll('table.libs tbody tr')].filter(
                tr => tr.querySelector('td.path').textContent === culprit);
            const stroke = n => getComputedStyle(n.querySelector('path, polygon')).stroke;
            return {
                count: document.querySelector('#findings').dataset.count,
                items: items.map(i => [i.dataset.id, i.classList.contains('error') ? 'error' :
                                       i.classList.contains('warning') ? 'warning' : 'info',
                                       getComputedStyle(i).borderLeftColor]),
                node: nodes.map(stroke),
                row: rows.map(r => getComputedStyle(r.querySelector('td')).color),
                red_nodes: [...document.querySelectorAll('figure svg g.node')].filter(
                    n => stroke(n) === '%s').length,
                scripts: document.scripts.length,
                text: document.body.innerText,
            }; })()""" % (json.dumps(culprit), XLINK, RED))

    def fits(self, page, width=390):
        page.resize(width, 800)
        return page.eval("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")

    def test_mixed_cudnn_report(self):
        d = os.path.join(new_dir(self), "t")
        trace_into(d, [fix("scenarios/sc_torchlike")], llp("system/lib", "driver"))
        html, js = html_report(self, d, "mixed")
        page = self.open(html, "report-mixed.png")
        culprit = os.path.join(fix("system/lib"), "libcudnn_graph.so.9")
        f = self.facts(page, culprit)
        self.assertEqual(int(f["count"]), len(js["findings"]))
        self.assertEqual([(i[0], i[1]) for i in f["items"]],
                         [(x["id"], x["severity"]) for x in js["findings"]])
        self.assertEqual({i[2] for i in f["items"]}, {RED}, "error findings are marked red")
        self.assertEqual(f["node"], [RED], "the culprit's node is red")
        self.assertEqual(f["row"], [RED], "the culprit's table row is red")
        self.assertIn("Load timeline", f["text"])
        self.assertIn("CUDA libraries (", f["text"])
        width, client = self.fits(page)
        self.assertLessEqual(width, client, "nothing wider than a 390 px screen")
        page.cmd("Emulation.setEmulatedMedia", {"media": "print"})
        page.resize(700, 1000)
        self.assertLessEqual(*page.eval("[Math.round(document.querySelector('figure svg')"
                                        ".getBoundingClientRect().right), document.documentElement.clientWidth]"))

    def test_healthy_report(self):
        d = os.path.join(new_dir(self), "t")
        trace_into(d, [fix("scenarios/sc_torchlike")], llp("driver"))
        html, js = html_report(self, d, "healthy")
        f = self.facts(self.open(html, "report-healthy.png"))
        self.assertEqual((f["count"], f["items"], js["findings"]), ("0", [], []))
        self.assertEqual(f["red_nodes"], 0)
        self.assertIn("No finding", f["text"])

    def test_ranks_grouped_odd_one_first(self):
        d = os.path.join(new_dir(self), "t")
        for rank in range(4):
            env = llp("system/lib", "driver") if rank == 2 else llp("driver")
            env.update(RANK=str(rank), WORLD_SIZE="4")
            trace_into(d, [fix("scenarios/sc_torchlike")], env, append=rank > 0)
        html, js = html_report(self, d, "ranks")
        page = self.open(html, "report-ranks.png")
        groups = page.eval("[...document.querySelectorAll('section.group')].map(s => "
                           "[s.dataset.members, s.classList.contains('error'), s.querySelector('dl').innerText])")
        self.assertEqual([(g[0], g[1]) for g in groups], [("1", True), ("3", False)])
        self.assertIn("rank 2", groups[0][2])
        first_row = page.eval("document.querySelector('table.overview tbody tr').innerText")
        self.assertIn("rank 2", first_row)
        self.assertEqual(int(self.facts(page)["count"]), len(js["findings"]))

    def test_script_in_a_path_is_text(self):
        hostile = os.path.join(new_dir(self), "<script>alert(1)</script>\"'&<b>x")
        os.makedirs(hostile)
        lib = os.path.join(hostile, "libcudart.so.13")
        os.symlink(fix("cuda-13/lib64/libcudart.so.13"), lib)
        d = os.path.join(new_dir(self), "t")
        trace_into(d, [LOAD_AND_DIE, "exit", lib])
        html, _ = html_report(self, d, "hostile")
        page = self.open(html, "report-hostile.png")
        f = self.facts(page, lib)
        self.assertEqual(f["scripts"], 0, "no <script> element came from the trace")
        self.assertIn(lib, f["text"], "the path shows as text")
        self.assertEqual(page.eval("document.querySelectorAll('b').length"), 0)
        self.assertEqual(len(f["row"]), 1)
