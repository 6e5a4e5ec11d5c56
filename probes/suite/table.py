"""The assumption-by-version table printed at the end of a probe run."""

from __future__ import annotations

from typing import Any

SYMBOL = {"holds": "holds", "changed": "CHANGED", "broken": "BROKEN"}


def render_table(findings: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    versions = sorted(findings)
    ids = sorted({i for per_version in findings.values() for i in per_version})
    width = max([len(i) for i in ids] + [10]) + 2
    header = "assumption".ljust(width) + "req  " + "".join(v.ljust(12) for v in versions)
    lines = [header, "-" * len(header)]
    for assumption_id in ids:
        entries = [findings[v].get(assumption_id) for v in versions]
        required = next((e["required"] for e in entries if e), False)
        cells = "".join((SYMBOL[e["verdict"]] if e else "-").ljust(12) for e in entries)
        lines.append(assumption_id.ljust(width) + ("yes  " if required else "no   ") + cells)
    return lines
