"""The codex-probe pytest plugin: its hooks, each handing over to the module that does it.

Registered as the `pytest11` entry point `codex_probe`, so every pytest run of an
environment with codex-probe installed loads it. It stays out of the way of tests
that do not use its fixtures (conformance/fixtures.py).

A test requesting `codex_backend` runs once per target: every `--codex-backend` (fake,
real; default both) times every `--codex-version` (default: the default matrix). Every
option the plugin adds is namespaced `--codex-...` (conformance/options.py).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from codex_probe.conformance.distribution import make_scheduler
from codex_probe.conformance.options import add_options, state_from_options
from codex_probe.conformance.outcomes import OutcomeCollector, settle
from codex_probe.conformance.registry import MARKER
from codex_probe.conformance.selection import parametrize_by_target, select_checks
from codex_probe.conformance.state import state_key
from codex_probe.conformance.summary import write_header, write_results, write_summary

# The fixtures are a plugin of their own, loaded with this one (and never imported before
# it, so that pytest can rewrite its asserts like any plugin's).
pytest_plugins = ["codex_probe.conformance.fixtures"]


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(id): the conformance check (conformance/registry.py) a test is"
    )
    config.stash[state_key] = state = state_from_options(config)
    config.pluginmanager.register(OutcomeCollector(state), "codex_probe_outcomes")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize_by_target(metafunc)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadgroup`, a scheduler that keeps each target on one worker."""
    return make_scheduler(config, log) if config.getvalue("dist") == "loadgroup" else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    select_checks(config, items)


def pytest_collection_finish(session: pytest.Session) -> None:
    write_header(session)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    return settle(item, report)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    write_summary(terminalreporter)


def pytest_unconfigure(config: pytest.Config) -> None:
    write_results(config)
