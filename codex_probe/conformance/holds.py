"""Held turns: a turn whose model answer the wiretap keeps back until the check lets go.

`Holds` is the conformance wiretap's responder. A marker is live from `hold()` to
`release()`; a model request whose body carries a live marker is answered only after
HOLD_SECONDS (closing the wiretap cuts it short), so its turn stays active until the check
interrupts or steers it. A request carrying only released markers (history) is answered
at once.
"""

from __future__ import annotations

import uuid
from typing import Any

from codex_probe.rig.session import Session
from codex_probe.rig.wiretap import CapturedRequest, Reply

HOLD_SECONDS = 300.0


class Holds:
    def __init__(self) -> None:
        self._live: set[str] = set()

    def hold(self) -> str:
        marker = f"HOLD-{uuid.uuid4().hex}"
        self._live.add(marker)
        return marker

    def release(self, marker: str) -> None:
        self._live.discard(marker)

    def __call__(self, request: CapturedRequest) -> Reply:
        body = request.body_text or ""
        if any(marker in body for marker in self._live):
            return Reply(text="held answer", delay_s=HOLD_SECONDS)
        return Reply(text=f"wiretap reply {request.index}")


async def hold_turn(
    session: Session, holds: Holds, thread_id: str, text: str = "held turn"
) -> tuple[dict[str, Any], str]:
    """Start a turn whose model answer is held back: it is active until interrupted.
    Returns the turn and its marker (release it when the check is done)."""
    marker = holds.hold()
    try:
        turn = await session.start_turn(thread_id, f"{text} {marker}")
    except BaseException:
        holds.release(marker)
        raise
    return turn, marker
