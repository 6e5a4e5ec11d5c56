"""`codex-probe watch`: which known upstream codex bugs each release has.

Probes the findings the watch list reads (codex_probe/probes/domain/watch.py) on each real release,
prints each watched issue's state per release (present, absent, or broken with the
reason), names where a state changed between the releases given, and writes a
reproduction bundle of each present bug, ready to attach to its upstream thread.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import add_codex_versions_option, add_jobs_option
from codex_probe.cli.commands.output import output_problem
from codex_probe.cli.commands.run_folders import REPORTS
from codex_probe.harness.codex import npm
from codex_probe.harness.codex.install import install
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION, is_release, version_key
from codex_probe.harness.files import write_json
from codex_probe.harness.interrupts import run_interruptible
from codex_probe.probes.domain.findings import Finding
from codex_probe.probes.domain.verdict_file import VerdictFileError, load_verdict
from codex_probe.probes.domain.watch import (
    WATCH_FINDINGS,
    WATCHED,
    IssueState,
    State,
    StateChange,
    issue_states,
    state_changes,
)
from codex_probe.probes.releases.repro.bundle import REPRO_FOLDER
from codex_probe.probes.runner.events import Event, FindingBundled, FindingJudged, Writer, Writers
from codex_probe.probes.runner.plan import RunPlan
from codex_probe.probes.runner.release_run import run_release
from codex_probe.probes.runner.selection import Selection
from codex_probe.reporting.writers.bundles import BundleWriter

USAGE = 2
# A watched issue no finding could decide (the gate's and probe's code for no verdict).
UNDECIDED = 3
WATCH_FOLDER = REPORTS / "watch"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "watch",
        help="say which watched upstream codex bugs each release has",
        description="Probe the findings the watch list reads on each --codex release (the "
        "real codex-cli) and print each watched upstream issue's state per release: present, "
        "absent, or broken with the reason (a finding that could not decide it); name each "
        "issue whose state changed between the releases, and write a reproduction bundle of "
        "each present bug under --out/repro/. Exit 0: every state decided; 2: usage; 3: some "
        "issue undecided.",
    )
    add_codex_versions_option(parser)
    parser.add_argument(
        "--previous",
        action="store_true",
        help="also the release published just before the oldest --codex, so that a change "
        "since then is named",
    )
    parser.add_argument(
        "--verdict",
        type=Path,
        metavar="FILE",
        help="a probe run's verdict.json: a release it holds every needed finding of is read "
        "from it rather than probed again",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        default=WATCH_FOLDER,
        help=f"output folder: watch.json and repro/ (default {WATCH_FOLDER})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_jobs_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if problem := output_problem(args.out, "watch.json"):
        return _usage(problem)
    read: dict[str, dict[str, Finding]] = {}
    if args.verdict is not None:
        try:
            read = load_verdict(args.verdict).findings
        except VerdictFileError as error:
            return _usage(str(error))
    with install_failures_end_command(USAGE):
        asked = dict.fromkeys(args.codex or [DEFAULT_CODEX_VERSION])
        versions = [install(version).version for version in asked]
        if args.previous:
            versions = [*_previous(versions), *versions]
        binaries = {version: install(version).binary for version in versions}
    watch = Watch(args.out, binaries)
    for version in versions:
        held = read.get(version, {})
        if all(finding in held for finding in WATCH_FINDINGS):
            watch.entries[version] = {f: held[f].to_json() for f in WATCH_FINDINGS}
            watch.sources[version] = f"read from {args.verdict}"
        else:
            run_interruptible(functools.partial(watch.probe, version, args.jobs))
    states = {version: issue_states(watch.entries[version]) for version in versions}
    changes = state_changes([(version, states[version]) for version in versions])
    document = _document(versions, states, changes, watch)
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(args.out / "watch.json", document)
    if args.json:
        print(json.dumps(document, indent=1))
    else:
        print("\n".join(_lines(versions, states, changes, watch)))
    undecided = any(s.state is State.BROKEN for by in states.values() for s in by.values())
    return UNDECIDED if undecided else 0


class Watch(Writer):
    """The findings of each release the watch list reads, and the bundles of present bugs:
    the watch's writer, after the bundle writer."""

    def __init__(self, out: Path, binaries: Mapping[str, Path]) -> None:
        self.out = out
        self.binaries = binaries
        self.entries: dict[str, dict[str, dict[str, Any]]] = {}
        self.sources: dict[str, str] = {}
        # version -> issue -> the bundle folders (relative to `out`) that show it present
        self.bundles: dict[str, dict[str, list[str]]] = {}

    async def probe(self, version: str, jobs: int) -> None:
        print(f"codex-cli {version}: probing {len(WATCH_FINDINGS)} finding(s)", file=sys.stderr)
        selection = Selection.of(WATCH_FINDINGS, fidelity=False)
        writers = Writers([BundleWriter(self.out), self])
        await run_release(RunPlan(version, selection, jobs=jobs), writers)
        writers.finish(complete=True)
        self.sources[version] = "probed"

    def handle(self, event: Event) -> Sequence[Event]:
        if isinstance(event, FindingJudged | FindingBundled):
            finding = event.finding
            self.entries.setdefault(finding.version, {})[finding.id] = finding.to_json()
        if isinstance(event, FindingBundled) and event.finding.repro is not None:
            finding, path = event.finding, event.finding.repro.path
            for entry in finding.upstream:
                if entry["state"] == State.PRESENT.value and path is not None:
                    by_issue = self.bundles.setdefault(finding.version, {})
                    by_issue.setdefault(entry["issue"], []).append(path)
        return ()


