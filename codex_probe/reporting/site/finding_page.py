"""findings/ID.html: one finding across every release. Its statement and spec section, its
state as a timeline (an anchor per release, which the grid's cells link to), the runs of
releases that gave the same values, each change point with the evidence on both sides, and
the upstream issues it decides."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from codex_probe.probes.domain.watch import StateChange
from codex_probe.probes.releases.change_points import ChangePoint
from codex_probe.reporting.history_files import FindingOnRelease, canonical
from codex_probe.reporting.history_view import FindingInfo, HistoryView
from codex_probe.reporting.site import dataset as model
from codex_probe.reporting.site.look import (
    GROUP_NAMES,
    NOT_INSTALLABLE,
    NOT_RECORDED,
    WATCH_STATES,
    Look,
    compare_href,
    esc,
    page,
    release_href,
    symbol,
    value,
    verdict_state,
    verdict_words,
)

DEPTH = 1
EVIDENCE_LINES = 8


def render_finding(view: HistoryView, info: FindingInfo) -> str:
    points = [p for p in view.points_of(info.id) if p.kind in ("verdict", "observed")]
    expected = "".join(
        f"<tr><td>{esc(key)}</td><td>{value(wanted)}</td></tr>"
        for key, wanted in info.expected.items()
    )
    body = [
        f"<h1>{esc(info.id)}</h1>",
        f"<p><b>{esc(info.statement)}</b></p>",
        f"<p>{esc(GROUP_NAMES[info.group])}"
        + (f" · spec section {esc(info.spec_section)}" if info.spec_section else "")
        + f' · data: <a href="../{model.DATA}/{model.finding_file(info.id)}">'
        f"{esc(model.finding_file(info.id))}</a></p>",
    ]
    if expected:
        body.append('<p>What the design expects:</p><table class="list">' + expected + "</table>")
    body.append("<h2>Release by release</h2>" + _strip(view, info.id, points))
    body.append(_runs(view, info.id))
    body.append(_change_points(view, info.id, points))
    body.append(_upstream(view, info.id))
    return page(info.id, "\n".join(body), depth=DEPTH)


def _strip(view: HistoryView, finding_id: str, points: list[ChangePoint]) -> str:
    marks: dict[str, str] = {}
    for point in points:
        marks[point.first_changed] = (
            "cv" if point.kind == "verdict" else marks.get(point.first_changed, "co")
        )
    items = []
    for release in view.releases:
        found = release.findings.get(finding_id)
        cell = None if found is None else found.finding
        state: Look = (
            NOT_INSTALLABLE
            if not release.probed
            else NOT_RECORDED
            if cell is None
            else verdict_state(cell.verdict)
        )
        words = state.label if cell is None else cell.verdict
        items.append(
            f'<a id="v{esc(release.version)}" href="{release_href(release.version, DEPTH)}" '
            f'title="{esc(release.version)}: {esc(words)}">'
            f"{symbol(state, marks.get(release.version, ''), f'{release.version}: {words}')}"
            f"{esc(release.version)}</a>"
        )
    return f'<div class="strip">{"".join(items)}</div>'


def _runs(view: HistoryView, finding_id: str) -> str:
    """Consecutive probed releases that gave the same verdict and values (ids masked)."""
    runs: list[list[FindingOnRelease]] = []
    for release in view.releases:
        cell = release.findings.get(finding_id)
        if cell is None:
            continue
        if runs and _same(runs[-1][-1], cell):
            runs[-1].append(cell)
        else:
            runs.append([cell])
    rows = []
    before: dict[str, Any] = {}
    for run in runs:
        first, last = run[0].finding, run[-1].finding
        span = (
            esc(first.version) if first is last else f"{esc(first.version)} to {esc(last.version)}"
        )
        # A value that differs from the run before is highlighted.
        observed = "".join(
            f"<tr><td>{esc(key)}</td><td class='val{_moved(before, key, found, run is runs[0])}'>"
            f"{value(found)}</td></tr>"
            for key, found in run[0].compared.items()
        )
        before = run[0].compared
        said = f"<p>{esc(first.summary)}</p>" if first.summary else ""
        rows.append(
            f"<h3>{span} ({len(run)} release{'s' if len(run) > 1 else ''}): "
            f"{verdict_words(first.verdict)}</h3>{said}"
            f'<table class="list">{observed}</table>'
        )
    return "<h2>What it observed</h2>" + "".join(rows)


def _moved(before: dict[str, Any], key: str, found: Any, first: bool) -> str:
    return "" if first or canonical(before.get(key)) == canonical(found) else " moved"


def _same(one: FindingOnRelease, other: FindingOnRelease) -> bool:
    first, second = one.finding, other.finding
    return first.verdict == second.verdict and canonical(first.observed) == canonical(
        second.observed
    )


def _change_points(view: HistoryView, finding_id: str, points: list[ChangePoint]) -> str:
    title = f"<h2>Change points ({len(points)})</h2>"
    if not points:
        return title + "<p>None: the same verdict and values on every release recorded.</p>"
    by_release: dict[tuple[str, str], list[ChangePoint]] = defaultdict(list)
    for point in points:
        by_release[(point.last_same, point.first_changed)].append(point)
    blocks = []
    for (last, first), found in by_release.items():
        # The point's own values, and every other value of the finding that moved with it
        # (under a verdict's change, its observed values are part of the change).
        # An observed point holds all of the finding's values; the ones that moved are shown
        # one per row instead.
        shown = [
            (p.kind, p.key, p.before, p.after)
            for p in found
            if not (p.kind == "observed" and p.key == finding_id)
        ]
        seen = {key for _, key, _, _ in shown}
        shown += [
            (d.kind, d.key, d.before, d.after)
            for d in view.differences(last, first)
            if d.subject == finding_id and d.key not in seen and d.kind == "observed"
        ]
        rows = "".join(
            f"<tr><td>{esc(key.removeprefix(finding_id).lstrip('.:/ ') or kind)}</td>"
            f"<td class='val'>{_said(kind, before)}</td>"
            f"<td class='val'>{_said(kind, after)}</td></tr>"
            for kind, key, before, after in shown
        )
        sides = "".join(
            _side(view.recorded(version, finding_id), version, heading)
            for version, heading in ((last, "last same"), (first, "first changed"))
        )
        blocks.append(
            f'<div class="point" id="change-{esc(first)}"><h3>First changed in '
            f'<a href="{release_href(first, DEPTH)}">{esc(first)}</a> (last same: '
            f'<a href="{release_href(last, DEPTH)}">{esc(last)}</a>) · '
            f'<a href="{compare_href(last, first, DEPTH)}">compare</a></h3>'
            f'<table class="list"><tr><th></th><th>{esc(last)}</th><th>{esc(first)}</th></tr>'
            f'{rows}</table><div class="sides">{sides}</div></div>'
        )
    return title + "".join(blocks)


def _said(kind: str, found: object) -> str:
    return verdict_words(str(found)) if kind == "verdict" else value(found)


def _side(found: FindingOnRelease | None, version: str, heading: str) -> str:
    if found is None:
        return f"<div><h4>{esc(version)} ({heading})</h4><p>Not recorded.</p></div>"
    cell = found.finding
    evidence = "".join(
        f"<li><code>{esc(line)}</code></li>" for line in cell.evidence[:EVIDENCE_LINES]
    )
    more = (
        f"<li class='muted'>… {len(cell.evidence) - EVIDENCE_LINES} more in the release's data</li>"
        if len(cell.evidence) > EVIDENCE_LINES
        else ""
    )
    said = f"<p>{esc(cell.summary)}</p>" if cell.summary else ""
    return (
        f"<div><h4>{esc(version)} ({heading}): {verdict_words(cell.verdict)}</h4>{said}"
        f"<p>Evidence:</p><ul>{evidence or '<li>none recorded</li>'}{more}</ul>"
        + (f"<p>Reproduce with: <code>{esc(cell.reproduce)}</code></p>" if cell.reproduce else "")
        + "</div>"
    )


def _upstream(view: HistoryView, finding_id: str) -> str:
    """Each watched issue the finding decides (with the others the watch list reads for
    it): its state per release, a bar where it changed, and each change in words."""
    issues = view.issues_decided_by(finding_id)
    title = "<h2>Upstream issues</h2>"
    if not issues:
        return title + "<p>This finding decides no watched upstream issue.</p>"
    blocks = []
    for issue in issues:
        points = [p for p in view.points_of(issue.issue) if p.kind == "watch"]
        changed = {p.first_changed for p in points}
        marks = []
        for version in view.probed_versions:
            decided = view.watch_decision(version, issue.issue)
            if decided is None:
                continue
            state = WATCH_STATES[decided.state]
            mark = "cv" if version in changed else ""
            shown = symbol(state, mark, f"{version}: {decided.state.value}: {decided.why}")
            marks.append(f'<a href="{release_href(version, DEPTH)}">{shown}{esc(version)}</a>')
        said = [
            f"<li>{esc(change.said)} ({esc(change.was)})</li>"
            for p in points
            if (change := StateChange.of(p.key, p.first_changed, p.last_same, p.before, p.after))
        ]
        others = [f for f in issue.findings if f != finding_id]
        also = f"<p>Also decided by: {esc(', '.join(others))}.</p>" if others else ""
        blocks.append(
            f'<h3><a href="{esc(issue.url)}">{esc(issue.issue)}</a> {esc(issue.title)}</h3>'
            f"{also}"
            f'<div class="strip">{"".join(marks)}</div>'
            + (f"<ul>{''.join(said)}</ul>" if said else "")
        )
    return title + "".join(blocks)
