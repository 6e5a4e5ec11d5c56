"""What a lane waits for after a cell's call, so that what the call caused falls inside its
window and nothing of it lands in the next call's (lane.py: a cell lasts from its request
to a fence sent after all this).

- **A turn's end** (`settle`): a call that starts turns lasts until as many turn/completed
  of its threads have come as turn/started, counted, not paired; a call answered while a
  turn is held (in flight) first gets its own work inside that turn done, then the held
  answer is let go, and lasts until that turn, and a turn it queued behind it, completed.
  A thread reported unloaded (or closed) completes no turn after it: the wait ends there.
- **What a call set going** (`after_answer`): the notification that ends it (AWAITS), and
  the one that follows it where it says the work succeeded (FOLLOWED_BY), each within its
  deadline; and the warning of a thread loaded with settings codex does not know.

Each deadline and why it is what it is stands beside it; what a lane learns of the release
(a minimal call whose awaited notification did not come, whether the release warns of
settings) shortens its later waits.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from codex_probe.fake_appserver.answer_book import WITH
from codex_probe.harness.jsonrpc.client import NotificationPredicate
from codex_probe.harness.jsonrpc.errors import NotificationTimeout
from codex_probe.harness.jsonrpc.framing import Notification
from codex_probe.probes.explore.methods import STARTS_TURN
from codex_probe.probes.explore.plan import MINIMAL, Cell
from codex_probe.probes.explore.record import CellRecord
from codex_probe.probes.explore.states import IN_FLIGHT, Subject
from codex_probe.probes.explore.thread_events import (
    about,
    command_item,
    completes,
    loads_with_config,
    queues_a_turn,
    status_type,
    threads_named,
    turn_event,
    unloaded_status,
    unloads,
)
from codex_probe.rig.session import Session, thread_of, turn_of

TURN_START_DEADLINE_S = 10.0
TURN_DEADLINE_S = 30.0
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
# An approved command's item/completed, once its turn has completed (it came in the window
# at every release of a whole history but where it came after the fence).
COMMAND_COMPLETED_WITHIN_S = AWAIT_AT_MOST_S
# An announcement every answered call of its method made (measured on 0.150.0 and 0.171.0).
ANNOUNCED_WITHIN_S = 2.0
# An import of no items completes in 2 to 3 ms where a release completes it (0.120.0,
# 0.121.0) and never where it does not (0.122.0 to 0.171.0, 10 s each, a whole history):
# a wait of AWAIT_AT_MOST_S held the lane 10 s a release for nothing.
IMPORT_COMPLETED_WITHIN_S = 4.0
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
    "externalAgentConfig/import": (
        "externalAgentConfig/import/completed",
        IMPORT_COMPLETED_WITHIN_S,
    ),
    "windowsSandbox/setupStart": ("windowsSandbox/setupCompleted", AWAIT_AT_MOST_S),
}


def waits_long(method: str) -> bool:
    """Whether a call of `method` may hold its lane longer than an announcement takes for a
    notification that should come (an import of no items, which 0.122.0 to 0.171.0 never
    complete)."""
    awaited = AWAITS.get(method)
    return awaited is not None and awaited[1] > ANNOUNCED_WITHIN_S


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


@dataclass
class Waits:
    """One lane's waits: on its current app-server (`session_now()`: a restart makes another),
    letting a held turn go with the lane's `release`, and what the lane learnt of the
    release that shortens them."""

    session_now: Callable[[], Session]
    release: Callable[[Subject], None]
    notification_methods: frozenset[str]
    # Methods whose minimal call's awaited notification did not come (AWAITS): their
    # `with FIELD` calls wait for it briefly (an import of no items never completes).
    unheard_after_minimal: set[str] = field(default_factory=set)
    # Whether the release warns of a thread loaded with a `config` it does not know (None:
    # not yet asked on this lane): only a release that does is waited on for it.
    warns_of_config: bool | None = None

    @property
    def session(self) -> Session:
        return self.session_now()

    async def after_answer(
        self, cell: Cell, params: Any, threads: set[str], record: CellRecord
    ) -> None:
        """What an answered call set going, about `threads`, awaited (see the module)."""
        if cell.method in AWAITS:
            await self._awaited(cell, threads, record)
        if loads_with_config(cell, params):
            await self._config_warning(threads)

    def waits_after_answer(self, cell: Cell, params: Any) -> bool:
        """Whether `after_answer` may wait for anything after this cell's answer."""
        return cell.method in AWAITS or loads_with_config(cell, params)

    async def settle(self, cell: Cell, subject: Subject, record: CellRecord, mark: int) -> None:
        """Wait until the turns the cell started, or the one it let go on, have completed:
        as many turn/completed of its thread as turn/started since the cell began, and
        one more for a held turn it let go (counted, not paired: a review's turn/completed
        names another turn than its turn/started, 0.171.0)."""
        answered = record.outcome == "answered"
        try:
            if cell.state == IN_FLIGHT and cell.on_copy and subject.held:
                if answered:  # a refused call left the held turn as it was
                    await self._own_work(cell, subject)
                    await self._interrupted(subject)
                    if not self.held_turn_ended(subject):  # a call that interrupted it: not let go
                        self.release(subject)
                        if cell.method in UNHEARD:
                            await self._status_after_release(subject)
                    try:
                        if cell.method not in UNHEARD:
                            await self._quiet({subject.thread}, mark, held=1)
                            said = self._said_since(mark)
                            if queues_a_turn(cell, record, subject, said):
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
            threads = {subject.thread} | threads_named(record.result)
            if await self._first_of(("turn/started", "error"), threads) == "error":
                return  # the work failed before any turn (a review of a folder without git)
            await self._quiet(threads, mark)
            await self._commands_completed(threads, mark, record)
        except NotificationTimeout as timeout:
            deadline = TURN_START_DEADLINE_S if timeout.method != "turn/completed" else None
            record.unsettled = f"{timeout.method} did not come within " + (
                f"{deadline:.0f} s" if deadline is not None else f"{TURN_DEADLINE_S:.0f} s"
            )

    async def _first_of(self, methods: tuple[str, ...], threads: set[str]) -> str:
        """Which of `methods` about one of `threads` came first (within
        TURN_START_DEADLINE_S)."""
        wanted = {method: about(threads) for method in methods}
        return await self._next_of(wanted, TURN_START_DEADLINE_S)

    async def _next_of(self, wanted: dict[str, NotificationPredicate], timeout: float) -> str:
        """Which of the notifications `wanted` (method -> what it must be) is buffered or
        comes first, within `timeout` (else NotificationTimeout, of the first method)."""
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
        return [
            e.message
            for e in self.session.transcript.entries[mark:]
            if e.direction == "recv" and isinstance(e.message, dict)
        ]

    async def _next_turn(self, subject: Subject, mark: int) -> None:
        """The turn a call queued behind the held one, started and completed."""
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
            if any(unloads(message, threads) for message in said):
                return
            started = sum(1 for m in said if turn_event(m, "turn/started", threads))
            completed = sum(1 for m in said if turn_event(m, "turn/completed", threads))
            if completed >= started + held:
                return

            def another(note: Notification, seen: int = completed, mark: int = mark) -> bool:
                return thread_of(note) in threads and self._completions(mark, threads) > seen

            await self._next_of(
                {
                    "turn/completed": another,
                    "thread/status/changed": unloaded_status(threads),
                    "thread/closed": unloaded_status(threads),
                },
                TURN_DEADLINE_S,
            )

    async def _commands_completed(self, threads: set[str], mark: int, record: CellRecord) -> None:
        """Until each command item started on `threads` since `mark` has its item/completed
        (within COMMAND_COMPLETED_WITHIN_S): an approved command's completion comes from the
        task that watched the command, after the turn's end at times (source
        `unifiedExecStartup`: after the fence at 0.122.0 to 0.130.0 of a whole history)."""
        said = self._said_since(mark)
        started = {command_item(m, "item/started", threads) for m in said}
        ended = {command_item(m, "item/completed", threads) for m in said}
        for item in sorted(each for each in started - ended if each is not None):
            try:
                await self.session.client.wait_for_notification(
                    "item/completed",
                    completes(item, threads),
                    timeout=COMMAND_COMPLETED_WITHIN_S,
                    consume=False,
                )
            except NotificationTimeout:
                record.unsettled = (
                    "item/completed of a command it started did not come within "
                    f"{COMMAND_COMPLETED_WITHIN_S:.0f} s"
                )
                return

    def _completions(self, mark: int, threads: set[str]) -> int:
        return sum(1 for m in self._said_since(mark) if turn_event(m, "turn/completed", threads))

    async def _awaited(self, cell: Cell, threads: set[str], record: CellRecord) -> None:
        """The notification that ends what the cell's call set going after its answer
        (AWAITS), about one of `threads` (the call's, and those its answer names), if
        any; briefly, for a `with FIELD` call of a method whose minimal call it did not
        end."""
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
            if deadline > ANNOUNCED_WITHIN_S:  # one that should have come: say so
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
        held = subject.held
        with contextlib.suppress(NotificationTimeout):
            await self.session.client.wait_for_notification(
                "turn/completed",
                lambda n: thread_of(n) == subject.thread and turn_of(n) == held,
                timeout=INTERRUPT_GRACE_S,
                consume=False,
            )

    async def _status_after_release(self, subject: Subject) -> None:
        """After a call that leaves the connection deaf to the thread's turns (UNHEARD), the
        let-go turn's end is still told by the thread's status: 0.121.0 to 0.171.0 say
        `idle` once it has ended (75 of 75 releases of a history), and it fell after the
        fence in 1 of 3 whole histories, at 0.145.0. Awaited briefly, so that it falls in
        the cell's window; one said before the release (0.120.0 unloads the thread) counts."""
        with contextlib.suppress(NotificationTimeout):
            await self.session.client.wait_for_notification(
                "thread/status/changed",
                lambda n: thread_of(n) == subject.thread and status_type(n.params) != "active",
                timeout=ANNOUNCED_WITHIN_S,
                consume=False,
            )

    def held_turn_ended(self, subject: Subject) -> bool:
        """Whether the subject's held turn has completed already (the cell's call ended
        it, answered or refused)."""
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

    async def completed(self, thread: str) -> None:
        """The first turn/completed of `thread` since the cell began."""
        await self.session.client.wait_for_notification(
            "turn/completed",
            lambda n: thread_of(n) == thread,
            timeout=TURN_DEADLINE_S,
            consume=False,
        )
