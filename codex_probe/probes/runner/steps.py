"""Run a scenario's steps on a backend and record what happened: the observation.

A scenario is an async function taking a `ScenarioRun`, whose methods are the steps
(`start`, `turn`, `begin_turn`, `finish_turn`, `steer`, `compact`, `resume`, `fork`,
`restart`, `read`, `unsubscribe`, `attempt`). Every step records which model requests the wiretap
saw while it ran, and the JSON-RPC transcript spans every process of the scenario
(restarts included).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_probe.harness.driver.params import start_turn_params, steer_turn_params
from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.harness.jsonrpc.errors import (
    JsonRpcError,
    NotificationTimeout,
    RequestTimeout,
    ServerError,
)
from codex_probe.harness.jsonrpc.framing import Notification
from codex_probe.probes.domain.observation import Observation, ScenarioBroken, StepRecord
from codex_probe.rig.backends import Backend
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.replies import Reply
from codex_probe.rig.session import Session, needed, thread_of
from codex_probe.rig.wiretap import Wiretap

STEP_TIMEOUT = 60.0
# How long an unsubscribed thread may take to close; releases that close it do so at once.
UNLOAD_DEADLINE_S = 0.5
# How long a thread started may take to be announced (`thread/started` follows the answer
# to thread/start at once): a scenario that ends or restarts right after would lose it.
ANNOUNCE_DEADLINE_S = 5.0
# How long a held answer waits for a release to drop it (it asks the model anew) before it
# is let go: the old fixed hold was 1.5 s.
RELEASE_GRACE_S = 1.5


@dataclass(frozen=True)
class Completion:
    """How long a turn (or compaction) waits for its turn/completed: once the `settled_by`
    item notification (method, item type) of its thread has come (within the step's
    deadline), `within` seconds more. Its silence is then recorded (`unanswered_within`)
    and the scenario goes on: a turn that never completes is an observation. Without one,
    a missing turn/completed breaks the scenario at the step's deadline."""

    settled_by: tuple[str, str]
    within: float


@dataclass(frozen=True)
class Requirement:
    """What a step's outcome rests on, read from the run (`reading.unmet_preconditions`):
    a finding of a run that does not show it is broken, with `what` as the reason."""

    what: str
    expression: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"what": self.what, "expression": self.expression}


