"""verdict.json: every finding per version, written by a probe run (and per release by a
history run), read back into the same `Finding`s by every command that reads a run.

A verdict file that does not have this shape is a usage error for whoever reads it (the
gate exits 2): it is never guessed at or half-read. Its shape is `VerdictFile`, whose JSON
schema is checked in as codex_probe/probes/schemas/verdict.schema.json
(docs/formats.md); `load_verdict` is the one reader of the file.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from codex_probe.harness.codex.versions import version_key
from codex_probe.harness.file_format import Version, check_document
from codex_probe.harness.files import read_json
from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.findings import (
    FINDING_ID_PATTERN,
    Finding,
    FindingFormatError,
    Verdict,
)

FindingId = Annotated[str, msgspec.Meta(pattern=FINDING_ID_PATTERN)]


class VerdictFileError(ValueError):
    """The verdict file is missing, not JSON, or not of the shape the probes write."""


# ----- the file's shape (Finding.to_json and VerdictReport.to_json write it) -------------


class FidelityEntry(msgspec.Struct):
    fake_matches_real: bool
    diff: Any = None
    profile: dict[str, Any] | None = None


class ReproEntry(msgspec.Struct):
    path: str | None
    run: str = ""
    why: str = ""


class UpstreamEntry(msgspec.Struct):
    issue: str
    state: Literal["present", "absent"]


class FindingEntry(msgspec.Struct):
    """One finding under versions.VERSION.ID."""

    verdict: Verdict
    required: bool
    spec_section: str = ""
    statement: str = ""
    observed: dict[str, Any] | None = None
    expected: dict[str, Any] | None = None
    evidence: list[str] = []
    reproduce: str | None = None
    fidelity: FidelityEntry | None = None
    summary: str | None = None
    repro: ReproEntry | None = None
    upstream: list[UpstreamEntry] | None = None


class VerdictFile(msgspec.Struct):
    """verdict.json. Other top-level keys (how the run was made) are written, not read."""

    versions: dict[Version, dict[FindingId, FindingEntry]]
    generated_at: str = ""
    tool: str = ""
    complete: bool = True  # files from before the key was written are complete
    missing: list[str] = []


@dataclass
class VerdictReport:
    """What a probe run concluded, per version: its findings, and whether every finding
    asked for got one."""

    findings: dict[str, dict[str, Finding]] = field(default_factory=dict)  # version -> id ->
    generated_at: str = ""
    tool: str = TOOL
    # False when the run ended before every finding asked for was judged (interrupted).
    complete: bool = True
    missing: tuple[str, ...] = ()  # VERSION:ID of each finding asked for and not judged
    # How the run was made: the fake profile per version, the subject, repeats and flips,
    # how each version's app-servers were sealed. Written as they are, not read back.
    facts: dict[str, Any] = field(default_factory=dict)

    def add(self, finding: Finding) -> None:
        self.findings.setdefault(finding.version, {})[finding.id] = finding

    @property
    def versions(self) -> list[str]:
        return sorted(self.findings, key=version_key)

    def assumptions(self) -> list[str]:
        """Every finding id of any version, in the order the file first names them."""
        seen: dict[str, None] = {}
        for version in self.versions:
            seen.update(dict.fromkeys(self.findings[version]))
        return list(seen)

    def required_assumptions(self) -> set[str]:
        """Ids any version marks as required: a version that lacks one lacks a verdict."""
        return {
            finding.id
            for by_id in self.findings.values()
            for finding in by_id.values()
            if finding.required
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "tool": self.tool,
            "versions": {
                version: {i: f.to_json() for i, f in sorted(self.findings[version].items())}
                for version in self.findings
                if self.findings[version]
            },
            "complete": self.complete,
            "missing": list(self.missing),
            **self.facts,
        }


def load_verdict(path: Path) -> VerdictReport:
    """The verdict file at `path`, checked against VerdictFile's schema; VerdictFileError
    (one line naming the file and the first wrong field) for any other file."""
    return parse_verdicts(read_json(path, VerdictFileError, "verdict file"), source=str(path))


def parse_verdicts(document: Any, *, source: str = "verdict.json") -> VerdictReport:
    """A verdict file's document (already read), checked as load_verdict checks a file."""
    check_document(document, VerdictFile, VerdictFileError, source)
    report = VerdictReport(generated_at=str(document.get("generated_at", "")))
    report.tool = str(document.get("tool", ""))
    for version, by_id in document["versions"].items():
        if not isinstance(by_id, dict):
            raise VerdictFileError(f"{source}: versions.{version} is not an object")
        for finding_id, entry in by_id.items():
            where = f"{source}: {version}/{finding_id}"
            try:
                report.add(Finding.from_json(entry, version, finding_id, where))
            except FindingFormatError as error:
                raise VerdictFileError(str(error)) from None
    complete = document.get("complete", True)  # files from before the key was written
    missing = document.get("missing", [])
    if not isinstance(complete, bool) or not isinstance(missing, list):
        raise VerdictFileError(f"{source}: 'complete' must be true or false, 'missing' a list")
    report.complete, report.missing = complete, tuple(str(item) for item in missing)
    return report
