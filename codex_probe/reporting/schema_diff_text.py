"""Schema drift as text a person reads: the driver's methods in detail, then the rest.

A field added or removed together with its parent is folded into the parent's line
("+ thread.section: null|object (and 4 fields inside)"); an enum that gained or lost
values says which. `--json` keeps every change unfolded.
"""

from __future__ import annotations

import re

from codex_probe.harness.codex.schema_shapes import enum_values
from codex_probe.reporting.schema_diff import (
    DRIVER_METHODS,
    FieldChange,
    MethodDiff,
    PartDiff,
    SchemaDiff,
)

MARK = {"added": "+", "removed": "-", "retyped": "~", "now required": "!", "now optional": "?"}
MAX_LINES_PER_PART = 60
NESTING = (".", "[", "{", "<")


def render_text(diff: SchemaDiff) -> str:
    lines = [f"Schema drift, codex {diff.old_version} -> {diff.new_version}", ""]
    requests = [d for d in diff.priority if d.method in DRIVER_METHODS]
    notifications = [d for d in diff.priority if d.method not in DRIVER_METHODS]
    lines += ["The methods the driver and the spec use (params and response)"]
    for method_diff in requests:
        lines += _method_lines(method_diff, diff)
    lines += ["", "The notifications the driver reads"]
    for method_diff in notifications:
        lines += _method_lines(method_diff, diff)
    lines += ["", "Everything else"]
    for kind, diffs in diff.others.items():
        lines += _summary_lines(kind, diffs)
    return "\n".join(lines) + "\n"


def method_headline(method_diff: MethodDiff, diff: SchemaDiff) -> str:
    status = {
        "removed": f"REMOVED in {diff.new_version}",
        "added": f"new in {diff.new_version}",
        "absent": "in neither version",
    }.get(method_diff.status, method_diff.status)
    return f"{method_diff.method} ({method_diff.kind}): {status}"


def part_lines(name: str, part: PartDiff) -> list[str]:
    if part.status in ("absent", "unchanged"):
        return [] if part.status == "absent" else [f"{name}: unchanged"]
    counts = ", ".join(f"{n} {kind}" for kind, n in part.counts().items())
    lines = [f"{name}: {counts or part.status + ' (no fields)'}"]
    shown = [_change_line(change, folded) for change, folded in fold(part.changes)]
    if len(shown) > MAX_LINES_PER_PART:
        rest = len(shown) - MAX_LINES_PER_PART
        shown = [*shown[:MAX_LINES_PER_PART], f"… and {rest} more (--json lists every change)"]
    return lines + ["  " + line for line in shown]


def fold(changes: tuple[FieldChange, ...]) -> list[tuple[FieldChange, int]]:
    """Each change with the number of same-kind changes nested under it, which it hides."""
    kept: list[tuple[FieldChange, int]] = []
    for change in changes:  # sorted by path: a parent comes before what it contains
        parent = next(
            (
                i
                for i, (p, _) in enumerate(kept)
                if p.change == change.change
                and change.change in ("added", "removed")
                and _inside(change.path, p.path)
            ),
            None,
        )
        if parent is None:
            kept.append((change, 0))
        else:
            kept[parent] = (kept[parent][0], kept[parent][1] + 1)
    return kept


def _method_lines(method_diff: MethodDiff, diff: SchemaDiff) -> list[str]:
    lines = ["  " + method_headline(method_diff, diff)]
    if method_diff.status in ("changed", "added", "removed"):
        for name, part in (("params", method_diff.params), ("response", method_diff.response)):
            lines += ["    " + line for line in part_lines(name, part)]
    return lines


def _summary_lines(kind: str, diffs: list[MethodDiff]) -> list[str]:
    by_status = {s: [d for d in diffs if d.status == s] for s in ("added", "removed", "changed")}
    unchanged = sum(d.status == "unchanged" for d in diffs)
    counts = ", ".join(f"{len(v)} {s}" for s, v in by_status.items())
    lines = [f"  {kind}s: {counts}, {unchanged} unchanged"]
    for status in ("added", "removed"):
        if by_status[status]:
            lines.append(f"    {status}: " + ", ".join(d.method for d in by_status[status]))
    for changed in by_status["changed"]:
        parts = [
            f"{name} " + (", ".join(f"{n} {k}" for k, n in part.counts().items()) or part.status)
            for name, part in (("params", changed.params), ("response", changed.response))
            if part.status not in ("unchanged", "absent")
        ]
        lines.append(f"    ~ {changed.method}: " + "; ".join(parts))
    return lines


def _change_line(change: FieldChange, folded: int) -> str:
    mark = MARK[change.change]
    inside = f" (and {folded} field{'s' if folded != 1 else ''} inside)" if folded else ""
    if change.change == "added":
        return f"{mark} {change.path}: {change.new}{inside}"
    if change.change == "removed":
        return f"{mark} {change.path}: {change.old}{inside}"
    if change.change == "retyped":
        return f"{mark} {change.path}: {_retype(change.old or '', change.new or '')}"
    return f"{mark} {change.path}: {change.change} ({change.new})"


def _retype(old: str, new: str) -> str:
    before, after = enum_values(old), enum_values(new)
    parts = []
    if _without_enum(old) != _without_enum(new):
        parts.append(
            f"{_without_enum(old)} -> {_without_enum(new)}"
            if before or after
            else f"{old} -> {new}"
        )
    if before != after and before and after:
        gained = " ".join(f"+{v}" for v in sorted(after - before))
        lost = " ".join(f"-{v}" for v in sorted(before - after))
        parts.append("enum values " + " ".join(part for part in (gained, lost) if part))
    elif before != after:  # an enum appeared or went: show the values it has
        parts = [f"{old} -> {new}"]
    return "; ".join(parts)


def _without_enum(type_text: str) -> str:
    return re.sub(r"enum\([^)]*\)", "enum", type_text)


def _inside(path: str, parent: str) -> bool:
    return path.startswith(parent) and path[len(parent) : len(parent) + 1] in NESTING
