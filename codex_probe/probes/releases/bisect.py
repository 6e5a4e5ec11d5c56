"""Find the first release where a finding's value differs from the good release's.

The search is a bisection over the releases between good and bad: it probes about
log2(N) of them. A probe that breaks is skipped, like `git bisect skip`. Bisection can
only be trusted if the history changes once; so every value seen must be the good or the
bad one, and the releases just outside the boundary are probed too. If they disagree with
a single change, the result says the history flips rather than name a wrong boundary.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Step:
    """One release probed: the value compared, or why there is none."""

    version: str
    value: Any = None
    evidence: tuple[str, ...] = ()
    broken: str | None = None

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"version": self.version, "value": self.value}
        if self.broken is not None:
            shown["broken"] = self.broken
        return shown


def same(a: Step, b: Step) -> bool:
    return json.dumps(a.value, sort_keys=True) == json.dumps(b.value, sort_keys=True)


@dataclass
class BisectResult:
    steps: list[Step] = field(default_factory=list)  # in the order they were probed
    first_changed: Step | None = None
    last_same: Step | None = None
    no_change: bool = False
    flips: list[str] = field(default_factory=list)
    unresolved: str | None = None  # why no boundary could be named

    @property
    def found(self) -> bool:
        return self.first_changed is not None and not self.flips and self.unresolved is None


def bisect_releases(releases: list[str], probe: Callable[[str], Step]) -> BisectResult:
    """Bisect `releases` (oldest first; the first is good, the last bad) with `probe`."""
    result = BisectResult()
    seen: dict[int, Step] = {}

    def at(index: int) -> Step:
        if index not in seen:
            seen[index] = probe(releases[index])
            result.steps.append(seen[index])
        return seen[index]

    last = len(releases) - 1
    good, bad = at(0), at(last)
    for end in (good, bad):
        if end.broken is not None:
            result.unresolved = f"{end.version} gave no value: {end.broken}"
            return result
    if same(good, bad):
        result.no_change = True
        return result
    low, high = 0, last  # low shows the good value, high does not
    skipped: set[int] = set()
    while high - low > 1:
        middle = (low + high) // 2
        candidates = [i for i in range(low + 1, high) if i not in skipped]
        if not candidates:
            break
        index = min(candidates, key=lambda i: (abs(i - middle), i))
        step = at(index)
        if step.broken is not None:
            skipped.add(index)
        elif same(step, good):
            low = index
        else:
            high = index
    if high - low > 1:
        broken = ", ".join(releases[i] for i in sorted(skipped))
        result.unresolved = (
            f"the change lies between {releases[low]} and {releases[high]}, but every release "
            f"in between gave no value ({broken})"
        )
        return result
    result.last_same, result.first_changed = seen[low], seen[high]
    for neighbour in (low - 1, high + 1):  # outside the boundary: must agree with one change
        if 0 <= neighbour <= last:
            at(neighbour)
    for index, step in sorted(seen.items()):
        if step.broken is not None:
            continue
        expected = good if index <= low else bad
        if not same(step, expected):
            side = "before" if index <= low else "after"
            result.flips.append(
                f"{step.version} ({side} the boundary) gave {json.dumps(step.value)}, "
                f"not {json.dumps(expected.value)} as one change at {releases[high]} would"
            )
    return result
