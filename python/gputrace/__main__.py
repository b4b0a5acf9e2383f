"""python -m gputrace: the bundled gputrace command, with one convenience.

    python -m gputrace [OPTIONS] train.py [ARG...]    the script under this interpreter
    python -m gputrace [OPTIONS] -- COMMAND [ARG...]  any command, as `gputrace` runs it
    python -m gputrace doctor [ARGS]                  the framework checks under this interpreter
    python -m gputrace report|scan|... ARGS           the other subcommands, unchanged

The command replaces this interpreter (exec), so its exit status, a signal's
death, the terminal and stdin are the traced program's own, exactly as with
the gputrace command. The `gputrace` console script the wheel installs runs
the command with its arguments unchanged.
"""
import os
import sys

from gputrace._paths import command_path, missing_command_message

SUBCOMMANDS = ("report", "scan", "doctor", "diff", "retry", "inspect", "bundle")
# gputrace's options that take their value as the next argument.
OPTIONS_WITH_VALUE = ("-o", "--output")
# gputrace's own failures (no library, bad usage) exit 125: so does a wheel
# without its command.
EXIT_GPUTRACE_FAILED = 125


def is_python_script(arg):
    return arg.endswith((".py", ".pyw"))


def command_line(args, python=None):
    """gputrace's arguments for `python -m gputrace ARGS`: where the command
    (the first argument after gputrace's options) is a Python script, it runs
    under this interpreter (`-- PYTHON SCRIPT ARG...`), so that a venv's
    script sees the venv; `doctor` checks the framework of this interpreter
    (`--python PYTHON`) unless told another. Everything else is passed on
    unchanged."""
    python = python or sys.executable
    if args and args[0] == "doctor" and not any(a == "--python" or a.startswith("--python=") for a in args):
        return ["doctor", "--python", python] + list(args[1:])
    if not args or args[0] in SUBCOMMANDS:
        return list(args)
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            return list(args)
        i += 2 if args[i] in OPTIONS_WITH_VALUE else 1
    if i < len(args) and is_python_script(args[i]):
        return list(args[:i]) + ["--", python] + list(args[i:])
    return list(args)


def exec_command(args):
    """Replaces this process with the bundled command; returns only on failure."""
    cmd = command_path()
    if not os.access(cmd, os.X_OK):
        print(missing_command_message(), file=sys.stderr)
        return EXIT_GPUTRACE_FAILED
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(cmd, [cmd] + args)
    except OSError as e:
        print("gputrace: cannot run %s: %s" % (cmd, e.strerror), file=sys.stderr)
    return EXIT_GPUTRACE_FAILED


def main():
    return exec_command(command_line(sys.argv[1:]))


def run_command():
    """The `gputrace` console script: the command itself, arguments as given."""
    return exec_command(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
