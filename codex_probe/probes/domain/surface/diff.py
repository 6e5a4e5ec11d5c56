"""Two surfaces compared: every key whose value differs, by aspect, with both values, and
whether the reference driver would feel it (codex_probe/harness/driver/touches.py says what it
touches).

A change is driver-relevant when it is about
- a request the driver sends (its answer, its refusal, its params in the schema, the
  handshake it opens every server with);
- a notification it waits on (a step's sequence of those, or its params in the schema);
- a method it sends, explored in any state and variant.
Model requests are the design's business, not the driver's: none is driver-relevant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codex_probe.harness.driver.touches import DriverTouches, driver_touches
from codex_probe.probes.domain.surface.delta import canonical
from codex_probe.probes.domain.surface.release import ASPECTS, Surface, in_gap


@dataclass(frozen=True)
class SurfaceChange:
    aspect: str
    key: str
    before: Any  # None: the key is new
    after: Any  # None: the key is gone
    driver_relevant: bool

    @property
    def name(self) -> str:
        """`ASPECT KEY`: how a baseline entry and `bisect --surface` name it."""
        return f"{self.aspect} {self.key}"

    def to_json(self) -> dict[str, Any]:
        return {
            "aspect": self.aspect,
            "key": self.key,
            "before": self.before,
            "after": self.after,
            "driver_relevant": self.driver_relevant,
        }


def diff_surfaces(before: Surface, after: Surface) -> list[SurfaceChange]:
    """Every change from `before` to `after`: driver-relevant ones first, then by aspect
    in ASPECTS order, then by key. Keys of a scenario missing on either side (it broke)
    are not compared: a gap is not a change."""
    touches = driver_touches()
    gaps = [*before.missing, *after.missing]
    changes = []
    for aspect in ASPECTS:
        old, new = before.aspects.get(aspect, {}), after.aspects.get(aspect, {})
        for key in sorted(old.keys() | new.keys()):
            if in_gap(aspect, key, gaps):
                continue
            if canonical(old.get(key)) == canonical(new.get(key)):
                continue
            relevant = is_driver_relevant(aspect, key, old.get(key), new.get(key), touches)
            changes.append(SurfaceChange(aspect, key, old.get(key), new.get(key), relevant))
    order = {aspect: number for number, aspect in enumerate(ASPECTS)}
    return sorted(changes, key=lambda c: (not c.driver_relevant, order[c.aspect], c.key))


def is_driver_relevant(
    aspect: str, key: str, before: Any, after: Any, touches: DriverTouches
) -> bool:
    if aspect == "initialize":
        return "initialize" in touches.sends and key.startswith("initialize ")
    if aspect in ("answers", "refusals"):
        method = key.split(" ")[2] if len(key.split(" ")) > 2 else ""
        return method in touches.sends
    if aspect == "notifications":
        return _read_by_driver(before, touches) != _read_by_driver(after, touches)
    if aspect == "exploration":  # `METHOD STATE VARIANT`
        return key.split(" ", 1)[0] in touches.sends
    if aspect == "schema":
        kind, _, method = key.rpartition(" ")
        if kind == "client request":
            return method in touches.sends
        return kind == "server notification" and method in touches.reads
    return False


def _read_by_driver(labels: Any, touches: DriverTouches) -> list[str]:
    """The notifications of a step the driver reads, in order."""
    return [label for label in labels or [] if str(label).split(":")[0] in touches.reads]
