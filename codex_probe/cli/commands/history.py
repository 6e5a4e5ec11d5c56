"""`codex-probe history`: every release of a range probed, as history.json and a grid."""

from __future__ import annotations

import argparse
import functools
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.options import (
    add_jobs_option,
    add_json_option,
    add_keep_installs_option,
    add_range_options,
    positive_int,
)
from codex_probe.cli.commands.output import output_problem
from codex_probe.cli.commands.run_folders import HISTORY
from codex_probe.harness.codex.install import UnknownVersionError
from codex_probe.harness.codex.npm import NpmError
from codex_probe.harness.codex.versions import SPEC_CODEX_VERSION, version_key
from codex_probe.harness.interrupts import Interrupted, interruptible
from codex_probe.probes.domain.surface.diff import diff_command
from codex_probe.probes.releases.change_points import ChangePoint
from codex_probe.probes.releases.grid import change_points, describe
from codex_probe.probes.releases.history import (
    HISTORY_FILE,
    HistoryError,
    HistoryInUse,
    Shard,
    ask,
    broken_findings,
    copy_release_folders,
    load_history,
    merge_histories,
    new_history,
    save_history,
    unavailable_releases,
    writing_history,
)
from codex_probe.probes.releases.history_changes import records_watch
from codex_probe.probes.releases.span import RangeError, published_range
from codex_probe.probes.releases.sweep import (
    DEFAULT_AT_ONCE,
    GRID_HTML,
    sweep,
    to_probe,
    write_grid,
)
from codex_probe.reporting.writers.history import release_writers
from codex_probe.rig.launchers import launcher_problem

# Exit codes: 0 every release recorded, no finding broken; 2 usage; 3 a finding is broken;
# 130 interrupted (what finished is kept: run it again to resume).
USAGE, BROKEN = 2, 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "history",
        help="probe every release of a range: history.json and a release x finding grid",
        description="Probe every published codex-cli release from --from to --to (each with "
        "its fake on a checked-in or learned profile) and write OUT/history.json (release x "
        "finding -> verdict and observed values, each release's surface by digest, every "
        "change point of a verdict, an observed value, a surface key or a watched upstream "
        "issue's state: fixed in X, back in X), OUT/history.html "
        "and OUT/history.svg (the grid, change points marked) and "
        "OUT/releases/VERSION/verdict.json and surface.json. A re-run skips releases already "
        "recorded by the same tool. `history merge` joins shards.",
    )
    add_range_options(
        parser,
        first=f"the first release of the range (default {SPEC_CODEX_VERSION})",
        last="the last release of the range (default latest)",
        first_default=SPEC_CODEX_VERSION,
        last_default="latest",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=HISTORY,
        metavar="DIR",
        help=f"the history folder: history.json, the grid, releases/ (default {HISTORY})",
    )
    add_json_option(parser, "what is recorded, what is missing and every change point")
    add_jobs_option(parser)
    parser.add_argument(
        "--shard",
        type=_shard,
        metavar="K/N",
        help="probe only every N-th release from the K-th (one CI job per shard)",
    )
    add_keep_installs_option(parser)
    parser.add_argument(
        "--at-once",
        type=positive_int,
        default=DEFAULT_AT_ONCE,
        metavar="N",
        help="releases whose scenarios run at once, each with --jobs scenarios; a release "
        "starts once the one before it has run its scenarios on the real codex-cli, while "
        f"that one's fake and exploration end (default {DEFAULT_AT_ONCE})",
    )
    parser.add_argument(
        "--fresh", action="store_true", help="probe every release again, even if recorded"
    )
    parser.set_defaults(handler=run)
    actions = parser.add_subparsers(dest="history_action", metavar="merge")
    merge = actions.add_parser(
        "merge",
        help="join the history.json of several shards into one, with its grid",
        description="Join history.json files (the shards of a range) into OUT/history.json, "
        "copy each release's folder (releases/VERSION/ beside the history that recorded it) "
        "and draw the grid. A release recorded twice keeps the later run.",
    )
    merge.add_argument(
        "inputs",
        nargs="+",
        type=Path,
        metavar="HISTORY_JSON",
        help="the history.json of each shard (its releases/ folder beside it)",
    )
    merge.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="the merged history's folder"
    )
    add_json_option(merge, "what is recorded, what is missing and every change point")
    merge.set_defaults(handler=run_merge)


