"""The corpus of reported failures (tests/cases/README.md): builds each case's
fake layout, runs its program bare and under gputrace in a private mount
namespace with the case's own /etc/ld.so.cache, and judges the report.

    python3 -m tests.cases.corpus [-v] [NAME...]     run cases alone (from the repository root)
    python3 -m tests.cases.corpus --markdown         the tables of tests/cases/README.md

Everything is built once per run in one temporary folder: the fake libraries
are compiled from fixtures/*.c (the CUDA fakes) or generated here (plain
libraries that export and import named functions, with linker version
scripts), cached by what they are built from, then copied into each case's
root, so one library shared by ten cases is compiled once."""
import concurrent.futures
import difflib
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("BUILD", os.path.join(REPO, "build", "check"))
GPUTRACE = os.path.join(BUILD, "gputrace")
FIX = os.path.join(BUILD, "fixtures")
FIX_SRC = os.path.join(REPO, "fixtures")
PY = "/usr/bin/python3"
STEPS = os.path.join(HERE, "steps.py")
CC = os.environ.get("CC", "cc")
LDCONFIG = "/sbin/ldconfig"
# Variables that steer loading or the fakes: each case sets its own.
STEERING = ("LD_LIBRARY_PATH", "LD_PRELOAD", "CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX",
            "VIRTUAL_ENV", "CUDA_VISIBLE_DEVICES", "FAKE_CUDA_DEVICES", "FAKE_DRIVER_VERSION",
            "FAKE_CUDA_INIT_RESULT", "FAKE_CUDA_MEM_BYTES", "FAKE_CUDART_FAIL", "PYTHONPATH")
# -O0: the fakes do the same at any level, and cc1 takes less time (234
# libraries and programs a run; the corpus is most of CI's e2e time).
CFLAGS = ["-O0", "-fPIC", "-w"]
FIXTURE_SOURCES = {"cudart", "cudnn8", "cudnn9", "cudnn_sub", "cuda_driver", "cublas", "cublaslt"}

PROBE_C = r"""
#include <dlfcn.h>
#include <stdio.h>
/* What a library does when it loads a helper by name and looks a symbol up in
 * it (cuDNN loading libnvrtc, a front loading its graph library): the search
 * is the caller's, so this library's RUNPATH/RPATH applies. */
int gt_probe(const char *name, const char *sym, char *buf, unsigned long n)
{
	void *h = dlopen(name, RTLD_NOW);

	if (!h) {
		snprintf(buf, n, "%s", dlerror());
		return 1;
	}
	if (sym && *sym && !dlsym(h, sym)) {
		snprintf(buf, n, "%s", dlerror());
		return 2;
	}
	buf[0] = 0;
	return 0;
}
"""


def list_cases():
    return sorted(os.path.basename(os.path.dirname(p))
                  for p in glob.glob(os.path.join(HERE, "*", "case.json")))


def load_case(name):
    with open(os.path.join(HERE, name, "case.json")) as f:
        c = json.load(f)
    c["name"] = name
    return c


def namespace_problem():
    """None when `unshare -rm` and a bind mount over /etc/ld.so.cache work here,
    else why not (the corpus is skipped with that message)."""
    if not shutil.which("unshare"):
        return "unshare(1) is not installed"
    if not os.path.exists("/etc/ld.so.cache"):
        return "this host has no /etc/ld.so.cache to replace"
    p = subprocess.run(["unshare", "-rm", "sh", "-c",
                        "mount --bind /dev/null /etc/ld.so.cache && true"],
                       capture_output=True, text=True, timeout=30)
    if p.returncode:
        return "unshare -rm with a bind mount over /etc/ld.so.cache is not permitted here: " + \
            (p.stderr.strip() or "exit %d" % p.returncode)
    return None


