"""A finding: what a probe concluded about one assumption (or the fake's fidelity in one
scenario) on one codex-cli version. One type from the judge to every writer, and the one
place its verdict.json form is written and read back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    HOLDS = "holds"  # upstream behaves as the design assumes
    CHANGED = "changed"  # upstream behaves otherwise: the evidence says how
    BROKEN = "broken"  # the probe could not measure (backend or harness failed)
    # The release's own schema lacks a method the scenario needs: nothing to judge, and no
    # failure of the harness either.
    UNSUPPORTED = "unsupported"


VERDICTS = tuple(verdict.value for verdict in Verdict)
# Message prefixes a report sorts failures by (allure categories match on them).
CHANGED_PREFIX = "assumption changed upstream:"
BROKEN_PREFIX = "harness broken:"
FIDELITY_PREFIX = "fake diverges from real:"
UNSUPPORTED_PREFIX = "unsupported by this release:"
# Findings of the fake-vs-real comparison are named after their scenario with this prefix.
FIDELITY_ID_PREFIX = "fake-fidelity-"
# What a finding id is (an assumption's id, or the prefix and a scenario's name), as the
# files that key findings by it say: it is also a file name (a page, a bundle folder).
FINDING_ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,99}$"
# The spec section of a fidelity finding, which is about our fake, not the design.
FAKE_SECTION = "fake"


class FindingFormatError(ValueError):
    """A finding's JSON is not of the shape verdict.json holds (the message says where)."""


@dataclass(frozen=True)
class Fidelity:
    """Whether the fake, run on the same scenario, observed what the real codex-cli did;
    where they differ (DeepDiff, as JSON) and the profile the fake ran on."""

    fake_matches_real: bool
    diff: Any
    profile: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        document = {"fake_matches_real": self.fake_matches_real, "diff": self.diff}
        return document if self.profile is None else {**document, "profile": self.profile}


@dataclass(frozen=True)
class ReproBundle:
    """The reproduction bundle of a changed or broken finding: its folder (relative to the
    verdict file's) and the command that runs it, or why there is none."""

    path: str | None
    run: str = ""
    why: str = ""

    def to_json(self) -> dict[str, Any]:
        if self.path is None:
            return {"path": None, "why": self.why}
        return {"path": self.path, "run": self.run}


@dataclass(frozen=True)
class Finding:
    """Made once, by the judge (probes/domain/judge.py) or read back from verdict.json, and
    never changed: a finding with its reproduction bundle is a new value."""

    id: str  # an assumption's id, or FIDELITY_ID_PREFIX + a scenario
    version: str
    verdict: Verdict
    required: bool
    spec_section: str
    statement: str
    observed: dict[str, Any]
    expected: dict[str, Any]
    evidence: list[str] = field(default_factory=list)
    reproduce: str = ""
    fidelity: Fidelity | None = None
    # One line for a person: why it is broken, or how it changed (empty when it holds).
    summary: str = ""
    repro: ReproBundle | None = None
    # The watched upstream issues this finding decides, each with the state it shows
    # (codex_probe/probes/domain/watch.py): [{"issue": "openai/codex#N", "state":
    # "present"|"absent"}].
    upstream: list[dict[str, str]] = field(default_factory=list)

    @property
    def shows_upstream_bug(self) -> bool:
        """The finding shows a watched upstream bug present on its release."""
        return any(entry.get("state") == "present" for entry in self.upstream)

    @property
    def is_fidelity(self) -> bool:
        return self.id.startswith(FIDELITY_ID_PREFIX)

    @property
    def fake_diverges(self) -> bool:
        """The fake, run beside this finding's scenario, observed something else."""
        return self.fidelity is not None and not self.fidelity.fake_matches_real

    def to_json(self) -> dict[str, Any]:
        """The finding as verdict.json holds it (under versions.VERSION.ID)."""
        document: dict[str, Any] = {
            "verdict": self.verdict.value,
            "required": self.required,
            "spec_section": self.spec_section,
            "statement": self.statement,
            "observed": self.observed,
            "expected": self.expected,
            "evidence": self.evidence,
            "reproduce": self.reproduce,
            "fidelity": None if self.fidelity is None else self.fidelity.to_json(),
            "summary": self.summary,
        }
        if self.repro is not None:
            document["repro"] = self.repro.to_json()
        if self.upstream:
            document["upstream"] = [dict(entry) for entry in self.upstream]
        return document

    @classmethod
    def from_json(cls, entry: Any, version: str, finding_id: str, where: str) -> Finding:
        """A finding read back from verdict.json; FindingFormatError names what is wrong."""
        if not isinstance(entry, dict):
            raise FindingFormatError(f"{where}: not an object")
        verdict = entry.get("verdict")
        if verdict not in VERDICTS:
            raise FindingFormatError(
                f"{where}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}"
            )
        required = entry.get("required")
        if not isinstance(required, bool):
            raise FindingFormatError(f"{where}: 'required' must be true or false, not {required!r}")
        evidence = entry.get("evidence", [])
        if not isinstance(evidence, list):
            raise FindingFormatError(f"{where}: 'evidence' must be a list")
        observed, expected = entry.get("observed") or {}, entry.get("expected") or {}
        if not isinstance(observed, dict) or not isinstance(expected, dict):
            raise FindingFormatError(f"{where}: 'observed' and 'expected' must be objects")
        return cls(
            id=finding_id,
            version=version,
            verdict=Verdict(verdict),
            required=required,
            spec_section=str(entry.get("spec_section", "")),
            statement=str(entry.get("statement", "")),
            observed=observed,
            expected=expected,
            evidence=[str(item) for item in evidence],
            reproduce=str(entry.get("reproduce") or reproduce(version, finding_id)),
            fidelity=_fidelity(entry.get("fidelity"), where),
            summary=str(entry.get("summary") or ""),
            repro=_repro(entry.get("repro"), where),
            upstream=_upstream(entry.get("upstream"), where),
        )


def reproduce(version: str, finding_id: str, flags: str = "") -> str:
    """The command that probes just this finding again (`flags`: how the subject was run)."""
    return f"codex-probe probe --codex {version} --only {finding_id}{flags}"


def differences(observed: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """How a changed finding differs: each expected key whose observed value is another."""
    return [
        f"{key}: expected {value!r}, observed {observed.get(key)!r}"
        for key, value in expected.items()
        if observed.get(key) != value
    ]


def _fidelity(value: Any, where: str) -> Fidelity | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("fake_matches_real"), bool):
        raise FindingFormatError(f"{where}: 'fidelity' must be null or have fake_matches_real")
    profile = value.get("profile")
    return Fidelity(value["fake_matches_real"], value.get("diff"), profile)


def _upstream(value: Any, where: str) -> list[dict[str, str]]:
    if value is None:
        return []
    shape = isinstance(value, list) and all(
        isinstance(entry, dict)
        and isinstance(entry.get("issue"), str)
        and entry.get("state") in ("present", "absent")
        for entry in value
    )
    if not shape:
        raise FindingFormatError(
            f"{where}: 'upstream' must be a list of {{issue, state: present|absent}}"
        )
    return [{"issue": entry["issue"], "state": entry["state"]} for entry in value]


def _repro(value: Any, where: str) -> ReproBundle | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(path := value.get("path"), str | None):
        raise FindingFormatError(f"{where}: 'repro' must be null or have a path (null or a folder)")
    return ReproBundle(path=path, run=str(value.get("run", "")), why=str(value.get("why", "")))
