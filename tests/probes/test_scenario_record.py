"""What a scenario run records beyond the answers: enough to replay it without codex-probe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.domain.observation import ScenarioBroken
from codex_probe.probes.runner import steps as scenario_module
from codex_probe.probes.runner.scenarios import SCENARIO_HOMES, SCENARIOS, start_and_turns
from codex_probe.probes.runner.steps import run_scenario
from codex_probe.rig.backends import make_backend
from codex_probe.rig.wiretap import Reply

pytestmark = pytest.mark.real  # the fake reads its schema from the installed release


async def test_a_step_records_the_reply_it_queued_and_a_restart_whether_it_initialized(
    tmp_path: Path, default_codex: Installation
) -> None:
    backend = make_backend("fake", DEFAULT_CODEX_VERSION)
    observation = await run_scenario("start", start_and_turns, backend, work_dir=tmp_path)
    assert observation.step("turn-1").reply is None
    assert observation.step("turn-2").reply == Reply(text="a streamed answer", deltas=3)
    assert observation.steps[0].name == "restart"
    assert observation.steps[0].params == {"initialize": True}
    assert observation.failed_step is None


async def test_an_observation_keeps_its_home_config_and_working_directory(
    tmp_path: Path, default_codex: Installation
) -> None:
    backend = make_backend("fake", DEFAULT_CODEX_VERSION)
    name = "compaction-remote"
    observation = await run_scenario(
        name, SCENARIOS[name], backend, work_dir=tmp_path, home_options=SCENARIO_HOMES[name]
    )
    provider = observation.home_config["model_providers"]["mock"]
    assert provider["name"] == "OpenAI"
    assert provider["base_url"].startswith("http://127.0.0.1:")
    assert observation.step("A").params["cwd"] == observation.workdir


async def test_a_broken_scenario_keeps_what_it_recorded_and_names_the_step_that_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default_codex: Installation
) -> None:
    script = tmp_path / "hang.jsonl"
    script.write_text(json.dumps({"method": "turn/start", "call": 2, "action": "hang"}) + "\n")
    backend = make_backend("fake", DEFAULT_CODEX_VERSION, script=script)
    monkeypatch.setattr(scenario_module, "STEP_TIMEOUT", 1.0)
    with pytest.raises(ScenarioBroken) as caught:
        await run_scenario("start", start_and_turns, backend, work_dir=tmp_path)
    broken = caught.value
    assert broken.failed_step == "turn-2"
    assert [step.label for step in broken.observation.steps] == [
        "restart-0",
        "A",
        "turn-1",
        "turn-2",
    ]
    assert broken.observation.threads["A"] == broken.observation.step("A").result["thread"]["id"]
    assert broken.observation.workdir


async def test_a_step_records_how_long_it_waits_beyond_its_answer(
    tmp_path: Path, default_codex: Installation
) -> None:
    backend = make_backend("fake", DEFAULT_CODEX_VERSION)
    errors = await run_scenario("errors", SCENARIOS["errors"], backend, work_dir=tmp_path)
    assert errors.step("interrupt-idle").silence_after == 1.0
    assert errors.step("interrupt-turn").silence_after is None
    assert errors.step("turn-2-done").release_grace == 1.5
    assert errors.step("turn-4-done").release_grace is None
    name = "resume-unsubscribed"
    unsubscribed = await run_scenario(name, SCENARIOS[name], backend, work_dir=tmp_path)
    assert unsubscribed.step("unsubscribe").settle == 0.5
    restart = unsubscribed.steps[0]
    sent = unsubscribed.transcript.entries[slice(*restart.transcript_span)]
    assert [entry.message.get("method") for entry in sent if entry.direction == "send"] == [
        "initialize",
        "initialized",
    ]
