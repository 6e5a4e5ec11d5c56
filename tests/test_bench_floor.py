"""The probe bench's floor replays what the scenarios do: its recorder, standing in for
ScenarioRun, must take every step every scenario makes, or the bench breaks unseen (it runs
outside the suite)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from codex_probe.probes.runner.scenarios import SCENARIOS

BENCH = Path(__file__).resolve().parents[1] / "bench" / "probes.py"


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_probe_bench_records_every_step_of_the_scenario(name: str) -> None:
    bench = runpy.run_path(str(BENCH), run_name="bench_probes")
    recorder = bench["recorded"](name)
    kinds = [step.kind for step in recorder.steps]
    assert kinds[0] == "restart" and len(kinds) > 1, kinds
