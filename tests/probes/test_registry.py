"""The registry lines up: each assumption is one entry whose reading is data every reader
evaluates, read from a scenario that exists."""

from __future__ import annotations

from typing import Any

from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.probes.domain import reading
from codex_probe.probes.domain.assumptions import ASSUMPTIONS, BY_ID
from codex_probe.probes.domain.expressions import answer, describe, refused, seen, steps_read
from codex_probe.probes.domain.findings import Verdict
from codex_probe.probes.domain.judge import judge_assumption
from codex_probe.probes.domain.observation import Observation, ScenarioOutcome
from codex_probe.probes.runner.dry_run import dry_run
from codex_probe.probes.runner.scenarios import SCENARIO_HOMES, SCENARIOS

OPERATIONS = set(
    reading.Reading(
        reading.View({"steps": [], "model_requests": [], "received": []}), {}
    ).operations
)


def operations_in(expression: Any) -> set[str]:
    if isinstance(expression, list):
        return set().union(*(operations_in(part) for part in expression))
    if not isinstance(expression, dict) or len(expression) != 1:
        return set()
    [(operation, argument)] = expression.items()
    return {operation} | (operations_in(argument) if operation != "const" else set())


def test_every_assumption_has_one_id_and_reads_a_scenario_that_exists() -> None:
    assert len(BY_ID) == len(ASSUMPTIONS), "an assumption id is used twice"
    for assumption in ASSUMPTIONS:
        assert assumption.scenario in SCENARIOS, assumption.id


def test_every_assumption_expects_something_and_names_a_spec_section() -> None:
    for assumption in ASSUMPTIONS:
        assert assumption.expected, assumption.id
        assert set(assumption.expected) <= set(assumption.reads), assumption.id
        assert assumption.spec_section.replace(".", "").isdigit(), assumption.id


def test_every_reading_uses_operations_the_evaluator_knows_and_can_put_into_words() -> None:
    for assumption in ASSUMPTIONS:
        for key, expression in assumption.reads.items():
            used = operations_in(expression) - {"then", "test"}
            assert used <= OPERATIONS, (assumption.id, key, used - OPERATIONS)
            assert describe(expression), (assumption.id, key)


def test_every_step_a_reading_reads_is_a_step_of_its_scenario_before_any_run() -> None:
    steps = {name: {step.label for step in dry_run(name).steps} for name in SCENARIOS}
    unknown = {
        assumption.id: sorted(read - steps[assumption.scenario])
        for assumption in ASSUMPTIONS
        if (read := steps_read(list(assumption.reads.values()))) - steps[assumption.scenario]
    }
    assert unknown == {}


def test_a_reading_of_a_step_its_scenario_lacks_is_found_without_a_run() -> None:
    reading = [seen("BASE-V1", "turn-9"), answer("resume", "thread", "id"), refused("steer")]
    assert steps_read(reading) == {"turn-9", "resume", "steer"}
    assert "turn-9" not in {step.label for step in dry_run("start").steps}


def test_every_scenario_home_belongs_to_a_scenario() -> None:
    assert set(SCENARIO_HOMES) - set(SCENARIOS) == set()


def empty_observation(scenario: str) -> Observation:
    return Observation(scenario, "fake", "0.171.0", [], [], Transcript(), "", {})


def test_a_reading_of_a_step_its_scenario_lacks_is_broken_naming_the_step() -> None:
    assumption = BY_ID["start-applies-instructions"]
    outcome = ScenarioOutcome(empty_observation(assumption.scenario))

    finding = judge_assumption(assumption, "0.171.0", outcome)

    assert finding.verdict is Verdict.BROKEN
    assert finding.evidence == [
        "the observation lacks what the probe reads: the run recorded no step 'turn-1'"
    ]
