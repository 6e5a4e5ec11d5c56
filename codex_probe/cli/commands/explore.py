"""`codex-probe explore`: every client method of a release's schema, in every thread state,
valid and invalid, and seeded random walks through the states (docs/exploration.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import non_negative_int, positive_int
from codex_probe.cli.commands.output import output_problem
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.harness.files import write_json
from codex_probe.harness.interrupts import run_interruptible
from codex_probe.probes.explore.plan import make_plan
from codex_probe.probes.explore.record import CellRecord, ExplorationRecord
from codex_probe.probes.explore.run import explore
from codex_probe.probes.explore.walks import DEFAULT_STEPS
from codex_probe.rig.backends import BackendError, make_backend

# Exit codes: 0 nothing surprised the exploration; 1 a step did (each printed with the
# command that replays it); 2 usage; 3 the release could not be explored.
QUIET, SURPRISED, USAGE, NOT_EXPLORED = 0, 1, 2, 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "explore",
        help="call every method of a release's schema in every thread state",
        description="Call every client method of the release's generated schema: a minimal "
        "and a full call, one per enumerated value, and invalid calls, in the state none and "
        "in each thread state (unloaded, new, idle, in-flight, compacted, archived, forked, "
        "rolled-back), with command approvals answered with every decision; then --walks "
        "seeded random walks through the states. Say how many methods x states x variants "
        "were called, and print every step that surprised it (the app-server exited, a "
        "request went unanswered, a message broke the release's own schema) with the command "
        "that replays it. Exit 0: no surprise; 1: a surprise; 2: usage; 3: the release could "
        "not be explored.",
    )
    parser.add_argument(
        "--codex",
        default=DEFAULT_CODEX_VERSION,
        metavar="VERSION",
        help=f"codex-cli version (default {DEFAULT_CODEX_VERSION})",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="the first walk's seed (default 0)"
    )
    parser.add_argument(
        "--walks",
        type=non_negative_int,
        default=3,
        help="random walks, seeded SEED, SEED+1... (default 3)",
    )
    parser.add_argument(
        "--steps",
        type=positive_int,
        default=DEFAULT_STEPS,
        help=f"steps of each walk (default {DEFAULT_STEPS})",
    )
    parser.add_argument(
        "--no-sweep",
        action="store_true",
        help="only the walks, not the calls of every method in every state",
    )
    parser.add_argument(
        "--cell",
        action="append",
        default=[],
        metavar="'METHOD STATE VARIANT'",
        help="only this cell of the sweep (repeatable), as a surprise names it",
    )
    parser.add_argument("--json", action="store_true", help="print the record as one JSON object")
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write the record (exploration.json: every call and what came back) to FILE",
    )
    parser.add_argument(
        "--progress", action="store_true", help="print each cell as it ends (on stderr)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.record is not None and (
        problem := output_problem(args.record.parent, args.record.name)
    ):
        return _usage(problem)
    with install_failures_end_command(NOT_EXPLORED, unknown_version_exit_code=USAGE):
        try:
            backend = make_backend("real", args.codex)
        except BackendError as error:
            print(f"codex-probe explore: {error}", file=sys.stderr)
            return NOT_EXPLORED
    plan = make_plan(backend.schema_dir)
    keys = {cell.key for cell in plan.cells}
    unknown = [cell for cell in args.cell if cell not in keys]
    if unknown:
        return _usage(f"no cell {unknown[0]!r} in codex-cli {backend.version}'s plan")

    def progress(record: CellRecord) -> None:
        if args.progress:
            print(f"{record.key}: {record.outcome}", file=sys.stderr, flush=True)

    record = run_interruptible(
        lambda: explore(
            backend,
            seed=args.seed,
            only=set(args.cell) or None,
            plan=plan,
            on_cell=progress,
            sweep=not args.no_sweep,
            walks=args.walks,
            steps=args.steps,
        )
    )
    if args.record is not None:
        write_json(args.record, record.to_json())
    if args.json:
        print(json.dumps({**record.to_json(), "counts": record.counts()}, indent=2))
    else:
        print("\n".join(summary_lines(record, walks=args.walks, steps=args.steps)))
    if not record.cells and not record.walks:
        return NOT_EXPLORED
    return SURPRISED if record.surprises else QUIET


def summary_lines(record: ExplorationRecord, *, walks: int, steps: int) -> list[str]:
    """What was called, how it went, and each surprise with the command replaying it."""
    counts = record.counts()
    lines: list[str] = []
    if record.cells:
        server = counts["server requests"]
        lines.append(
            f"codex-cli {record.version}: {counts['methods']} methods"
            + (f" (+ {server} server request)" if server else "")
            + f" x {counts['states']} states x {counts['variants']} variants: "
            f"{counts['cells']} calls ({counts['answered']} answered, {counts['refused']} "
            f"refused, {counts['unanswered']} unanswered)"
            + (f", {counts['not run']} not run" if counts["not run"] else "")
        )
    unreached = {state: why for state, why in record.states.items() if why}
    for state, why in unreached.items():
        lines.append(f"  state {state} not reached: {why}")
    if record.unsent:
        lines.append(f"  {len(record.unsent)} call(s) not sent on purpose (docs/exploration.md)")
    if record.outbound.get("asked"):
        lines.append(f"  outbound HTTP refused: {', '.join(record.outbound['asked'])}")
    if walks:
        lines.append(
            f"codex-cli {record.version}: {walks} walk(s) of {steps} steps from seed {record.seed}"
        )
    if not record.surprises:
        lines.append("nothing surprised the exploration")
        return lines
    lines.append(f"{len(record.surprises)} surprise(s):")
    for surprise in record.surprises:
        lines += ["", f"- {surprise.where}: {surprise.what}"]
        lines += [f"    {step}" for step in surprise.steps]
        lines.append(f"  Reproduce with: {surprise.reproduce}")
    return lines


def _usage(problem: str) -> int:
    print(f"codex-probe explore: {problem}", file=sys.stderr)
    return USAGE
