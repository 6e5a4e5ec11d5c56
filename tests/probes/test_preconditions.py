"""A finding rests on proven events: no compaction, no completed turn or no restart: broken."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.probes.domain.assumptions import BY_ID
from codex_probe.probes.domain.findings import Verdict
from codex_probe.probes.domain.judge import judge_assumption
from codex_probe.probes.domain.observation import Observation, ScenarioOutcome
from codex_probe.probes.domain.reading import View, unmet_preconditions
from codex_probe.probes.runner.release_run import run_scenarios
from codex_probe.rig.backends import make_backend
from tests.once import computed_once

pytestmark = pytest.mark.real  # the fake reads its schema from the installed release


@pytest.fixture
def observed(
    default_codex: Installation, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Observation]:
    """Two scenarios on the fake: run once per test run, a copy per test."""
    backend = make_backend("fake", DEFAULT_CODEX_VERSION)

    async def run() -> dict[str, ScenarioOutcome]:
        return await run_scenarios(backend, ["compaction", "resume-cold"], asyncio.Semaphore(2))

    def observations() -> dict[str, Observation]:
        outcomes = asyncio.run(run())
        return {n: o.observation for n, o in outcomes.items() if o.observation is not None}

    return computed_once(tmp_path_factory, "preconditions-observed", observations)


def judged(assumption_id: str, observation: Observation) -> tuple[Verdict, list[str]]:
    finding = judge_assumption(
        BY_ID[assumption_id], DEFAULT_CODEX_VERSION, ScenarioOutcome(observation)
    )
    return finding.verdict, finding.evidence


def test_a_run_whose_events_all_happened_meets_every_precondition(
    observed: dict[str, Observation],
) -> None:
    for observation in observed.values():
        assert unmet_preconditions(View(observation.to_record())) == []
    assert judged("compaction-keeps-instructions", observed["compaction"])[0] is Verdict.HOLDS


def test_a_compaction_that_asked_the_model_nothing_makes_the_finding_broken(
    observed: dict[str, Observation],
) -> None:
    observation = observed["compaction"]  # this test's own copy
    next(s for s in observation.steps if s.label == "compact").requests = []
    verdict, evidence = judged("compaction-keeps-instructions", observation)
    assert verdict is Verdict.BROKEN
    assert evidence == [
        "precondition not met: step compact: codex asked the model for no compaction (0 request(s))"
    ]


def test_a_turn_that_did_not_complete_makes_the_finding_broken(
    observed: dict[str, Observation],
) -> None:
    observation = observed["compaction"]  # this test's own copy
    turn = next(s for s in observation.steps if s.label == "turn-2")
    turn.result["turn/completed"]["turn"]["status"] = "failed"
    verdict, evidence = judged("compaction-keeps-instructions", observation)
    assert verdict is Verdict.BROKEN
    assert evidence == ["precondition not met: step turn-2: its turn ended failed"]


def test_a_restart_that_kept_the_same_process_makes_the_finding_broken(
    observed: dict[str, Observation],
) -> None:
    observation = observed["resume-cold"]  # this test's own copy
    restart = next(s for s in observation.steps if s.name == "restart" and s.result.get("previous"))
    restart.result["pid"] = restart.result["previous"]["pid"]
    verdict, evidence = judged("resume-refresh-cold", observation)
    assert verdict is Verdict.BROKEN
    assert "answered after it" in evidence[0] and evidence[0].startswith(
        f"precondition not met: step {restart.label}: the same process"
    )


def test_a_restart_whose_old_process_still_ran_makes_the_finding_broken(
    observed: dict[str, Observation],
) -> None:
    observation = observed["resume-cold"]  # this test's own copy
    restart = next(s for s in observation.steps if s.name == "restart" and s.result.get("previous"))
    restart.result["previous"]["returncode"] = None
    verdict, evidence = judged("resume-refresh-cold", observation)
    assert verdict is Verdict.BROKEN
    assert "did not exit" in evidence[0]


def probe_fake(tmp_path: Path, rule: Mapping[str, object], finding: str) -> dict[str, Any]:
    """The finding as `codex-probe probe --backend fake` judges it under one fault rule."""
    script = tmp_path / "fault.jsonl"
    script.write_text(json.dumps(rule) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "codex_probe.cli", "probe", "--backend", "fake", "--fake-script",
         str(script), "--only", finding, "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr[-2000:]
    verdict = json.loads((tmp_path / "out" / "verdict.json").read_text())
    entry: dict[str, Any] = verdict["versions"][DEFAULT_CODEX_VERSION][finding]
    return entry


def test_a_fake_that_skips_the_compaction_leaves_compaction_findings_broken(
    tmp_path: Path, default_codex: Installation
) -> None:
    rule = {"method": "thread/compact/start", "action": "skip_compaction"}
    entry = probe_fake(tmp_path, rule, "compaction-keeps-instructions")
    assert entry["verdict"] == "broken"
    assert entry["evidence"] == [
        "precondition not met: step compact: codex asked the model for no compaction (0 request(s))"
    ]


def test_a_fake_whose_turn_fails_leaves_the_findings_of_that_scenario_broken(
    tmp_path: Path, default_codex: Installation
) -> None:
    # Calls count per process: the third process's second turn/start is turn-4.
    rule = {"method": "turn/start", "call": 2, "action": "fail_turn"}
    entry = probe_fake(tmp_path, rule, "cold-resume-without-developer-keeps-it")
    assert entry["verdict"] == "broken"
    assert entry["evidence"] == ["precondition not met: step turn-4: its turn ended failed"]
