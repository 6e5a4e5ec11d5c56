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
    add_jobs_option,
    add_json_option,
    positive_int,
)
from codex_probe.cli.commands.output import output_problem
from codex_probe.cli.commands.run_folders import run_folder
from codex_probe.fake_appserver.profile import ProfileError, load_profile
from codex_probe.fake_appserver.script import ScriptError, load_script
from codex_probe.harness.codex.install import install as install_codex
from codex_probe.harness.codex.seal import describe_sealing
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.harness.files import write_json
from codex_probe.harness.interrupts import Interrupted, run_interruptible
from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX, Verdict
from codex_probe.probes.domain.surface.file import SURFACE_FILE, write_surfaces
from codex_probe.probes.domain.surface.release import Surface
from codex_probe.probes.domain.verdict_file import VerdictFileError, VerdictReport, load_verdicts
from codex_probe.probes.releases.repro.bundle import REPRO_FOLDER, bundle_in_report
from codex_probe.probes.runner.events import Event, FindingJudged, ScenarioFinished
from codex_probe.probes.runner.release_run import ReleaseRun, probe_release_repeated
from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.probes.runner.selection import Selection, Subject
from codex_probe.reporting.finding_results import write_finding_result
from codex_probe.reporting.probe_progress import ProbeProgress
from codex_probe.reporting.table import closing_lines, profile_lines, render_table

USAGE = 2
# A run that could not give every finding asked for a verdict (the gate's code for it).
NO_VERDICT = 3
RESULTS_FOLDER = "allure-results"


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
    parser.add_argument(
        "--fake-profile",
        type=Path,
        metavar="FILE",
        help="profile file for --backend fake (default: the version's checked-in one)",
    )
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
        report = load_verdicts(verdict)
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
        if args.fake_profile is not None:
            load_profile(path=args.fake_profile)
    except (ScriptError, ProfileError) as error:
        return _usage(str(error))
    versions = list(dict.fromkeys(args.codex or [DEFAULT_CODEX_VERSION]))
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
    probe_run = ProbeRun(out, subject, Selection.of(args.only or None, fidelity=fidelity))
    interrupted = None
    try:
        with install_failures_end_command(USAGE):
            for version in versions:
                install_codex(version)  # fail fast, with the installer's one-line error
        out.mkdir(parents=True, exist_ok=True)
        (out / "verdict.json").unlink(missing_ok=True)
        (out / SURFACE_FILE).unlink(missing_ok=True)
        # An earlier run's bundles and results would pass for this run's.
        for folder in (out / REPRO_FOLDER, out / RESULTS_FOLDER):
            shutil.rmtree(folder, ignore_errors=True)
        run_interruptible(lambda: probe_run.probe(versions, jobs=args.jobs, repeat=args.repeat))
    except Interrupted as signal_received:
        interrupted = signal_received
    report = probe_run.finish(versions, args.repeat, complete=interrupted is None)
    verdict = out / "verdict.json"
    if interrupted is not None:
        print(
            f"codex-probe probe: interrupted ({interrupted}); {verdict} is incomplete: "
            f"{len(report.missing)} finding(s) did not run",
            file=sys.stderr,
        )
        return interrupted.exit_code
    if set(probe_run.undrivable) != set(versions):
        _say_closing(report, probe_run, args.repeat, verdict)
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
    if broken and set(probe_run.undrivable) != set(versions):
        print(
            f"codex-probe probe: {len(broken)} finding(s) are broken (no verdict): "
            + _some(broken),
            file=sys.stderr,
        )
    # Changed assumptions are findings, not failures of the run: the gate judges them.
    return NO_VERDICT if report.missing or broken else 0


