"""Sessions: tests, lint, probe (the main job). Run them with ./nox -s NAME."""

from __future__ import annotations

from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests", "lint"]

PYTHON = "3.11"
# Read from the package source so nox needs nothing installed to know it.
DEFAULT_CODEX_VERSION = next(
    line.split('"')[1]
    for line in Path("harness/codex/versions.py").read_text(encoding="utf-8").splitlines()
    if line.startswith("DEFAULT_CODEX_VERSION")
)


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
def probe(session: nox.Session) -> None:
    """The main job: probe the default codex-cli (or the versions given after --)."""
    install_project(session)
    versions = session.posargs or [DEFAULT_CODEX_VERSION]
    args = [arg for version in versions for arg in ("--codex", version)]
    session.run("codex-probe", "probe", "--out", "reports", *args)
