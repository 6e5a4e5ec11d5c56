"""history.json: release x finding -> verdict and the key observed values; each release's
protocol surface by digest and pointer (releases/VERSION/surface.json); every change point.

A history run probes every release of a range in version order (one at a time, or N at
once: sweep.py), writing history.json after each release, so an interrupted run loses at
most the releases it was on and a re-run resumes: a release already recorded by the same
tool and the same set of probes is skipped. Shards of a range (`--shard K/N`, one CI job
each) write their own files, which `merge` joins; every release entry says which tool and
probe set recorded it.

`change_points` lists where any recorded value changes along the range, made afresh at
each save (history_changes.py): a finding's verdict, its observed values under the same
verdict, each key of the surface (cut down to the parts that differ, with the
breaking-change rule it meets and its severity), each watched upstream issue's state.

The file's shape is `HistoryFile` (its JSON schema is checked in as
codex_probe/probes/schemas/history.schema.json, docs/formats.md); `load_history` is the
one reader of the file, and refuses any other shape in one line naming the first wrong field.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import filelock
import msgspec

from codex_probe.harness.codex.versions import version_key
from codex_probe.harness.file_format import Version, read_document
from codex_probe.harness.files import inside, plain_name, write_json
from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.findings import FINDING_ID_PATTERN, Verdict
from codex_probe.probes.domain.surface.file import SURFACE_FILE
from codex_probe.probes.domain.surface.release import FORMAT as SURFACE_FORMAT
from codex_probe.probes.domain.verdict_file import UpstreamEntry
from codex_probe.probes.releases.history_changes import history_change_points
from codex_probe.probes.runner.release import ReleaseRun
from codex_probe.probes.runner.scenarios import SCENARIOS

HISTORY_FILE = "history.json"
RELEASES_FOLDER = "releases"
# Held by whoever writes the history of a folder, from reading history.json to its last
# write (flock: the kernel lets go when the holder dies, by kill -9 too).
LOCK_FILE = ".history.lock"


class HistoryError(ValueError):
    """A history file that cannot be read or merged."""


class HistoryInUse(HistoryError):
    """Another run writes the history of this folder."""


@contextlib.contextmanager
def writing_history(folder: Path) -> Iterator[None]:
    """The history folder `folder`, this process's alone to read and write until the block
    ends: a second writer (history, history merge, can-i-upgrade probing what it lacks) is
    refused at once with HistoryInUse, never left to overwrite the first one's releases."""
    lock = filelock.FileLock(folder / LOCK_FILE, preserve_lock_file=True)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock.acquire(timeout=0)
    except filelock.Timeout:
        raise HistoryInUse(
            f"{folder} is in use: another run is writing its history; wait for it to end "
            "or give another folder"
        ) from None
    except OSError as error:
        raise HistoryError(f"{folder}: cannot be locked for writing: {error}") from None
    try:
        yield
    finally:
        lock.release()


# ----- the file's shape (release_entry, unavailable_entry and save_history write it) -----

FindingId = Annotated[str, msgspec.Meta(pattern=FINDING_ID_PATTERN)]
# A path relative to the history's folder, of plain names (releases/VERSION/surface.json).
RelativePath = Annotated[
    str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$")
]


class RecordedFinding(msgspec.Struct):
    verdict: Verdict
    required: bool
    observed: dict[str, Any] | None = None
    summary: str | None = None
    upstream: list[UpstreamEntry] | None = None


class SurfacePointer(msgspec.Struct):
    """Where a release's surface is (path), its digest, and the scenarios it lacks; or, in
    a history written by hand or by an older tool, one digest per aspect."""

    digest: str | None = None
    path: RelativePath | None = None
    missing: list[str] = []
    aspects: dict[str, str] | None = None


class ReleaseRecord(msgspec.Struct):
    findings: dict[FindingId, RecordedFinding]
    tool: str = ""
    probe_set: str = ""
    probed_at: str = ""
    # From the release's start to its last finding; in a sweep a release starts as the one
    # before it runs its last lanes (releases/sweep.py), so these overlap.
    seconds: float | None = None
    phases: dict[str, Any] | None = None
    fake_profile: dict[str, Any] | None = None
    surface: SurfacePointer | None = None
    unavailable: str | None = None  # why no finding could be had (codex does not run)
    # The registry said so (no binary for this platform): never tried again. An unavailable
    # record without it (an older tool's, which took a full disk for that) is tried again.
    permanent: bool = False


