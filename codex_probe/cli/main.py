"""The `codex-probe` command: one subcommand per part of the design.

Each subcommand lives in `codex_probe/commands/<name>.py` and exposes
`register(subparsers)`, which adds its parser and sets `handler` to a function
taking the parsed namespace and returning the exit code.
"""

from __future__ import annotations

import argparse
import os
import select
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import NoReturn

from codex_probe import __version__
from codex_probe.cli.commands.failures import CommandFailed
from codex_probe.harness.codex.versions import InvalidVersionError
from codex_probe.harness.command_line import OneLineErrorParser
from codex_probe.harness.files import UnsafePathError
from codex_probe.harness.interrupts import Interrupted, interruptible

# Order here is the order of `codex-probe --help`.
COMMAND_MODULES = (
    "codex_probe.cli.commands.install",
    "codex_probe.cli.commands.schema",
    "codex_probe.cli.commands.cache",
    "codex_probe.cli.commands.validate",
    "codex_probe.cli.commands.smoke",
    "codex_probe.cli.commands.probe",
    "codex_probe.cli.commands.findings",
    "codex_probe.cli.commands.learn",
    "codex_probe.cli.commands.repro",
    "codex_probe.cli.commands.watch",
    "codex_probe.cli.commands.bisect",
    "codex_probe.cli.commands.history",
    "codex_probe.cli.commands.site",
    "codex_probe.cli.commands.diff",
    "codex_probe.cli.commands.rules",
    "codex_probe.cli.commands.explore",
    "codex_probe.cli.commands.holdout",
    "codex_probe.cli.commands.compile",
    "codex_probe.cli.commands.drive",
    "codex_probe.cli.commands.report",
    "codex_probe.cli.commands.gate",
    "codex_probe.cli.commands.can_i_upgrade",
    "codex_probe.cli.commands.record",
    "codex_probe.cli.commands.verify",
    "codex_probe.cli.commands.schema_diff",
)

USAGE_ERROR = 2
# What a shell reports for a command ended by SIGPIPE (128 + 13), as `yes | head` is.
CLOSED_STDOUT = 141


def build_parser(words: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser of every command, or of the one command the command line `words` starts
    with.

    A command's module imports what the command runs (pytest, aiohttp, the probes: half a
    second), so a command line that names one loads that one only; anything else (no
    command, an unknown one, --help) gets them all, for the list of commands.
    """
    parser = OneLineErrorParser(
        prog="codex-probe",
        description="Conformance and probe harness for the Codex app-server.",
    )
    parser.add_argument("--version", action="version", version=f"codex-probe {package_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    if list(words[:1]) == ["--version"]:
        return parser  # no command needed to print it
    named = f"codex_probe.cli.commands.{words[0].replace('-', '_')}" if words else ""
    for module_name in [named] if named in COMMAND_MODULES else COMMAND_MODULES:
        import_module(module_name).register(subparsers)
    return parser


def package_version() -> str:
    """codex-probe's version: the package's own (codex_probe.__version__), which the
    distribution's metadata is built from."""
    return __version__


def run() -> NoReturn:
    """The process's entry point (`codex-probe`, `python -m codex_probe.cli`): main's exit
    code as the process's; once a signal has interrupted the command, a further one while
    the process exits is ignored."""
    sys.exit(main(exiting=True))


def main(argv: Sequence[str] | None = None, *, exiting: bool = False) -> int:
    """Run one subcommand; its exit code.

    A command that raises CommandFailed ends with its one-line message on stderr and
    its exit code.

    Ctrl-C, SIGTERM and SIGHUP end a command with one line and 128 + the signal's number
    (codex_probe/harness/interrupts.py); a command that has more to say (probe, history) says it.

    A reader that stops reading (`codex-probe compile | head`) ends the command quietly
    with CLOSED_STDOUT, as SIGPIPE ends other commands, instead of a BrokenPipeError
    traceback: the rest of the output goes to /dev/null (Python's SIGPIPE advice).
    """
    words = sys.argv[1:] if argv is None else argv
    try:
        with interruptible(exiting=exiting):
            args = build_parser(words).parse_args(words)
            try:
                exit_code: int = args.handler(args)
            except CommandFailed as failure:
                print(f"codex-probe {args.command}: {failure}", file=sys.stderr)
                exit_code = failure.exit_code
            except (InvalidVersionError, UnsafePathError) as refused:
                # A version or a name read from a file that would be a path outside its
                # folder: refused where the path is built, whichever command read it.
                print(f"codex-probe {args.command}: {refused}", file=sys.stderr)
                exit_code = USAGE_ERROR
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
    except Interrupted as interrupted:
        # Ctrl-C, SIGTERM or SIGHUP where the command does not say more itself (while its
        # modules load, say): one line, no traceback; the `finally`s have cleaned up.
        command = f" {words[0]}" if words and not words[0].startswith("-") else ""
        print(f"codex-probe{command}: interrupted ({interrupted})", file=sys.stderr)
        return interrupted.exit_code
    except BrokenPipeError:
        if not _stdout_closed():
            raise  # another pipe (a server's stdin, say): a fault, not a reader gone
        _stdout_to_devnull()
        return CLOSED_STDOUT
    return exit_code


def _stdout_closed() -> bool:
    """Whether stdout is a pipe or socket nobody reads any more."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def _stdout_to_devnull() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
