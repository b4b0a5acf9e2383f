#!/bin/sh
# Installs the Debian packages gputrace's build and tests need, if missing
# (python3-torch: Debian's CPU-only PyTorch, the real framework of the
# cpu-only-build and torch.distributed tests; openmpi-bin: mpirun for the
# many-process tests; slurm-wlm, slurm-client, munge: the one-node Slurm of
# make check-slurm; python3-jsonschema: the e2e tests check every JSON
# document they read against schema/).
# libclang-rt-14-dev: clang's sanitizer and libFuzzer runtimes, which clang
# only recommends (and --no-install-recommends leaves out); valgrind: the
# tests that valgrind, run by gputrace, still reports no error.
# libgraphviz-dev: libgvc, which lays out report --svg and --html; graphviz:
# `dot`, which the picture tests render DOT with; chromium: the headless
# browser the HTML report is checked in.
# git, jq, xz-utils, bzip2, bc, file, zip, unzip, patch, procps: programs the
# real-commands differential runs bare and traced (tests/real/commands.py; a
# sample of it is in make check), beyond what a minbase Debian has.
# python3-setuptools, python3-wheel: make wheel builds the Python package
# with them, offline; python3-venv: the wheel's test installs it into a fresh
# venv, whose pip comes from python3-pip-whl (python3-venv depends on it).
# cmark-gfm: GitHub's Markdown parser, which checks that gputrace bundle's
# SUMMARY.md renders with its tables (tests/e2e/test_bundle.py); zlib1g-dev:
# the bundle's gzip (the command's alone, never libgputrace.so's).
# Extra packages can be named as arguments (make check-fresh needs debootstrap).
# Idempotent; needs root (or sudo) the first time.
set -eu
packages="build-essential clang libclang-rt-14-dev pkg-config libelf-dev libjansson-dev
libunwind-dev check python3 libc6-dev python3-torch openmpi-bin slurm-wlm slurm-client munge python3-jsonschema
libgraphviz-dev graphviz chromium valgrind git jq xz-utils bzip2 bc file zip unzip patch procps strace
python3-setuptools python3-wheel python3-venv cmark-gfm zlib1g-dev $*"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# shellcheck disable=SC2086
$SUDO apt-get install -y --no-install-recommends $missing
