"""Protocol invariants judged on one process's transcript (CONF-LIFECYCLE-001).

Each function raises AssertionError naming the offending messages.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from codex_probe.harness.jsonrpc.transcript import TranscriptEntry

# Thread status types and the edges between them a healthy server may take. A repeat
# (idle -> idle, active -> active with other flags) is not a move. systemError never
# is legal here: the wiretap is a healthy provider.
STATUSES = ("notLoaded", "idle", "active")
LEGAL_EDGES = {
    ("idle", "active"),
    ("active", "idle"),
    ("idle", "notLoaded"),
    ("active", "notLoaded"),
    ("notLoaded", "idle"),
}


def _messages(entries: list[TranscriptEntry], direction: str) -> list[dict[str, Any]]:
    return [e.message for e in entries if e.direction == direction and isinstance(e.message, dict)]


def check_one_response_each(entries: list[TranscriptEntry]) -> None:
    """Every request we sent was answered exactly once, and nothing else was answered."""
    sent = {
        m["id"]: m["method"]
        for m in _messages(entries, "send")
        if "method" in m and m.get("id") is not None
    }
    answers = Counter(m.get("id") for m in _messages(entries, "recv") if "method" not in m)
    unanswered = [f"{sent[i]} (id {i})" for i in sent if answers[i] == 0]
    repeated = [f"{sent[i]} (id {i}) x{answers[i]}" for i in sent if answers[i] > 1]
    stray = [f"id {i!r}" for i in answers if i not in sent]
    assert not (unanswered or repeated or stray), (
        f"requests and responses do not pair up: unanswered {unanswered}, "
        f"answered more than once {repeated}, answers to nothing we sent {stray}"
    )


def _turn_id(message: dict[str, Any]) -> Any:
    turn = (message.get("params") or {}).get("turn")
    return turn.get("id") if isinstance(turn, dict) else None


def check_turn_pairs(entries: list[TranscriptEntry], active: set[str]) -> None:
    """Each turn started once and completed once after it; exactly `active` are still open."""
    started: list[Any] = []
    completed: list[Any] = []
    problems: list[str] = []
    for message in _messages(entries, "recv"):
        method = message.get("method")
        if method == "turn/started":
            turn = _turn_id(message)
            if turn in started:
                problems.append(f"turn {turn} started twice")
            started.append(turn)
        elif method == "turn/completed":
            turn = _turn_id(message)
            if turn not in started:
                problems.append(f"turn {turn} completed without turn/started")
            if turn in completed:
                problems.append(f"turn {turn} completed twice")
            completed.append(turn)
    open_turns = set(started) - set(completed)
    if open_turns != active:
        problems.append(
            f"turns still open {sorted(map(str, open_turns))}, expected {sorted(active)}"
        )
    assert not problems, "; ".join(problems)


def _status_type(message: dict[str, Any]) -> Any:
    status = (message.get("params") or {}).get("status")
    return status.get("type") if isinstance(status, dict) else status


def check_status_edges(entries: list[TranscriptEntry]) -> None:
    """Per thread, thread/status/changed moves only along LEGAL_EDGES (from thread/started)."""
    last: dict[Any, Any] = {}
    for message in _messages(entries, "recv"):
        params = message.get("params") or {}
        if message.get("method") == "thread/started":
            thread = params.get("thread") or {}
            last[thread.get("id")] = (thread.get("status") or {}).get("type")
        elif message.get("method") == "thread/status/changed":
            thread_id, new = params.get("threadId"), _status_type(message)
            old = last.get(thread_id)
            assert new in STATUSES, f"thread {thread_id} went to status {new!r}: {message}"
            if old is not None and old != new:
                assert (old, new) in LEGAL_EDGES, f"thread {thread_id} moved {old} -> {new}"
            last[thread_id] = new


def check_turns(ended: list[str], active: str | None, turns: list[dict[str, Any]]) -> None:
    """A thread's turns as the server lists them: the ended ones in order, then the active one."""
    expected = [*ended, *([active] if active else [])]
    listed = [t.get("id") for t in turns]
    assert listed == expected, f"turns listed {listed}, expected {expected}"
    for turn in turns:
        in_progress = turn.get("status") == "inProgress"
        assert in_progress == (turn.get("id") == active), (
            f"turn {turn.get('id')} has status {turn.get('status')!r}"
        )
