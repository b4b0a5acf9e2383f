"""Shared by the picture tests: traced fixture runs and the load graph read
back from SVG (Graphviz's own `dot -Tsvg`, or gputrace report --svg).

An SVG node group is <g id="g0_o7" class="node error"> holding <title>,
an <a xlink:title="FULL PATH"> (the tooltip) and the shape, whose stroke is
the severity's colour; an edge group holds <title>FROM-&gt;TO</title>, a
path (dashed: stroke-dasharray) and its label's <text>."""
import os
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET

from tests.e2e.gtlib import FIX, GPUTRACE, PROGS

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
RED, AMBER = "#c62828", "#b26a00"
LOAD_AND_DIE = os.path.join(PROGS, "load_and_die")
CUDA_OPS = os.path.join(PROGS, "cuda_ops")
STEERING = ("LD_LIBRARY_PATH", "LD_PRELOAD", "CUDA_HOME", "CONDA_PREFIX", "VIRTUAL_ENV",
            "CUDA_VISIBLE_DEVICES", "FAKE_CUDA_DEVICES", "FAKE_DRIVER_VERSION",
            "FAKE_CUDA_INIT_RESULT", "FAKE_CUDA_MEM_BYTES", "FAKE_CUDART_FAIL", "RANK",
            "WORLD_SIZE")


def fix(rel):
    return os.path.join(FIX, rel)


def llp(*rels):
    return {"LD_LIBRARY_PATH": ":".join(fix(r) for r in rels)}


def trace_into(outdir, argv, env=None, append=False):
    """Runs argv under gputrace -q -o outdir with a clean loader environment."""
    e = {k: v for k, v in os.environ.items() if k not in STEERING}
    e.update(env or {})
    opts = ["--append"] if append else []
    return subprocess.run([GPUTRACE, "-q", "-o", outdir, *opts, "--", *argv], env=e,
                          capture_output=True, timeout=120)


def new_dir(case, prefix="gt-pic-"):
    d = tempfile.mkdtemp(prefix=prefix)
    case.addCleanup(shutil.rmtree, d, True)
    return d


class Node:
    def __init__(self, g):
        self.id = g.get("id")
        self.classes = set((g.get("class") or "").split())
        a = g.find(".//%sa" % SVG)
        self.tooltip = a.get(XLINK + "title") if a is not None else None
        self.texts = [t.text or "" for t in g.iter(SVG + "text")]
        shape = next((s for s in g.iter() if s.tag in (SVG + "path", SVG + "polygon", SVG + "ellipse")
                      and s.get("stroke")), None)
        self.stroke = shape.get("stroke") if shape is not None else None
        self.fill = shape.get("fill") if shape is not None else None
        self.dashed = bool(shape is not None and shape.get("stroke-dasharray"))

    def names(self, path):
        """The node is the object at path (links resolved: the report keeps
        the path the loader opened, ../ and all)."""
        return bool(self.tooltip) and os.path.realpath(self.tooltip) == os.path.realpath(path)

    def __repr__(self):
        return "Node(%s %s %s %s)" % (self.id, self.texts[:1], self.stroke, sorted(self.classes))


class Edge:
    def __init__(self, g):
        title = g.find(SVG + "title").text
        self.tail, self.head = title.split("->")
        path = g.find(SVG + "path")
        self.dashed = bool(path is not None and path.get("stroke-dasharray"))
        self.label = " ".join(t.text or "" for t in g.iter(SVG + "text")) or None


class Picture:
    """The nodes, edges and clusters of an SVG load graph."""

    def __init__(self, svg_text):
        self.root = ET.fromstring(svg_text)
        self.nodes, self.edges, self.clusters = {}, [], {}
        for g in self.root.iter(SVG + "g"):
            cls = (g.get("class") or "").split()
            if "node" in cls:
                n = Node(g)
                self.nodes[n.id] = n
            elif "edge" in cls:
                self.edges.append(Edge(g))
            elif "cluster" in cls:
                shape = g.find(SVG + "polygon")
                self.clusters[g.get("id")] = {
                    "stroke": shape.get("stroke") if shape is not None else None,
                    "texts": [t.text or "" for t in g.findall(SVG + "text")]}

    def node_at(self, path):
        found = [n for n in self.nodes.values() if n.names(path)]
        if not found:
            raise AssertionError("no node for %s in %s" % (path, list(self.nodes.values())))
        return found[0]

    def node_named(self, first_line):
        found = [n for n in self.nodes.values() if n.texts and n.texts[0] == first_line]
        if not found:
            raise AssertionError("no node labelled %s in %s" % (first_line, list(self.nodes.values())))
        return found[0]

    def edges_into(self, node):
        return [e for e in self.edges if e.head == node.id]

    def edges_from(self, node):
        return [e for e in self.edges if e.tail == node.id]

    def coloured(self, colour):
        return [n for n in self.nodes.values() if n.stroke == colour]


def dot_to_svg(dot_text):
    """Debian's own `dot -Tsvg`: the DOT gputrace writes must be what Graphviz reads."""
    out = subprocess.run(["dot", "-Tsvg"], input=dot_text, capture_output=True, timeout=60)
    if out.returncode != 0 or out.stderr:
        raise AssertionError("dot -Tsvg: rc %d: %s" % (out.returncode, out.stderr.decode(errors="replace")))
    return out.stdout
