"""The lifecycle events a turn context is compiled for (spec 4.4, 4.5, 4.7)."""

from __future__ import annotations

from enum import StrEnum


class LifecycleEvent(StrEnum):
    FRESH_START = "fresh_start"  # a new session, started by a user message
    WAKE = "wake"  # resumed because a new message arrived
    RESUME = "resume"  # resumed with unread messages waiting (the "unread" prompt)
    DEFERRED_CONTINUATION = "deferred_continuation"  # a held message, at a safe boundary
    IDLE = "idle"  # resumed with nothing new: the agent is told to stop


class UnknownEventError(ValueError):
    def __init__(self, name: str) -> None:
        known = ", ".join(event.value for event in LifecycleEvent)
        super().__init__(f"unknown event {name!r} (known events: {known})")
        self.name = name


def parse_event(name: str | LifecycleEvent) -> LifecycleEvent:
    try:
        return LifecycleEvent(name)
    except ValueError:
        raise UnknownEventError(str(name)) from None
