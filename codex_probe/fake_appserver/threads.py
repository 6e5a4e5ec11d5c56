"""What a loaded thread is in the fake: its stored record plus this process's view of it.

The effective instructions live here, not on disk, because upstream's differ by
process lifetime (measured: a loaded resume ignores new values; a resume after a
restart applies the new base, and the new developer text only when the initial
context is injected again).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from codex_probe.fake_appserver.store import ThreadRecord


@dataclass
class ActiveTurn:
    turn: dict[str, Any]
    task: asyncio.Task[None] | None = None
    steered: list[str] = field(default_factory=list)
    # Set when input is steered in, so a model request in flight can be abandoned.
    steer_arrived: asyncio.Event = field(default_factory=asyncio.Event)
    # The turn/start named another model than the thread's (behaviour.model_switch).
    model_switched: bool = False


@dataclass
class LoadedThread:
    record: ThreadRecord
    base: str | None
    developer: str | None
    active: ActiveTurn | None = None
    # The client unsubscribed and the thread stayed loaded: a second unsubscribe answers
    # notSubscribed; the next resume unloads it (0.171.0) or subscribes again.
    unsubscribed: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # turn/interrupt requests without a turn that wait for a turn to be interrupted (0.120.0).
    held_interrupts: list[asyncio.Future[None]] = field(default_factory=list)

    @property
    def id(self) -> str:
        thread_id: str = self.record["id"]
        return thread_id

    @property
    def approval_policy(self) -> str:
        """When codex asks the client before it runs a command (thread/start, else config)."""
        return str(self.record.get("approval_policy", "on-request"))

    @property
    def sandbox_mode(self) -> str:
        """What a command may write: read-only, workspace-write, danger-full-access."""
        return str(self.record.get("sandbox_mode", "read-only"))

    def listed_turns(self) -> list[dict[str, Any]]:
        """The turns thread/read and thread/resume list: the ended ones, then the active one."""
        ended: list[dict[str, Any]] = self.record["turns"]
        return [*ended, self.active.turn] if self.active else ended

    def release_held_interrupts(self) -> None:
        for waiting in self.held_interrupts:
            if not waiting.done():
                waiting.set_result(None)
        self.held_interrupts.clear()
