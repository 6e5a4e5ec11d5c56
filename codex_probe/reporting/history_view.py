"""A history folder as the site and can-i-upgrade read it: the one module that knows the
shape of history.json and of what lies beside it.

`codex-probe history` writes history.json (codex_probe/probes/releases/history.py: per release, each
finding's verdict and observed values) and, per release, `releases/VERSION/`: its
verdict.json (statement, expected values, evidence, reproduction bundles under `repro/`)
and the fake profile learned for it (`learned/`). Fields that newer histories write are read
when they are there, and their absence is no error:

- `change_points`, a list in history.json (`kind`, `key`, `first_changed`, `last_same`,
  `before`, `after`): used as given. Without it (a history older than the list), they are
  the ones history.json would list (codex_probe/probes/releases/history.py: `history_change_points`,
  what `save_history` writes), each read as a given one is.
- A release's protocol surface, one digest per aspect: read off
  `releases/VERSION/surface.json` when it is there, else from its `surface` entry in
  history.json (one digest per aspect under `aspects`, or one for the whole surface).
- The watched upstream bugs: each one's state on a release is decided by the watch list
  (codex_probe/probes/domain/watch.py) from the release's findings as history.json records them,
  when the history records any finding the list reads (present, absent, or undecided and why).
  A finding's `upstream` list (`[{"issue": "openai/codex#N", "state": "present"|"absent"}]`)
  is read from history.json or the release's verdict.json, and made the same way from the
  finding's verdict and values where neither has one.

Paths of the machine a history was made on (a learned profile's, in a fidelity finding) are
written relative to the history folder: where a run happened is not what codex did.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from codex_probe.fake_appserver.profile import profile_for
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION, version_key
from codex_probe.harness.files import inside
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX
from codex_probe.probes.domain.stability import comparable
from codex_probe.probes.domain.surface.classify import classify
from codex_probe.probes.domain.surface.diff import SurfaceChange, diff_surfaces
from codex_probe.probes.domain.surface.file import SurfaceFileError, load_surfaces
from codex_probe.probes.domain.surface.release import Surface
from codex_probe.probes.domain.verdict_file import VerdictFileError, load_verdict
from codex_probe.probes.domain.watch import BY_ISSUE, WATCHED, IssueState, upstream_of
from codex_probe.probes.domain.watch import State as WatchState
from codex_probe.probes.releases.change_points import ChangePoint
from codex_probe.probes.releases.history import (
    HISTORY_FILE,
    HistoryError,
    history_change_points,
    load_history,
    records_watch,
    subject_of,
    watch_states,
)
from codex_probe.probes.runner.scenarios import SCENARIOS

KINDS = ("verdict", "observed", "surface", "watch")
# A path on the machine that made the history, to a release's folder or a checked-in profile.
_RELEASE_PATH = re.compile(r"(?<![\w.])/[^\s\"'<>]*?/(releases/[^/\s\"'<>]+/)")
# A history made before the package held its folders (2026-12) says fake_appserver/profiles/.
_PROFILE_PATH = re.compile(r"(?<![\w.])/[^\s\"'<>]*?/(?:codex_probe/)?(fake_appserver/profiles/)")


class HistoryViewError(ValueError):
    """A history folder that cannot be read; the message names the file."""


def portable(value: Any) -> Any:
    """`value` with every path of the machine that made it written relative to the history
    folder (`releases/...`) or to the checkout (`codex_probe/fake_appserver/profiles/...`)."""
    if isinstance(value, str):
        return _PROFILE_PATH.sub(r"codex_probe/\1", _RELEASE_PATH.sub(r"\1", value))
    if isinstance(value, dict):
        return {key: portable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [portable(item) for item in value]
    return value


def canonical(value: Any) -> str:
    """One text per JSON value, to compare two values (ids masked)."""
    return json.dumps(comparable(value), sort_keys=True)


@dataclass(frozen=True)
class Upstream:
    """A watched upstream bug a finding decides, and its state on the finding's release."""

    issue: str  # "openai/codex#N"
    state: str  # "present" or "absent"


@dataclass(frozen=True)
class Cell:
    """One finding on one release, as recorded."""

    finding: str
    version: str
    verdict: str  # holds, changed or broken
    required: bool
    observed: dict[str, Any]
    summary: str = ""
    statement: str = ""
    spec_section: str = ""
    expected: dict[str, Any] = field(default_factory=dict)
    evidence: tuple[str, ...] = ()
    reproduce: str = ""
    upstream: tuple[Upstream, ...] = ()
    fidelity: Any = None
    bundle: Path | None = None  # the folder of its reproduction bundle
    bundle_run: str = ""

    @property
    def compared(self) -> dict[str, Any]:
        """The observed values as two releases are compared: ids masked, no paths."""
        found = comparable(self.observed)
        return found if isinstance(found, dict) else {}


