"""The order in which a run starts its scenarios: the longest first.

At most `--jobs` scenarios run at once, started in the order given, so a long scenario
started last stretches the whole phase (measured on 0.150.0: `errors` took 8.7 s and
started 4.6 s in, `tool-call` 6.1 s and started 8.7 s in, of a 14.7 s phase). How long
each one took is known once it has run, so a process that probes release after release (a
history, a bisect, a watch over several releases) starts each scenario by how long it took
the last time, on the same kind of backend; one it has not timed yet starts first, in the
order given. Only the order changes, never what runs or what it finds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable


class Schedule:
    def __init__(self) -> None:
        self._took: dict[tuple[str, str], float] = {}

    def order(self, kind: str, names: Iterable[str]) -> list[str]:
        """`names`, the longest last time first; untimed ones before all, as given."""
        return sorted(names, key=lambda name: -self._took.get((kind, name), math.inf))

    def took(self, kind: str, name: str, seconds: float) -> None:
        self._took[(kind, name)] = seconds


# One per process: what one release's run measured orders the next one's.
SCHEDULE = Schedule()
