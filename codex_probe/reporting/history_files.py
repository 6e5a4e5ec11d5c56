"""A history folder's files read into one model: each release, and each finding on it as a
`FindingOnRelease` holding its `Finding`. The site, the dataset and can-i-upgrade read a
history through this model (by way of history_view.py), never the files.

`codex-probe history` writes history.json (codex_probe/probes/releases/history.py: per
release, each finding's verdict and observed values) and, per release, `releases/VERSION/`:
its verdict.json (statement, expected values, evidence, reproduction bundles under `repro/`),
its surface.json and the fake profile learned for it (`learned/`). Each file is read by its
one loader: `load_history` (typed as `HistoryFile`), `load_verdict`, `load_surfaces`. A
finding is the one verdict.json holds, with what history.json records of it (verdict,
required, observed values, summary) in its place; without a verdict.json, the finding is
what history.json records. Fields that newer histories write are read when they are there,
and their absence is no error:

- A release's protocol surface, one digest per aspect: read off
  `releases/VERSION/surface.json` when it is there, else from its `surface` entry in
  history.json (one digest per aspect under `aspects`, or one for the whole surface).
- A finding's `upstream` list (`[{"issue": "openai/codex#N", "state": "present"|"absent"}]`)
  is read from history.json or the release's verdict.json, and made the same way from the
  finding's verdict and values where neither has one (codex_probe/probes/domain/watch.py).

Paths of the machine a history was made on (a learned profile's, in a fidelity finding) are
written relative to the history folder: where a run happened is not what codex did.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec

from codex_probe.fake_appserver.profile import profile_for
from codex_probe.harness.codex.versions import version_key
from codex_probe.harness.files import inside
from codex_probe.probes.domain.findings import Fidelity, Finding
from codex_probe.probes.domain.stability import comparable
from codex_probe.probes.domain.surface.file import SurfaceFileError, load_surfaces
from codex_probe.probes.domain.verdict_file import VerdictFileError, load_verdict
from codex_probe.probes.domain.watch import upstream_of
from codex_probe.probes.releases.history import (
    HISTORY_FILE,
    HistoryError,
    HistoryFile,
    RecordedFinding,
    ReleaseRecord,
    SurfacePointer,
    load_history,
)

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
class FindingOnRelease:
    """One finding on one release, as the history recorded it: the `Finding` (paths made
    portable), and the folder of its reproduction bundle when the history holds one."""

    finding: Finding
    bundle: Path | None = None

    @property
    def compared(self) -> dict[str, Any]:
        """The observed values as two releases are compared: ids masked, no paths."""
        found = comparable(self.finding.observed)
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
    findings: dict[str, FindingOnRelease] = field(default_factory=dict)
    surface: dict[str, Any] = field(default_factory=dict)  # aspect -> digest
    surface_file: Path | None = None

    @property
    def probed(self) -> bool:
        return self.unavailable is None

    def counts(self) -> dict[str, int]:
        counted = {"holds": 0, "changed": 0, "broken": 0, "unsupported": 0}
        for found in self.findings.values():
            verdict = found.finding.verdict.value
            counted[verdict] = counted.get(verdict, 0) + 1
        return counted


@dataclass(frozen=True)
class HistoryFiles:
    """A history folder as read: history.json as written (the change points and the watch
    list read it) and its releases in version order."""

    document: dict[str, Any]
    releases: list[Release]


def read_history(folder: Path) -> HistoryFiles:
    """The history in `folder` (its history.json and releases/); HistoryViewError names
    what cannot be read."""
    try:
        document = load_history(folder / HISTORY_FILE)
    except HistoryError as error:
        raise HistoryViewError(str(error)) from None
    typed = msgspec.convert(document, HistoryFile)  # load_history checked its schema
    releases = [
        _release(version, record, inside(folder, "releases", version))
        for version, record in sorted(typed.releases.items(), key=lambda i: version_key(i[0]))
    ]
    return HistoryFiles(document, releases)


def _release(version: str, record: ReleaseRecord, folder: Path) -> Release:
    if record.unavailable:
        return Release(version, folder, unavailable=record.unavailable)
    verdict_file = folder / "verdict.json"
    judged = _judged(version, verdict_file)
    findings = {
        finding_id: FindingOnRelease(
            _as_recorded(version, finding_id, recorded, judged.get(finding_id)),
            _bundle(verdict_file.parent, judged.get(finding_id)),
        )
        for finding_id, recorded in record.findings.items()
    }
    profile = record.fake_profile
    surface, surface_file = _surface(record.surface, folder / "surface.json", version)
    return Release(
        version,
        folder,
        probed_at=record.probed_at,
        tool=record.tool,
        probe_set=record.probe_set,
        seconds=record.seconds,
        fake_profile=portable(profile) if profile is not None else None,
        profile_file=_profile_file(version, folder, profile),
        findings=findings,
        surface=surface,
        surface_file=surface_file,
    )


def _judged(version: str, path: Path) -> dict[str, Finding]:
    """The release's findings as its verdict.json holds them (none when it is absent)."""
    if not path.is_file():
        return {}
    try:
        return load_verdict(path).findings.get(version, {})
    except VerdictFileError as error:
        raise HistoryViewError(str(error)) from None


