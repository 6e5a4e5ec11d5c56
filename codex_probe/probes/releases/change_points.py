"""Where a value changes along a range of releases: one computation for every kind of row.

A row is a kind (`verdict`, `observed`, `surface`, and any kind a later record adds), a key
and its value per release (a release without one is skipped over: it neither changes
nor keeps the value). A change point is a release whose value differs from the one of
the last release before it that has a value:

    {"kind", "key", "first_changed", "last_same", "before", "after"}

so `codex-probe diff --from LAST_SAME --to FIRST_CHANGED` (or bisect) can look at it again.
A point of the protocol surface also carries the breaking-change rule its change meets and
that rule's severity (`rule`, `severity`: its worst, as `codex-probe diff` gives it). Values
are compared as JSON values (`same`: types and all, key order aside); a row's values are
made comparable (ids masked, say) before they come here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from codex_probe.harness.codex.versions import version_key


@dataclass(frozen=True)
class Row:
    kind: str
    key: str
    values: Mapping[str, Any]  # release -> value; a release absent has none


@dataclass(frozen=True)
class ChangePoint:
    kind: str
    key: str
    first_changed: str
    last_same: str
    before: Any
    after: Any
    rule: str | None = None  # a surface point's worst rule (None: not classified)
    severity: str | None = None  # ERR, WARN or INFO

    def to_json(self) -> dict[str, Any]:
        found = {
            "kind": self.kind,
            "key": self.key,
            "first_changed": self.first_changed,
            "last_same": self.last_same,
            "before": self.before,
            "after": self.after,
        }
        if self.rule is not None:
            found.update(rule=self.rule, severity=self.severity)
        return found

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> ChangePoint:
        return cls(
            str(entry["kind"]),
            str(entry["key"]),
            str(entry["first_changed"]),
            str(entry["last_same"]),
            entry.get("before"),
            entry.get("after"),
            None if entry.get("rule") is None else str(entry["rule"]),
            None if entry.get("severity") is None else str(entry["severity"]),
        )


def change_points(rows: Iterable[Row]) -> list[ChangePoint]:
    """Every change point of every row, in the rows' order, oldest release first."""
    points = []
    order: dict[str, tuple[int, ...]] = {}
    for row in rows:
        last: tuple[str, Any] | None = None
        releases = sorted(
            row.values, key=lambda v: order.get(v) or order.setdefault(v, version_key(v))
        )
        for release in releases:
            value = row.values[release]
            if last is not None and not same(last[1], value):
                points.append(ChangePoint(row.kind, row.key, release, last[0], last[1], value))
            last = (release, value)
    return points


def same(a: Any, b: Any) -> bool:
    """Equal as JSON: the same type at every level (1 is not true, nor 1.0), objects
    whatever their key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def trimmed(before: Any, after: Any) -> tuple[Any, Any]:
    """Two objects cut down to the parts that differ (nested objects likewise); anything
    else as it is. A surface value can hold hundreds of fields, one of which changed."""
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return before, after
    old: dict[str, Any] = {}
    new: dict[str, Any] = {}
    for key in sorted(before.keys() | after.keys()):
        if key in before and key in after:
            if same(before[key], after[key]):
                continue
            old[key], new[key] = trimmed(before[key], after[key])
        elif key in before:
            old[key] = before[key]
        else:
            new[key] = after[key]
    return old, new