class Builder:
    """Compiles libraries and programs once per run (keyed by their inputs)."""

    def __init__(self, workdir):
        self.cache = os.path.join(workdir, "objcache")
        os.makedirs(self.cache, exist_ok=True)

    def _compile(self, key_parts, out_name, argv_tail, source, extra=None):
        """Compiles source (plus an extra (name, text) file, a version
        script) into out_name once per distinct input."""
        parts = key_parts + [source] + (list(extra) if extra else [])
        h = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]
        d = os.path.join(self.cache, h)
        out = os.path.join(d, out_name)
        if os.path.exists(out):
            return out
        tmp = tempfile.mkdtemp(dir=self.cache, prefix=h + ".")
        if extra:
            with open(os.path.join(tmp, extra[0]), "w") as f:
                f.write(extra[1])
        src = os.path.join(tmp, "src.c")
        with open(src, "w") as f:
            f.write(source)
        argv = [CC] + CFLAGS + [a.replace("@SRC@", src).replace("@DIR@", tmp) for a in argv_tail]
        p = subprocess.run(argv + ["-o", os.path.join(tmp, out_name)], capture_output=True,
                           text=True, cwd=tmp)
        if p.returncode:
            raise RuntimeError("building %s failed: %s\n%s" % (out_name, " ".join(argv), p.stderr))
        try:
            os.rename(tmp, d)
        except OSError:  # another thread built the same thing first
            shutil.rmtree(tmp, ignore_errors=True)
        return out

    def library(self, spec, root):
        soname = spec.get("soname", os.path.basename(spec["lib"]))
        flags = ["-shared", "-Wl,-soname," + soname]
        if spec.get("now", True):
            flags.append("-Wl,-z,now")
        if spec.get("rpath"):
            flags += ["-Wl,--disable-new-dtags", "-Wl,-rpath," + spec["rpath"]]
        if spec.get("runpath"):
            flags += ["-Wl,--enable-new-dtags", "-Wl,-rpath," + spec["runpath"]]
        for k, v in sorted(spec.get("defines", {}).items()):
            flags.append("-D%s=%s" % (k, v))
        src = spec.get("src")
        if src:
            if src not in FIXTURE_SOURCES:
                raise ValueError("unknown fixture source " + src)
            with open(os.path.join(FIX_SRC, src + ".c")) as f:
                source = f.read()
        else:
            source = generated_source(spec)
        if spec.get("probe"):
            source += PROBE_C
        script = version_script(spec)
        key = [soname, " ".join(flags)]
        extra = None
        if script:
            flags.append("-Wl,--version-script=@DIR@/ver.map")
            extra = ("ver.map", script)
        needed = [os.path.join(root, n) for n in spec.get("needed", [])]
        for n in needed:
            with open(n, "rb") as f:
                key.append(hashlib.sha256(f.read()).hexdigest())
        return self._compile(key, soname, flags + ["@SRC@", "-Wl,--no-as-needed"] + needed + ["-lc"], source, extra)

    def program(self, spec, root):
        flags = []
        if spec.get("rpath"):
            flags += ["-Wl,--disable-new-dtags", "-Wl,-rpath," + spec["rpath"]]
        if spec.get("runpath"):
            flags += ["-Wl,--enable-new-dtags", "-Wl,-rpath," + spec["runpath"]]
        if spec.get("now"):
            flags.append("-Wl,-z,now")
        needed = [os.path.join(root, n) for n in spec.get("needed", [])]
        key = ["prog", " ".join(flags)]
        for n in needed:
            with open(n, "rb") as f:
                key.append(hashlib.sha256(f.read()).hexdigest())
        return self._compile(key, os.path.basename(spec["path"]), flags + ["@SRC@", "-Wl,--no-as-needed"] + needed,
                             program_source(spec))


def _export_parts(e):
    name, _, value = e.partition("=")
    return name, value or "0"