def _shard(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _usable_out(out: Path) -> str | None:
    return output_problem(out, "history.json", "history.html", "history.svg")


def run(args: argparse.Namespace) -> int:
    if problem := _usable_out(args.out):
        print(f"codex-probe history: {problem}", file=sys.stderr)
        return USAGE
    try:
        with writing_history(args.out):  # from reading history.json to its last write
            return _record(args)
    except HistoryInUse as error:
        print(f"codex-probe history: {error}", file=sys.stderr)
        return USAGE


def _record(args: argparse.Namespace) -> int:
    if problem := launcher_problem():  # every release is compared with the fake
        print(f"codex-probe history: {problem}", file=sys.stderr)
        return USAGE
    try:
        releases = published_range(args.first, args.last)
    except (UnknownVersionError, NpmError, RangeError) as error:
        print(f"codex-probe history: {error}", file=sys.stderr)
        return USAGE
    if args.shard is not None:
        releases = args.shard.take(releases)
    path = args.out / HISTORY_FILE
    try:
        document = (
            load_history(path) if path.is_file() and not args.fresh else new_history(args.shard)
        )
    except HistoryError as error:
        print(f"codex-probe history: {error} (use --fresh to start over)", file=sys.stderr)
        return USAGE
    ask(document, releases[0], releases[-1], releases)
    todo = releases if args.fresh else to_probe(releases, document)
    skipped = len(releases) - len(todo)
    shard = f" (shard {args.shard})" if args.shard else ""
    progress = sys.stderr if args.json else sys.stdout
    print(
        f"history of {len(releases)} releases{shard} from {releases[0]} to {releases[-1]}: "
        f"{len(todo)} to probe" + (f", {skipped} already recorded by this tool" if skipped else ""),
        flush=True,
        file=progress,
    )
    try:
        with interruptible():
            sweep(
                todo,
                args.out,
                document,
                jobs=args.jobs,
                keep_installs=args.keep_installs,
                writers_for=functools.partial(release_writers, args.out),
                say=lambda line: print(line, flush=True, file=progress),
                at_once=args.at_once,
            )
    except OSError as error:
        # --out filled up (or went read-only) mid-run: history.json is written whole or
        # not at all, so it holds every release recorded before; the run cannot go on.
        print(
            f"codex-probe history: cannot write {_why(error, args.out)}; "
            f"{len(document['releases'])} release(s) are recorded "
            f"in {path}; free the space and run the same command again to resume",
            file=sys.stderr,
        )
        return BROKEN
    except Interrupted as interrupted:
        save_history(path, document)  # says what it lacks: complete false, missing
        write_grid(args.out, document)
        print(
            f"codex-probe history: interrupted ({interrupted}); {len(document['releases'])} "
            f"release(s) are recorded in {path}, {len(document['missing'])} missing; run the "
            "same command again to resume",
            file=sys.stderr,
        )
        return interrupted.exit_code
    if not todo:
        save_history(path, document)
        write_grid(args.out, document)
    recorded = [r for r in releases if r in document["releases"]]
    return _summarize(args.out, document, recorded, as_json=args.json)


def _summarize(out: Path, document: dict[str, Any], wanted: list[str], *, as_json: bool) -> int:
    missing = [r for r in wanted if r not in document["releases"]]
    points = change_points(document)
    if as_json:
        broken = broken_findings(document)
        print(
            json.dumps(
                {
                    "history": str(out / HISTORY_FILE),
                    "grid": str(out / GRID_HTML),
                    "releases": list(document["releases"]),
                    "missing": missing,
                    "not_installable": unavailable_releases(document),
                    "broken": broken,
                    "change_points": [point.to_json() for point in points],
                },
                indent=2,
            )
        )
        return BROKEN if broken or missing else 0
    findings = [p for p in points if p.kind not in ("surface", "watch")]
    surface = [p for p in points if p.kind == "surface"]
    watched = [p for p in points if p.kind == "watch"]
    print(f"history: {out / HISTORY_FILE}; grid: {out / GRID_HTML}")
    print(f"change points of findings ({len(findings)}):")
    for point in findings:
        print(f"  {describe(point)}")
    if watched or records_watch(document):
        print(f"change points of watched upstream issues ({len(watched)}):")
        for point in watched:
            print(f"  {describe(point)}")
    print(f"change points of the surface ({len(surface)}; each listed in history.json):")
    for (first, last), aspects in _surface_by_release(surface).items():
        counted = ", ".join(f"{n} {aspect}" for aspect, n in aspects.items())
        print(f"  {first} (last same: {last}): {counted}; {diff_command(last, first, str(out))}")
    for version, reason in unavailable_releases(document).items():
        print(f"  {version}: not installable, nothing to probe ({reason[:200]})")
    broken = broken_findings(document)
    if broken:
        shown = ", ".join(broken[:10]) + (" ..." if len(broken) > 10 else "")
        print(f"codex-probe history: {len(broken)} finding(s) are broken: {shown}", file=sys.stderr)
    if missing:
        print(f"codex-probe history: not recorded: {', '.join(missing)}", file=sys.stderr)
    return BROKEN if broken or missing else 0


def _why(error: OSError, out: Path) -> str:
    """`FILE: reason` of a failed write; of a copied folder (shutil.Error), its first file."""
    if isinstance(error, shutil.Error) and error.args and isinstance(error.args[0], list):
        _, target, reason = error.args[0][0]
        return f"{target}: {reason}"
    return f"{error.filename or out}: {error.strerror or error}"


def run_merge(args: argparse.Namespace) -> int:
    if problem := _usable_out(args.out):
        print(f"codex-probe history merge: {problem}", file=sys.stderr)
        return USAGE
    try:
        documents = [(path, load_history(path)) for path in args.inputs]
        merged = merge_histories(documents)
        with writing_history(args.out):
            # The release folders first: the surface change points are read from their
            # surface.json.
            copy_release_folders(documents, merged, args.out)
            save_history(args.out / HISTORY_FILE, merged)
            write_grid(args.out, merged)
    except HistoryError as error:
        print(f"codex-probe history merge: {error}", file=sys.stderr)
        return USAGE
    except OSError as error:  # --out filled up: history.json is written whole or not at all
        print(f"codex-probe history merge: cannot write {_why(error, args.out)}", file=sys.stderr)
        return BROKEN
    print(
        f"merged {len(args.inputs)} histories: {len(merged['releases'])} releases",
        file=sys.stderr if args.json else sys.stdout,
    )
    return _summarize(args.out, merged, list(merged["releases"]), as_json=args.json)


def _surface_by_release(points: list[ChangePoint]) -> dict[tuple[str, str], dict[str, int]]:
    """(first changed, last same) -> aspect -> how many of its keys changed there."""
    found: dict[tuple[str, str], dict[str, int]] = {}
    for point in sorted(points, key=lambda p: version_key(p.first_changed)):
        aspects = found.setdefault((point.first_changed, point.last_same), {})
        aspect = point.key.split(" ", 1)[0]
        aspects[aspect] = aspects.get(aspect, 0) + 1
    return found
