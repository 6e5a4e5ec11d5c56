"""The release x finding grid: one picture a person reads at a glance.

Columns are releases in version order, rows are findings in the registry's order. A cell
is coloured by its verdict; a bar on a cell's left edge marks a change point (the verdict
differs from the release before), a dot marks a change of the observed values under the
same verdict. The page lists every change point with what changed.
"""

from __future__ import annotations

import html
import itertools
import json
from dataclasses import dataclass
from typing import Any

from codex_probe.harness.codex.versions import version_key
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX
from codex_probe.probes.domain.stability import comparable
from codex_probe.probes.runner.scenarios import SCENARIOS

COLOURS = {
    "holds": "#3f9b4f",
    "changed": "#f0a030",
    "broken": "#d93a3a",
    "unsupported": "#8da9c4",
    None: "#d0d0d0",
}
CELL, GAP, LEFT, TOP = 16, 2, 330, 74


@dataclass(frozen=True)
class ChangePoint:
    finding: str
    before: str  # the last release with the old value
    after: str  # the first release with the new one
    kind: str  # "verdict" or "observed"
    detail: str

    def describe(self) -> str:
        return (
            f"{self.finding}: {self.kind} changed in {self.after} "
            f"(last same: {self.before}): {self.detail}"
        )


def rows(document: dict[str, Any]) -> list[str]:
    found = {f for entry in document["releases"].values() for f in entry["findings"]}
    ordered = [a.id for a in ASSUMPTIONS] + [f"{FIDELITY_ID_PREFIX}{s}" for s in SCENARIOS]
    return [f for f in ordered if f in found] + sorted(found - set(ordered))


def columns(document: dict[str, Any]) -> list[str]:
    return sorted(document["releases"], key=version_key)


def _cell(document: dict[str, Any], release: str, finding: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = document["releases"][release]["findings"].get(finding)
    return found


def change_points(document: dict[str, Any]) -> list[ChangePoint]:
    points: list[ChangePoint] = []
    releases = columns(document)
    for finding in rows(document):
        for before, after in itertools.pairwise(releases):
            old, new = _cell(document, before, finding), _cell(document, after, finding)
            if old is None or new is None:
                continue
            if old["verdict"] != new["verdict"]:
                points.append(
                    ChangePoint(
                        finding, before, after, "verdict", f"{old['verdict']} -> {new['verdict']}"
                    )
                )
            elif (differs := _differing(old.get("observed"), new.get("observed"))) is not None:
                points.append(ChangePoint(finding, before, after, "observed", differs))
    return points


def _differing(old: Any, new: Any) -> str | None:
    old, new = comparable(old), comparable(new)
    if json.dumps(old, sort_keys=True) == json.dumps(new, sort_keys=True):
        return None
    if isinstance(old, dict) and isinstance(new, dict):
        keys = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
        return "; ".join(f"{k}: {json.dumps(old.get(k))} -> {json.dumps(new.get(k))}" for k in keys)
    return f"{json.dumps(old)} -> {json.dumps(new)}"


def render_svg(document: dict[str, Any]) -> str:
    releases, findings = columns(document), rows(document)
    points = {(p.finding, p.after): p for p in change_points(document)}
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
                tip += f"\n{point.kind} changed: {point.detail}"
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
        f'releases from {html.escape(str(asked.get("from")))} to '
        f'{html.escape(str(asked.get("to")))}; {len(document.get("missing", []))} not recorded '
        f'({html.escape(", ".join(document.get("missing", [])[:20]))}'
        f'{" ..." if len(document.get("missing", [])) > 20 else ""}). Run the same command '
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
    listed = "\n".join(
        f"<li><b>{html.escape(p.finding)}</b>: {p.kind} changed in <b>{html.escape(p.after)}</b> "
        f"(last same: {html.escape(p.before)}): <code>{html.escape(p.detail)}</code></li>"
        for p in points
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>codex-probe history {html.escape(span)}</title>
<style>
body {{ font-family: sans-serif; margin: 24px; color: #222; }}
.key {{ display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; }}
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
{not_installable}
<p>Per release: <code>releases/VERSION/verdict.json</code>; the data: <code>history.json</code>.</p>
</body></html>
"""
