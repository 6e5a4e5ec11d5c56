"""`codex-probe bisect FINDING --from A --to B`: the first release where a finding changed;
`codex-probe bisect --surface-key KEY --from A --to B`: where one key of the surface did."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from codex_probe.cli.commands.failures import INSTALL_FAILURES
from codex_probe.cli.commands.options import (
    DeprecatedOption,
    add_jobs_option,
    add_json_option,
    add_keep_installs_option,
    add_range_options,
    codex_version,
    require_range,
)
from codex_probe.harness.codex.install import UnknownVersionError
from codex_probe.harness.codex.npm import NpmError
from codex_probe.harness.interrupts import run_interruptible
from codex_probe.probes.domain.assumptions import ASSUMPTIONS, BY_ID
from codex_probe.probes.domain.findings import Verdict
from codex_probe.probes.domain.surface.release import (
    ASPECTS,
    EXPLORATION,
    in_gap,
    scenario_of,
)
from codex_probe.probes.releases.bisect import BisectResult, Step, bisect_releases
from codex_probe.probes.releases.budget import InstallBudget
from codex_probe.probes.releases.span import RangeError, published_range
from codex_probe.probes.runner.plan import RunPlan
from codex_probe.probes.runner.release_run import run_release
from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.probes.runner.selection import Selection

# Exit codes: 0 one boundary found; 1 no change, or a history that changes more than once;
# 2 usage; 3 probes broke where the boundary lies.
CHANGES_NOT_ONCE, USAGE, UNRESOLVED = 1, 2, 3


class UnknownObservedKey(LookupError):
    pass


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bisect",
        help="find the first release where a finding changed",
        description="Probe FINDING on the real codex-cli releases between --from and --to "
        "(about log2 N of them, installed as needed) and name the first release whose verdict "
        "(or, with --observed KEY, whose observed value) differs from the --from release's; "
        "or, with --surface-key 'ASPECT KEY' instead of FINDING, whose value of that key "
        "does (only the scenario the key is read from runs). "
        "Exit 0: one boundary; 1: no change, or a history that changes more than once; "
        "2: usage; 3: the releases around the boundary could not be probed.",
    )
    parser.add_argument(
        "finding",
        nargs="?",
        metavar="FINDING",
        help=f"an assumption id, e.g. {ASSUMPTIONS[1].id} (`codex-probe findings` lists them)",
    )
    parser.add_argument(
        "--surface-key",
        metavar="KEY",
        help="a surface key instead of a finding: its aspect and key as `codex-probe diff "
        "--json` and history.json name them, e.g. 'answers errors resume thread/resume'",
    )
    add_range_options(
        parser,
        first="the release to compare with (the finding's value there is the 'before')",
        last="a later release whose value differs",
    )
    for old, dest, new in (
        ("--surface", "surface_key", "--surface-key KEY"),
        ("--good", "first", "--from VERSION"),
        ("--bad", "last", "--to VERSION"),
    ):
        parser.add_argument(
            old,
            dest=dest,
            action=DeprecatedOption,
            command="bisect",
            new=new,
            type=None if dest == "surface_key" else codex_version,
        )
    parser.add_argument(
        "--observed",
        metavar="KEY",
        help="compare this observed value instead of the verdict (e.g. base_at)",
    )
    add_jobs_option(parser)
    add_keep_installs_option(parser)
    add_json_option(parser, "the boundary, each step and the evidence")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if problem := _usage_problem(args):
        print(f"codex-probe bisect: {problem}", file=sys.stderr)
        return USAGE
    try:
        releases = published_range(*require_range(args))
    except (UnknownVersionError, NpmError, RangeError) as error:
        print(f"codex-probe bisect: {error}", file=sys.stderr)
        return USAGE
    progress = sys.stderr if args.json else sys.stdout
    what = f"--observed {args.observed}" if args.observed else "verdict"
    subject = (
        f"{args.finding} ({what})" if args.surface_key is None else f"surface {args.surface_key}"
    )
    print(
        f"bisect {subject} over {len(releases)} releases from {releases[0]} to {releases[-1]}",
        file=progress,
    )
    budget = InstallBudget(args.keep_installs)

    def probe(version: str) -> Step:
        step = probe_one(args, version, budget)
        shown = f"broken: {step.broken}" if step.broken else _short(step.value)
        print(f"  {version}: {_compared(args)} = {shown}", file=progress)
        return step

    try:
        result = bisect_releases(releases, probe)
    except UnknownObservedKey as error:
        print(f"codex-probe bisect: {error}", file=sys.stderr)
        return USAGE
    if args.json:
        print(json.dumps(as_json(args, result), indent=2))
    else:
        print_result(args, releases, result)
    if result.unresolved is not None:
        return UNRESOLVED
    return 0 if result.found else CHANGES_NOT_ONCE


def _usage_problem(args: argparse.Namespace) -> str | None:
    if (args.finding is None) == (args.surface_key is None):
        return "give a FINDING or --surface-key KEY (one of them)"
    if args.surface_key is not None:
        if args.observed is not None:
            return "--observed reads a finding's value; a surface key is its own value"
        aspect, _, key = args.surface_key.partition(" ")
        if aspect not in ASPECTS or not key:
            aspects = ", ".join(ASPECTS)
            return f"--surface-key {args.surface_key!r} is not 'ASPECT KEY'; aspects: {aspects}"
        scenario = scenario_of(aspect, key)
        if scenario not in ("schema", EXPLORATION) and scenario not in SCENARIOS:
            return f"--surface-key {args.surface_key!r}: no scenario {scenario!r}; scenarios: " + (
                ", ".join(SCENARIOS)
            )
        return None
    if args.finding not in BY_ID:
        return f"{args.finding} is not an assumption id; known: " + ", ".join(BY_ID)
    return None


def _compared(args: argparse.Namespace) -> str:
    return args.surface_key or args.observed or "verdict"


def _short(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def probe_one(args: argparse.Namespace, version: str, budget: InstallBudget) -> Step:
    try:
        budget.use(version)
    except INSTALL_FAILURES as error:
        return Step(version, broken=f"not installed: {error}")
    if args.surface_key is not None:
        return _surface_step(args.surface_key, version, args.jobs)
    selection = Selection.of({args.finding}, fidelity=False)
    release = run_interruptible(lambda: run_release(RunPlan(version, selection, jobs=args.jobs)))
    finding = release.findings[args.finding]
    if finding.verdict is Verdict.BROKEN:
        return Step(version, broken=finding.summary or "; ".join(finding.evidence))
    if args.observed is None:
        return Step(version, finding.verdict.value, tuple(finding.evidence))
    if args.observed not in finding.observed:
        raise UnknownObservedKey(
            f"{args.finding} observes no {args.observed!r}; it observes: "
            + ", ".join(finding.observed)
        )
    return Step(version, finding.observed[args.observed], tuple(finding.evidence))


def _surface_step(name: str, version: str, jobs: int) -> Step:
    """The value of one surface key on `version`: only the scenario it is read from runs (or
    the one cell of the exploration)."""
    aspect, _, key = name.partition(" ")
    scenario = scenario_of(aspect, key)
    if scenario == EXPLORATION:
        selection = Selection.surface_only((), explore_cells=(key,))
    else:
        selection = Selection.surface_only(() if scenario == "schema" else (scenario,))
    release = run_interruptible(lambda: run_release(RunPlan(version, selection, jobs=jobs)))
    surface = release.surface
    if surface is None:
        return Step(version, broken=f"codex-cli {version} could not be run")
    if in_gap(aspect, key, surface.missing):
        return Step(version, broken=f"not read: {', '.join(surface.missing)}")
    value = surface.value(aspect, key)
    return Step(version, value, (f"{name} = {_short(value, 600)}",))


def as_json(args: argparse.Namespace, result: BisectResult) -> dict[str, Any]:
    def version(step: Step | None) -> str | None:
        return None if step is None or not result.found else step.version

    return {
        "finding": args.finding,
        "observed": args.observed,
        "surface": args.surface_key,
        "first_changed": version(result.first_changed),
        "last_same": version(result.last_same),
        "steps": [step.to_json() for step in result.steps],
        "evidence": {
            step.version: list(step.evidence)
            for step in (result.last_same, result.first_changed)
            if step is not None and result.found
        },
        "no_change": result.no_change,
        "flips": result.flips,
        "unresolved": result.unresolved,
    }


def print_result(args: argparse.Namespace, releases: list[str], result: BisectResult) -> None:
    if result.unresolved is not None:
        print(f"no boundary: {result.unresolved}")
    elif result.no_change:
        value = _short(result.steps[0].value)
        print(f"no change between {releases[0]} and {releases[-1]}: both give {value}")
        print(
            "  (bisection compares the ends: a value that changes and changes back in between "
            "shows only in `codex-probe history`)"
        )
    elif result.flips:
        print(
            f"the history from {releases[0]} to {releases[-1]} changes more than once, so no "
            "single release is the boundary:"
        )
        for flip in result.flips:
            print(f"  {flip}")
    else:
        assert result.first_changed is not None and result.last_same is not None
        print(
            f"first changed in {result.first_changed.version} "
            f"(last same: {result.last_same.version})"
        )
        for step in (result.last_same, result.first_changed):
            print(f"  {step.version}: {_compared(args)} = {_short(step.value)}")
            for line in step.evidence:
                print(f"    {line}")
