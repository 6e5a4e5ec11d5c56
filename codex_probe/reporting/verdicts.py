"""`verdict.json` as the probes write it, read into typed findings.

A verdict file that does not have this shape is a usage error for whoever reads it
(the gate exits 2): it is never guessed at or half-read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.versions import version_key
from codex_probe.probes.domain.findings import Verdict

VERDICTS = tuple(verdict.value for verdict in Verdict)


class VerdictFileError(ValueError):
    """The verdict file is missing, not JSON, or not of the shape the probes write."""


@dataclass(frozen=True)
class Fidelity:
    """Whether the fake app-server, run on the same scenario, observed what the real one did."""

    fake_matches_real: bool
    diff: Any


@dataclass(frozen=True)
class ReproBundle:
    """The reproduction bundle of a changed or broken finding: its folder (relative to the
    verdict file's) and the command that runs it, or why there is none."""

    path: str | None
    run: str = ""
    why: str = ""


@dataclass(frozen=True)
class RecordedFinding:
    version: str
    assumption: str
    verdict: Verdict
    required: bool
    spec_section: str
    statement: str
    observed: Any
    expected: Any
    evidence: tuple[str, ...]
    reproduce: str
    fidelity: Fidelity | None
    repro: ReproBundle | None = None

    @property
    def fake_diverges(self) -> bool:
        return self.fidelity is not None and not self.fidelity.fake_matches_real


@dataclass(frozen=True)
class VerdictReport:
    generated_at: str
    tool: str
    findings: dict[str, dict[str, RecordedFinding]]  # version -> assumption id -> finding
    # False when the run ended before every finding asked for was judged (interrupted).
    complete: bool = True
    missing: tuple[str, ...] = ()  # VERSION:ID of each finding asked for and not judged

    @property
    def versions(self) -> list[str]:
        return sorted(self.findings, key=version_key)

    def assumptions(self) -> list[str]:
        """Every assumption id of any version, in the order the file first names them."""
        seen: dict[str, None] = {}
        for version in self.versions:
            seen.update(dict.fromkeys(self.findings[version]))
        return list(seen)

    def required_assumptions(self) -> set[str]:
        """Ids any version marks as required: a version that lacks one lacks a verdict."""
        return {
            finding.assumption
            for by_id in self.findings.values()
            for finding in by_id.values()
            if finding.required
        }


def load_verdicts(path: Path) -> VerdictReport:
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise VerdictFileError(f"{path}: no such verdict file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise VerdictFileError(f"{path}: cannot be read: {error}") from None
    except json.JSONDecodeError as error:
        raise VerdictFileError(f"{path}: not JSON: {error}") from None
    return parse_verdicts(document, source=str(path))


def parse_verdicts(document: Any, *, source: str = "verdict.json") -> VerdictReport:
    if not isinstance(document, dict) or not isinstance(document.get("versions"), dict):
        raise VerdictFileError(f"{source}: expected an object with a 'versions' object")
    findings: dict[str, dict[str, RecordedFinding]] = {}
    for version, by_id in document["versions"].items():
        if not isinstance(by_id, dict):
            raise VerdictFileError(f"{source}: versions.{version} is not an object")
        findings[version] = {
            assumption: _finding(entry, version, assumption, f"{source}: {version}/{assumption}")
            for assumption, entry in by_id.items()
        }
    complete = document.get("complete", True)  # files from before the key was written
    missing = document.get("missing", [])
    if not isinstance(complete, bool) or not isinstance(missing, list):
        raise VerdictFileError(f"{source}: 'complete' must be true or false, 'missing' a list")
    return VerdictReport(
        generated_at=str(document.get("generated_at", "")),
        tool=str(document.get("tool", "")),
        findings=findings,
        complete=complete,
        missing=tuple(str(item) for item in missing),
    )


def default_reproduce(version: str, assumption: str) -> str:
    return f"codex-probe probe --codex {version} --only {assumption}"


def _finding(entry: Any, version: str, assumption: str, where: str) -> RecordedFinding:
    if not isinstance(entry, dict):
        raise VerdictFileError(f"{where}: not an object")
    verdict = entry.get("verdict")
    if verdict not in VERDICTS:
        raise VerdictFileError(f"{where}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
    required = entry.get("required")
    if not isinstance(required, bool):
        raise VerdictFileError(f"{where}: 'required' must be true or false, not {required!r}")
    evidence = entry.get("evidence", [])
    if not isinstance(evidence, list):
        raise VerdictFileError(f"{where}: 'evidence' must be a list")
    return RecordedFinding(
        version=version,
        assumption=assumption,
        verdict=Verdict(verdict),
        required=required,
        spec_section=str(entry.get("spec_section", "")),
        statement=str(entry.get("statement", "")),
        observed=entry.get("observed"),
        expected=entry.get("expected"),
        evidence=tuple(str(item) for item in evidence),
        reproduce=str(entry.get("reproduce") or default_reproduce(version, assumption)),
        fidelity=_fidelity(entry.get("fidelity"), where),
        repro=_repro(entry.get("repro"), where),
    )


def _fidelity(value: Any, where: str) -> Fidelity | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("fake_matches_real"), bool):
        raise VerdictFileError(f"{where}: 'fidelity' must be null or have fake_matches_real")
    return Fidelity(fake_matches_real=value["fake_matches_real"], diff=value.get("diff"))


def _repro(value: Any, where: str) -> ReproBundle | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(path := value.get("path"), str | None):
        raise VerdictFileError(f"{where}: 'repro' must be null or have a path (null or a folder)")
    return ReproBundle(path=path, run=str(value.get("run", "")), why=str(value.get("why", "")))