def generated_source(spec):
    """A plain library: each export returns a constant; one function calls
    every import, so each is an undefined symbol the loader must bind."""
    out = ["/* generated by tests/cases/corpus.py for %s */" % spec["lib"]]
    for e in spec.get("exports", []):
        name, value = _export_parts(e)
        out.append("int %s(void) { return %s; }" % (name, value))
    imports = spec.get("imports", [])
    for i in imports:
        out.append("extern int %s(void);" % i)
    if imports:
        tag = re.sub(r"\W", "_", os.path.basename(spec["lib"]))
        out.append("int gt_uses_%s(void) { return 0%s; }" % (tag, "".join(" + %s()" % i for i in imports)))
    if not spec.get("exports") and not imports:
        out.append("int gt_empty_%s(void) { return 0; }" % re.sub(r"\W", "_", os.path.basename(spec["lib"])))
    return "\n".join(out) + "\n"


def version_script(spec):
    node = spec.get("version")
    if not node:
        return ""
    names = [_export_parts(e)[0] for e in spec.get("exports", [])]
    if spec.get("probe"):
        names.append("gt_probe")
    return "%s {\n  global:\n%s  local: *;\n};\n" % (node, "".join("    %s;\n" % n for n in names))


def program_source(spec):
    """A program linked against libraries (DT_NEEDED): main calls each name of
    `calls` with a pointer argument and prints the status; with `cudart`, the
    error string of a failed cudaGetDeviceCount, as CUDA samples print it."""
    out = ["#include <stdio.h>"]
    if spec.get("cudart"):
        out += ["int cudaGetDeviceCount(int *);", "const char *cudaGetErrorString(int);",
                "int main(void)", "{", "\tint n = 0, rc = cudaGetDeviceCount(&n);", "",
                "\tif (rc) {",
                '\t\tprintf("%s%s\\n", cudaGetErrorString(rc));' % (
                    spec.get("prefix", "ERROR: cudaGetDeviceCount "), "%s"),
                "\t\treturn 1;", "\t}", '\tprintf("%d devices\\n", n);', "\treturn 0;", "}"]
        return "\n".join(out) + "\n"
    calls = spec.get("calls", [])
    for c in calls:
        out.append("extern int %s(void *);" % c)
    out += ["int main(void)", "{", "\tint v = 0, rc;"]
    for c in calls:
        out += ["\trc = %s(&v);" % c, '\tprintf("%s: %%d\\n", rc);' % c, "\tif (rc)", "\t\treturn 1;"]
    out += ['\tprintf("ok\\n");', "\treturn 0;", "}"]
    return "\n".join(out) + "\n"


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def build_layout(case, root, builder):
    """Makes the case's files under root (an empty folder)."""
    libs = []
    for e in case.get("layout", []):
        if "lib" in e:
            libs.append(e)
        elif "link" in e:
            dest = os.path.join(root, e["link"])
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            os.symlink(e["to"], dest)
        elif "copy" in e:
            dest = os.path.join(root, e["copy"])
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(os.path.realpath(os.path.join(FIX, e["from"])), dest)
        elif "file" in e:
            _write(os.path.join(root, e["file"]), e["text"].replace("{root}", root))
        elif "dist" in e:
            write_dist_info(root, e)
        elif "conda" in e:
            write_conda_meta(root, e)
        elif "dir" in e:
            os.makedirs(os.path.join(root, e["dir"]), exist_ok=True)
        else:
            raise ValueError("%s: unknown layout entry %r" % (case["name"], e))
    # libraries after everything else, each after the ones it is linked with
    made = set()
    while libs:
        ready = [e for e in libs if all(n in made or not any(l["lib"] == n for l in libs) for n in e.get("needed", []))]
        if not ready:
            raise ValueError("%s: libraries linked in a cycle: %s" % (case["name"], [e["lib"] for e in libs]))
        for e in ready:
            out = builder.library(e, root)
            dest = os.path.join(root, e["lib"])
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(out, dest)
            made.add(e["lib"])
            libs.remove(e)
    prog = case["program"]
    if "c" in prog:
        out = builder.program(prog["c"], root)
        dest = os.path.join(root, prog["c"]["path"])
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(out, dest)
        os.chmod(dest, 0o755)


