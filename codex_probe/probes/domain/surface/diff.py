"""Two surfaces compared: every key whose value differs, by aspect, with both values, and
whether the reference driver would feel it (codex_probe/harness/driver/touches.py says what it
touches).

Each change carries the rules it meets (classify.py: which rule, by the shape of the change;
rules.py: the catalogue, with a severity each, which a project's levels may override): its
severity is its worst rule's.

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
from codex_probe.probes.domain.surface.classify import Classified, classify
from codex_probe.probes.domain.surface.delta import canonical
from codex_probe.probes.domain.surface.release import ASPECTS, Surface, in_gap
from codex_probe.probes.domain.surface.rules import DEFAULT_LEVELS, Levels, Severity


@dataclass(frozen=True)
class SurfaceChange:
    aspect: str
    key: str
    before: Any  # None: the key is new
    after: Any  # None: the key is gone
    driver_relevant: bool
    details: tuple[Classified, ...] = ()  # worst first

    @property
    def severity(self) -> Severity:
        return self.details[0].severity if self.details else Severity.INFO

    @property
    def rule(self) -> str:
        """The rule of its worst change."""
        return self.details[0].rule if self.details else "value-changed"

    def reclassified(self, levels: Levels) -> SurfaceChange:
        details = classify(self.aspect, self.key, self.before, self.after, levels)
        return SurfaceChange(
            self.aspect, self.key, self.before, self.after, self.driver_relevant, details
        )

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
            "rule": self.rule,
            "severity": self.severity.name,
            "details": [detail.to_json() for detail in self.details],
        }


def diff_command(a: str, b: str, history: str | None = None) -> str:
    """The command that prints every surface difference from A to B: read from a history
    folder that records both, when there is one, else probed."""
    read = f" --history {history}" if history else ""
    return f"codex-probe diff{read} --from {a} --to {b}"


def diff_surfaces(
    before: Surface, after: Surface, levels: Levels = DEFAULT_LEVELS
) -> list[SurfaceChange]:
    """Every change from `before` to `after`, each with its rules: driver-relevant ones
    first, then by aspect in ASPECTS order (an aspect neither knows, after them), then by
    key. Keys of a scenario missing on either side (it broke) are not compared: a gap is
    not a change."""
    touches = driver_touches()
    gaps = [*before.missing, *after.missing]
    changes = []
    aspects = [*ASPECTS, *sorted((before.aspects.keys() | after.aspects.keys()) - set(ASPECTS))]
    for aspect in aspects:
        old, new = before.aspects.get(aspect, {}), after.aspects.get(aspect, {})
        for key in sorted(old.keys() | new.keys()):
            if in_gap(aspect, key, gaps):
                continue
            if canonical(old.get(key)) == canonical(new.get(key)):
                continue
            was, now = old.get(key), new.get(key)
            relevant = is_driver_relevant(aspect, key, was, now, touches)
            details = classify(aspect, key, was, now, levels)
            changes.append(SurfaceChange(aspect, key, was, now, relevant, details))
    order = {aspect: number for number, aspect in enumerate(aspects)}
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
