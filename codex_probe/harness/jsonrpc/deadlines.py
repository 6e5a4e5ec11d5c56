"""The deadlines of a client's requests, kept on one timer.

A timer per request (loop.call_later) cost more than anything else the client does per
request (cProfile, 100 requests in flight: about a third of its time went to creating,
ordering and cancelling TimerHandles). Here a deadline is a (time, key) pair in a heap of
plain tuples, and one loop timer is set for the earliest deadline still of use. A request
answered before its deadline costs nothing more: its pair is dropped when it comes up,
or when the heap has grown well past the requests still waiting.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)

# Rebuild the heap from the waiting keys once it holds this many more pairs than them.
SLACK = 1024


class Deadlines(Generic[Key]):
    """`expire(key)` for each key still `waiting(key)` when its deadline passes."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        *,
        waiting: Callable[[Key], bool],
        expire: Callable[[Key], None],
        count_waiting: Callable[[], int],
    ) -> None:
        self._loop = loop
        self._waiting = waiting
        self._expire = expire
        self._count_waiting = count_waiting
        self._heap: list[tuple[float, int, Key]] = []
        self._added = 0  # a tie-breaker: keys need not be comparable
        self._timer: asyncio.TimerHandle | None = None

    def add(self, key: Key, seconds: float) -> None:
        """Expire `key` in `seconds` (loop time) unless it is no longer waiting by then."""
        at = self._loop.time() + seconds
        self._added += 1
        heapq.heappush(self._heap, (at, self._added, key))
        if self._timer is None or at < self._timer.when():
            self._arm(at)
        if len(self._heap) > 2 * self._count_waiting() + SLACK:
            self._heap = [entry for entry in self._heap if self._waiting(entry[2])]
            heapq.heapify(self._heap)

    def __len__(self) -> int:
        """How many deadlines are kept, answered ones not yet dropped included."""
        return len(self._heap)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._heap.clear()

    def _arm(self, at: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop.call_at(at, self._due)

    def _due(self) -> None:
        self._timer = None
        heap = self._heap
        # The loop may run a timer up to its clock resolution early: the pair is due then.
        now = self._loop.time() + 1e-6
        while heap and (heap[0][0] <= now or not self._waiting(heap[0][2])):
            _, _, key = heapq.heappop(heap)
            if self._waiting(key):
                self._expire(key)
        if heap:
            self._arm(heap[0][0])
