"""verdict.json: every finding per version, written by a probe run (and per release by a
history run), read back into the same `Finding`s by every command that reads a run.

A verdict file that does not have this shape is a usage error for whoever reads it (the
gate exits 2): it is never guessed at or half-read.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.versions import version_key
from codex_probe.harness.files import read_json
from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.findings import Finding, FindingFormatError


class VerdictFileError(ValueError):
    """The verdict file is missing, not JSON, or not of the shape the probes write."""


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


def load_verdicts(path: Path) -> VerdictReport:
    document = read_json(path, VerdictFileError, "verdict file")
    return parse_verdicts(document, source=str(path))


def parse_verdicts(document: Any, *, source: str = "verdict.json") -> VerdictReport:
    if not isinstance(document, dict) or not isinstance(document.get("versions"), dict):
        raise VerdictFileError(f"{source}: expected an object with a 'versions' object")
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
