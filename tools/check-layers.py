#!/usr/bin/env python3
"""Checks that the source tree keeps its layers (doc/design-notes.md, Layout):

- every #include "..." names a header from the repository root (or the
  contract's "gputrace/..." from include/), never with "..";
- a file includes only headers of its own folder or of a lower layer, so
  every include (and, since nothing else declares them, every call) points
  down: include/gputrace < common < audit, preload, host < report < cmd;
  audit, preload and host never include one another;
- the library's folders (common/, audit/, preload/) never include the
  command's allocate-or-abort, common/xalloc.h;
- no .c file declares a prototype of a project function (each is declared
  once, in its header); names the toolchain defines (__asan_...) are not
  project functions.

Prints each violation as FILE:LINE: what; exits 1 when there is one.
Run from the repository root: python3 tools/check-layers.py"""
import glob
import os
import re
import sys

LAYERS = {"include/gputrace": 0, "common": 1, "audit": 2, "preload": 2, "host": 2,
          "report": 3, "report/rules": 3, "cmd": 4, "probe": 2}
# Folders on one level that must stay apart (the two halves of the library
# and the host's readers do not know one another).
SIBLINGS_APART = {"audit", "preload", "host"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# A file-scope declaration "type name(args);" (not static, not a typedef).
PROTOTYPE = re.compile(r'^(?!static\b|typedef\b|extern\s+"C")[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*'
                       r'(__attribute__\s*\(\(.*\)\)\s*)?;\s*$')
DEFINITION = re.compile(r'^(?!static\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;]*$')


def folder_of(path):
    d = os.path.dirname(path)
    return "include/gputrace" if d.startswith("include/gputrace") else d


def header_folder(name):
    if name.startswith("gputrace/"):
        return "include/gputrace"
    return os.path.dirname(name)


def sources():
    for pattern in ("include/gputrace/*.h", "common/*.[ch]", "audit/*.[ch]", "preload/*.[ch]",
                    "host/*.[ch]", "report/*.[ch]", "report/rules/*.[ch]", "cmd/*.[ch]", "probe/*.c"):
        yield from sorted(glob.glob(pattern))


def project_functions(files):
    """Names of the non-static functions the project defines."""
    names = set()
    for path in files:
        if not path.endswith(".c"):
            continue
        lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
        for i, line in enumerate(lines[:-1]):
            m = DEFINITION.match(line)
            if m and (lines[i + 1].startswith("{") or line.rstrip().endswith("{")):
                names.add(m.group(1))
    return names


def check_file(path, functions, problems):
    own = folder_of(path)
    rank = LAYERS[own]
    depth = 0
    for lineno, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
        m = INCLUDE.match(line)
        if m:
            name = m.group(1)
            if ".." in name.split("/"):
                problems.append(f"{path}:{lineno}: include climbs out with '..': {name}")
                continue
            theirs = header_folder(name)
            if theirs not in LAYERS:
                if not os.path.exists(name):
                    problems.append(f"{path}:{lineno}: include not named from the root: {name}")
                continue
            if name == "common/xalloc.h" and own in ("audit", "preload", "common") and path != "common/xalloc.c":
                problems.append(f"{path}:{lineno}: the library may not use the command's "
                                f"allocate-or-abort ({name})")
                continue
            if theirs == own or (own, theirs) in (("report/rules", "report"),):
                continue
            if LAYERS[theirs] > rank:
                problems.append(f"{path}:{lineno}: {own}/ (layer {rank}) includes {name} of a higher layer")
            elif LAYERS[theirs] == rank and {own, theirs} <= SIBLINGS_APART:
                problems.append(f"{path}:{lineno}: {own}/ includes {name} of its sibling {theirs}/")
        if path.endswith(".c"):
            stripped = line.split("//")[0]
            if depth == 0:
                p = PROTOTYPE.match(stripped)
                if p and p.group(1) in functions and not p.group(1).startswith("__"):
                    problems.append(f"{path}:{lineno}: prototype of {p.group(1)} in a .c file: "
                                    f"declare it in a header")
            depth += stripped.count("{") - stripped.count("}")


def main():
    files = list(sources())
    functions = project_functions(files)
    problems = []
    for path in files:
        check_file(path, functions, problems)
    for p in problems:
        print(p)
    print(f"check-layers: {len(files)} files, {len(functions)} project functions, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
