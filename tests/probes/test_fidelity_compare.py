"""Fake versus real: equal observations need no diff; any difference, a type's too, gets one."""

from __future__ import annotations

from typing import Any

import pytest

from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.probes.domain import fidelity
from codex_probe.probes.domain.fidelity import fidelity_of
from codex_probe.probes.domain.findings import Fidelity
from codex_probe.probes.domain.observation import Observation, ScenarioOutcome


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
