"""What changed from one surface value to another, in short lines a person reads: a
sequence as the items that went and came (`-`/`+`, difflib), an object as its fields
added (`+`), removed (`-`) and changed (`~`), a value that appeared or went as such."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from typing import Any

MAX_LINES_PER_CHANGE = 12


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def delta(before: Any, after: Any, limit: int = MAX_LINES_PER_CHANGE) -> list[str]:
    """What changed from one value to another, in short lines (at most `limit` and one)."""
    if before is None:
        lines = ["new: " + _short(after)]
    elif after is None:
        lines = ["gone (was: " + _short(before) + ")"]
    elif isinstance(before, list) and isinstance(after, list):
        lines = _sequence_delta(before, after)
    elif isinstance(before, dict) and isinstance(after, dict):
        lines = list(_fields_delta(before, after))
    else:
        lines = [f"{_short(before)} -> {_short(after)}"]
    if len(lines) > limit:
        lines = [*lines[:limit], f"... and {len(lines) - limit} more (the JSON has both values)"]
    return lines


def _sequence_delta(before: list[Any], after: list[Any]) -> list[str]:
    old, new = [_short(item) for item in before], [_short(item) for item in after]
    found = []
    for line in difflib.unified_diff(old, new, lineterm="", n=1):
        if line.startswith(("---", "+++")):
            continue
        found.append("..." if line.startswith("@@") else f"{line[0]} {line[1:]}".rstrip())
    return found or [f"{_short(before)} -> {_short(after)}"]


def _fields_delta(before: dict[str, Any], after: dict[str, Any]) -> Iterable[str]:
    for key in sorted(before.keys() | after.keys()):
        if key not in before:
            yield f"+ {key}: {_short(after[key])}"
        elif key not in after:
            yield f"- {key}: {_short(before[key])}"
        elif canonical(before[key]) != canonical(after[key]):
            old, new = before[key], after[key]
            if isinstance(old, list) and isinstance(new, list):
                yield f"~ {key}:"
                yield from (f"  {line}" for line in _sequence_delta(old, new))
            elif isinstance(old, dict) and isinstance(new, dict):
                yield f"~ {key}:"
                yield from (f"  {line}" for line in _fields_delta(old, new))
            else:
                yield f"~ {key}: {_short(old)} -> {_short(new)}"


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"
