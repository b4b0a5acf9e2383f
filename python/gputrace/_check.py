"""gputrace.check(): what this running interpreter has loaded right now, and
the findings that can be judged from a live process. The bundled command does
the work (`gputrace inspect PID --json`, the report's JSON contract:
schema/report.schema.json); this module runs it and turns its answer into a
CheckResult that prints as text and shows as HTML tables in a notebook."""
import html
import json
import os
import subprocess

from gputrace._paths import command_path, missing_command_message

SEVERITY_ORDER = ("error", "warning", "info")
# The verdict in the report's words (its first line). Never "all clear" from
# a live process, as inspect says it: what needs a run is not judged there.
VERDICT_WORDS = {"error": "NOT OK", "warning": "works, with warnings", "ok": "all clear"}
LIVE_OK_WORDS = "no problem in what it has loaded (a live process: what needs a run is not judged)"


class GputraceError(RuntimeError):
    """The bundled command could not inspect the process (exit 2 or worse)."""


class Library:
    """One ELF file the process has mapped now, in map order: path; and where
    the report judged it as a CUDA library (processes[].libraries), its
    family (cudnn, cublas ...), version with where it came from, and the
    package that installed it (e.g. 'pip nvidia-cudnn-cu13 9.19.0.56'); None
    each where it did not. deleted: the file was removed or replaced on disk
    since it was mapped."""

    def __init__(self, path, judged=None, deleted=False):
        judged = judged or {}
        self.path = path
        self.real_path = judged.get("real_path")
        self.family = judged.get("family")
        self.version = judged.get("version")
        self.version_source = judged.get("version_source")
        self.package = package_words(judged.get("package"))
        self.deleted = deleted
        self.raw = judged

    def __repr__(self):
        return "Library(%r, version=%r, package=%r)" % (self.path, self.version, self.package)


def libraries_of(doc, process):
    """Every mapped object of inspect's "live" part, with the report's facts
    of the CUDA libraries among them (matched by path or real path); a
    document without a live part (a trace's report) gives the report's
    libraries alone."""
    judged = process.get("libraries", [])
    objects = (doc.get("live") or {}).get("objects")
    if objects is None:
        return [Library(o.get("path"), o) for o in judged]
    by_path = {}
    for o in judged:
        for key in ("path", "real_path"):
            if o.get(key):
                by_path.setdefault(o[key], o)
    return [Library(o.get("path"), by_path.get(o.get("path")), bool(o.get("deleted"))) for o in objects]


class Finding:
    """One finding: id (part of the interface, gputrace-report(1)), severity
    (error, warning, info), title (its one line), fix, evidence lines, and the
    fix as a shell command where there is one."""

    def __init__(self, obj):
        self.id = obj.get("id")
        self.severity = obj.get("severity")
        self.title = obj.get("summary")
        self.fix = obj.get("fix")
        self.command = obj.get("command")
        self.evidence = [e.get("what", "") for e in obj.get("evidence", []) if isinstance(e, dict)]
        self.raw = obj

    def __repr__(self):
        return "Finding(%r, %r, %r)" % (self.id, self.severity, self.title)


def package_words(pkg):
    """'pip nvidia-cudnn-cu13 9.19.0.56' from the report's package object."""
    if not isinstance(pkg, dict):
        return None
    return " ".join(str(pkg[k]) for k in ("manager", "name", "version") if pkg.get(k))