def _as_recorded(
    version: str, finding_id: str, recorded: RecordedFinding, judged: Finding | None
) -> Finding:
    """The finding verdict.json holds, with what history.json records of it in its place
    (history.json is what the history's change points were computed from)."""
    base = judged or Finding(
        id=finding_id,
        version=version,
        verdict=recorded.verdict,
        required=recorded.required,
        spec_section="",
        statement="",
        observed={},
        expected={},
    )
    if recorded.upstream is not None:
        upstream = [{"issue": u.issue, "state": u.state} for u in recorded.upstream]
    elif judged is not None and judged.upstream:
        upstream = judged.upstream
    else:  # not recorded: what the judge writes from the same values
        upstream = upstream_of(finding_id, recorded.verdict.value, recorded.observed or {})
    fidelity = base.fidelity
    return replace(
        base,
        verdict=recorded.verdict,
        required=recorded.required,
        statement=portable(base.statement),
        observed=portable(recorded.observed or {}),
        evidence=[portable(line) for line in base.evidence],
        fidelity=None
        if fidelity is None
        else Fidelity(
            fidelity.fake_matches_real, portable(fidelity.diff), portable(fidelity.profile)
        ),
        summary=portable(recorded.summary or base.summary or ""),
        upstream=upstream,
    )


def _bundle(verdict_folder: Path, finding: Finding | None) -> Path | None:
    """A finding's bundle: a folder beside the verdict file, never one elsewhere (the site
    zips it)."""
    if finding is None or finding.repro is None or not finding.repro.path:
        return None
    candidate = inside(verdict_folder, *finding.repro.path.split("/"))
    return candidate if candidate.is_dir() else None


def _surface(
    pointer: SurfacePointer | None, file: Path, version: str
) -> tuple[dict[str, Any], Path | None]:
    """A release's surface as one digest per aspect: read off its surface.json (as a
    history writes it) when there is one, else from the digests history.json gives (one
    per aspect under `aspects`, or one for the whole surface)."""
    at = file if file.is_file() else None
    if pointer is not None and pointer.aspects is not None:
        return dict(pointer.aspects), at
    if at is not None:
        try:
            surface = load_surfaces(at).get(version)
        except SurfaceFileError as error:
            raise HistoryViewError(str(error)) from None
        if surface is not None:
            return {aspect: _digest(keys) for aspect, keys in surface.aspects.items()}, at
    if pointer is not None and pointer.digest is not None:
        return {"surface": pointer.digest}, at
    return {}, at


def _digest(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical(value).encode()).hexdigest()[:16]


def _profile_file(version: str, folder: Path, profile: dict[str, Any] | None) -> Path | None:
    """The profile the release's run gave the fake: the one it learned (kept in the
    release's folder), else the checked-in one if that is what its record names."""
    checked_in = profile is not None and profile.get("source") == "checked-in"
    return profile_for(version, learned_in=folder / "learned", checked_in=checked_in)
