"""The release x finding grid: one picture a person reads at a glance.

Columns are releases in version order, rows are findings in the registry's order, then one
row per aspect of the protocol surface. A finding's cell is coloured by its verdict; a bar
on a cell's left edge marks a change point (the verdict differs from the release before),
a dot marks a change of the observed values under the same verdict. A surface cell is
blue where the release's surface was recorded, with a bar where any key of that aspect
changed. Then, when the history records the findings the watch list reads, one row per
watched upstream issue: its state by colour and symbol (● present, ○ absent, ? undecided),
a bar where it changed. The page lists every change point with what changed: the surface's
by release, a watched issue's as "fixed in X" or "back in X".
"""

from __future__ import annotations

import html
import json
from typing import Any

from codex_probe.harness.codex.versions import version_key
from codex_probe.probes.domain.surface.delta import delta
from codex_probe.probes.domain.surface.diff import diff_command
from codex_probe.probes.domain.surface.release import ASPECTS
from codex_probe.probes.domain.watch import BY_ISSUE, WATCHED, IssueState, State, StateChange
from codex_probe.probes.releases.change_points import ChangePoint
from codex_probe.probes.releases.history_changes import (
    finding_rows,
    history_change_points,
    records_watch,
    subject_of,
    watch_states,
)

COLOURS = {
    "holds": "#3f9b4f",
    "changed": "#f0a030",
    "broken": "#d93a3a",
    "unsupported": "#8da9c4",
    None: "#d0d0d0",
}
SURFACE_COLOUR = "#6c9bd2"
SURFACE_ROW = "surface: "
WATCH_ROW = "watch: "
# A watched issue's state: its colour, symbol (so that no one needs the colour), symbol's
# ink and the legend's words.
WATCH_LOOK = {
    State.PRESENT: ("#d55e00", "●", "#ffffff", "bug present"),
    State.ABSENT: ("#d9efe6", "○", "#1b4d3e", "bug absent"),
    State.BROKEN: ("#f2e3ec", "?", "#6b2d5c", "bug undecided: its findings gave no verdict"),
}
CELL, GAP, LEFT, TOP = 16, 2, 330, 74


def rows(document: dict[str, Any]) -> list[str]:
    """The findings, then a row per surface aspect when any release recorded a surface,
    then a row per watched issue when any release recorded what decides them."""
    surfaced = any(isinstance(e.get("surface"), dict) for e in document["releases"].values())
    watched = [WATCH_ROW + w.issue for w in WATCHED] if records_watch(document) else []
    return (
        finding_rows(document) + ([SURFACE_ROW + a for a in ASPECTS] if surfaced else []) + watched
    )


def columns(document: dict[str, Any]) -> list[str]:
    return sorted(document["releases"], key=version_key)


