"""What an exploration has learnt goes unanswered: the methods codex left without an answer
on a thread with no turn held, shared by every lane, which shortens the wait for them.

0.120.0 to 0.125.0 never answer a turn/interrupt of a thread with no turn in flight; codex
answers one it answers at all in milliseconds. A lane's first such call waits the full
deadline unless another lane has learnt it meanwhile: its four thread lanes asked their
first within 7 s of each other on 0.121.0 and each waited 10 s. A history hands what one
release's exploration learnt to the releases after it (probes/releases/sweep.py), so that
0.122.0 to 0.125.0 do not wait the full deadline for what 0.121.0 learnt.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from codex_probe.harness.jsonrpc.errors import RequestTimeout

# A call of a method known to go unanswered is unanswered after this long from its sending.
UNANSWERED_AGAIN_S = 2.0

Request = Callable[[float], Awaitable[Any]]


class Unanswered:
    """Methods seen going unanswered on a thread with no turn held, by any lane."""

    def __init__(self) -> None:
        self._learnt: dict[str, asyncio.Event] = {}

    def __contains__(self, method: object) -> bool:
        return isinstance(method, str) and self._event(method).is_set()

    def add(self, method: str) -> None:
        self._event(method).set()

    def _event(self, method: str) -> asyncio.Event:
        return self._learnt.setdefault(method, asyncio.Event())

    async def ask(self, method: str, request: Request, deadline: float) -> Any:
        """`request(deadline)`'s answer on a thread with no turn held; if this or another
        lane learns meanwhile that `method` goes unanswered, RequestTimeout once
        UNANSWERED_AGAIN_S have passed since it was sent (raised as `request` raises it)."""
        if method in self or deadline <= UNANSWERED_AGAIN_S:
            return await request(min(deadline, UNANSWERED_AGAIN_S))
        sent = time.monotonic()
        answer = asyncio.ensure_future(request(deadline))
        learnt = asyncio.ensure_future(self._event(method).wait())
        try:
            await asyncio.wait({answer, learnt}, return_when=asyncio.FIRST_COMPLETED)
            if answer.done():
                return answer.result()
            left = sent + UNANSWERED_AGAIN_S - time.monotonic()
            done, _ = await asyncio.wait({answer}, timeout=max(left, 0.0))
            if done:
                return answer.result()
            raise RequestTimeout(
                method=method,
                request_id="(learnt unanswered)",
                elapsed=time.monotonic() - sent,
                stderr_tail="",
            )
        finally:
            for task in (answer, learnt):
                task.cancel()
            await asyncio.gather(answer, learnt, return_exceptions=True)