class ScenarioRun:
    """The steps of one scenario, recorded on a `Session` (one backend, one isolated home)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.tap = session.tap
        self.home = session.home
        self.transcript = session.transcript
        self.steps: list[StepRecord] = []
        self.threads: dict[str, str] = {}  # label -> thread id
        # The index of the model request whose answer is held until finish_turn.
        self.held_request: int | None = None
        # The first model request of the turn begin_turn started, until finish_turn: every
        # model request after it is the turn's (finish_turn's), whichever step was under
        # way when it came (a steer makes some releases ask again at once).
        self.open_turn_request: int | None = None
        # The label of the step under way; it stays set when that step fails.
        self.in_progress: str | None = None

    @property
    def rpc(self) -> JsonRpcClient:
        if not self.session.running:
            raise RuntimeError("the scenario has no app-server running; call restart()")
        return self.session.client

    async def _step(
        self,
        name: str,
        label: str,
        params: dict[str, Any],
        action: Callable[[], Awaitable[Any]],
        *,
        expect_error: bool = False,
        silence_after: float | None = None,
        reply: Reply | None = None,
        settle: float | None = None,
        release_grace: float | None = None,
        replies: tuple[Reply, ...] = (),
        requires: tuple[Requirement, ...] = (),
        completion: Completion | None = None,
    ) -> StepRecord:
        record = StepRecord(name, label, params, reply=reply, silence_after=silence_after)
        record.settle = settle
        record.release_grace = release_grace
        record.replies = replies
        record.requires = [required.to_json() for required in requires]
        if completion is not None:
            record.settled_by, record.completion_within = completion.settled_by, completion.within
        self.in_progress = label
        self.tap.queue_replies(*record.queued)
        before = len(self.tap.requests)
        first_entry = len(self.transcript.entries)
        try:
            record.result = await action()
            if completion is not None and record.result.get("turn/completed") is None:
                record.unanswered_within = completion.within
        except ServerError as error:
            record.error = {"code": error.code, "message": error.message}
            if error.data is not None:
                record.error["data"] = error.data
            if not expect_error:
                raise
        except RequestTimeout:
            if silence_after is None:
                raise
            record.unanswered_within = silence_after
        finally:
            if name == "finish_turn" and self.open_turn_request is not None:
                before, self.open_turn_request = self.open_turn_request + 1, None
            elif self.open_turn_request is not None and name != "begin_turn":
                before = len(self.tap.requests)  # the open turn's: finish_turn takes them
            record.requests = [r.index for r in self.tap.requests[before:]]
            record.transcript_span = (first_entry, len(self.transcript.entries))
            self.steps.append(record)
        self.in_progress = None
        return record

    def observation(self, scenario: str) -> Observation:
        """What the run recorded so far (every process ended first: see `run_scenario`)."""
        backend = self.session.backend
        return Observation(
            scenario=scenario,
            backend=backend.kind,
            version=backend.version,
            steps=self.steps,
            requests=self.tap.requests,
            transcript=self.transcript,
            stderr_tail=self.session.stderr_tails()[-4000:],
            threads=dict(self.threads),
            answers=dict(self.tap.answers),
            home_config=dict(self.home.config),
            workdir=str(self.home.workdir),
            failed_step=self.in_progress,
            streamed={index: list(types) for index, types in self.tap.streamed.items()},
            abandoned=list(self.tap.abandoned),
        )

    # ----- steps -----------------------------------------------------------------

    async def restart(self, *, initialize: bool = True) -> None:
        """(Re)start the app-server process on the same home (a cold process).

        The step records both processes, so a probe can prove the restart happened: the old
        one has exited and the new one is another process.
        """
        before = self.session.processes[-1] if self.session.processes else None
        label = f"restart-{len(self.steps)}"
        self.in_progress = label
        first_entry = len(self.transcript.entries)
        await self.session.restart(initialize=initialize)
        result: dict[str, Any] = {"pid": self.session.processes[-1].pid}
        if before is not None:
            result["previous"] = {"pid": before.pid, "returncode": before.returncode}
        record = StepRecord("restart", label, {"initialize": initialize}, result=result)
        record.transcript_span = (first_entry, len(self.transcript.entries))
        self.steps.append(record)
        self.in_progress = None

    async def stop(self) -> None:
        await self.session.close_current()

    async def start(self, label: str, **fields: Any) -> str:
        params = {"cwd": str(self.home.workdir), **fields}
        record = await self._step(
            "start",
            label,
            params,
            lambda: self.rpc.request("thread/start", params, timeout=STEP_TIMEOUT),
        )
        thread_id: str = record.result["thread"]["id"]
        self.threads[label] = thread_id
        return thread_id

    async def turn(
        self,
        thread: str,
        text: str,
        label: str,
        *,
        reply: Reply | None = None,
        replies: tuple[Reply, ...] = (),
        settings: Mapping[str, Any] | None = None,
        completion: Completion | None = None,
        requires: tuple[Requirement, ...] = (),
        then: tuple[str, str] | None = None,
    ) -> StepRecord:
        """A turn: turn/start with the driver's params (and `settings`, such as another
        model), then its turn/completed (see `Completion` for one that may not come), then
        (`then`) the thread's notification (method, item type) that comes after its turn,
        such as the item of a command that outlived its call."""
        thread_id = self.threads[thread]
        params = {**needed(start_turn_params(text, thread_id), "a turn"), **(settings or {})}

        async def run_turn() -> Any:
            result = await self._run_turn(params, completion)
            if then is not None:
                result["then"] = await self._item_notice(thread_id, *then)
            return result

        record = await self._step(
            "turn",
            label,
            params,
            run_turn,
            reply=reply,
            replies=replies,
            requires=requires,
            completion=completion,
        )
        record.then = then
        return record

    async def _item_notice(self, thread_id: str, method: str, kind: str) -> Any:
        """The thread's next `method` notification of an item of `kind` (its params)."""

        def matches(note: Notification) -> bool:
            params = note.params if isinstance(note.params, dict) else {}
            item = params.get("item")
            return (
                thread_of(note) == thread_id
                and isinstance(item, dict)
                and (item.get("type") == kind)
            )

        return (await self.session.wait_for(method, matches)).params

    async def _run_turn(self, params: dict[str, Any], completion: Completion | None) -> Any:
        result = await self.rpc.request("turn/start", params, timeout=STEP_TIMEOUT)
        done = await self._completed(params["threadId"], completion)
        return {"turn/start": result, "turn/completed": done}

    async def _completed(self, thread_id: str, completion: Completion | None = None) -> Any:
        """The thread's next turn/completed; with `completion`, None if it did not come
        within `completion.within` seconds of its settling notification."""
        if completion is None:
            return await self.session.wait_thread_turn_completed(thread_id)
        await self._item_notice(thread_id, *completion.settled_by)
        try:
            note = await self.rpc.wait_for_notification(
                "turn/completed", lambda n: thread_of(n) == thread_id, timeout=completion.within
            )
        except NotificationTimeout:
            return None
        return note.params

    async def begin_turn(self, thread: str, text: str, label: str, reply: Reply) -> str:
        """Start a turn whose model answer is held back, and return its turn id."""
        params = needed(start_turn_params(text, self.threads[thread]), "a turn")
        before = len(self.tap.requests)

        async def start_and_wait() -> Any:
            result = await self.rpc.request("turn/start", params, timeout=STEP_TIMEOUT)
            # The turn is active for sure once its model request is waiting on the wiretap;
            # waiting inside the step also makes that request the step's, on every backend.
            await self.tap.wait_for_requests(before + 1, timeout=STEP_TIMEOUT)
            return result

        record = await self._step("begin_turn", label, params, start_and_wait, reply=reply)
        self.open_turn_request = before
        if reply.until_released:
            self.held_request = before
        turn_id: str = record.result["turn"]["id"]
        return turn_id

    async def finish_turn(self, thread: str, label: str) -> StepRecord:
        """Let a held answer go on, and wait for the thread's turn to complete.

        A release that drops the pending answer when a turn is steered or started into
        asks the model anew at once: that request is the event to wait for. A release that
        keeps the answer asks nothing until the answer is out, so after RELEASE_GRACE_S
        without a new request the answer is let go. Letting it go at once raced codex's
        handling of the steer (the fake kept the answer in 3 runs of 6).
        """
        thread_id = self.threads[thread]
        held, self.held_request = self.held_request, None

        async def release_and_complete() -> Any:
            if held is not None:
                with contextlib.suppress(TimeoutError):
                    await self.tap.wait_for_requests(held + 2, timeout=RELEASE_GRACE_S)
            self.tap.release_held()
            return await self._completed(thread_id)

        return await self._step(
            "finish_turn",
            label,
            {"threadId": thread_id},
            release_and_complete,
            release_grace=None if held is None else RELEASE_GRACE_S,
        )

    async def steer(
        self, thread: str, text: str, label: str, *, expected_turn_id: str
    ) -> StepRecord:
        params = needed(steer_turn_params(text, self.threads[thread], expected_turn_id), "a steer")
        return await self._step(
            "steer",
            label,
            params,
            lambda: self.rpc.request("turn/steer", params, timeout=STEP_TIMEOUT),
            expect_error=True,
        )

    async def compact(
        self,
        thread: str,
        label: str,
        *,
        completion: Completion | None = None,
        requires: tuple[Requirement, ...] = (),
    ) -> StepRecord:
        thread_id = self.threads[thread]

        async def compact_and_wait() -> Any:
            result = await self.rpc.request(
                "thread/compact/start", {"threadId": thread_id}, timeout=STEP_TIMEOUT
            )
            return {
                "thread/compact/start": result,
                "turn/completed": await self._completed(thread_id, completion),
            }

        return await self._step(
            "compact",
            label,
            {"threadId": thread_id},
            compact_and_wait,
            requires=requires,
            completion=completion,
        )

    async def resume(self, thread: str, label: str, **fields: Any) -> StepRecord:
        params = {"threadId": self.threads[thread], **fields}
        return await self._step(
            "resume",
            label,
            params,
            lambda: self.rpc.request("thread/resume", params, timeout=STEP_TIMEOUT),
        )

    async def fork(self, thread: str, label: str, new_thread: str, **fields: Any) -> StepRecord:
        """thread/fork of `thread` (with `fields`: new instructions, say); the fork is
        thread `new_thread` from then on."""
        params = {"threadId": self.threads[thread], **fields}
        record = await self._step(
            "fork",
            label,
            params,
            lambda: self.rpc.request("thread/fork", params, timeout=STEP_TIMEOUT),
        )
        self.threads[new_thread] = record.result["thread"]["id"]
        return record

    async def read(self, thread: str, label: str) -> StepRecord:
        params = {"threadId": self.threads[thread], "includeTurns": True}
        return await self._step(
            "read",
            label,
            params,
            lambda: self.rpc.request("thread/read", params, timeout=STEP_TIMEOUT),
        )

    async def unsubscribe(
        self, thread: str, label: str, *, settle: float = UNLOAD_DEADLINE_S
    ) -> StepRecord:
        """Unsubscribe, wait (up to `settle` s) for the thread's `thread/closed`, then ask
        whether it is still loaded.

        Measured: 0.120 unloads at once (thread/closed comes with the answer) and refuses a
        resume while "closing"; 0.121-0.134 and 0.171 keep the thread loaded and send no
        thread/closed. Waiting for the event keeps the next step's outcome deterministic.
        """
        thread_id = self.threads[thread]

        async def unsubscribe_and_settle() -> Any:
            result = await self.rpc.request(
                "thread/unsubscribe", {"threadId": thread_id}, timeout=STEP_TIMEOUT
            )
            with contextlib.suppress(NotificationTimeout):
                await self.rpc.wait_for_notification(
                    "thread/closed", lambda n: thread_of(n) == thread_id, timeout=settle
                )
            listed = await self.rpc.request("thread/loaded/list", {}, timeout=STEP_TIMEOUT)
            return {**result, "unloaded": thread_id not in listed.get("data", [])}

        return await self._step(
            "unsubscribe", label, {"threadId": thread_id}, unsubscribe_and_settle, settle=settle
        )

    async def attempt(
        self,
        method: str,
        params: dict[str, Any],
        label: str,
        *,
        deadline: float | None = None,
        announced: bool = False,
    ) -> StepRecord:
        """A request whose answer, a refusal included, is the observation (not a failure of
        the scenario). With `deadline`, silence is an answer too: no answer within `deadline`
        seconds is recorded as `unanswered_within` and the scenario goes on (the client sets
        a late answer aside, so the process stays usable). With `announced`, an answer that
        starts a thread is followed by its `thread/started` (up to ANNOUNCE_DEADLINE_S)
        before the step ends, so a scenario that stops the process next does not race it."""

        async def ask() -> Any:
            result = await self.rpc.request(method, params, timeout=deadline or STEP_TIMEOUT)
            thread = result.get("thread") if isinstance(result, dict) else None
            if announced and isinstance(thread, dict):
                with contextlib.suppress(NotificationTimeout):
                    await self.rpc.wait_for_notification(
                        "thread/started",
                        lambda n: thread_of(n) == thread.get("id"),
                        timeout=ANNOUNCE_DEADLINE_S,
                        consume=False,
                    )
            return result

        return await self._step(
            "attempt",
            label,
            {"method": method, **params},
            ask,
            expect_error=True,
            silence_after=deadline,
        )


