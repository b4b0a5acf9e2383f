#!/usr/bin/env python3
"""Checks that the rules are pure functions of (model, facts) -> findings
(doc/design-notes.md, "Facts"): no object file of rules/ in a build calls
anything that reads the disk, the environment or the clock, or any reader
of host/ — the host reaches the rules only through facts/ (gt_facts_*).

Looks at the undefined symbols of $BUILD/cmd/rules/*.o (nm -u), so a call
hidden behind a macro or an inline wrapper is caught too. Allowed from
host/: the functions that only free, format or look up in memory.

Usage: tools/check-pure-rules.py BUILD; prints each violation as
OBJECT: SYMBOL, exits 1 when there is one."""
import glob
import os
import subprocess
import sys

# libc: files, folders, links, the environment, processes, the clock.
FORBIDDEN_LIBC = {
    "open", "open64", "openat", "openat64", "creat", "fopen", "fopen64", "freopen", "fdopen",
    "opendir", "fdopendir", "scandir", "nftw", "ftw",
    "access", "faccessat", "euidaccess", "eaccess",
    "stat", "stat64", "lstat", "lstat64", "fstatat", "fstatat64", "statx",
    "__xstat", "__xstat64", "__lxstat", "__lxstat64", "__fxstatat", "__fxstatat64",
    "realpath", "canonicalize_file_name", "readlink", "readlinkat",
    "glob", "glob64", "wordexp",
    "getenv", "secure_getenv", "__secure_getenv", "environ", "__environ",
    "time", "clock", "clock_gettime", "gettimeofday",
    "dlopen", "dlmopen", "popen", "system", "fork", "vfork", "execv", "execve", "execvp", "posix_spawn",
    "gethostname", "uname",
}
# From lower layers: the ones that read this host, not the traced one.
FORBIDDEN_PROJECT = {"gt_host_name", "gt_start_ticks_of"}
# host/ functions that read nothing: freeing, naming, matching in memory.
PURE_HOST = {
    "host_elf_free", "host_free_strings", "host_needs_free", "host_resolution_free",
    "host_fatbin_image_name", "host_fatbin_list", "host_framework_root", "host_ldcache_lookup",
    "host_version_satisfies", "host_where_label",
}


def undefined(obj):
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    objs = sorted(glob.glob(os.path.join(sys.argv[1], "cmd", "rules", "*.o")))
    if not objs:
        print("check-pure-rules: no rules/*.o under %s/cmd (build first)" % sys.argv[1], file=sys.stderr)
        return 2
    bad = 0
    for obj in objs:
        for sym in sorted(undefined(obj)):
            if sym in FORBIDDEN_LIBC or sym in FORBIDDEN_PROJECT or (sym.startswith("host_") and
                                                                      sym not in PURE_HOST):
                print("%s: %s (rules see the host only through facts/)" % (os.path.basename(obj), sym))
                bad += 1
    print("check-pure-rules: %d rule objects, %d calls that read the host" % (len(objs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
