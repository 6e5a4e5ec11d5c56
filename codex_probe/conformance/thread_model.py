"""What the lifecycle machine knows of one thread, and so what it predicts the server says.

Threads that never had a turn are forgotten once they leave the process (restart,
unsubscribe): how those resume is pinned by CONF-RESUME-006, not predicted here.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(eq=False)
class ThreadModel:
    """What the machine knows of one thread, and which steps it can take."""

    name: str
    id: str
    loaded: bool = True
    subscribed: bool = True
    materialized: bool = False  # had a turn: on disk, resumable after a restart
    turn_ids: list[str] = field(default_factory=list)  # ended turns, compactions included
    active: str | None = None  # a held turn in progress
    marker: str | None = None

    @property
    def ready(self) -> bool:
        """Loaded, ours, and idle: it can take a turn."""
        return self.loaded and self.subscribed and self.active is None

    @property
    def readable(self) -> bool:
        """Idle, ours and loaded or not loaded at all (then on disk). Not unsubscribed
        (its state differs by version until resumed), nor with an active turn (pinned by
        CONF-RESUME-007)."""
        return (self.subscribed or not self.loaded) and not self.active

    @property
    def resumable(self) -> bool:
        """Had a turn and has none active (an active one: CONF-RESUME-007)."""
        return self.materialized and not self.active

    def expected_status(self) -> str:
        if not self.loaded:
            return "notLoaded"
        return "active" if self.active else "idle"
