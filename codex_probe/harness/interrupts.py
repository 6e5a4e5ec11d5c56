"""A command ended by Ctrl-C, SIGTERM or SIGHUP as by a cancellation: `Interrupted`.

CI runners stop a job with SIGTERM; a closed terminal sends SIGHUP. Each of them, like
Ctrl-C, cancels the work under way: inside `run_interruptible` its task groups end every
process they started and remove every home before `Interrupted` is raised; between such
runs (`interruptible()`), the signal raises `Interrupted` where the program is, and the
`finally` blocks on the way out clean up. A second signal during that cleanup ends every
app-server at once. The command then says so in one line and exits 128 + the signal's
number.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable, Iterator
from types import FrameType
from typing import Any, TypeVar

from codex_probe.harness.jsonrpc.process import kill_live_groups
from codex_probe.harness.unraisable_interrupts import interrupts_kept

T = TypeVar("T")
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(Exception):
    """The work was stopped by a signal; everything it started has ended."""

    def __init__(self, signal_number: int) -> None:
        self.signal_number = signal_number
        super().__init__(signal.Signals(signal_number).name)

    @property
    def exit_code(self) -> int:
        return 128 + self.signal_number


class _Raising:
    """The handler of an `interruptible()` block: the first signal raises Interrupted where
    the program is; a later one arrives while the program cleans up on its way out, so it
    ends every app-server at once and is otherwise absorbed (a second Interrupted would
    break that cleanup, and a second line would follow the first).

    Where the program is may be a finalizer (an object's `__del__`, a weakref callback),
    whose exception Python cannot pass on: it reports it as unraisable and the program goes
    on. The block keeps such an Interrupted from Python's report of it, unprinted
    (`harness.unraisable_interrupts`), and raises it again at the start of the next
    `run_interruptible`, or when it ends: a command never ends as if no signal had come."""

    def __init__(self) -> None:
        self.received: int | None = None
        self.swallowed = False

    def __call__(self, number: int, frame: FrameType | None) -> None:
        if self.received is None:
            self.received = number
            raise Interrupted(number)
        kill_live_groups()

    def keep(self, swallowed: BaseException) -> None:
        """A signal's exception a finalizer could not pass on (unraisable_interrupts.py)."""
        self.received = self.received or signal.SIGINT
        self.swallowed = True

    def raise_if_swallowed(self) -> None:
        if self.swallowed and self.received is not None:
            self.swallowed = False
            raise Interrupted(self.received)


def _block() -> _Raising | None:
    """The handler of the `interruptible()` block the program is in, if any."""
    handler = signal.getsignal(signal.SIGINT)
    return handler if isinstance(handler, _Raising) else None


@contextlib.contextmanager
def interruptible(*, exiting: bool = False) -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise Interrupted, and so does Ctrl-C (instead
    of KeyboardInterrupt); after the first, further signals are absorbed. The handlers in
    place before are back afterwards, unless `exiting` (the process ends next: its entry
    point) and a signal came: then the process ignores any further one, which Python's
    default handler would turn into a death by SIGINT (exit -2) after the line was said."""
    previous = {number: signal.getsignal(number) for number in SIGNALS}
    outer = _block()
    handler = outer or _Raising()  # a nested block shares what its outer one received
    for number in SIGNALS:
        signal.signal(number, handler)
    try:
        if outer is None:
            with interrupts_kept((Interrupted, KeyboardInterrupt), handler.keep):
                yield
                handler.raise_if_swallowed()
        else:
            yield
    except KeyboardInterrupt:
        handler.received = handler.received or signal.SIGINT
        raise Interrupted(signal.SIGINT) from None
    finally:
        for number, before in previous.items():
            ignore = exiting and handler.received is not None
            signal.signal(number, signal.SIG_IGN if ignore else _handler(before))


def run_interruptible(work: Callable[[], Awaitable[T]]) -> T:
    """Run `work()` on a fresh event loop; a signal of SIGNALS cancels it and raises
    Interrupted once the cancelled work has finished its cleanup, whatever the work ended
    with. The signal handlers in place before are back afterwards."""
    previous = {number: signal.getsignal(number) for number in SIGNALS}
    block = _block()
    if block is not None:
        block.raise_if_swallowed()  # a signal a finalizer swallowed ends the command here

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        received: list[int] = []

        def on_signal(number: int) -> None:
            if not received:
                task.cancel()
            else:  # asked again while cleaning up: end every app-server at once
                kill_live_groups()
            received.append(number)
            if block is not None and block.received is None:
                block.received = number  # the command is on its way out: absorb the next

        for number in SIGNALS:
            loop.add_signal_handler(number, on_signal, number)
        try:
            result = await work()
        except (asyncio.CancelledError, Exception):
            # Work being cancelled may end in an error of its own (a task group whose
            # process was ended under it, a cleanup that failed): the signal still ends it.
            if received:
                raise Interrupted(received[0]) from None
            raise
        finally:
            for number in SIGNALS:
                loop.remove_signal_handler(number)
        if received:  # the work swallowed its cancellation: it was stopped all the same
            raise Interrupted(received[0])
        return result

    try:
        return asyncio.run(guarded())
    finally:
        for number, handler in previous.items():
            signal.signal(number, _handler(handler))


def _handler(handler: Any) -> Any:
    # getsignal gives None for a handler not installed from Python: leave the default.
    return signal.SIG_DFL if handler is None else handler
