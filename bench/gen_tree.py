#!/usr/bin/env python3
"""Generates the tree bench/scan_tree.sh times `gputrace scan` on: FILES files
(default 100,000), LIBS of them shared objects (default 2,000), laid out like a
host with many Python environments, CUDA toolkits, a conda package cache and
home folders full of projects.

  bench/gen_tree.py [--files N] [--libs N] [--seed N] ROOT

The shared objects are real, tiny ELF libraries: one is compiled ($CC, default
cc) per SONAME and copied under every file name that carries it. About 60% have
CUDA names, as installers write them: pip wheels (libcudnn.so.9 and its seven
sub-libraries, libcublas.so.12, libcublasLt.so.12, libcudart.so.12, named by
SONAME only, with a dist-info RECORD), toolkits (libcudart.so.12.X.Y with the
SONAME and development links), conda's package cache; the rest are other
libraries (libfoo_N.so, libbar.so.1.2). The other files are small .py, .pyi,
.txt, .h and .json files in nested package folders. Symbolic links count as
files, not as shared objects.

One consumer is built in the first environment, torch/lib/libtorch_cuda.so,
linked like a PyTorch wheel: DT_RPATH $ORIGIN/../../nvidia/*/lib and DT_NEEDED
libcudart.so.12, libcudnn.so.9, libcublas.so.12. Its path is written to
ROOT/CONSUMER. The tree is made once: ROOT/.done holds the parameters, and a
second run with the same ones does nothing."""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

CUDNN_SUBS = ["graph", "engines_precompiled", "engines_runtime_compiled", "heuristic", "ops", "cnn", "adv"]
SONAMES = (["libcudart.so.12", "libcublasLt.so.12", "libcublas.so.12", "libcudnn.so.9"]
           + ["libcudnn_%s.so.9" % s for s in CUDNN_SUBS]
           + ["libnccl.so.2", "libcufft.so.11", "libcurand.so.10"]
           + ["libfoo_%d.so" % i for i in range(8)] + ["libbar.so.1", "libbaz.so.3"])


def build_templates(tmp, cc):
    """One tiny shared object per SONAME; libcublas needs libcublasLt through
    RUNPATH $ORIGIN, as the real one does."""
    out = {}
    for i, soname in enumerate(SONAMES):
        src = os.path.join(tmp, "t%d.c" % i)
        with open(src, "w") as f:
            f.write("int bench_tree_fn_%d(void);\nint bench_tree_fn_%d(void) { return %d; }\n" % (i, i, i))
        dst = os.path.join(tmp, soname)
        extra = []
        if soname == "libcublas.so.12":
            extra = ["-L" + tmp, "-l:libcublasLt.so.12", "-Wl,--enable-new-dtags", "-Wl,-rpath,$ORIGIN"]
        subprocess.check_call([cc, "-O2", "-fPIC", "-shared", "-o", dst, src,
                               "-Wl,-soname," + soname, *extra])
        out[soname] = dst
    return out


class Tree:
    def __init__(self, root, templates, rng):
        self.root, self.templates, self.rng = root, templates, rng
        self.files = 0
        self.libs = 0
        self.dirs = []

    def lib(self, path, soname, links=()):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        shutil.copyfile(self.templates[soname], path)
        self.files += 1
        self.libs += 1
        for ln in links:
            lp = os.path.join(os.path.dirname(path), ln)
            if not os.path.lexists(lp):
                os.symlink(os.path.basename(path), lp)
                self.files += 1
        return path

    def text(self, path, body=""):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(body)
        self.files += 1


