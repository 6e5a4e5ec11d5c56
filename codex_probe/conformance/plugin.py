"""The codex-probe pytest plugin: its hooks, each handing over to the module that does it.

Registered as the `pytest11` entry point `codex_probe`, so every pytest run of an
environment with codex-probe installed loads it, whether or not its `pytest` extra is
(codex_probe/conformance/extra.py: without it, the options alone, and a run that gives one
or names the suites is a usage error saying how to install it). It costs such a run
nothing it does not use: loading it imports pytest's own modules and the plugin's options,
fixtures, registry and targets, none of which import the rig (aiohttp, jsonschema...).
The rest loads once a --codex-* option is given (to check it before collection) or a
test asks for one of its fixtures (codex_probe/conformance/fixtures.py).

A test requesting `codex_backend` runs once per target: every `--codex-backend` (fake,
real; default both) times every `--codex-version` (default: the default matrix). Every
option the plugin adds is namespaced `--codex-...` (codex_probe/conformance/options.py), every
fixture `codex_...`.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from codex_probe.conformance.distribution import make_scheduler
from codex_probe.conformance.extra import missing, missing_line
from codex_probe.conformance.options import add_options, options_given
from codex_probe.conformance.outcomes import OutcomeCollector, settle
from codex_probe.conformance.registry import MARKER
from codex_probe.conformance.selection import parametrize_by_target, select_checks
from codex_probe.conformance.state import state_of
from codex_probe.conformance.summary import write_header, write_results, write_summary
from codex_probe.conformance.swallowed_interrupts import SwallowedInterrupts

# What the `pytest` extra would have installed and is not there (extra.py): without it the
# plugin adds its options and nothing else, and a run that gives one is a usage error.
MISSING = missing()
SUITES = Path(__file__).resolve().parent / "suites"
SUITES_MODULE = "codex_probe.conformance.suites"

# The fixtures are a plugin of their own, loaded with this one (and never imported before
# it, so that pytest can rewrite its asserts like any plugin's).
pytest_plugins = [] if MISSING else ["codex_probe.conformance.fixtures"]


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(id): the conformance check (codex_probe/conformance/registry.py) a test is",
    )
    if MISSING and (options_given(config) or _names_the_suites(config)):
        raise pytest.UsageError(missing_line(MISSING))
    if options_given(config):
        state_of(config)  # a wrong option is a usage error now, before anything is collected
    if options_given(config) or _names_the_suites(config):
        config.pluginmanager.register(SwallowedInterrupts(), "codex_probe_swallowed_interrupts")
    config.pluginmanager.register(OutcomeCollector(config), "codex_probe_outcomes")


def _names_the_suites(config: pytest.Config) -> bool:
    """The run was given the suites (or a folder or package holding them) to collect."""
    for arg in config.args:
        target = arg.split("::")[0]
        if config.option.pyargs and _module_within(target, SUITES_MODULE):
            return True
        path = Path(target).resolve()
        if path.is_relative_to(SUITES) or SUITES.is_relative_to(path):
            return True
    return False


def _module_within(one: str, other: str) -> bool:
    return one == other or one.startswith(f"{other}.") or other.startswith(f"{one}.")


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
    return settle(item, report, call.excinfo.value if call.excinfo else None)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    write_summary(terminalreporter)


def pytest_unconfigure(config: pytest.Config) -> None:
    write_results(config)
