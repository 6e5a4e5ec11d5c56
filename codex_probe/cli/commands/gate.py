"""`codex-probe gate`: one exit code that says whether a codex-cli version may ship.

0 every required assumption holds; 1 a required one changed upstream (with --strict, any
one; with --surface, also a surface change the driver would feel that the baseline does not
accept; with --surface-fail-on SEVERITY, a surface change of that severity or above), or a
baseline entry is stale; 2 usage error; 3 a probe could not give a verdict.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from codex_probe.cli.commands.options import (
    add_json_option,
    add_severity_levels_option,
    codex_version,
    severity,
)
from codex_probe.cli.commands.run_folders import run_folder
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.surface.diff import diff_surfaces
from codex_probe.probes.domain.surface.file import SURFACE_FILE, SurfaceFileError, load_surfaces
from codex_probe.probes.domain.surface.release import Surface
from codex_probe.probes.domain.surface.rules import (
    DEFAULT_LEVELS,
    Levels,
    LevelsError,
    read_levels,
)
from codex_probe.probes.domain.verdict_file import VerdictFileError, VerdictReport, load_verdict
from codex_probe.reporting.baseline import AcceptedChanges, load_accepted_changes
from codex_probe.reporting.gate import (
    NO_VERDICT,
    USAGE,
    SurfaceComparison,
    evaluate,
    evaluate_surface,
)
from codex_probe.reporting.probe_run import (
    CODEX_PROBE,
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
        "(`codex-probe probe`, into the verdict file's folder) unless --no-run. Each version's "
        "protocol surface (surface.json beside the verdict) is compared with --surface-base's "
        "and the changes reported; with --surface, one the reference driver would feel that "
        "the baseline does not accept fails the gate.",
    )
    parser.add_argument(
        "--codex",
        type=codex_version,
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
        "--surface",
        action="store_true",
        help="gate on the surface too: a change the driver would feel, not in the baseline "
        '(kind = "surface"), fails',
    )
    parser.add_argument(
        "--surface-fail-on",
        type=severity,
        metavar="ERR|WARN|INFO",
        help="gate on the surface by rule: a change of this severity or above (`codex-probe "
        "rules`), whoever feels it, not in the baseline, fails",
    )
    add_severity_levels_option(parser)
    parser.add_argument(
        "--surface-base",
        type=codex_version,
        default=DEFAULT_CODEX_VERSION,
        metavar="VERSION",
        help="the release each version's surface is compared with (default "
        f"{DEFAULT_CODEX_VERSION}); read from surface.json beside the verdict, or from "
        "reports/VERSION/surface.json, else probed into the former unless --no-run",
    )
    add_json_option(parser, "the decision, its exit code and every reason")
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
        levels = read_levels(args.severity_levels) if args.severity_levels else DEFAULT_LEVELS
    except LevelsError as error:
        return _usage_error(str(error))
    try:
        baseline = load_accepted_changes(args.baseline) if args.baseline else AcceptedChanges()
        verdict: Path = args.verdict or run_folder(args.codex) / "verdict.json"
        report = load_verdict(verdict) if verdict.exists() else None
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
            file=_progress(args),
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
    try:
        comparisons = _surface_comparisons(args, versions, verdict.parent / SURFACE_FILE, levels)
    except SurfaceFileError as error:
        return _usage_error(str(error))
    evaluate_surface(
        result, comparisons, baseline=baseline, gate=args.surface, fail_on=args.surface_fail_on
    )
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        for line in result.lines():
            print(line)
    return result.exit_code


def _progress(args: argparse.Namespace) -> TextIO:
    """Where the gate says what it runs: stdout, or stderr when stdout is the JSON answer."""
    return sys.stderr if args.json else sys.stdout


def _surface_comparisons(
    args: argparse.Namespace, versions: list[str], file: Path, levels: Levels
) -> dict[str, SurfaceComparison | None]:
    """Each version's surface against the base's (None for the base itself)."""
    base: str = args.surface_base
    stored = _stored_surfaces(file, base)
    surfaced = [v for v in versions if v != base and v in stored]
    if surfaced and base not in stored and not args.no_run:
        # diff probes the base and adds it to the file, reading the version from it.
        command = [*CODEX_PROBE, "diff", "--from", base, "--to", surfaced[0]]
        command += ["--surfaces", str(file)]
        print(
            f"gate: no surface of codex {base} to compare with; probing it into {file}",
            file=_progress(args),
        )
        try:
            run_probes(command, timeout=args.probe_timeout)
        except ProbeRunTimeout as error:
            print(f"gate: {error}", file=sys.stderr)
        stored = _stored_surfaces(file, base)
    comparisons: dict[str, SurfaceComparison | None] = {}
    for version in versions:
        if version == base:
            comparisons[version] = None
        elif version not in stored:
            problem = (
                f"{file} holds no surface of codex {version} (a probe of every finding writes it)"
            )
            comparisons[version] = SurfaceComparison(base, problem=problem)
        elif base not in stored:
            comparisons[version] = SurfaceComparison(
                base, problem=f"no surface of codex {base} (in {file}, or probed)"
            )
        else:
            comparisons[version] = _compared(stored[base], stored[version], levels)
    return comparisons


def _stored_surfaces(file: Path, base: str) -> dict[str, Surface]:
    stored = load_surfaces(file) if file.exists() else {}
    elsewhere = run_folder([base]) / SURFACE_FILE
    if base not in stored and elsewhere.is_file():
        stored.update({v: s for v, s in load_surfaces(elsewhere).items() if v == base})
    return stored


def _compared(base: Surface, surface: Surface, levels: Levels) -> SurfaceComparison:
    gaps = [f"{s.version}: {', '.join(s.missing)}" for s in (base, surface) if s.missing]
    if gaps:
        return SurfaceComparison(base.version, problem="not read: " + "; ".join(gaps))
    return SurfaceComparison(base.version, tuple(diff_surfaces(base, surface, levels)))


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
        return load_verdict(verdict)
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
