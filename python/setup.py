# The gputrace wheel (issue 31), run by tools/build-wheel.py from the folder it
# stages (this file, VERSION, and gputrace/ with the bundled command): the
# Python package plus the gputrace command, libgputrace.so, the doctor's probe
# and framework script as package data. Built offline with Debian's
# setuptools and wheel: `make wheel`.
import os

from setuptools import Distribution, setup
from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))


class CommandDistribution(Distribution):
    """Not pure Python: the bundled command is an x86_64 ELF program, so the
    package is built into and installed in platlib, where platform-specific
    files go (the same folder as purelib in a Debian venv, not everywhere)."""

    def has_ext_modules(self):
        return True


class CommandWheel(bdist_wheel):
    """py3-none-<platform>: the Python code runs under any Python 3 (no
    extension module, no ABI), but the command is for one platform, named by
    --plat-name (tools/build-wheel.py works it out from the binaries)."""

    def get_tag(self):
        return "py3", "none", self.plat_name.replace("-", "_").replace(".", "_")


with open(os.path.join(HERE, "VERSION")) as f:
    VERSION = f.read().strip()

setup(
    name="gputrace",
    version=VERSION,
    description="Which CUDA library files a process really loaded, why those, and is that why it fails",
    license="MIT",
    python_requires=">=3.7",
    packages=["gputrace"],
    package_data={"gputrace": ["bin/gputrace", "lib/gputrace/*"]},
    # `gputrace` on the venv's PATH: the bundled command, arguments unchanged.
    entry_points={"console_scripts": ["gputrace = gputrace.__main__:run_command"]},
    zip_safe=False,
    distclass=CommandDistribution,
    cmdclass={"bdist_wheel": CommandWheel},
)
