"""The order in which a run starts its scenarios: the longest first.

At most `--jobs` scenarios run at once, started in the order given, so a long scenario
started last stretches the whole phase (measured on 0.150.0: `errors` took 8.7 s and
started 4.6 s in, `tool-call` 6.1 s and started 8.7 s in, of a 14.7 s phase). How long
each one took is known once it has run: each run records it (per kind of backend) and
keeps it in the cache (`scenario-seconds.json`), so the next run, in this process (a
history, a bisect) or a later one, starts the longest first; one never timed starts first,
in the order given. Only the order changes, never what runs or what it finds: a record
that cannot be read or written is left alone.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path

from codex_probe.harness.codex.cache import cache_root
from codex_probe.harness.files import write_json

FILE = "scenario-seconds.json"


class Schedule:
    def __init__(self, path: Path | Callable[[], Path] | None = None) -> None:
        self._where = path  # a callable: the cache as configured when first used
        self._path: Path | None = None
        self._took: dict[str, float] | None = None  # "KIND NAME" -> seconds; read on use

    def order(self, kind: str, names: Iterable[str]) -> list[str]:
        """`names`, the longest last time first; untimed ones before all, as given."""
        took = self._known()
        return sorted(names, key=lambda name: -took.get(f"{kind} {name}", math.inf))

    def took(self, kind: str, name: str, seconds: float) -> None:
        self._known()[f"{kind} {name}"] = round(seconds, 2)

    def keep(self) -> None:
        """Write what is known to the cache (a failure to is no failure of the run)."""
        if self._path is not None and self._took:
            with contextlib.suppress(OSError):
                write_json(self._path, self._took)

    def _known(self) -> dict[str, float]:
        if self._took is None:
            self._took = {}
            self._path = self._where() if callable(self._where) else self._where
            if self._path is not None:
                with contextlib.suppress(OSError, ValueError):
                    found = json.loads(self._path.read_text(encoding="utf-8"))
                    if isinstance(found, dict):
                        self._took = {
                            str(k): float(v) for k, v in found.items() if isinstance(v, int | float)
                        }
        return self._took


# One per process, kept in the cache between processes.
SCHEDULE = Schedule(lambda: cache_root() / FILE)
