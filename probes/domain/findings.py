"""Findings: what a probe concluded about one assumption on one codex-cli version."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    HOLDS = "holds"  # upstream behaves as the design assumes
    CHANGED = "changed"  # upstream behaves otherwise: the evidence says how
    BROKEN = "broken"  # the probe could not measure (backend or harness failed)


# Message prefixes a report sorts failures by (allure categories match on them).
CHANGED_PREFIX = "assumption changed upstream:"
BROKEN_PREFIX = "harness broken:"
FIDELITY_PREFIX = "fake diverges from real:"
# Findings of the fake-vs-real comparison are named after their scenario with this prefix.
FIDELITY_ID_PREFIX = "fake-fidelity-"


@dataclass
class Finding:
    assumption: str
    version: str
    verdict: Verdict
    observed: dict[str, Any]
    expected: dict[str, Any]
    evidence: list[str] = field(default_factory=list)
    reproduce: str = ""
    fidelity: dict[str, Any] | None = None
    # One line for a person: why it is broken, or how it changed (empty when it holds).
    summary: str = ""

    def to_json(self, *, required: bool, spec_section: str, statement: str) -> dict[str, Any]:
        return {
            "verdict": self.verdict.value,
            "required": required,
            "spec_section": spec_section,
            "statement": statement,
            "observed": self.observed,
            "expected": self.expected,
            "evidence": self.evidence,
            "reproduce": self.reproduce,
            "fidelity": self.fidelity,
        }


def differences(observed: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """How a changed finding differs: each expected key whose observed value is another."""
    return [
        f"{key}: expected {value!r}, observed {observed.get(key)!r}"
        for key, value in expected.items()
        if observed.get(key) != value
    ]
