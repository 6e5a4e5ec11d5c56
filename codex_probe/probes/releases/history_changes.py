"""A history's rows and where they change: each finding's verdict and its observed values,
each key of the releases' surfaces (read from their surface files beside the history), each
watched upstream issue's state (codex_probe/probes/domain/watch.py decides it from the
release's findings); their change points (change_points.py) as history.json lists them,
a surface key's cut down to what differs, with the breaking-change rule it meets.

history.py writes the change points into the file at each save; the grid (grid.py) and the
history view the site and `can-i-upgrade` read (reporting/history_view.py) use them too.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX
from codex_probe.probes.domain.stability import comparable
from codex_probe.probes.domain.surface.classify import classify
from codex_probe.probes.domain.surface.file import SurfaceFileError, load_surfaces
from codex_probe.probes.domain.surface.release import ASPECTS, in_gap
from codex_probe.probes.domain.watch import (
    WATCH_FINDINGS,
    WATCHED,
    IssueState,
    State,
    issue_states,
)
from codex_probe.probes.releases.change_points import ChangePoint, Row, change_points, trimmed
from codex_probe.probes.runner.scenarios import SCENARIOS


def finding_rows(document: dict[str, Any]) -> list[str]:
    """Every finding of the history, in the registry's order, then any other."""
    found = {f for entry in document["releases"].values() for f in entry["findings"]}
    ordered = [a.id for a in ASSUMPTIONS] + [f"{FIDELITY_ID_PREFIX}{s}" for s in SCENARIOS]
    return [f for f in ordered if f in found] + sorted(found - set(ordered))


def history_rows(document: dict[str, Any], folder: Path | None) -> Iterator[Row]:
    """The rows whose change points the history lists: each finding's verdict and its
    observed values (ids masked), then each surface key (from the surface files under
    `folder`; none without one), then each watched issue's state. Values of surface rows
    are canonical JSON text."""
    releases = document["releases"]
    for finding in finding_rows(document):
        cells = {v: e["findings"][finding] for v, e in releases.items() if finding in e["findings"]}
        yield Row("verdict", finding, {v: cell["verdict"] for v, cell in cells.items()})
        yield Row("observed", finding, {v: comparable(c.get("observed")) for v, c in cells.items()})
    if folder is not None:
        yield from surface_rows(document, folder)
    yield from watch_rows(document)


def records_watch(document: dict[str, Any]) -> bool:
    """Whether a release records a finding the watch list reads: only then can the history
    say anything of the watched issues (one made by other probes cannot)."""
    return any(
        finding in (entry.get("findings") or {})
        for entry in document["releases"].values()
        for finding in WATCH_FINDINGS
    )


def watch_states(document: dict[str, Any]) -> dict[str, dict[str, IssueState]]:
    """Every watched issue on each release that ran, decided by the watch list from the
    release's findings as the history records them (a release that cannot run has none)."""
    return {
        version: issue_states(entry.get("findings") or {})
        for version, entry in document["releases"].items()
        if not entry.get("unavailable")
    }


def watch_rows(document: dict[str, Any]) -> Iterator[Row]:
    """One row per watched issue (none unless the history records what decides them): its
    state per release, present or absent. A release whose findings could not decide it
    (broken) has no value there, like a surface key in a gap: it is passed over, neither a
    change nor the same, so the change point spans it (last same: the release before it)."""
    if not records_watch(document):
        return
    states = watch_states(document)
    for watched in WATCHED:
        decided = {
            version: found.state.value
            for version, by_issue in states.items()
            if (found := by_issue[watched.issue]).state is not State.BROKEN
        }
        yield Row("watch", watched.issue, decided)


