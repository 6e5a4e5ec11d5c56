"""Which lane runs which cell of a release's plan."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.probes.explore.plan import Cell, Plan, make_plan
from codex_probe.probes.explore.record import CellRecord
from codex_probe.probes.explore.run import (
    THREAD_LANES,
    _changed_by_refusal,
    _waits_apart,
    share_out,
)
from codex_probe.probes.explore.states import IN_FLIGHT, NEW, NONE, THREAD_STATES


@pytest.fixture(scope="module")
def plan(default_codex: Installation) -> Plan:
    return make_plan(default_codex.schema_dir)


def test_every_cell_of_a_thread_state_runs_on_exactly_one_lane(plan: Plan) -> None:
    shares = share_out(plan.cells, THREAD_LANES)
    ran = Counter(cell.key for share in shares for cell in share)
    assert ran == Counter(cell.key for cell in plan.cells if cell.state in THREAD_STATES)


def test_each_lane_keeps_the_plans_order(plan: Plan) -> None:
    order = {cell.key: number for number, cell in enumerate(plan.cells)}
    for share in share_out(plan.cells, THREAD_LANES):
        assert [order[cell.key] for cell in share] == sorted(order[cell.key] for cell in share)


def test_a_state_two_lanes_name_gives_its_copies_to_each_in_turn() -> None:
    cells = [Cell("thread/read", IN_FLIGHT, "minimal", {}, on_copy=False)] + [
        Cell("thread/name/set", IN_FLIGHT, f"v{n}", {}, on_copy=True) for n in range(5)
    ]
    first, second = share_out(cells, ((IN_FLIGHT,), (IN_FLIGHT,)))
    assert [c.variant for c in first] == ["minimal", "v0", "v2", "v4"]
    assert [c.variant for c in second] == ["v1", "v3"]


def test_a_state_one_lane_names_stays_whole_on_it() -> None:
    cells = [Cell("thread/name/set", "idle", f"v{n}", {}, on_copy=True) for n in range(3)]
    assert share_out(cells, (("idle",), (IN_FLIGHT,))) == [cells, []]


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
