"""What codex's messages say of threads, turns and items, read by a lane's waits
(waits.py): which thread or turn a notification is about, whether it says a thread was
unloaded, which command item it starts or completes, what an answer names."""

from __future__ import annotations

from typing import Any

from codex_probe.harness.jsonrpc.client import NotificationPredicate
from codex_probe.probes.explore.plan import Cell
from codex_probe.probes.explore.record import CellRecord
from codex_probe.probes.explore.states import UNLOADED, Subject
from codex_probe.rig.session import thread_of


def queues_a_turn(
    cell: Cell, record: CellRecord, subject: Subject, said: list[dict[str, Any]]
) -> bool:
    """Whether a call answered in flight starts a turn of its own after the held one: a
    compaction does (0.171.0 runs it once the held turn ends), a turn/start whose answer
    names another turn than the held one does, unless its input went into the held turn
    (0.140.0 answers with a turn of a new id and adds the input to the held turn, as a
    turn/start whose answer names the held turn does on 0.171.0: no turn of its own came
    in 10 s, 2 of 2)."""
    if cell.method == "thread/compact/start":
        return True
    if cell.method == "turn/start" and isinstance(record.result, dict):
        turn = record.result.get("turn")
        if not isinstance(turn, dict) or turn.get("id") in (None, subject.held):
            return False
        return not any(_input_of_turn(message, subject.thread, subject.held) for message in said)
    return False


def _input_of_turn(message: dict[str, Any], thread: str, turn: str | None) -> bool:
    """Whether `message` announces a user's input as an item of `turn` of `thread`."""
    params = message.get("params")
    if message.get("method") != "item/started" or not isinstance(params, dict):
        return False
    item = params.get("item")
    return (
        params.get("threadId") == thread
        and params.get("turnId") == turn
        and isinstance(item, dict)
        and item.get("type") == "userMessage"
    )


def turn_event(message: dict[str, Any], method: str, threads: set[str]) -> bool:
    params = message.get("params")
    return (
        message.get("method") == method
        and "id" not in message
        and isinstance(params, dict)
        and params.get("threadId") in threads
    )


def command_item(message: dict[str, Any], method: str, threads: set[str]) -> str | None:
    """The id of the command item `message` says `method` of on one of `threads`, if it does."""
    if not turn_event(message, method, threads):
        return None
    item = message["params"].get("item")
    if not isinstance(item, dict) or item.get("type") != "commandExecution":
        return None
    return item.get("id") if isinstance(item.get("id"), str) else None


def completes(item: str, threads: set[str]) -> NotificationPredicate:
    return lambda note: (
        command_item({"method": note.method, "params": note.params}, "item/completed", threads)
        == item
    )


def status_type(params: Any) -> Any:
    """The `status.type` a thread/status/changed's params say, if any."""
    status = params.get("status") if isinstance(params, dict) else None
    return status.get("type") if isinstance(status, dict) else None


def unloads(message: dict[str, Any], threads: set[str]) -> bool:
    """Whether `message` says one of `threads` is no longer loaded."""
    params = message.get("params")
    if "id" in message or not isinstance(params, dict) or params.get("threadId") not in threads:
        return False
    if message.get("method") == "thread/closed":
        return True
    return message.get("method") == "thread/status/changed" and status_type(params) == "notLoaded"


def unloaded_status(threads: set[str]) -> NotificationPredicate:
    return lambda note: unloads({"method": note.method, "params": note.params}, threads)


def about(threads: set[str]) -> NotificationPredicate:
    return lambda note: thread_of(note) in threads


def loads_with_config(cell: Cell, params: Any) -> bool:
    """Whether the call loads a thread (starts one, forks one, resumes an unloaded one) with
    settings of its own (`config`)."""
    loads = cell.method in ("thread/start", "thread/fork") or (
        cell.method == "thread/resume" and cell.state == UNLOADED
    )
    config = params.get("config") if isinstance(params, dict) else None
    return loads and isinstance(config, dict) and bool(config)


def threads_named(result: Any) -> set[str]:
    """The threads an answer names (a fork's new thread, a detached review's)."""
    if not isinstance(result, dict):
        return set()
    found = set()
    thread = result.get("thread")
    if isinstance(thread, dict) and isinstance(thread.get("id"), str):
        found.add(thread["id"])
    for key in ("threadId", "reviewThreadId"):
        if isinstance(result.get(key), str):
            found.add(result[key])
    return found
