"""The one way to drive an app-server: a backend's processes on one isolated home.

`Session` starts app-server processes on one home (a restart is a new process on the same
CODEX_HOME), keeps one transcript that spans every process, and ends every process it
started in `close()`, whatever happened. Its requests are built by the reference driver's
own param builders (`harness.driver.params`), so a probe or a conformance check sends
exactly the wire the driver sends. Waits are for notifications of a given thread or turn,
never "the next one", and every wait has a deadline.

Requests codex sends the client (approvals, questions, dynamic tool calls) are answered
as the session's `AnswerPolicy` says (`rig/answers.py`: the scenario's answer per method,
else one that lets codex go on without granting anything); each is in the transcript
with its answer.

Probe scenarios record their steps on top of it (`probes.scenario.ScenarioRun`); the
conformance checks use it directly.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from codex_probe.harness.driver.params import start_turn_params, steer_turn_params
from codex_probe.harness.jsonrpc.client import JsonRpcClient, NotificationPredicate
from codex_probe.harness.jsonrpc.errors import NotificationTimeout, RequestTimeout, ServerError
from codex_probe.harness.jsonrpc.framing import Notification
from codex_probe.harness.jsonrpc.transcript import Direction, Transcript, TranscriptEntry
from codex_probe.rig.answers import AnswerPolicy
from codex_probe.rig.backends import Backend
from codex_probe.rig.defaults import DEFAULT_TIMEOUT
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import Wiretap

# How much of what was said a deadline that ran out recounts.
RECOUNTED = 8


def thread_of(note: Notification) -> Any:
    """The thread id a notification is about (`threadId`, or `thread.id`)."""
    params = note.params if isinstance(note.params, dict) else {}
    if "threadId" in params:
        return params["threadId"]
    thread = params.get("thread")
    return thread.get("id") if isinstance(thread, dict) else None


def turn_of(note: Notification) -> Any:
    """The turn id a notification is about (`turn.id`, or `turnId`)."""
    params = note.params if isinstance(note.params, dict) else {}
    turn = params.get("turn")
    if isinstance(turn, dict):
        return turn.get("id")
    return params.get("turnId")


@dataclass
class AppServerProcess:
    """One app-server process of a session and its part of the session's transcript."""

    client: JsonRpcClient
    transcript: Transcript
    first_entry: int
    end_entry: int | None = None  # set when the process is closed
    returncode: int | None = None
    closed: bool = False
    stderr_tail: str = ""

    @property
    def pid(self) -> int:
        return self.client.server.pid

    @property
    def entries(self) -> list[TranscriptEntry]:
        """What was said over this process's stdio, in order."""
        return self.transcript.entries[self.first_entry : self.end_entry]

    def messages(self, direction: Direction | None = None) -> list[Any]:
        return [e.message for e in self.entries if direction is None or e.direction == direction]