class RecordedChangePoint(msgspec.Struct):
    kind: Literal["verdict", "observed", "surface", "watch"]  # the kinds history_rows makes
    key: str
    first_changed: Version
    last_same: Version
    before: Any = None
    after: Any = None


class Asked(msgspec.Struct, rename={"first": "from", "last": "to"}):
    first: str
    last: str
    releases: list[Version]


class HistoryFile(msgspec.Struct):
    """history.json."""

    releases: dict[Version, ReleaseRecord]
    tool: str = ""
    shard: str | None = None
    generated_at: str = ""
    change_points: list[RecordedChangePoint] = []
    asked: Asked | None = None
    missing: list[Version] = []
    complete: bool = True


def probe_set() -> str:
    """A digest of what the probes ask: a change to it makes old records stale."""
    described = [[a.id, a.scenario, a.required, a.expected, a.reads] for a in ASSUMPTIONS]
    text = json.dumps([described, list(SCENARIOS), {"surface": SURFACE_FORMAT}], sort_keys=True)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        try:
            index, count = (int(part) for part in text.split("/"))
        except ValueError:
            raise ValueError(f"{text!r} is not K/N (e.g. 2/4)") from None
        if not 1 <= index <= count:
            raise ValueError(f"shard {text}: K must be between 1 and N")
        return cls(index, count)

    def take(self, releases: list[str]) -> list[str]:
        """Every N-th release from the K-th: old and new releases spread over the shards."""
        return releases[self.index - 1 :: self.count]

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def surface_path(version: str) -> str:
    """Where a history keeps a release's surface, relative to its history.json."""
    return f"{RELEASES_FOLDER}/{plain_name(version)}/{SURFACE_FILE}"


def release_entry(run: ReleaseRun, seconds: float) -> dict[str, Any]:
    profile = run.profile.to_json() if run.profile is not None else None
    surface = None
    if run.surface is not None:
        surface = {
            "digest": run.surface.digest(),
            "path": surface_path(run.version),
            "missing": list(run.surface.missing),
        }
    return {
        "tool": TOOL,
        "probe_set": probe_set(),
        "probed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(seconds, 1),
        "phases": run.timings,
        "fake_profile": profile,
        "surface": surface,
        "findings": {
            finding_id: {
                "verdict": finding.verdict.value,
                "required": finding.required,
                "observed": finding.observed,
                "summary": finding.summary,
            }
            for finding_id, finding in run.findings.items()
        },
    }


def unavailable_entry(reason: str) -> dict[str, Any]:
    """A release the registry publishes with no binary for this platform: no finding can be
    had, for good (`permanent`: the registry said so, so no later run tries again)."""
    return {
        "tool": TOOL,
        "probe_set": probe_set(),
        "probed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "unavailable": reason,
        "permanent": True,
        "findings": {},
    }


def unavailable_releases(document: dict[str, Any]) -> dict[str, str]:
    return {
        version: str(entry["unavailable"])
        for version, entry in document["releases"].items()
        if entry.get("unavailable")
    }


def new_history(shard: Shard | None = None) -> dict[str, Any]:
    return {"tool": TOOL, "shard": str(shard) if shard else None, "releases": {}}


def load_history(path: Path) -> dict[str, Any]:
    """The history file at `path` as written (for a run that adds to it), checked against
    HistoryFile's schema; HistoryError (one line naming the file and the first wrong
    field) for any other file. `msgspec.convert(document, HistoryFile)` types it."""
    document: dict[str, Any] = read_document(path, HistoryFile, HistoryError, "history file")
    return document


def is_current(entry: dict[str, Any]) -> bool:
    """Recorded by this tool with these probes: no need to probe that release again."""
    return entry.get("tool") == TOOL and entry.get("probe_set") == probe_set()


def ask(document: dict[str, Any], first: str, last: str, releases: list[str]) -> None:
    """Record what this run is asked to cover, so a file saved before the end says what
    it lacks (`complete`, `missing`), as verdict.json does."""
    document["asked"] = {"from": first, "to": last, "releases": releases}


