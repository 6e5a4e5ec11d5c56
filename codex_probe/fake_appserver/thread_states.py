"""The state of each thread as the exploration names them (probes/explore/states.py), as
the calls the fake sees move it: which cells of the answer book answer a call about it.

    none         an id the fake has neither loaded nor stored (or one it deleted)
    unloaded     stored by an earlier process of the same home, not loaded by this one
    new          loaded, never had a turn (codex has written no rollout of it yet)
    idle         loaded, no turn running
    in-flight    loaded, a turn running
    compacted    compacted since (thread/compact/start answered)
    archived     archived (thread/archive answered) until unarchived
    forked       made by thread/fork
    rolled-back  rolled back (thread/rollback or thread/revert answered)

The last of compacted, forked and rolled-back that happened to a thread is its state while
it is idle (a fork of a compacted or rolled-back thread carries its history, and stays
so); a turn running makes it in-flight, archiving it archived.
"""

from __future__ import annotations

from typing import Any

NONE = "none"
UNLOADED = "unloaded"
NEW = "new"
IDLE = "idle"
IN_FLIGHT = "in-flight"
COMPACTED = "compacted"
ARCHIVED = "archived"
FORKED = "forked"
ROLLED_BACK = "rolled-back"
DELETED = "deleted"  # the fake's own mark: the thread is gone, a call about it is `none`

# What a thread's history says, which a fork of it carries.
HISTORY = (COMPACTED, ROLLED_BACK)
# The state an answered call leaves its thread in (thread/fork: the new thread).
MOVES = {
    "thread/archive": ARCHIVED,
    "thread/unarchive": IDLE,
    "thread/compact/start": COMPACTED,
    "thread/rollback": ROLLED_BACK,
    "thread/revert": ROLLED_BACK,
    "thread/delete": DELETED,
}


class ThreadStates:
    def __init__(self) -> None:
        self._marks: dict[str, str] = {}

    def state_of(
        self,
        thread_id: str | None,
        *,
        loaded: bool,
        active: bool,
        stored: bool,
        had_turns: bool = True,
    ) -> str:
        """The state of `thread_id` given what the fake holds of it (`had_turns`: whether
        it has had a turn, or carries one: a fork's parent's)."""
        if thread_id is None:
            return NONE
        mark = self._marks.get(thread_id)
        if mark == DELETED:
            return NONE
        if mark == ARCHIVED:
            return ARCHIVED
        if not loaded:
            return UNLOADED if stored else NONE
        if active:
            return IN_FLIGHT
        return mark or (IDLE if had_turns else NEW)

    def saw(self, method: str, params: Any, result: Any) -> None:
        """Move the thread of an answered call `method` (a refusal moves nothing)."""
        if method == "thread/fork":
            thread = result.get("thread") if isinstance(result, dict) else None
            parent = params.get("threadId") if isinstance(params, dict) else None
            if isinstance(thread, dict) and isinstance(thread.get("id"), str):
                # A fork carries its parent's history: a compacted or rolled-back one stays so.
                inherited = self._marks.get(parent) if isinstance(parent, str) else None
                self._marks[thread["id"]] = inherited if inherited in HISTORY else FORKED
            return
        moved = MOVES.get(method)
        thread_id = params.get("threadId") if isinstance(params, dict) else None
        if moved is None or not isinstance(thread_id, str):
            return
        if moved == IDLE:
            self._marks.pop(thread_id, None)
        else:
            self._marks[thread_id] = moved

    def is_archived(self, thread_id: str) -> bool:
        return self._marks.get(thread_id) == ARCHIVED
