"""`codex-probe schema --codex VERSION`: where that version's generated protocol schema lives."""

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
from codex_probe.harness.codex.schema import ensure_schema, schema_hash
from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.harness.command_line import FAILED


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "schema",
        help="print the folder of a version's generated protocol schema",
        description="Generate (once) and locate the JSON schema that `codex app-server "
        "generate-json-schema` writes for VERSION.",
    )
    add_codex_option(parser, "the release whose schema to locate")
    add_json_option(parser, "its folder, hash and the methods it defines")
    add_old_version_positional(parser, "schema")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with install_failures_end_command(FAILED):
        installation = install(args.codex)
        schema = ensure_schema(installation)
    if not args.json:
        print(schema)
        return 0
    validator = MessageValidator(schema)
    kinds = ("client request", "client notification", "server request", "server notification")
    print(
        json.dumps(
            {
                "version": installation.version,
                "schema": str(schema),
                "hash": schema_hash(schema),
                "methods": {kind: validator.methods(kind) for kind in kinds},
            },
            indent=2,
        )
    )
    return 0
