"""`codex-probe validate VERSION TRANSCRIPT.jsonl`: every schema violation in a transcript."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.codex import (
    InstallError,
    MessageValidator,
    NpmError,
    UnknownVersionError,
    ensure_schema,
    install,
    validate_transcript,
)
from harness.jsonrpc import read_transcript


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check a JSON-RPC transcript against a version's schema",
        description="Validate every message of a JSONL transcript (as codex-probe writes them) "
        "against VERSION's generated schema. Exit 1 listing every violation.",
    )
    parser.add_argument("version")
    parser.add_argument("transcript", type=Path)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        entries = read_transcript(args.transcript)
    except (OSError, ValueError) as error:
        print(f"codex-probe validate: {error}", file=sys.stderr)
        return 2
    try:
        validator = MessageValidator(ensure_schema(install(args.version)))
    except (UnknownVersionError, NpmError, InstallError) as error:
        print(f"codex-probe validate: {error}", file=sys.stderr)
        return 1
    violations = validate_transcript(validator, entries)
    for violation in violations:
        print(f"{args.transcript}: {violation}")
    print(f"{len(entries)} messages checked, {len(violations)} violations")
    return 1 if violations else 0
