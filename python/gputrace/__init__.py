"""gputrace from Python: which CUDA library files this process really loaded,
why those, and is that why it fails.

    import gputrace
    gputrace.check()          # this interpreter, now: libraries and findings

    python -m gputrace train.py [ARG...]          # trace a script
    python -m gputrace [OPTIONS] -- COMMAND [ARG...]

The wheel bundles the gputrace command and libgputrace.so (in bin/ and
lib/gputrace/ beside this file); check() runs `gputrace inspect PID --json`
on this process and returns its answer as a CheckResult, which a notebook
shows as HTML tables. See gputrace-python(7).
"""
from gputrace._check import CheckResult, Finding, GputraceError, Library, check
from gputrace._paths import command_path, library_path

__all__ = ["check", "CheckResult", "Finding", "Library", "GputraceError", "command_path",
           "library_path"]
