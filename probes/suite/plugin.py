"""The probe session: options, one test per (assumption, version) and per fake scenario,
findings collected from every test report, verdict.json and the terminal table.

Loaded by `codex-probe probe` with `-p probes.suite.plugin`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from harness.codex import DEFAULT_CODEX_VERSION
from probes.assumptions import ASSUMPTIONS
from probes.findings import FIDELITY_ID_PREFIX
from probes.scenarios import SCENARIOS
from probes.suite.observations import ObservationCache
from probes.suite.table import render_table

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
            pytest.param(
                a.id, v, id=f"{a.id}[{v}]", marks=pytest.mark.xdist_group(f"{v}-{a.scenario}")
            )
            for v in chosen
            for a in ASSUMPTIONS
            if only is None or a.id in only
        ]
        metafunc.parametrize(("assumption_id", "codex_version"), cases)
    if "fidelity_scenario" in metafunc.fixturenames:
        skip = metafunc.config.getoption("--no-fidelity")
        cases = [
            pytest.param(
                s, v, id=f"{FIDELITY_ID_PREFIX}{s}[{v}]", marks=pytest.mark.xdist_group(f"{v}-{s}")
            )
            for v in chosen
            for s in SCENARIOS
            if not skip and (only is None or f"{FIDELITY_ID_PREFIX}{s}" in only)
        ]
        metafunc.parametrize(("fidelity_scenario", "codex_version"), cases)


@pytest.fixture(scope="session")
def observations(pytestconfig: pytest.Config) -> ObservationCache:
    return ObservationCache(compare_with_fake=not pytestconfig.getoption("--no-fidelity"))


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


# Reports of every worker reach the controller through this hook; keyed by version.
_session_findings: dict[str, dict[str, dict[str, Any]]] = {}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: the controller writes the verdict
    out = Path(session.config.getoption("--probe-out"))
    out.mkdir(parents=True, exist_ok=True)
    verdict = {
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "tool": "codex-probe 0.1.0",
        "versions": {v: dict(sorted(f.items())) for v, f in _session_findings.items() if f},
    }
    (out / "verdict.json").write_text(json.dumps(verdict, indent=2) + "\n", encoding="utf-8")


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not any(_session_findings.values()):
        return
    terminalreporter.section("codex-probe: assumption by version")
    for line in render_table(_session_findings):
        terminalreporter.write_line(line)
    out = Path(config.getoption("--probe-out")) / "verdict.json"
    terminalreporter.write_line(f"verdict: {out}")
