"""A Ctrl-C that lands while Python runs a finalizer still interrupts a conformance run.

Python raises KeyboardInterrupt wherever the main thread is when SIGINT arrives. In a
finalizer (an object's `__del__`, a weakref callback, one the garbage collector runs) the
exception cannot propagate: Python prints `Exception ignored in ...` and the run goes on,
to its end and an exit status that says nothing of the Ctrl-C (seen in 1 of 8 runs of
tests/conformance/test_interrupt.py under load). In a conformance run (a `--codex-*` option
given, or the suites named), this plugin takes such a KeyboardInterrupt from Python's
report of it (`harness.unraisable_interrupts`), says nothing of it there, and raises it again at the
next boundary of a check (its setup, call or teardown), where pytest ends the run as
interrupted; one that came after the last boundary makes the run's exit status
INTERRUPTED. Every other unraisable exception goes to the hook that was there before.
"""

from __future__ import annotations

import contextlib

import pytest

from codex_probe.harness.unraisable_interrupts import interrupts_kept


class SwallowedInterrupts:
    """Registered for a conformance run (plugin.py). Its hook goes in front of the one in
    place when the session starts (pytest's own, which turns what it is given into
    warnings, is set in pytest_configure), and `pytest_unconfigure` puts that one back."""

    def __init__(self) -> None:
        self.swallowed = False
        self._hooked = contextlib.ExitStack()

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self._hooked.enter_context(interrupts_kept((KeyboardInterrupt,), self._keep))

    def _keep(self, swallowed: BaseException) -> None:
        self.swallowed = True

    def _raise_if_swallowed(self) -> None:
        if self.swallowed:
            raise KeyboardInterrupt

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self._raise_if_swallowed()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        self._raise_if_swallowed()

    @pytest.hookimpl(trylast=True)  # once the check's own fixtures are torn down
    def pytest_runtest_teardown(self, item: pytest.Item) -> None:
        self._raise_if_swallowed()

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.swallowed:
            session.exitstatus = pytest.ExitCode.INTERRUPTED

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self._hooked.close()
