"""The dataset written from a history: data/ of the site (the model: dataset.py).

Each release's own files are copied beside its record: the profile the fake ran on (and its
wire templates), the surface when recorded, and each reproduction bundle zipped (the same
bytes for the same folder: names sorted, one timestamp) so that a browser can download it.
"""

from __future__ import annotations

import shutil
import stat
import time
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import cast, get_args

from codex_probe.harness.files import write_text_atomically
from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.findings import Finding
from codex_probe.probes.releases.change_points import ChangePoint
from codex_probe.reporting.history_files import FindingOnRelease, Release
from codex_probe.reporting.history_view import Difference, FindingInfo, HistoryView
from codex_probe.reporting.site import dataset as model

ZIP_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Dataset:
    """The records written, for the pages to link and embed."""

    index: model.PublishedIndex
    releases: dict[str, model.PublishedReleaseFile]
    findings: dict[str, model.PublishedFindingFile]


def write_dataset(view: HistoryView, data: Path) -> Dataset:
    """Write the dataset of `view` into the folder `data` (emptied first)."""
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    releases = {r.version: _release_record(view, r, _Files(data)) for r in view.releases}
    findings = {f.id: _finding_record(view, f.id) for f in view.findings}
    index = _index_record(view, releases)
    _write(data / model.index_file(), model.encode(index))
    for version, record in releases.items():
        _write(data / model.release_file(version), model.encode(record))
    for finding_id, finding in findings.items():
        _write(data / model.finding_file(finding_id), model.encode(finding))
    write_text_atomically(data / "schema.json", model.schema_text())
    return Dataset(index, releases, findings)


def _index_record(
    view: HistoryView, releases: dict[str, model.PublishedReleaseFile]
) -> model.PublishedIndex:
    return model.PublishedIndex(
        dataset_version=model.DATASET_VERSION,
        generated_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        tool=TOOL,
        default_version=view.default_version,
        change_points_source="history" if view.change_points_given else "computed",
        releases=[
            model.PublishedReleaseEntry(
                version=r.version,
                status="probed" if r.probed else "not_installable",
                probed_at=r.probed_at or None,
                counts=model.PublishedCounts(**r.counts()) if r.probed else None,
                file=model.release_file(r.version),
            )
            for r in view.releases
        ],
        findings=[
            model.PublishedFindingEntry(
                id=f.id,
                kind="fidelity" if f.is_fidelity else "assumption",
                required=f.required,
                spec_section=f.spec_section,
                statement=f.statement,
                file=model.finding_file(f.id),
            )
            for f in sorted(view.findings, key=_group_order)
        ],
        surface_aspects=list(view.aspects),
        watch=[
            model.PublishedWatchedIssue(
                issue=w.issue,
                url=w.url,
                title=w.title,
                findings=view.issue_findings(w.issue),
                states={
                    v: state
                    for v in view.probed_versions
                    if (state := view.watch_state(v, w.issue))
                },
                undecided={
                    v: decided.why
                    for v in view.probed_versions
                    if (decided := view.watch_decision(v, w.issue))
                    and view.watch_state(v, w.issue) is None
                },
            )
            for w in view.watched
        ],
        change_points=[_change_point(view, p) for p in view.change_points],
    )


GROUPS = ("required", "informative", "fidelity")


def _group_order(finding: FindingInfo) -> int:
    return GROUPS.index(finding.group)


def _change_point(view: HistoryView, point: ChangePoint) -> model.PublishedChangePoint:
    return model.PublishedChangePoint(
        kind=_kind(point.kind),
        key=point.key,
        subject=view.subject(point),
        first_changed=point.first_changed,
        last_same=point.last_same,
        before=point.before,
        after=point.after,
        rule=point.rule,
        severity=_severity(point.severity),
    )


def _severity(name: str | None) -> model.SeverityName | None:
    if name is None:
        return None
    if name in get_args(model.SeverityName):
        return cast(model.SeverityName, name)
    raise ValueError(f"unknown severity: {name!r}")


def _breaking(view: HistoryView, release: Release) -> model.PublishedBreaking | None:
    if not release.surface:
        return None
    found = Counter(point.severity for point in view.breaking(release.version))
    return model.PublishedBreaking(ERR=found["ERR"], WARN=found["WARN"], INFO=found["INFO"])


def _change(difference: Difference) -> model.PublishedChange:
    return model.PublishedChange(
        kind=_kind(difference.kind),
        key=difference.key,
        subject=difference.subject,
        before=difference.before,
        after=difference.after,
        first_changed=difference.first_changed,
        last_same=difference.last_same,
        changes=difference.changes,
    )


def _kind(kind: str) -> model.ChangeKind:
    if kind in get_args(model.ChangeKind):
        return cast(model.ChangeKind, kind)
    raise ValueError(f"unknown kind of change: {kind!r}")


