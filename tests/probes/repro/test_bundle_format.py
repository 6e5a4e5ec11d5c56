"""A reproduction bundle's files: what the scenario sent, with codex's ids as placeholders,
the replies the mock queues, and a bundle only where it can judge the finding."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.domain import reading
from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.probes.domain.findings import Verdict
from codex_probe.probes.domain.judge import judge_fidelity
from codex_probe.probes.releases.repro.bundle import NotBundled, write_bundle
from codex_probe.probes.releases.repro.record import NotReplayable, replay_steps
from codex_probe.probes.runner import steps as scenario_module
from codex_probe.rig.backends import make_backend
from tests.probes.repro.bundles import bundled, scenario_outcome

pytestmark = pytest.mark.real  # the fake reads its schema from the installed release

READING_SOURCE = Path(reading.__file__).read_bytes()
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_a_bundle_holds_every_file_its_readme_names(
    tmp_path: Path, default_codex: Installation
) -> None:
    backend = make_backend("fake", DEFAULT_CODEX_VERSION)
    folder = tmp_path / "bundle"
    await bundled(backend, "start-applies-instructions", folder, tmp_path)
    readme = (folder / "README.md").read_text()
    for name in ("reproduce.py", "requests.jsonl", "replies.jsonl", "config.toml"):
        assert (folder / name).is_file() and f"`{name}`" in readme
    for name in ("finding.json", "observation.json", "reading.py", "seal.py"):
        assert (folder / name).is_file() and f"`{name}`" in readme
    assert (folder / "reproduce.py").stat().st_mode & 0o111
    assert "python3 reproduce.py --codex node_modules/.bin/codex" in readme
    assert "| `base_seen` | `true` | `true` |" in readme


async def test_a_bundle_names_codex_ids_by_placeholder_and_keeps_none_of_the_run(
    tmp_path: Path, default_codex: Installation
) -> None:
    backend = make_backend("fake", DEFAULT_CODEX_VERSION)
    folder, work = tmp_path / "bundle", tmp_path / "work"
    work.mkdir()
    await bundled(backend, "resume-refresh-cold", folder, work)
    requests = (folder / "requests.jsonl").read_text()
    recorded = json.loads((folder / "observation.json").read_text())["record"]
    ids_of_the_run = set(UUID.findall(json.dumps(recorded["received"])))
    assert ids_of_the_run and not ids_of_the_run & set(UUID.findall(requests))
    assert str(work) not in requests and "{{workdir}}" in requests
    steps = lines(folder / "requests.jsonl")
    assert [step["step"] for step in steps] == [
        "restart", "start", "turn", "restart", "resume", "turn", "compact", "turn",
    ]  # fmt: skip
    assert steps[1]["remember"] == {"thread:A": "thread.id"}
    assert steps[4]["request"] == {
        "method": "thread/resume",
        "params": {
            "threadId": "{{thread:A}}",
            "baseInstructions": "CODEX-PROBE-BASE-V2: you are the probe agent; keep every "
            "answer short.",
            "developerInstructions": "CODEX-PROBE-DEV-V2: the developer asks for plain text "
            "answers.",
        },
    }
    assert steps[6]["waits_for"] == {"notification": "turn/completed", "threadId": "{{thread:A}}"}
    assert 'base_url = "{{provider_url}}"' in (folder / "config.toml").read_text()


async def test_a_bundle_queues_the_replies_its_scenario_queued(
    tmp_path: Path, default_codex: Installation
) -> None:
    backend = make_backend("fake", DEFAULT_CODEX_VERSION)
    folder = tmp_path / "bundle"
    await bundled(backend, "interrupt-without-turn-refused", folder, tmp_path)
    queued = [
        (r["step"], r["text"], r["delay_s"], r["until_released"])
        for r in lines(folder / "replies.jsonl")
    ]
    assert queued == [
        ("turn-2", "slow", 30.0, True),
        ("turn-3", "slow", 30.0, True),
        ("turn-4", "held", 50.0, False),
    ]
    steps = {step["label"]: step for step in lines(folder / "requests.jsonl")}
    release = {"model_requests": 1, "within_s": 1.5}
    assert steps["turn-2-done"]["waits_for"] == {
        "notification": "turn/completed",
        "threadId": "{{thread:A}}",
        "release_held": release,
    }
    assert steps["interrupt-idle"]["silence_after_s"] == 1.0
    assert steps["interrupt-idle"]["request"] == {
        "method": "turn/interrupt",
        "params": {"threadId": "{{thread:A}}", "turnId": "{{turn:turn-3}}"},
    }
    assert steps["turn-2"]["waits_for"] == {"model_requests": 1}


async def test_a_fake_fidelity_finding_gets_no_bundle_and_says_why(
    tmp_path: Path, default_codex: Installation
) -> None:
    backend = make_backend("fake", DEFAULT_CODEX_VERSION)
    outcome = await scenario_outcome(backend, "start", tmp_path)
    profile = {"source": "checked-in", "path": None}
    finding = judge_fidelity("start", DEFAULT_CODEX_VERSION, outcome, outcome, profile)
    with pytest.raises(NotBundled, match="compares codex-probe's fake with codex"):
        write_bundle(tmp_path / "bundle", finding, outcome)
    assert not (tmp_path / "bundle").exists()


async def test_a_bundle_judges_with_the_probe_s_own_reading_carried_verbatim(
    tmp_path: Path, default_codex: Installation
) -> None:
    backend = make_backend("fake", DEFAULT_CODEX_VERSION)
    folder = tmp_path / "bundle"
    finding, _ = await bundled(backend, "start-applies-instructions", folder, tmp_path)
    assert (folder / "reading.py").read_bytes() == READING_SOURCE
    recorded = json.loads((folder / "observation.json").read_text())["outcome"]
    assert (recorded["verdict"], recorded["observed"]) == (finding.verdict.value, finding.observed)
    described = json.loads((folder / "finding.json").read_text())
    assert described["reads"] == BY_ID["start-applies-instructions"].reads


async def test_a_broken_scenario_gets_a_bundle_of_the_steps_up_to_its_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default_codex: Installation
) -> None:
    script = tmp_path / "hang.jsonl"
    script.write_text(json.dumps({"method": "turn/start", "call": 2, "action": "hang"}) + "\n")
    monkeypatch.setattr(scenario_module, "STEP_TIMEOUT", 1.0)
    backend = make_backend("fake", DEFAULT_CODEX_VERSION, script=script)
    folder = tmp_path / "bundle"
    finding, _ = await bundled(backend, "base-developer-placement", folder, tmp_path)
    assert finding.verdict is Verdict.BROKEN
    recorded = json.loads((folder / "observation.json").read_text())["outcome"]
    assert recorded["verdict"] == "broken"
    assert {k: recorded["failure"][k] for k in ("step", "kind")} == {
        "step": "turn-2",
        "kind": "no answer",
    }
    assert [step["label"] for step in lines(folder / "requests.jsonl")][-1] == "turn-2"
    assert "The run broke at step `turn-2` (no answer)" in (folder / "README.md").read_text()


async def test_a_scenario_that_sends_between_its_steps_cannot_be_replayed(
    tmp_path: Path, default_codex: Installation
) -> None:
    backend = make_backend("fake", DEFAULT_CODEX_VERSION)
    outcome = await scenario_outcome(backend, "handshake", tmp_path)
    assert outcome.observation is not None, outcome.failure()
    with pytest.raises(NotReplayable, match="sends initialized outside its steps"):
        replay_steps(outcome.observation)