@dataclass(frozen=True)
class Release:
    version: str
    folder: Path
    unavailable: str | None = None  # why its codex cannot run (nothing to probe)
    probed_at: str = ""
    tool: str = ""
    probe_set: str = ""
    seconds: float | None = None
    fake_profile: dict[str, Any] | None = None  # source, path, gaps, problem
    profile_file: Path | None = None  # the profile the fake ran on, when it is at hand
    cells: dict[str, Cell] = field(default_factory=dict)
    surface: dict[str, Any] = field(default_factory=dict)  # aspect -> digest
    surface_file: Path | None = None

    @property
    def probed(self) -> bool:
        return self.unavailable is None

    def counts(self) -> dict[str, int]:
        counted = {"holds": 0, "changed": 0, "broken": 0, "unsupported": 0}
        for cell in self.cells.values():
            counted[cell.verdict] = counted.get(cell.verdict, 0) + 1
        return counted


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
class WatchedIssue:
    issue: str
    url: str
    title: str = ""
    findings: tuple[str, ...] = ()  # the findings that decide it, in the watch list's order


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
        self.watched = [
            WatchedIssue(w.issue, w.url, w.title, w.findings) for w in WATCHED if self._watch
        ]
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
        try:
            document = load_history(folder / HISTORY_FILE)
        except HistoryError as error:
            raise HistoryViewError(str(error)) from None
        releases = [
            _release(version, entry, inside(folder, "releases", version))
            for version, entry in sorted(
                document["releases"].items(), key=lambda item: version_key(item[0])
            )
        ]
        return cls(folder, document, releases)

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

    def cell(self, version: str, finding_id: str) -> Cell | None:
        release = self._by_version.get(version)
        return None if release is None else release.cells.get(finding_id)

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

    def issues_decided_by(self, finding_id: str) -> list[WatchedIssue]:
        """The watched issues a finding decides (the watch list says which)."""
        return [w for w in self.watched if finding_id in w.findings]

    def value(self, kind: str, key: str, version: str) -> Any:
        """The value a change point's key has on a release (None: not recorded there)."""
        release = self._by_version.get(version)
        if release is None or not release.probed:
            return None
        if kind == "verdict":
            cell = release.cells.get(key)
            return None if cell is None else cell.verdict
        if kind == "observed":
            finding_id, _, name = key.partition(".")
            cell = release.cells.get(finding_id)
            return None if cell is None else cell.compared.get(name)
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
            if info.id not in first.cells and info.id not in second.cells:
                continue
            keys.append(("verdict", info.id, info.id))
            one, other = first.cells.get(info.id), second.cells.get(info.id)
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


def _release(version: str, entry: Any, folder: Path) -> Release:
    if not isinstance(entry, dict):
        raise HistoryViewError(f"history.json: release {version} is not an object")
    if entry.get("unavailable"):
        return Release(version, folder, unavailable=str(entry["unavailable"]))
    details = _verdict_details(version, folder / "verdict.json")
    cells: dict[str, Cell] = {}
    for finding_id, recorded in (entry.get("findings") or {}).items():
        if not isinstance(recorded, dict) or recorded.get("verdict") is None:
            continue
        more = details.get(finding_id, {})
        listed = recorded.get("upstream", more.get("upstream"))
        if listed is None:  # not recorded: what the judge writes from the same values
            observed = recorded.get("observed") or {}
            listed = upstream_of(finding_id, str(recorded["verdict"]), observed)
        upstream = _upstream(listed)
        cells[finding_id] = Cell(
            finding=finding_id,
            version=version,
            verdict=str(recorded["verdict"]),
            required=bool(recorded.get("required", more.get("required", False))),
            observed=portable(recorded.get("observed") or {}),
            summary=portable(str(recorded.get("summary") or more.get("summary") or "")),
            statement=portable(str(more.get("statement", ""))),
            spec_section=str(more.get("spec_section", "")),
            expected=more.get("expected") or {},
            evidence=tuple(portable(str(line)) for line in more.get("evidence", [])),
            reproduce=str(more.get("reproduce", "")),
            upstream=upstream,
            fidelity=portable(more.get("fidelity")),
            bundle=more.get("bundle"),
            bundle_run=str(more.get("bundle_run", "")),
        )
    profile = entry.get("fake_profile")
    surface, surface_file = _surface(entry.get("surface"), folder / "surface.json", version)
    seconds = entry.get("seconds")
    return Release(
        version,
        folder,
        probed_at=str(entry.get("probed_at", "")),
        tool=str(entry.get("tool", "")),
        probe_set=str(entry.get("probe_set", "")),
        seconds=float(seconds) if isinstance(seconds, int | float) else None,
        fake_profile=portable(profile) if isinstance(profile, dict) else None,
        profile_file=_profile_file(version, folder, profile),
        cells=cells,
        surface=surface,
        surface_file=surface_file,
    )


