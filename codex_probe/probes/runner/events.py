"""What a release run says as it goes: a scenario started or finished on a backend, a
finding judged, the release done. The writers (verdict.json, the terminal, the Allure
results, reproduction bundles) consume these; the run does not know them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from codex_probe.probes.domain.findings import Finding
from codex_probe.probes.domain.observation import ScenarioOutcome

BackendKind = Literal["real", "fake"]


@dataclass(frozen=True)
class ScenarioStarted:
    version: str
    backend: BackendKind
    scenario: str


@dataclass(frozen=True)
class ScenarioFinished:
    version: str
    backend: BackendKind
    scenario: str
    outcome: ScenarioOutcome


@dataclass(frozen=True)
class FindingJudged:
    """A finding, final (a repeated run judges once, after every repeat); `outcome` is the
    run of its scenario it was read from (None for the fake-versus-real comparison)."""

    finding: Finding
    outcome: ScenarioOutcome | None


Event = ScenarioStarted | ScenarioFinished | FindingJudged
Listener = Callable[[Event], None]


def ignore(event: Event) -> None:
    """The listener of a run nobody watches."""