def surface_rows(document: dict[str, Any], folder: Path) -> Iterator[Row]:
    values: dict[str, dict[str, str]] = {}
    for version, entry in document["releases"].items():
        pointer = entry.get("surface")
        if not isinstance(pointer, dict) or not pointer.get("path"):
            continue
        for key, value in _surface_values(folder / str(pointer["path"]), version).items():
            values.setdefault(key, {})[version] = value
    ordered = sorted(values, key=lambda k: (ASPECTS.index(k.split(" ", 1)[0]), k))
    for key in ordered:
        yield Row("surface", key, values[key])


def _surface_values(path: Path, version: str) -> dict[str, str]:
    """`ASPECT KEY` -> canonical value of every key a surface file has a value for (a key
    of a scenario it could not read has none; any other key it lacks is null)."""
    try:
        stat = path.stat()
    except OSError:
        return {}
    return dict(_read_surface_values(path, version, stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=512)
def _read_surface_values(
    path: Path, version: str, mtime: int, size: int
) -> tuple[tuple[str, str], ...]:
    try:
        surface = load_surfaces(path).get(version)
    except SurfaceFileError:
        return ()
    if surface is None:
        return ()
    return tuple(
        (f"{aspect} {key}", json.dumps(value, sort_keys=True, separators=(",", ":")))
        for aspect in ASPECTS
        for key, value in surface.aspects[aspect].items()
    )


def history_change_points(document: dict[str, Any], folder: Path | None) -> list[ChangePoint]:
    """Every change point: of a verdict, of the observed values where the verdict stayed,
    of each surface key (cut down to what differs), of each watched issue's state. A
    surface key seen only in some releases is null in the others that have a surface."""
    rows = list(history_rows(document, folder))
    with_surface = {
        v for v, e in document["releases"].items() if isinstance(e.get("surface"), dict)
    }
    rows = [_filled(row, with_surface, document) if row.kind == "surface" else row for row in rows]
    points = change_points(rows)
    verdicts = {(p.key, p.first_changed) for p in points if p.kind == "verdict"}
    kept = []
    for point in points:
        if point.kind == "observed" and (point.key, point.first_changed) in verdicts:
            continue
        if point.kind == "surface":
            before, after, rule, severity = _surface_change(point.key, point.before, point.after)
            point = ChangePoint(
                point.kind,
                point.key,
                point.first_changed,
                point.last_same,
                json.loads(before),
                json.loads(after),
                rule,
                severity,
            )
        kept.append(point)
    return kept


@functools.cache  # bounded by the change points of the histories this process reads
def _surface_change(key: str, before: str, after: str) -> tuple[str, str, str, str]:
    """A surface key's change from `before` to `after` (canonical JSON): both cut down to
    what differs (as JSON), and the worst rule it meets with its severity. Remembered: a
    history saves after each release and finds the same change points again each time (at
    the 46th of 75 releases a quarter of the history process's own time went to them)."""
    old, new = json.loads(before), json.loads(after)
    aspect, name = key.split(" ", 1)
    worst = classify(aspect, name, old, new)[0]
    old, new = trimmed(old, new)
    return json.dumps(old), json.dumps(new), worst.rule, worst.severity.name


def _filled(row: Row, with_surface: set[str], document: dict[str, Any]) -> Row:
    """A surface row with null where a release has a surface without the key, unless the
    key's scenario is one that surface could not read."""
    aspect, key = row.key.split(" ", 1)
    values = dict(row.values)
    for version in with_surface - set(values):
        missing = document["releases"][version]["surface"].get("missing") or []
        if not in_gap(aspect, key, missing):
            values[version] = "null"
    return Row(row.kind, row.key, values)


def subject_of(point: ChangePoint, rows: Iterable[str]) -> str:
    """The row a change point belongs to: the longest of `rows` (finding ids for a verdict
    or observed point, aspects for a surface one, issues for a watch one) that its key is,
    or begins with before a separator (`ASPECT KEY`, `FINDING.FIELD`); the key itself when
    none is."""
    matching = [
        row
        for row in rows
        if point.key == row or re.match(re.escape(row) + r"[.:/ #\[]", point.key)
    ]
    return max(matching, key=len) if matching else point.key
