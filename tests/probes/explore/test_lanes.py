"""Which lane runs which cell of a release's plan."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.probes.explore.plan import Cell, Plan, make_plan
from codex_probe.probes.explore.record import CellRecord
from codex_probe.probes.explore.run import THREAD_LANES, _waits_apart
from codex_probe.probes.explore.shares import HELP_AT_LEAST, share_out
from codex_probe.probes.explore.states import (
    IDLE,
    IN_FLIGHT,
    NEW,
    NONE,
    THREAD_STATES,
    UNLOADED,
)
from codex_probe.probes.explore.thread_lane import _changed_by_refusal, run_thread_lane


@pytest.fixture(scope="module")
def plan(default_codex: Installation) -> Plan:
    return make_plan(default_codex.schema_dir)


def test_every_cell_of_a_thread_state_goes_to_exactly_one_lane_or_pool(plan: Plan) -> None:
    shares, pools = share_out(plan.cells, THREAD_LANES)
    own = [cell for share in shares for _, cell in share.own]
    pooled = [cell for pool in pools.cells.values() for _, cell in pool]
    ran = Counter(cell.key for cell in own + pooled)
    assert ran == Counter(cell.key for cell in plan.cells if cell.state in THREAD_STATES)
    assert not any(cell.on_copy for cell in own) and all(cell.on_copy for cell in pooled)


def test_each_lane_and_pool_keeps_the_plans_order(plan: Plan) -> None:
    shares, pools = share_out(plan.cells, THREAD_LANES)
    for placed in [share.own for share in shares] + list(pools.cells.values()):
        places = [place for place, _ in placed]
        assert places == sorted(places)
        assert all(plan.cells[place] is cell for place, cell in placed)


def test_a_states_calls_on_its_own_thread_go_to_the_first_lane_that_names_it() -> None:
    cells = [Cell("thread/read", IN_FLIGHT, "minimal", {}, on_copy=False)] + [
        Cell("thread/name/set", IN_FLIGHT, f"v{n}", {}, on_copy=True) for n in range(5)
    ]
    (first, second), pools = share_out(cells, ((IN_FLIGHT,), (IN_FLIGHT,)))
    assert [c.variant for _, c in first.own] == ["minimal"]
    assert second.own == []
    assert [c.variant for _, c in pools.cells[IN_FLIGHT]] == [f"v{n}" for n in range(5)]


def test_a_lane_helps_only_with_enough_copies_left_and_never_with_unloaded() -> None:
    copies = [Cell("thread/name/set", IDLE, f"v{n}", {}, on_copy=True) for n in range(7)]
    unloaded = [Cell("thread/name/set", UNLOADED, f"v{n}", {}, on_copy=True) for n in range(9)]
    _, pools = share_out(copies + unloaded, ((IDLE,), (UNLOADED,)))
    assert pools.worth_helping(IDLE) and not pools.worth_helping(UNLOADED)
    while pools.left(IDLE) >= HELP_AT_LEAST:
        pools.take(IDLE)
    assert not pools.worth_helping(IDLE)


class Untouchable:
    """A lane that must not be used: any attribute asked of it fails the test."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the lane's {name} was used")


def test_a_lane_with_nothing_of_its_own_and_too_few_copies_to_help_starts_no_app_server() -> None:
    copies = [Cell("thread/name/set", IDLE, f"v{n}", {}, on_copy=True) for n in range(5)]
    (_, helper), pools = share_out(copies, ((IDLE,), (UNLOADED,)))
    done = asyncio.run(run_thread_lane(Untouchable(), helper, pools, set()))  # type: ignore[arg-type]
    assert done == ([], {}) and pools.left(IDLE) == 5
    pools.cells[IDLE].append((5, Cell("thread/name/set", IDLE, "v5", {}, on_copy=True)))
    with pytest.raises(AssertionError, match="was used"):  # now worth helping: it starts
        asyncio.run(run_thread_lane(Untouchable(), helper, pools, set()))  # type: ignore[arg-type]


def test_only_writes_that_may_wait_long_leave_the_none_lane(plan: Plan) -> None:
    apart = {cell.method for cell in plan.in_state(NONE) if _waits_apart(cell)}
    assert "externalAgentConfig/import" in apart
    # A login waits long too, but the account's calls keep their order on one lane.
    assert "account/login/start" not in apart
    assert "thread/start" not in apart


def refused(notifications: list[dict[str, Any]]) -> CellRecord:
    return CellRecord(
        "thread/rollback", IN_FLIGHT, "full", "valid", {}, outcome="refused",
        notifications=notifications,
    )  # fmt: skip


def test_a_refusal_codex_said_something_of_the_thread_after_gets_the_next_call_a_new_copy() -> None:
    cell = Cell("thread/rollback", IN_FLIGHT, "full", {}, on_copy=True)
    said = [{"method": "thread/status/changed", "params": {"status": {"type": "systemError"}}}]
    assert _changed_by_refusal(cell, refused(said), IN_FLIGHT)
    assert not _changed_by_refusal(cell, refused([]), IN_FLIGHT)
    assert _changed_by_refusal(cell, refused([]), NEW)
