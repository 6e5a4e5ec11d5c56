"""Surface changes as text a person reads, by severity: what breaks a client first.

ERR changes are listed in full, every key and every rule it meets, never cut (changes with
the same values before and after, at several keys, once with every key); WARN changes
each with their rules (a long list cut, and said); INFO changes by
aspect as what changed in the value, shortest first: a sequence as the lines that went
and came (`-`/`+`), an object as its fields added, removed and retyped. Changes of one
aspect with the same values before and after (the answer to thread/start, changed alike
in every scenario that starts a thread) are told once, with every key they happened at.
`codex-probe diff --json` keeps every change, its rules and both values whole.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from codex_probe.probes.domain.surface.delta import canonical, delta
from codex_probe.probes.domain.surface.diff import SurfaceChange
from codex_probe.probes.domain.surface.release import ASPECTS
from codex_probe.probes.domain.surface.rules import Severity

HEADINGS = {
    "initialize": "initialize (with and without experimentalApi)",
    "notifications": "notifications (per request, in order)",
    "answers": "answer shapes",
    "refusals": "refusals",
    "model_requests": "model requests",
    "schema": "schema methods",
    "exploration": "exploration (method x state x variant)",
}
MEANING = {
    Severity.ERR: "break a client",
    Severity.WARN: "may break a client, depending on how it is written",
    Severity.INFO: "additive, or invisible to a client",
}
# Lines of lesser rules shown under an ERR or WARN key (its worst are all shown).
LESSER_LINES = 6
DRIVER = " [the reference driver touches it]"


def counts(changes: Iterable[SurfaceChange]) -> dict[str, int]:
    """How many changes are of each severity (a change's is its worst rule's)."""
    found = Counter(change.severity for change in changes)
    return {severity.name: found[severity] for severity in sorted(Severity, reverse=True)}


def headline(a: str, b: str, changes: list[SurfaceChange]) -> str:
    said = ", ".join(f"{n} {name}" for name, n in counts(changes).items())
    relevant = sum(c.driver_relevant for c in changes)
    return (
        f"codex-cli {a} -> {b}: {len(changes)} surface difference(s): {said}; "
        f"{relevant} the reference driver would feel"
    )


def render_changes(a: str, b: str, changes: list[SurfaceChange]) -> list[str]:
    lines = [headline(a, b, changes)]
    for severity in (Severity.ERR, Severity.WARN):
        group = [c for c in changes if c.severity is severity]
        if group:
            lines += ["", f"{severity.name}: {len(group)} change(s) that {MEANING[severity]}"]
            for alike in alike_changes(_ordered(group)):
                # Every key of an ERR change is named; of a WARN one, the first few.
                limit = len(alike) if severity is Severity.ERR else 6
                driver = DRIVER if any(c.driver_relevant for c in alike) else ""
                lines.append(f"  {alike[0].aspect} {where(alike, limit)}{driver}")
                lines += [f"    {line}" for line in rule_lines(alike[0])]
    info = [c for c in changes if c.severity is Severity.INFO]
    if info:
        lines += ["", f"INFO: {len(info)} change(s), {MEANING[Severity.INFO]}"]
        lines += _by_aspect(info)
    return lines


def rule_lines(change: SurfaceChange) -> list[str]:
    """The rules a change meets: every one of its worst severity (an ERR in full), then
    the lesser ones, cut after a few."""
    worst = [d for d in change.details if d.severity is change.severity]
    lesser = [d for d in change.details if d.severity is not change.severity]
    lines = [f"{d.severity.name:4} {d.text()}" for d in worst]
    if change.severity is not Severity.ERR and len(lines) > LESSER_LINES * 2:
        lines = [*lines[: LESSER_LINES * 2], f"... and {len(lines) - LESSER_LINES * 2} more"]
    lines += [f"{d.severity.name:4} {d.text()}" for d in lesser[:LESSER_LINES]]
    if len(lesser) > LESSER_LINES:
        more = Counter(d.severity.name for d in lesser[LESSER_LINES:])
        said = ", ".join(f"{n} {name}" for name, n in sorted(more.items()))
        lines.append(f"... and {said} more (--json has them)")
    return lines


def _ordered(changes: list[SurfaceChange]) -> list[SurfaceChange]:
    order = {aspect: n for n, aspect in enumerate(ASPECTS)}
    return sorted(changes, key=lambda c: (not c.driver_relevant, order.get(c.aspect, 99), c.key))


def _by_aspect(changes: list[SurfaceChange]) -> list[str]:
    lines = []
    aspects = [*ASPECTS, *sorted({c.aspect for c in changes} - set(ASPECTS))]
    for aspect in aspects:
        in_aspect = _ordered([c for c in changes if c.aspect == aspect])
        if in_aspect:
            lines.append(f"  {HEADINGS.get(aspect, aspect)}: {len(in_aspect)}")
            for alike in alike_changes(in_aspect):
                driver = DRIVER if any(c.driver_relevant for c in alike) else ""
                lines += [f"    {where(alike)}{driver}"] + [
                    f"      {x}" for x in delta(alike[0].before, alike[0].after)
                ]
    return lines


def alike_changes(changes: list[SurfaceChange]) -> list[list[SurfaceChange]]:
    """The changes grouped by aspect and their values before and after, in the order
    first seen."""
    groups: dict[tuple[str, str, str], list[SurfaceChange]] = {}
    for change in changes:
        alike = (change.aspect, canonical(change.before), canonical(change.after))
        groups.setdefault(alike, []).append(change)
    return list(groups.values())


def where(alike: list[SurfaceChange], limit: int = 6) -> str:
    """The keys of alike changes: one, or how many and which."""
    if len(alike) == 1:
        return alike[0].key
    named = "; ".join(change.key for change in alike[:limit])
    more = f"; and {len(alike) - limit} more" if len(alike) > limit else ""
    return f"{len(alike)} alike: {named}{more}"


# How many groups of alike changes a short listing shows (can-i-upgrade, the site's release
# page), and how many lines of each one's delta; `codex-probe diff` shows them all.
SHORT_KEYS = 12
SHORT_DELTA = 4


def weight(change: SurfaceChange) -> str:
    """The words a listing puts before a change's key: whether the reference driver touches
    it. The place for how much a change weighs: the breaking-change rules (issue 36) add
    their rule id and severity here, and every listing shows them."""
    return "driver" if change.driver_relevant else ""


def short_listing(changes: list[SurfaceChange]) -> tuple[list[tuple[str, list[str]]], int]:
    """The changes as (the keys, with their weight, and the lines of what changed), alike
    ones once, at most SHORT_KEYS of them; and how many groups were left out."""
    groups = alike_changes(changes)
    shown = []
    for alike in groups[:SHORT_KEYS]:
        said = weight(alike[0])
        shown.append(
            (
                f"{f'[{said}] ' if said else ''}{where(alike, 3)}",
                delta(alike[0].before, alike[0].after, SHORT_DELTA),
            )
        )
    return shown, max(0, len(groups) - SHORT_KEYS)
