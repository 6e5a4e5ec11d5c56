"""`codex-probe diff --from A --to B`: every difference between the protocol surfaces of two
releases, read from a history or a surface.json where one records them, else probed."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import CommandFailed, install_failures_end_command
from codex_probe.cli.commands.options import (
    DeprecatedPositional,
    add_jobs_option,
    add_json_option,
    add_range_options,
    require_range,
)
from codex_probe.cli.commands.output import output_problem
from codex_probe.harness.codex.install import install, resolve_version
from codex_probe.probes.domain.surface.diff import diff_surfaces
from codex_probe.probes.domain.surface.file import (
    SurfaceFileError,
    load_surfaces,
    write_surfaces,
)
from codex_probe.probes.domain.surface.release import Surface
from codex_probe.probes.releases.history import surface_path
from codex_probe.probes.runner.release_run import probe_release
from codex_probe.probes.runner.selection import Selection
from codex_probe.reporting.surface_text import render_changes

# Exit codes: 0 no difference; 1 differences; 2 usage; 3 a release could not be probed.
SAME, DIFFERENT, USAGE, NOT_PROBED = 0, 1, 2, 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diff",
        help="every protocol surface difference between two codex-cli releases",
        description="Print every difference of the protocol surfaces (initialize, "
        "notifications, answer shapes, refusals, model requests, schema methods) of releases "
        "--from and --to, what the reference driver touches first. A release a --history "
        "folder or a --surfaces file records is read from it; any other is probed (every "
        "scenario on the real codex-cli; --from and --to may be the same release, probed "
        "twice). Exit 0: no difference; 1: differences; 2: usage; 3: a release could not be "
        "probed (whole).",
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
    add_json_option(parser, "every change (aspect, key, before, after, driver_relevant)")
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
    first, last = require_range(args)
    stored: dict[str, Surface] = {}
    if args.surfaces is not None:
        if problem := output_problem(args.surfaces.parent, args.surfaces.name):
            return _usage(problem)
        try:
            stored = load_surfaces(args.surfaces) if args.surfaces.exists() else {}
        except SurfaceFileError as error:
            return _usage(str(error))
    progress = sys.stderr if args.json else sys.stdout
    surfaces: list[Surface | None] = []
    recorded = dict(stored)  # what the file held before: a release probed now is probed twice
    with tempfile.TemporaryDirectory(prefix="codex-probe-diff-") as scratch:
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
            surface = asyncio.run(_probe(concrete, args.jobs, Path(scratch) / concrete))
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
    changes = diff_surfaces(before, after)
    if args.json:
        document = {
            "a": before.version,
            "b": after.version,
            "changes": [change.to_json() for change in changes],
        }
        print(json.dumps(document, indent=2))
    else:
        print("\n".join(render_changes(before.version, after.version, changes)))
    gaps = [f"{s.version}: {', '.join(s.missing)}" for s in (before, after) if s.missing]
    if gaps:
        print(f"codex-probe diff: not compared, as not read: {'; '.join(gaps)}", file=sys.stderr)
        return NOT_PROBED
    return DIFFERENT if changes else SAME


async def _probe(version: str, jobs: int, learned: Path) -> Surface | None:
    release = await probe_release(version, Selection.surface_only(), jobs=jobs, learned_dir=learned)
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
