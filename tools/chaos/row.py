"""A row of the campaign: what it tries, what the issue expects, and how it checks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tools.chaos.context import Context


@dataclass(frozen=True)
class Observed:
    """What a row saw, and whether that is what was expected."""

    passed: bool
    text: str


@dataclass(frozen=True)
class Row:
    name: str
    expected: str
    check: Callable[[Context], Observed]
    deadline_s: float
    # The issue 25 defect whose fix this row waits for, if any (shown when it fails).
    defect: str = ""


def observed(problems: list[str], seen: str) -> Observed:
    """Passed when there are no problems; the text says what was seen, and what was wrong."""
    if problems:
        return Observed(False, "; ".join(problems) + (f" ({seen})" if seen else ""))
    return Observed(True, seen)
