"""`codex-probe learn --codex VERSION`: a fake profile of a real codex-cli release, and its
fidelity."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import msgspec

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import (
    add_codex_option,
    add_jobs_option,
    add_json_option,
    add_old_version_positional,
)
from codex_probe.cli.commands.output import output_problem
from codex_probe.cli.commands.run_folders import LEARNED
from codex_probe.harness.codex.install import install
from codex_probe.harness.interrupts import run_interruptible
from codex_probe.probes.domain.fidelity import normalize
from codex_probe.probes.domain.findings import Verdict
from codex_probe.probes.releases.learn.attribution import explain
from codex_probe.probes.releases.learn.profile import LearnedProfile, learning_into
from codex_probe.probes.runner.plan import RunPlan
from codex_probe.probes.runner.release import ReleaseRun
from codex_probe.probes.runner.release_run import run_release
from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.probes.runner.selection import Selection, fidelity_id

# Exit codes: 0 the fake on the learned profile matches the real release everywhere;
# 1 it does not, or an observation could not be expressed; 2 usage; 3 a scenario broke.
MISMATCH, USAGE, BROKEN = 1, 2, 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "learn",
        help="learn a fake profile from a real codex-cli release",
        description="Run every probe scenario on the real codex-cli VERSION, write a fake "
        "profile and wire templates derived from what it did (every entry with the scenario "
        "and step it came from), then run the same scenarios on the fake with that profile "
        "and print whether it matches. Exit 0: it matches everywhere; 1: it differs somewhere "
        "or an observation cannot be expressed in the profile language; 2: usage; 3: a "
        "scenario broke.",
    )
    add_codex_option(parser, "the release to learn")
    add_old_version_positional(parser, "learn")
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        default=LEARNED,
        help="folder for VERSION.json and wire-VERSION.json (default reports/learned)",
    )
    add_jobs_option(parser)
    add_json_option(parser, "the profile's files, what it could not express and the fidelity")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if problem := output_problem(args.out):
        print(f"codex-probe learn: {problem}", file=sys.stderr)
        return USAGE
    with install_failures_end_command(USAGE):
        version = install(args.codex).version
    # The surface too: the exploration runs beside the scenarios, and the answer book is
    # learned from it.
    selection = Selection(
        assumptions=(), fidelity=tuple(SCENARIOS), compare_with_fake=True, surface=True
    )
    started = time.monotonic()
    release = run_interruptible(
        lambda: run_release(
            RunPlan(
                version,
                selection,
                jobs=args.jobs,
                learning=learning_into(args.out, always=True),
            )
        )
    )
    if release.learned is None:
        problem = release.profile.problem if release.profile else "no profile was learned"
        print(f"codex-probe learn: {problem}", file=sys.stderr)
        return BROKEN
    report = _report(release, time.monotonic() - started)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print(report)
    if report["broken"]:
        return BROKEN
    return MISMATCH if report["gaps"] or report["differences"] else 0


def _report(release: ReleaseRun, seconds: float) -> dict[str, Any]:
    learned, profile = release.learned, release.profile
    assert isinstance(learned, LearnedProfile) and profile is not None and profile.path is not None
    fidelity: dict[str, str] = {}
    differences: list[str] = []
    broken: list[str] = []
    for scenario in SCENARIOS:
        finding = release.findings[fidelity_id(scenario)]
        fidelity[scenario] = finding.verdict.value
        if finding.verdict is Verdict.BROKEN:
            broken.append(f"{scenario}: {'; '.join(finding.evidence)}")
        elif finding.verdict is Verdict.CHANGED and finding.fidelity is not None:
            real = release.subject[scenario].observation
            assert real is not None
            differences += explain(scenario, normalize(real), finding.fidelity.diff)
    behaviour = msgspec.to_builtins(learned.document.behaviour)
    return {
        "version": release.version,
        "profile": str(profile.path),
        "wire": str(profile.path.parent / learned.document.measured.wire_templates),
        "book": None if release.book is None else str(release.book),
        "book_problem": release.book_problem,
        "seconds": round(seconds, 1),
        "behaviour": behaviour,
        "gaps": [gap.to_json() for gap in learned.gaps],
        "fidelity": fidelity,
        "differences": differences,
        "broken": broken,
    }


def _print(report: dict[str, Any]) -> None:
    print(f"codex-cli {report['version']}: profile learned in {report['seconds']} s")
    print(f"  profile: {report['profile']}")
    print(f"  wire:    {report['wire']}")
    print(f"  book:    {report['book'] or report['book_problem']}")
    for name, entry in report["behaviour"].items():
        value = json.dumps(entry["value"])
        mark = "" if entry["measured"] else "  [NOT LEARNED]"
        print(f"  {name:<24} {value}{mark}")
    if report["gaps"]:
        print("observations the profile language cannot express (the fake needs a new knob):")
        for gap in report["gaps"]:
            print(
                f"  {gap['field']}: {gap['scenario']} {gap['step']}: {gap['observed']} "
                f"(missing: {gap['missing']})"
            )
    matching = sum(1 for verdict in report["fidelity"].values() if verdict == "holds")
    print(
        f"fidelity of the fake on this profile: {matching} of {len(report['fidelity'])} "
        "scenarios match the real release"
    )
    for line in report["differences"]:
        print(f"  differs: {line}")
    for line in report["broken"]:
        print(f"  broken: {line}")
