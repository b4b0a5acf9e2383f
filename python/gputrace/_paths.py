"""Where the wheel put the bundled command and library: bin/ and
lib/gputrace/ beside this package, the layout of `make install`, so that the
command finds its library from its own path, as an installed one does."""
import os

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def command_path():
    """The bundled gputrace command."""
    return os.path.join(PACKAGE_DIR, "bin", "gputrace")


def library_path():
    """The bundled libgputrace.so (for LD_PRELOAD in a job script that
    cannot be started under gputrace)."""
    return os.path.join(PACKAGE_DIR, "lib", "gputrace", "libgputrace.so")


def missing_command_message():
    return ("gputrace: the bundled command %s is missing or not executable (a source checkout? "
            "install the wheel that `make wheel` builds)" % command_path())
