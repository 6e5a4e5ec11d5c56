"""A command's async work, ended by Ctrl-C, SIGTERM or SIGHUP as by a cancellation.

CI runners stop a job with SIGTERM; a closed terminal sends SIGHUP. Each of them, like
Ctrl-C, cancels the work: its task groups end every process they started and remove every
home, and the command then says so in one line and exits 128 + the signal's number.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(Exception):
    """The work was cancelled by a signal; everything it started has ended."""

    def __init__(self, signal_number: int) -> None:
        self.signal_number = signal_number
        super().__init__(signal.Signals(signal_number).name)

    @property
    def exit_code(self) -> int:
        return 128 + self.signal_number


def run_interruptible(work: Callable[[], Awaitable[T]]) -> T:
    """Run `work()` on a fresh event loop; a signal of SIGNALS raises Interrupted once the
    cancelled work has finished its cleanup."""

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        received: list[int] = []

        def on_signal(number: int) -> None:
            if not received:
                task.cancel()
            received.append(number)

        for number in SIGNALS:
            loop.add_signal_handler(number, on_signal, number)
        try:
            return await work()
        except asyncio.CancelledError:
            if received:
                raise Interrupted(received[0]) from None
            raise
        finally:
            for number in SIGNALS:
                loop.remove_signal_handler(number)

    return asyncio.run(guarded())
