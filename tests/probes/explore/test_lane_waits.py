"""Which calls a lane waits on after their answer, and for what: what a task of codex's own
says, the turns a call started, and no longer for a thread codex unloaded."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from codex_probe.harness.jsonrpc.errors import NotificationTimeout
from codex_probe.harness.jsonrpc.framing import Notification
from codex_probe.probes.explore.plan import Cell
from codex_probe.probes.explore.record import CellRecord
from codex_probe.probes.explore.states import Subject
from codex_probe.probes.explore.thread_events import loads_with_config, queues_a_turn, unloads
from codex_probe.probes.explore.waits import Waits, waits_long

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
    assert queues_a_turn(cell, record, HELD, [user_input_of("new-turn")])


def test_a_turn_start_whose_input_went_into_the_held_turn_queues_none_whatever_it_answered() -> (
    None
):
    # 0.140.0 answers with a turn of a new id and adds the input to the held turn.
    cell, record = started_in_flight("new-turn")
    assert not queues_a_turn(cell, record, HELD, [user_input_of("held-turn")])
    cell, record = started_in_flight("held-turn")  # 0.171.0 names the held turn
    assert not queues_a_turn(cell, record, HELD, [])


def test_the_held_turn_of_another_thread_is_not_this_ones() -> None:
    cell, record = started_in_flight("new-turn")
    assert queues_a_turn(cell, record, HELD, [user_input_of("held-turn", thread="thread-2")])


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
    assert unloads(message, {"t"})
    assert not unloads(message, {"another"})


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
    assert not unloads(message, {"t"})


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


class Client:
    """What Waits reads of a session's client: buffered notifications, and waits for one."""

    def __init__(self) -> None:
        self.notifications: list[Notification] = []
        self._arrived = asyncio.Condition()

    async def deliver(self, note: Notification) -> None:
        async with self._arrived:
            self.notifications.append(note)
            self._arrived.notify_all()

    async def wait_for_notification(
        self,
        method: str,
        predicate: Callable[[Notification], bool],
        *,
        timeout: float,
        consume: bool = True,
    ) -> Notification:
        def find() -> Notification | None:
            return next(
                (n for n in self.notifications if n.method == method and predicate(n)), None
            )

        try:
            async with asyncio.timeout(timeout), self._arrived:
                await self._arrived.wait_for(lambda: find() is not None)
        except TimeoutError:
            raise NotificationTimeout(method=method, elapsed=timeout, stderr_tail="") from None
        found = find()
        assert found is not None
        return found


async def test_an_unsubscribe_in_flight_waits_for_the_let_go_turns_status_before_its_fence() -> (
    None
):
    # The connection hears no turn/completed of an unsubscribed thread, only its status: a
    # late one (a loaded machine) fell after the fence, and the cell's notifications flipped.
    client = Client()
    session = SimpleNamespace(client=client)
    idle = Notification("thread/status/changed", {"threadId": "t", "status": {"type": "idle"}})
    later: list[asyncio.Task[None]] = []

    def release(subject: Subject) -> None:  # codex ends the let-go turn a while later
        async def turn_ends() -> None:
            await asyncio.sleep(0.3)
            await client.deliver(idle)

        later.append(asyncio.ensure_future(turn_ends()))

    waits = Waits(lambda: session, release, frozenset())  # type: ignore[arg-type, return-value]
    cell = Cell(
        "thread/unsubscribe", "in-flight", "minimal", {"threadId": "{{thread}}"}, on_copy=True
    )
    record = CellRecord(cell.method, cell.state, cell.variant, cell.kind, cell.params)
    record.outcome, record.result = "answered", {"status": "unsubscribed"}
    await waits.settle(cell, Subject("t", turn="h", held="h"), record, mark=0)
    assert later, "the held turn was not let go"
    assert idle in client.notifications
    await later[0]


def command_item(method: str, item: str) -> Notification:
    params = {"threadId": "t", "turnId": "u", "item": {"type": "commandExecution", "id": item}}
    return Notification(method, params)


async def test_an_approved_command_completed_after_its_turn_is_waited_for_before_the_fence() -> (
    None
):
    # 0.122.0 to 0.130.0 of a whole history: the command's item/completed (from the task that
    # watched it) came after turn/completed, and fell after the fence at some releases.
    client = Client()
    entries: list[SimpleNamespace] = []
    session = SimpleNamespace(client=client, transcript=SimpleNamespace(entries=entries))

    async def say(note: Notification) -> None:
        entries.append(
            SimpleNamespace(
                direction="recv", message={"method": note.method, "params": note.params}
            )
        )
        await client.deliver(note)

    for note in (
        Notification("turn/started", {"threadId": "t", "turn": {"id": "u"}}),
        command_item("item/started", "command-1"),
        Notification("turn/completed", {"threadId": "t", "turn": {"id": "u"}}),
    ):
        await say(note)
    late = command_item("item/completed", "command-1")

    async def command_ends() -> None:
        await asyncio.sleep(0.3)
        await say(late)

    ending = asyncio.ensure_future(command_ends())
    waits = Waits(lambda: session, lambda _: None, frozenset())  # type: ignore[arg-type, return-value]
    cell = Cell(
        "item/commandExecution/requestApproval", "idle", "decision=accept", None, "approval"
    )
    record = CellRecord(cell.method, cell.state, cell.variant, cell.kind, cell.params)
    record.outcome, record.result = "answered", {"turn": {"id": "u"}}
    await waits.settle(cell, Subject("t"), record, mark=0)
    assert ending.done() and late in client.notifications
    assert record.unsettled is None


async def test_a_command_that_never_completes_leaves_the_cell_unsettled() -> None:
    client = Client()
    notes = [
        Notification("turn/started", {"threadId": "t", "turn": {"id": "u"}}),
        command_item("item/started", "command-1"),
        command_item("item/started", "command-2"),
        command_item("item/completed", "command-2"),
        Notification("turn/completed", {"threadId": "t", "turn": {"id": "u"}}),
    ]
    entries = [
        SimpleNamespace(direction="recv", message={"method": n.method, "params": n.params})
        for n in notes
    ]
    for note in notes:
        await client.deliver(note)
    session = SimpleNamespace(client=client, transcript=SimpleNamespace(entries=entries))
    waits = Waits(lambda: session, lambda _: None, frozenset())  # type: ignore[arg-type, return-value]
    cell = Cell("turn/start", "idle", "minimal", {"threadId": "{{thread}}", "input": []})
    record = CellRecord(cell.method, cell.state, cell.variant, cell.kind, cell.params)
    record.outcome, record.result = "answered", {"turn": {"id": "u"}}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("codex_probe.probes.explore.waits.COMMAND_COMPLETED_WITHIN_S", 0.2)
        await waits.settle(cell, Subject("t"), record, mark=0)
    assert (record.unsettled or "").startswith("item/completed of a command it started did not")
