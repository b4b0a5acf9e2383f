"""Helpers for the end-to-end tests: run programs under gputrace, read traces."""
import glob
import json
import os
import shutil
import subprocess
import tempfile

BUILD = os.environ.get("BUILD", os.path.abspath("build"))
GPUTRACE = os.path.join(BUILD, "gputrace")
LIB = os.path.join(BUILD, "libgputrace.so")
FIX = os.path.join(BUILD, "fixtures")
PROGS = os.path.join(BUILD, "tests")


def value(obj, key):
    """A string field, exact bytes taken from <key>_hex when the writer added it."""
    hexval = obj.get(key + "_hex")
    if hexval is not None:
        return bytes.fromhex(hexval).decode("utf-8", "surrogateescape")
    return obj.get(key)


def trace_lines(raw):
    """The lines of a trace, as gputrace-trace(5) says to read them: NUL bytes
    are room the writer reserved and never filled (a process that did not
    reach its exit); on a line, what comes before them is a cut line and what
    comes after the last of them is the next line."""
    out = []
    for chunk in raw.split(b"\n"):
        if b"\0" in chunk:
            chunk = chunk[chunk.rindex(b"\0") + 1:]
        if chunk:
            out.append(chunk)
    return out


class Trace:
    """One trace file: its lines, parsed."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.raw = f.read()
        self.lines = [json.loads(l) for l in trace_lines(self.raw)]

    def events(self, ev):
        return [o for o in self.lines if o.get("ev") == ev]

    @property
    def header(self):
        return self.lines[0]

    @property
    def pid(self):
        return self.header["pid"]

    def ended_cleanly(self):
        """The process's own last line is "end"; the launcher may append a
        "reaped" line after it for the process it started."""
        own = [o for o in self.lines if o.get("ev") != "reaped"]
        return bool(own) and own[-1].get("ev") == "end"

    def reaped(self):
        r = self.events("reaped")
        return r[0] if r else None

    def opens(self):
        return {value(o, "path"): o for o in self.events("open")}

    def open_of(self, suffix):
        """The open event whose path ends with suffix (exactly one expected)."""
        found = [o for o in self.events("open") if value(o, "path").endswith(suffix)]
        return found[0] if found else None

    def searches(self, name=None):
        out = []
        for s in self.events("search"):
            if name is None or value(s, "name") == name:
                s = dict(s)
                ends = [e for e in self.events("search_end") if e["search"] == s["seq"]]
                s["end"] = ends[0] if ends else None
                opens = [e for e in self.events("open") if e.get("search") == s["seq"]]
                done = ends or opens
                s["tries"] = done[0].get("tries", []) if done else []
                out.append(s)
        return out

    def linkmap_paths(self):
        return [value(o, "path") for o in self.events("linkmap")]


def traces_in(outdir):
    return [Trace(p) for p in sorted(glob.glob(os.path.join(outdir, "*.jsonl")))]


class TracedRun:
    def __init__(self, proc, outdir):
        self.proc = proc
        self.outdir = outdir
        self.traces = traces_in(outdir)

    def trace_of(self, pid):
        for t in self.traces:
            if t.pid == pid:
                return t
        return None


# The command is built with AddressSanitizer, which insists on coming first in
# LD_PRELOAD; tests that hand gputrace an LD_PRELOAD of their own need this.
os.environ.setdefault("ASAN_OPTIONS", "verify_asan_link_order=0")


def run_traced(argv, env=None, opts=(), outdir=None, timeout=120, **kw):
    """Runs argv under gputrace -o <fresh folder>; returns a TracedRun."""
    if outdir is None:
        outdir = tempfile.mkdtemp(prefix="gt-e2e-")
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.run([GPUTRACE, "-o", outdir, *opts, "--", *argv], env=full_env,
                          capture_output=True, timeout=timeout, **kw)
    return TracedRun(proc, outdir)


def run_bare(argv, env=None, timeout=120, **kw):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(argv, env=full_env, capture_output=True, timeout=timeout, **kw)


def cleanup(run):
    shutil.rmtree(run.outdir, ignore_errors=True)


def real_cudnn_dir():
    """A folder of /usr/local/cuda*/lib* that holds the real libcudnn.so.9, or None."""
    for d in sorted(glob.glob("/usr/local/cuda*/lib*")):
        if os.path.exists(os.path.join(d, "libcudnn.so.9")):
            return d
    return None


def unfold(text):
    """The text with its folded lines joined again (issue 30: lines fit 100
    columns; a continuation is indented at least four more than its line)."""
    out = []
    for line in text.splitlines():
        lead = len(line) - len(line.lstrip(" "))
        if out and line.strip() and lead >= len(out[-1]) - len(out[-1].lstrip(" ")) + 4:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out) + "\n"
