"""releases/VERSION.html: one release. What changed since the release before it and since
the default version, every verdict, the watched bugs and the surface when recorded, the fake
profile learned for it, and its reproduction bundles to download."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.versions import version_key
from codex_probe.probes.domain.surface.diff import SurfaceChange, diff_command
from codex_probe.probes.domain.watch import StateChange
from codex_probe.reporting.history_files import Release
from codex_probe.reporting.history_view import Difference, HistoryView
from codex_probe.reporting.site import dataset as model
from codex_probe.reporting.site.look import (
    GROUP_TITLES,
    NOT_INSTALLABLE,
    WATCH_STATES,
    compare_href,
    esc,
    finding_href,
    page,
    release_href,
    symbol,
    value,
    verdict_state,
    verdict_words,
)
from codex_probe.reporting.surface_text import short_listing

DEPTH = 1
DATA = f"{'../' * DEPTH}{model.DATA}/"
HISTORY_DIR = "HISTORY_DIR"  # the history the site was built from, where the reader has it


def render_release(view: HistoryView, release: Release, record: model.PublishedReleaseFile) -> str:
    version = release.version
    body = [_navigation(view, version), f"<h1>codex-cli {esc(version)}</h1>"]
    if not release.probed:
        body.append(
            f"<p>{symbol(NOT_INSTALLABLE)} Not installable: npm publishes it, but its codex "
            f"does not run, so there is nothing to probe.</p><pre>{esc(release.unavailable)}</pre>"
        )
        return page(f"codex-cli {version}", "\n".join(body), depth=DEPTH)
    counts = release.counts()
    seconds = f", in {release.seconds:.1f} s" if release.seconds is not None else ""
    judged = [found.finding for found in release.findings.values()]
    not_holding = [f.id for f in judged if f.required and f.verdict != "holds"]
    body.append(
        "<p><b>"
        + (
            "Every required assumption holds."
            if not not_holding
            else f"Required assumptions that do not hold: {esc(', '.join(not_holding))}."
        )
        + "</b></p>"
    )
    body.append(
        f"<p>{counts['holds']} hold, {counts['changed']} changed, {counts['broken']} broken. "
        f"Probed {esc(release.probed_at)} by {esc(release.tool)}{seconds}. "
        f'Data: <a href="{DATA}{model.release_file(version)}">{esc(model.release_file(version))}'
        "</a>.</p>"
    )
    body.append(_since_previous(view, version))
    body.append(_since_default(view, version))
    body.append(_verdicts(view, release, record))
    if view.watched:
        body.append(_watch(view, version))
    if release.surface:
        body.append(_breaking(view, version))
        body.append(_surface(release, record))
    body.append(_profile(release, record))
    body.append(_bundles(record))
    return page(f"codex-cli {version}", "\n".join(body), depth=DEPTH)


def _navigation(view: HistoryView, version: str) -> str:
    versions = view.versions
    at = versions.index(version)
    before = versions[at - 1] if at else None
    after = versions[at + 1] if at + 1 < len(versions) else None
    links = []
    if before:
        links.append(f'<a href="{release_href(before, DEPTH)}">← {esc(before)}</a>')
    if after:
        links.append(f'<a href="{release_href(after, DEPTH)}">{esc(after)} →</a>')
    return f'<nav class="rel">{" · ".join(links)}</nav>'


def _since_previous(view: HistoryView, version: str) -> str:
    probed = view.probed_versions
    at = probed.index(version)
    if at == 0:
        return "<h2>Since the release before</h2><p>The first probed release of this history.</p>"
    previous = probed[at - 1]
    return f"<h2>Since {esc(previous)}, the release before</h2>" + _differences(
        view, previous, version
    )


def _since_default(view: HistoryView, version: str) -> str:
    default = view.default_version
    title = f"<h2>Against {esc(default)}, codex-probe's default version</h2>"
    if version == default:
        return title + "<p>This is the default version.</p>"
    if default not in view.probed_versions:
        return title + f"<p>{esc(default)} is not in this history.</p>"
    older, newer = sorted((version, default), key=version_key)
    return title + _differences(view, older, newer)


def _differences(view: HistoryView, older: str, newer: str) -> str:
    found = view.differences(older, newer)
    link = (
        f'<a href="{compare_href(older, newer, DEPTH)}">compare {esc(older)} and {esc(newer)}</a>'
    )
    if not found:
        return f"<p>Nothing differs between {esc(older)} and {esc(newer)} ({link}).</p>"
    by_subject: dict[str, list[Difference]] = defaultdict(list)
    for difference in found:
        by_subject[difference.subject].append(difference)
    rows = []
    # A verdict's change first: it is what a reader looks for.
    ranked = sorted(by_subject.items(), key=lambda item: item[1][0].kind != "verdict")
    for subject, differences in ranked:
        differences.sort(key=lambda d: d.kind != "verdict")
        info = view.finding(subject)
        name = (
            f'<a href="{finding_href(subject, DEPTH, newer)}">{esc(subject)}</a>'
            if info
            else esc(subject)
        )
        adjacent = view.probed_versions.index(newer) == view.probed_versions.index(older) + 1
        what = "<br>".join(
            _difference_words(view, older, newer, d, subject, adjacent) for d in differences
        )
        group = info.group if info else differences[0].kind
        rows.append(f"<tr><td>{name}</td><td>{esc(group)}</td><td class='val'>{what}</td></tr>")
    return (
        f"<p>{len(by_subject)} row(s) differ between {esc(older)} and {esc(newer)} ({link}).</p>"
        '<table class="list"><tr><th>row</th><th>kind</th><th>what changed</th></tr>'
        + "".join(rows)
        + "</table>"
    )


def _difference_words(
    view: HistoryView,
    older: str,
    newer: str,
    difference: Difference,
    subject: str,
    adjacent: bool,
) -> str:
    """What differs, and (between releases that are not neighbours) where it changed."""
    if difference.kind == "verdict":
        words = f"verdict {verdict_words(difference.before)} → {verdict_words(difference.after)}"
    elif difference.kind == "watch" and (
        change := StateChange.of(
            subject,
            difference.first_changed or newer,
            difference.last_same or older,
            difference.before,
            difference.after,
        )
    ):
        return f"{esc(change.said)} ({esc(change.was)})"  # the watch list's own words
    elif difference.kind == "watch":  # one side undecided: its findings gave no verdict
        before, after = (
            str(v) if v else "undecided" for v in (difference.before, difference.after)
        )
        words = f"watch: {esc(before)} → {esc(after)}"
    elif difference.kind == "surface" and (changes := view.surface_changes(older, newer, subject)):
        # A digest says nothing to a reader: each key and what changed in its value.
        words = _surface_words(changes, older, newer)
    else:
        name = difference.key.removeprefix(subject).lstrip(".:/ ") or difference.kind
        words = f"{esc(name)}: {value(difference.before)} → {value(difference.after)}"
    if difference.first_changed and not adjacent:
        words += f" <span class='muted'>(first in {esc(difference.first_changed)}"
        words += ", changed more than once)" if difference.changes > 1 else ")"
        words += "</span>"
    return words


def _surface_words(changes: list[SurfaceChange], older: str, newer: str) -> str:
    """Each changed key of an aspect (alike ones once) and what changed in its value, the
    first SHORT_KEYS of them, then the command that lists every one."""
    shown, left = short_listing(changes)
    items = "".join(
        f"<li><b>{esc(keys)}</b><br><code>{esc(chr(10).join(lines))}</code></li>"
        for keys, lines in shown
    )
    every = f"<code>{esc(diff_command(older, newer, HISTORY_DIR))}</code>"
    more = f"{left} more alike group(s): " if left else "both values whole: "
    return (
        f"{len(changes)} key(s) differ:<ul class='keys'>{items}</ul>"
        f"<span class='muted'>{more}{every}</span>"
    )


def _verdicts(view: HistoryView, release: Release, record: model.PublishedReleaseFile) -> str:
    sections = []
    for group in ("required", "informative", "fidelity"):
        rows = []
        for info in (f for f in view.findings if f.group == group):
            recorded = release.findings.get(info.id)
            if recorded is None:
                continue
            cell = recorded.finding
            found = record.findings.get(info.id)
            bundle = (
                f' · <a href="{DATA}{found.bundle.file}">bundle</a>'
                if found is not None and found.bundle is not None
                else ""
            )
            said = (
                esc(cell.summary)
                if cell.summary
                else '<span class="muted">as the design assumes</span>'
            )
            if cell.verdict == "holds" and info.is_fidelity:
                said = '<span class="muted">the fake observes what this release does</span>'
            rows.append(
                f"<tr><td>{symbol(verdict_state(cell.verdict))}</td>"
                f'<td><a href="{finding_href(info.id, DEPTH, release.version)}">{esc(info.id)}</a>'
                f"</td><td>{esc(info.spec_section)}</td><td class='val'>{said}{bundle}</td></tr>"
            )
        if rows:
            sections.append(
                f"<h3>{esc(GROUP_TITLES[group])}</h3>"
                '<table class="list"><tr><th></th><th>finding</th><th>spec</th><th></th></tr>'
                + "".join(rows)
                + "</table>"
            )
    return "<h2>Every verdict</h2>" + "".join(sections)


def _watch(view: HistoryView, version: str) -> str:
    rows = []
    for issue in view.watched:
        decided = view.watch_decision(version, issue.issue)
        shown = symbol(WATCH_STATES[decided.state]) if decided else ""
        said = f"{decided.state.value}: {decided.why}" if decided else "not recorded"
        rows.append(
            f'<tr><td>{shown}</td><td><a href="{esc(issue.url)}">{esc(issue.issue)}</a></td>'
            f"<td>{esc(issue.title)}</td><td class='val'>{esc(said)}</td></tr>"
        )
    return '<h2>Watched upstream bugs</h2><table class="list">' + "".join(rows) + "</table>"


def _breaking(view: HistoryView, version: str) -> str:
    """The surface's changes first seen on this release, by the rule each meets: every ERR
    one named, the others counted."""
    found = view.breaking(version)
    title = '<h2 id="breaking">Breaking changes (the protocol surface, by rule)</h2>'
    if not found:
        return title + "<p>No key of the surface changed here.</p>"
    errors = [p for p in found if p.severity == "ERR"]
    counted = ", ".join(
        f"{sum(p.severity == name for p in found)} {name}" for name in ("ERR", "WARN", "INFO")
    )
    rows = "".join(
        f"<tr><td>{esc(p.rule or '')}</td><td class='val'>{esc(p.key)}</td>"
        f"<td>last same: {esc(p.last_same)}</td></tr>"
        for p in errors
    )
    reproduce = f"{diff_command(found[0].last_same, version)} --fail-on ERR"
    listed = f'<table class="list">{rows}</table>' if rows else ""
    return (
        f"{title}<p>{len(found)} key(s) of the surface changed here: {counted}. "
        f"Every rule each meets: <code>{esc(reproduce)}</code>.</p>{listed}"
    )


def _surface(release: Release, record: model.PublishedReleaseFile) -> str:
    rows = "".join(
        f"<tr><td>{esc(aspect)}</td><td>{value(digest)}</td></tr>"
        for aspect, digest in release.surface.items()
    )
    whole = (
        f'<p>The whole surface: <a href="{DATA}{record.surface_file}">surface.json</a>.</p>'
        if record.surface_file
        else ""
    )
    return f'<h2 id="surface">Protocol surface</h2>{whole}<table class="list">{rows}</table>'


def _profile(release: Release, record: model.PublishedReleaseFile) -> str:
    profile = record.fake_profile
    title = "<h2>The fake's profile of this release</h2>"
    if profile is None or profile.source is None:
        return title + "<p>No fake profile was recorded.</p>"
    said = [f"<p>Source: <b>{esc(profile.source)}</b>"]
    if profile.file:
        said.append(
            f' · <a href="{DATA}{profile.file}">the profile</a>'
            + (
                f' · <a href="{DATA}{model.release_folder(release.version)}/fake-wire.json">'
                "its wire templates</a>"
                if release.profile_file
                and release.profile_file.with_name(f"wire-{release.version}.json").is_file()
                else ""
            )
        )
    said.append("</p>")
    if profile.problem:
        said.append(f"<p>Problem: {esc(profile.problem)}</p>")
    if profile.gaps:
        said.append(
            "<p>What the profile language could not express:</p><ul>"
            + "".join(f"<li>{value(gap)}</li>" for gap in profile.gaps)
            + "</ul>"
        )
    said.append(_behaviour(release.profile_file))
    return title + "".join(said)


def _behaviour(path: Path | None) -> str:
    """The profile's behaviour entries: each value, and whether it was measured, and on what."""
    if path is None:
        return ""
    try:
        document: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return f"<p>{esc(path.name)} cannot be read.</p>"
    behaviour = document.get("behaviour") if isinstance(document, dict) else None
    if not isinstance(behaviour, dict):
        return ""
    rows = []
    for name, entry in behaviour.items():
        if not isinstance(entry, dict):
            continue
        measured = "measured" if entry.get("measured") else "not measured"
        rows.append(
            f"<tr><td>{esc(name)}</td><td class='val'>{value(entry.get('value'))}</td>"
            f"<td>{measured}</td><td class='val muted'>{esc(entry.get('evidence', ''))}</td></tr>"
        )
    return (
        '<table class="list"><tr><th>behaviour</th><th>value</th><th></th><th>evidence</th></tr>'
        + "".join(rows)
        + "</table>"
    )


def _bundles(record: model.PublishedReleaseFile) -> str:
    rows = [
        f'<tr><td><a href="{DATA}{found.bundle.file}">{esc(Path(found.bundle.file).name)}</a></td>'
        f"<td>{symbol(verdict_state(found.verdict))} {esc(finding_id)}</td>"
        f"<td><code>{esc(found.bundle.run)}</code></td></tr>"
        for finding_id, found in record.findings.items()
        if found.bundle is not None
    ]
    title = "<h2>Reproduction bundles</h2>"
    if not rows:
        return title + "<p>None: no finding of the real codex-cli changed or broke.</p>"
    return (
        title
        + "<p>Each is a folder that replays the finding with Python and the codex binary alone; "
        "unzip it and run:</p>"
        + '<table class="list"><tr><th>bundle</th><th>finding</th><th>run</th></tr>'
        + "".join(rows)
        + "</table>"
    )
