"""`codex-probe probe`: run the live probes on codex-cli versions and write the verdict."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

import codex_probe.probes.suite
from codex_probe.cli.commands.failures import install_failures_end_command
from codex_probe.cli.commands.options import add_jobs_option, positive_int
from codex_probe.cli.commands.output import output_problem
from codex_probe.cli.commands.run_folders import run_folder
from codex_probe.fake_appserver.profile import ProfileError, load_profile
from codex_probe.fake_appserver.script import ScriptError, load_script
from codex_probe.harness.codex.install import install as install_codex
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX
from codex_probe.probes.releases.repro.bundle import REPRO_FOLDER
from codex_probe.probes.runner.scenarios import SCENARIOS

SUITE = Path(codex_probe.probes.suite.__file__).resolve().parent
USAGE = 2
# A run that could not give every finding asked for a verdict (the gate's code for it).
NO_VERDICT = 3
INTERRUPTED = 130


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "probe",
        help="run the live probes against real codex-cli versions",
        description="Run every probe (or --only some) against each --codex version, on the "
        "real codex-cli and, for fidelity, on the fake; write verdict.json and allure results "
        "under --out, a reproduction bundle of each changed or broken finding of the real "
        "codex-cli under --out/repro/, and print the assumption-by-version table. Exit 0: "
        "every finding asked for has a verdict (changed ones included: the gate judges those); "
        "2: usage; 3: a finding is broken or missing; 130: interrupted (verdict.json says "
        "what is missing).",
    )
    parser.add_argument(
        "--codex",
        action="append",
        default=[],
        metavar="VERSION",
        help=f"codex-cli version (repeatable; default {DEFAULT_CODEX_VERSION})",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="output folder (default: reports/VERSION, or reports/V1+V2 for several)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="ID",
        help="only this assumption id (repeatable)",
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
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
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
    versions = args.codex or [DEFAULT_CODEX_VERSION]
    out: Path = args.out or run_folder(versions)
    if problem := output_problem(out, "verdict.json", "summary.md"):
        return _usage(problem)
    bundles = out / REPRO_FOLDER
    if bundles.exists() and not bundles.is_dir():
        return _usage(f"--out {out}: {bundles} is a file, not a folder")
    with install_failures_end_command(USAGE):
        for version in versions:
            install_codex(version)  # fail fast, with the installer's one-line error
    out.mkdir(parents=True, exist_ok=True)
    (out / "verdict.json").unlink(missing_ok=True)
    # An earlier run's bundles would pass for this run's.
    shutil.rmtree(bundles, ignore_errors=True)
    pytest_args = [
        "-c",
        str(SUITE / "pytest.ini"),
        "--rootdir",
        str(SUITE),
        "-p",
        "codex_probe.probes.suite.plugin",
        "-p",
        "no:cacheprovider",
        # Our packages are already imported here, so pytest cannot rewrite their asserts;
        # the probes report through pytest.fail, not bare asserts. (The conformance plugin
        # loads too, as in any pytest run: its options are all --codex-..., none of the
        # probe session's, and it touches no test that does not ask for codex_backend.)
        "--assert=plain",
        "--alluredir",
        str(out / "allure-results"),
        "--clean-alluredir",
        "--probe-out",
        str(out),
        "-v",
        "--tb=line",
        str(SUITE),
    ]
    for version in versions:
        pytest_args += ["--codex", version]
    for finding_id in args.only:
        pytest_args += ["--only", finding_id]
    if args.no_fidelity:
        pytest_args.append("--no-fidelity")
    pytest_args += ["--probe-jobs", str(args.jobs), "--probe-backend", args.backend]
    pytest_args += ["--probe-repeat", str(args.repeat)]
    if args.fake_script is not None:
        pytest_args += ["--probe-fake-script", str(args.fake_script.resolve())]
    if args.fake_profile is not None:
        pytest_args += ["--probe-fake-profile", str(args.fake_profile.resolve())]
    status = pytest.main(pytest_args)
    verdict_path = out / "verdict.json"
    if not verdict_path.is_file():
        print(f"codex-probe probe: no verdict was written (pytest exit {status})", file=sys.stderr)
        return NO_VERDICT
    verdict = json.loads(verdict_path.read_text())
    missing: list[str] = verdict.get("missing", [])
    broken = [
        f"{v}:{i}" for v, per in verdict["versions"].items() for i, e in per.items()
        if e["verdict"] == "broken"
    ]  # fmt: skip
    if status == pytest.ExitCode.INTERRUPTED:
        print(
            f"codex-probe probe: interrupted; {verdict_path} is incomplete: "
            f"{len(missing)} finding(s) did not run",
            file=sys.stderr,
        )
        return INTERRUPTED
    if missing:
        print(
            f"codex-probe probe: {len(missing)} finding(s) asked for have no verdict: "
            + _some(missing),
            file=sys.stderr,
        )
    if broken:
        print(
            f"codex-probe probe: {len(broken)} finding(s) are broken (no verdict): "
            + _some(broken),
            file=sys.stderr,
        )
    # Changed assumptions are findings, not failures of the run: the gate judges them.
    return NO_VERDICT if missing or broken else 0


def _some(ids: list[str]) -> str:
    return ", ".join(ids[:10]) + (" ..." if len(ids) > 10 else "")


def _usage(problem: str) -> int:
    print(f"codex-probe probe: {problem}", file=sys.stderr)
    return USAGE
