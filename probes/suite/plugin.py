"""The probe session: options, one test per (assumption, version) and per fake scenario,
findings collected from every test report, verdict.json and the terminal table.

Loaded by `codex-probe probe` with `-p probes.suite.plugin`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.harness.files import write_json
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX
from codex_probe.probes.domain.tally import is_fidelity, tally
from codex_probe.probes.domain.verdict_file import verdict_document
from codex_probe.probes.runner.jobs import DEFAULT_JOBS
from codex_probe.probes.runner.release_run import Selection, Subject
from codex_probe.probes.suite.release_runs import ReleaseRuns
from codex_probe.probes.suite.table import render_table

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
    group.addoption("--probe-backend", choices=("real", "fake"), default="real")
    group.addoption("--probe-repeat", type=int, default=1, help="probe each release N times")
    group.addoption("--probe-fake-script", metavar="FILE", help="fault script of the fake")
    group.addoption("--probe-fake-profile", metavar="FILE", help="profile file of the fake")


def subject(config: pytest.Config) -> Subject:
    """What the findings are about (the real codex-cli unless --probe-backend fake)."""
    script, profile = (
        config.getoption(option) for option in ("--probe-fake-script", "--probe-fake-profile")
    )
    return Subject(
        kind=config.getoption("--probe-backend"),
        script=Path(script) if script else None,
        profile=Path(profile) if profile else None,
    )


def selection(config: pytest.Config) -> Selection:
    """The findings asked for: a fake subject is compared with nothing."""
    only: list[str] = config.getoption("--only")
    fidelity = not config.getoption("--no-fidelity") and subject(config).kind == "real"
    return Selection.of(only or None, fidelity=fidelity)


def versions(config: pytest.Config) -> list[str]:
    chosen: list[str] = config.getoption("--codex")
    return chosen or [DEFAULT_CODEX_VERSION]


def expected_findings(config: pytest.Config) -> list[str]:
    """Every finding the run was asked for, as VERSION:ID."""
    ids = selection(config).finding_ids
    return [f"{version}:{finding_id}" for version in versions(config) for finding_id in ids]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    chosen, asked = versions(metafunc.config), selection(metafunc.config)
    if "assumption_id" in metafunc.fixturenames:
        cases = [
            pytest.param(a.id, v, id=f"{a.id}[{v}]") for v in chosen for a in asked.assumptions
        ]
        metafunc.parametrize(("assumption_id", "codex_version"), cases)
    if "fidelity_scenario" in metafunc.fixturenames:
        cases = [
            pytest.param(s, v, id=f"{FIDELITY_ID_PREFIX}{s}[{v}]")
            for v in chosen
            for s in asked.fidelity
        ]
        metafunc.parametrize(("fidelity_scenario", "codex_version"), cases)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A kind of finding nobody asked for (e.g. fidelity with --no-fidelity) is not a test:
    deselect pytest's placeholder for an empty parameter set rather than report it skipped."""
    placeholders = [
        item
        for item in items
        if any(
            "empty parameter set" in str(mark.kwargs.get("reason", ""))
            for mark in item.iter_markers("skip")
        )
    ]
    if placeholders:
        config.hook.pytest_deselected(items=placeholders)
        items[:] = [item for item in items if item not in placeholders]