def write_dist_info(root, e):
    """A pip *.dist-info: METADATA (Name, Version, Requires-Dist) and RECORD."""
    site = os.path.join(root, e["dist"])
    d = "%s-%s.dist-info" % (e["name"].replace("-", "_"), e["version"])
    meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (e["name"], e["version"])
    meta += "".join("Requires-Dist: %s\n" % r for r in e.get("requires", []))
    _write(os.path.join(site, d, "METADATA"), meta)
    rows = list(e.get("files", [])) + [d + "/METADATA", d + "/RECORD"]
    _write(os.path.join(site, d, "RECORD"), "".join("%s,,\n" % r for r in rows))


def write_conda_meta(root, e):
    """A conda-meta/NAME-VERSION-BUILD.json record of an environment."""
    prefix = os.path.join(root, e["conda"])
    rec = {"name": e["name"], "version": e["version"], "build": e.get("build", "0"),
           "channel": e.get("channel", "https://conda.anaconda.org/conda-forge/linux-64"),
           "depends": e.get("depends", []), "files": e.get("files", [])}
    _write(os.path.join(prefix, "conda-meta", "%s-%s-%s.json" % (e["name"], e["version"], rec["build"])),
           json.dumps(rec, indent=1) + "\n")


def _ldconfig(dirs, workdir):
    conf = os.path.join(workdir, "ld.so.conf")
    _write(conf, "".join(d + "\n" for d in dirs))
    cache = os.path.join(workdir, "ld.so.cache")
    p = subprocess.run([LDCONFIG, "-X", "-C", cache, "-f", conf], capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError("ldconfig failed: " + p.stderr)
    return cache


_trusted_only = {}
_trusted_only_lock = threading.Lock()


def make_cache(case, root, workdir):
    """The case's own ld.so.cache: the folders of its ld_so_conf (and the
    trusted folders ldconfig always adds), none of the host's CUDA. The
    cases with no folders of their own (45 of 84) share one cache, made
    once per run: the same bytes each would get (ldconfig reads every
    library of the trusted folders, 0.1-0.3 s of CPU a run; CI's time)."""
    dirs = [os.path.join(root, d) for d in case.get("ld_so_conf", [])]
    if dirs:
        return _ldconfig(dirs, workdir)
    workroot = os.path.dirname(workdir)
    with _trusted_only_lock:
        if workroot not in _trusted_only:
            shared = os.path.join(workroot, "trusted-only")
            os.makedirs(shared, exist_ok=True)
            _trusted_only[workroot] = _ldconfig([], shared)
        return _trusted_only[workroot]


def expand(s, root):
    return s.replace("{root}", root).replace("{py}", PY)


def case_argv(case, root):
    prog = case["program"]
    if "python" in prog:
        steps = json.loads(expand(json.dumps(prog["python"]), root))
        return [PY, STEPS, json.dumps(steps)]
    if "c" in prog:
        return [os.path.join(root, prog["c"]["path"])] + [expand(a, root) for a in prog.get("args", [])]
    return [expand(a, root) for a in prog["argv"]]


def case_env(case, root):
    env = {k: v for k, v in os.environ.items() if k not in STEERING}
    env.setdefault("ASAN_OPTIONS", "verify_asan_link_order=0")
    for k, v in case.get("env", {}).items():
        env[k] = expand(v, root)
    return env


IN_NS = 'mount --bind "$0" /etc/ld.so.cache || exit 125; exec "$@"'


def in_namespace(cache, argv):
    return ["unshare", "-rm", "sh", "-c", IN_NS, cache] + argv


def status(rc):
    return 128 - rc if rc < 0 else rc


PATH_CHARS = r"[^\s\"',;()\[\]{}]*"


def named_paths(text, root):
    return {m.rstrip(".:") for m in re.findall(re.escape(root) + PATH_CHARS, text)}


def names_culprit(finding, culprit, root):
    text = json.dumps([finding.get("summary"), finding.get("evidence"), finding.get("fix")])
    if "/" not in culprit:  # a bare name: libcuda.so is not libcuda.so.1
        return re.search(r"(?<![\w.+-])%s(?![\w+-]|\.\w)" % re.escape(culprit), text) is not None
    want = os.path.join(root, culprit.rstrip("/"))
    real = os.path.realpath(want)
    is_dir = os.path.isdir(want)
    for p in named_paths(text, root):
        rp = os.path.realpath(p) if os.path.exists(p) else p
        if p == want or rp == real:
            return True
        if is_dir and (p.startswith(want + "/") or rp.startswith(real + "/")):
            return True
    return False


def run_case(case, workroot, builder):
    """Builds and runs one case; returns a result dict (see judge)."""
    work = os.path.join(workroot, case["name"])
    root = os.path.join(work, "root")
    os.makedirs(root)
    res = {"name": case["name"], "kind": case["kind"], "thread": thread_of(case),
           "expected": case.get("expected", {}).get("ids", []), "known_miss": case.get("known_miss")}
    try:
        build_layout(case, root, builder)
        cache = make_cache(case, root, work)
    except Exception as e:  # a broken case must fail loudly, not be skipped
        res.update(ok=False, why="layout: %s" % e, got=[], errors=[], warnings=[])
        return res
    argv = case_argv(case, root)
    env = case_env(case, root)
    bare = subprocess.run(in_namespace(cache, argv), env=env, capture_output=True, timeout=120)
    outdir = os.path.join(work, "traces")
    traced = subprocess.run(in_namespace(cache, [GPUTRACE, "-o", outdir, "--"] + argv), env=env,
                            capture_output=True, timeout=120)
    rep = subprocess.run(in_namespace(cache, [GPUTRACE, "report", "--json", outdir]), env=env,
                         capture_output=True, timeout=120)
    res.update(root=root, bare_rc=status(bare.returncode), traced_rc=status(traced.returncode),
               bare_out=bare.stdout.decode(errors="replace"), traced_out=traced.stdout.decode(errors="replace"),
               bare_err=bare.stderr.decode(errors="replace"), report_rc=rep.returncode)
    try:
        report = json.loads(rep.stdout)
    except ValueError:
        res.update(ok=False, why="report --json exit %d: %s" % (rep.returncode, rep.stderr.decode(errors="replace")[-400:]),
                   got=[], errors=[], warnings=[])
        return res
    res["findings"] = report.get("findings", [])
    res["portable"] = report_elsewhere(report, root, outdir, env)
    res["paper"] = scan_agrees(case, argv, env, cache, res["findings"])
    judge(case, res)
    return res


# Findings that rest on what a run did (calls, statuses, signals, forks,
# ranks): paper has no run, so `scan --for` cannot give them.
RUN_ONLY = {"init-failed", "out-of-memory", "no-device", "crashed", "end-unknown", "fork-after-init",
            "divergent-processes", "missing-ranks", "no-kernel-image"}


def scan_agrees(case, argv, env, cache, findings):
    """`scan --for PROGRAM` in the case's namespace must give the finding
    ids the trace gave, but for those that need a run (report/paper.h: the
    same rules judge the loader's work on paper). Only a C program can be
    asked so: a Python case's libraries come from dlopen, which paper cannot
    see. Returns "" or what differs."""
    if "c" not in case["program"]:
        return ""
    r = subprocess.run(in_namespace(cache, [GPUTRACE, "scan", "--json", "--for", argv[0]]), env=env,
                       capture_output=True, timeout=120)
    try:
        scan = json.loads(r.stdout)
    except ValueError:
        return "scan --for exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace")[-300:])
    want = {f["id"] for f in findings} - RUN_ONLY
    got = {f["id"] for f in scan.get("findings", [])} - RUN_ONLY
    return "" if got == want else "trace %s, scan --for %s" % (sorted(want), sorted(got))


