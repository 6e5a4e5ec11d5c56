"""`codex-probe gate`: one exit code that says whether a codex-cli version may ship.

0 every required assumption holds; 1 a required one changed upstream (with --strict, any
one), or a baseline entry is stale; 2 usage error; 3 a probe could not give a verdict.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.run_folders import run_folder
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.verdict_file import VerdictFileError, VerdictReport, load_verdicts
from codex_probe.reporting.baseline import AcceptedChanges, load_accepted_changes
from codex_probe.reporting.gate import NO_VERDICT, USAGE, evaluate
from codex_probe.reporting.probe_run import (
    PROBE_TIMEOUT,
    ProbeRunTimeout,
    probe_command,
    run_probes,
)
from codex_probe.rig.baseline import BaselineError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "gate",
        help="exit 0/1/3 on whether the design's assumptions hold on codex-cli versions",
        description="Judge the findings of --verdict for each --codex version: exit 0 when "
        "every required assumption holds, 1 when a required one changed upstream (with "
        "--strict: any one) or a baseline entry is stale, 2 on a usage error, 3 when a probe "
        "could not give a verdict. A version the verdict file lacks is probed first "
        "(`codex-probe probe`, into the verdict file's folder) unless --no-run.",
    )
    parser.add_argument(
        "--codex",
        action="append",
        default=[],
        metavar="VERSION",
        help="version to judge (repeatable; default: the versions of --verdict, else "
        f"{DEFAULT_CODEX_VERSION})",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="TOML file of accepted changes ([[expected]] codex, id, reason, verdict)",
    )
    parser.add_argument(
        "--strict", action="store_true", help="informative assumptions count as required"
    )
    parser.add_argument(
        "--verdict",
        type=Path,
        metavar="FILE",
        help="the probes' verdict.json (default: the run folder of the --codex versions, "
        f"reports/VERSION/verdict.json or reports/V1+V2/verdict.json; "
        f"reports/{DEFAULT_CODEX_VERSION}/verdict.json without --codex)",
    )
    parser.add_argument(
        "--no-run", action="store_true", help="never run the probes; judge what the file holds"
    )
    parser.add_argument(
        "--probe-timeout",
        type=float,
        default=PROBE_TIMEOUT,
        metavar="SECONDS",
        help=f"deadline of a probe run the gate starts (default {PROBE_TIMEOUT:.0f})",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        baseline = load_accepted_changes(args.baseline) if args.baseline else AcceptedChanges()
        verdict: Path = args.verdict or run_folder(args.codex) / "verdict.json"
        report = load_verdicts(verdict) if verdict.exists() else None
    except (BaselineError, VerdictFileError) as error:
        return _usage_error(str(error))
    versions: list[str] = list(dict.fromkeys(args.codex)) or (
        report.versions if report else [DEFAULT_CODEX_VERSION]
    )
    missing = [v for v in versions if report is None or v not in report.findings]
    if missing and not args.no_run:
        if verdict.name != "verdict.json":
            return _usage_error(
                f"codex {', '.join(missing)} must be probed, and the probes write verdict.json, "
                f"not {verdict.name}; name a verdict.json, or give --no-run"
            )
        # One run for every judged version: the verdict and the report then describe it.
        print(
            f"gate: no verdict for codex {', '.join(missing)}; probing {', '.join(versions)} "
            f"into {verdict.parent}",
            flush=True,
        )
        outcome = _probe(versions, verdict, args.probe_timeout)
        if isinstance(outcome, int):
            return outcome
        report = outcome
    if report is None:
        report = VerdictReport()
    result = evaluate(
        report,
        versions,
        baseline=baseline,
        strict=args.strict,
        required_ids={a.id for a in ASSUMPTIONS if a.required},
    )
    for line in result.lines():
        print(line)
    return result.exit_code


def _probe(versions: list[str], verdict: Path, timeout: float) -> VerdictReport | int:
    """The verdict after a probe run, or the gate's exit code when there is none to read."""
    command = probe_command(versions, verdict.parent)
    try:
        status = run_probes(command, timeout=timeout)
    except ProbeRunTimeout as error:
        print(f"gate: {error}", file=sys.stderr)
        print(f"gate: exit {NO_VERDICT}: a probe could not give a verdict")
        return NO_VERDICT
    if status == USAGE:
        return _usage_error(f"`{' '.join(command)}` refused its arguments (exit {status})")
    try:
        return load_verdicts(verdict)
    except VerdictFileError as error:
        print(
            f"gate: the probe run (exit {status}) left no readable verdict: {error}",
            file=sys.stderr,
        )
        print(f"gate: exit {NO_VERDICT}: a probe could not give a verdict")
        return NO_VERDICT


def _usage_error(message: str) -> int:
    print(f"codex-probe gate: {message}", file=sys.stderr)
    print(f"gate: exit {USAGE}: usage error")
    return USAGE
