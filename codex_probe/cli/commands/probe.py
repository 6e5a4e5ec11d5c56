"""`codex-probe probe`: run the live probes on codex-cli versions and write the verdict."""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.invocation import invocation
from codex_probe.cli.commands.options import (
    add_codex_versions_option,
    add_fake_profile_option,
    add_jobs_option,
    add_json_option,
    positive_int,
    versions_of_profile,
)
from codex_probe.cli.commands.output import output_problem
from codex_probe.cli.commands.run_folders import run_folder
from codex_probe.fake_appserver.profile import ProfileError
from codex_probe.fake_appserver.script import ScriptError, load_script
from codex_probe.harness.codex.install import install as install_codex
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.harness.interrupts import Interrupted, run_interruptible
from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX, Verdict
from codex_probe.probes.domain.surface.file import SURFACE_FILE
from codex_probe.probes.domain.verdict_file import VerdictFileError, load_verdict
from codex_probe.probes.releases.learn.profile import learning_into
from codex_probe.probes.releases.repro.bundle import REPRO_FOLDER
from codex_probe.probes.runner.events import Writers
from codex_probe.probes.runner.plan import RunPlan
from codex_probe.probes.runner.release_run import run_release
from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.probes.runner.selection import Selection, Subject
from codex_probe.reporting.writers.allure import RESULTS_FOLDER, AllureResultsWriter
from codex_probe.reporting.writers.bundles import BundleWriter
from codex_probe.reporting.writers.surface import SurfaceWriter
from codex_probe.reporting.writers.terminal import ProbeTerminal
from codex_probe.reporting.writers.verdict import VerdictWriter
from codex_probe.rig.launchers import launcher_problem

USAGE = 2
# A run that could not give every finding asked for a verdict (the gate's code for it).
NO_VERDICT = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "probe",
        help="run the live probes against real codex-cli versions",
        description="Run every probe (or --only some) against each --codex version, on the "
        "real codex-cli and, for fidelity, on the fake; write verdict.json and allure results "
        "under --out, a reproduction bundle of each changed or broken finding of the real "
        "codex-cli under --out/repro/, the protocol surface of each version (surface.json; "
        "not with --only), and print the assumption-by-version table. Exit 0: "
        "every finding asked for has a verdict (changed ones included: the gate judges those); "
        "2: usage; 3: a finding is broken or missing; 130: interrupted (verdict.json says "
        "what is missing).",
    )
    add_codex_versions_option(parser)
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="output folder (default: reports/VERSION, or reports/V1+V2 for several)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="ID",
        help="only this finding (repeatable; `codex-probe findings` lists the ids)",
    )
    parser.add_argument(
        "--no-fidelity", action="store_true", help="skip running the scenarios on the fake"
    )
    add_jobs_option(parser, "scenarios run at once, real and fake")
    parser.add_argument(
        "--repeat",
        type=positive_int,
        default=1,
        metavar="N",
        help="probe each release N times; a finding whose verdict or observation differs "
        "between runs is broken, and verdict.json lists it under flips",
    )
    parser.add_argument(
        "--backend",
        choices=("real", "fake"),
        default="real",
        help="what the findings are about: the real codex-cli (default), or the fake, to see "
        "how findings break under a fault script or to try a harness change without codex",
    )
    parser.add_argument(
        "--fake-script", type=Path, metavar="FILE", help="fault script for --backend fake"
    )
    add_fake_profile_option(parser)
    add_json_option(parser, "where verdict.json is and each finding's verdict")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The run; with --json, what it says goes to stderr and the answer alone to stdout."""
    if not args.json:
        return _run(args)
    with contextlib.redirect_stdout(sys.stderr):
        code = _run(args)
    versions = list(dict.fromkeys(args.codex or [DEFAULT_CODEX_VERSION]))
    verdict = (args.out or run_folder(versions)) / "verdict.json"
    print(json.dumps(answer(verdict, code), indent=2))
    return code


def answer(verdict: Path, exit_code: int) -> dict[str, Any]:
    """What `probe --json` prints: the exit code, the files, and each finding's verdict."""
    try:
        report = load_verdict(verdict)
    except VerdictFileError:
        return {"exit_code": exit_code, "verdict": None, "versions": {}}
    surface = verdict.parent / SURFACE_FILE
    return {
        "exit_code": exit_code,
        "verdict": str(verdict),
        "surface": str(surface) if surface.is_file() else None,
        "complete": report.complete,
        "missing": list(report.missing),
        "versions": {
            version: {i: f.verdict.value for i, f in findings.items()}
            for version, findings in report.findings.items()
        },
    }


