"""`codex-probe schema-diff V1 V2`: what changed in the protocol between two codex versions."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import codex_version
from codex_probe.harness.codex.install import install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.schema_shapes import load_shapes
from codex_probe.harness.command_line import FAILED
from codex_probe.reporting.schema_allure import write_schema_results
from codex_probe.reporting.schema_diff import diff_schemas
from codex_probe.reporting.schema_diff_text import render_text


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "schema-diff",
        help="compare the protocol schemas of two codex-cli versions",
        description="Compare the JSON schemas two codex-cli versions generate: methods and "
        "notifications added, removed and changed; fields added, removed and retyped (after "
        "resolving $refs). The methods the driver and the spec use come first, with params "
        "and response; then the rest, summarized.",
    )
    parser.add_argument("old", type=codex_version, metavar="V1", help="the version to compare from")
    parser.add_argument("new", type=codex_version, metavar="V2", help="the version to compare to")
    parser.add_argument("--json", action="store_true", help="every change, as JSON")
    parser.add_argument(
        "--alluredir",
        type=Path,
        metavar="DIR",
        help="also write one Allure result per driver method into DIR",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with install_failures_end_command(FAILED):
        old, new = install(args.old), install(args.new)  # `latest` becomes a version here
        old_dir, new_dir = ensure_schema(old), ensure_schema(new)
    diff = diff_schemas(
        load_shapes(old_dir), load_shapes(new_dir), old_version=old.version, new_version=new.version
    )
    if args.json:
        print(json.dumps(diff.to_json(), indent=2))
    else:
        print(render_text(diff), end="")
    if args.alluredir is not None:
        written = write_schema_results(diff, args.alluredir)
        print(f"allure results: {len(written)} in {args.alluredir}", file=sys.stderr)
    return 0
