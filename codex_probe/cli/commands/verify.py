"""`codex-probe verify CONTRACT --codex V`: does a client's recorded contract hold on V?"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import (
    add_codex_option,
    add_json_option,
    add_severity_levels_option,
    severity,
)
from codex_probe.harness.codex.install import install
from codex_probe.harness.command_line import USAGE_ERROR
from codex_probe.probes.contracts.contract import ContractError, load_contract
from codex_probe.probes.contracts.verify import UNKNOWN, verify_contract
from codex_probe.probes.domain.surface.rules import (
    DEFAULT_LEVELS,
    LevelsError,
    Severity,
    read_levels,
)
from codex_probe.reporting.contract_text import render_verification


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="replay a client's contract on a codex-cli release: compatible or breaking",
        description="Check a contract (`codex-probe record`) against release V's schema and "
        "replay it on the real V (ids and thread ids mapped), and report per interaction, "
        "with rule ids (`codex-probe rules`): still accepted; every field the client "
        "received still there with a compatible type; every enum value it sent still "
        "valid; every notification it waited for still sent. Exit 0: compatible; 1: "
        "breaking (a rule of --fail-on's severity or above); 2: usage, or a file that is "
        "not a contract this codex-probe reads; 3: could not tell (codex could not run "
        "the replay).",
    )
    parser.add_argument(
        "contract",
        type=Path,
        metavar="CONTRACT",
        help="a contract file, as `codex-probe record` writes it",
    )
    add_codex_option(parser, "the release to verify on")
    add_json_option(parser, "the verdict and each interaction's findings")
    parser.add_argument(
        "--fail-on",
        type=severity,
        default=Severity.ERR,
        metavar="ERR|WARN|INFO",
        help="what counts as breaking (default ERR)",
    )
    add_severity_levels_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        levels = read_levels(args.severity_levels) if args.severity_levels else DEFAULT_LEVELS
        contract = load_contract(args.contract)
    except (LevelsError, ContractError) as error:
        print(f"codex-probe verify: {error}", file=sys.stderr)
        return USAGE_ERROR
    with install_failures_end_command(UNKNOWN, unknown_version_exit_code=USAGE_ERROR):
        installation = install(args.codex)
    verification = asyncio.run(verify_contract(contract, installation, levels=levels))
    if args.json:
        print(json.dumps(verification.to_json(args.fail_on), indent=2))
    else:
        print("\n".join(render_verification(verification, str(args.contract), args.fail_on)))
    return verification.exit_code(args.fail_on)
