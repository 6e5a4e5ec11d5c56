"""A lane: one isolated home, wiretap and app-server (two, for a restart), and the cells run
on it one at a time, each one request and what it caused.

A cell's notifications are those read between its request and a *fence* sent after its
answer (a request codex refuses at once: whatever codex said right after the answer has
been read when the fence's refusal arrives). A cell that starts a turn lasts until the turn
completes; a cell in flight releases its held answer (after the work it does inside that
turn has come) and lasts until that turn completes; a call that sets something going after
its answer lasts until the notification that ends it (AWAITS), within a deadline.

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

from codex_probe.fake_appserver.answer_book import WITH
from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.harness.jsonrpc.client import NotificationPredicate
from codex_probe.harness.jsonrpc.errors import NotificationTimeout, RequestTimeout, ServerError
from codex_probe.harness.jsonrpc.framing import Notification
from codex_probe.harness.jsonrpc.transcript import Transcript, TranscriptEntry
from codex_probe.probes.explore.fixtures import UNKNOWN_ID, substitute, unsubstitute
from codex_probe.probes.explore.home import lay_out_removable
from codex_probe.probes.explore.methods import STARTS_TURN
from codex_probe.probes.explore.outbound import Outbound
from codex_probe.probes.explore.plan import APPROVAL_METHOD, MINIMAL, Cell
from codex_probe.probes.explore.record import CellRecord, Surprise
from codex_probe.probes.explore.states import (
    IN_FLIGHT,
    NONE,
    UNLOADED,
    Replies,
    Subject,
)
from codex_probe.probes.explore.unanswered import UNANSWERED_AGAIN_S, Unanswered
from codex_probe.rig.answers import DEFAULT_ANSWERS
from codex_probe.rig.backends import Backend
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.session import Session, thread_of, turn_of
from codex_probe.rig.wiretap import Wiretap

# A call codex has not answered by then is unanswered (0.120.0 never answers a turn/interrupt
# of a turn that has ended: measured, 8 cells of 724).
CALL_DEADLINE_S = 10.0
TURN_START_DEADLINE_S = 10.0
TURN_DEADLINE_S = 30.0
# A method no release has: codex refuses it as it reads it (the fence, see the module).
FENCE_METHOD = "explore/fence"
# What a call asked in flight has done inside the held turn once this notification (of an
# item of this type) has come.
SETTLED_BY = {
    "thread/shellCommand": ("item/completed", "commandExecution"),
    # A review interrupts the held turn and runs its own: released before the review has
    # ended, the held answer races the interruption.
    "review/start": ("item/completed", "exitedReviewMode"),
}
# What a call sets going after its answer, and ends with a notification: awaited (within the
# deadline) so that it falls inside the call's window, not the next call's. An unsubscribe
# unloads the thread at once where a release does that (0.120.0: thread/closed in ms), and
# keeps it loaded where it does not (0.171.0: nothing in 3 s, 4 of 4): the deadline is short.
AWAIT_AT_MOST_S = 10.0
# An announcement every answered call of its method made (measured on 0.150.0 and 0.171.0).
ANNOUNCED_WITHIN_S = 2.0
AWAITS: dict[str, tuple[str, float]] = {
    # A thread started (or forked) is announced by a task of its own: thread/start's
    # thread/started fell after the fence in 1 run of 8 (0.171.0, an ephemeral thread).
    "thread/start": ("thread/started", AWAIT_AT_MOST_S),
    "thread/fork": ("thread/started", AWAIT_AT_MOST_S),
    # A skills folder set is noticed by a watcher: awaited a little.
    "skills/extraRoots/set": ("skills/changed", 2.0),
    # What a call did to a thread is announced by a task of its own: each fell after the
    # fence once or twice in 10 runs of 0.171.0 (thread/archived, thread/attachment/updated),
    # and each came after every answered call of 4 runs (a section move's after 21 of 28:
    # awaited briefly).
    "thread/archive": ("thread/archived", ANNOUNCED_WITHIN_S),
    "thread/unarchive": ("thread/unarchived", ANNOUNCED_WITHIN_S),
    "thread/delete": ("thread/deleted", ANNOUNCED_WITHIN_S),
    "thread/name/set": ("thread/name/updated", ANNOUNCED_WITHIN_S),
    "thread/attachment/add": ("thread/attachment/updated", ANNOUNCED_WITHIN_S),
    "thread/section/move": ("thread/section/changed", 0.5),
    "account/logout": ("account/updated", ANNOUNCED_WITHIN_S),
    "thread/unsubscribe": ("thread/closed", 0.5),
    # 0.171.0 tells a goal set by a task of its own: after the fence in 1 run of 6.
    "thread/goal/set": ("thread/goal/updated", 0.5),
    # 0.171.0 tells a revert by a task of its own: after the fence in 1 run of 7.
    "thread/revert": ("thread/reverted", 0.5),
    # 0.171.0 clears a resumed thread's goal by a task of its own: its thread/goal/cleared
    # fell after the fence in 2 of 24 resumes of one run, 1 of 24 of another.
    "thread/resume": ("thread/goal/cleared", 0.5),
    "account/login/start": ("account/login/completed", AWAIT_AT_MOST_S),
    "externalAgentConfig/import": ("externalAgentConfig/import/completed", AWAIT_AT_MOST_S),
    "windowsSandbox/setupStart": ("windowsSandbox/setupCompleted", AWAIT_AT_MOST_S),
}


def waits_long(method: str) -> bool:
    """Whether a call of `method` may hold its lane up to AWAIT_AT_MOST_S for a notification
    (an import of no items, which 0.168.0 and 0.171.0 never complete)."""
    awaited = AWAITS.get(method)
    return awaited is not None and awaited[1] >= AWAIT_AT_MOST_S


# What follows the awaited notification where that one says the work succeeded, from a
# task of its own: awaited briefly too. A login's account/updated fell after the fence at
# 0.128.0 and 0.131.0 of a history, and was in the window at the releases around them.
FOLLOWED_BY: dict[str, tuple[str, float]] = {
    "account/login/completed": ("account/updated", ANNOUNCED_WITHIN_S),
}
# How long a call answered in flight may take to end the held turn before it is let go.
INTERRUPT_GRACE_S = 0.5
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
    notification_methods: frozenset[str] = frozenset()
    walk_checked: int = 0
    # Methods whose minimal call's awaited notification did not come (AWAITS): their
    # `with FIELD` calls wait for it briefly (an import of no items never completes).
    unheard_after_minimal: set[str] = field(default_factory=set)
    # Methods that went unanswered on a thread with no turn held, learnt by any lane of the
    # exploration (unanswered.py). A thread with a held turn keeps the full deadline: an
    # interrupt there is answered when the turn has ended.
    unanswered: Unanswered = field(default_factory=Unanswered)
    # Whether the release warns of a thread loaded with a `config` it does not know (None:
    # not yet asked on this lane): only a release that does is waited on for it.
    warns_of_config: bool | None = None
    # Told of each cell as it ends (the command's progress), and of the lane's transcript
    # when it ends.
    on_cell: Callable[[CellRecord], None] = lambda record: None
    on_end: Callable[[Transcript], None] = lambda transcript: None

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
        self.session.client.drain_notifications()  # nothing of it can have completed yet
        self.release(subject)
        with contextlib.suppress(NotificationTimeout):
            await self._completed(subject.thread)
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
        self.notification_methods = frozenset(self.validator.methods("server notification"))

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
            lay_out_removable(Path(str(params.get("path", ""))), session.home.workdir)
        if cell.kind == "approval":
            session.answer(APPROVAL_METHOD, cell.answer)
        session.client.drain_notifications()
        mark = len(session.transcript.entries)
        asked = len(self.outbound.asked)
        turnless = subject is None or not subject.held

        async def request(deadline: float) -> Any:
            return await session.request(method, params, timeout=deadline)

        try:
            if turnless:
                record.result = await self.unanswered.ask(method, request, CALL_DEADLINE_S)
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
            self.surprise(f"no answer within {applied:.0f} s", cell)
            if turnless:
                self.unanswered.add(method)
        subjects = {subject.thread} if subject else set()
        subjects |= _threads_named(record.result)
        if subject is not None:
            await self.settle(cell, subject, record, mark)
        if record.outcome == "answered" and cell.method in AWAITS:
            await self._awaited(cell, subjects, record)
        if record.outcome == "answered" and _loads_with_config(cell, params):
            await self._config_warning(subjects)
        if cell.kind == "approval":
            session.answer(APPROVAL_METHOD, DEFAULT_ANSWERS[APPROVAL_METHOD])
        await self.fence()
        record.outbound = self.outbound.asked[asked:]
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

    async def settle(self, cell: Cell, subject: Subject, record: CellRecord, mark: int) -> None:
        """Wait until the turns the cell started, or the one it let go on, have completed:
        as many turn/completed of its thread as turn/started since the cell began, and
        one more for a held turn it let go (counted, not paired: a review's turn/completed
        names another turn than its turn/started, 0.171.0)."""
        assert self.session is not None
        answered = record.outcome == "answered"
        try:
            if cell.state == IN_FLIGHT and cell.on_copy and subject.held:
                if answered:  # a refused call left the held turn as it was
                    await self._own_work(cell, subject)
                    await self._interrupted(subject)
                    if not self.held_turn_ended(subject):  # a call that interrupted it: not let go
                        self.release(subject)
                    try:
                        if cell.method not in UNHEARD:
                            await self._quiet({subject.thread}, mark, held=1)
                            said = self._said_since(mark)
                            if _queues_a_turn(cell, record, subject, said):
                                await self._next_turn(subject, mark)
                    finally:
                        # Let go, even where a wait above ran out: let_go would wait
                        # again for what was waited for here (a turn/start merged into
                        # the held turn, 0.121.0: 30 s more, for nothing).
                        subject.held = None
                return
            starts = cell.method in STARTS_TURN or cell.kind == "approval"
            if not answered or not starts:
                return
            # A detached review runs its turn on a thread of its own, which its answer names
            # (0.140.0: waited for on the call's thread, 10 s for a turn that ran elsewhere).
            threads = {subject.thread} | _threads_named(record.result)
            if await self._first_of(("turn/started", "error"), threads) == "error":
                return  # the work failed before any turn (a review of a folder without git)
            await self._quiet(threads, mark)
        except NotificationTimeout as timeout:
            deadline = TURN_START_DEADLINE_S if timeout.method != "turn/completed" else None
            record.unsettled = f"{timeout.method} did not come within " + (
                f"{deadline:.0f} s" if deadline is not None else f"{TURN_DEADLINE_S:.0f} s"
            )

    async def _first_of(self, methods: tuple[str, ...], threads: set[str]) -> str:
        """Which of `methods` about one of `threads` came first (within
        TURN_START_DEADLINE_S)."""
        wanted = {method: _about(threads) for method in methods}
        return await self._next_of(wanted, TURN_START_DEADLINE_S)

    async def _next_of(self, wanted: dict[str, NotificationPredicate], timeout: float) -> str:
        """Which of the notifications `wanted` (method -> what it must be) is buffered or
        comes first, within `timeout` (else NotificationTimeout, of the first method)."""
        assert self.session is not None
        client = self.session.client
        waits = {
            asyncio.ensure_future(
                client.wait_for_notification(method, matches, timeout=timeout, consume=False)
            ): method
            for method, matches in wanted.items()
        }
        try:
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for finished in done:
                if finished.exception() is None:
                    return waits[finished]
            raise NotificationTimeout(method=next(iter(wanted)), elapsed=timeout, stderr_tail="")
        finally:
            for wait in waits:
                wait.cancel()
            await asyncio.gather(*waits, return_exceptions=True)

    def _said_since(self, mark: int) -> list[dict[str, Any]]:
        """What codex sent since transcript entry `mark`."""
        assert self.session is not None
        return [
            e.message
            for e in self.session.transcript.entries[mark:]
            if e.direction == "recv" and isinstance(e.message, dict)
        ]

    async def _next_turn(self, subject: Subject, mark: int) -> None:
        """The turn a call queued behind the held one, started and completed."""
        assert self.session is not None
        held = subject.held
        await self.session.client.wait_for_notification(
            "turn/started",
            lambda n: thread_of(n) == subject.thread and turn_of(n) != held,
            timeout=TURN_START_DEADLINE_S,
            consume=False,
        )
        await self._quiet({subject.thread}, mark, held=1)

    async def _quiet(self, threads: set[str], mark: int, held: int = 0) -> None:
        """Until `threads` have as many turn/completed since `mark` as turn/started, plus
        `held`, or one of them was unloaded (within TURN_DEADLINE_S in all)."""
        try:
            async with asyncio.timeout(TURN_DEADLINE_S):
                await self._count_to_quiet(threads, mark, held)
        except TimeoutError:
            raise NotificationTimeout(
                method="turn/completed", elapsed=TURN_DEADLINE_S, stderr_tail=""
            ) from None

    async def _count_to_quiet(self, threads: set[str], mark: int, held: int) -> None:
        while True:
            said = self._said_since(mark)
            # An unloaded thread completes no turn after it: codex ends a held turn before it
            # unloads its thread, or drops it (0.120.0 to 0.131.0, archived in flight: then
            # a wait for its turn/completed ran out, 30 s a cell).
            if any(_unloads(message, threads) for message in said):
                return
            started = sum(1 for m in said if _turn_event(m, "turn/started", threads))
            completed = sum(1 for m in said if _turn_event(m, "turn/completed", threads))
            if completed >= started + held:
                return

            def another(note: Notification, seen: int = completed, mark: int = mark) -> bool:
                return thread_of(note) in threads and self._completions(mark, threads) > seen

            await self._next_of(
                {
                    "turn/completed": another,
                    "thread/status/changed": _unloaded_status(threads),
                    "thread/closed": _unloaded_status(threads),
                },
                TURN_DEADLINE_S,
            )

    def _completions(self, mark: int, threads: set[str]) -> int:
        return sum(1 for m in self._said_since(mark) if _turn_event(m, "turn/completed", threads))

    async def _awaited(self, cell: Cell, threads: set[str], record: CellRecord) -> None:
        """The notification that ends what the cell's call set going after its answer
        (AWAITS), about one of `threads` (the call's, and those its answer names), if
        any; briefly, for a `with FIELD` call of a method whose minimal call it did not
        end."""
        assert self.session is not None
        awaited, deadline = AWAITS[cell.method]
        if awaited not in self.notification_methods:
            return  # the release has no such notification: nothing to wait for
        if cell.variant.startswith(WITH) and cell.method in self.unheard_after_minimal:
            deadline = min(deadline, ANNOUNCED_WITHIN_S)
        try:
            ended = await self.session.client.wait_for_notification(
                awaited,
                lambda n: not threads or thread_of(n) in threads,
                timeout=deadline,
                consume=False,
            )
        except NotificationTimeout:
            if deadline >= AWAIT_AT_MOST_S:  # one that should have come: say so
                record.unsettled = f"{awaited} did not come within {deadline:.0f} s"
            if cell.variant == MINIMAL:
                self.unheard_after_minimal.add(cell.method)
            return
        follower = FOLLOWED_BY.get(awaited)
        succeeded = isinstance(ended.params, dict) and ended.params.get("success") is True
        if follower is not None and succeeded and follower[0] in self.notification_methods:
            with contextlib.suppress(NotificationTimeout):
                await self.session.client.wait_for_notification(
                    follower[0], lambda n: True, timeout=follower[1], consume=False
                )

    async def _config_warning(self, threads: set[str]) -> None:
        """The `warning` a thread loaded with settings codex does not know gets from a task
        of its own (`session-flags: explore is ignored`, 0.171.0): it fell after the fence
        in 1 of 10 self-diffs with codex on one CPU. Awaited briefly where the release gave
        one on this lane before, or where nothing on the lane has told yet whether it does."""
        assert self.session is not None
        if self.warns_of_config is False or "warning" not in self.notification_methods:
            return
        try:
            await self.session.client.wait_for_notification(
                "warning",
                lambda n: thread_of(n) in threads,
                timeout=ANNOUNCED_WITHIN_S,
                consume=False,
            )
        except NotificationTimeout:
            if self.warns_of_config is None:
                self.warns_of_config = False
            return
        self.warns_of_config = True

    async def _interrupted(self, subject: Subject) -> None:
        """Give a call that ends the held turn the time to end it (a compaction on 0.150.0
        does, after its answer: let go at once, the held answer streamed in 1 run of 2)."""
        assert self.session is not None
        held = subject.held
        with contextlib.suppress(NotificationTimeout):
            await self.session.client.wait_for_notification(
                "turn/completed",
                lambda n: thread_of(n) == subject.thread and turn_of(n) == held,
                timeout=INTERRUPT_GRACE_S,
                consume=False,
            )

    def held_turn_ended(self, subject: Subject) -> bool:
        """Whether the subject's held turn has completed already (the cell's call ended
        it, answered or refused)."""
        assert self.session is not None
        return any(
            note.method == "turn/completed"
            and thread_of(note) == subject.thread
            and turn_of(note) == subject.held
            for note in self.session.client.notifications
        )

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


def _queues_a_turn(
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


def _turn_event(message: dict[str, Any], method: str, threads: set[str]) -> bool:
    params = message.get("params")
    return (
        message.get("method") == method
        and "id" not in message
        and isinstance(params, dict)
        and params.get("threadId") in threads
    )


def _unloads(message: dict[str, Any], threads: set[str]) -> bool:
    """Whether `message` says one of `threads` is no longer loaded."""
    params = message.get("params")
    if "id" in message or not isinstance(params, dict) or params.get("threadId") not in threads:
        return False
    if message.get("method") == "thread/closed":
        return True
    status = params.get("status")
    return (
        message.get("method") == "thread/status/changed"
        and isinstance(status, dict)
        and status.get("type") == "notLoaded"
    )


def _unloaded_status(threads: set[str]) -> NotificationPredicate:
    return lambda note: _unloads({"method": note.method, "params": note.params}, threads)


def _about(threads: set[str]) -> NotificationPredicate:
    return lambda note: thread_of(note) in threads


def _loads_with_config(cell: Cell, params: Any) -> bool:
    """Whether the call loads a thread (starts one, forks one, resumes an unloaded one) with
    settings of its own (`config`)."""
    loads = cell.method in ("thread/start", "thread/fork") or (
        cell.method == "thread/resume" and cell.state == UNLOADED
    )
    config = params.get("config") if isinstance(params, dict) else None
    return loads and isinstance(config, dict) and bool(config)


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
