"""`codex-probe diff --from A --to B`: every difference between the protocol surfaces of two
releases (read from a history or a surface.json where one records them, else probed), each
with the breaking-change rule it meets and its severity (`codex-probe rules`)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import CommandFailed, install_failures_end_command
from codex_probe.cli.commands.options import (
    DeprecatedPositional,
    add_jobs_option,
    add_range_options,
    add_severity_levels_option,
    require_range,
    severity,
)
from codex_probe.cli.commands.output import output_problem
from codex_probe.harness.codex.install import install, resolve_version
from codex_probe.probes.domain.surface.diff import diff_surfaces
from codex_probe.probes.domain.surface.file import (
    SurfaceFileError,
    load_surfaces,
    write_surfaces,
)
from codex_probe.probes.domain.surface.release import ASPECTS, Surface
from codex_probe.probes.domain.surface.rules import (
    DEFAULT_LEVELS,
    LevelsError,
    Severity,
    read_levels,
)
from codex_probe.probes.releases.history import surface_path
from codex_probe.probes.runner.plan import RunPlan
from codex_probe.probes.runner.release_run import run_release
from codex_probe.probes.runner.selection import Selection
from codex_probe.reporting.surface_formats import (
    FORMATS,
    diff_document,
    render_github,
    render_markdown,
)
from codex_probe.reporting.surface_text import render_changes

# Exit codes: 0 no change of --fail-on's severity or above; 1 such changes; 2 usage; 3 a
# release could not be probed (whole).
SAME, DIFFERENT, USAGE, NOT_PROBED = 0, 1, 2, 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diff",
        help="every protocol surface difference between two codex-cli releases",
        description="Compare releases --from and --to (a release a --history folder or a "
        "--surfaces file records is read from it; any other is probed: every scenario on the "
        "real codex-cli, and --from and --to may be the same release, probed twice) and "
        "print every difference of their protocol surfaces (initialize, notifications, "
        "answer shapes, refusals, model requests, the whole schema), each with the rule it "
        "meets and its severity (ERR, WARN, INFO: `codex-probe rules`), what breaks a client "
        "first; ERR changes are listed in full. Exit 0: no change of --fail-on's severity or "
        "above; 1: such changes; 2: usage; 3: a release could not be probed (whole).",
    )
    add_range_options(
        parser,
        first="the release to compare from (or latest)",
        last="the release to compare to (or latest)",
    )
    parser.add_argument(
        "old_releases",
        action=DeprecatedPositional,
        command="diff",
        old="A B (positional)",
        new="--from A --to B",
        dests=("first", "last"),
    )
    parser.add_argument(
        "--history",
        type=Path,
        metavar="DIR",
        help="a history folder (codex-probe history): a release it recorded is read from its "
        "releases/VERSION/surface.json instead of probed",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text (default); json: one object, every change with its rules; markdown: a "
        "job summary; github: annotations (and the summary appended to $GITHUB_STEP_SUMMARY)",
    )
    parser.add_argument("--json", action="store_true", help="the same as --format json")
    parser.add_argument(
        "--fail-on",
        type=severity,
        default=Severity.INFO,
        metavar="ERR|WARN|INFO",
        help="exit 1 on a change of this severity or above (default INFO: any change)",
    )
    add_severity_levels_option(parser)
    parser.add_argument(
        "--aspect",
        action="append",
        default=[],
        choices=ASPECTS,
        help="only the changes of this aspect (repeatable; default every aspect)",
    )
    parser.add_argument(
        "--surfaces",
        type=Path,
        metavar="FILE",
        help="a surface.json (as `codex-probe probe` writes): a release it held when the "
        "command began is read from it instead of probed, and a release probed is added to it",
    )
    add_jobs_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    form = "json" if args.json else args.format
    try:
        levels = read_levels(args.severity_levels) if args.severity_levels else DEFAULT_LEVELS
    except LevelsError as error:
        return _usage(str(error))
    first, last = require_range(args)
    stored: dict[str, Surface] = {}
    if args.surfaces is not None:
        if problem := output_problem(args.surfaces.parent, args.surfaces.name):
            return _usage(problem)
        try:
            stored = load_surfaces(args.surfaces) if args.surfaces.exists() else {}
        except SurfaceFileError as error:
            return _usage(str(error))
    progress = sys.stdout if form == "text" else sys.stderr
    surfaces: list[Surface | None] = []
    recorded = dict(stored)  # what the file held before: a release probed now is probed twice
    for version in (first, last):
        if version in recorded:
            print(f"codex-cli {version}: surface read from {args.surfaces}", file=progress)
            surfaces.append(recorded[version])
            continue
        if args.history is not None and (found := _from_history(args.history, version)):
            file, kept = found
            print(f"codex-cli {kept.version}: surface read from {file}", file=progress)
            surfaces.append(kept)
            continue
        with install_failures_end_command(NOT_PROBED, unknown_version_exit_code=USAGE):
            concrete = install(version).version
        started = time.monotonic()
        surface = asyncio.run(_probe(concrete, args.jobs))
        took = time.monotonic() - started
        said = "no surface" if surface is None else surface.digest()
        print(f"codex-cli {concrete}: surface {said} in {took:.1f} s", file=progress)
        surfaces.append(surface)
        if surface is not None and args.surfaces is not None:
            stored[concrete] = surface
            write_surfaces(args.surfaces, stored)
    before, after = surfaces
    if before is None or after is None:
        print("codex-probe diff: a release could not be probed", file=sys.stderr)
        return NOT_PROBED
    changes = diff_surfaces(before, after, levels)
    if args.aspect:
        changes = [change for change in changes if change.aspect in args.aspect]
    a, b = before.version, after.version
    if form == "json":
        document = diff_document(a, b, changes, fail_on=args.fail_on, aspects=args.aspect)
        print(json.dumps(document, indent=2))
    elif form == "markdown":
        print("\n".join(render_markdown(a, b, changes)))
    elif form == "github":
        print("\n".join(render_github(a, b, changes)))
        _append_job_summary(render_markdown(a, b, changes))
    else:
        print("\n".join(render_changes(a, b, changes)))
    gaps = [f"{s.version}: {', '.join(s.missing)}" for s in (before, after) if s.missing]
    if gaps:
        print(f"codex-probe diff: not compared, as not read: {'; '.join(gaps)}", file=sys.stderr)
        return NOT_PROBED
    return DIFFERENT if any(change.severity >= args.fail_on for change in changes) else SAME


def _append_job_summary(lines: list[str]) -> None:
    """GitHub Actions shows what a step appends to $GITHUB_STEP_SUMMARY on the run's page."""
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if not summary:
        return
    try:
        with open(summary, "a", encoding="utf-8") as file:
            file.write("\n".join(lines) + "\n")
    except OSError as error:
        print(f"codex-probe diff: job summary not written: {summary}: {error}", file=sys.stderr)


async def _probe(version: str, jobs: int) -> Surface | None:
    release = await run_release(RunPlan(version, Selection.surface_only(), jobs=jobs))
    return release.surface


def _from_history(history: Path, version: str) -> tuple[Path, Surface] | None:
    """The release's surface as the history recorded it, and its file (None: not recorded)."""
    with install_failures_end_command(NOT_PROBED, unknown_version_exit_code=USAGE):
        concrete = resolve_version(version)  # `latest` names a release only the registry knows
    file = history / surface_path(concrete)
    if not file.is_file():
        return None
    try:
        surface = load_surfaces(file).get(concrete)
    except SurfaceFileError as error:
        raise CommandFailed(str(error), USAGE) from None
    return None if surface is None else (file, surface)


def _usage(problem: str) -> int:
    print(f"codex-probe diff: {problem}", file=sys.stderr)
    return USAGE
