"""The lifecycle machine restarts a process only when the restart can show something."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from codex_probe.conformance.lifecycle import LifecycleMachine
from codex_probe.conformance.thread_model import ThreadModel
from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.rig.session import AppServerProcess, Session

HANDSHAKE: list[dict[str, Any]] = [
    {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "1"}}},
    {"method": "initialized"},
]


def machine_whose_process_was_sent(*sent: dict[str, Any], active: bool = False) -> LifecycleMachine:
    """A machine after a restart: one thread with a turn on disk, not loaded."""
    transcript = Transcript()
    for message in sent:
        transcript.record("send", message)
    process = AppServerProcess(cast(JsonRpcClient, None), transcript, first_entry=0)
    machine = LifecycleMachine()
    machine.session = cast(Session, SimpleNamespace(processes=[process]))
    thread = ThreadModel("t1", "thread-1", loaded=False, materialized=True)
    thread.active = "turn-1" if active else None
    machine.threads = [thread]
    return machine


def test_a_process_asked_nothing_beyond_its_handshake_is_not_restarted() -> None:
    assert not machine_whose_process_was_sent(*HANDSHAKE).can_restart()


def test_a_process_asked_something_can_be_restarted() -> None:
    resume = {"id": 2, "method": "thread/resume", "params": {"threadId": "thread-1"}}
    assert machine_whose_process_was_sent(*HANDSHAKE, resume).can_restart()


def test_a_process_with_a_turn_in_flight_is_not_restarted() -> None:
    read = {"id": 2, "method": "thread/read", "params": {"threadId": "thread-1"}}
    assert not machine_whose_process_was_sent(*HANDSHAKE, read, active=True).can_restart()
