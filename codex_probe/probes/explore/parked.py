"""Cells whose tail runs beside the lane's next cells.

A cell on a copy of its own (a thread no other cell is asked about) may have nothing left
to do but wait: for a notification a task of codex's sends after the answer, or may never
send (waits.AWAITS: an unsubscribe's `thread/closed` 0.5 s, that 0.122.0 to 0.171.0 never
send), for the warning of a thread loaded with settings, or for the answer to a method the
release is known to leave unanswered (unanswered.py: 2 s each, some 17 calls a release on
0.121.0 to 0.125.0). The lane then goes on with its next cell on another copy while that
one waits; the cell's window is what it was (from its request to its own fence after its
waits), and what the cells beside it caused there is about other threads, which
`Lane.finish` leaves out of a thread state's cell. A lane waits for what it parked before
its app-server ends.

What the lane keeps for them: the notifications about their threads stay buffered when the
next cell starts (`threads`), so that a wait of theirs finds what came meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from codex_probe.probes.explore.record import CellRecord


@dataclass
class Parked:
    """A cell the lane went on from; its record once `task` is done."""

    task: asyncio.Task[CellRecord]
    # The cell's threads: its copy, and those its answer named once it came.
    threads: set[str]


class ParkedCells:
    """A lane's parked cells."""

    def __init__(self) -> None:
        self._cells: list[Parked] = []

    def park(self, rest: Coroutine[Any, Any, CellRecord], threads: set[str]) -> Parked:
        """`rest` of a cell, run beside the lane's next cells."""
        parked = Parked(asyncio.ensure_future(rest), threads)
        self._cells.append(parked)
        return parked

    def threads(self) -> set[str]:
        """The threads of the cells still waiting."""
        return {thread for cell in self._cells if not cell.task.done() for thread in cell.threads}

    async def settled(self) -> None:
        """Once every parked cell is done (a failure stays in its task, for its owner)."""
        await asyncio.gather(*(cell.task for cell in self._cells), return_exceptions=True)

    async def abandon(self) -> None:
        """Cancel what still waits (the app-server is gone) and wait for it to end."""
        for cell in self._cells:
            cell.task.cancel()
        await self.settled()


def record_of(entry: CellRecord | Parked) -> CellRecord | None:
    """The cell's record: at once, or its parked task's once done well; else None."""
    if isinstance(entry, CellRecord):
        return entry
    task = entry.task
    if not task.done() or task.cancelled() or task.exception() is not None:
        return None
    return task.result()