def _verdict_details(version: str, path: Path) -> dict[str, dict[str, Any]]:
    """What verdict.json adds to history.json, per finding (nothing when it is absent)."""
    if not path.is_file():
        return {}
    try:
        report = load_verdict(path)
    except VerdictFileError as error:
        raise HistoryViewError(str(error)) from None
    details: dict[str, dict[str, Any]] = {}
    for finding_id, finding in report.findings.get(version, {}).items():
        bundle = None
        if finding.repro is not None and finding.repro.path:
            # A folder beside the verdict file, never one elsewhere (the site zips it).
            candidate = inside(path.parent, *finding.repro.path.split("/"))
            bundle = candidate if candidate.is_dir() else None
        details[finding_id] = {
            "required": finding.required,
            "statement": finding.statement,
            "spec_section": finding.spec_section,
            "expected": finding.expected,
            "evidence": finding.evidence,
            "reproduce": finding.reproduce,
            "summary": finding.summary,
            "fidelity": None if finding.fidelity is None else finding.fidelity.to_json(),
            "upstream": finding.upstream or None,
            "bundle": bundle,
            "bundle_run": finding.repro.run if finding.repro is not None else "",
        }
    return details


def _upstream(value: Any) -> tuple[Upstream, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        Upstream(str(item["issue"]), str(item.get("state", "")))
        for item in value
        if isinstance(item, dict) and item.get("issue")
    )


def _surface(entry: Any, file: Path, version: str) -> tuple[dict[str, Any], Path | None]:
    """A release's surface as one digest per aspect: read off its surface.json (as a
    history writes it) when there is one, else from the digests history.json gives (one
    per aspect under `aspects`, or one for the whole surface)."""
    at = file if file.is_file() else None
    if isinstance(entry, dict) and isinstance(entry.get("aspects"), dict):
        return dict(entry["aspects"]), at
    if at is not None:
        try:
            surface = load_surfaces(at).get(version)
        except SurfaceFileError as error:
            raise HistoryViewError(str(error)) from None
        if surface is not None:
            return {aspect: _digest(keys) for aspect, keys in surface.aspects.items()}, at
    if isinstance(entry, dict) and entry.get("digest") is not None:
        return {"surface": entry["digest"]}, at
    if isinstance(entry, str):
        return {"surface": entry}, at
    return {}, at


def _digest(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical(value).encode()).hexdigest()[:16]


def _profile_file(version: str, folder: Path, profile: Any) -> Path | None:
    """The profile the release's run gave the fake: the one it learned (kept in the
    release's folder), else the checked-in one if that is what its record names."""
    checked_in = isinstance(profile, dict) and profile.get("source") == "checked-in"
    return profile_for(version, learned_in=folder / "learned", checked_in=checked_in)


def _finding_infos(releases: list[Release]) -> list[FindingInfo]:
    """Every finding of any release: the registry's order, then the fidelity findings in
    the scenarios' order, then any other. Its words from its latest record."""
    latest: dict[str, Cell] = {}
    for release in releases:
        latest.update(release.cells)
    registry = {a.id: a for a in ASSUMPTIONS}
    order = [a.id for a in ASSUMPTIONS] + [f"{FIDELITY_ID_PREFIX}{s}" for s in SCENARIOS]
    ids = [i for i in order if i in latest] + sorted(set(latest) - set(order))
    infos = []
    for finding_id in ids:
        cell, known = latest[finding_id], registry.get(finding_id)
        statement = cell.statement or (known.statement if known else "")
        if finding_id.startswith(FIDELITY_ID_PREFIX):
            scenario = finding_id.removeprefix(FIDELITY_ID_PREFIX)
            statement = (
                f"fake-codex, on the profile of each release (checked in or learned in the "
                f"same run), observes what the real codex-cli does in scenario {scenario}."
            )
        infos.append(
            FindingInfo(
                finding_id,
                cell.required,
                cell.spec_section or (known.spec_section if known else ""),
                statement,
                cell.expected or (known.expected if known else {}),
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
