"""What a check runs on: a backend, the wiretap, an isolated home and the processes it starts.

`CodexSession` starts app-server processes on one home (a restart is a new process
on the same CODEX_HOME), keeps one transcript per process, and ends every process
it started in `close()`, whatever happened. The helpers wait for notifications by
turn id, never "the next one", and every wait has a deadline.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from harness.jsonrpc.client import JsonRpcClient
from harness.jsonrpc.framing import Notification
from harness.jsonrpc.transcript import Transcript
from rig.backends import Backend
from rig.homes import IsolatedHome
from rig.wiretap import CapturedRequest, Reply, Wiretap

DEFAULT_TIMEOUT = 30.0
# A held model answer waits this long at most; closing the wiretap cuts it short.
HOLD_SECONDS = 300.0


@dataclass(frozen=True)
class Target:
    """One backend kind and one codex-cli version: what a parametrized check runs on."""

    kind: str
    version: str

    @property
    def label(self) -> str:
        return f"{self.kind}-{self.version}"


class Holds:
    """The wiretap's responder: holds back the answer to any model request that carries
    a live hold marker, so a turn stays active until the check interrupts it.

    A marker is live from `hold()` to `release()`; a request whose input carries only
    released markers (history) is answered at once.
    """

    def __init__(self) -> None:
        self._live: set[str] = set()

    def hold(self) -> str:
        marker = f"HOLD-{uuid.uuid4().hex}"
        self._live.add(marker)
        return marker

    def release(self, marker: str) -> None:
        self._live.discard(marker)

    def __call__(self, request: CapturedRequest) -> Reply:
        body = request.body_text or ""
        if any(marker in body for marker in self._live):
            return Reply(text="held answer", delay_s=HOLD_SECONDS)
        return Reply(text=f"wiretap reply {request.index}")


def text_input(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text, "text_elements": []}]


def thread_of(note: Notification) -> Any:
    params = note.params if isinstance(note.params, dict) else {}
    if "threadId" in params:
        return params["threadId"]
    thread = params.get("thread")
    return thread.get("id") if isinstance(thread, dict) else None


def turn_of(note: Notification) -> Any:
    params = note.params if isinstance(note.params, dict) else {}
    turn = params.get("turn")
    if isinstance(turn, dict):
        return turn.get("id")
    return params.get("turnId")


@dataclass
class ProcessRecord:
    """One app-server process a check started and everything said over its stdio."""

    transcript: Transcript
    client: JsonRpcClient
    returncode: int | None = None
    closed: bool = False


@dataclass
class CodexSession:
    backend: Backend
    tap: Wiretap
    home: IsolatedHome
    holds: Holds
    timeout: float = DEFAULT_TIMEOUT
    processes: list[ProcessRecord] = field(default_factory=list)
    # Client methods a check sends off-schema on purpose (an unknown method).
    off_schema_methods: set[str] = field(default_factory=set)

    @property
    def target(self) -> Target:
        return Target(self.backend.kind, self.backend.version)

    @property
    def client(self) -> JsonRpcClient:
        if not self.processes or self.processes[-1].closed:
            raise RuntimeError("no app-server process is open in this session")
        return self.processes[-1].client

    @property
    def workdir(self) -> str:
        return str(self.home.workdir)

    async def open(self, *, initialize: bool = True) -> JsonRpcClient:
        """A new process on this session's home (initialized unless asked not to)."""
        transcript = Transcript()
        client = await self.backend.open(self.home, transcript=transcript, initialize=initialize)
        self.processes.append(ProcessRecord(transcript, client))
        return client

    async def close_current(self) -> int | None:
        record = self.processes[-1]
        if not record.closed:
            record.closed = True
            record.returncode = await record.client.close()
        return record.returncode

    async def restart(self) -> JsonRpcClient:
        """End the current process (stdin first) and start another on the same home."""
        await self.close_current()
        return await self.open()

    async def close(self) -> None:
        """End every process this session started; never raises for one that is gone."""
        for record in self.processes:
            if not record.closed:
                record.closed = True
                with contextlib.suppress(Exception):
                    record.returncode = await record.client.close(grace=1.0)

    # ----- requests the checks share ---------------------------------------------------

    async def request(self, method: str, params: Any = None) -> Any:
        return await self.client.request(method, params, timeout=self.timeout)

    async def start_thread(self, **params: Any) -> dict[str, Any]:
        params.setdefault("cwd", self.workdir)
        result = await self.request("thread/start", params)
        thread: dict[str, Any] = result["thread"]
        return thread

    async def start_turn(self, thread_id: str, text: str) -> dict[str, Any]:
        """turn/start; returns the response's turn once its turn/started has arrived."""
        result = await self.request(
            "turn/start", {"threadId": thread_id, "input": text_input(text)}
        )
        turn: dict[str, Any] = result["turn"]
        await self.wait_turn("turn/started", turn["id"])
        return turn

    async def wait_turn(self, method: str, turn_id: str) -> dict[str, Any]:
        """The turn/started or turn/completed notification of `turn_id` (its params)."""
        note = await self.client.wait_for_notification(
            method, lambda n: turn_of(n) == turn_id, timeout=self.timeout
        )
        params: dict[str, Any] = note.params
        return params

    async def run_turn(self, thread_id: str, text: str) -> dict[str, Any]:
        """A whole turn: start it, wait for its turn/completed; returns the completed turn."""
        turn = await self.start_turn(thread_id, text)
        completed: dict[str, Any] = (await self.wait_turn("turn/completed", turn["id"]))["turn"]
        return completed

    async def compact(self, thread_id: str, known: set[str]) -> tuple[Any, dict[str, Any]]:
        """thread/compact/start, then its turn (the first turn/started of the thread whose id
        is not in `known`) to completion; returns the response and the completed turn."""
        answer = await self.request("thread/compact/start", {"threadId": thread_id})
        started = await self.client.wait_for_notification(
            "turn/started",
            lambda n: thread_of(n) == thread_id and turn_of(n) not in known,
            timeout=self.timeout,
        )
        turn: dict[str, Any] = (await self.wait_turn("turn/completed", turn_of(started)))["turn"]
        return answer, turn

    async def hold_turn(
        self, thread_id: str, text: str = "held turn"
    ) -> tuple[dict[str, Any], str]:
        """A turn whose model answer is held back: active until interrupted."""
        marker = self.holds.hold()
        try:
            turn = await self.start_turn(thread_id, f"{text} {marker}")
        except BaseException:
            self.holds.release(marker)
            raise
        return turn, marker

    def model_bodies(self) -> list[str]:
        """Every model request body the wiretap captured, as text, in arrival order."""
        return [r.body_text or json.dumps(r.body) for r in self.tap.model_requests()]
