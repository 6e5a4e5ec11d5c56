"""Which thread lane runs which cell.

A state's calls on its own thread run on the first lane that names the state (run.py,
THREAD_LANES): they share that thread, one after another. Its calls on copies (a thread of
their own each) go to one pool per state, which every lane takes from as it comes: the
lanes that name the state when they get to it, and every other lane once its own states
are done and enough are left to be worth reaching the state for (HELP_AT_LEAST).

A fixed share left each release's exploration ending with one lane still at work: in a
`history` of 0.160.0 to 0.164.0, whose two releases in flight share the CPUs, the lane of
`idle` and `rolled-back` ended 4 to 7 s after the others, the cores half idle meanwhile,
and another fixed share only moved the last lane elsewhere. Which lane runs a call on a
copy does not change what the call finds: each lane reaches the state itself, and a copy is
the state, whichever lane made it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from codex_probe.probes.explore.plan import Cell
from codex_probe.probes.explore.states import THREAD_STATES, UNLOADED

# A lane done with its own states reaches another (a turn or two, a fork, a compaction: 0.1
# to 0.3 CPU-s of codex's) only for at least this many calls left on its copies.
HELP_AT_LEAST = 6
# The states a lane helps with, in this order: not `unloaded`, whose threads an earlier
# process of the lane that names it made.
HELPED = tuple(state for state in THREAD_STATES if state != UNLOADED)

# A cell and its place in the plan (the records are put back in the plan's order).
Placed = tuple[int, Cell]


@dataclass
class Pools:
    """The calls on copies of each state, not yet taken by a lane."""

    cells: dict[str, deque[Placed]] = field(default_factory=dict)

    def take(self, state: str) -> Placed | None:
        pool = self.cells.get(state)
        return pool.popleft() if pool else None

    def take_all(self, state: str) -> list[Placed]:
        taken = list(self.cells.get(state, ()))
        self.cells.pop(state, None)
        return taken

    def left(self, state: str) -> int:
        return len(self.cells.get(state, ()))

    def worth_helping(self, state: str) -> bool:
        return state in HELPED and self.left(state) >= HELP_AT_LEAST


@dataclass
class Share:
    """One lane's part: its states, and the calls on their own threads it runs."""

    states: tuple[str, ...]
    own: list[Placed]


def share_out(cells: list[Cell], lanes: tuple[tuple[str, ...], ...]) -> tuple[list[Share], Pools]:
    """Each lane's share and the pools of copies, in the order of `cells`: a state's calls
    on its own thread go to the first lane that names it, its calls on copies to its pool."""
    shares = [Share(states, []) for states in lanes]
    pools = Pools()
    for place, cell in enumerate(cells):
        holders = [share for share in shares if cell.state in share.states]
        if not holders:
            continue
        if cell.on_copy:
            pools.cells.setdefault(cell.state, deque()).append((place, cell))
        else:
            holders[0].own.append((place, cell))
    return shares, pools
