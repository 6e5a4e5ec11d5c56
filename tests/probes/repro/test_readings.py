"""Each assumption's reading reads what its scenario records, on the fake of both default
versions, and gives a bundle that judges the run as the probe did."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_MATRIX
from codex_probe.probes.domain.assumptions import ASSUMPTIONS, BY_ID
from codex_probe.probes.domain.findings import Verdict
from codex_probe.probes.domain.judge import judge_assumption
from codex_probe.probes.domain.observation import ScenarioOutcome
from codex_probe.probes.releases.repro.bundle import write_bundle
from codex_probe.rig.backends import make_backend
from tests.once import computed_once
from tests.probes.repro.bundles import scenario_outcome

SCENARIOS_READ = sorted({assumption.scenario for assumption in ASSUMPTIONS})


@pytest.fixture
def fake_runs(
    default_codex: Installation, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], ScenarioOutcome]:
    """Every scenario an assumption reads, on the fake of each default version: run once per
    test run, a copy per test."""

    async def one(
        version: str, scenario: str, work: Path, limit: asyncio.Semaphore
    ) -> tuple[tuple[str, str], ScenarioOutcome]:
        async with limit:
            backend = make_backend("fake", version)
            return (version, scenario), await scenario_outcome(backend, scenario, work)

    async def every() -> list[tuple[tuple[str, str], ScenarioOutcome]]:
        work, limit = tmp_path_factory.mktemp("fake-runs"), asyncio.Semaphore(4)
        runs = [one(v, s, work, limit) for v in DEFAULT_MATRIX for s in SCENARIOS_READ]
        return await asyncio.gather(*runs)

    return computed_once(tmp_path_factory, "readings-fake-runs", lambda: dict(asyncio.run(every())))


@pytest.mark.real  # the fake reads its schema from the installed release
@pytest.mark.parametrize("version", DEFAULT_MATRIX)
@pytest.mark.parametrize("assumption_id", [a.id for a in ASSUMPTIONS])
def test_a_reading_reads_a_verdict_from_a_run_of_its_scenario(
    assumption_id: str, version: str, fake_runs: dict[tuple[str, str], ScenarioOutcome]
) -> None:
    assumption = BY_ID[assumption_id]
    outcome = fake_runs[(version, assumption.scenario)]
    assert outcome.observation is not None, outcome.failure()
    finding = judge_assumption(assumption, version, outcome)
    assert finding.verdict is not Verdict.BROKEN, finding.summary
    assert set(assumption.expected) <= set(finding.observed)
    assert finding.evidence, "a judged finding names what it read"


@pytest.mark.real
@pytest.mark.parametrize("version", DEFAULT_MATRIX)
def test_every_assumption_gets_a_bundle_from_a_run_of_its_scenario(
    version: str, fake_runs: dict[tuple[str, str], ScenarioOutcome], tmp_path: Path
) -> None:
    for assumption in ASSUMPTIONS:
        outcome = fake_runs[(version, assumption.scenario)]
        finding = judge_assumption(assumption, version, outcome)
        readme = write_bundle(tmp_path / assumption.id, finding, outcome)
        assert readme.is_file()
        recorded = json.loads((tmp_path / assumption.id / "observation.json").read_text())
        assert recorded["outcome"]["verdict"] == finding.verdict.value
        assert recorded["outcome"]["observed"] == finding.observed
