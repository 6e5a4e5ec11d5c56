"""Surface changes for machines and CI: JSON, Markdown (a job summary) and GitHub
annotations (workflow commands), each change with its rule and severity.

The Markdown lists every ERR and WARN rule a change meets, one row each (ERR never cut),
and counts the INFO ones by rule. The GitHub form is one `::error` line per ERR rule, one
`::warning` per WARN change (its rules in the message), and one `::notice` counting the
rest; `codex-probe diff --format github` also appends the Markdown to the job summary
($GITHUB_STEP_SUMMARY) when the job has one.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from codex_probe.probes.domain.surface.diff import SurfaceChange
from codex_probe.probes.domain.surface.rules import Severity
from codex_probe.reporting.surface_text import MEANING, counts, headline

FORMATS = ("text", "json", "markdown", "github")
# WARN rows a Markdown summary lists before it counts the rest (ERR rows are never cut).
WARN_ROWS = 200


def diff_document(
    a: str, b: str, changes: list[SurfaceChange], *, fail_on: Severity, aspects: list[str]
) -> dict[str, Any]:
    return {
        "a": a,
        "b": b,
        "fail_on": fail_on.name,
        "aspects": aspects,
        "counts": counts(changes),
        "changes": [change.to_json() for change in changes],
    }


def render_markdown(a: str, b: str, changes: list[SurfaceChange]) -> list[str]:
    lines = [f"## {headline(a, b, changes)}"]
    for severity in (Severity.ERR, Severity.WARN):
        rows = [
            (change, detail)
            for change in changes
            for detail in change.details
            if detail.severity is severity
        ]
        if not rows:
            continue
        lines += ["", f"### {severity.name}: {len(rows)} rule(s) met, that {MEANING[severity]}"]
        lines += ["", "| rule | where | change |", "| --- | --- | --- |"]
        shown = rows if severity is Severity.ERR else rows[:WARN_ROWS]
        for change, detail in shown:
            place = f"`{change.name}`" + (f" `{detail.where}`" if detail.where else "")
            moved = f"{_said(detail.before)} → {_said(detail.after)}"
            lines.append(f"| `{detail.rule}` | {_cell(place)} | {_cell(moved)} |")
        if len(shown) < len(rows):
            lines.append(f"\n… and {len(rows) - len(shown)} more (`codex-probe diff --json`)")
    info = Counter(d.rule for c in changes for d in c.details if d.severity is Severity.INFO)
    if info:
        lines += ["", f"### INFO: {sum(info.values())} rule(s) met, {MEANING[Severity.INFO]}"]
        lines += ["", "| rule | times |", "| --- | --- |"]
        lines += [f"| `{rule}` | {n} |" for rule, n in sorted(info.items())]
    return lines


def render_github(a: str, b: str, changes: list[SurfaceChange]) -> list[str]:
    title = f"codex-cli {a} -> {b}"
    lines = []
    for change in changes:
        for detail in change.details:
            if detail.severity is Severity.ERR:
                lines.append(
                    f"::error title={_property(title + ': ' + detail.rule)}::"
                    f"{_message(change.name + ': ' + detail.text())}"
                )
    for change in changes:
        if change.severity is Severity.WARN:
            said = "; ".join(d.text() for d in change.details if d.severity is Severity.WARN)
            lines.append(
                f"::warning title={_property(title + ': ' + change.rule)}::"
                f"{_message(change.name + ': ' + said)}"
            )
    info = sum(1 for c in changes if c.severity is Severity.INFO)
    if info:
        lines.append(
            f"::notice title={_property(title)}::{info} INFO change(s) ({MEANING[Severity.INFO]})"
        )
    lines.append(headline(a, b, changes))
    return lines


def _said(value: Any, limit: int = 80) -> str:
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _message(text: str) -> str:
    """A workflow command's message, escaped as GitHub reads it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _message(text).replace(":", "%3A").replace(",", "%2C")
