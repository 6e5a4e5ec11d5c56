"""index.html: the release x finding grid, then every change point.

Columns are releases in version order, rows the findings (required, informative, fidelity),
then one row per surface aspect, the breaking band (per release, the worst rule its surface
changes meet: ERR, WARN or INFO, as `codex-probe rules` classifies them) and one row per
watched upstream bug when the history records them. A cell shows its state by colour and
symbol, a bar where the verdict (or the bug's state) changed, a corner where an observed
value changed under the same verdict; it links to the finding's page at that release. The
page stays small (no per-cell tooltip text: a few lines of script name the cell under the
pointer), because a person opens it first: `codex-probe site` reports its weight, and a
test holds it under 500 kB for a history of the whole range.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict

from codex_probe.probes.domain.watch import StateChange
from codex_probe.probes.releases.change_points import ChangePoint
from codex_probe.reporting.history_files import Release
from codex_probe.reporting.history_view import FindingInfo, HistoryView
from codex_probe.reporting.site.look import (
    BREAKING,
    BREAKING_NONE,
    GROUP_TITLES,
    NOT_INSTALLABLE,
    NOT_RECORDED,
    STATES,
    SURFACE_CHANGED,
    SURFACE_SAME,
    VERDICTS,
    WATCH_ABSENT,
    WATCH_PRESENT,
    WATCH_STATES,
    WATCH_UNDECIDED,
    Look,
    compare_href,
    esc,
    finding_href,
    legend,
    page,
    release_href,
    value,
    verdict_words,
)

# Values listed per row and release under the grid, and rows per release (a release where
# dozens of findings moved at once); the rest is on the release's page.
POINTS_PER_ROW = 4
ROWS_PER_RELEASE = 12
FIRST_KINDS = {"verdict": 0, "watch": 1}
# Names the cell under the pointer: its row, its release and its state, from the table.
TIP_SCRIPT = (
    "const L=%s;document.querySelector('table.grid').addEventListener('mouseover',e=>{"
    "const c=e.target.closest('td');if(!c||c.firstChild.title)return;"
    "const r=c.parentElement.querySelector('th').textContent,"
    "v=document.querySelectorAll('table.grid thead th')[c.cellIndex].textContent,"
    "s=L[c.className.split(' ')[0]]||'';"
    "c.firstChild.title=r+' on '+v+': '+s+(c.classList.contains('cv')?' (changed here)':'')"
    "+(c.classList.contains('co')?' (an observed value changed here)':'')});"
)


def render_index(view: HistoryView) -> str:
    versions = view.versions
    marks = _marks(view)
    head = "".join(
        f'<th class="v"><a href="{release_href(v, 0)}">{esc(v)}</a></th>' for v in versions
    )
    rows: list[str] = []
    for group in ("required", "informative", "fidelity"):
        findings = [f for f in view.findings if f.group == group]
        if not findings:
            continue
        rows.append(_section(f"{GROUP_TITLES[group]} ({len(findings)})", len(versions)))
        for info in findings:
            label = (
                f'<th class="row{" req" if group == "required" else ""}">'
                f'<a href="{finding_href(info.id, 0)}">{esc(info.id)}</a></th>'
            )
            cells = "".join(_finding_cell(view, r, info.id, marks) for r in view.releases)
            rows.append(f"<tr>{label}{cells}</tr>")
    if view.aspects:
        rows.append(_section(f"{GROUP_TITLES['surface']} ({len(view.aspects)})", len(versions)))
        for aspect in view.aspects:
            cells = "".join(_surface_cell(r, aspect, marks) for r in view.releases)
            rows.append(f'<tr><th class="row">{esc(aspect)}</th>{cells}</tr>')
        cells = "".join(_breaking_cell(view, r) for r in view.releases)
        rows.append(f'<tr><th class="row">{esc(GROUP_TITLES["breaking"])}</th>{cells}</tr>')
    if view.watched:
        rows.append(_section(f"{GROUP_TITLES['watch']} ({len(view.watched)})", len(versions)))
        for issue in view.watched:
            deciding = view.issue_findings(issue.issue)
            title = f' title="{esc(issue.title)}"' if issue.title else ""
            label = f'<th class="row"><a href="{esc(issue.url)}"{title}>{esc(issue.issue)}</a></th>'
            cells = "".join(
                _watch_cell(view, r, issue.issue, deciding[0] if deciding else None, marks)
                for r in view.releases
            )
            rows.append(f"<tr>{label}{cells}</tr>")
    # The legend names what the grid can show: verdicts always, the rest when present.
    states = tuple(
        s
        for s in STATES
        if s not in (SURFACE_SAME, SURFACE_CHANGED, BREAKING_NONE, *BREAKING.values())
        or view.aspects
        if s not in (WATCH_PRESENT, WATCH_ABSENT, WATCH_UNDECIDED) or view.watched
        if s is not NOT_INSTALLABLE or len(view.probed_versions) < len(view.versions)
    )
    body = (
        _introduction(view)
        + legend(states)
        + '<div class="scroll"><table class="grid"><thead><tr><th class="corner"></th>'
        + head
        + "</tr></thead><tbody>\n"
        + "\n".join(rows)
        + "\n</tbody></table></div>\n"
        + _points(view)
        + _not_installable(view)
    )
    labels = json.dumps({s.css: s.label for s in STATES})
    span = f"{versions[0]} to {versions[-1]}" if versions else "no releases"
    return page(
        f"codex-cli {span}: what codex-probe measured", body, depth=0, script=TIP_SCRIPT % labels
    )


def _section(title: str, width: int) -> str:
    return f'<tr class="sec"><th colspan="{width + 1}">{esc(title)}</th></tr>'


def _marks(view: HistoryView) -> dict[tuple[str, str], str]:
    """(row, release) -> "cv" (a bar: the row's state changed) or "co" (a dot)."""
    marks: dict[tuple[str, str], str] = {}
    for point in view.change_points:
        spot = (view.subject(point), point.first_changed)
        if point.kind == "observed":
            marks.setdefault(spot, "co")
        else:
            marks[spot] = "cv"
    return marks


def _cell(state: Look, href: str | None, mark: str = "") -> str:
    """One cell, as few bytes as HTML allows (a whole range has some 4 000): attributes
    unquoted where they hold no space (ids, versions and paths never do), no end tag."""
    classes = f"{state.css} {mark}".strip()
    quoted = f'"{classes}"' if " " in classes else classes
    inner = f"<a href={href}>{state.symbol}</a>" if href else f"<span>{state.symbol}</span>"
    return f"<td class={quoted}>{inner}"


def _finding_cell(
    view: HistoryView, release: Release, finding_id: str, marks: dict[tuple[str, str], str]
) -> str:
    if not release.probed:
        return _cell(NOT_INSTALLABLE, None)
    found = release.findings.get(finding_id)
    if found is None:
        return _cell(NOT_RECORDED, None)
    mark = marks.get((finding_id, release.version), "")
    href = finding_href(finding_id, 0, release.version)
    return _cell(VERDICTS.get(found.finding.verdict, NOT_RECORDED), href, mark)


def _surface_cell(release: Release, aspect: str, marks: dict[tuple[str, str], str]) -> str:
    if not release.probed:
        return _cell(NOT_INSTALLABLE, None)
    if aspect not in release.surface:
        return _cell(NOT_RECORDED, None)
    changed = marks.get((aspect, release.version)) == "cv"
    href = f"{release_href(release.version, 0)}#surface"
    return _cell(SURFACE_CHANGED if changed else SURFACE_SAME, href)


def _breaking_cell(view: HistoryView, release: Release) -> str:
    if not release.probed:
        return _cell(NOT_INSTALLABLE, None)
    if not release.surface:
        return _cell(NOT_RECORDED, None)
    found = view.breaking(release.version)
    if not found:
        return _cell(BREAKING_NONE, None)
    state = BREAKING.get(found[0].severity or "", BREAKING["INFO"])
    return _cell(state, f"{release_href(release.version, 0)}#breaking")


def _watch_cell(
    view: HistoryView,
    release: Release,
    issue: str,
    finding_id: str | None,
    marks: dict[tuple[str, str], str],
) -> str:
    if not release.probed:
        return _cell(NOT_INSTALLABLE, None)
    decided = view.watch_decision(release.version, issue)
    if decided is None:
        return _cell(NOT_RECORDED, None)
    href = finding_href(finding_id, 0, release.version) if finding_id else None
    shown = WATCH_STATES[decided.state]
    return _cell(shown, href, marks.get((issue, release.version), ""))


def _introduction(view: HistoryView) -> str:
    versions = view.versions
    if not versions:
        return "<h1>No release recorded yet</h1>"
    probed = view.probed_versions
    required = [f for f in view.findings if f.group == "required"]
    # Per required finding, the releases where it does not hold (a few named, then a count).
    not_holding: dict[str, list[str]] = {}
    for release in view.releases:
        for judged in (found.finding for found in release.findings.values()):
            if judged.required and judged.verdict != "holds":
                not_holding.setdefault(judged.id, []).append(release.version)
    named = [
        f"{finding} on {', '.join(found[:3])}"
        + (f" and {len(found) - 3} more release(s)" if len(found) > 3 else "")
        for finding, found in not_holding.items()
    ]
    verdict = (
        f"Every one of the {len(required)} required assumptions holds on every probed release."
        if not not_holding
        else f"{len(not_holding)} of the {len(required)} required assumptions do not hold "
        f"somewhere: {esc('; '.join(named))}."
    )
    also = [
        "each assumption the prompt design rests on (holds, changed upstream, or broken: "
        "the probe could not measure)",
        "whether codex-probe's fake imitates each release",
    ]
    if view.aspects:
        also.append("the protocol surface, aspect by aspect")
    if view.watched:
        also.append("known upstream bugs, present or absent")
    latest = probed[-1] if probed else versions[-1]
    first = probed[0] if probed else versions[0]
    return (
        f"<h1>codex-cli {esc(versions[0])} to {esc(versions[-1])}: what codex-probe measured</h1>"
        f"<p>{len(versions)} releases"
        + (
            f" ({len(versions) - len(probed)} not installable)"
            if len(probed) < len(versions)
            else ""
        )
        + f", each probed offline against a mock model provider: {'; '.join(also)}. "
        f"<b>{verdict}</b></p>"
        f"<p>A cell leads to the finding's history, a release's name to its page. "
        f'<a href="{compare_href(first, latest, 0)}">Compare {esc(first)} with '
        f"{esc(latest)}</a>.</p>"
    )


def _points(view: HistoryView) -> str:
    # By release, then in the order of the grid's rows.
    order = {
        name: at
        for at, name in enumerate(
            [f.id for f in sorted(view.findings, key=_group)]
            + view.aspects
            + [w.issue for w in view.watched]
        )
    }
    by_release: dict[tuple[str, str], list[ChangePoint]] = defaultdict(list)
    # A verdict's change first, then a watched bug's: what a reader looks for.
    ranked = sorted(
        view.change_points,
        key=lambda p: (FIRST_KINDS.get(p.kind, 2), order.get(view.subject(p), len(order))),
    )
    for point in ranked:
        by_release[(point.first_changed, point.last_same)].append(point)
    source = "history.json" if view.change_points_given else "computed from the releases"
    items = []
    for (first, last), points in by_release.items():
        lines = _point_lines(view, points)
        if len(lines) > ROWS_PER_RELEASE:
            more = len(lines) - ROWS_PER_RELEASE
            rest = f'<li><a href="{release_href(first, 0)}">and {more} more rows</a></li>'
            lines = [*lines[:ROWS_PER_RELEASE], rest]
        items.append(
            f'<li><a href="{release_href(first, 0)}"><b>{esc(first)}</b></a> '
            f'(last same: {esc(last)}; <a href="{compare_href(last, first, 0)}">compare</a>)'
            f"<ul>{''.join(lines)}</ul></li>"
        )
    listed = "".join(items) or "<li>none: every row is the same on every release</li>"
    return (
        f"<h2>Change points ({len(view.change_points)}, {source})</h2>"
        f'<ul class="points">{listed}</ul>'
    )


def _point_lines(view: HistoryView, points: list[ChangePoint]) -> list[str]:
    """One line per row: a verdict's change, the values that changed (the first few), or
    for a surface aspect how many keys changed and one of them (the release page and
    compare list them all)."""
    by_subject: dict[str, list[ChangePoint]] = defaultdict(list)
    for point in points:
        by_subject[view.subject(point)].append(point)
    lines = []
    for subject, found in by_subject.items():
        if found[0].kind == "surface":
            # An aspect may change in dozens of keys at once: the index names how many and
            # one; the release page and the compare view give every value.
            order = {"ERR": 0, "WARN": 1, "INFO": 2}
            found = sorted(found, key=lambda p: order.get(p.severity or "", 3))
            first = found[0].key.removeprefix(subject).lstrip(".:/ ")
            worst = f"{found[0].severity} {found[0].rule}: " if found[0].rule else ""
            severities = Counter(p.severity for p in found if p.severity)
            said = ", ".join(f"{severities[n]} {n}" for n in order if severities[n])
            lines.append(
                f"<li>{esc(subject)} (surface): {len(found)} key(s) changed"
                f"{' (' + said + ')' if said else ''}, "
                f"e.g. {esc(worst)}<code>{esc(first)}</code></li>"
            )
            continue
        parts = []
        for point in found[:POINTS_PER_ROW]:
            change = point.kind == "watch" and StateChange.of(
                subject, point.first_changed, point.last_same, point.before, point.after
            )
            if change:
                parts.append(f"<br>{esc(change.said)} ({esc(change.was)})")
                continue
            name = point.key.removeprefix(subject).lstrip(".:/ ") or point.kind
            before, after = (
                (verdict_words(point.before), verdict_words(point.after))
                if point.kind == "verdict"
                else (value(point.before), value(point.after))
            )
            parts.append(f"<br>{esc(name)}: {before} → {after}")
        if len(found) > POINTS_PER_ROW:
            parts.append(f"<br>and {len(found) - POINTS_PER_ROW} more")
        kind = found[0].kind
        target = (
            f'<a href="{finding_href(subject, 0, found[0].first_changed)}">{esc(subject)}</a>'
            if kind in ("verdict", "observed")
            else esc(subject)
        )
        lines.append(f"<li>{target} ({esc(kind)}){''.join(parts)}</li>")
    return lines


def _group(finding: FindingInfo) -> int:
    return ("required", "informative", "fidelity").index(finding.group)


def _not_installable(view: HistoryView) -> str:
    missing = [r for r in view.releases if not r.probed]
    if not missing:
        return ""
    items = "".join(
        f"<li><b>{esc(r.version)}</b>: {esc((r.unavailable or '')[:300])}</li>" for r in missing
    )
    return f"<h2>Not installable: nothing to probe</h2><ul>{items}</ul>"
