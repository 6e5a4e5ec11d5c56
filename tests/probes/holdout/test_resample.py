"""The out-of-sample work: calls the exploration never sends, drawn from the default
release's schema, the same from the same seed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.probes.explore.plan import Plan, make_plan
from codex_probe.probes.explore.resample import RESAMPLED, RESAMPLED_INVALID, resample
from codex_probe.probes.explore.states import IDLE, NONE, STATES
from codex_probe.probes.explore.walks import draw


@pytest.fixture(scope="module")
def explored(default_codex: Installation) -> Plan:
    return make_plan(default_codex.schema_dir)


def text(params: Any) -> str:
    return json.dumps(params, sort_keys=True)


def test_no_resampled_call_is_one_the_exploration_sends(
    default_codex: Installation, explored: Plan
) -> None:
    sent = {(cell.method, text(cell.params)) for cell in explored.cells}
    for seed in (1, 2, 3):
        drawn = resample(default_codex.schema_dir, seed).plan.cells
        assert drawn
        assert [c.key for c in drawn if (c.method, text(c.params)) in sent] == []


def test_the_same_seed_draws_the_same_work_and_another_seed_other_work(
    default_codex: Installation,
) -> None:
    one = [(c.key, text(c.params)) for c in resample(default_codex.schema_dir, 5).plan.cells]
    again = [(c.key, text(c.params)) for c in resample(default_codex.schema_dir, 5).plan.cells]
    other = [(c.key, text(c.params)) for c in resample(default_codex.schema_dir, 6).plan.cells]
    assert one == again
    assert one != other


def test_a_thread_method_is_resampled_in_every_state_and_others_in_none_as_explored(
    default_codex: Installation, explored: Plan
) -> None:
    drawn = resample(default_codex.schema_dir, 1).plan.cells
    states = {c.state for c in drawn if c.method == "thread/read" and c.variant == RESAMPLED}
    assert states == set(STATES)
    assert {c.state for c in drawn if c.method == "thread/start"} == {NONE}
    copies = {(c.method, c.state): c.on_copy for c in explored.cells if c.variant == "minimal"}
    assert all(copies[(c.method, c.state)] == c.on_copy for c in drawn if c.kind == "valid")


def test_every_method_is_swept_or_said_to_have_nothing_out_of_sample(
    default_codex: Installation, explored: Plan
) -> None:
    swept = resample(default_codex.schema_dir, 1)
    valid = {c.method for c in swept.plan.cells if c.kind == "valid"}
    assert valid | set(swept.in_sample) == set(explored.methods)
    assert valid.isdisjoint(swept.in_sample)
    invalid = {c.method for c in swept.plan.cells if c.variant == RESAMPLED_INVALID}
    assert {c.state for c in swept.plan.cells if c.kind == "invalid"} == {NONE}
    assert "thread/start" in invalid and "turn/start" in invalid


def test_several_enumerated_fields_change_together_across_draws(
    default_codex: Installation,
) -> None:
    starts = [
        c.params
        for seed in range(1, 13)
        for c in resample(default_codex.schema_dir, seed).plan.cells
        if c.key == f"thread/start {NONE} {RESAMPLED}"
    ]
    assert len({text(p.get("sandbox")) for p in starts}) > 2
    assert any("sandbox" in p and "approvalPolicy" in p for p in starts)


def test_what_the_exploration_keeps_off_or_unsent_stays_so(default_codex: Installation) -> None:
    for seed in range(1, 21):
        for cell in resample(default_codex.schema_dir, seed).plan.cells:
            params = cell.params if isinstance(cell.params, dict) else {}
            if cell.kind == "valid":
                assert params.get("forceRefetch") in (None, False), cell.key
                if cell.method == "account/login/start":
                    assert params.get("type") not in ("chatgpt", "chatgptAuthTokens")


def test_a_walk_of_the_resampled_work_calls_resampled_thread_methods(
    default_codex: Installation,
) -> None:
    plan = resample(default_codex.schema_dir, 3).plan
    steps = draw(3, plan, 30, (RESAMPLED,))
    calls = [step.cell for step in steps if step.cell is not None]
    assert calls
    assert all(c.variant == RESAMPLED and c.state == IDLE for c in calls)


def test_a_field_the_methods_own_fixture_sets_is_always_sent(default_codex: Installation) -> None:
    goals = [
        cell.params
        for seed in range(1, 11)
        for cell in resample(default_codex.schema_dir, seed).plan.cells
        if cell.method == "thread/goal/set" and cell.kind == "valid"
    ]
    assert goals
    assert {goal.get("status") for goal in goals} == {"paused"}  # never working on its own