def _run(args: argparse.Namespace) -> int:
    known = set(BY_ID) | {f"{FIDELITY_ID_PREFIX}{s}" for s in SCENARIOS}
    unknown = [i for i in args.only if i not in known]
    if unknown:
        return _usage(f"unknown id(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    if (args.fake_script or args.fake_profile) and args.backend != "fake":
        return _usage("--fake-script and --fake-profile need --backend fake")
    try:
        if args.fake_script is not None:
            load_script(args.fake_script)
        versions = versions_of_profile(args.codex or [], args.fake_profile)
    except (ScriptError, ProfileError) as error:
        return _usage(str(error))
    args.codex = versions  # the --json answer names the same run folder
    out: Path = args.out or run_folder(versions)
    if problem := output_problem(out, "verdict.json", "summary.md", SURFACE_FILE):
        return _usage(problem)
    for folder in (out / REPRO_FOLDER, out / RESULTS_FOLDER):
        if folder.exists() and not folder.is_dir():
            return _usage(f"--out {out}: {folder} is a file, not a folder")
    subject = Subject(
        kind=args.backend,
        script=None if args.fake_script is None else args.fake_script.resolve(),
        profile=None if args.fake_profile is None else args.fake_profile.resolve(),
    )
    fidelity = not args.no_fidelity and subject.kind == "real"
    if (fidelity or subject.kind == "fake") and (problem := launcher_problem()):
        return _usage(f"{problem} (or --no-fidelity)" if fidelity else problem)
    selection = Selection.of(args.only or None, fidelity=fidelity)
    verdict = VerdictWriter(
        out / "verdict.json",
        asked=[f"{v}:{i}" for v in versions for i in selection.finding_ids],
        facts={"subject": subject.to_json(), "repeat": args.repeat},
    )
    terminal = ProbeTerminal(selection, subject, verdict, args.repeat, me=invocation())
    # The writers of a probe run, once: bundles first (the others keep a finding bundled).
    writers = Writers(
        [
            *([BundleWriter(out)] if subject.kind == "real" else []),
            AllureResultsWriter(out),
            verdict,
            SurfaceWriter(out / SURFACE_FILE),
            terminal,
        ]
    )
    interrupted = None
    try:
        with install_failures_end_command(USAGE):
            for version in versions:
                install_codex(version)  # fail fast, with the installer's one-line error
        out.mkdir(parents=True, exist_ok=True)
        (out / SURFACE_FILE).unlink(missing_ok=True)
        # An earlier run's bundles and results would pass for this run's.
        for folder in (out / REPRO_FOLDER, out / RESULTS_FOLDER):
            shutil.rmtree(folder, ignore_errors=True)
        writers.start()

        async def probe_each() -> None:
            for version in versions:
                plan = RunPlan(
                    version,
                    selection,
                    subject,
                    jobs=args.jobs,
                    repeat=args.repeat,
                    learning=learning_into(out / "learned"),
                )
                await run_release(plan, writers)

        run_interruptible(probe_each)
    except Interrupted as signal_received:
        interrupted = signal_received
    writers.finish(complete=interrupted is None)
    report = verdict.report
    if interrupted is not None:
        print(
            f"codex-probe probe: interrupted ({interrupted}); {verdict.path} is incomplete: "
            f"{len(report.missing)} finding(s) did not run",
            file=sys.stderr,
        )
        return interrupted.exit_code
    broken = [
        f"{f.version}:{f.id}"
        for by_id in report.findings.values()
        for f in by_id.values()
        if f.verdict is Verdict.BROKEN
    ]
    if report.missing:
        print(
            f"codex-probe probe: {len(report.missing)} finding(s) asked for have no verdict: "
            + _some(list(report.missing)),
            file=sys.stderr,
        )
    if broken and set(verdict.undrivable) != set(versions):
        print(
            f"codex-probe probe: {len(broken)} finding(s) are broken (no verdict): "
            + _some(broken),
            file=sys.stderr,
        )
    # Changed assumptions are findings, not failures of the run: the gate judges them.
    return NO_VERDICT if report.missing or broken else 0


def _some(ids: list[str]) -> str:
    return ", ".join(ids[:10]) + (" ..." if len(ids) > 10 else "")


def _usage(problem: str) -> int:
    print(f"codex-probe probe: {problem}", file=sys.stderr)
    return USAGE
