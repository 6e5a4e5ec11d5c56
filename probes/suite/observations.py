"""Scenario runs for the probe session, each run once per backend and version and shared.

Several assumptions read the same scenario; within one pytest process a scenario runs
once per (backend, version). Under xdist the tests of one scenario share a group, so
they land on one worker and the run is still shared.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from deepdiff import DeepDiff

from probes.backends import Backend, make_backend
from probes.observation import normalize
from probes.scenario import Observation, ScenarioBroken, run_scenario
from probes.scenarios import SCENARIO_HOMES, SCENARIOS


@dataclass
class ScenarioOutcome:
    observation: Observation | None
    broken: ScenarioBroken | None = None


class ObservationCache:
    def __init__(self, *, compare_with_fake: bool = True) -> None:
        self.compare_with_fake = compare_with_fake
        self._backends: dict[tuple[str, str], Backend] = {}
        self._outcomes: dict[tuple[str, str, str], ScenarioOutcome] = {}

    def backend(self, kind: str, version: str) -> Backend:
        key = (kind, version)
        if key not in self._backends:
            self._backends[key] = make_backend(kind, version)
        return self._backends[key]

    def outcome(self, kind: str, version: str, scenario: str) -> ScenarioOutcome:
        key = (kind, version, scenario)
        if key not in self._outcomes:
            backend = self.backend(kind, version)
            try:
                observation = asyncio.run(
                    run_scenario(
                        scenario,
                        SCENARIOS[scenario],
                        backend,
                        home_options=SCENARIO_HOMES.get(scenario),
                    )
                )
                self._outcomes[key] = ScenarioOutcome(observation)
            except ScenarioBroken as broken:
                self._outcomes[key] = ScenarioOutcome(None, broken)
        return self._outcomes[key]

    def fidelity(self, version: str, scenario: str) -> dict[str, Any] | None:
        """The fake-vs-real diff of a scenario's normalized observations (None: not comparable)."""
        real = self.outcome("real", version, scenario).observation
        fake = self.outcome("fake", version, scenario).observation
        if real is None or fake is None:
            return None
        diff = DeepDiff(normalize(real), normalize(fake), verbose_level=2)
        return {"fake_matches_real": not diff, "diff": json.loads(diff.to_json()) if diff else {}}
