#!/usr/bin/python3
"""The loader on paper against the real one (issue 33).

For every dynamic x86-64 ELF file under the given trees, compares what
`gputrace scan --for FILE --json` says the loader would list at start
("for"."objects", the preloads and DT_NEEDED names, not CUDA's own dlopens)
with what ldd lists (LD_TRACE_LOADED_OBJECTS=1 ld.so FILE): each name and the file
it gets, or "not found", or the loader's error. Prints the agreement, then
every disagreement with its explanation; exit 1 when a disagreement is left
that no known cause explains.

usage: difftest.py [--gputrace PATH] [--sample N] [--jobs N] [--json FILE] TREE...

Both are given the file's real path: ld.so run as a command takes $ORIGIN
of the program from the name it is given, the kernel (and scan --for) from
the real file, so a symlinked program would differ for that reason alone.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import signal
import struct
import subprocess
import sys
import time

RTLD = "/lib64/ld-linux-x86-64.so.2"
ET_EXEC, ET_DYN, PT_DYNAMIC, EM_X86_64 = 2, 3, 2, 62
# The environment that steers the loader is the same for both sides: the
# test's own (none by default).
STEERING = ("LD_LIBRARY_PATH", "LD_PRELOAD", "LD_BIND_NOW", "LD_AUDIT", "LD_DEBUG")

LINE_FOUND = re.compile(r"^\t(.+?) => (.+) \(0x[0-9a-f]+\)$")
LINE_MISSING = re.compile(r"^\t(.+?) => not found$")
LINE_SELF = re.compile(r"^\t(.+) \(0x[0-9a-f]+\)$")
LOADER_ERROR = re.compile(r"error while loading shared libraries: (.+?): (.+)$")


def dynamic_elf(path):
    """A 64-bit x86-64 ELF file with a PT_DYNAMIC: one ld.so can list."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return False
            e_type, e_machine = struct.unpack_from("<HH", head, 16)
            e_phoff, = struct.unpack_from("<Q", head, 32)
            e_phentsize, e_phnum = struct.unpack_from("<HH", head, 54)
            if e_type not in (ET_EXEC, ET_DYN) or e_machine != EM_X86_64 or e_phentsize != 56:
                return False
            f.seek(e_phoff)
            ph = f.read(56 * e_phnum)
            return any(struct.unpack_from("<I", ph, 56 * i)[0] == PT_DYNAMIC
                       for i in range(len(ph) // 56))
    except OSError:
        return False


def files_under(trees):
    seen, out = set(), []
    for tree in trees:
        for dirpath, dirnames, names in os.walk(tree):
            dirnames.sort()
            for n in sorted(names):
                p = os.path.join(dirpath, n)
                if os.path.islink(p) or not os.path.isfile(p):
                    continue
                real = os.path.realpath(p)
                if real not in seen and dynamic_elf(real):
                    seen.add(real)
                    out.append(real)
    return out


def clean_env():
    return {k: v for k, v in os.environ.items() if k not in STEERING}


def real_loader(path, env):
    """{name: path or None}, the rtld and vdso left out; or an error string.
    Run as ldd runs it (LD_TRACE_LOADED_OBJECTS=1 ld.so FILE): `ld.so --list`
    stops at a program's first missing library where ldd lists them all."""
    try:
        r = subprocess.run([RTLD, path], env=dict(env, LD_TRACE_LOADED_OBJECTS="1"), capture_output=True,
                           timeout=30)
    except subprocess.TimeoutExpired:
        return None, "ld.so --list timed out"
    out = r.stdout.decode(errors="replace")
    err = r.stderr.decode(errors="replace")
    if r.returncode < 0:
        return None, "ld.so --list was killed by %s" % signal.Signals(-r.returncode).name
    m = LOADER_ERROR.search(err)
    listed = any(LINE_FOUND.match(x) or LINE_MISSING.match(x) for x in out.splitlines())
    if r.returncode != 0 and (not listed or (m and "cannot open shared object file" not in m.group(2))):
        if m:  # the path for open_verify's words, the name asked for the later checks': the words
            return None, "error: %s" % m.group(2)
        return None, "ld.so --list exit %d: %s" % (r.returncode, err.strip()[:200])
    got = {}
    for line in out.splitlines():
        if line.strip() == "statically linked":
            continue
        m = LINE_FOUND.match(line) or LINE_MISSING.match(line) or LINE_SELF.match(line)
        if not m:
            continue
        name = m.group(1)
        target = m.group(2) if m.re is LINE_FOUND else None if m.re is LINE_MISSING else name
        if name.startswith("linux-vdso.so") or target == RTLD or name == RTLD:
            continue
        got[name] = target
    return got, None


def paper_loader(gputrace, path, env):
    """The same from scan --for, with the loader's error if it predicts one."""
    r = subprocess.run([gputrace, "scan", "--for", path, "--json"], env=env, capture_output=True, timeout=60)
    if r.returncode not in (0, 1):
        return None, "gputrace exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace").strip()[:200])
    fo = json.loads(r.stdout)["for"]
    got = {}
    for o in fo["objects"]:
        if o["how"] == "dlopen" or o["rtld"] or o["path"] == RTLD:
            continue
        got.setdefault(o["name"], o["path"])
    for res in fo["resolutions"]:
        if res["how"] != "dlopen" and res.get("error"):
            return got, "error: %s" % res["error"]
    return got, None


