"""`codex-probe can-i-upgrade --from A --to B`: yes, no or unknown, from the recorded history;
with `--contract CONTRACT`, for one client: its contract verified on every release from A to
B (probes/contracts/across.py).

The history folder (default reports/history, the one `codex-probe history` writes) is the
record; a release from A to B that it lacks is probed first with the history's own sweep,
and kept there, so the next question costs nothing. The answer and its reasons:
reporting/upgrade.py.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.options import (
    add_jobs_option,
    add_json_option,
    add_keep_installs_option,
    add_range_options,
    add_severity_levels_option,
    require_range,
    severity,
)
from codex_probe.cli.commands.output import output_problem
from codex_probe.cli.commands.run_folders import HISTORY
from codex_probe.harness.codex.install import UnknownVersionError
from codex_probe.harness.codex.npm import NpmError
from codex_probe.harness.command_line import USAGE_ERROR
from codex_probe.probes.contracts.across import verify_across
from codex_probe.probes.contracts.contract import ContractError, load_contract
from codex_probe.probes.domain.surface.rules import (
    DEFAULT_LEVELS,
    LevelsError,
    Severity,
    read_levels,
)
from codex_probe.probes.releases.budget import InstallBudget
from codex_probe.probes.releases.history import (
    HISTORY_FILE,
    HistoryError,
    HistoryInUse,
    load_history,
    new_history,
    writing_history,
)
from codex_probe.probes.releases.span import RangeError, published_range
from codex_probe.probes.releases.sweep import sweep, to_probe
from codex_probe.reporting.baseline import AcceptedChanges, load_accepted_changes
from codex_probe.reporting.history_files import HistoryViewError
from codex_probe.reporting.history_view import HistoryView
from codex_probe.reporting.upgrade import UNKNOWN, judge_upgrade
from codex_probe.reporting.writers.history import release_writers
from codex_probe.rig.baseline import BaselineError

INTERRUPTED = 130


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "can-i-upgrade",
        help="yes, no or unknown: may codex-cli go from A to B, from the recorded history",
        description="Answer whether codex-cli can go from release A to release B: yes (exit "
        "0) when nothing the design requires changed between them, or every such change is "
        "accepted by the baseline; no (exit 1), listing each change with the first release "
        "where it appeared; unknown (exit 3) when a release from A to B could not be probed, "
        "lacks a required finding, or the history cannot be read. "
        "The answer comes from the history folder; the releases it lacks are probed first "
        "(as codex-probe history does) and recorded there. Exit 2: usage.",
    )
    add_range_options(
        parser,
        first="the release codex-cli is on now",
        last="the release to upgrade to (or latest)",
    )
    parser.add_argument(
        "--history",
        type=Path,
        default=HISTORY,
        metavar="DIR",
        help=f"the recorded history (default: {HISTORY}); missing releases are added to it",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="the gate's baseline (codex-baseline.toml): an entry for B accepts B's verdict",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="informative assumptions count too, as with codex-probe gate --strict",
    )
    parser.add_argument(
        "--no-run",
        action="store_true",
        help="probe nothing: a release the history lacks makes the answer unknown",
    )
    parser.add_argument(
        "--contract",
        type=Path,
        metavar="CONTRACT",
        help="answer for one client: its contract (`codex-probe record`) verified on every "
        "release from A to B; yes (0) when it holds on B, no (1) when it breaks there, "
        "unknown (3); each release's answer and the rules that break it are listed",
    )
    parser.add_argument(
        "--fail-on",
        type=severity,
        default=Severity.ERR,
        metavar="ERR|WARN|INFO",
        help="with --contract: what counts as breaking (default ERR)",
    )
    add_severity_levels_option(parser)
    add_json_option(parser, "the answer, each change and where it came in")
    add_jobs_option(parser)
    add_keep_installs_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.contract is not None:
        return _for_contract(args)
    # --no-run only reads the folder: a read-only one will do.
    if args.no_run and args.history.exists() and not args.history.is_dir():
        return _usage(f"--history {args.history} is not a folder")
    if not args.no_run and (problem := output_problem(args.history, HISTORY_FILE)):
        return _usage(problem.replace("--out", "--history"))
    try:
        baseline = load_accepted_changes(args.baseline) if args.baseline else AcceptedChanges()
    except BaselineError as error:
        return _usage(str(error))
    try:
        releases = published_range(*require_range(args))
    except (UnknownVersionError, NpmError, RangeError) as error:
        return _usage(str(error))
    path = args.history / HISTORY_FILE
    # Reading only (--no-run) needs no lock, and works in a folder it may not write.
    writing = contextlib.nullcontext() if args.no_run else writing_history(args.history)
    try:
        with writing:
            document = load_history(path) if path.is_file() else new_history()
            todo = [] if args.no_run else to_probe(releases, document)
            if todo:
                say(f"probing {len(todo)} release(s) the history lacks: {', '.join(todo)}")
                sweep(
                    todo,
                    args.history,
                    document,
                    jobs=args.jobs,
                    keep_installs=args.keep_installs,
                    writers_for=functools.partial(release_writers, args.history),
                    say=say,
                )
    except HistoryInUse as error:
        return _usage(str(error))
    except HistoryError as error:
        return _unknown(str(error))
    except KeyboardInterrupt:
        say("codex-probe can-i-upgrade: interrupted; what was probed is kept in the history")
        return INTERRUPTED
    try:
        view = HistoryView.load(args.history) if path.is_file() else None
    except HistoryViewError as error:
        return _unknown(str(error))
    if view is None:  # nothing recorded, nothing probed (--no-run)
        view = HistoryView(args.history, new_history(), [])
    answer = judge_upgrade(
        view,
        releases[0],
        releases[-1],
        releases,
        baseline=baseline,
        strict=args.strict,
        probed_now=todo,
    )
    if args.json:
        print(json.dumps(answer.to_json(), indent=2))
    else:
        print("\n".join(answer.lines()))
    return answer.exit_code


def _for_contract(args: argparse.Namespace) -> int:
    try:
        levels = read_levels(args.severity_levels) if args.severity_levels else DEFAULT_LEVELS
        contract = load_contract(args.contract)
        releases = published_range(*require_range(args))
    except (LevelsError, ContractError, UnknownVersionError, NpmError, RangeError) as error:
        return _usage(str(error))
    budget = InstallBudget(args.keep_installs)
    say(f"verifying {args.contract} on {len(releases)} release(s): {', '.join(releases)}")
    try:
        answer = asyncio.run(
            verify_across(
                contract, releases, budget.use, fail_on=args.fail_on, levels=levels, say=say
            )
        )
    except KeyboardInterrupt:
        say("codex-probe can-i-upgrade: interrupted")
        return INTERRUPTED
    if args.json:
        print(json.dumps(answer.to_json(), indent=2))
    else:
        print("\n".join(answer.lines()))
    return answer.exit_code


def say(line: str) -> None:
    """Progress goes to stderr: stdout holds the answer alone (and --json stays JSON)."""
    print(line, file=sys.stderr, flush=True)


def _unknown(problem: str) -> int:
    """A record that cannot be read cannot say yes: unknown, and why, in one line."""
    print(f"codex-probe can-i-upgrade: unknown: {problem}", file=sys.stderr)
    return UNKNOWN


def _usage(problem: str) -> int:
    print(f"codex-probe can-i-upgrade: {problem}", file=sys.stderr)
    return USAGE_ERROR