@pytest.fixture(scope="session")
def release_runs(pytestconfig: pytest.Config) -> ReleaseRuns:
    out = Path(pytestconfig.getoption("--probe-out"))
    runs = ReleaseRuns(
        selection(pytestconfig),
        jobs=pytestconfig.getoption("--probe-jobs"),
        learned_dir=out / "learned",
        subject=subject(pytestconfig),
        repeat=pytestconfig.getoption("--probe-repeat"),
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


def _finding_of(report: pytest.TestReport) -> tuple[str, str] | None:
    """The (finding id, verdict) a probe test recorded."""
    for name, value in report.user_properties:
        if name == FINDING_PROPERTY:
            found = json.loads(str(value))
            return str(found["id"]), str(found["entry"]["verdict"])
    return None


# What each outcome is called on the terminal: (category, letter, word, colour).
ASSUMPTION_STATUS = {
    "holds": ("holds", ".", "HOLDS", "green"),
    "changed": ("changed", "C", "CHANGED", "yellow"),
    "broken": ("broken", "B", "BROKEN", "red"),
}
FIDELITY_STATUS = {
    "holds": ("same", ".", "SAME", "green"),
    "changed": ("differ", "D", "DIFFERS", "yellow"),
    "broken": ("broken", "B", "BROKEN", "red"),
}


def pytest_report_teststatus(
    report: pytest.TestReport, config: pytest.Config
) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
    """Each probe test reads as its finding: HOLDS, CHANGED or BROKEN (SAME or DIFFERS for
    the fake versus the real one), never PASSED or FAILED, and the last line counts them so.
    A changed assumption is something codex does, not a failure of the run; pytest still
    counts it as a failed test, which is what the Allure results record."""
    if report.when != "call":
        return None
    found = _finding_of(report)
    if found is None:
        return None
    finding_id, verdict = found
    table = FIDELITY_STATUS if is_fidelity(finding_id) else ASSUMPTION_STATUS
    category, letter, word, colour = table[verdict]
    return category, letter, (word, {colour: True})


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


def flipped_findings() -> dict[str, dict[str, dict[str, int]]]:
    """Per version, each finding whose outcome differed between repeats, and how often."""
    return {
        version: {finding_id: dict(tally) for finding_id, tally in found.items()}
        for runs in _session_runs
        for version, found in runs.flips.items()
        if found
    }


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    out = Path(session.config.getoption("--probe-out"))
    document = verdict_document(_session_findings, fake_profiles())
    recorded = {f"{v}:{i}" for v, found in _session_findings.items() for i in found}
    missing = [f for f in expected_findings(session.config) if f not in recorded]
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
    # A verdict that lacks a finding asked for says so: the gate takes it for no verdict.
    document["complete"] = not missing and not interrupted
    document["missing"] = missing
    document["subject"] = subject(session.config).to_json()
    document["repeat"] = session.config.getoption("--probe-repeat")
    document["flips"] = flipped_findings()
    document["sealing"] = {
        version: sealing for runs in _session_runs for version, sealing in runs.sealing.items()
    }
    write_json(out / "verdict.json", document)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if not any(_session_findings.values()):
        return
    write = terminalreporter.write_line
    terminalreporter.section("codex-probe: findings by version")
    for line in render_table(_session_findings):
        write(line)
    write("")
    for version, profile in fake_profiles().items():
        gaps = profile["gaps"]
        write(
            f"fake profile for {version}: {profile['source']} {profile['path']}"
            + (f"; {len(gaps)} observation(s) it cannot express:" if gaps else "")
        )
        for gap in gaps:
            write(
                f"  {gap['field']}: {gap['scenario']} {gap['step']}: "
                f"{gap['observed']} (missing: {gap['missing']})"
            )
        if profile["problem"]:
            write(f"  {profile['problem']}")
    repeat = config.getoption("--probe-repeat")
    if repeat > 1:
        flipped = flipped_findings()
        write(
            f"repeated {repeat} times: "
            + (
                "no finding differs between runs"
                if not flipped
                else f"{sum(len(f) for f in flipped.values())} finding(s) differ between runs "
                "(broken): " + ", ".join(f"{v}:{i}" for v, f in flipped.items() for i in f)
            )
        )
    for line in closing_lines(_session_findings):
        write(line)
    out = Path(config.getoption("--probe-out")) / "verdict.json"
    write(f"verdict: {out}")


def closing_lines(findings: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    """The counts per version, then what the changed and broken findings mean."""
    lines = [
        f"codex {version}: "
        + tally((i, e["verdict"], e["required"]) for i, e in per_version.items())
        for version, per_version in findings.items()
    ]
    changed = [i for per in findings.values() for i, e in per.items() if e["verdict"] == "changed"]
    broken = [i for per in findings.values() for i, e in per.items() if e["verdict"] == "broken"]
    if changed:
        lines.append(
            "A changed assumption is what codex does, not a failure of this run: it is reported "
            "(summary.md, the Allure report), and `codex-probe gate` says whether it blocks a "
            "release."
        )
    if broken:
        lines.append(
            f"{len(broken)} finding(s) are broken: the run could not measure them, so this run "
            "gives no verdict for them (exit 3)."
        )
    return lines