def explain(path, theirs, terr, ours, oerr):
    """A known cause for a disagreement, or None."""
    if terr and "killed by" in terr:
        return "ld.so's own crash: " + terr
    return None


def compare_one(gputrace, path, env):
    theirs, terr = real_loader(path, env)
    ours, oerr = paper_loader(gputrace, path, env)
    rec = {"file": path}
    if terr or oerr:
        rec["names"] = 1
        rec["agree"] = 1 if terr == oerr else 0
        if terr != oerr:
            rec.update(theirs=terr or theirs, ours=oerr or ours)
        return rec
    names = set(theirs) | set(ours)
    agree = [n for n in names if n in theirs and n in ours and theirs[n] == ours[n]]
    rec["names"] = max(len(names), 1)
    rec["agree"] = len(agree) if names else 1
    if len(agree) != len(names):
        rec["theirs"] = {n: theirs.get(n, "(not listed)") for n in sorted(names) if n not in agree}
        rec["ours"] = {n: ours.get(n, "(not listed)") for n in sorted(names) if n not in agree}
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gputrace", default=os.path.join(os.environ.get("BUILD", "build"), "gputrace"))
    ap.add_argument("--sample", type=int, default=0, help="this many files, chosen at random (seed 33)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--json", help="write every record here")
    ap.add_argument("trees", nargs="+")
    a = ap.parse_args()
    trees = [t for t in a.trees if os.path.isdir(t)]
    for t in a.trees:
        if t not in trees:
            print("difftest: %s: not a folder, left out" % t)
    files = files_under(trees)
    if a.sample and len(files) > a.sample:
        files = sorted(random.Random(33).sample(files, a.sample))
    env = clean_env()
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        recs = list(ex.map(lambda p: compare_one(a.gputrace, p, env), files))
    took = time.monotonic() - start
    nfiles = len(recs)
    fagree = sum(1 for r in recs if r["agree"] == r["names"])
    names = sum(r["names"] for r in recs)
    nagree = sum(r["agree"] for r in recs)
    unexplained = 0
    print("difftest: %s" % " ".join(trees))
    print("files: %d, the same in %d (%.3f%%); names: %d, the same %d (%.3f%%); %.1f s" %
          (nfiles, fagree, 100.0 * fagree / max(nfiles, 1), names, nagree, 100.0 * nagree / max(names, 1), took))
    for r in recs:
        if r["agree"] == r["names"]:
            continue
        why = explain(r["file"], r.get("theirs"), r.get("theirs") if isinstance(r.get("theirs"), str) else None,
                      r.get("ours"), None)
        r["explained"] = why
        unexplained += why is None
        print("DIFFERS %s" % r["file"])
        print("  ldd:        %s" % json.dumps(r.get("theirs")))
        print("  scan --for: %s" % json.dumps(r.get("ours")))
        print("  why: %s" % (why or "UNEXPLAINED"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"trees": trees, "files": nfiles, "files_same": fagree, "names": names,
                       "names_same": nagree, "seconds": took, "records": recs}, f, indent=1)
    print("unexplained disagreements: %d" % unexplained)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