class ProbeRun:
    """The releases of one `codex-probe probe`, and what each finding judged is written to:
    its reproduction bundle (changed or broken, real codex-cli), its Allure result, its
    line on the terminal, its entry in verdict.json."""

    def __init__(self, out: Path, subject: Subject, selection: Selection) -> None:
        self.out, self.subject, self.selection = out, subject, selection
        self.report = VerdictReport()
        self.fake_profiles: dict[str, dict[str, Any]] = {}
        self.flips: dict[str, dict[str, dict[str, int]]] = {}
        self.sealing: dict[str, dict[str, Any]] = {}
        self.undrivable: dict[str, str] = {}
        self.broke: list[str] = []  # the scenarios of the release under way that broke
        self.surfaces: dict[str, Surface] = {}
        self.surface_flips: dict[str, list[str]] = {}
        self.progress = ProbeProgress()

    async def probe(self, versions: list[str], *, jobs: int, repeat: int) -> None:
        for version in versions:
            print(f"codex-cli {version}: probing {_what(self.selection, self.subject)}")
            self.progress.start(version, _scenario_runs(self.selection, repeat))
            run = await probe_release_repeated(
                version,
                self.selection,
                repeat,
                jobs=jobs,
                learned_dir=self.out / "learned",
                subject=self.subject,
                on_event=self.on_event,
            )
            self.progress.finish()
            self._record(run)
            if run.undrivable is not None:
                print(
                    f"codex-cli {version}: the probes cannot drive this release: {run.undrivable}",
                    file=sys.stderr,
                )
                continue

    def on_event(self, event: Event) -> None:
        self.progress.on_event(event)
        if isinstance(event, ScenarioFinished) and event.outcome.observation is None:
            # Said after the release: a release nothing can drive gets one line, not twelve.
            self.broke.append(f"  {event.backend} {event.version}: {event.outcome.failure()}")
        if not isinstance(event, FindingJudged):
            return
        finding = event.finding
        # What upstream is shown: a changed or broken finding of the real codex, or one that
        # shows a watched upstream bug present, as a bundle.
        shown = finding.verdict in (Verdict.CHANGED, Verdict.BROKEN) or finding.shows_upstream_bug
        wants_bundle = shown and not finding.is_fidelity
        if wants_bundle and self.subject.kind == "real" and event.outcome is not None:
            codex = install_codex(finding.version).binary  # installed: the run used it
            finding.repro = bundle_in_report(self.out, finding, event.outcome, codex)
        write_finding_result(self.out / RESULTS_FOLDER, finding, event.outcome, self.out)
        self.report.add(finding)

    def _record(self, run: ReleaseRun) -> None:
        if run.undrivable is not None:
            self.undrivable[run.version] = run.undrivable
        if run.profile is not None and run.profile.path is not None:
            self.fake_profiles[run.version] = run.profile.to_json()
        if run.flips:
            self.flips[run.version] = {i: dict(tally) for i, tally in run.flips.items()}
        self.sealing[run.version] = describe_sealing()
        if run.surface is not None:
            self.surfaces[run.version] = run.surface
        if run.surface_flips:
            self.surface_flips[run.version] = run.surface_flips

    def finish(self, versions: list[str], repeat: int, *, complete: bool) -> VerdictReport:
        """verdict.json, whole or (interrupted) saying which findings it lacks, and
        surface.json, the surface of every version that gave one."""
        report = self.report
        asked = [f"{v}:{i}" for v in versions for i in self.selection.finding_ids]
        recorded = {f"{v}:{i}" for v, found in report.findings.items() for i in found}
        report.missing = tuple(f for f in asked if f not in recorded)
        # A verdict that lacks a finding asked for says so: the gate takes it for no verdict.
        report.complete = complete and not report.missing
        report.facts = {
            "fake_profiles": self.fake_profiles,
            "subject": self.subject.to_json(),
            "repeat": repeat,
            "flips": self.flips,
            "sealing": self.sealing,
            "undrivable": self.undrivable,
            "surface_flips": self.surface_flips,
        }
        write_json(self.out / "verdict.json", report.to_json())
        if self.surfaces:
            write_surfaces(self.out / SURFACE_FILE, self.surfaces)
        return report


def _what(selection: Selection, subject: Subject) -> str:
    where = "the real codex-cli" if subject.kind == "real" else "the fake"
    also = " and the fake imitating it" if selection.compare_with_fake else ""
    return f"{len(selection.finding_ids)} finding(s) from {len(selection.scenarios)} " + (
        f"scenario(s) on {where}{also}"
    )


def _scenario_runs(selection: Selection, repeat: int) -> int:
    """About how many scenario runs a release takes (learning a profile runs them all)."""
    fake = len(selection.scenarios) if selection.compare_with_fake else 0
    return (len(selection.subject_scenarios) + fake) * max(1, repeat)


def _say_closing(report: VerdictReport, probe_run: ProbeRun, repeat: int, verdict: Path) -> None:
    flipped = probe_run.flips
    lines = ["", *render_table(report), "", *profile_lines(probe_run.fake_profiles)]
    for version, surface in probe_run.surfaces.items():
        gaps = f"; not read: {', '.join(surface.missing)}" if surface.missing else ""
        counts = ", ".join(f"{len(keys)} {aspect}" for aspect, keys in surface.aspects.items())
        lines.append(f"surface of codex-cli {version}: {surface.digest()} ({counts}){gaps}")
    if repeat > 1:
        unsteady = probe_run.surface_flips
        lines.append(
            f"repeated {repeat} times: the surface "
            + (
                "is the same in every run"
                if not unsteady
                else "differs between runs at "
                + ", ".join(f"{v}: {len(keys)} key(s)" for v, keys in unsteady.items())
            )
        )
        lines.append(
            f"repeated {repeat} times: "
            + (
                "no finding differs between runs"
                if not flipped
                else f"{sum(len(f) for f in flipped.values())} finding(s) differ between runs "
                "(broken): " + ", ".join(f"{v}:{i}" for v, f in flipped.items() for i in f)
            )
        )
    lines += closing_lines(report)
    versions = " ".join(f"--codex {v}" for v in report.versions)
    me = invocation()
    lines += [
        f"verdict: {verdict}",
        *([f"surface: {verdict.parent / SURFACE_FILE}"] if probe_run.surfaces else []),
        f"next: {me} report {versions} --out {verdict.parent}   (the Allure page and summary.md)",
        f"      {me} gate {versions} --verdict {verdict} --no-run   "
        "(exit 0 when every required assumption holds)",
    ]
    print("\n".join(lines))


def _some(ids: list[str]) -> str:
    return ", ".join(ids[:10]) + (" ..." if len(ids) > 10 else "")


def _usage(problem: str) -> int:
    print(f"codex-probe probe: {problem}", file=sys.stderr)
    return USAGE
