"""A history folder as the site and can-i-upgrade read it: every release, its findings
(history_files.py reads them, each a `FindingOnRelease` holding its `Finding`), surface and
watched issues, and what changed between them.

- `change_points`, a list in history.json (`kind`, `key`, `first_changed`, `last_same`,
  `before`, `after`): used as given. Without it (a history older than the list), they are
  the ones history.json would list (codex_probe/probes/releases/history.py:
  `history_change_points`, what `save_history` writes), each read as a given one is.
- The watched upstream bugs: each one's state on a release is decided by the watch list
  (codex_probe/probes/domain/watch.py) from the release's findings as history.json records
  them, when the history records any finding the list reads (present, absent, or undecided
  and why).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION, version_key
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX
from codex_probe.probes.domain.surface.classify import classify
from codex_probe.probes.domain.surface.diff import SurfaceChange, diff_surfaces
from codex_probe.probes.domain.surface.file import SurfaceFileError, load_surfaces
from codex_probe.probes.domain.surface.release import Surface
from codex_probe.probes.domain.watch import BY_ISSUE, WATCHED, IssueState, Watched
from codex_probe.probes.domain.watch import State as WatchState
from codex_probe.probes.releases.change_points import ChangePoint
from codex_probe.probes.releases.history_changes import (
    history_change_points,
    records_watch,
    subject_of,
    watch_states,
)
from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.reporting.history_files import (
    FindingOnRelease,
    HistoryViewError,
    Release,
    canonical,
    portable,
    read_history,
)

KINDS = ("verdict", "observed", "surface", "watch")


@dataclass(frozen=True)
class FindingInfo:
    id: str
    required: bool
    spec_section: str
    statement: str
    expected: dict[str, Any]

    @property
    def is_fidelity(self) -> bool:
        return self.id.startswith(FIDELITY_ID_PREFIX)

    @property
    def kind(self) -> str:
        return "fidelity" if self.is_fidelity else "assumption"

    @property
    def group(self) -> str:
        """required, informative or fidelity: the rows of the grid, in that order."""
        if self.is_fidelity:
            return "fidelity"
        return "required" if self.required else "informative"


@dataclass(frozen=True)
class Difference:
    """A key whose value on release B differs from release A, and where it changed."""

    kind: str
    key: str
    subject: str
    before: Any  # on A (None: not recorded)
    after: Any  # on B
    first_changed: str | None  # the first release of the last run of B's value
    last_same: str | None  # the recorded release before it
    changes: int  # how often the value changed between A and B

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "key": self.key,
            "before": self.before,
            "after": self.after,
            "first_changed": self.first_changed,
            "last_same": self.last_same,
            "changes": self.changes,
        }


class HistoryView:
    """Every release of a history folder, its findings, surface and watched issues, and
    the change points between them."""

    def __init__(self, folder: Path, document: dict[str, Any], releases: list[Release]):
        self.folder = folder
        self.document = document
        self.releases = releases
        self._by_version = {release.version: release for release in releases}
        self.findings = _finding_infos(releases)
        self.aspects = _ordered(aspect for r in releases for aspect in r.surface)
        # Decided once from the findings, as history.json's change points were.
        self._watch = watch_states(document) if records_watch(document) else {}
        # The watch list's issues (each with the findings that decide it), when recorded.
        self.watched: list[Watched] = list(WATCHED) if self._watch else []
        given = document.get("change_points")
        self.change_points_given = isinstance(given, list)
        if not isinstance(given, list):  # an older history: the ones it would list today
            given = [p.to_json() for p in history_change_points(document, folder)]
        self.change_points = _read_change_points(given)
        self._surfaces: dict[str, Surface | None] = {}
        self._subjects = {(p.kind, p.key): self._subject(p) for p in self.change_points}

    # -- reading ------------------------------------------------------------------------

    @classmethod
    def load(cls, folder: Path) -> HistoryView:
        """The history in `folder` (its history.json and releases/); HistoryViewError names
        what cannot be read."""
        files = read_history(folder)
        return cls(folder, files.document, files.releases)

    @property
    def versions(self) -> list[str]:
        return [release.version for release in self.releases]

    @property
    def probed_versions(self) -> list[str]:
        return [release.version for release in self.releases if release.probed]

    @property
    def default_version(self) -> str:
        return DEFAULT_CODEX_VERSION

    def release(self, version: str) -> Release | None:
        return self._by_version.get(version)

    def finding(self, finding_id: str) -> FindingInfo | None:
        return next((f for f in self.findings if f.id == finding_id), None)

    def recorded(self, version: str, finding_id: str) -> FindingOnRelease | None:
        """A finding on a release, as recorded (None: not recorded there)."""
        release = self._by_version.get(version)
        return None if release is None else release.findings.get(finding_id)

    def watch_decision(self, version: str, issue: str) -> IssueState | None:
        """The watch list's decision on a watched issue for a release: present, absent, or
        broken (undecided) and why; None where the release was not probed."""
        return self._watch.get(version, {}).get(issue)

    def watch_state(self, version: str, issue: str) -> str | None:
        """A watched issue's state on a release as a value: "present" or "absent"; None
        where it was not decided (a gap, passed over as history.json's change points do)."""
        decided = self.watch_decision(version, issue)
        if decided is None or decided.state is WatchState.BROKEN:
            return None
        return decided.state.value

    def issue_findings(self, issue: str) -> list[str]:
        """The recorded findings that decide an issue, in the order of the rows."""
        watched = BY_ISSUE.get(issue)
        deciding = watched.findings if watched else ()
        return [f.id for f in self.findings if f.id in deciding]

    def issues_decided_by(self, finding_id: str) -> list[Watched]:
        """The watched issues a finding decides (the watch list says which)."""
        return [w for w in self.watched if finding_id in w.findings]

    def value(self, kind: str, key: str, version: str) -> Any:
        """The value a change point's key has on a release (None: not recorded there)."""
        release = self._by_version.get(version)
        if release is None or not release.probed:
            return None
        if kind == "verdict":
            found = release.findings.get(key)
            return None if found is None else found.finding.verdict.value
        if kind == "observed":
            finding_id, _, name = key.partition(".")
            found = release.findings.get(finding_id)
            return None if found is None else found.compared.get(name)
        if kind == "surface":
            return release.surface.get(key)
        if kind == "watch":
            return self.watch_state(version, key)
        raise ValueError(f"unknown kind of change: {kind}")

    def subject(self, point: ChangePoint) -> str:
        """The row a change point belongs to: a finding id, an aspect or an issue."""
        return self._subjects.get((point.kind, point.key)) or self._subject(point)

    def points_of(self, row: str) -> list[ChangePoint]:
        return [p for p in self.change_points if self.subject(p) == row]

    # -- comparing ----------------------------------------------------------------------

    def surface_changes(self, a: str, b: str, aspect: str | None = None) -> list[SurfaceChange]:
        """Every key of the surface (or of one aspect) whose value differs between releases A
        and B, with both values; none where a release has no surface file to say."""
        surfaces = [self.surface(version) for version in (a, b)]
        if surfaces[0] is None or surfaces[1] is None:
            return []
        changes = diff_surfaces(surfaces[0], surfaces[1])
        return [c for c in changes if aspect in (None, c.aspect)]

    def surface(self, version: str) -> Surface | None:
        """A release's whole surface, read off its surface.json (None: no such file)."""
        if version not in self._surfaces:
            release = self._by_version.get(version)
            file = None if release is None else release.surface_file
            try:
                found = None if file is None else load_surfaces(file).get(version)
            except SurfaceFileError as error:
                raise HistoryViewError(str(error)) from None
            self._surfaces[version] = found
        return self._surfaces[version]

    def breaking(self, version: str) -> list[ChangePoint]:
        """The surface's change points first seen on `version`, worst first: ERR, WARN,
        then INFO (the rule each meets, as `codex-probe diff` gives it)."""
        order = {"ERR": 0, "WARN": 1, "INFO": 2}
        found = [
            p for p in self.change_points if p.kind == "surface" and p.first_changed == version
        ]
        return sorted(found, key=lambda p: (order.get(p.severity or "", 3), p.key))

    def differences(self, a: str, b: str) -> list[Difference]:
        """Every key whose value on B differs from A's: verdicts, observed values, surface
        aspects and watched issues; each with where it changed between A and B."""
        first, second = self._by_version.get(a), self._by_version.get(b)
        if first is None or second is None:
            return []
        keys: list[tuple[str, str, str]] = []
        for info in self.findings:
            if info.id not in first.findings and info.id not in second.findings:
                continue
            keys.append(("verdict", info.id, info.id))
            one, other = first.findings.get(info.id), second.findings.get(info.id)
            names = (one.compared if one else {}).keys() | (other.compared if other else {}).keys()
            keys += [("observed", f"{info.id}.{name}", info.id) for name in sorted(names)]
        keys += [("surface", aspect, aspect) for aspect in self.aspects]
        keys += [("watch", w.issue, w.issue) for w in self.watched]
        span = [
            v for v in self.probed_versions if version_key(a) <= version_key(v) <= version_key(b)
        ]
        found = []
        for kind, key, subject in keys:
            before, after = self.value(kind, key, a), self.value(kind, key, b)
            if canonical(before) == canonical(after):
                continue
            series = [(v, value) for v in span if (value := self.value(kind, key, v)) is not None]
            first_changed, last_same = _last_run(series, after)
            changes = sum(canonical(x) != canonical(y) for (_, x), (_, y) in _pairs(series))
            found.append(
                Difference(kind, key, subject, before, after, first_changed, last_same, changes)
            )
        return found

    # -- change points --------------------------------------------------------------------

    def _subject(self, point: ChangePoint) -> str:
        rows = {
            "surface": self.aspects,
            "watch": [w.issue for w in self.watched],
        }.get(point.kind, [f.id for f in self.findings])
        return subject_of(point, rows)


def _read_change_points(given: list[Any]) -> list[ChangePoint]:
    """history.json's change points (anything but an object passed over), in release order,
    each value with the paths of the machine that made it written relative to the history."""
    points = [
        _classified(
            ChangePoint(
                str(item.get("kind", "")),
                str(item.get("key", "")),
                str(item.get("first_changed", "")),
                str(item.get("last_same", "")),
                portable(item.get("before")),
                portable(item.get("after")),
                None if item.get("rule") is None else str(item["rule"]),
                None if item.get("severity") is None else str(item["severity"]),
            )
        )
        for item in given
        if isinstance(item, dict)
    ]
    return sorted(points, key=_point_order)


def _classified(point: ChangePoint) -> ChangePoint:
    """A surface point with its rule: a history written before the rules has none, and its
    values (cut down to what differs) still tell which rule the change meets."""
    if point.kind != "surface" or point.rule is not None or " " not in point.key:
        return point
    aspect, key = point.key.split(" ", 1)
    worst = classify(aspect, key, point.before, point.after)[0]
    return replace(point, rule=worst.rule, severity=worst.severity.name)


def _finding_infos(releases: list[Release]) -> list[FindingInfo]:
    """Every finding of any release: the registry's order, then the fidelity findings in
    the scenarios' order, then any other. Its words from its latest record."""
    latest: dict[str, FindingOnRelease] = {}
    for release in releases:
        latest.update(release.findings)
    registry = {a.id: a for a in ASSUMPTIONS}
    order = [a.id for a in ASSUMPTIONS] + [f"{FIDELITY_ID_PREFIX}{s}" for s in SCENARIOS]
    ids = [i for i in order if i in latest] + sorted(set(latest) - set(order))
    infos = []
    for finding_id in ids:
        finding, known = latest[finding_id].finding, registry.get(finding_id)
        statement = finding.statement or (known.statement if known else "")
        if finding_id.startswith(FIDELITY_ID_PREFIX):
            scenario = finding_id.removeprefix(FIDELITY_ID_PREFIX)
            statement = (
                f"fake-codex, on the profile of each release (checked in or learned in the "
                f"same run), observes what the real codex-cli does in scenario {scenario}."
            )
        infos.append(
            FindingInfo(
                finding_id,
                finding.required,
                finding.spec_section or (known.spec_section if known else ""),
                statement,
                finding.expected or (known.expected if known else {}),
            )
        )
    return infos


def _ordered(names: Iterator[str] | Any) -> list[str]:
    return list(dict.fromkeys(names))


def _pairs(series: list[Any]) -> Iterator[tuple[Any, Any]]:
    return itertools.pairwise(series)


def _last_run(series: list[tuple[str, Any]], after: Any) -> tuple[str | None, str | None]:
    """The first release of the run of `after` that ends the series, and the one before."""
    first_changed = last_same = None
    for version, value in reversed(series):
        if canonical(value) != canonical(after):
            last_same = version
            break
        first_changed = version
    return first_changed, last_same


def _point_order(point: ChangePoint) -> tuple[Any, ...]:
    kind = KINDS.index(point.kind) if point.kind in KINDS else len(KINDS)
    return (version_key(point.first_changed), kind, point.key)
