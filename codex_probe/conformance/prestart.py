"""Start the next lifecycle example's app-server while the current example runs.

Every example of the state machine needs a fresh process on a fresh home and
wiretap; starting one costs 150-250 ms, most of an example's time. All examples of
one test share one event loop, and the process of example N+1 is started (and
initialized) in the background during example N. Whatever is still pending when
the test ends is shut down by `close()`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from codex_probe.conformance.holds import Holds
from codex_probe.rig.backends import Backend
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.session import Session
from codex_probe.rig.wiretap import Wiretap

T = TypeVar("T")


@dataclass
class Booted:
    """A wiretap, a home on it, and a session holding one initialized process."""

    tap: Wiretap
    home: IsolatedHome
    session: Session
    holds: Holds

    async def close(self) -> None:
        try:
            await self.session.close()
            await self.tap.close()
        finally:
            self.home.cleanup()


async def boot(backend: Backend, homes: Path, timeout: float) -> Booted:
    holds = Holds()
    tap = Wiretap(responder=holds)
    await tap.start()
    home = IsolatedHome(tap.base_url, parent_dir=homes)
    booted = Booted(tap, home, Session(backend, tap, home, timeout=timeout), holds)
    try:
        await booted.session.open()
    except BaseException:
        await booted.close()
        raise
    return booted


class Prestarter:
    """Hands out booted sessions, each started while the previous one was in use."""

    def __init__(
        self, runner: asyncio.Runner, backend: Backend, homes: Path, timeout: float
    ) -> None:
        self.runner = runner
        self.loop = runner.get_loop()
        self.backend = backend
        self.homes = homes
        self.timeout = timeout
        self._next: asyncio.Task[Booted] | None = None

    def run(self, work: Awaitable[T], *, timeout: float) -> T:
        """`work` run to its end on the examples' loop, within `timeout` seconds. Through
        asyncio.Runner: a Ctrl-C cancels `work` and then raises KeyboardInterrupt here,
        instead of landing in whatever task runs at that moment (a wiretap handler, say),
        whose exception nobody would retrieve."""
        return self.runner.run(_within(work, timeout))

    def _start(self) -> asyncio.Task[Booted]:
        return self.loop.create_task(boot(self.backend, self.homes, self.timeout))

    def take(self) -> Booted:
        """The prestarted session (or a new one), and the next one set going."""
        task, self._next = self._next or self._start(), None
        booted = self.run(task, timeout=self.timeout)
        self._next = self._start()
        return booted

    def close(self) -> None:
        """End the session started for an example that never came."""
        task, self._next = self._next, None
        if task is None:
            return
        with contextlib.suppress(Exception):
            booted = self.run(task, timeout=self.timeout)
            self.run(booted.close(), timeout=self.timeout)


async def _within(work: Awaitable[T], seconds: float) -> T:
    # asyncio.timeout, not wait_for: on Python 3.11, wait_for returns its work's result when
    # a cancellation arrives just as that work finishes (cpython gh-86296), and the Ctrl-C
    # that asked for it is lost.
    try:
        async with asyncio.timeout(seconds):
            result = await work
    except Exception:
        _still_cancelled()
        raise
    _still_cancelled()
    return result


def _still_cancelled() -> None:
    """Raise CancelledError if this task's cancellation (asyncio.Runner's, for a Ctrl-C) is
    still pending: work that ended in an error of its own while being cancelled (a cleanup
    that failed on the way out), or that swallowed it, would otherwise hand the Runner
    something other than CancelledError, and the Ctrl-C would become a failed example that
    hypothesis replays: the likely cause of one run under load that ended in hypothesis's
    "Inconsistent results from replaying a test case" and exit 1 instead of exit 2."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
