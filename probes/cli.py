"""The `codex-probe` command: one subcommand per part of the design.

Each subcommand lives in `probes/commands/<name>.py` and exposes
`register(subparsers)`, which adds its parser and sets `handler` to a function
taking the parsed namespace and returning the exit code.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

# Order here is the order of `codex-probe --help`.
COMMAND_MODULES = (
    "probes.commands.install",
    "probes.commands.schema",
    "probes.commands.cache",
    "probes.commands.validate",
    "probes.commands.smoke",
    "probes.commands.probe",
    "probes.commands.learn",
    "probes.commands.bisect",
    "probes.commands.history",
    "probes.commands.compile",
    "probes.commands.drive",
    "probes.commands.report",
    "probes.commands.gate",
    "probes.commands.schema_diff",
)

USAGE_ERROR = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codex-probe",
        description="Conformance and probe harness for the Codex app-server.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in COMMAND_MODULES:
        import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    exit_code: int = args.handler(args)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