def comparable(report):
    """A report without what says where its facts came from."""
    return {k: v for k, v in report.items() if k != "facts"}


def report_elsewhere(report, root, outdir, env):
    """The trace folder read as on another machine: the layout renamed away
    and the report run outside the case's namespace (this host's own
    ld.so.cache). The facts written beside the traces when the run ended
    must give the same report; returns "" or what differs."""
    gone = root + ".gone"
    os.rename(root, gone)
    try:
        again = subprocess.run([GPUTRACE, "report", "--json", outdir], env=env, capture_output=True, timeout=120)
    finally:
        os.rename(gone, root)
    try:
        moved = json.loads(again.stdout)
    except ValueError:
        return "report --json exit %d: %s" % (again.returncode, again.stderr.decode(errors="replace")[-300:])
    if comparable(moved) != comparable(report):
        a = json.dumps(comparable(report), sort_keys=True, indent=0).splitlines()
        b = json.dumps(comparable(moved), sort_keys=True, indent=0).splitlines()
        return "; ".join(list(difflib.unified_diff(a, b, lineterm="", n=0))[2:8])
    facts = moved.get("facts", {})
    if facts.get("asked") or facts.get("unanswered"):
        return "the facts file did not answer everything: %s" % facts
    return ""


def thread_of(case):
    t = case.get("thread")
    return "%s#%s" % (t["project"], t["number"]) if t else "-"


