"""The lifecycle invariants pass a healthy exchange and name each way one can break."""

from __future__ import annotations

import re
from typing import Any

import pytest

from codex_probe.conformance.invariants import (
    check_one_response_each,
    check_status_edges,
    check_turn_pairs,
    check_turns,
)
from codex_probe.harness.jsonrpc.transcript import Direction, TranscriptEntry


def entries(*messages: tuple[Direction, dict[str, Any]]) -> list[TranscriptEntry]:
    return [TranscriptEntry(direction, float(n), m) for n, (direction, m) in enumerate(messages)]


def started(turn: str) -> tuple[Direction, dict[str, Any]]:
    return ("recv", {"method": "turn/started", "params": {"threadId": "t", "turn": {"id": turn}}})


def completed(turn: str) -> tuple[Direction, dict[str, Any]]:
    return ("recv", {"method": "turn/completed", "params": {"threadId": "t", "turn": {"id": turn}}})


def status(kind: str) -> tuple[Direction, dict[str, Any]]:
    return (
        "recv",
        {"method": "thread/status/changed", "params": {"threadId": "t", "status": {"type": kind}}},
    )


IDLE_THREAD = {"id": "t", "status": {"type": "idle"}}
REQUEST: tuple[Direction, dict[str, Any]] = ("send", {"id": 1, "method": "thread/start"})
ANSWER: tuple[Direction, dict[str, Any]] = ("recv", {"id": 1, "result": {}})


def test_one_answer_per_request_passes() -> None:
    check_one_response_each(entries(REQUEST, ANSWER, ("send", {"method": "initialized"})))


@pytest.mark.parametrize(
    ("messages", "problem"),
    [
        ([REQUEST], "unanswered ['thread/start (id 1)']"),
        ([REQUEST, ANSWER, ANSWER], "answered more than once ['thread/start (id 1) x2']"),
        (
            [REQUEST, ANSWER, ("recv", {"id": 9, "result": {}})],
            "answers to nothing we sent ['id 9']",
        ),
    ],
)
def test_a_missing_repeated_or_stray_answer_is_caught(
    messages: list[tuple[Direction, dict[str, Any]]], problem: str
) -> None:
    with pytest.raises(AssertionError, match=re.escape(problem)):
        check_one_response_each(entries(*messages))


def test_paired_turns_and_the_expected_open_turn_pass() -> None:
    check_turn_pairs(entries(started("a"), completed("a"), started("b")), {"b"})


@pytest.mark.parametrize(
    ("messages", "active", "problem"),
    [
        ([completed("a")], set(), "completed without turn/started"),
        ([started("a"), started("a"), completed("a")], set(), "started twice"),
        ([started("a"), completed("a"), completed("a")], set(), "completed twice"),
        ([started("a")], set(), r"turns still open \['a'\], expected \[\]"),
        ([started("a"), completed("a")], {"a"}, r"turns still open \[\], expected \['a'\]"),
    ],
)
def test_turns_that_do_not_pair_up_are_caught(
    messages: list[tuple[Direction, dict[str, Any]]], active: set[str], problem: str
) -> None:
    with pytest.raises(AssertionError, match=problem):
        check_turn_pairs(entries(*messages), active)


def test_legal_status_moves_pass() -> None:
    check_status_edges(
        entries(
            (
                "recv",
                {
                    "method": "thread/started",
                    "params": {"thread": {"id": "t", "status": {"type": "idle"}}},
                },
            ),
            status("active"),
            status("active"),
            status("idle"),
            status("notLoaded"),
            status("idle"),
        )
    )


@pytest.mark.parametrize(
    ("moves", "problem"),
    [
        (["notLoaded", "active"], "moved notLoaded -> active"),
        (["idle", "systemError"], "went to status 'systemError'"),
    ],
)
def test_an_illegal_status_move_is_caught(moves: list[str], problem: str) -> None:
    with pytest.raises(AssertionError, match=problem):
        check_status_edges(entries(*(status(kind) for kind in moves)))


def test_listed_turns_must_be_the_ended_ones_in_order_then_the_active_one() -> None:
    check_turns(
        ["a", "b"],
        "c",
        [
            {"id": "a", "status": "completed"},
            {"id": "b", "status": "interrupted"},
            {"id": "c", "status": "inProgress"},
        ],
    )
    with pytest.raises(AssertionError, match=r"turns listed \['a'\], expected \['a', 'c'\]"):
        check_turns(["a"], "c", [{"id": "a", "status": "completed"}])
    with pytest.raises(AssertionError, match="turn a has status 'inProgress'"):
        check_turns(["a"], None, [{"id": "a", "status": "inProgress"}])
