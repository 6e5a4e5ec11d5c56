"""`codex-probe install --codex VERSION`: fetch a codex-cli version into the cache."""

from __future__ import annotations

import argparse
import json
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import (
    add_codex_option,
    add_json_option,
    add_old_version_positional,
)
from codex_probe.harness.codex.install import install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.command_line import FAILED


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "install",
        help="install a codex-cli version from npm into the cache",
        description="Install @openai/codex@VERSION into the cache (once) and generate its "
        "protocol schema. A second call for the same version is instant.",
    )
    add_codex_option(parser, "the release to install")
    add_json_option(parser, "its version, binary and schema folder")
    add_old_version_positional(parser, "install")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with install_failures_end_command(FAILED):
        installation = install(args.codex)
        schema = ensure_schema(installation)
    report = {
        "version": installation.version,
        "binary": str(installation.binary),
        "schema": str(schema),
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0
