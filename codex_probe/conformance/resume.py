"""thread/resume as the protocol asks it, for every check that resumes a thread.

0.120.0 closes an unsubscribed thread in the background and refuses a resume meanwhile
("closing"): the client waits for that thread's thread/closed and asks once more.
"""

from __future__ import annotations

from typing import Any

from codex_probe.conformance.shapes import THREAD_CLOSING, matches
from codex_probe.harness.jsonrpc.errors import ServerError
from codex_probe.rig.session import Session


async def resume_thread(session: Session, thread_id: str, **params: Any) -> dict[str, Any]:
    """The resumed thread of `thread/resume` with `params` (the thread id is ours)."""
    request = {**params, "threadId": thread_id}
    try:
        answer = await session.request("thread/resume", request)
    except ServerError as error:
        if not matches(error, THREAD_CLOSING, thread_id=thread_id):
            raise
        await session.wait_thread("thread/closed", thread_id)
        answer = await session.request("thread/resume", request)
    thread: dict[str, Any] = answer["thread"]
    assert thread.get("id") == thread_id, f"resumed {thread.get('id')!r}, asked for {thread_id}"
    return thread
