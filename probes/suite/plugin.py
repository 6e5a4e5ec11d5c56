"""The probe session: options, one test per (assumption, version) and per fake scenario,
findings collected from every test report, verdict.json and the terminal table.

Loaded by `codex-probe probe` with `-p probes.suite.plugin`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.codex import DEFAULT_CODEX_VERSION
from probes.assumptions import ASSUMPTIONS
from probes.files import write_json
from probes.findings import FIDELITY_ID_PREFIX
from probes.release import DEFAULT_JOBS, Selection
from probes.scenarios import SCENARIOS
from probes.suite.release_runs import ReleaseRuns
from probes.suite.table import render_table
from probes.verdict_file import verdict_document

FINDING_PROPERTY = "codex_probe_finding"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("codex-probe probes")
    group.addoption(
        "--codex",
        action="append",
        default=[],
        metavar="VERSION",
        help="codex-cli version to probe (repeatable)",
    )
    group.addoption(
        "--only",
        action="append",
        default=[],
        metavar="ID",
        help="run only these assumption ids (repeatable)",
    )
    group.addoption("--probe-out", default="reports", help="folder for verdict.json")
    group.addoption(
        "--no-fidelity", action="store_true", help="do not run the scenarios on the fake too"
    )
    group.addoption(
        "--probe-jobs",
        type=int,
        default=DEFAULT_JOBS,
        help=f"scenarios run at once (default {DEFAULT_JOBS})",
    )


def selected_ids(config: pytest.Config) -> set[str] | None:
    only: list[str] = config.getoption("--only")
    return set(only) if only else None


def versions(config: pytest.Config) -> list[str]:
    chosen: list[str] = config.getoption("--codex")
    return chosen or [DEFAULT_CODEX_VERSION]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    only = selected_ids(metafunc.config)
    chosen = versions(metafunc.config)
    if "assumption_id" in metafunc.fixturenames:
        cases = [
            pytest.param(a.id, v, id=f"{a.id}[{v}]")
            for v in chosen
            for a in ASSUMPTIONS
            if only is None or a.id in only
        ]
        metafunc.parametrize(("assumption_id", "codex_version"), cases)
    if "fidelity_scenario" in metafunc.fixturenames:
        skip = metafunc.config.getoption("--no-fidelity")
        cases = [
            pytest.param(s, v, id=f"{FIDELITY_ID_PREFIX}{s}[{v}]")
            for v in chosen
            for s in SCENARIOS
            if not skip and (only is None or f"{FIDELITY_ID_PREFIX}{s}" in only)
        ]
        metafunc.parametrize(("fidelity_scenario", "codex_version"), cases)


@pytest.fixture(scope="session")
def release_runs(pytestconfig: pytest.Config) -> ReleaseRuns:
    selection = Selection.of(
        selected_ids(pytestconfig), fidelity=not pytestconfig.getoption("--no-fidelity")
    )
    out = Path(pytestconfig.getoption("--probe-out"))
    runs = ReleaseRuns(
        selection, jobs=pytestconfig.getoption("--probe-jobs"), learned_dir=out / "learned"
    )
    _session_runs.append(runs)
    return runs


@pytest.fixture
def record_finding(record_property: Any) -> Any:
    """Record a finding's JSON on the test report, where the controller collects it."""

    def record(version: str, assumption_id: str, entry: dict[str, Any]) -> None:
        record_property(
            FINDING_PROPERTY, json.dumps({"version": version, "id": assumption_id, "entry": entry})
        )

    return record


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for name, value in report.user_properties:
        if name == FINDING_PROPERTY and report.when == "call":
            found = json.loads(str(value))
            _session_findings.setdefault(found["version"], {})[found["id"]] = found["entry"]


# Findings of the session, keyed by version; the release runs behind them.
_session_findings: dict[str, dict[str, dict[str, Any]]] = {}
_session_runs: list[ReleaseRuns] = []


def fake_profiles() -> dict[str, dict[str, Any]]:
    """Per version, the profile the fake ran on (checked in or learned) and its gaps."""
    return {
        version: run.profile.to_json()
        for runs in _session_runs
        for version, run in runs.runs.items()
        if run.profile is not None
    }


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    out = Path(session.config.getoption("--probe-out"))
    write_json(out / "verdict.json", verdict_document(_session_findings, fake_profiles()))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if not any(_session_findings.values()):
        return
    terminalreporter.section("codex-probe: assumption by version")
    for line in render_table(_session_findings):
        terminalreporter.write_line(line)
    for version, profile in fake_profiles().items():
        gaps = profile["gaps"]
        terminalreporter.write_line(
            f"fake profile for {version}: {profile['source']} {profile['path']}"
            + (f"; {len(gaps)} observation(s) it cannot express:" if gaps else "")
        )
        for gap in gaps:
            terminalreporter.write_line(
                f"  {gap['field']}: {gap['scenario']} {gap['step']}: "
                f"{gap['observed']} (missing: {gap['missing']})"
            )
        if profile["problem"]:
            terminalreporter.write_line(f"  {profile['problem']}")
    out = Path(config.getoption("--probe-out")) / "verdict.json"
    terminalreporter.write_line(f"verdict: {out}")