def judge(case, res):
    findings = res["findings"]
    res["got"] = sorted({"%s:%s" % (f["id"], f["severity"][0]) for f in findings})
    res["errors"] = [f for f in findings if f["severity"] == "error"]
    res["warnings"] = [f for f in findings if f["severity"] == "warning"]
    if res.get("portable"):
        res.update(ok=False, why="the trace folder read elsewhere gives another report: " + res["portable"])
        return
    if res.get("paper"):
        res.update(ok=False, why="scan --for judges the program otherwise: " + res["paper"])
        return
    same = res["bare_rc"] == res["traced_rc"] and res["bare_out"] == res["traced_out"]
    if not same:
        res.update(ok=False, why="traced run differs: exit %d vs %d, stdout %r vs %r" % (
            res["bare_rc"], res["traced_rc"], res["bare_out"][-200:], res["traced_out"][-200:]))
        return
    if case["kind"] == "healthy":
        if res["bare_rc"] != 0:
            res.update(ok=False, why="the healthy program failed (exit %d): %s %s" % (
                res["bare_rc"], res["bare_out"][-300:], res["bare_err"][-300:]))
        elif res["errors"]:
            res.update(ok=False, why="false error: " + "; ".join(
                "%s: %s" % (f["id"], f["summary"]) for f in res["errors"]))
        elif case.get("clean") and res["warnings"]:
            res.update(ok=False, why="a clean layout got a warning: " + "; ".join(
                "%s: %s" % (f["id"], f["summary"]) for f in res["warnings"]))
        else:
            res.update(ok=True, why="")
        return
    want = case.get("expected", {})
    shown = (res["bare_out"] + res["bare_err"]).replace(res["root"], "")
    if case.get("reproduces") and case["reproduces"] not in shown:
        res.update(ok=False, why="does not reproduce the reported text %r: %r" % (case["reproduces"], shown[-300:]))
        return
    if res["bare_rc"] == 0 and not want.get("exit_ok"):
        res.update(ok=False, why="the reproduction did not fail (exit 0): " + res["bare_out"][-300:])
        return
    culprits = want.get("culprits", [])
    ids = set(want.get("ids", []))
    hits = [f for f in res["errors"] if f["id"] in ids and any(names_culprit(f, c, res["root"]) for c in culprits)]
    if hits:
        res.update(ok=True, why="%s names %s" % (hits[0]["id"], ", ".join(culprits)))
        return
    other = [f["id"] for f in res["errors"] if any(names_culprit(f, c, res["root"]) for c in culprits)]
    why = "no error-level %s naming %s" % ("/".join(sorted(ids)), " or ".join(culprits))
    if other:
        why += " (named by %s instead)" % ", ".join(other)
    res.update(ok=False, why=why)


def run_all(names=None, workers=None):
    """Runs the named cases (all by default) in parallel; returns the results
    in name order and the folder they ran in (the caller removes it)."""
    cases = [load_case(n) for n in (names or list_cases())]
    workroot = tempfile.mkdtemp(prefix="gt-cases-")
    builder = Builder(workroot)
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers or 2 * (os.cpu_count() or 2)) as ex:
        results = list(ex.map(lambda c: run_case(c, workroot, builder), cases))
    return results, workroot