def _cell(document: dict[str, Any], release: str, finding: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = document["releases"][release]["findings"].get(finding)
    return found


def change_points(document: dict[str, Any]) -> list[ChangePoint]:
    """The history's change points as it recorded them (without any: those of its
    findings, computed here)."""
    recorded = document.get("change_points")
    if isinstance(recorded, list):
        return [ChangePoint.from_json(entry) for entry in recorded]
    return history_change_points(document, None)


def watch_change(point: ChangePoint) -> StateChange | None:
    """A watched issue's change point in the watch list's terms (None: not one)."""
    if point.kind != "watch":
        return None
    return StateChange.of(
        point.key, point.first_changed, point.last_same, point.before, point.after
    )


def describe(point: ChangePoint) -> str:
    """One line: what changed where, and the release before it ("fixed in X" or "back in
    X" for a watched issue)."""
    if change := watch_change(point):
        return change.describe()
    return (
        f"{point.key}: {point.kind} changed in {point.first_changed} "
        f"(last same: {point.last_same}): {detail(point)}"
    )


def detail(point: ChangePoint, limit: int = 4) -> str:
    if change := watch_change(point):
        return change.describe()
    if point.kind in ("verdict", "watch"):
        return f"{point.before} -> {point.after}"
    old, new = point.before, point.after
    if point.kind == "observed" and isinstance(old, dict) and isinstance(new, dict):
        keys = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
        return "; ".join(f"{k}: {json.dumps(old.get(k))} -> {json.dumps(new.get(k))}" for k in keys)
    if point.kind == "observed":
        return f"{json.dumps(old)} -> {json.dumps(new)}"
    return "; ".join(delta(old, new, limit))


def render_svg(document: dict[str, Any]) -> str:
    releases, findings = columns(document), rows(document)
    found = change_points(document)
    points = {(p.key, p.first_changed): p for p in found if p.kind != "surface"}
    surface_changes: dict[tuple[str, str], list[ChangePoint]] = {}
    for surface_point in found:
        if surface_point.kind == "surface":
            aspect = SURFACE_ROW + subject_of(surface_point, ASPECTS)
            where = (aspect, surface_point.first_changed)
            surface_changes.setdefault(where, []).append(surface_point)
    states = watch_states(document) if records_watch(document) else {}
    width = LEFT + len(releases) * (CELL + GAP) + 20
    height = TOP + len(findings) * (CELL + GAP) + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    for column, release in enumerate(releases):
        x = LEFT + column * (CELL + GAP) + CELL / 2
        out.append(
            f'<text x="{x}" y="{TOP - 6}" transform="rotate(-60 {x} {TOP - 6})">'
            f"{html.escape(release)}</text>"
        )
    for row, finding in enumerate(findings):
        y = TOP + row * (CELL + GAP)
        label = html.escape(finding)
        out.append(f'<text x="{LEFT - 8}" y="{y + CELL - 4}" text-anchor="end">{label}</text>')
        for column, release in enumerate(releases):
            x = LEFT + column * (CELL + GAP)
            if finding.startswith(SURFACE_ROW):
                changed = surface_changes.get((finding, release), [])
                out += _surface_cell(document, release, finding, changed, x, y)
                continue
            if finding.startswith(WATCH_ROW):
                issue = finding.removeprefix(WATCH_ROW)
                decided = states.get(release, {}).get(issue)
                point = points.get((issue, release))
                out += _watch_cell(document, release, issue, decided, point, x, y)
                continue
            cell = _cell(document, release, finding)
            verdict = None if cell is None else cell["verdict"]
            missing = document["releases"][release].get("unavailable")
            tip = f"{finding} on {release}: " + (
                verdict or (f"not installable: {missing}" if missing else "not probed")
            )
            if cell is not None and cell.get("summary"):
                tip += f"\n{str(cell['summary'])[:300]}"
            point = points.get((finding, release))
            if point is not None:
                tip += f"\n{point.kind} changed: {detail(point)}"
            colour = COLOURS.get(verdict, COLOURS[None])
            out.append(
                f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{colour}">'
                f"<title>{html.escape(tip)}</title></rect>"
            )
            if point is not None and point.kind == "verdict":
                out.append(
                    f'<rect x="{x - 2}" y="{y - 1}" width="3" height="{CELL + 2}" fill="#000"/>'
                )
            elif point is not None:
                out.append(f'<circle cx="{x + CELL / 2}" cy="{y + CELL / 2}" r="3" fill="#000"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _surface_cell(
    document: dict[str, Any],
    release: str,
    row: str,
    changed: list[ChangePoint],
    x: float,
    y: float,
) -> list[str]:
    entry = document["releases"][release]
    recorded = isinstance(entry.get("surface"), dict)
    aspect = row.removeprefix(SURFACE_ROW)
    tip = f"{aspect} of {release}: " + ("recorded" if recorded else "not recorded")
    if changed:
        keys = [point.key.split(" ", 1)[1] for point in changed]
        tip += f"\n{len(keys)} key(s) changed: " + "; ".join(keys[:8])
        tip += " ..." if len(keys) > 8 else ""
    colour = SURFACE_COLOUR if recorded else COLOURS[None]
    drawn = [
        f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{colour}">'
        f"<title>{html.escape(tip)}</title></rect>"
    ]
    if changed:
        drawn.append(f'<rect x="{x - 2}" y="{y - 1}" width="3" height="{CELL + 2}" fill="#000"/>')
    return drawn


def _watch_cell(
    document: dict[str, Any],
    release: str,
    issue: str,
    found: IssueState | None,
    point: ChangePoint | None,
    x: float,
    y: float,
) -> list[str]:
    """A watched issue on a release: its state's colour and symbol, why in the tooltip, a
    bar where its state changed."""
    if found is None:
        missing = document["releases"][release].get("unavailable")
        tip = f"{issue} on {release}: " + (f"not installable: {missing}" if missing else "")
        return [
            f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{COLOURS[None]}">'
            f"<title>{html.escape(tip[:300])}</title></rect>"
        ]
    colour, symbol, ink, label = WATCH_LOOK[found.state]
    tip = f"{issue} on {release}: {label}\n{found.why[:300]}"
    change = None if point is None else watch_change(point)
    if change is not None:
        tip += f"\n{change.describe()}"
    drawn = [
        f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{colour}">'
        f"<title>{html.escape(tip)}</title></rect>",
        f'<text x="{x + CELL / 2}" y="{y + CELL - 4}" text-anchor="middle" fill="{ink}" '
        f'pointer-events="none">{symbol}</text>',
    ]
    if change is not None:
        drawn.append(f'<rect x="{x - 2}" y="{y - 1}" width="3" height="{CELL + 2}" fill="#000"/>')
    return drawn


def render_html(document: dict[str, Any], svg_name: str) -> str:
    releases = columns(document)
    points = change_points(document)
    span = f"{releases[0]} to {releases[-1]}" if releases else "no releases"
    unavailable = [
        f"<li><b>{html.escape(v)}</b>: {html.escape(str(e['unavailable'])[:300])}</li>"
        for v, e in document["releases"].items()
        if e.get("unavailable")
    ]
    asked = document.get("asked") or {}
    incomplete = (
        f'<p class="incomplete"><b>Incomplete:</b> asked for {len(asked.get("releases", []))} '
        f"releases from {html.escape(str(asked.get('from')))} to "
        f"{html.escape(str(asked.get('to')))}; {len(document.get('missing', []))} not recorded "
        f"({html.escape(', '.join(document.get('missing', [])[:20]))}"
        f"{' ...' if len(document.get('missing', [])) > 20 else ''}). Run the same command "
        "again to resume.</p>"
        if document.get("complete") is False
        else ""
    )
    not_installable = (
        f"<h2>Not installable: nothing to probe</h2>\n<ul>{''.join(unavailable)}</ul>"
        if unavailable
        else ""
    )
    legend = " ".join(
        f'<span class="key" style="background:{colour}"></span>{label}'
        for label, colour in (
            ("holds", COLOURS["holds"]),
            ("changed", COLOURS["changed"]),
            ("broken", COLOURS["broken"]),
            ("unsupported by the release", COLOURS["unsupported"]),
            ("not probed", COLOURS[None]),
        )
    )
    if records_watch(document):
        legend += (
            " | watched upstream issues: "
            + " ".join(
                f'<span class="key" style="background:{colour};color:{ink}">{symbol}</span>{label}'
                for colour, symbol, ink, label in WATCH_LOOK.values()
            )
            + " (a bar: its state changed)"
        )
    listed = "\n".join(
        f"<li><b>{html.escape(p.key)}</b>: {p.kind} changed in "
        f"<b>{html.escape(p.first_changed)}</b> (last same: {html.escape(p.last_same)}): "
        f"<code>{html.escape(detail(p))}</code></li>"
        for p in points
        if p.kind not in ("surface", "watch")
    )
    surface = _surface_list([p for p in points if p.kind == "surface"])
    watched = _watch_list(points) if records_watch(document) else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>codex-probe history {html.escape(span)}</title>
<style>
body {{ font-family: sans-serif; margin: 24px; color: #222; }}
.key {{ display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px;
  font-size: 10px; line-height: 12px; text-align: center; }}
code {{ font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }}
ul {{ max-width: 1100px; }}
li {{ margin: 4px 0; }}
.incomplete {{ background: #fff3cd; border: 1px solid #c9a100; padding: 8px; }}
</style></head><body>
<h1>codex-cli releases {html.escape(span)}: every finding</h1>
{incomplete}
<p>{len(releases)} releases. {legend}
<span style="margin-left:12px">| a bar: the verdict changed;
a dot: the observed values changed</span></p>
<p><img src="{html.escape(svg_name)}" alt="release by finding grid"></p>
<h2>Change points ({len(points)})</h2>
<ul>
{listed or "<li>none: every finding gives the same verdict and values on every release</li>"}
</ul>
{surface}
{watched}
{not_installable}
<p>Per release: <code>releases/VERSION/verdict.json</code> and
<code>releases/VERSION/surface.json</code>; the data: <code>history.json</code>.</p>
</body></html>
"""


def _watch_list(points: list[ChangePoint]) -> str:
    """Each watched issue's changes of state, in the watch list's words."""
    changes = [change for point in points if (change := watch_change(point))]
    items = "\n".join(
        f'<li><a href="{html.escape(BY_ISSUE[c.issue].url)}"><b>{html.escape(c.issue)}</b></a> '
        f"{html.escape(c.said)} ({html.escape(c.was)}): "
        f"{html.escape(BY_ISSUE[c.issue].title)}</li>"
        if c.issue in BY_ISSUE
        else f"<li>{html.escape(c.describe())}</li>"
        for c in changes
    )
    none = "<li>none: each watched issue keeps its state wherever it was decided</li>"
    return f"<h2>Watched upstream issues: where a state changed ({len(changes)})</h2>\n" + (
        f"<ul>\n{items or none}\n</ul>"
    )


# The grid's page sits in the history folder: its diff commands read the history from there.
HISTORY_HERE = "."


def _surface_list(points: list[ChangePoint]) -> str:
    """The surface's change points by the release they came in, then by aspect."""
    if not points:
        return ""
    by_release: dict[tuple[str, str], list[ChangePoint]] = {}
    for point in points:
        by_release.setdefault((point.first_changed, point.last_same), []).append(point)
    parts = [f"<h2>Surface change points ({len(points)})</h2>"]
    for (first, last), found in sorted(by_release.items(), key=lambda i: version_key(i[0][0])):
        parts.append(
            f"<h3>{html.escape(first)} (last same: {html.escape(last)}): {len(found)} key(s); "
            f"<code>{html.escape(diff_command(last, first, HISTORY_HERE))}</code></h3><ul>"
        )
        for point in found:
            lines = "\n".join(delta(point.before, point.after, 8))
            parts.append(
                f"<li><b>{html.escape(point.key)}</b><br><code>{html.escape(lines)}</code></li>"
            )
        parts.append("</ul>")
    return "\n".join(parts)
