"""The `pytest` extra of codex-probe: the packages the conformance suites and their
fixtures need beyond pytest, which `pip install codex-probe` leaves out.

The plugin is a `pytest11` entry point, so pytest loads it in any environment codex-probe
is installed in, extra or not; without the extra it offers its options and nothing else,
and a run that gives one is a usage error that says how to install the extra.
"""

from __future__ import annotations

from importlib.util import find_spec

# Import name -> distribution name, as pyproject.toml's `pytest` extra lists them.
PACKAGES = {
    "pytest_asyncio": "pytest-asyncio",
    "hypothesis": "hypothesis",
    "allure_pytest": "allure-pytest",
}
INSTALL = "pip install 'codex-probe[pytest]'"


def missing() -> list[str]:
    """The extra's distributions this environment lacks (none when it is installed)."""
    return [name for module, name in PACKAGES.items() if find_spec(module) is None]


def missing_line(absent: list[str]) -> str:
    return (
        f"codex-probe's conformance suites need its pytest extra ({', '.join(absent)} "
        f"missing): {INSTALL}"
    )
