"""The cells of an exploration, read off the default release's generated schema."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.schema import client_methods
from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.probes.explore.methods import POLICIES, UNKNOWN, policy_of
from codex_probe.probes.explore.plan import Plan, make_plan
from codex_probe.probes.explore.resample import resample
from codex_probe.probes.explore.states import NONE, STATES, THREAD_STATES
from codex_probe.probes.explore.walks import draw


@pytest.fixture(scope="module")
def plan(default_codex: Installation) -> Plan:
    return make_plan(default_codex.schema_dir)


def test_every_client_method_of_the_schema_has_cells(
    plan: Plan, default_codex: Installation
) -> None:
    methods = client_methods(default_codex.schema_dir)
    assert {cell.method for cell in plan.cells} >= methods
    assert set(plan.methods) == methods


def test_every_method_of_the_default_release_is_in_the_table(default_codex: Installation) -> None:
    unknown = sorted(m for m in client_methods(default_codex.schema_dir) if m not in POLICIES)
    assert unknown == []


def test_a_method_nobody_classified_gets_only_refused_calls() -> None:
    assert policy_of("thread/explode") is UNKNOWN
    assert UNKNOWN.group == "refused-only"


def test_a_thread_method_runs_its_minimal_and_full_calls_in_every_state(plan: Plan) -> None:
    states = Counter(
        cell.state
        for cell in plan.cells
        if cell.method == "thread/archive" and cell.kind == "valid"
    )
    assert states == dict.fromkeys(STATES, 2)


def test_invalid_calls_run_once_in_the_state_none(plan: Plan) -> None:
    invalid = [cell for cell in plan.cells if cell.kind == "invalid"]
    assert {cell.state for cell in invalid} == {NONE}
    variants = {cell.variant for cell in invalid if cell.method == "thread/start"}
    assert {"params not an object", "sandbox of the wrong type"} <= variants
    assert "sandbox of an unknown value" in variants
    assert "without threadId" in {cell.variant for cell in invalid if cell.method == "thread/read"}


def test_each_value_of_an_enumerated_field_is_a_call_of_its_own(plan: Plan) -> None:
    variants = {cell.variant for cell in plan.cells if cell.key.startswith("thread/start none ")}
    assert {
        "sandbox=read-only",
        "sandbox=workspace-write",
        "sandbox=danger-full-access",
    } <= variants
    assert "approvalPolicy=on-request" in variants


def test_a_field_naming_a_turn_is_also_sent_naming_a_turn_nobody_has_in_every_thread_state(
    plan: Plan,
) -> None:
    unknown = [c for c in plan.cells if c.variant == "turnId of an id nobody has"]
    interrupts = {c.state for c in unknown if c.method == "turn/interrupt"}
    assert interrupts == set(THREAD_STATES)
    assert all(c.params["turnId"] == "{{unknown}}" for c in unknown)
    forks = {c.state for c in plan.cells if c.variant == "lastTurnId of an id nobody has"}
    assert forks == {"idle"}  # a fork makes a thread: on an idle one only


def test_each_optional_field_that_is_not_enumerated_is_sent_alone_by_a_method_without_a_thread(
    plan: Plan,
) -> None:
    withs = {c.variant: c for c in plan.cells if c.method == "plugin/read"}
    minimal = withs["minimal"].params
    alone = withs["with marketplacePath"].params
    assert alone == {**minimal, "marketplacePath": withs["full"].params["marketplacePath"]}
    assert all(c.state == NONE for c in plan.cells if c.variant.startswith("with "))
    thread_methods = {c.method for c in plan.cells if c.state != NONE}
    assert not any(c.variant.startswith("with ") for c in plan.cells if c.method in thread_methods)


def test_calls_that_would_reach_a_real_account_are_not_sent(plan: Plan) -> None:
    sent = {cell.method for cell in plan.cells if cell.kind != "invalid"}
    assert "feedback/upload" not in sent
    assert "account/login/start none type=chatgpt" not in {cell.key for cell in plan.cells}
    assert {u.method for u in plan.unsent} >= {"feedback/upload", "account/login/start"}


def test_command_approvals_are_answered_with_every_decision(plan: Plan) -> None:
    decisions = [c.variant for c in plan.cells if c.kind == "approval"]
    assert {"decision=accept", "decision=decline", "decision=cancel"} <= set(decisions)
    assert {c.state for c in plan.cells if c.kind == "approval"} == {"idle"}


def test_the_state_none_comes_first_and_the_thread_states_in_their_order(plan: Plan) -> None:
    seen: list[str] = []
    for cell in plan.cells:
        if not seen or seen[-1] != cell.state:
            seen.append(cell.state)
    assert seen == [NONE, *THREAD_STATES]


def test_a_walk_is_the_same_from_the_same_seed_and_another_from_another(plan: Plan) -> None:
    assert [str(s) for s in draw(7, plan, 20)] == [str(s) for s in draw(7, plan, 20)]
    assert [str(s) for s in draw(7, plan, 20)] != [str(s) for s in draw(8, plan, 20)]


# The fixtures name the rig's own provider where the schema lists the built-in ones (a
# Bedrock or GCP provider id), so that a write reaches no cloud account.
PROVIDER_FIXTURE = ("modelProvider/config/write", "params.settings")


def test_every_valid_call_sent_or_resampled_is_valid_by_the_releases_own_schema(
    default_codex: Installation, plan: Plan
) -> None:
    # A `$ref` with a default comes wrapped in an `allOf` of one (sandboxPolicy's
    # `networkAccess`); built as an object, codex refused the call for it.
    validator = MessageValidator(default_codex.schema_dir)
    # A dozen seeds: on 0.171.0, seeds 4, 9 and 11 drew an external sandbox's
    # `networkAccess` built as an object, before `all_of`.
    drawn = [resample(default_codex.schema_dir, seed).plan.cells for seed in range(1, 13)]
    cells = [*plan.cells, *[cell for cells in drawn for cell in cells]]
    broken = []
    for cell in cells:
        if cell.kind != "valid":
            continue
        message: dict[str, Any] = {"id": 1, "method": cell.method}
        if cell.params is not None:
            message["params"] = cell.params
        for violation in validator.check("client request", message):
            if (cell.method, violation.where) != PROVIDER_FIXTURE:
                broken.append(f"{cell.key}: {violation}")
    assert broken == []
