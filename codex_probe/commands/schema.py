"""`codex-probe schema VERSION`: where that version's generated protocol schema lives."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from harness.codex.install import InstallError, UnknownVersionError, install
from harness.codex.npm import NpmError
from harness.codex.schema import ensure_schema, schema_hash
from harness.codex.validator import MessageValidator


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "schema",
        help="print the folder of a version's generated protocol schema",
        description="Generate (once) and locate the JSON schema that `codex app-server "
        "generate-json-schema` writes for VERSION.",
    )
    parser.add_argument("version")
    parser.add_argument("--json", action="store_true", help="also list the methods it defines")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        schema = ensure_schema(install(args.version))
    except (UnknownVersionError, NpmError, InstallError) as error:
        print(f"codex-probe schema: {error}", file=sys.stderr)
        return 1
    if not args.json:
        print(schema)
        return 0
    validator = MessageValidator(schema)
    kinds = ("client request", "client notification", "server request", "server notification")
    print(
        json.dumps(
            {
                "version": args.version,
                "schema": str(schema),
                "hash": schema_hash(schema),
                "methods": {kind: validator.methods(kind) for kind in kinds},
            },
            indent=2,
        )
    )
    return 0
