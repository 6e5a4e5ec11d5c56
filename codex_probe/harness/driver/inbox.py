"""The continuation inbox: exact bodies the active turn could not take, kept in memory.

A body lands here when the server refused to steer it into the active turn for a
reason that ends with that turn (another turn is active, the turn is not steerable).
It leaves exactly once, when the driver takes it at the next safe boundary (the
thread's turn completed) to deliver it. It is the body itself that waits, never a
generic "you have queued messages" nudge in its place.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass


@dataclass(frozen=True)
class HeldMessage:
    number: int  # arrival order across the inbox, for tracing
    thread_id: str
    body: str


class ContinuationInbox:
    def __init__(self) -> None:
        self._held: defaultdict[str, list[HeldMessage]] = defaultdict(list)
        self._numbers = itertools.count(1)

    def hold(self, thread_id: str, body: str) -> HeldMessage:
        message = HeldMessage(next(self._numbers), thread_id, body)
        self._held[thread_id].append(message)
        return message

    def pending(self, thread_id: str) -> list[HeldMessage]:
        return list(self._held.get(thread_id, ()))

    def take(self, thread_id: str) -> list[HeldMessage]:
        """Remove and return the thread's held bodies, oldest first.

        Taking is final: the caller owns their delivery from here on, which is what
        makes "never delivered twice" hold even when that delivery fails.
        """
        return self._held.pop(thread_id, [])

    def __len__(self) -> int:
        return sum(len(messages) for messages in self._held.values())
