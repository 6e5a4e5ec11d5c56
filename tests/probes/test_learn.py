"""Learning a fake profile from observations: faithful where it can be, loud where it cannot."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec
import pytest

import codex_probe.fake_appserver.profile
from codex_probe.fake_appserver.profile import (
    PROFILES_DIR,
    ErrorAnswer,
    Measured,
    Unsubscribe,
    available_versions,
    load_profile,
)
from codex_probe.harness.codex.install import Installation, install
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.probes.domain.observation import Observation, ScenarioOutcome
from codex_probe.probes.releases.learn.behaviour import unsubscribe
from codex_probe.probes.releases.learn.errors import _template
from codex_probe.probes.releases.learn.observed import Inexpressible, Observed
from codex_probe.probes.releases.learn.profile import (
    LearnError,
    learn_profile,
    nearest_checked_in,
    unobserved_error,
)
from codex_probe.probes.releases.learn.texts import STAND_IN, stand_in
from codex_probe.probes.runner.release_run import run_scenarios
from codex_probe.probes.runner.scenarios import SCENARIOS
from codex_probe.rig.backends import make_backend
from tests.fake.conftest import copy_profile, edit
from tests.once import computed_once

pytestmark = pytest.mark.real  # the fake reads its schema from the installed release


def observe(kind: str, version: str) -> dict[str, Observation]:
    """Every probe scenario on a backend, as a learner gets them."""
    backend = make_backend(kind, version)

    async def run() -> dict[str, ScenarioOutcome]:
        return await run_scenarios(backend, SCENARIOS, asyncio.Semaphore(4))

    outcomes = asyncio.run(run())
    broken = {name: o.failure() for name, o in outcomes.items() if o.observation is None}
    assert not broken, broken
    return {name: o.observation for name, o in outcomes.items() if o.observation is not None}


@pytest.fixture(scope="module")
def installed() -> list[Installation]:
    found = [install(version) for version in available_versions()]
    for installation in found:
        ensure_schema(installation)
    return found


@pytest.fixture
def fake_observations(
    installed: list[Installation], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, Observation]]:
    """Every scenario on the fake of each version: run once per test run, a copy per test."""
    return computed_once(
        tmp_path_factory,
        "learn-fake-observations",
        lambda: {i.version: observe("fake", i.version) for i in installed},
    )


def without_evidence(document: Any) -> Any:
    """A profile document as data, less what may differ between two measurements: where
    and when, and each entry's evidence and whether it was measured (the two turns values
    no scenario shows are kept, not measured, by learn; measured by hand where checked in)."""
    data = msgspec.to_builtins(document)
    data.pop("measured")
    for entry in data["behaviour"].values():
        entry.pop("evidence")
    for name, entry in data["turns"].items():
        if name != "texts":
            entry.pop("evidence")
            entry.pop("measured")
    return data


def learned_templates(wire: Any) -> dict[str, Any]:
    """The wire templates learn writes: every one, the turn templates included."""
    return dict(wire.templates)


@pytest.mark.parametrize("version", available_versions())
def test_learning_from_the_fake_gives_back_the_profile_it_ran_on(
    version: str, fake_observations: dict[str, dict[str, Observation]]
) -> None:
    learned = learn_profile(version, fake_observations[version])
    assert learned.gaps == []
    assert without_evidence(learned.document) == without_evidence(load_profile(version).document)
    for name, entry in msgspec.to_builtins(learned.document.behaviour).items():
        assert entry["measured"] is True, name
        scenario = entry["evidence"].split(" ", 1)[0]
        assert scenario in SCENARIOS, (name, entry["evidence"])
    turns = msgspec.to_builtins(learned.document.turns)
    unmeasured = sorted(n for n, e in turns.items() if n != "texts" and not e["measured"])
    assert unmeasured == ["exec_output", "known_safe_commands"]


def test_an_observation_the_profile_cannot_express_is_a_gap_naming_it_and_the_field(
    fake_observations: dict[str, dict[str, Observation]],
) -> None:
    observations = dict(fake_observations["0.171.0"])
    start = observations["start"]
    first = start.request_bodies("turn-1")[0]
    # codex moves the base instructions into a system message: no profile value says so.
    first["input"][0]["role"] = "system"
    learned = learn_profile("0.171.0", observations)
    [gap] = [g for g in learned.gaps if g.field == "behaviour.base_placement"]
    assert (gap.scenario, gap.step) == ("start", "turn-1")
    assert "role=system" in gap.observed
    assert "base_placement" in gap.missing
    entry = learned.document.behaviour.base_placement
    assert entry.measured is False
    assert entry.evidence.startswith("not learned: behaviour.base_placement: start turn-1")
    assert "kept the value of profile 0.171.0" in entry.evidence


def test_a_scenario_that_gave_no_observation_leaves_its_fields_unlearned_and_named(
    fake_observations: dict[str, dict[str, Observation]],
) -> None:
    observations = dict(fake_observations["0.120.0"])
    del observations["compaction"]
    learned = learn_profile("0.120.0", observations)
    fields = {gap.field for gap in learned.gaps}
    assert {"behaviour.compaction", "texts.compaction_prompt", "texts.summary_prefix"} <= fields
    assert learned.document.behaviour.compaction.measured is False
    assert learned.document.behaviour.base_placement.measured is True


def test_an_interrupt_answered_without_a_turn_is_a_gap_naming_the_step(
    fake_observations: dict[str, dict[str, Observation]],
) -> None:
    observations = dict(fake_observations["0.171.0"])
    errors = observations["errors"]
    # What the fake did before it imitated either release: {} for an interrupt of nothing.
    steps = [
        replace(step, error=None, result={}) if step.label == "interrupt-idle" else step
        for step in errors.steps
    ]
    observations["errors"] = replace(errors, steps=steps)
    learned = learn_profile("0.171.0", observations)
    [gap] = [g for g in learned.gaps if g.field == "behaviour.interrupt_without_turn"]
    assert (gap.scenario, gap.step, gap.observed) == ("errors", "interrupt-idle", "answered {}")
    assert "interrupt answered without a turn" in gap.missing
    assert learned.document.behaviour.interrupt_without_turn.measured is False


def test_a_stand_in_keeps_the_opening_sentence_and_the_closing_tag() -> None:
    assert stand_in("You are codex. You do things.\nMore.") == f"You are codex. {STAND_IN}"
    block = "<skills_instructions>\n## Skills\nlong list\n</skills_instructions>"
    assert stand_in(block) == f"<skills_instructions>\n{STAND_IN}\n</skills_instructions>"
    assert stand_in(stand_in(block)) == stand_in(block)


def test_an_error_template_keeps_the_real_braces_literal(
    fake_observations: dict[str, dict[str, Observation]],
) -> None:
    observations = dict(fake_observations["0.171.0"])
    step = observations["errors"].step("resume-unknown")
    assert step.error is not None
    step.error = {**step.error, "message": "no {rollout} for 10192eed-8b3c-40de-bf2b-7a58e72ab0d1"}
    answer = _template(
        Observed(observations),
        "errors",
        "resume-unknown",
        "no_rollout",
        {"10192eed-8b3c-40de-bf2b-7a58e72ab0d1": "{thread_id}"},
    )
    assert answer.answer(thread_id="T") == (step.error["code"], "no {rollout} for T")
    with pytest.raises(Inexpressible, match="does not name 'nowhere'"):
        _template(
            Observed(observations),
            "errors",
            "resume-unknown",
            "no_rollout",
            {"nowhere": "{thread_id}"},
        )


@pytest.mark.parametrize("version", available_versions())
def test_learning_the_real_release_reproduces_the_checked_in_profile(
    version: str, tmp_path: Path, installed: list[Installation]
) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "codex_probe.cli",
            "learn",
            "--codex",
            version,
            "--out",
            str(tmp_path),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert set(report["fidelity"].values()) == {"holds"}
    learned, checked_in = load_profile(path=tmp_path / f"{version}.json"), load_profile(version)
    # The exploration ran beside the scenarios: its answer book is beside the profile,
    # with every method of the release's schema and the release's words for a refusal.
    assert report["book"] == str(tmp_path / f"{version}.book.json")
    assert learned.book is not None and learned.book.version == version
    schema = json.loads((ensure_schema(install(version)) / "ClientRequest.json").read_text())
    assert len(learned.book.methods) == len(schema["oneOf"])
    assert learned.book.wording("missing field") is not None
    assert without_evidence(learned.document) == without_evidence(checked_in.document)
    assert learned_templates(learned.wire) == learned_templates(checked_in.wire)
    assert (PROFILES_DIR / f"wire-{version}.json").is_file()


def test_an_unsubscribe_that_leaves_the_thread_loaded_is_learned_as_such(
    tmp_path: Path, installed: list[Installation]
) -> None:
    # 0.121.0 to 0.134.0: the thread stays loaded and the next resume is a loaded resume.
    for name in ("0.171.0.json", "wire-0.171.0.json"):
        (tmp_path / name).write_bytes((PROFILES_DIR / name).read_bytes())
    document = json.loads((tmp_path / "0.171.0.json").read_text())
    document["behaviour"]["unsubscribe"]["value"] = "stays_loaded"
    (tmp_path / "0.171.0.json").write_text(json.dumps(document))
    backend = make_backend("fake", "0.171.0", profile=tmp_path / "0.171.0.json")

    async def run() -> dict[str, ScenarioOutcome]:
        return await run_scenarios(backend, ["resume-unsubscribed"], asyncio.Semaphore(1))

    observation = asyncio.run(run())["resume-unsubscribed"].observation
    assert observation is not None
    inferred = unsubscribe(Observed({"resume-unsubscribed": observation}))
    assert inferred.value is Unsubscribe.STAYS_LOADED
    assert "notified no status change" in inferred.evidence


def test_a_refusal_no_scenario_observes_keeps_the_nearest_checked_in_answer_as_not_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for version in available_versions():
        path = copy_profile(version, tmp_path)
        # As when the model has just gained a field no checked-in profile has yet.
        edit(path, lambda d: d["behaviour"].pop("unsubscribe"))
    edit(
        tmp_path / "0.171.0.json",
        lambda d: d["errors"]["turn_without_text"]["value"].update(message="text, 0.171.0"),
    )
    monkeypatch.setattr(codex_probe.fake_appserver.profile, "PROFILES_DIR", tmp_path)
    with pytest.raises(LearnError):
        nearest_checked_in("0.180.0")  # no whole profile loads, yet the refusal is kept
    assert unobserved_error("turn_without_text", "0.180.0") == Measured(
        ErrorAnswer(code=-32600, message="text, 0.171.0"),
        False,
        "not learned: no scenario sends codex a turn/start without text input; "
        "kept the value of profile 0.171.0",
    )
    below = unobserved_error("turn_without_text", "0.150.0")
    assert below.value.message == "Invalid request: turn/start needs text input"
    assert below.evidence.endswith("kept the value of profile 0.120.0")