Scenario = Callable[[ScenarioRun], Awaitable[None]]


async def run_scenario(
    name: str,
    scenario: Scenario,
    backend: Backend,
    *,
    work_dir: Path | None = None,
    home_options: Mapping[str, Any] | None = None,
) -> Observation:
    """Run `scenario` on `backend` in a fresh home with its own wiretap.

    A transport failure (hung or crashed server), or a refusal of a step that must not
    be refused, ends the scenario as ScenarioBroken: the probes turn it into `broken`
    findings, with this run's transcript and stderr attached.
    """
    async with Wiretap() as tap:
        home = IsolatedHome(tap.base_url, parent_dir=work_dir, **(home_options or {}))
        try:
            run = ScenarioRun(Session(backend, tap, home, timeout=STEP_TIMEOUT))
            try:
                await run.restart()
                await scenario(run)
            # A TimeoutError is the wiretap's: a step's model request never came.
            except (JsonRpcError, TimeoutError) as error:
                await run.stop()
                raise ScenarioBroken(name, error, run.observation(name)) from error
            finally:
                await run.stop()
            return run.observation(name)
        finally:
            # codex leaves hundreds of files; removing them on the loop stalled every other
            # scenario (1.25 s of a probe run), so a thread does it.
            await asyncio.to_thread(home.cleanup)
