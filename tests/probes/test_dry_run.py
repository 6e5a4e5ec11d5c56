"""A scenario's steps are read without running it (probes/runner/dry_run.py): the recorder,
standing in for ScenarioRun, must take every step every scenario makes, or the registry's
check of its step labels and the probe bench's floor break unseen."""

from __future__ import annotations

import pytest

from codex_probe.probes.runner.dry_run import dry_run
from codex_probe.probes.runner.scenarios import SCENARIOS


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_a_dry_run_records_every_step_of_the_scenario_with_its_label(name: str) -> None:
    recorder = dry_run(name)
    kinds = [step.kind for step in recorder.steps]
    assert kinds[0] == "restart" and len(kinds) > 1, kinds
    assert all(step.label for step in recorder.steps[1:] if step.kind != "restart"), kinds