class CheckResult:
    """The answer of check(): pid, exe, libraries (list of Library: every
    file mapped now), findings (list of Finding, in the report's order),
    not_judged ((id, why) of the findings a live process cannot show),
    verdict ('ok', 'warning' or 'error': the worst severity found, info
    aside), ok (no error), exit_status (the command's: 0, or 1 with an
    error), raw (the whole JSON document)."""

    def __init__(self, doc, exit_status):
        self.raw = doc
        self.exit_status = exit_status
        procs = doc.get("processes") or [{}]
        self.process = procs[0]
        self.pid = self.process.get("pid")
        self.exe = self.process.get("exe")
        self.libraries = libraries_of(doc, self.process)
        self.findings = [Finding(o) for o in doc.get("findings", [])]
        # The finding ids a live process cannot show (they need the loader's
        # searches or CUDA calls' results): (id, why) pairs.
        self.not_judged = [(o.get("id"), o.get("why")) for o in (doc.get("live") or {}).get("not_judged", [])]

    @property
    def verdict(self):
        severities = {f.severity for f in self.findings}
        return next((s for s in ("error", "warning") if s in severities), "ok")

    @property
    def ok(self):
        return self.verdict != "error"

    def counts(self):
        return {s: sum(f.severity == s for f in self.findings) for s in SEVERITY_ORDER}

    def headline(self):
        c = self.counts()
        ids = ", ".join(dict.fromkeys(f.id for f in self.findings if f.severity != "info"))
        return "gputrace check: pid %s (%s): %d librar%s, %d error%s, %d warning%s: %s%s" % (
            self.pid, self.exe or "?", len(self.libraries), "y" if len(self.libraries) == 1 else "ies",
            c["error"], "" if c["error"] == 1 else "s", c["warning"], "" if c["warning"] == 1 else "s",
            self.verdict_words(), " (%s)" % ids if ids else "")

    def verdict_words(self):
        if self.verdict == "ok" and "live" in self.raw:
            return LIVE_OK_WORDS
        return VERDICT_WORDS[self.verdict]

    def __str__(self):
        lines = [self.headline()]
        for f in self.findings:
            lines.append("  %-8s %s: %s" % (f.severity, f.id, f.title))
            lines += ["           - %s" % e for e in f.evidence]
            if f.fix:
                lines.append("           fix: %s" % f.fix)
        if self.not_judged:
            lines.append("not judged from a live process: %s" % ", ".join(i for i, _ in self.not_judged))
        if self.libraries:
            lines.append("libraries:")
            lines += ["  " + "  ".join(w for w in (lib.path + (" (deleted)" if lib.deleted else ""),
                                                   lib.version, lib.package) if w)
                      for lib in self.libraries]
        return "\n".join(lines)

    def __repr__(self):
        return "<gputrace.CheckResult pid=%s verdict=%s findings=%s libraries=%d>" % (
            self.pid, self.verdict, [f.id for f in self.findings], len(self.libraries))

    def _repr_html_(self):
        """Jupyter's rich display: the headline, then a table of findings and
        a table of libraries; every value escaped."""
        e = html.escape
        findings = [[e(f.severity), e(f.id), e(f.title or "") + evidence_html(f), e(f.fix or "")]
                    for f in self.findings]
        libraries = [[e((lib.path or "") + (" (deleted)" if lib.deleted else "")), e(lib.family or ""),
                      e(lib.version or ""), e(lib.package or "")] for lib in self.libraries]
        return "".join([
            '<div class="gputrace-check"><p><b>%s</b></p>' % e(self.headline()),
            html_table(["severity", "finding", "title", "fix"], findings, "no finding"),
            html_table(["library", "family", "version", "package"], libraries, "no library"),
            "<p>not judged from a live process: %s</p>" % e(", ".join(i for i, _ in self.not_judged))
            if self.not_judged else "",
            "</div>"])


def evidence_html(finding):
    """The evidence under a finding's title, escaped."""
    if not finding.evidence:
        return ""
    return "<ul>%s</ul>" % "".join("<li>%s</li>" % html.escape(e) for e in finding.evidence)


def html_table(head, rows, empty):
    """A <table> of rows of cells that are HTML already."""
    out = ["<table><thead><tr>%s</tr></thead><tbody>" % "".join("<th>%s</th>" % h for h in head)]
    out += ["<tr>%s</tr>" % "".join("<td>%s</td>" % c for c in row) for row in rows]
    if not rows:
        out.append('<tr><td colspan="%d">%s</td></tr>' % (len(head), html.escape(empty)))
    out.append("</tbody></table>")
    return "".join(out)


def inspect_json(pid, timeout):
    """`gputrace inspect --json PID`: (the parsed document, exit status). The
    command runs with GPUTRACE_DISABLE=1: in a traced program (python -m
    gputrace) the environment names libgputrace.so, and the inspecting
    command's own loads have no place in that program's traces."""
    cmd = command_path()
    if not os.access(cmd, os.X_OK):
        raise GputraceError(missing_command_message())
    env = dict(os.environ, GPUTRACE_DISABLE="1")
    p = subprocess.run([cmd, "inspect", "--json", str(pid)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, timeout=timeout)
    err = p.stderr.decode(errors="replace").strip()
    if p.returncode not in (0, 1):
        raise GputraceError("gputrace inspect %s: exit %d: %s" % (pid, p.returncode, err))
    try:
        return json.loads(p.stdout), p.returncode
    except ValueError as e:
        raise GputraceError("gputrace inspect %s: no JSON (%s): %s" % (pid, e, err)) from None


def check(pid=None, timeout=120):
    """Inspects this process (or PID, a running process of the same user):
    the libraries it has mapped now, with versions and packages, and the
    findings that can be judged without a restart. Returns a CheckResult;
    raises GputraceError when the command cannot say."""
    doc, status = inspect_json(os.getpid() if pid is None else pid, timeout)
    return CheckResult(doc, status)
