"""A hung or crashed backend makes its scenario broken within the deadline, never a hang."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.domain.observation import ScenarioBroken
from codex_probe.probes.runner import steps as scenario_module
from codex_probe.probes.runner.scenarios import SCENARIOS, start_and_turns
from codex_probe.probes.runner.steps import run_scenario
from codex_probe.rig.backends import make_backend

pytestmark = pytest.mark.real


async def test_a_turn_that_never_completes_breaks_the_scenario_within_its_deadline(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    default_codex: Installation,
) -> None:
    script = tmp_path / "hang.jsonl"
    script.write_text(json.dumps({"method": "turn/start", "action": "never_complete"}) + "\n")
    backend = make_backend("fake", DEFAULT_CODEX_VERSION, script=script)
    # The step deadline covers the thread/start before the hang too: at load 15 the
    # fake's first answer outlasted 1 s once.
    monkeypatch.setattr(scenario_module, "STEP_TIMEOUT", 5.0)
    started = time.monotonic()
    with pytest.raises(ScenarioBroken) as caught:
        await run_scenario("start", start_and_turns, backend, work_dir=tmp_path)
    assert time.monotonic() - started < 30
    assert "turn/completed did not arrive" in str(caught.value)
    sent = [m.get("method") for m in caught.value.transcript.messages("send")]
    assert sent[-1] == "turn/start"


async def test_a_turn_that_never_asks_the_model_breaks_the_scenario_naming_the_wiretap(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    default_codex: Installation,
) -> None:
    # The errors scenario's turn-2 waits for its model request, which a hung turn never sends.
    script = tmp_path / "hang.jsonl"
    rule = {"method": "turn/start", "call": 2, "action": "never_complete"}
    script.write_text(json.dumps(rule) + "\n")
    backend = make_backend("fake", DEFAULT_CODEX_VERSION, script=script)
    monkeypatch.setattr(scenario_module, "STEP_TIMEOUT", 1.0)
    with pytest.raises(ScenarioBroken) as caught:
        await run_scenario("errors", SCENARIOS["errors"], backend, work_dir=tmp_path)
    assert "wiretap: wanted" in str(caught.value)
    assert caught.value.failed_step == "turn-2"


async def test_a_crash_breaks_the_scenario_with_the_exit_code_and_stderr(
    tmp_path: Path,
    default_codex: Installation,
) -> None:
    script = tmp_path / "crash.jsonl"
    script.write_text(
        json.dumps({"method": "thread/start", "action": "crash", "exit_code": 9}) + "\n"
    )
    backend = make_backend("fake", DEFAULT_CODEX_VERSION, script=script)
    with pytest.raises(ScenarioBroken) as caught:
        await run_scenario("start", start_and_turns, backend, work_dir=tmp_path)
    assert "exit code 9" in str(caught.value)
    assert "crashing on thread/start" in caught.value.stderr_tail
