"""A lane: one isolated home, wiretap and app-server (two, for a restart), and the cells run
on it one at a time, each one request and what it caused (but for a cell on a copy of its
own left only waiting, which waits beside the next ones: parked.py).

A cell's notifications are those read between its request and a *fence* sent after its
answer (a request codex refuses at once: whatever codex said right after the answer has
been read when the fence's refusal arrives). Before the fence, what the call set going is
waited for (waits.py): a turn it started, or the held turn it let go, to complete; the
notification that ends what it started after its answer.

Every answer, refusal, notification and server request is checked against the release's
own schema; what breaks it is a Surprise, with the steps that lead to it and the command
that replays them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.harness.jsonrpc.errors import NotificationTimeout, RequestTimeout, ServerError
from codex_probe.harness.jsonrpc.transcript import Transcript, TranscriptEntry
from codex_probe.probes.explore.fixtures import UNKNOWN_ID, substitute, unsubstitute
from codex_probe.probes.explore.home import lay_out_removable
from codex_probe.probes.explore.outbound import Outbound
from codex_probe.probes.explore.parked import Parked, ParkedCells
from codex_probe.probes.explore.plan import APPROVAL_METHOD, Cell
from codex_probe.probes.explore.record import CellRecord, Surprise
from codex_probe.probes.explore.states import (
    IN_FLIGHT,
    NONE,
    UNLOADED,
    Replies,
    Subject,
)
from codex_probe.probes.explore.thread_events import threads_named
from codex_probe.probes.explore.unanswered import UNANSWERED_AGAIN_S, Unanswered
from codex_probe.probes.explore.waits import Waits
from codex_probe.rig.answers import DEFAULT_ANSWERS
from codex_probe.rig.backends import Backend
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.session import Session, thread_of
from codex_probe.rig.wiretap import Wiretap

# A call codex has not answered by then is unanswered (0.120.0 never answers a turn/interrupt
# of a turn that has ended: measured, 8 cells of 724).
CALL_DEADLINE_S = 10.0
# A method no release has: codex refuses it as it reads it (the fence, see the module).
FENCE_METHOD = "explore/fence"
# Invalid calls sent at once (codex refuses an overloaded ingress with -32001: few).
INVALID_AT_ONCE = 8
# What a state's thread went through before a call, for a surprise's steps.
STATE_STEPS: dict[str, tuple[str, ...]] = {
    NONE: (),
    "idle": ("thread/start", "turn/start (completed)"),
    IN_FLIGHT: ("thread/start", "turn/start (completed)", "turn/start (answer held)"),
    "compacted": ("thread/start", "turn/start (completed)", "thread/compact/start (completed)"),
    "archived": ("thread/start", "turn/start (completed)", "thread/archive"),
    "forked": ("thread/start", "turn/start (completed)", "thread/fork"),
    "rolled-back": (
        "thread/start",
        "turn/start (completed) x2",
        "thread/rollback numTurns=1 (or thread/revert before the last turn)",
    ),
    UNLOADED: ("thread/start", "turn/start (completed)", "restart the app-server"),
}
COPY_STEP = "thread/fork (a copy for this call)"
# Notifications a process sends of its own accord, not caused by a call (kept per lane).
# (configWarning: the one a process sends when it starts, that bubblewrap is not on PATH,
# landed in the first call's window in one run of two.)
BACKGROUND = frozenset({"remoteControl/status/changed", "configWarning"})


def cell_slug(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-").lower()


@dataclass
class Lane:
    """One home, wiretap and app-server (or two, for the thread lane's restart)."""

    name: str
    backend: Backend
    outbound: Outbound
    validator: MessageValidator
    reproduce: Callable[[str], str]
    surprises: list[Surprise] = field(default_factory=list)
    session: Session | None = None
    replies: Replies = field(default_factory=Replies)
    walk_violations: list[str] = field(default_factory=list)
    walk_checked: int = 0
    # Methods that went unanswered on a thread with no turn held, learnt by any lane of the
    # exploration (unanswered.py). A thread with a held turn keeps the full deadline: an
    # interrupt there is answered when the turn has ended.
    unanswered: Unanswered = field(default_factory=Unanswered)
    # Told of each cell as it ends (the command's progress), and of the lane's transcript
    # when it ends.
    on_cell: Callable[[CellRecord], None] = lambda record: None
    on_end: Callable[[Transcript], None] = lambda transcript: None
    # What the lane waits for after each call (waits.py).
    waits: Waits = field(init=False)
    # Cells whose tail runs beside the next cells (parked.py).
    parked: ParkedCells = field(default_factory=ParkedCells)

    # ----- for a walk (walks.py): calls checked as they go ------------------------------

    async def checked_call(self, method: str, params: Any) -> dict[str, Any]:
        """`{"result"}` or `{"error"}`; its answer checked against the schema (a transport
        failure raises)."""
        assert self.session is not None
        outcome = await self.session.call(method, params)
        answer = {"id": 0, **outcome}
        self.walk_violations += [
            str(v) for v in self.validator.check("server response", answer, method=method)
        ]
        return outcome

    def violations_since_walk(self) -> list[str]:
        """What broke the schema since the last ask: answers, and what codex said."""
        assert self.session is not None
        entries = self.session.transcript.entries
        found, self.walk_violations = self.walk_violations, []
        for entry in entries[self.walk_checked :]:
            message = entry.message
            if (
                entry.direction != "recv"
                or not isinstance(message, dict)
                or "method" not in message
            ):
                continue
            kind = "server request" if "id" in message else "server notification"
            found += [str(v) for v in self.validator.check(kind, message)]  # type: ignore[arg-type]
        self.walk_checked = len(entries)
        return found

    async def let_go(self, subject: Subject) -> None:
        """End a thread's held turn, if it has one, so it runs into nothing after it."""
        if not subject.held:
            return
        assert self.session is not None
        self.drain()  # nothing of it can have completed yet
        self.release(subject)
        with contextlib.suppress(NotificationTimeout):
            await self.waits.completed(subject.thread)
        subject.held = None

    def release(self, subject: Subject) -> None:
        """Let the subject's held answer go (the wiretap lets every held answer go: one
        turn is held at a time)."""
        if subject.hold_marker is not None:
            self.replies.released.add(subject.hold_marker)
        assert self.session is not None
        self.session.tap.release_held()

    async def close(self) -> None:
        """End every process the lane started; then tell `on_end` what was said."""
        if self.session is None:
            return
        with contextlib.suppress(Exception):
            await self.session.close()
        self.on_end(self.session.transcript)

    def __post_init__(self) -> None:
        told = frozenset(self.validator.methods("server notification"))
        self.waits = Waits(self._session, self.release, told)

    def _session(self) -> Session:
        assert self.session is not None
        return self.session

    async def open(self, tap: Wiretap, home: IsolatedHome) -> Session:
        self.session = Session(self.backend, tap, home, timeout=CALL_DEADLINE_S)
        await self.session.open()
        return self.session

    def values(self, cell: Cell, subject: Subject | None) -> dict[str, str]:
        assert self.session is not None
        home = self.session.home
        return {
            "thread": subject.thread if subject else UNKNOWN_ID,
            "turn": (subject.turn if subject else None) or UNKNOWN_ID,
            "unknown": UNKNOWN_ID,
            "work": str(home.workdir),
            "root": str(home.root),
            "cell": cell_slug(cell.key),
            "wiretap": self.session.tap.base_url,
        }

    async def run_cell(self, cell: Cell, subject: Subject | None) -> CellRecord:
        """The cell's call and what it caused, recorded."""
        record = await self._run(cell, subject, may_park=False)
        assert isinstance(record, CellRecord)
        return record

    async def run_cell_or_park(self, cell: Cell, copy: Subject) -> CellRecord | Parked:
        """As run_cell, for a call on a copy of its own: a cell left only waiting on its own
        threads is parked (parked.py), and its record comes with the Parked's task."""
        return await self._run(cell, copy, may_park=True)

    async def _run(
        self, cell: Cell, subject: Subject | None, *, may_park: bool
    ) -> CellRecord | Parked:
        session = self.session
        assert session is not None
        record = CellRecord(cell.method, cell.state, cell.variant, cell.kind, cell.params)
        values = self.values(cell, subject)
        params = substitute(cell.params, values)
        method = "turn/start" if cell.kind == "approval" else cell.method
        if cell.method == "fs/remove" and cell.kind == "valid" and isinstance(params, dict):
            lay_out_removable(Path(str(params.get("path", ""))), session.home.workdir)
        if cell.kind == "approval":
            session.answer(APPROVAL_METHOD, cell.answer)
        self.drain()
        call = _Call(
            cell,
            subject,
            record,
            method,
            params,
            values,
            mark=len(session.transcript.entries),
            asked=len(self.outbound.asked),
            turnless=subject is None or not subject.held,
        )
        # An approval's answer is the lane's for the time of its cell: never parked.
        parkable = may_park and subject is not None and cell.kind != "approval"
        if parkable and call.turnless and method in self.unanswered:
            assert subject is not None
            threads = {subject.thread}
            parked = self.parked.park(self._whole(call, threads), threads)
            await asyncio.sleep(0)  # its request is sent before the lane's next one
            return parked
        await self._ask(call)
        subjects = await self._settle(call)
        if (
            parkable
            and record.outcome == "answered"
            and not (subject is not None and subject.held)  # the lane lets a held turn go
            and self.waits.waits_after_answer(cell, params)
        ):
            return self.parked.park(
                self._conclude(call, subjects, asked_until=len(self.outbound.asked)), subjects
            )
        return await self._conclude(call, subjects)

    async def _whole(self, call: _Call, threads: set[str]) -> CellRecord:
        """A parked cell's call and the rest; `threads`, its parked threads, take those an
        answer after all names (a fork's)."""
        await self._ask(call)
        subjects = await self._settle(call)
        threads.update(subjects)
        return await self._conclude(call, subjects, asked_until=call.asked)

    async def _ask(self, call: _Call) -> None:
        """The call, and its answer, refusal or silence in `call.record`."""
        session = self.session
        assert session is not None
        record = call.record

        async def request(deadline: float) -> Any:
            return await session.request(call.method, call.params, timeout=deadline)

        try:
            if call.turnless:
                record.result = await self.unanswered.ask(call.method, request, CALL_DEADLINE_S)
            else:
                record.result = await request(CALL_DEADLINE_S)
            record.outcome = "answered"
        except ServerError as error:
            record.outcome = "refused"
            record.error = {"code": error.code, "message": error.message, "data": error.data}
        except RequestTimeout as timeout:
            record.outcome = "unanswered"
            # The deadline that applied, not the time taken (a late timer on a loaded machine).
            applied = CALL_DEADLINE_S if timeout.elapsed >= CALL_DEADLINE_S else UNANSWERED_AGAIN_S
            self.surprise(f"no answer within {applied:.0f} s", call.cell)
            if call.turnless:
                self.unanswered.add(call.method)

    async def _settle(self, call: _Call) -> set[str]:
        """The turns the call started or let go, completed; the threads it is about."""
        subjects = {call.subject.thread} if call.subject else set()
        subjects |= threads_named(call.record.result)
        if call.subject is not None:
            await self.waits.settle(call.cell, call.subject, call.record, call.mark)
        return subjects

    async def _conclude(
        self, call: _Call, subjects: set[str], asked_until: int | None = None
    ) -> CellRecord:
        """What the call set going, awaited; the fence; the record, finished. Outbound
        requests count up to `asked_until` (a parked cell's: those before the lane went
        on; the lane's later ones are other cells')."""
        session = self.session
        assert session is not None
        cell, record = call.cell, call.record
        if record.outcome == "answered":
            await self.waits.after_answer(cell, call.params, subjects, record)
        if cell.kind == "approval":
            session.answer(APPROVAL_METHOD, DEFAULT_ANSWERS[APPROVAL_METHOD])
        await self.fence()
        record.outbound = self.outbound.asked[call.asked : asked_until]
        self.finish(record, session.transcript.entries[call.mark :], subjects, call.values)
        self.on_cell(record)
        return record

    def drain(self) -> None:
        """Empty the buffer of notifications, but for those about a parked cell's threads."""
        assert self.session is not None
        parked = self.parked.threads()
        self.session.client.drain_notifications(keep=lambda note: thread_of(note) in parked)

    async def run_invalid(self, cell: Cell) -> CellRecord:
        """An invalid call, sent beside others (run_none_lane): its answer, checked."""
        session = self.session
        assert session is not None
        record = CellRecord(cell.method, cell.state, cell.variant, cell.kind, cell.params)
        values = self.values(cell, None)
        try:
            record.result = await session.request(
                cell.method, substitute(cell.params, values), timeout=CALL_DEADLINE_S
            )
            record.outcome = "answered"
        except ServerError as error:
            record.outcome = "refused"
            record.error = {"code": error.code, "message": error.message, "data": error.data}
        except RequestTimeout:
            record.outcome = "unanswered"
            self.surprise(f"no answer within {CALL_DEADLINE_S:.0f} s", cell)
        self.finish(record, [], set(), values)
        self.on_cell(record)
        return record

    async def fence(self) -> None:
        assert self.session is not None
        await self.session.call(FENCE_METHOD, {})

    def finish(
        self,
        record: CellRecord,
        entries: list[TranscriptEntry],
        subjects: set[str],
        values: dict[str, str],
    ) -> None:
        """The cell's notifications and server requests (about `subjects`, if any), checked
        against the schema, with the placeholders put back."""
        answers: dict[Any, Any] = {}
        for entry in entries:
            message = entry.message
            if entry.direction == "send" and isinstance(message, dict) and "method" not in message:
                answers[message.get("id")] = message.get("result", message.get("error"))
        heard: list[dict[str, Any]] = []
        asked: list[dict[str, Any]] = []
        for entry in entries:
            message = entry.message
            if entry.direction != "recv" or not isinstance(message, dict):
                continue
            if "method" not in message or message["method"] in BACKGROUND:
                continue
            about = _thread_about(message.get("params"))
            if subjects and about is not None and about not in subjects:
                continue
            if subjects and about is None and record.state != NONE:
                continue
            if "id" in message:
                asked.append(
                    {
                        "method": message["method"],
                        "params": message.get("params"),
                        "answer": answers.get(message["id"]),
                    }
                )
                kind = "server request"
            else:
                heard.append({"method": message["method"], "params": message.get("params")})
                kind = "server notification"
            for violation in self.validator.check(kind, message):  # type: ignore[arg-type]
                record.violations.append(str(violation))
        if record.outcome in ("answered", "refused"):
            answer = (
                {"id": 0, "result": record.result}
                if record.outcome == "answered"
                else {"id": 0, "error": record.error}
            )
            method = "turn/start" if record.kind == "approval" else record.method
            if record.kind != "invalid" or record.outcome == "answered":
                for violation in self.validator.check("server response", answer, method=method):
                    record.violations.append(str(violation))
        record.notifications = unsubstitute(heard, values)
        record.server_requests = unsubstitute(asked, values)
        record.result = unsubstitute(record.result, values)
        record.error = unsubstitute(record.error, values)
        if record.violations:
            self.surprise(f"breaks the schema: {record.violations[0]}", record)

    def surprise(self, what: str, cell: Cell | CellRecord) -> None:
        steps = (*STATE_STEPS.get(cell.state, ()), *([COPY_STEP] if _on_copy(cell) else ()))
        call = f"{cell.method} {json.dumps(cell.params, sort_keys=True)}"
        key = f"{cell.method} {cell.state} {cell.variant}"
        self.surprises.append(Surprise(what, key, (*steps, call), self.reproduce(key)))


@dataclass
class _Call:
    """A cell's call under way: what its phases (ask, settle, conclude) share."""

    cell: Cell
    subject: Subject | None
    record: CellRecord
    method: str
    params: Any
    values: dict[str, str]
    # Where the cell's transcript and outbound requests begin.
    mark: int
    asked: int
    # Whether no turn of its thread is held (unanswered.py: a learnt silence applies).
    turnless: bool


def _on_copy(cell: Cell | CellRecord) -> bool:
    return bool(getattr(cell, "on_copy", False))


def _thread_about(params: Any) -> str | None:
    if not isinstance(params, dict):
        return None
    if isinstance(params.get("threadId"), str):
        return str(params["threadId"])
    thread = params.get("thread")
    if isinstance(thread, dict) and isinstance(thread.get("id"), str):
        return str(thread["id"])
    return None
