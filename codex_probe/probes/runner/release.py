"""What one release run made: the outcomes of its scenarios on each backend, the profile
the fake ran on, every finding, the surfaces, and how long each phase took
(probes/runner/release_run.py makes it; the writers read it off ReleaseProbed)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.findings import Finding
from codex_probe.probes.domain.observation import ScenarioOutcome
from codex_probe.probes.domain.surface.release import Surface
from codex_probe.probes.runner.plan import Gap, LearnedProfile

ProfileSource = Literal["checked-in", "learned"]


@dataclass
class FakeProfileChoice:
    """The profile the fake ran on for a release, or why it could not run."""

    source: ProfileSource
    path: Path | None
    gaps: list[Gap] = field(default_factory=list)
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "path": None if self.path is None else str(self.path),
            "gaps": [gap.to_json() for gap in self.gaps],
            "problem": self.problem,
        }


@dataclass
class ReleaseRun:
    version: str
    # The scenarios on what the findings are about (the real codex-cli, or the fake under
    # --backend fake), and on the fake imitating it for the fidelity findings.
    subject: dict[str, ScenarioOutcome]
    fake: dict[str, ScenarioOutcome]
    profile: FakeProfileChoice | None
    findings: dict[str, Finding]
    learned: LearnedProfile | None = None
    # Seconds spent per phase: "real", "learn", "fake" (real and fake overlap when the
    # profile is checked in: then "fake" is absent and "real" covers both).
    timings: dict[str, float] = field(default_factory=dict)
    # Findings whose outcome differed between the repeats of a repeated run, and how often.
    flips: dict[str, Counter[str]] = field(default_factory=dict)
    # Why the probes cannot drive this release at all (None: they can).
    undrivable: str | None = None
    # The release's surface (None: not asked for, or the release could not be run), and the
    # fake's on the same scenarios (None: the fake did not run them all).
    surface: Surface | None = None
    fake_surface: Surface | None = None
    # Surface keys (`ASPECT KEY`) whose value differed between the repeats of a repeated run.
    surface_flips: list[str] = field(default_factory=list)
    # The exploration's record (codex_probe/probes/explore/record.py), or why it could not
    # run; None: not asked for.
    exploration: dict[str, Any] | str | None = None
    # The learned profile's answer book (fake_appserver/answer_book.py), or why it has none;
    # both None where no profile was learned.
    book: Path | None = None
    book_problem: str | None = None

    def outcome_of(self, finding: Finding) -> ScenarioOutcome | None:
        """The subject's run of the scenario an assumption's finding was read from."""
        assumption = next((a for a in ASSUMPTIONS if a.id == finding.id), None)
        return None if assumption is None else self.subject.get(assumption.scenario)
