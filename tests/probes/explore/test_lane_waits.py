"""Which calls a lane waits on after their answer, and for what: what a task of codex's own
says, the turns a call started, and no longer for a thread codex unloaded."""

from __future__ import annotations

from typing import Any

import pytest

from codex_probe.probes.explore.plan import Cell
from codex_probe.probes.explore.record import CellRecord
from codex_probe.probes.explore.states import Subject
from codex_probe.probes.explore.waits import (
    _queues_a_turn,
    _unloads,
    loads_with_config,
    waits_long,
)

CONFIG = {"threadId": "{{thread}}", "config": {"explore": "explore"}}


def cell(method: str, state: str, params: Any) -> Cell:
    return Cell(method, state, "full", params)


@pytest.mark.parametrize(
    ("method", "state"),
    [("thread/start", "none"), ("thread/fork", "idle"), ("thread/resume", "unloaded")],
)
def test_a_call_that_loads_a_thread_with_settings_of_its_own_waits_for_their_warning(
    method: str, state: str
) -> None:
    assert loads_with_config(cell(method, state, CONFIG), CONFIG)


@pytest.mark.parametrize(
    ("method", "state", "params"),
    [
        ("thread/resume", "idle", CONFIG),  # loaded already: nothing is read again
        ("thread/fork", "idle", {"threadId": "{{thread}}"}),
        ("thread/fork", "idle", {"threadId": "{{thread}}", "config": {}}),
        ("thread/start", "none", {"config": None}),
        ("thread/name/set", "idle", CONFIG),
        ("thread/start", "none", [CONFIG]),
    ],
)
def test_a_call_that_loads_no_thread_or_brings_no_settings_does_not_wait(
    method: str, state: str, params: Any
) -> None:
    assert not loads_with_config(cell(method, state, params), params)


HELD = Subject("thread-1", turn="held-turn", held="held-turn")


def started_in_flight(answer_turn: str) -> tuple[Cell, CellRecord]:
    params = {"threadId": "{{thread}}", "input": []}
    record = CellRecord("turn/start", "in-flight", "minimal", "valid", params)
    record.outcome, record.result = "answered", {"turn": {"id": answer_turn}}
    return Cell("turn/start", "in-flight", "minimal", params), record


def user_input_of(turn: str, thread: str = "thread-1") -> dict[str, Any]:
    item = {"type": "userMessage", "id": "item-1"}
    return {"method": "item/started", "params": {"threadId": thread, "turnId": turn, "item": item}}


def test_a_turn_start_in_flight_answered_with_a_new_turn_queues_that_turn() -> None:
    cell, record = started_in_flight("new-turn")
    assert _queues_a_turn(cell, record, HELD, [user_input_of("new-turn")])


def test_a_turn_start_whose_input_went_into_the_held_turn_queues_none_whatever_it_answered() -> (
    None
):
    # 0.140.0 answers with a turn of a new id and adds the input to the held turn.
    cell, record = started_in_flight("new-turn")
    assert not _queues_a_turn(cell, record, HELD, [user_input_of("held-turn")])
    cell, record = started_in_flight("held-turn")  # 0.171.0 names the held turn
    assert not _queues_a_turn(cell, record, HELD, [])


def test_the_held_turn_of_another_thread_is_not_this_ones() -> None:
    cell, record = started_in_flight("new-turn")
    assert _queues_a_turn(cell, record, HELD, [user_input_of("held-turn", thread="thread-2")])


@pytest.mark.parametrize(
    "message",
    [
        {
            "method": "thread/status/changed",
            "params": {"threadId": "t", "status": {"type": "notLoaded"}},
        },
        {"method": "thread/closed", "params": {"threadId": "t"}},
    ],
)
def test_a_thread_said_to_be_unloaded_or_closed_completes_no_more_turns(message: Any) -> None:
    assert _unloads(message, {"t"})
    assert not _unloads(message, {"another"})


@pytest.mark.parametrize(
    "message",
    [
        {
            "method": "thread/status/changed",
            "params": {"threadId": "t", "status": {"type": "idle"}},
        },
        {"method": "thread/archived", "params": {"threadId": "t"}},
        {"id": 3, "method": "thread/closed", "params": {"threadId": "t"}},  # a request, not news
    ],
)
def test_what_keeps_a_thread_loaded_does_not_end_the_wait_for_its_turns(message: Any) -> None:
    assert not _unloads(message, {"t"})


@pytest.mark.parametrize(
    ("method", "long"),
    [
        ("externalAgentConfig/import", True),  # a completion 0.122.0 on never send
        ("account/login/start", True),
        ("thread/name/set", False),  # an announcement, awaited briefly
        ("skills/extraRoots/set", False),
        ("thread/read", False),  # nothing awaited
    ],
)
def test_only_a_call_that_awaits_more_than_an_announcement_waits_long(
    method: str, long: bool
) -> None:
    assert waits_long(method) is long
