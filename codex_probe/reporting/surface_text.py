"""Surface changes as text a person reads: the driver's first, then the rest, by aspect.

Each change is its key and what changed in its value, shortest first: a sequence as the
lines that went and came (`-`/`+`), an object as its fields added, removed and retyped, a
value that appeared or went as such. Changes of one aspect with the same values before and
after (the answer to thread/start, changed alike in every scenario that starts a thread)
are told once, with every key they happened at. `codex-probe diff --json` keeps every
change and both values whole.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from typing import Any

from codex_probe.probes.domain.surface.diff import SurfaceChange, canonical
from codex_probe.probes.domain.surface.release import ASPECTS

MAX_LINES_PER_CHANGE = 12
HEADINGS = {
    "initialize": "initialize (with and without experimentalApi)",
    "notifications": "notifications (per request, in order)",
    "answers": "answer shapes",
    "refusals": "refusals",
    "model_requests": "model requests",
    "schema": "schema methods",
}


def render_changes(a: str, b: str, changes: list[SurfaceChange]) -> list[str]:
    relevant = [c for c in changes if c.driver_relevant]
    lines = [
        f"codex-cli {a} -> {b}: {len(changes)} surface difference(s), "
        f"{len(relevant)} the reference driver would feel"
    ]
    if not changes:
        return lines
    for title, group in (
        ("What the reference driver touches", relevant),
        ("Everything else", [c for c in changes if not c.driver_relevant]),
    ):
        if not group:
            continue
        lines += ["", title]
        for aspect in ASPECTS:
            in_aspect = [c for c in group if c.aspect == aspect]
            if in_aspect:
                lines.append(f"  {HEADINGS[aspect]}: {len(in_aspect)}")
                for alike in alike_changes(in_aspect):
                    lines += [f"    {where(alike)}"] + [f"      {x}" for x in delta(alike[0])]
    return lines


def alike_changes(changes: list[SurfaceChange]) -> list[list[SurfaceChange]]:
    """The changes grouped by their values before and after, in the order first seen."""
    groups: dict[tuple[str, str], list[SurfaceChange]] = {}
    for change in changes:
        groups.setdefault((canonical(change.before), canonical(change.after)), []).append(change)
    return list(groups.values())


def where(alike: list[SurfaceChange], limit: int = 6) -> str:
    """The keys of alike changes: one, or how many and which."""
    if len(alike) == 1:
        return alike[0].key
    named = "; ".join(change.key for change in alike[:limit])
    more = f"; and {len(alike) - limit} more" if len(alike) > limit else ""
    return f"{len(alike)} alike: {named}{more}"


def delta(change: SurfaceChange) -> list[str]:
    """What changed in one value, in short."""
    before, after = change.before, change.after
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
    if len(lines) > MAX_LINES_PER_CHANGE:
        rest = len(lines) - MAX_LINES_PER_CHANGE
        lines = [*lines[:MAX_LINES_PER_CHANGE], f"... and {rest} more (--json has both values)"]
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
