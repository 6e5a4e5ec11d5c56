"""CodexAppServerDriver: transports what the compiler and dispatcher decided (spec 4.6, 4.7).

It owns no prompt policy. It picks `fresh_prompt` or `resume_prompt` by what actually
happened to the session, and its fallback rule is the one the spec pins:

* at most one fallback to a fresh thread per prepare, and only when the server
  explicitly answered invalid/not found (see refusals.py) to `thread/resume` or to
  the first direct delivery after it;
* a transport failure (timeout, closed pipe, crash) has an unknown outcome: fail
  closed, never replay the input on a new thread;
* every fresh thread, the fallback one included, carries the current instructions.
"""

from __future__ import annotations

from typing import Any

from codex_probe.harness.dispatcher import StartConfig
from codex_probe.harness.driver.inbox import ContinuationInbox
from codex_probe.harness.driver.params import (
    TurnRequest,
    start_turn_params,
    steer_turn_params,
    text_input,
    thread_resume_params,
    thread_start_params,
)
from codex_probe.harness.driver.records import (
    Delivery,
    DeliveryOutcomeUnknown,
    DeliveryStatus,
    FallbackReason,
    InitialThread,
    Outcome,
    PrepareFailed,
    PreparePath,
    SentRequest,
    UnexpectedAnswer,
)
from codex_probe.harness.driver.refusals import (
    SteerRefusal,
    other_active_turn,
    steer_refusal,
    thread_refusal,
)
from codex_probe.harness.driver.sandbox import SandboxSettings, sandbox_settings
from codex_probe.harness.jsonrpc.client import JsonRpcClient
from codex_probe.harness.jsonrpc.errors import ServerError, TransportError
from codex_probe.harness.jsonrpc.framing import Notification

DEFAULT_REQUEST_TIMEOUT = 60.0


