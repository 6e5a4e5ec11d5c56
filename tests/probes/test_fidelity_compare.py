"""Fake versus real: equal observations need no diff; any difference, a type's too, gets one."""

from __future__ import annotations

from typing import Any

import pytest

from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.probes.domain import fidelity
from codex_probe.probes.domain.fidelity import fidelity_of
from codex_probe.probes.domain.findings import Fidelity
from codex_probe.probes.domain.observation import Observation, ScenarioOutcome, StepRecord


def outcomes(
    monkeypatch: pytest.MonkeyPatch, real: Any, fake: Any
) -> tuple[ScenarioOutcome, ScenarioOutcome]:
    seen = {"real": real, "fake": fake}
    monkeypatch.setattr(fidelity, "normalize", lambda observation: seen[observation.backend])
    return tuple(  # type: ignore[return-value]
        ScenarioOutcome(Observation("start", kind, "0.171.0", [], [], Transcript(), "", {}))
        for kind in ("real", "fake")
    )


def test_equal_observations_match_without_a_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    real, fake = outcomes(monkeypatch, {"a": [1, {"b": "x"}]}, {"a": [1, {"b": "x"}]})
    assert fidelity_of(real, fake) == Fidelity(True, {})


def test_a_number_of_another_type_is_a_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    real, fake = outcomes(monkeypatch, {"tokens": 1}, {"tokens": 1.0})
    compared = fidelity_of(real, fake)
    assert compared is not None and compared.fake_matches_real is False
    assert "type_changes" in compared.diff


def test_lists_in_another_order_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    real, fake = outcomes(monkeypatch, {"items": ["a", "b"]}, {"items": ["b", "a"]})
    compared = fidelity_of(real, fake)
    assert compared is not None and compared.fake_matches_real is False


def said(*messages: tuple[str, dict[str, Any]]) -> Transcript:
    transcript = Transcript()
    for direction, message in messages:
        transcript.record(direction, message)  # type: ignore[arg-type]
    return transcript


def test_the_surface_differing_fails_fidelity_and_names_the_aspect_and_key() -> None:
    def run(kind: str, notices: list[str]) -> ScenarioOutcome:
        transcript = said(
            ("send", {"id": 1, "method": "initialize", "params": {}}),
            ("recv", {"id": 1, "result": {"userAgent": "x"}}),
            *(("recv", {"method": method, "params": {}}) for method in notices),
        )
        step = StepRecord("restart", "restart-0", {}, transcript_span=(0, len(transcript.entries)))
        observation = Observation("start", kind, "0.171.0", [step], [], transcript, "", {})
        return ScenarioOutcome(observation)

    real, fake = run("real", ["configWarning"]), run("fake", [])
    compared = fidelity_of(real, fake)
    assert compared is not None and compared.fake_matches_real is False
    assert compared.diff["surface"] == [
        {
            "aspect": "notifications",
            "key": "start (outside the lifecycle)",
            "before": ["configWarning"],
            "after": None,
            "driver_relevant": False,
        }
    ]
    assert fidelity.surface_aspects(compared.diff) == {
        "notifications": ["start (outside the lifecycle)"]
    }
    assert fidelity_of(real, run("fake", ["configWarning"])) == Fidelity(True, {})


def test_where_a_command_s_completion_lands_is_no_difference_but_how_many_is() -> None:
    def run(kind: str, labels: list[str]) -> ScenarioOutcome:
        items = {"command": "commandExecution", "answer": "agentMessage"}
        transcript = said(
            *(
                ("recv", {"method": "item/completed", "params": {"item": {"type": items[label]}}})
                for label in labels
            )
        )
        return ScenarioOutcome(Observation("s", kind, "0.171.0", [], [], transcript, "", {}))

    landed = fidelity_of(run("real", ["command", "answer"]), run("fake", ["answer", "command"]))
    assert landed is not None and landed.fake_matches_real
    twice = fidelity_of(run("real", ["command", "answer"]), run("fake", ["command", "command"]))
    assert twice is not None and not twice.fake_matches_real
