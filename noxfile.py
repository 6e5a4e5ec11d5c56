"""Sessions: tests, lint, probe (per version of the default matrix), report, schema_diff.

Run them with ./nox -s NAME (or any nox you have).
"""

from __future__ import annotations

import runpy
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests", "lint"]

PYTHON = "3.11"
# versions.py imports nothing of ours, so nox can read the matrix without the project.
_VERSIONS = runpy.run_path(str(Path(__file__).parent / "harness" / "codex" / "versions.py"))
DEFAULT_MATRIX: list[str] = list(_VERSIONS["DEFAULT_MATRIX"])
DEFAULT_CODEX_VERSION: str = _VERSIONS["DEFAULT_CODEX_VERSION"]


def install_project(session: nox.Session) -> None:
    session.install("--disable-pip-version-check", "-q", "-e", ".[dev]")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The test suite, real codex-cli included (installed from npm on first use)."""
    install_project(session)
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff and mypy --strict over every package."""
    install_project(session)
    session.run("ruff", "check", ".")
    session.run("mypy")


@nox.session(python=PYTHON)
@nox.parametrize("codex", DEFAULT_MATRIX, ids=DEFAULT_MATRIX)
def probe(session: nox.Session, codex: str) -> None:
    """The main job for one version: probe it into reports/VERSION and write its report."""
    install_project(session)
    out = f"reports/{codex}"
    # 3 = a probe broke: the report is still written, and the gate says what that means.
    session.run(
        "codex-probe",
        "probe",
        "--codex",
        codex,
        "--out",
        out,
        *session.posargs,
        success_codes=[0, 3],
    )
    session.run("codex-probe", "report", "--out", out)


@nox.session(python=PYTHON)
def report(session: nox.Session) -> None:
    """reports/html/index.html and reports/summary.md from reports/ (codex-probe report)."""
    install_project(session)
    session.run("codex-probe", "report", *session.posargs)


@nox.session(python=PYTHON)
def schema_diff(session: nox.Session) -> None:
    """Schema drift between the two versions of the default matrix (or the two given)."""
    install_project(session)
    session.run("codex-probe", "schema-diff", *(session.posargs or DEFAULT_MATRIX))


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """The conformance suites, e.g. ./nox -s conformance -- --codex-backend real"""
    install_project(session)
    session.run("pytest", "conformance", *session.posargs)


@nox.session(python=PYTHON)
def fault_campaign(session: nox.Session) -> None:
    """The driver's fault campaign at depth: 3000 random fault schedules on the fake.

    The test command runs the same 300 derandomized ones every time; this explores.
    CODEX_PROBE_FAULT_EXAMPLES=N changes the count; failures are kept in .hypothesis/.
    """
    install_project(session)
    session.run(
        "pytest",
        "tests/driver/test_fault_campaign.py::"
        "test_the_driver_keeps_its_fallback_and_delivery_rules_under_any_fault_schedule",
        "--hypothesis-show-statistics",
        *session.posargs,
        env={"CODEX_PROBE_FAULT_PROFILE": "fault-campaign-deep"},
    )
