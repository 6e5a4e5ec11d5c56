"""`codex-probe probe`: run the live probes on codex-cli versions and write the verdict."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.codex import DEFAULT_CODEX_VERSION, InstallError, NpmError, UnknownVersionError
from harness.codex import install as install_codex
from probes.assumptions import BY_ID
from probes.commands.options import positive_int
from probes.findings import FIDELITY_ID_PREFIX
from probes.release import DEFAULT_JOBS, Selection
from probes.scenarios import SCENARIOS

SUITE = Path(__file__).resolve().parents[1] / "suite"
# A run that could not give every finding asked for a verdict (the gate's code for it).
NO_VERDICT = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "probe",
        help="run the live probes against real codex-cli versions",
        description="Run every probe (or --only some) against each --codex version, on the "
        "real codex-cli and, for fidelity, on the fake; write verdict.json and allure results "
        "under --out and print the assumption-by-version table.",
    )
    parser.add_argument(
        "--codex",
        action="append",
        default=[],
        metavar="VERSION",
        help=f"codex-cli version (repeatable; default {DEFAULT_CODEX_VERSION})",
    )
    parser.add_argument("--out", type=Path, default=Path("reports"), help="output folder")
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
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=DEFAULT_JOBS,
        help=f"scenarios run at once, real and fake (default {DEFAULT_JOBS})",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    known = set(BY_ID) | {f"{FIDELITY_ID_PREFIX}{s}" for s in SCENARIOS}
    unknown = [i for i in args.only if i not in known]
    if unknown:
        print(
            f"codex-probe probe: unknown id(s) {', '.join(unknown)}; known: "
            f"{', '.join(sorted(known))}",
            file=sys.stderr,
        )
        return 2
    versions = args.codex or [DEFAULT_CODEX_VERSION]
    try:
        for version in versions:
            install_codex(version)  # fail fast, with the installer's one-line error
    except (UnknownVersionError, NpmError, InstallError) as error:
        print(f"codex-probe probe: {error}", file=sys.stderr)
        return 2
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "verdict.json").unlink(missing_ok=True)
    pytest_args = [
        "-c",
        str(SUITE / "pytest.ini"),
        "--rootdir",
        str(SUITE),
        "-p",
        "probes.suite.plugin",
        "-p",
        "no:cacheprovider",
        # The conformance plugin (codex-probe's own pytest11 entry point) has no place in a
        # probe run, and our packages are already imported here, so pytest cannot rewrite
        # their asserts; the probes report through pytest.fail, not bare asserts.
        "-p",
        "no:codex_probe",
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
    pytest_args += ["--probe-jobs", str(args.jobs)]
    status = pytest.main(pytest_args)
    verdict_path = out / "verdict.json"
    if not verdict_path.is_file():
        print(f"codex-probe probe: no verdict was written (pytest exit {status})", file=sys.stderr)
        return NO_VERDICT
    verdict = json.loads(verdict_path.read_text())
    selection = Selection.of(args.only, fidelity=not args.no_fidelity)
    found = verdict["versions"]
    missing = [
        f"{v}:{i}" for v in versions for i in selection.finding_ids if i not in found.get(v, {})
    ]
    broken = [
        f"{v}:{i}" for v, per in found.items() for i, e in per.items() if e["verdict"] == "broken"
    ]
    if missing:
        print(
            f"codex-probe probe: {len(missing)} finding(s) asked for have no verdict: "
            + ", ".join(missing[:10])
            + (" ..." if len(missing) > 10 else ""),
            file=sys.stderr,
        )
    if broken:
        print(
            f"codex-probe probe: {len(broken)} finding(s) are broken (no verdict): "
            + ", ".join(broken[:10])
            + (" ..." if len(broken) > 10 else ""),
            file=sys.stderr,
        )
    # Changed assumptions are findings, not failures of the run: the gate judges them.
    return NO_VERDICT if missing or broken else 0
