"""The probe registries line up: every assumption has its scenario and its check."""

from __future__ import annotations

from probes.assumptions import ASSUMPTIONS, BY_ID
from probes.checks import CHECKS
from probes.scenarios import SCENARIOS


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
