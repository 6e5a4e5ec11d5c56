"""Sessions: tests, lint, probe (the main job). Run them with ./nox -s NAME."""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests", "lint"]

PYTHON = "3.11"


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
    """The main job: install the default codex-cli and check it (grows into the probe run)."""
    install_project(session)
    session.run("codex-probe", "smoke", *session.posargs)