class CodexAppServerDriver:
    """One agent's driver over an initialized app-server client."""

    def __init__(
        self,
        client: JsonRpcClient,
        *,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        sandbox: SandboxSettings | None = None,
    ) -> None:
        self.client = client
        self.request_timeout = request_timeout
        self.requests: list[SentRequest] = []  # everything this driver sent, in order
        self.inbox = ContinuationInbox()
        self._active_turns: dict[str, str] = {}  # thread id -> the turn we believe active
        # The sandbox of the config being prepared, made once per prepare, or handed in
        # once for every prepare (drive_once gives the settings it started the server with).
        self._given_sandbox = sandbox
        self._sandbox: SandboxSettings | None = sandbox
        self._recording: InitialThread | None = None

    def _turn_policy(self) -> dict[str, Any] | None:
        """turn/start's sandboxPolicy: the prepared config's (none before a prepare)."""
        return None if self._sandbox is None else self._sandbox.turn_sandbox_policy

    # ----- requests ------------------------------------------------------------------

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        try:
            result = await self.client.request(method, params, timeout=self.request_timeout)
        except ServerError as error:
            self._log(SentRequest(method, params, Outcome.REFUSED, error.code, error.message))
            raise
        except TransportError as error:
            self._log(SentRequest(method, params, Outcome.UNKNOWN, None, error.summary))
            raise
        self._log(SentRequest(method, params, Outcome.OK))
        return result

    def _failed_method(self, request: TurnRequest) -> str:
        """The method whose outcome is unknown: the turn/start after a refused steer
        (the steer race), not the steer, when that is where the transport failed."""
        return self.requests[-1].method if self.requests else request.method

    def _log(self, sent: SentRequest) -> None:
        self.requests.append(sent)
        if self._recording is not None:
            self._recording.requests.append(sent)

    # ----- threads -------------------------------------------------------------------

    async def start_thread(self, config: StartConfig) -> str:
        """thread/start with the current instructions; the new thread's id."""
        result = await self._request("thread/start", thread_start_params(config, self._sandbox))
        thread_id = _dig(result, "thread", "id")
        if not isinstance(thread_id, str) or not thread_id:
            raise UnexpectedAnswer(f"thread/start answered without a thread id: {result!r}")
        return thread_id

    async def resume_thread(self, config: StartConfig, thread_id: str) -> str | None:
        """thread/resume with the current instructions; the id of a turn still running."""
        params = thread_resume_params(config, thread_id, self._sandbox)
        result = await self._request("thread/resume", params)
        turns = _dig(result, "thread", "turns")
        active = [
            turn["id"]
            for turn in (turns if isinstance(turns, list) else [])
            if isinstance(turn, dict) and turn.get("status") == "inProgress"
        ]
        if active:
            self._active_turns[thread_id] = str(active[-1])
        else:
            self._active_turns.pop(thread_id, None)
        return self._active_turns.get(thread_id)

    async def prepare_initial_thread(self, config: StartConfig) -> InitialThread:
        """Start or resume the session's thread and deliver its first turn input.

        No session id: a fresh thread with `fresh_prompt`. A session id: resume, then
        `resume_prompt` straight to it, or one fallback to a fresh thread with
        `fresh_prompt`. Raises PrepareFailed (carrying the record) on anything else.
        """
        # Before anything is sent: a bad permissionMode or workDir stops here.
        self._sandbox = self._given_sandbox or sandbox_settings(
            config.permission_mode, config.work_dir
        )
        record = InitialThread(session_id=config.session_id.strip())
        self._recording = record
        try:
            await self._prepare(config, record)
        finally:
            self._recording = None
        return record

    async def _prepare(self, config: StartConfig, record: InitialThread) -> None:
        if not record.session_id:
            record.path = PreparePath.FRESH
            await self._start_fresh_thread_for_initial_turn(config, record)
            return
        try:
            await self.resume_thread(config, record.session_id)
        except ServerError as error:
            await self._fall_back_or_fail(config, record, error)
            return
        except TransportError as error:
            raise _failed(record, error) from error
        record.path = PreparePath.RESUME
        record.thread_id = record.session_id
        request = self.resolve_turn_request_for_direct_delivery(
            config.resume_prompt, record.thread_id
        )
        if request is None:
            record.delivery = _skipped(record.thread_id, config.resume_prompt)
            return
        try:
            record.delivery = await self._deliver(record.thread_id, config.resume_prompt, request)
        except ServerError as error:
            record.delivery = _undelivered(
                record.thread_id, config.resume_prompt, error.method, error.message
            )
            await self._fall_back_or_fail(config, record, error)
        except TransportError as error:
            record.delivery = _unknown(
                record.thread_id, config.resume_prompt, self._failed_method(request)
            )
            raise _failed(record, error) from error

    async def _fall_back_or_fail(
        self, config: StartConfig, record: InitialThread, error: ServerError
    ) -> None:
        refusal = thread_refusal(error)
        if refusal is None:
            raise _failed(record, error) from error
        record.path = PreparePath.FALLBACK
        record.fallback_reason = FallbackReason(error.method, refusal, error.code, error.message)
        record.thread_id = ""
        record.delivery = None
        # The one fallback: whatever happens on the new thread is final.
        await self._start_fresh_thread_for_initial_turn(config, record)

    async def _start_fresh_thread_for_initial_turn(
        self, config: StartConfig, record: InitialThread
    ) -> None:
        try:
            record.thread_id = await self.start_thread(config)
        except (ServerError, TransportError, UnexpectedAnswer) as error:
            raise _failed(record, error) from error
        params = start_turn_params(config.fresh_prompt, record.thread_id, self._turn_policy())
        if params is None:
            record.delivery = _skipped(record.thread_id, config.fresh_prompt)
            return
        request = TurnRequest("turn/start", params)
        try:
            record.delivery = await self._deliver(record.thread_id, config.fresh_prompt, request)
        except ServerError as error:
            record.delivery = _undelivered(
                record.thread_id, config.fresh_prompt, error.method, error.message
            )
            raise _failed(record, error) from error
        except TransportError as error:
            record.delivery = _unknown(record.thread_id, config.fresh_prompt, request.method)
            raise _failed(record, error) from error

    # ----- turns ---------------------------------------------------------------------

    def active_turn(self, thread_id: str) -> str | None:
        """The turn this driver believes active on the thread (completions seen so far)."""
        self._observe_completed_turns(thread_id)
        return self._active_turns.get(thread_id)

    def resolve_turn_request_for_direct_delivery(
        self, text: str, thread_id: str
    ) -> TurnRequest | None:
        """turn/steer (with expectedTurnId) while a turn is active, turn/start when idle."""
        active = self.active_turn(thread_id)
        if active is not None:
            steer = steer_turn_params(text, thread_id, active)
            return TurnRequest("turn/steer", steer) if steer is not None else None
        start = start_turn_params(text, thread_id, self._turn_policy())
        return TurnRequest("turn/start", start) if start is not None else None

    def encode_stdin_message(self, thread_id: str, body: str) -> TurnRequest | None:
        """The request that delivers a later message: its exact body, nothing added."""
        return self.resolve_turn_request_for_direct_delivery(body, thread_id)

    async def deliver(self, thread_id: str, body: str) -> Delivery:
        """Deliver one later message. A refusal is reported in the Delivery; a transport
        failure raises DeliveryOutcomeUnknown and the body is not retried."""
        request = self.encode_stdin_message(thread_id, body)
        if request is None:
            return _skipped(thread_id, body)
        try:
            return await self._deliver(thread_id, body, request)
        except ServerError as error:
            return _undelivered(thread_id, body, error.method, error.message)
        except TransportError as error:
            raise DeliveryOutcomeUnknown(
                [_unknown(thread_id, body, self._failed_method(request))], error
            ) from error

    async def _deliver(self, thread_id: str, body: str, request: TurnRequest) -> Delivery:
        """Send one body. ServerError (other than a steer race) and TransportError propagate."""
        if request.method == "turn/start":
            return await self._start_turn(thread_id, body, request.params)
        try:
            result = await self._request("turn/steer", request.params)
        except ServerError as error:
            refusal = steer_refusal(error)
            if refusal is None:
                raise
            if refusal is SteerRefusal.NO_ACTIVE_TURN:
                # The turn ended between our look and the steer. The steer was refused,
                # so the body is in no turn yet: start one with it, once.
                self._active_turns.pop(thread_id, None)
                params = start_turn_params(body, thread_id, self._turn_policy())
                assert params is not None  # the steer had the same non-empty body
                return await self._start_turn(thread_id, body, params)
            if refusal is SteerRefusal.OTHER_TURN_ACTIVE and other_active_turn(error):
                # The server named the turn that is active; its end is the boundary.
                self._active_turns[thread_id] = other_active_turn(error)
            held = self.inbox.hold(thread_id, body)
            return Delivery(
                thread_id,
                body,
                DeliveryStatus.HELD,
                "turn/steer",
                detail=f"held as #{held.number}: {error.message}",
            )
        turn_id = str(result.get("turnId", "")) if isinstance(result, dict) else ""
        return Delivery(thread_id, body, DeliveryStatus.DELIVERED, "turn/steer", turn_id)

    async def _start_turn(self, thread_id: str, body: str, params: dict[str, Any]) -> Delivery:
        result = await self._request("turn/start", params)
        turn_id = self._note_started_turn(thread_id, result)
        return Delivery(thread_id, body, DeliveryStatus.DELIVERED, "turn/start", turn_id)

    def _note_started_turn(self, thread_id: str, result: Any) -> str:
        """The id of the turn a turn/start answer names; while it runs, it is the active one."""
        turn_id = str(_dig(result, "turn", "id") or "")
        if turn_id and _dig(result, "turn", "status") == "inProgress":
            self._active_turns[thread_id] = turn_id
        return turn_id

    # ----- safe boundaries -----------------------------------------------------------

    async def wait_for_turn_completed(self, thread_id: str, *, timeout: float) -> Notification:
        """The next turn/completed of the thread (consumed). A boundary: call
        `deliver_held` after it."""
        note = await self.client.wait_for_notification(
            "turn/completed", lambda n: _thread_of(n) == thread_id, timeout=timeout
        )
        if self._active_turns.get(thread_id) == _dig(note.params, "turn", "id"):
            del self._active_turns[thread_id]
        return note

    async def deliver_held(self, thread_id: str) -> list[Delivery]:
        """Deliver the thread's held bodies in one turn/start, each as its own input item.

        Call at a safe boundary (the thread's turn completed). The bodies leave the inbox
        before the send: refused ones are reported undelivered, unknown ones raise, and
        none is ever sent twice.
        """
        held = self.inbox.take(thread_id)
        if not held:
            return []
        first, *later = held
        params = start_turn_params(first.body, thread_id, self._turn_policy())
        assert params is not None  # only steered bodies are held, and those are never empty
        params["input"] += [item for message in later for item in text_input(message.body)]
        try:
            result = await self._request("turn/start", params)
        except ServerError as error:
            return [_undelivered(thread_id, m.body, "turn/start", error.message) for m in held]
        except TransportError as error:
            raise DeliveryOutcomeUnknown(
                [_unknown(thread_id, m.body, "turn/start") for m in held], error
            ) from error
        turn_id = self._note_started_turn(thread_id, result)
        return [
            Delivery(thread_id, m.body, DeliveryStatus.DELIVERED, "turn/start", turn_id)
            for m in held
        ]

    def _observe_completed_turns(self, thread_id: str) -> None:
        # A turn/completed still in the client's buffer (nobody waited for it yet) ends
        # the turn we track. Completions consumed elsewhere are caught by the steer race.
        active = self._active_turns.get(thread_id)
        if active is None:
            return
        for note in self.client.notifications:
            if (
                note.method == "turn/completed"
                and _thread_of(note) == thread_id
                and _dig(note.params, "turn", "id") == active
            ):
                del self._active_turns[thread_id]
                return


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _thread_of(note: Notification) -> Any:
    return _dig(note.params, "threadId")


def _skipped(thread_id: str, body: str) -> Delivery:
    return Delivery(thread_id, body, DeliveryStatus.SKIPPED, detail="empty text: no turn sent")


def _undelivered(thread_id: str, body: str, method: str, refusal: str) -> Delivery:
    return Delivery(thread_id, body, DeliveryStatus.UNDELIVERED, method, detail=refusal)


def _unknown(thread_id: str, body: str, method: str) -> Delivery:
    return Delivery(
        thread_id,
        body,
        DeliveryStatus.UNKNOWN,
        method,
        detail="transport failed; outcome unknown, not replayed",
    )


def _failed(
    record: InitialThread, error: ServerError | TransportError | UnexpectedAnswer
) -> PrepareFailed:
    if isinstance(error, UnexpectedAnswer):
        return PrepareFailed(str(error), record, outcome_known=True)
    if isinstance(error, ServerError):
        return PrepareFailed(
            f"{error.method} refused ({error.code}: {error.message}); no fallback for this",
            record,
            outcome_known=True,
        )
    return PrepareFailed(
        f"outcome unknown, failing closed without replay: {error.summary}",
        record,
        outcome_known=False,
    )