def save_history(path: Path, document: dict[str, Any]) -> None:
    """Write the history, its change points computed afresh from what it records.

    Read, merge, write: a release the file holds and `document` lacks (one a writer
    recorded after this run read the file) is kept, so no writer loses another's release.
    Writers hold writing_history, so the file cannot change between this read and write.
    A file as this process last wrote it, whose releases `document` all has, is not read
    again (_WRITTEN).
    """
    if not _WRITTEN.holds_no_more_than(path, document["releases"].keys()):
        for version, entry in _recorded_releases(path).items():
            document["releases"].setdefault(version, entry)
    releases = document["releases"]
    document["releases"] = {v: releases[v] for v in sorted(releases, key=version_key)}
    document["change_points"] = [p.to_json() for p in history_change_points(document, path.parent)]
    document["generated_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    asked = (document.get("asked") or {}).get("releases")
    if asked is not None:
        document["missing"] = [v for v in asked if v not in document["releases"]]
        document["complete"] = not document["missing"]
    write_json(path, document)
    _WRITTEN.wrote(path, document["releases"].keys())


class _LastWritten:
    """The history files this process wrote, each as it left it (its inode, size and
    modification time) and the releases it wrote there. A history run saves after every
    release, and each save read and checked the whole file again to merge what another
    writer might have added: 0.5 s of each save's 1.1 at 76 releases, on the event loop
    the releases in flight share, growing with the history. A file still as this process
    left it holds only those releases: where the document has them all, there is nothing
    to merge."""

    def __init__(self) -> None:
        self._files: dict[Path, tuple[tuple[int, int, int], frozenset[str]]] = {}

    def wrote(self, path: Path, releases: Iterable[str]) -> None:
        if (signature := _signature(path)) is not None:
            self._files[path.resolve()] = (signature, frozenset(releases))

    def holds_no_more_than(self, path: Path, releases: Iterable[str]) -> bool:
        """Whether the file at `path` is as this process wrote it, with no release outside
        `releases`."""
        written = self._files.get(path.resolve())
        if written is None or written[0] != _signature(path):
            return False
        return written[1] <= set(releases)


def _signature(path: Path) -> tuple[int, int, int] | None:
    """What tells one write of a file from another (an atomic write makes a new inode)."""
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns)


_WRITTEN = _LastWritten()


def _recorded_releases(path: Path) -> dict[str, Any]:
    """The releases the history file at `path` holds now; none if it is absent or is not
    a history (a run that started afresh replaces it)."""
    try:
        releases: dict[str, Any] = load_history(path)["releases"]
    except HistoryError:
        return {}
    return releases


def merge_histories(documents: list[tuple[Path, dict[str, Any]]]) -> dict[str, Any]:
    """One history from several (shards of a range); a release in two keeps the later run."""
    merged = new_history()
    for path, document in documents:
        for version, entry in document["releases"].items():
            if not isinstance(entry, dict) or not isinstance(entry.get("findings"), dict):
                raise HistoryError(f"{path}: release {version} has no findings object")
            kept = merged["releases"].get(version)
            if kept is None or str(entry.get("probed_at")) > str(kept.get("probed_at")):
                merged["releases"][version] = entry
    return merged


def copy_release_folders(
    documents: list[tuple[Path, dict[str, Any]]], merged: dict[str, Any], out: Path
) -> None:
    """Put beside the merged history each release's folder (releases/VERSION/: verdict.json,
    surface.json, the learned profile, the reproduction bundles), taken from beside a
    history that holds the same record of it (the same `probed_at`) as the merged one."""
    for version, entry in merged["releases"].items():
        target = inside(out, RELEASES_FOLDER, version)
        for path, document in documents:
            source = inside(path.parent, RELEASES_FOLDER, version)
            kept = document["releases"].get(version) or {}
            if kept.get("probed_at") != entry.get("probed_at") or not source.is_dir():
                continue
            if source.resolve() != target.resolve():
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(source, target)
            break


def broken_findings(document: dict[str, Any]) -> list[str]:
    return [
        f"{version}:{finding_id}"
        for version, entry in document["releases"].items()
        for finding_id, finding in entry["findings"].items()
        if finding.get("verdict") == Verdict.BROKEN.value
    ]
