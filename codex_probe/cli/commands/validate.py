"""`codex-probe validate --codex VERSION TRANSCRIPT.jsonl`: every schema violation in a transcript.

Exit 0 no violation, 1 violations (each listed), 2 usage: a version npm does not
publish, a transcript that cannot be read or has a line that is not an entry;
3 the version could not be installed (npm or the install failed), so nothing was checked.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import (
    add_codex_option,
    add_json_option,
    add_old_version_positional,
)
from codex_probe.harness.codex.install import install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.transcripts import validate_transcript
from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.harness.command_line import USAGE_ERROR
from codex_probe.harness.jsonrpc.transcript import read_transcript

VIOLATIONS = 1
NOT_CHECKED = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check a JSON-RPC transcript against a version's schema",
        description="Validate every message of a JSONL transcript (as codex-probe writes them) "
        "against VERSION's generated schema. Exit 1 listing every violation, 2 for an "
        "unpublished VERSION or an unreadable transcript, 3 when VERSION could not be "
        "installed.",
    )
    add_codex_option(parser, "the release whose schema the transcript is checked against")
    add_json_option(parser, "every violation and the counts")
    add_old_version_positional(parser, "validate")
    parser.add_argument(
        "transcript",
        type=Path,
        metavar="TRANSCRIPT",
        help="a JSONL transcript as codex-probe writes them (transcript-VERSION.jsonl)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        entries = read_transcript(args.transcript)
    except (OSError, ValueError) as error:
        print(f"codex-probe validate: {error}", file=sys.stderr)
        return USAGE_ERROR
    with install_failures_end_command(NOT_CHECKED, unknown_version_exit_code=USAGE_ERROR):
        installation = install(args.codex)
        validator = MessageValidator(ensure_schema(installation))
    violations = validate_transcript(validator, entries)
    if args.json:
        document = {
            "version": installation.version,
            "transcript": str(args.transcript),
            "messages": len(entries),
            "violations": [str(violation) for violation in violations],
        }
        print(json.dumps(document, indent=2))
        return VIOLATIONS if violations else 0
    for violation in violations:
        print(f"{args.transcript}: {violation}")
    print(f"{len(entries)} messages checked, {len(violations)} violations")
    return VIOLATIONS if violations else 0
