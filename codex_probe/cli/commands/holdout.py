"""`codex-probe holdout`: a fake of a release against the real release on work its learner
never saw: the out-of-sample sweep of every method and seeded walks (docs/exploration.md,
"Out of sample")."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import (
    add_codex_option,
    add_json_option,
    non_negative_int,
    positive_int,
)
from codex_probe.cli.commands.output import output_problem
from codex_probe.harness.files import write_json
from codex_probe.harness.interrupts import run_interruptible
from codex_probe.probes.explore.walks import DEFAULT_STEPS
from codex_probe.probes.releases.holdout import Holdout, Work, holdout, make_work
from codex_probe.probes.releases.holdout_compare import Step
from codex_probe.rig.backends import Backend, BackendError, make_backend

# Exit codes: 0 the fake differs on at most BAR of the stable steps; 1 on more; 2 usage;
# 3 the work could not run (a release or profile that cannot be had, nothing ran).
WITHIN, OVER, USAGE, NOT_RUN = 0, 1, 2, 3
BAR = 0.02
DEFAULT_SEED = 1  # the exploration learn reads uses seed 0
DEFAULT_WALKS = 3
# Where two outcomes differ, printed per step (--json has them whole).
SHOWN = 8


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "holdout",
        help="compare a fake with its real release on work its learner never saw",
        description="Draw out-of-sample work from the release's schema with --seed (every "
        "client method called with params the exploration never sends, in the states where "
        "the exploration calls it, and --walks seeded walks through the thread states), run "
        "it on the real release and on the fake with --profile, and compare each step's "
        "outcome masked as the surface masks it. Print how many steps differ and each "
        "differing step with where its outcomes differ and the command that replays it. "
        "With --control the real release runs twice: steps where it differs from itself are "
        "counted apart. "
        f"Exit 0: the fake differs on at most {BAR:.0%} of the stable steps; 1: on more; "
        "2: usage; 3: the work could not run.",
    )
    add_codex_option(parser)
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="FILE",
        help="the fake's profile (codex-probe learn writes one; default the release's "
        "checked-in profile)",
    )
    parser.add_argument(
        "--seed",
        type=non_negative_int,
        default=DEFAULT_SEED,
        help=f"seed of the resampled calls and the first walk (default {DEFAULT_SEED}; the "
        "exploration uses 0)",
    )
    parser.add_argument(
        "--walks",
        type=non_negative_int,
        default=DEFAULT_WALKS,
        help=f"walks, seeded SEED, SEED+1... (default {DEFAULT_WALKS})",
    )
    parser.add_argument(
        "--steps",
        type=positive_int,
        default=DEFAULT_STEPS,
        help=f"steps of each walk (default {DEFAULT_STEPS})",
    )
    parser.add_argument(
        "--control",
        action="store_true",
        help="run the real release twice: steps it does not repeat are counted apart",
    )
    parser.add_argument("--no-sweep", action="store_true", help="only the walks")
    parser.add_argument(
        "--cell",
        action="append",
        default=[],
        metavar="'METHOD STATE VARIANT'",
        help="only this cell of the sweep (repeatable), as a differing step names it",
    )
    add_json_option(parser, "the steps, the counts and every differing step")
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write both runs' records and every step compared to FILE",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.record is not None and (
        problem := output_problem(args.record.parent, args.record.name)
    ):
        return _fail(problem, USAGE)
    if args.profile is not None and not args.profile.is_file():
        return _fail(f"no profile file {args.profile}", USAGE)
    with install_failures_end_command(NOT_RUN, unknown_version_exit_code=USAGE):
        try:
            real = make_backend("real", args.codex)
            fake = make_backend("fake", args.codex, profile=args.profile)
        except BackendError as error:
            return _fail(str(error), NOT_RUN)
    work = make_work(
        real,
        seed=args.seed,
        walks=args.walks,
        steps=args.steps,
        run_sweep=not args.no_sweep,
        cells=frozenset(args.cell),
    )
    keys = {cell.key for cell in work.sweep.plan.cells}
    unknown = [cell for cell in args.cell if cell not in keys]
    if unknown:
        return _fail(f"no cell {unknown[0]!r} in the sweep of seed {args.seed}", USAGE)
    found = run_interruptible(lambda: holdout(real, fake, work, control=args.control))
    replay = replay_command(args, fake)
    if args.record is not None:
        write_json(args.record, _record(found, replay))
    if args.json:
        print(json.dumps(answer(found, replay), indent=2))
    else:
        print("\n".join(summary_lines(found, replay)))
    if not found.comparison.steps:
        return NOT_RUN
    return OVER if found.comparison.share > BAR else WITHIN


def replay_command(args: argparse.Namespace, fake: Backend) -> str:
    """The command line that runs this comparison again (without --seed, --walks, --steps,
    --no-sweep and --cell: each differing step adds its own)."""
    words = ["codex-probe", "holdout", "--codex", args.codex]
    if args.profile is not None and fake.profile is not None:
        words += ["--profile", str(fake.profile)]
    return shlex.join(words)


def reproduce(step: Step, replay: str, seed: int, steps: int) -> str:
    """The command that runs `step` again (a walk: the whole walk up to it)."""
    if step.walk is not None:
        return f"{replay} --seed {step.walk} --walks 1 --steps {steps} --no-sweep"
    return f"{replay} --seed {seed} --walks 0 --cell {shlex.quote(step.key)}"


def summary_lines(found: Holdout, replay: str) -> list[str]:
    compared = found.comparison
    counts = compared.counts()
    work = found.work
    lines = [
        f"codex-cli {found.version}, out of sample (seed {work.seed}): {counts['steps']} steps "
        f"({counts['sweep']} calls of the sweep, {counts['walk steps']} steps of "
        f"{work.walks} walk(s))",
        f"  in {', '.join(f'{name} {s:.0f} s' for name, s in found.seconds.items())}",
    ]
    if work.sweep.in_sample:
        lines.append(
            f"  {len(work.sweep.in_sample)} method(s) with no call the exploration does not "
            f"send, not in the sweep: {', '.join(work.sweep.in_sample)}"
        )
    if found.control is not None:
        lines.append(
            f"  control: the real release differs from itself on {counts['unstable']} "
            f"step(s), counted apart ({counts['unstable and differing']} of them differ on "
            "the fake too)"
        )
    lines.append(
        f"differing: {counts['differing']} of {counts['stable']} stable steps "
        f"({counts['differing %']:.2f} %; the bar is {BAR:.0%})"
    )
    lines += [f"  {count:4}  {how}" for how, count in counts["how"].items()]
    for step in compared.differing:
        lines += ["", *step_lines(step, replay, work)]
    if compared.unstable:
        lines += ["", f"unstable (the real release did not repeat them): {counts['unstable']}"]
    for step in compared.unstable:
        lines += ["", *step_lines(step, replay, work)]
    return lines


def step_lines(step: Step, replay: str, work: Work) -> list[str]:
    """A step: where it is, what was sent (a walk: its steps), where the masked outcomes
    differ, and the command that replays it."""
    lines = [f"- {step.key}: {step.how}"]
    if step.walk is None:
        lines.append(f"    params: {json.dumps(step.params, sort_keys=True)}")
    else:
        lines += [f"    {told}" for told in step.sequence]
    differences = step.differences()
    for where, real, fake in differences[:SHOWN]:
        lines.append(f"    {where}: real {_said(real)}, fake {_said(fake)}")
    if len(differences) > SHOWN:
        lines.append(f"    ... and {len(differences) - SHOWN} more (--json: both outcomes whole)")
    if step.unstable:
        lines.append(f"    real again: {json.dumps(step.control, sort_keys=True)}")
    lines.append(f"  Reproduce with: {reproduce(step, replay, work.seed, work.steps)}")
    return lines


def _said(value: Any) -> str:
    """A masked value as printed: a shape's type or kept JSON text as it is."""
    if value is None:
        return "(none)"
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def answer(found: Holdout, replay: str) -> dict[str, Any]:
    compared = found.comparison
    work = found.work
    return {
        "version": found.version,
        "seed": work.seed,
        "walks": work.walks,
        "steps per walk": work.steps,
        "seconds": found.seconds,
        "counts": compared.counts(),
        "bar %": BAR * 100,
        "in sample": work.sweep.in_sample,
        "differing": [
            {**step.to_json(), "reproduce": reproduce(step, replay, work.seed, work.steps)}
            for step in compared.differing
        ],
        "unstable": [step.to_json() for step in compared.unstable],
    }


def _record(found: Holdout, replay: str) -> dict[str, Any]:
    return {
        **answer(found, replay),
        "steps": [step.to_json() for step in found.comparison.steps],
        "records": {"real": found.real, "other": found.other, "control": found.control},
    }


def _fail(problem: str, code: int) -> int:
    print(f"codex-probe holdout: {problem}", file=sys.stderr)
    return code