def wheel_env(t, env, minor):
    """A virtual environment with the CUDA wheels of cuDNN 9.minor."""
    sp = os.path.join(env, "lib", "python3.11", "site-packages")
    records = {}
    d = os.path.join(sp, "nvidia", "cudnn", "lib")
    names = ["libcudnn.so.9"] + ["libcudnn_%s.so.9" % s for s in CUDNN_SUBS]
    for n in names:
        t.lib(os.path.join(d, n), n)
    records[("nvidia-cudnn-cu12", "9.%d.0.%d" % (minor, 30 + minor))] = ["nvidia/cudnn/lib/" + n for n in names]
    d = os.path.join(sp, "nvidia", "cublas", "lib")
    for n in ("libcublas.so.12", "libcublasLt.so.12"):
        t.lib(os.path.join(d, n), n)
    records[("nvidia-cublas-cu12", "12.%d.4.1" % (minor % 9))] = ["nvidia/cublas/lib/libcublas.so.12",
                                                                  "nvidia/cublas/lib/libcublasLt.so.12"]
    t.lib(os.path.join(sp, "nvidia", "cuda_runtime", "lib", "libcudart.so.12"), "libcudart.so.12")
    records[("nvidia-cuda-runtime-cu12", "12.%d.127" % (minor % 9))] = ["nvidia/cuda_runtime/lib/libcudart.so.12"]
    for (name, version), files in records.items():
        di = os.path.join(sp, "%s-%s.dist-info" % (name.replace("-", "_"), version))
        t.text(os.path.join(di, "METADATA"), "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version))
        rec = [f + ",sha256=x,1" for f in files] + [os.path.basename(di) + "/METADATA,,", os.path.basename(di) + "/RECORD,,"]
        t.text(os.path.join(di, "RECORD"), "\n".join(rec) + "\n")
    return sp


def toolkit(t, prefix, minor):
    """A CUDA 12.minor toolkit: versioned files, SONAME and development links."""
    d = os.path.join(prefix, "lib64")
    t.lib(os.path.join(d, "libcudart.so.12.%d.127" % minor), "libcudart.so.12", ["libcudart.so.12", "libcudart.so"])
    t.lib(os.path.join(d, "libcublasLt.so.12.%d.5.8" % minor), "libcublasLt.so.12",
          ["libcublasLt.so.12", "libcublasLt.so"])
    t.lib(os.path.join(d, "libcublas.so.12.%d.5.8" % minor), "libcublas.so.12", ["libcublas.so.12", "libcublas.so"])
    cudnn_minor = 1 + minor % 14
    for stem in ["libcudnn"] + ["libcudnn_" + s for s in CUDNN_SUBS]:
        t.lib(os.path.join(d, "%s.so.9.%d.0" % (stem, cudnn_minor)), stem + ".so.9", [stem + ".so.9", stem + ".so"])
    for n in ("include/cuda_runtime.h", "include/cudnn.h", "include/cublas_v2.h", "version.json"):
        t.text(os.path.join(prefix, n), "/* %s */\n" % n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=100000)
    ap.add_argument("--libs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("root")
    a = ap.parse_args()
    stamp = "files=%d libs=%d seed=%d v2\n" % (a.files, a.libs, a.seed)
    done = os.path.join(a.root, ".done")
    if os.path.exists(done) and open(done).read() == stamp:
        print(open(os.path.join(a.root, "CONSUMER")).read().strip())
        return 0
    shutil.rmtree(a.root, ignore_errors=True)
    os.makedirs(a.root)
    rng = random.Random(a.seed)
    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory() as tmp:
        templates = build_templates(tmp, cc)
        t = Tree(a.root, templates, rng)
        cuda_budget = a.libs * 6 // 10
        # Python environments: 11 CUDA libraries each
        sps = []
        i = 0
        while t.libs + 11 <= cuda_budget * 55 // 100:
            sps.append(wheel_env(t, os.path.join(a.root, "envs", "env%03d" % i), 1 + i % 19))
            i += 1
        # toolkits: 11 CUDA libraries each
        i = 0
        while t.libs + 11 <= cuda_budget * 90 // 100:
            toolkit(t, os.path.join(a.root, "opt", "cuda-12.%d.%d" % (i % 9, i)), i % 9)
            i += 1
        # conda's package cache: single CUDA libraries in nested folders
        i = 0
        while t.libs < cuda_budget:
            soname = rng.choice(["libcudart.so.12", "libcublasLt.so.12", "libnccl.so.2", "libcufft.so.11",
                                 "libcurand.so.10", "libcudnn_graph.so.9"])
            stem, major = soname.split(".so.")
            pkg = os.path.join(a.root, "conda", "pkgs", "%s-%d.%d-h%05d_0" % (stem[3:], int(major), i % 10, i), "lib")
            t.lib(os.path.join(pkg, "%s.so.%s.%d.%d" % (stem, major, i % 10, i)), soname)
            t.text(os.path.join(pkg, "..", "info", "index.json"), '{"name": "%s"}\n' % stem[3:])
            i += 1
        # other libraries: in project folders and packages
        homes = [os.path.join(a.root, "home", "u%02d" % k, "proj%d" % j) for k in range(10) for j in range(5)]
        others = [s for s in SONAMES if s.startswith(("libfoo", "libbar", "libbaz"))]
        i = 0
        while t.libs < a.libs - 1:  # the consumer is the last one
            base = rng.choice(homes + sps)
            sub = os.path.join(base, *["pkg%d" % rng.randrange(6) for _ in range(rng.randrange(1, 4))], "lib")
            soname = rng.choice(others)
            path = os.path.join(sub, soname if i % 3 else "libplugin_%d.so" % i)
            if os.path.lexists(path):
                path = os.path.join(sub, "libplugin_%d.so" % i)
            t.lib(path, soname)
            i += 1
        # everything else: small text files in nested package folders
        folders = []
        for base in homes + sps:
            for k in range(rng.randrange(10, 30)):
                parts = ["m%d" % rng.randrange(8) for _ in range(rng.randrange(1, 6))]
                folders.append(os.path.join(base, "pkg%d" % rng.randrange(12), *parts))
        exts = [".py", ".py", ".py", ".pyi", ".txt", ".h", ".json", ".pyc"]
        n = 0
        while t.files < a.files - 2:  # the consumer and CONSUMER
            d = folders[n % len(folders)]
            t.text(os.path.join(d, "f%06d%s" % (n, rng.choice(exts))), "x = %d\n" % n)
            n += 1
        # the consumer: linked like a PyTorch wheel
        torch_lib = os.path.join(sps[0], "torch", "lib")
        os.makedirs(torch_lib, exist_ok=True)
        src = os.path.join(tmp, "torch_cuda.c")
        with open(src, "w") as f:
            f.write("int bench_torch_cuda(void);\nint bench_torch_cuda(void) { return 0; }\n")
        consumer = os.path.join(torch_lib, "libtorch_cuda.so")
        rpath = ":".join("$ORIGIN/../../nvidia/%s/lib" % p for p in ("cudnn", "cublas", "cuda_runtime"))
        subprocess.check_call([cc, "-O2", "-fPIC", "-shared", "-o", consumer, src, "-L" + tmp,
                               "-Wl,--no-as-needed", "-l:libcudart.so.12", "-l:libcudnn.so.9",
                               "-l:libcublas.so.12", "-Wl,--disable-new-dtags", "-Wl,-rpath," + rpath,
                               "-Wl,-rpath-link," + tmp, "-Wl,-soname,libtorch_cuda.so"])
        t.files += 1
        t.libs += 1
    with open(os.path.join(a.root, "CONSUMER"), "w") as f:
        f.write(consumer + "\n")
    t.files += 1
    with open(done, "w") as f:
        f.write(stamp)
    print(consumer)
    sys.stderr.write("gen_tree: %d files (%d shared objects) under %s\n" % (t.files, t.libs, a.root))
    return 0


if __name__ == "__main__":
    sys.exit(main())
