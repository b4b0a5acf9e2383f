"""Builds the gputrace wheel (issue 31) from a release build, offline: stages
python/ and the build's gputrace, libgputrace.so, gputrace-probe and
torch_doctor.py into the package's bin/ and lib/gputrace/ (the layout of
`make install`, so that the command finds its library from its own path),
works out the platform tag from the binaries, and runs Debian's setuptools
and wheel (setup.py bdist_wheel: no build isolation, nothing downloaded).

    /usr/bin/python3 tools/build-wheel.py --build DIR --stage DIR --dist DIR

Prints the wheel's path. `make wheel` runs it.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What goes where inside the package, as `make install` lays it out under
# PREFIX: (file in the build folder, path under gputrace/, mode).
BUNDLED = [
    ("gputrace", "bin/gputrace", 0o755),
    ("libgputrace.so", "lib/gputrace/libgputrace.so", 0o644),
    ("gputrace-probe", "lib/gputrace/gputrace-probe", 0o755),
    ("torch_doctor.py", "lib/gputrace/torch_doctor.py", 0o644),
]

# The libraries a manylinux wheel may need from the system (PEP 600 leaves
# the list to auditwheel's policy; these are the glibc and GCC runtime ones
# it allows on every manylinux_2_x): anything else and the wheel is tagged
# linux_x86_64, which promises nothing beyond the build host.
MANYLINUX_LIBS = {"libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0",
                  "libresolv.so.2", "libutil.so.1", "libnsl.so.1", "libgcc_s.so.1",
                  "libstdc++.so.6", "ld-linux-x86-64.so.2"}


def readelf(*args):
    return subprocess.run(["readelf", "-W", *args], check=True, capture_output=True,
                          text=True, env=dict(os.environ, LC_ALL="C")).stdout


def needed_libraries(path):
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", readelf("-d", path))


def glibc_versions(path):
    """The GLIBC_x.y versions the file's symbols need (.gnu.version_r)."""
    return {(int(a), int(b)) for a, b in re.findall(r"Name: GLIBC_(\d+)\.(\d+)", readelf("-V", path))}


def is_x86_64(path):
    return "X86-64" in readelf("-h", path)


def platform_tag(elf_files):
    """manylinux_2_Y_x86_64, Y the newest glibc symbol version the binaries
    need, when they are x86_64 and need no library beyond glibc's and GCC's
    runtime (PEP 600: then they run on any distribution with glibc 2.Y or
    newer); else linux_x86_64."""
    if not all(is_x86_64(f) for f in elf_files):
        sys.exit("build-wheel: the bundled binaries are not x86_64")
    others = sorted({lib for f in elf_files for lib in needed_libraries(f)} - MANYLINUX_LIBS)
    if others:
        print("build-wheel: tagged linux_x86_64: the binaries need %s beyond glibc"
              % ", ".join(others), file=sys.stderr)
        return "linux_x86_64"
    newest = max(v for f in elf_files for v in glibc_versions(f) | {(2, 17)})
    return "manylinux_%d_%d_x86_64" % newest


def stage(build, stage_dir):
    """The folder setup.py runs in: setup.py, VERSION, gputrace/ with the
    Python code and the bundled files."""
    shutil.rmtree(stage_dir, ignore_errors=True)
    pkg = os.path.join(stage_dir, "gputrace")
    shutil.copytree(os.path.join(TOP, "python", "gputrace"), pkg,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(os.path.join(TOP, "python", "setup.py"), stage_dir)
    shutil.copy(os.path.join(TOP, "VERSION"), stage_dir)
    for name, rel, mode in BUNDLED:
        dest = os.path.join(pkg, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy(os.path.join(build, name), dest)
        os.chmod(dest, mode)
    # Stripped as the .deb strips them (make deb): the debugging sections are
    # most of their size.
    strip = ["strip", "--remove-section=.comment", "--remove-section=.note"]
    subprocess.run(strip + [os.path.join(pkg, "bin/gputrace"),
                            os.path.join(pkg, "lib/gputrace/gputrace-probe")], check=True)
    subprocess.run(strip + ["--strip-unneeded", os.path.join(pkg, "lib/gputrace/libgputrace.so")],
                   check=True)
    return [os.path.join(pkg, rel) for name, rel, _ in BUNDLED if not name.endswith(".py")]


def build_wheel(stage_dir, dist, tag):
    with open(os.path.join(TOP, "VERSION")) as f:
        version = f.read().strip()
    os.makedirs(dist, exist_ok=True)
    for old in glob.glob(os.path.join(dist, "gputrace-%s-*.whl" % version)):
        os.unlink(old)
    # Debian's setuptools and wheel, in this interpreter: nothing is fetched.
    subprocess.run([sys.executable, "setup.py", "-q", "bdist_wheel", "--plat-name", tag,
                    "--dist-dir", os.path.abspath(dist)], cwd=stage_dir, check=True,
                   stdout=subprocess.DEVNULL)
    wheel = os.path.join(dist, "gputrace-%s-py3-none-%s.whl" % (version, tag))
    if not os.path.exists(wheel):
        sys.exit("build-wheel: setup.py made no %s" % wheel)
    return wheel


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="the release build folder")
    ap.add_argument("--stage", required=True, help="a scratch folder for setup.py")
    ap.add_argument("--dist", required=True, help="where the wheel goes")
    args = ap.parse_args()
    binaries = stage(args.build, args.stage)
    print(build_wheel(args.stage, args.dist, platform_tag(binaries)))


if __name__ == "__main__":
    main()
