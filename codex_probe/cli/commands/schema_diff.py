"""`codex-probe schema-diff --from A --to B`: what changed in the protocol between two codex
versions."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import (
    DeprecatedOption,
    DeprecatedPositional,
    add_json_option,
    add_range_options,
    require_range,
)
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
    add_range_options(
        parser,
        first="the release to compare from (or latest)",
        last="the release to compare to (or latest)",
    )
    parser.add_argument(
        "old_releases",
        action=DeprecatedPositional,
        command="schema-diff",
        old="V1 V2 (positional)",
        new="--from V1 --to V2",
        dests=("first", "last"),
    )
    add_json_option(parser, "every change")
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="also write one Allure result per driver method into DIR/allure-results (a probe "
        "run's folder, so that its report shows them)",
    )
    parser.add_argument(
        "--alluredir",
        type=Path,
        action=DeprecatedOption,
        command="schema-diff",
        new="--out DIR (which writes DIR/allure-results)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    first, last = require_range(args)
    with install_failures_end_command(FAILED):
        old, new = install(first), install(last)  # `latest` becomes a version here
        old_dir, new_dir = ensure_schema(old), ensure_schema(new)
    diff = diff_schemas(
        load_shapes(old_dir), load_shapes(new_dir), old_version=old.version, new_version=new.version
    )
    if args.json:
        print(json.dumps(diff.to_json(), indent=2))
    else:
        print(render_text(diff), end="")
    results = args.out / "allure-results" if args.out else getattr(args, "alluredir", None)
    if results is not None:
        written = write_schema_results(diff, results)
        print(f"allure results: {len(written)} in {results}", file=sys.stderr)
    return 0