@dataclass
class Session:
    backend: Backend
    tap: Wiretap
    home: IsolatedHome
    timeout: float = DEFAULT_TIMEOUT
    transcript: Transcript = field(default_factory=Transcript)
    processes: list[AppServerProcess] = field(default_factory=list)
    # Client methods sent off-schema on purpose (an unknown method), for the wire checks.
    off_schema_methods: set[str] = field(default_factory=set)
    # How requests from codex (approvals and the like) are answered, and which were.
    answers: AnswerPolicy = field(default_factory=AnswerPolicy)

    @property
    def client(self) -> JsonRpcClient:
        if not self.processes or self.processes[-1].closed:
            raise RuntimeError("no app-server process is running in this session")
        return self.processes[-1].client

    @property
    def running(self) -> bool:
        return bool(self.processes) and not self.processes[-1].closed

    @property
    def workdir(self) -> str:
        return str(self.home.workdir)

    # ----- processes --------------------------------------------------------------------

    async def open(self, *, initialize: bool = True) -> JsonRpcClient:
        """A new process on this session's home (initialized unless asked not to)."""
        first_entry = len(self.transcript.entries)
        client = await self.backend.open(
            self.home, transcript=self.transcript, initialize=initialize
        )
        # Before any turn can start: codex asks its client only while a turn runs.
        for method in self.answers.methods():
            client.on_request(method, self.answers.handler(method, len(self.processes)))
        self.processes.append(AppServerProcess(client, self.transcript, first_entry))
        return client

    async def close_current(self, *, grace: float = 2.0) -> int | None:
        """End the running process: stdin first, then the process group's signals."""
        if not self.processes:
            return None
        process = self.processes[-1]
        if not process.closed:
            process.closed = True
            try:
                process.returncode = await process.client.close(grace=grace)
            finally:
                process.end_entry = len(self.transcript.entries)
                process.stderr_tail = process.client.stderr_tail()
        return process.returncode

    def answer(self, method: str, answer: Any) -> None:
        """Answer codex's `method` requests with `answer` (a result, or a function of the
        params returning one) from now on, in this process and the next."""
        self.answers.answers[method] = answer
        if self.running:
            self.client.on_request(method, self.answers.handler(method, len(self.processes) - 1))

    async def restart(self, *, initialize: bool = True) -> JsonRpcClient:
        """End the current process and start another on the same home (a cold process)."""
        await self.close_current()
        return await self.open(initialize=initialize)

    async def close(self) -> None:
        """End every process this session started; never raises for one that is gone."""
        for process in self.processes:
            if not process.closed:
                process.closed = True
                with contextlib.suppress(Exception):
                    process.returncode = await process.client.close(grace=1.0)
                process.end_entry = len(self.transcript.entries)
                process.stderr_tail = process.client.stderr_tail()

    def stderr_tails(self) -> str:
        """The stderr tail of every ended process, oldest first."""
        return "\n".join(p.stderr_tail for p in self.processes if p.stderr_tail)

    # ----- requests ---------------------------------------------------------------------

    async def request(
        self, method: str, params: Any = None, *, timeout: float | None = None
    ) -> Any:
        with self.recounted_on_timeout():
            return await self.client.request(method, params, timeout=timeout or self.timeout)

    async def call(self, method: str, params: Any = None) -> dict[str, Any]:
        """`{"result": ...}` or `{"error": {"code", "message", "data"}}`: for a caller to
        whom a refusal is an answer to record; transport failures still raise."""
        try:
            return {"result": await self.request(method, params)}
        except ServerError as error:
            return {"error": {"code": error.code, "message": error.message, "data": error.data}}

    async def start_thread(self, **params: Any) -> dict[str, Any]:
        """thread/start with exactly `params` (plus this home's `cwd`); returns the thread."""
        params.setdefault("cwd", self.workdir)
        result = await self.request("thread/start", params)
        thread: dict[str, Any] = result["thread"]
        return thread

    async def start_turn(self, thread_id: str, text: str) -> dict[str, Any]:
        """turn/start with the driver's params; returns the response's turn once its
        turn/started has arrived."""
        result = await self.request(
            "turn/start", needed(start_turn_params(text, thread_id), "a turn")
        )
        turn: dict[str, Any] = result["turn"]
        await self.wait_turn("turn/started", turn["id"])
        return turn

    async def steer(self, thread_id: str, text: str, turn_id: str) -> Any:
        """turn/steer into `turn_id` with the driver's params."""
        return await self.request(
            "turn/steer", needed(steer_turn_params(text, thread_id, turn_id), "a steer")
        )

    async def wait_for(self, method: str, predicate: NotificationPredicate) -> Notification:
        """The first notification of `method` matching `predicate`, within the session's
        deadline (recounted if it runs out)."""
        with self.recounted_on_timeout():
            return await self.client.wait_for_notification(method, predicate, timeout=self.timeout)

    async def release_on(
        self, method: str, predicate: NotificationPredicate | None = None
    ) -> Notification:
        """Let the wiretap's held answers go on once a `method` notification (matching
        `predicate`) has arrived, within the session's deadline. The notification stays
        buffered for the waits that follow."""
        with self.recounted_on_timeout():
            note = await self.client.wait_for_notification(
                method, predicate, timeout=self.timeout, consume=False
            )
        self.tap.release_held()
        return note

    async def wait_turn(self, method: str, turn_id: str) -> dict[str, Any]:
        """The turn/started or turn/completed notification of `turn_id` (its params)."""
        note = await self.wait_for(method, lambda n: turn_of(n) == turn_id)
        params: dict[str, Any] = note.params
        return params

    async def wait_thread(self, method: str, thread_id: str) -> dict[str, Any]:
        """The next `method` notification of `thread_id` (thread/started, thread/closed,
        turn/completed...): its params."""
        note = await self.wait_for(method, lambda n: thread_of(n) == thread_id)
        params: dict[str, Any] = note.params
        return params

    async def wait_thread_turn_completed(self, thread_id: str) -> dict[str, Any]:
        """The next turn/completed of `thread_id` (its params)."""
        return await self.wait_thread("turn/completed", thread_id)

    async def run_turn(self, thread_id: str, text: str) -> dict[str, Any]:
        """A whole turn: start it, wait for its turn/completed; returns the completed turn."""
        turn = await self.start_turn(thread_id, text)
        completed: dict[str, Any] = (await self.wait_turn("turn/completed", turn["id"]))["turn"]
        return completed

    async def compact(self, thread_id: str, known: set[str]) -> tuple[Any, dict[str, Any]]:
        """thread/compact/start, then its turn (the first turn/started of the thread whose id
        is not in `known`) to completion; returns the response and the completed turn."""
        answer = await self.request("thread/compact/start", {"threadId": thread_id})
        started = await self.wait_for(
            "turn/started", lambda n: thread_of(n) == thread_id and turn_of(n) not in known
        )
        turn: dict[str, Any] = (await self.wait_turn("turn/completed", turn_of(started)))["turn"]
        return answer, turn

    @contextlib.contextmanager
    def recounted_on_timeout(self) -> Iterator[None]:
        """A deadline that runs out tells what the wiretap and the server had said by then.
        Whether codex called the model at all is the first question about a turn that
        never completes, and a CI log is often all there is to answer it from."""
        try:
            yield
        except (NotificationTimeout, RequestTimeout) as error:
            error.add_note(self.recount())
            raise

    def recount(self) -> str:
        """The wiretap's requests and the current process's last messages, in short."""
        requests = self.tap.requests
        models = sum(1 for r in requests if r.is_model_request)
        heard = ", ".join(f"{r.method} {r.path}" for r in requests[-RECOUNTED:])
        said = [
            _in_short(entry.message)
            for entry in (self.processes[-1].entries if self.processes else [])
            if entry.direction == "recv"
        ][-RECOUNTED:]
        return (
            f"by then the wiretap had {len(requests)} request(s), {models} to the model"
            + (f" (last: {heard})" if heard else "")
            + f"; the server's last messages: {', '.join(said) or 'none'}"
        )

    def model_bodies(self) -> list[str]:
        """Every model request body the wiretap captured, as text, in arrival order."""
        return [r.body_text or json.dumps(r.body) for r in self.tap.model_requests()]


def _in_short(message: Any) -> str:
    """A server message as a word or two: its method, or which request it answers."""
    if not isinstance(message, dict):
        return "(not an object)"
    if "method" in message:
        return str(message["method"])
    if "error" in message:
        return f"error for {message.get('id')}"
    return f"answer to {message.get('id')}"


def needed(params: dict[str, Any] | None, what: str) -> dict[str, Any]:
    """The params a driver builder gave; a probe that asks for none (no thread, blank text)
    is a mistake of the probe, not an input the driver would skip."""
    if params is None:
        raise ValueError(f"{what} needs a thread id and non-blank text")
    return params
