"""The probe registries line up: every assumption has its scenario and its check."""

from __future__ import annotations

import pytest

from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.probes import judge
from codex_probe.probes.assumptions import ASSUMPTIONS, BY_ID
from codex_probe.probes.checks import CHECKS
from codex_probe.probes.findings import Verdict
from codex_probe.probes.judge import ScenarioOutcome, judge_assumption
from codex_probe.probes.scenario import Observation
from codex_probe.probes.scenarios import SCENARIO_HOMES, SCENARIOS


def test_every_assumption_reads_a_scenario_that_exists_and_has_a_check() -> None:
    assert len(BY_ID) == len(ASSUMPTIONS), "an assumption id is used twice"
    for assumption in ASSUMPTIONS:
        assert assumption.scenario in SCENARIOS, assumption.id
        assert assumption.id in CHECKS, assumption.id


def test_every_check_belongs_to_an_assumption() -> None:
    assert set(CHECKS) - set(BY_ID) == set()


def test_every_assumption_expects_something_and_names_a_spec_section() -> None:
    for assumption in ASSUMPTIONS:
        assert assumption.expected, assumption.id
        assert assumption.spec_section.replace(".", "").isdigit(), assumption.id


def test_every_scenario_home_belongs_to_a_scenario() -> None:
    assert set(SCENARIO_HOMES) - set(SCENARIOS) == set()


def empty_observation(scenario: str) -> Observation:
    return Observation(scenario, "fake", "0.171.0", [], [], Transcript(), "", {})


def test_an_assumption_without_a_check_is_broken_naming_the_missing_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assumption = ASSUMPTIONS[0]
    monkeypatch.setattr(judge, "CHECKS", {})
    outcome = ScenarioOutcome(empty_observation(assumption.scenario))

    finding = judge_assumption(assumption, "0.171.0", outcome)

    assert finding.verdict is Verdict.BROKEN
    assert finding.evidence == [f"no check is registered for {assumption.id}"]


def test_a_check_that_reads_a_step_its_scenario_lacks_is_broken_naming_the_step() -> None:
    assumption = BY_ID["start-applies-instructions"]
    outcome = ScenarioOutcome(empty_observation(assumption.scenario))

    finding = judge_assumption(assumption, "0.171.0", outcome)

    assert finding.verdict is Verdict.BROKEN
    assert finding.evidence == [
        "the observation lacks what the probe reads: "
        "LookupError(\"scenario start recorded no step 'turn-1'\")"
    ]
