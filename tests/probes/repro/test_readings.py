"""Each assumption's check reduced to data reads what the check reads, to the value."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_MATRIX
from codex_probe.probes.assumptions import ASSUMPTIONS, BY_ID
from codex_probe.probes.findings import Verdict
from codex_probe.probes.judge import ScenarioOutcome, judge_assumption
from codex_probe.probes.repro import record
from codex_probe.probes.repro.bundle import write_bundle
from codex_probe.probes.repro.readings import READINGS, describe, vocabulary
from codex_probe.probes.repro.script.main import outcome as bundled_outcome
from codex_probe.rig.backends import make_backend
from tests.once import computed_once
from tests.probes.repro.bundles import scenario_outcome

SCENARIOS_READ = sorted({assumption.scenario for assumption in ASSUMPTIONS})


def test_every_assumption_has_a_reading_of_every_value_it_expects() -> None:
    for assumption in ASSUMPTIONS:
        assert assumption.id in READINGS, assumption.id
        missing = set(assumption.expected) - set(READINGS[assumption.id])
        assert not missing, f"{assumption.id} has no reading of {missing}"
    assert set(READINGS) <= set(BY_ID)


def test_every_reading_can_be_said_in_words() -> None:
    for reads in READINGS.values():
        for expression in reads.values():
            assert describe(expression).strip()


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
def test_a_bundle_reads_the_verdict_and_values_its_check_reads(
    assumption_id: str, version: str, fake_runs: dict[tuple[str, str], ScenarioOutcome]
) -> None:
    assumption = BY_ID[assumption_id]
    outcome = fake_runs[(version, assumption.scenario)]
    assert outcome.observation is not None, outcome.failure()
    finding = judge_assumption(assumption, version, outcome)
    assert finding.verdict is not Verdict.BROKEN, finding.summary
    described = {
        "expected": assumption.expected,
        "reads": READINGS[assumption_id],
        "vocabulary": vocabulary(),
    }
    bundled = bundled_outcome(record.record(outcome.observation), described)
    assert bundled["verdict"] == finding.verdict.value
    assert bundled["observed"] == {key: finding.observed[key] for key in READINGS[assumption_id]}


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
