"""Surface changes as text a person reads: the driver's first, then the rest, by aspect.

Each change is its key and what changed in its value, shortest first: a sequence as the
lines that went and came (`-`/`+`), an object as its fields added, removed and retyped, a
value that appeared or went as such. Changes of one aspect with the same values before and
after (the answer to thread/start, changed alike in every scenario that starts a thread)
are told once, with every key they happened at. `codex-probe diff --json` keeps every
change and both values whole.
"""

from __future__ import annotations

from codex_probe.probes.domain.surface.delta import canonical, delta
from codex_probe.probes.domain.surface.diff import SurfaceChange
from codex_probe.probes.domain.surface.release import ASPECTS

HEADINGS = {
    "initialize": "initialize (with and without experimentalApi)",
    "notifications": "notifications (per request, in order)",
    "answers": "answer shapes",
    "refusals": "refusals",
    "model_requests": "model requests",
    "schema": "schema methods",
    "exploration": "exploration (method x state x variant)",
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
                    lines += [f"    {where(alike)}"] + [
                        f"      {x}" for x in delta(alike[0].before, alike[0].after)
                    ]
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