# A known_miss case that fails for one of these reasons is a broken case,
# not a diagnosis gputrace does not make yet.
BROKEN = ("layout:", "traced run differs", "does not reproduce", "the reproduction did not fail",
          "the healthy program failed", "report --json", "the trace folder read elsewhere",
          "scan --for judges the program otherwise")


def problems(results):
    """What makes the corpus fail: a case that misses without a known_miss,
    a known_miss case that passes now (remove the mark), a broken case."""
    out = []
    for r in results:
        if r["ok"] and r["known_miss"]:
            out.append("%s passes now: remove its known_miss (%s)" % (r["name"], r["known_miss"]))
        elif not r["ok"] and (not r["known_miss"] or r["why"].startswith(BROKEN)):
            out.append("%s: %s" % (r["name"], r["why"]))
    return out


def verdict(r):
    if r["ok"]:
        return "PASS" if not r["known_miss"] else "PASS(known_miss set!)"
    return "known_miss" if r["known_miss"] else "FAIL"


def table(results):
    rows = [("case", "thread", "expected", "got", "result")]
    for r in results:
        rows.append((r["name"], r["thread"], ",".join(r["expected"]) or "(no error)",
                     ",".join(r["got"]) or "-", verdict(r)))
    w = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = ["  ".join(c.ljust(w[i]) for i, c in enumerate(row)) for row in rows]
    repro = [r for r in results if r["kind"] == "reproduction"]
    healthy = [r for r in results if r["kind"] == "healthy"]
    false_err = sum(1 for r in healthy if r["errors"])
    clean = sum(1 for r in healthy if r["ok"] and not r["errors"] and not r["warnings"])
    lines.append("reproductions: %d of %d pass (%d known_miss); healthy layouts: %d of %d pass, %d with "
                 "no error and no warning; false-error count: %d; whole corpus: %d of %d pass" % (
                     sum(r["ok"] for r in repro), len(repro), sum(1 for r in repro if r["known_miss"]),
                     sum(r["ok"] for r in healthy), len(healthy), clean, false_err,
                     sum(1 for r in results if r["ok"] and not r["known_miss"]), len(results)))
    return "\n".join(lines)


def markdown():
    """The README's tables of cases, from the case files."""
    out = ["| case | thread | expected finding | today |", "| --- | --- | --- | --- |"]
    cases = [load_case(n) for n in list_cases()]
    for c in cases:
        if c["kind"] == "reproduction":
            t = c["thread"]
            out.append("| `%s` | [%s#%d](%s) | %s | %s |" % (c["name"], t["project"], t["number"], t["url"],
                       ", ".join(c["expected"]["ids"]), "known_miss" if c.get("known_miss") else "pass"))
    out += ["", "| healthy layout | what it is | today |", "| --- | --- | --- |"]
    for c in cases:
        if c["kind"] == "healthy":
            out.append("| `%s` | %s | %s |" % (c["name"], c["title"],
                       "known_miss (false error)" if c.get("known_miss") else "no error"))
    return "\n".join(out) + "\n"


def main(argv):
    if "--markdown" in argv:
        sys.stdout.write(markdown())
        return 0
    verbose = "-v" in argv
    names = [a for a in argv if not a.startswith("-")]
    problem = namespace_problem()
    if problem:
        print("skipped: " + problem)
        return 0
    results, workroot = run_all(names or None)
    print(table(results))
    for r in results:
        if verbose or not r["ok"]:
            print("\n== %s: %s\n   %s" % (r["name"], verdict(r), r.get("why", "")))
            if verbose:
                print("   stdout: %r" % r.get("bare_out", "")[-500:])
                for f in r.get("findings", []):
                    print("   %s %s: %s" % (f["severity"], f["id"], f["summary"]))
    if verbose:
        print("\nkept: " + workroot)
    else:
        shutil.rmtree(workroot, ignore_errors=True)
    for p in problems(results):
        print("problem: " + p)
    return 1 if problems(results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
