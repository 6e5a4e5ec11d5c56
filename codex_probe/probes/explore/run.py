"""One exploration of a release: every cell of its plan, on the rig's Session, in lanes.

Two lanes run at once, each on its own isolated home, wiretap and app-server:

- the `none` lane: the cells of the state `none`, in the plan's order (reads, thread/start,
  writes, accounts, then every invalid call);
- the thread lane: an earlier process makes the unloaded threads and exits; then one
  process asks every thread state's cells, state by state: the cells on the state's own
  thread first, then each cell on a copy of its own (states.py).

A cell is one request and what it caused. Its notifications are those read between its
request and a *fence* sent after its answer (a request codex refuses at once: whatever
codex said right after the answer has been read when the fence's refusal arrives), and,
for a cell on a copy of its own, every later notification about that copy until the lane
ends (nothing else touches the copy). A cell that starts a turn lasts until the turn
completes; a cell in flight releases its held answer and lasts until that turn completes.

Every answer, refusal, notification and server request is checked against the release's
own schema. What surprised the exploration (an app-server that exited, a request
unanswered past its deadline, a message that breaks the schema) is a Surprise with the
steps that lead to it and the command that replays them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import struct
import wave
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.harness.jsonrpc.errors import (
    NotificationTimeout,
    RequestTimeout,
    ServerError,
    TransportError,
)
from codex_probe.harness.jsonrpc.transcript import TranscriptEntry
from codex_probe.probes.explore.fixtures import UNKNOWN_ID, substitute, unsubstitute
from codex_probe.probes.explore.methods import STARTS_TURN
from codex_probe.probes.explore.outbound import Outbound
from codex_probe.probes.explore.plan import APPROVAL_METHOD, Cell, Plan, make_plan
from codex_probe.probes.explore.record import CellRecord, ExplorationRecord, Surprise
from codex_probe.probes.explore.states import (
    EXEC_MARKER,
    IN_FLIGHT,
    NONE,
    THREAD_STATES,
    UNLOADED,
    Replies,
    StateUnreachable,
    Subject,
    ThreadLab,
)
from codex_probe.rig.answers import DEFAULT_ANSWERS
from codex_probe.rig.backends import Backend
from codex_probe.rig.homes import IsolatedHome, TomlValue
from codex_probe.rig.session import Session, thread_of
from codex_probe.rig.wiretap import Wiretap

CALL_DEADLINE_S = 20.0
TURN_START_DEADLINE_S = 10.0
TURN_DEADLINE_S = 30.0
# A method no release has: codex refuses it as it reads it (the fence, see the module).
FENCE_METHOD = "explore/fence"
# What a call asked in flight has done inside the held turn once this notification (of an
# item of this type) has come.
SETTLED_BY = {"thread/shellCommand": ("item/completed", "commandExecution")}
# Methods after which the connection hears nothing more of the thread.
UNHEARD = frozenset({"thread/unsubscribe", "thread/delete"})
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
EXPLORE_CONFIG: dict[str, TomlValue] = {"features": {"shell_snapshot": False}}
# Settings the rig's homes make that the exploration leaves to codex.
CODEX_DEFAULTS = ("approval_policy", "sandbox_mode")
# Notifications a process sends of its own accord, not caused by a call (kept per lane).
BACKGROUND = frozenset({"remoteControl/status/changed"})


class ExploreHome(IsolatedHome):
    """An isolated home whose codex sends its outbound HTTP to `proxy_env`'s port, with the
    exploration's files laid out in its working folder (fixtures.py names them).

    Its config leaves the approval policy and the sandbox to codex's defaults (a default
    that changes is what the exploration is for), and turns the shell snapshot off: codex
    spawns a login shell for every thread it starts or forks, which cost 3.9 of every
    5.0 s of 20 forks on 0.171.0 (measured under load); no call explored reads it."""

    def __init__(self, base_url: str, proxy_env: dict[str, str]) -> None:
        super().__init__(base_url, extra_config=EXPLORE_CONFIG)
        for key in CODEX_DEFAULTS:
            self.config.pop(key, None)
        self.write_config()
        self.proxy_env = proxy_env
        lay_out(self.workdir)

    def env(self, path: str | None = None) -> dict[str, str]:
        return {**super().env(path), **self.proxy_env}


def lay_out(work: Path) -> None:
    files = work / "files"
    files.mkdir(parents=True, exist_ok=True)
    (files / "readme.txt").write_text("explore readme\n", encoding="utf-8")
    (files / "image.png").write_bytes(_one_pixel_png())
    with wave.open(str(files / "audio.wav"), "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(2)
        audio.setframerate(8000)
        audio.writeframes(b"\0\0" * 80)
    skill = work / "skills" / "explore"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(
        "---\nname: explore\ndescription: A skill of the exploration.\n---\nDo nothing.\n",
        encoding="utf-8",
    )
    (work / "out").mkdir(exist_ok=True)


def _one_pixel_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0\0"))
        + chunk(b"IEND", b"")
    )


def _lay_out_removable(target: Path, work: Path) -> None:
    """The file an fs/remove cell removes (inside the working folder only)."""
    if target.is_relative_to(work):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("remove me\n", encoding="utf-8")


def cell_slug(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-").lower()


@dataclass
class _Pending:
    """A cell on a copy whose notifications are read when the lane ends."""

    record: CellRecord
    mark: int
    subjects: set[str]
    values: dict[str, str]
    thread: str
    end: int | None = None  # where the next cell on the same copy began


@dataclass
class Lane:
    """One home, wiretap and app-server (or two, for the thread lane's restart)."""

    name: str
    backend: Backend
    outbound: Outbound
    validator: MessageValidator
    reproduce: Callable[[str], str]
    surprises: list[Surprise] = field(default_factory=list)
    pending: list[_Pending] = field(default_factory=list)
    session: Session | None = None
    replies: Replies = field(default_factory=Replies)
    # Told of each cell as it ends (the command's progress).
    on_cell: Callable[[CellRecord], None] = lambda record: None

    def release(self, subject: Subject) -> None:
        """Let the subject's held answer go (the wiretap lets every held answer go: one
        turn is held at a time)."""
        if subject.hold_marker is not None:
            self.replies.released.add(subject.hold_marker)
        assert self.session is not None
        self.session.tap.release_held()

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
        session = self.session
        assert session is not None
        record = CellRecord(cell.method, cell.state, cell.variant, cell.kind, cell.params)
        values = self.values(cell, subject)
        params = substitute(cell.params, values)
        method = "turn/start" if cell.kind == "approval" else cell.method
        if cell.method == "fs/remove" and cell.kind == "valid" and isinstance(params, dict):
            _lay_out_removable(Path(str(params.get("path", ""))), session.home.workdir)
        if cell.kind == "approval":
            session.answer(APPROVAL_METHOD, cell.answer)
        session.client.drain_notifications()
        mark = len(session.transcript.entries)
        try:
            record.result = await session.request(method, params, timeout=CALL_DEADLINE_S)
            record.outcome = "answered"
        except ServerError as error:
            record.outcome = "refused"
            record.error = {"code": error.code, "message": error.message, "data": error.data}
        except RequestTimeout:
            record.outcome = "unanswered"
            self.surprise(f"no answer within {CALL_DEADLINE_S:.0f} s", cell)
        subjects = {subject.thread} if subject else set()
        subjects |= _threads_named(record.result)
        if subject is not None:
            await self.settle(cell, subject, record)
        if cell.kind == "approval":
            session.answer(APPROVAL_METHOD, DEFAULT_ANSWERS[APPROVAL_METHOD])
        await self.fence()
        if cell.on_copy and subject is not None:
            for earlier in self.pending:
                if earlier.thread == subject.thread and earlier.end is None:
                    earlier.end = mark
            self.pending.append(_Pending(record, mark, subjects, values, subject.thread))
        else:
            self.finish(record, session.transcript.entries[mark:], subjects, values)
        self.on_cell(record)
        return record

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

    async def settle(self, cell: Cell, subject: Subject, record: CellRecord) -> None:
        """Wait for the turn the cell started, or the one it let go on, to complete (the
        first turn/completed of its thread: a review's names another turn than its
        turn/started, 0.171.0)."""
        assert self.session is not None
        answered = record.outcome == "answered"
        try:
            if cell.state == IN_FLIGHT and cell.on_copy and subject.held:
                if answered:  # a refused call left the held turn as it was
                    await self._own_work(cell, subject)
                    self.release(subject)
                    if cell.method not in UNHEARD:
                        await self._completed(subject.thread)
                    subject.held = None
                return
            starts = cell.method in STARTS_TURN or cell.kind == "approval"
            if not answered or not starts:
                return
            await self.session.client.wait_for_notification(
                "turn/started",
                lambda n: thread_of(n) == subject.thread,
                timeout=TURN_START_DEADLINE_S,
                consume=False,
            )
            await self._completed(subject.thread)
        except NotificationTimeout as timeout:
            record.unsettled = f"{timeout.method} did not come within {timeout.elapsed:.0f} s"

    async def _own_work(self, cell: Cell, subject: Subject) -> None:
        """Before a held turn is let go: the work the call does inside that turn, done (a
        shell command's output lands in the turn's next model request, or after it, by
        the race the release would start)."""
        assert self.session is not None
        settled_by = SETTLED_BY.get(cell.method)
        if settled_by is None:
            return
        method, item_type = settled_by
        await self.session.client.wait_for_notification(
            method,
            lambda n: (
                thread_of(n) == subject.thread
                and isinstance(n.params, dict)
                and isinstance(n.params.get("item"), dict)
                and n.params["item"].get("type") == item_type
            ),
            timeout=TURN_START_DEADLINE_S,
            consume=False,
        )

    async def _completed(self, thread: str) -> None:
        """The first turn/completed of `thread` since the cell began."""
        assert self.session is not None
        await self.session.client.wait_for_notification(
            "turn/completed",
            lambda n: thread_of(n) == thread,
            timeout=TURN_DEADLINE_S,
            consume=False,
        )

    async def fence(self) -> None:
        assert self.session is not None
        await self.session.call(FENCE_METHOD, {})

    def finish_pending(self) -> None:
        """Read the notifications of the cells on copies (the lane has ended)."""
        assert self.session is not None
        entries = self.session.transcript.entries
        end = len(entries)
        for pending in self.pending:
            window = entries[pending.mark : pending.end or end]
            self.finish(pending.record, window, pending.subjects, pending.values)
        self.pending = []

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


def _on_copy(cell: Cell | CellRecord) -> bool:
    return bool(getattr(cell, "on_copy", False))


def _threads_named(result: Any) -> set[str]:
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


def _thread_about(params: Any) -> str | None:
    if not isinstance(params, dict):
        return None
    if isinstance(params.get("threadId"), str):
        return str(params["threadId"])
    thread = params.get("thread")
    if isinstance(thread, dict) and isinstance(thread.get("id"), str):
        return str(thread["id"])
    return None


def _not_run(cell: Cell, why: str) -> CellRecord:
    return CellRecord(cell.method, cell.state, cell.variant, cell.kind, cell.params, why=why)


async def run_none_lane(lane: Lane, cells: list[Cell]) -> list[CellRecord]:
    """The cells of the state `none`: the valid ones one by one, then the invalid ones
    INVALID_AT_ONCE at a time (codex refuses them as it reads them; an invalid call it
    takes after all is recorded as answered, its notifications are not read)."""
    if not cells:
        return []
    done: list[CellRecord] = []
    async with Wiretap(responder=lane.replies) as tap:
        with ExploreHome(tap.base_url, lane.outbound.env()) as home:
            try:
                await lane.open(tap, home)
                valid = [cell for cell in cells if cell.kind != "invalid"]
                invalid = [cell for cell in cells if cell.kind == "invalid"]
                for cell in valid:
                    done.append(await lane.run_cell(cell, None))
                for start in range(0, len(invalid), INVALID_AT_ONCE):
                    chunk = invalid[start : start + INVALID_AT_ONCE]
                    done += await asyncio.gather(*(lane.run_invalid(cell) for cell in chunk))
            except TransportError as error:
                done += _ended(lane, cells[len(done) :], error)
            finally:
                if lane.session is not None:
                    await lane.session.close()
    return done


def _ended(lane: Lane, rest: list[Cell], error: TransportError) -> list[CellRecord]:
    """The cells after the app-server ended or stopped answering: not run, and why."""
    what = f"the app-server stopped: {error.summary}"
    if rest:
        lane.surprise(what, rest[0])
    return [_not_run(cell, what) for cell in rest]


async def run_thread_lane(
    lane: Lane, cells: list[Cell], methods: set[str]
) -> tuple[list[CellRecord], dict[str, str | None]]:
    """Every thread state's cells (see the module); the records in the order of `cells`."""
    states: dict[str, str | None] = {}
    done: dict[int, CellRecord] = {}
    if not cells:
        return [], states
    async with Wiretap(responder=lane.replies) as tap:
        with ExploreHome(tap.base_url, lane.outbound.env()) as home:
            try:
                lab = ThreadLab(await lane.open(tap, home), methods)
                unloaded = [cell for cell in cells if cell.state == UNLOADED]
                if unloaded:
                    copies = sum(1 for cell in unloaded if cell.on_copy)
                    states[UNLOADED] = await _reached(lab.prepare_unloaded(copies))
                    await lab.session.restart()
                for state in THREAD_STATES:
                    mine = [
                        (index, cell) for index, cell in enumerate(cells) if cell.state == state
                    ]
                    if mine:
                        await _run_state(lane, lab, state, mine, done, states)
                lane.finish_pending()
            except TransportError as error:
                rest = [(index, cell) for index, cell in enumerate(cells) if index not in done]
                for (index, _), record in zip(
                    rest, _ended(lane, [cell for _, cell in rest], error), strict=True
                ):
                    done[index] = record
            finally:
                if lane.session is not None:
                    with contextlib.suppress(Exception):
                        lane.finish_pending()
                    await lane.session.close()
    return [done[index] for index in sorted(done)], states


async def _reached(reaching: Any) -> str | None:
    """None once `reaching` (a coroutine bringing threads into a state) is done; else why
    the state could not be reached."""
    try:
        await reaching
    except (ServerError, StateUnreachable, NotificationTimeout) as why:
        return _why(why)
    return None


async def _run_state(
    lane: Lane,
    lab: ThreadLab,
    state: str,
    mine: list[tuple[int, Cell]],
    done: dict[int, CellRecord],
    states: dict[str, str | None],
) -> None:
    """A state's cells: those on its own thread, then each on a copy; a copy serves the
    next cell too while the calls on it are refused (a refusal leaves the thread as it
    was). In flight, one turn is held at a time: the base's is let go before the first
    copy holds its own (the wiretap lets every held answer go at once)."""
    if state not in states:
        states[state] = await _reached(lab.reach(state))
    if states[state] is not None:
        for index, cell in mine:
            done[index] = _not_run(cell, f"{state} was not reached: {states[state]}")
        return
    base = lab.bases[state]
    await lane.fence()  # what reaching it said is said before its first cell
    for index, cell in [pair for pair in mine if not pair[1].on_copy]:
        done[index] = await lane.run_cell(cell, base)
    await _let_go(lane, base)
    copy: Subject | None = None
    for index, cell in [pair for pair in mine if pair[1].on_copy]:
        if copy is None:
            try:
                copy = await lab.copy(state)
            except (ServerError, StateUnreachable, NotificationTimeout) as why:
                done[index] = _not_run(cell, f"no copy of {state}: {_why(why)}")
                continue
            await lane.fence()
        if cell.kind == "approval":
            cell = _approval_params(cell)
        record = await lane.run_cell(cell, copy)
        done[index] = record
        if record.outcome != "refused" or cell.kind == "approval":
            await _let_go(lane, copy)
            copy = None
    if copy is not None:
        await _let_go(lane, copy)


async def _let_go(lane: Lane, subject: Subject) -> None:
    """End a thread's held turn, if it has one, so it runs into nothing after it."""
    if not subject.held:
        return
    assert lane.session is not None
    lane.session.client.drain_notifications()  # nothing of it can have completed yet
    lane.release(subject)
    with contextlib.suppress(NotificationTimeout):
        await lane._completed(subject.thread)
    subject.held = None


def _approval_params(cell: Cell) -> Cell:
    params = {
        "threadId": "{{thread}}",
        "input": [{"type": "text", "text": f"{EXEC_MARKER} explore"}],
        "approvalPolicy": "untrusted",
    }
    return Cell(cell.method, cell.state, cell.variant, params, cell.kind, True, cell.answer)


def _why(error: BaseException) -> str:
    if isinstance(error, ServerError):
        return f"{error.method} refused: {error.code} {error.message}"
    return str(error).splitlines()[0]


async def explore(
    backend: Backend,
    *,
    seed: int = 0,
    only: set[str] | None = None,
    plan: Plan | None = None,
    on_cell: Callable[[CellRecord], None] = lambda record: None,
) -> ExplorationRecord:
    """Every cell of the release's plan (or only those named), on `backend`."""
    schema_dir = backend.schema_dir
    plan = plan or make_plan(schema_dir)
    if only:
        plan = plan.only(only)
    record = ExplorationRecord(backend.version, seed, plan.methods)
    record.unsent = [{"method": u.method, "variant": u.variant, "why": u.why} for u in plan.unsent]
    validator = MessageValidator(schema_dir)

    def reproduce(key: str) -> str:
        return f"codex-probe explore --codex {backend.version} --cell '{key}'"

    async with Outbound() as outbound:
        none_lane = Lane("none", backend, outbound, validator, reproduce, on_cell=on_cell)
        thread_lane = Lane("threads", backend, outbound, validator, reproduce, on_cell=on_cell)
        none_cells = plan.in_state(NONE)
        thread_cells = [cell for cell in plan.cells if cell.state != NONE]
        async with asyncio.TaskGroup() as group:
            none_run = group.create_task(run_none_lane(none_lane, none_cells))
            thread_run = group.create_task(
                run_thread_lane(thread_lane, thread_cells, set(plan.methods))
            )
        thread_records, states = thread_run.result()
        record.cells = none_run.result() + thread_records
        record.states = {NONE: None, **states}
        record.surprises = none_lane.surprises + thread_lane.surprises
        record.outbound = {"none": sorted(set(outbound.asked))}
    return record