def _previous(versions: list[str]) -> list[str]:
    """The plain release published just before the oldest of `versions` (none if none)."""
    oldest = min(versions, key=version_key)
    earlier = [
        v
        for v in npm.published_versions()
        if is_release(v) and version_key(v) < version_key(oldest)
    ]
    return [max(earlier, key=version_key)] if earlier else []


def _document(
    versions: list[str],
    states: dict[str, dict[str, IssueState]],
    changes: list[StateChange],
    watch: Watch,
) -> dict[str, Any]:
    return {
        "versions": versions,
        "sources": watch.sources,
        "issues": [
            {
                "issue": watched.issue,
                "url": watched.url,
                "title": watched.title,
                "present_means": watched.present_means,
                "findings": list(watched.findings),
                "states": {
                    version: {
                        **states[version][watched.issue].to_json(),
                        "bundles": watch.bundles.get(version, {}).get(watched.issue, []),
                    }
                    for version in versions
                },
            }
            for watched in WATCHED
        ],
        "changes": [change.to_json() for change in changes],
    }


def _lines(
    versions: list[str],
    states: dict[str, dict[str, IssueState]],
    changes: list[StateChange],
    watch: Watch,
) -> list[str]:
    title = "watched upstream issue"
    width = max(len(title), *(len(watched.issue) for watched in WATCHED))
    header = title.ljust(width) + "".join(f"  {v:<9}" for v in versions)
    lines = [header, "-" * len(header)]
    for watched in WATCHED:
        row = watched.issue.ljust(width)
        row += "".join(f"  {states[v][watched.issue].state.value:<9}" for v in versions)
        lines.append(row)
    lines.append("")
    for watched in WATCHED:
        lines.append(f"{watched.issue} {watched.title}")
        lines.append(f"  {watched.url}")
        lines.append(f"  present means: {watched.present_means}")
        for version in versions:
            state = states[version][watched.issue]
            bundles = watch.bundles.get(version, {}).get(watched.issue, [])
            lines.append(f"  {version} {state.state.value}: {state.why}")
            lines += [f"    bundle: {watch.out / bundle}" for bundle in bundles]
    lines.append("")
    if len(versions) > 1:
        span = f"{versions[0]} and {versions[-1]}"
        if changes:
            lines.append(f"changed between {span}:")
            lines += [f"  {change.describe()}" for change in changes]
        else:
            lines.append(f"no watched issue changed state between {span}")
    runs = [
        f"python3 {watch.out / path}/reproduce.py --codex {watch.binaries[version]}"
        for version, by_issue in watch.bundles.items()
        for path in dict.fromkeys(path for paths in by_issue.values() for path in paths)
    ]
    if runs:
        lines.append(f"bundles of the present bugs (under {watch.out / REPRO_FOLDER}):")
        lines += [f"  {line}" for line in runs]
    return lines


def _usage(problem: str) -> int:
    print(f"codex-probe watch: {problem}", file=sys.stderr)
    return USAGE
