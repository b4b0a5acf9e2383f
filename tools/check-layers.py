#!/usr/bin/env python3
"""Checks that the source tree keeps its layers (doc/design-notes.md, Layout):

- every #include "..." names a header from the repository root (or the
  contract's "gputrace/..." from include/), never with "..";
- a file includes only headers of its own folder or of a lower layer, so
  every include (and, since nothing else declares them, every call) points
  down: include/gputrace < common < audit, preload, host < facts < read <
  rules < report < render < compare < cmd; audit, preload and host never
  include one another;
- no include cycle: a module (a .c file and its .h together) never reaches
  itself through the headers it includes, inside a folder or across folders;
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

# The pipeline, lowest first: capture and format, the host's disk, the
# host's answers remembered (facts/: keyed by question, so below the model
# that is made of them), traces read into a model, the rules, the report that runs them, its outputs, comparisons of outputs, the
# command. probe/ is a program of its own beside the library.
LAYERS = {"include/gputrace": 0, "common": 1, "audit": 2, "preload": 2, "host": 2, "probe": 2,
          "facts": 3, "read": 4, "rules": 5, "report": 6, "render": 7, "compare": 8, "cmd": 9}
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
    for folder in LAYERS:
        pattern = "include/gputrace/*.h" if folder == "include/gputrace" else folder + "/*.[ch]"
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


def module_of(path):
    """A .c file and its .h are one module: the path without its extension,
    a contract header by its place under include/."""
    if path.startswith("gputrace/"):
        path = "include/" + path
    return os.path.splitext(path)[0]


def check_file(path, functions, problems, edges):
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
            if module_of(name) != module_of(path):
                edges.setdefault(module_of(path), {}).setdefault(module_of(name), (path, lineno, name))
            if theirs not in LAYERS:
                if not os.path.exists(name):
                    problems.append(f"{path}:{lineno}: include not named from the root: {name}")
                continue
            if name == "common/xalloc.h" and own in ("audit", "preload", "common") and path != "common/xalloc.c":
                problems.append(f"{path}:{lineno}: the library may not use the command's "
                                f"allocate-or-abort ({name})")
                continue
            if theirs == own:
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


def strong_components(edges):
    """The modules that reach one another (Tarjan), as lists of two or more."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def cycle_through(start, comp, edges):
    """One shortest loop from start back to it inside comp: its edges."""
    paths, seen = {start: []}, {start}
    todo = [start]
    while todo:
        v = todo.pop(0)
        for w, where in sorted(edges.get(v, {}).items()):
            if w == start:
                return paths[v] + [where]
            if w in comp and w not in seen:
                seen.add(w)
                paths[w] = paths[v] + [where]
                todo.append(w)
    return []


def check_cycles(edges, problems):
    for comp in strong_components(edges):
        loop = cycle_through(comp[0], set(comp), edges)
        steps = ", ".join(f"{path}:{lineno} includes {name}" for path, lineno, name in loop)
        problems.append(f"{loop[0][0]}:{loop[0][1]}: include cycle through {', '.join(comp)}: {steps}")


def main():
    files = list(sources())
    functions = project_functions(files)
    problems = []
    edges = {}
    for path in files:
        check_file(path, functions, problems, edges)
    check_cycles(edges, problems)
    for p in problems:
        print(p)
    print(f"check-layers: {len(files)} files, {len(functions)} project functions, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
