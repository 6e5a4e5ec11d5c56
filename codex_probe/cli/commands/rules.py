"""`codex-probe rules`: the breaking-change rules every surface change is classified by."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from codex_probe.cli.commands.options import add_json_option, add_severity_levels_option
from codex_probe.harness.command_line import USAGE_ERROR
from codex_probe.probes.domain.surface.rules import (
    DEFAULT_LEVELS,
    RULES,
    LevelsError,
    read_levels,
)

DIRECTIONS = {
    "sends": "what a client sends",
    "receives": "what a client receives",
    "model": "what codex asks the model",
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules",
        help="the breaking-change rules: id, severity, direction, why",
        description="List the rules `codex-probe diff`, history, the gate, the site and "
        "`codex-probe verify` classify each protocol change by: its id, its severity (ERR "
        "breaks a client, WARN may, INFO is additive or invisible), the direction it breaks "
        "(what a client sends, what it receives) and why. With --severity-levels, the "
        "severities a project's file gives. Exit 0; 2: an unreadable levels file.",
    )
    add_json_option(parser, "the rules (a list, one entry per rule)")
    add_severity_levels_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        levels = read_levels(args.severity_levels) if args.severity_levels else DEFAULT_LEVELS
    except LevelsError as error:
        print(f"codex-probe rules: {error}", file=sys.stderr)
        return USAGE_ERROR
    entries = [{**rule.to_json(), "severity": levels.of(rule.id).name} for rule in RULES]
    if args.json:
        print(json.dumps(entries, indent=2))
        return 0
    width = max(len(rule.id) for rule in RULES)
    for entry in entries:
        changed = "*" if entry["severity"] != DEFAULT_LEVELS.of(entry["id"]).name else " "
        print(
            f"{entry['id']:{width}}  {entry['severity']:4}{changed} "
            f"{DIRECTIONS[entry['direction']]:25}  {entry['reason']}"
        )
    if levels.overrides:
        print(f"* set by {args.severity_levels}")
    return 0
