"""`codex-probe record --codex V --out CONTRACT -- CMD [ARGS]`: a client's contract."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import add_codex_option, add_json_option
from codex_probe.cli.commands.output import output_problem
from codex_probe.harness.codex.install import install
from codex_probe.harness.command_line import USAGE_ERROR
from codex_probe.probes.contracts.contract import write_contract
from codex_probe.probes.contracts.record import (
    CLIENT_TIMEOUT,
    CODEX_VARIABLE,
    RecordError,
    record_client,
)

NOT_RECORDED = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "record",
        help="run a client against a codex-cli release and write its contract",
        description="Run CMD (your app-server client) with a `codex` first on its PATH (its "
        f"path also in ${CODEX_VARIABLE}) that runs the real codex-cli release V, sealed, in "
        "a fresh home of its own with a loopback mock model, and records every message both "
        "ways. Writes the client's contract to CONTRACT (docs/contracts.md): each request "
        "with its params' shape and the enum values it sent, what it received (answer fields "
        "and types, notifications, codex's requests it answered). Exit 0: written; 2: usage; "
        "3: nothing to record (the client could not run, or started no app-server). A "
        "client that exits non-zero is said, and its contract still written.",
    )
    add_codex_option(parser, "the codex-cli release to record on")
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="CONTRACT",
        help="the contract file to write (docs/contracts.md)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=CLIENT_TIMEOUT,
        metavar="SECONDS",
        help=f"the client's deadline (default {CLIENT_TIMEOUT:.0f})",
    )
    add_json_option(parser, "the contract's file, release, counts and the client's exit code")
    parser.add_argument(
        "client",
        nargs=argparse.REMAINDER,
        metavar="-- CMD [ARGS]",
        help="your client's command line, after --",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    command = args.client[1:] if args.client[:1] == ["--"] else args.client
    if not command:
        return _usage("no client command: give it after --, e.g. -- python client.py")
    if problem := output_problem(args.out.parent, args.out.name):
        return _usage(problem)
    with install_failures_end_command(NOT_RECORDED, unknown_version_exit_code=USAGE_ERROR):
        installation = install(args.codex)
    try:
        recording = asyncio.run(record_client(installation, command, timeout=args.timeout))
    except RecordError as error:
        print(f"codex-probe record: {error}", file=sys.stderr)
        return NOT_RECORDED
    write_contract(args.out, recording.contract)
    contract = recording.contract
    count = sum(len(p.interactions) for p in contract.processes)
    print(
        f"recorded {count} interaction(s) in {len(contract.processes)} app-server process(es) "
        f"on codex-cli {contract.recorded_on}: {args.out}",
        file=sys.stderr if args.json else sys.stdout,
    )
    if recording.returncode != 0:
        print(
            f"codex-probe record: the client exited {recording.returncode}; its output "
            f"ends: {recording.output_tail[-600:]}",
            file=sys.stderr,
        )
    if args.json:
        answer = {
            "contract": str(args.out),
            "recorded_on": contract.recorded_on,
            "processes": len(contract.processes),
            "interactions": count,
            "client_exit_code": recording.returncode,
        }
        print(json.dumps(answer, indent=2))
    return 0


def _usage(problem: str) -> int:
    print(f"codex-probe record: {problem}", file=sys.stderr)
    return USAGE_ERROR
