"""history.json: release x finding -> verdict and the key observed values.

A history run probes every release of a range in version order, writing history.json
after each release, so an interrupted run loses at most the release it was on and a
re-run resumes: a release already recorded by the same tool and the same set of probes is
skipped. Shards of a range (`--shard K/N`, one CI job each) write their own files, which
`merge` joins; every release entry says which tool and probe set recorded it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.versions import version_key
from codex_probe.harness.files import write_json
from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.findings import Verdict
from codex_probe.probes.runner.release_run import ReleaseRun
from codex_probe.probes.runner.scenarios import SCENARIOS

HISTORY_FILE = "history.json"


class HistoryError(ValueError):
    """A history file that cannot be read or merged."""


def probe_set() -> str:
    """A digest of what the probes ask: a change to it makes old records stale."""
    described = [[a.id, a.scenario, a.required, a.expected, a.reads] for a in ASSUMPTIONS]
    text = json.dumps([described, list(SCENARIOS)], sort_keys=True)
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


def release_entry(run: ReleaseRun, seconds: float) -> dict[str, Any]:
    profile = run.profile.to_json() if run.profile is not None else None
    return {
        "tool": TOOL,
        "probe_set": probe_set(),
        "probed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(seconds, 1),
        "phases": run.timings,
        "fake_profile": profile,
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
    """A release npm installs but whose codex does not run: no finding can be had."""
    return {
        "tool": TOOL,
        "probe_set": probe_set(),
        "probed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "unavailable": reason,
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
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HistoryError(f"{path}: no such history file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise HistoryError(f"{path}: cannot be read: {error}") from None
    except json.JSONDecodeError as error:
        raise HistoryError(f"{path}:{error.lineno}: not JSON: {error.msg}") from None
    if not isinstance(document, dict) or not isinstance(document.get("releases"), dict):
        raise HistoryError(f"{path}: expected an object with a 'releases' object")
    return document


def is_current(entry: dict[str, Any]) -> bool:
    """Recorded by this tool with these probes: no need to probe that release again."""
    return entry.get("tool") == TOOL and entry.get("probe_set") == probe_set()


def ask(document: dict[str, Any], first: str, last: str, releases: list[str]) -> None:
    """Record what this run is asked to cover, so a file saved before the end says what
    it lacks (`complete`, `missing`), as verdict.json does."""
    document["asked"] = {"from": first, "to": last, "releases": releases}


def save_history(path: Path, document: dict[str, Any]) -> None:
    releases = document["releases"]
    document["releases"] = {v: releases[v] for v in sorted(releases, key=version_key)}
    document["generated_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    asked = (document.get("asked") or {}).get("releases")
    if asked is not None:
        document["missing"] = [v for v in asked if v not in document["releases"]]
        document["complete"] = not document["missing"]
    write_json(path, document)


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
    the learned profile, the reproduction bundles), taken from beside a history that holds
    the same record of it (the same `probed_at`) as the merged one."""
    for version, entry in merged["releases"].items():
        target = out / "releases" / version
        for path, document in documents:
            source = path.parent / "releases" / version
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