def _verdict(verdict: str) -> model.Verdict:
    if verdict in get_args(model.Verdict):
        return cast(model.Verdict, verdict)
    raise ValueError(f"unknown verdict: {verdict!r}")


@dataclass(frozen=True)
class _Files:
    """The dataset's folder: where a release's files are copied, named relative to it."""

    data: Path

    def folder(self, version: str) -> Path:
        return self.data / model.release_folder(version)

    def copy(self, source: Path | None, target: Path) -> str | None:
        if source is None or not source.is_file():
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        return self.name(target)

    def name(self, path: Path) -> str:
        return path.relative_to(self.data).as_posix()


def _release_record(
    view: HistoryView, release: Release, files: _Files
) -> model.PublishedReleaseFile:
    version = release.version
    folder = files.folder(version)
    probed = view.probed_versions
    previous = None
    if release.probed:
        position = probed.index(version)
        previous = probed[position - 1] if position else None
    return model.PublishedReleaseFile(
        dataset_version=model.DATASET_VERSION,
        version=version,
        status="probed" if release.probed else "not_installable",
        unavailable=release.unavailable,
        probed_at=release.probed_at or None,
        tool=release.tool or None,
        probe_set=release.probe_set or None,
        seconds=release.seconds,
        previous=previous,
        fake_profile=_fake_profile(release, files) if release.probed else None,
        findings={
            finding_id: _finding_on(found, files) for finding_id, found in release.findings.items()
        },
        surface=dict(release.surface),
        surface_file=files.copy(release.surface_file, folder / "surface.json"),
        changes_since_previous=[
            _change(d) for d in (view.differences(previous, version) if previous else [])
        ],
        breaking=_breaking(view, release),
    )


def _fake_profile(release: Release, files: _Files) -> model.PublishedFakeProfile:
    described = release.fake_profile or {}
    copied = None
    if release.profile_file is not None:
        folder = files.folder(release.version)
        copied = files.copy(release.profile_file, folder / "fake-profile.json")
        wire = release.profile_file.with_name(f"wire-{release.version}.json")
        files.copy(wire, folder / "fake-wire.json")
    gaps = described.get("gaps")
    problem = described.get("problem")
    return model.PublishedFakeProfile(
        source=str(described["source"]) if described.get("source") else None,
        file=copied,
        gaps=list(gaps) if isinstance(gaps, list) else [],
        problem=str(problem) if problem else None,
    )


def _finding_on(found: FindingOnRelease, files: _Files) -> model.PublishedFindingOnRelease:
    finding, bundle = found.finding, None
    if found.bundle is not None:
        target = files.folder(finding.version) / "repro" / f"{found.bundle.name}.zip"
        zip_folder(found.bundle, target)
        run = f"python3 {found.bundle.name}/reproduce.py --codex PATH_TO_CODEX"
        bundle = model.PublishedBundle(file=files.name(target), run=run)
    return model.PublishedFindingOnRelease(
        verdict=_verdict(finding.verdict.value),
        required=finding.required,
        observed=finding.observed,
        expected=finding.expected,
        evidence=list(finding.evidence),
        summary=finding.summary,
        reproduce=finding.reproduce,
        upstream=_upstream(finding),
        bundle=bundle,
    )


def _upstream(finding: Finding) -> list[model.PublishedUpstream]:
    return [model.PublishedUpstream(u["issue"], u["state"]) for u in finding.upstream]


def _finding_record(view: HistoryView, finding_id: str) -> model.PublishedFindingFile:
    info = view.finding(finding_id)
    assert info is not None
    timeline = []
    for release in view.releases:
        found = release.findings.get(finding_id)
        finding = None if found is None else found.finding
        timeline.append(
            model.PublishedTimelineEntry(
                version=release.version,
                verdict=None if finding is None else _verdict(finding.verdict.value),
                observed=None if finding is None else finding.observed,
                summary="" if finding is None else finding.summary,
                upstream=[] if finding is None else _upstream(finding),
            )
        )
    return model.PublishedFindingFile(
        dataset_version=model.DATASET_VERSION,
        id=finding_id,
        kind="fidelity" if info.is_fidelity else "assumption",
        required=info.required,
        spec_section=info.spec_section,
        statement=info.statement,
        expected=info.expected,
        timeline=timeline,
        change_points=[_change_point(view, p) for p in view.points_of(finding_id)],
        upstream=[w.issue for w in view.issues_decided_by(finding_id)],
    )


def zip_folder(folder: Path, target: Path) -> None:
    """`folder` as a zip whose one top folder is its name; the same bytes for the same files."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(f"{folder.name}/{path.relative_to(folder).as_posix()}", ZIP_TIME)
            executable = path.stat().st_mode & stat.S_IXUSR
            info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    partial.replace(target)


def _write(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(content)
    partial.replace(path)
