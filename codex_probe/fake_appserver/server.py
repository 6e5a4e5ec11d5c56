"""The fake app-server: JSON-RPC over stdio, one handler per method (the thread methods'
in thread_methods.py, turns in turns.py), faults from a script."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import stat
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from codex_probe.fake_appserver.book_answers import (
    BookAnswer,
    BookAnswers,
    fork_announced_without_turns,
    fork_interrupts_turn_in_flight,
    runs_input_without_text,
)
from codex_probe.fake_appserver.config import ProviderConfig
from codex_probe.fake_appserver.failures import RequestFailed
from codex_probe.fake_appserver.first_request import FirstRequest
from codex_probe.fake_appserver.handshake import declares_experimental_api, initialize_result
from codex_probe.fake_appserver.profile import (
    Profile,
)
from codex_probe.fake_appserver.provider import ModelClient
from codex_probe.fake_appserver.script import FaultScript, Rule
from codex_probe.fake_appserver.store import ThreadStore
from codex_probe.fake_appserver.surface_profile import (
    STARTUP,
    notification_template,
)
from codex_probe.fake_appserver.thread_methods import ThreadMethods
from codex_probe.fake_appserver.threads import LoadedThread
from codex_probe.fake_appserver.turns import TurnRunner
from codex_probe.fake_appserver.wire import Wire, now_ms
from codex_probe.harness.jsonrpc.framing import (
    ErrorResponse,
    FrameError,
    Request,
    RequestId,
    Response,
    decode,
    encode,
    error_frame,
    notification_frame,
    request_frame,
    response_frame,
)

Handler = Callable[[Any], Awaitable[Any]]
STDIN_LIMIT = 64 * 1024 * 1024


class FakeAppServer(ThreadMethods):
    def __init__(
        self,
        profile: Profile,
        provider: ProviderConfig,
        codex_home: Path,
        script: FaultScript,
        first: FirstRequest | None = None,
    ) -> None:
        self.profile = profile
        self.provider = provider
        self.codex_home = codex_home
        self.script = script
        self.wire = Wire(profile)
        self.store = ThreadStore(codex_home)
        self.loaded: dict[str, LoadedThread] = {}
        first = first or FirstRequest(read=b"", client_name=None)
        # What was read from stdin before the server, and whether it answered initialize.
        self._early_input = first.read
        self.initialized = first.client_name is not None
        self.client_name = first.client_name or "client"
        self.experimental_api = first.experimental_api
        self._stdout_open = True
        self._tasks: set[asyncio.Task[None]] = set()
        # Requests the fake sent the client (approvals), waiting for their answers by id.
        self._asked: dict[RequestId, asyncio.Future[Any]] = {}
        self._ask_ids = itertools.count()
        self.model = ModelClient(provider)
        # The turns get the parts they use, not the server: turns.py never imports server.py.
        self.turns = TurnRunner(
            profile=profile,
            wire=self.wire,
            loaded=self.loaded,
            store=self.store,
            model=self.model,
            notify=self.notify,
            ask=self.ask,
            spawn=self.spawn,
        )
        self.handlers: dict[str, Handler] = {
            "initialize": self.initialize,
            "thread/start": self.thread_start,
            "thread/resume": self.thread_resume,
            "thread/fork": self.thread_fork,
            "thread/read": self.thread_read,
            "thread/unsubscribe": self.thread_unsubscribe,
            "thread/loaded/list": self.thread_loaded_list,
            "thread/compact/start": self.turns.compact_start,
            "turn/start": self.turns.turn_start,
            "turn/steer": self.turns.turn_steer,
            "turn/interrupt": self.turns.turn_interrupt,
            "model/list": self.model_list,
        }
        # Every other method of the release's schema, as the release answered it.
        self.book = None
        self.fork_announced_without_turns = False
        self.fork_interrupts_turn = False
        if profile.book is not None:
            self.book = BookAnswers(
                profile.book,
                self.loaded,
                self.store,
                codex_home,
                provider.base_url,
                provider.left_to_codex,
            )
            self.turns.runs_input_without_text = runs_input_without_text(profile.book)
            self.fork_announced_without_turns = fork_announced_without_turns(profile.book)
            self.fork_interrupts_turn = fork_interrupts_turn_in_flight(profile.book)

    # ----- the loop --------------------------------------------------------------

    async def serve(self) -> int:
        """Answer stdin's requests until it ends; then 0, as codex exits at EOF."""
        if self.initialized:  # initialize was answered before the server started
            self._incidental(STARTUP, {})
        async for line in _stdin_lines(self._early_input):
            if line.strip():
                await self._dispatch(line)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        return 0

    async def _dispatch(self, line: bytes) -> None:
        try:
            message, _ = decode(line)
        except FrameError as error:
            # Measured on 0.120.0 and 0.171.0: codex answers nothing, logs the line's
            # problem and reads on.
            sys.stderr.write(f"fake-codex: Failed to deserialize JSONRPCMessage: {error.reason}\n")
            sys.stderr.flush()
            return
        if isinstance(message, Request):
            self.spawn(self._answer(message))
        elif isinstance(message, Response | ErrorResponse):
            self._answered(message)
        # Notifications from the client (initialized) need no answer.

    def spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, request: Request) -> None:
        fault = self.script.next_fault(request.method)
        if fault is not None and not await self._apply_fault(fault, request):
            return
        # The thread's state before the call: the release's answer to a resume that
        # loads a thread is that of an unloaded one.
        before = self.book.state_of(request.params) if self.book is not None else None
        try:
            result = await self._handle(request)
        except RequestFailed as failure:
            self.send(error_frame(request.id, failure.code, failure.message))
            return
        if isinstance(result, BookAnswer):
            self._send_book_answer(request, result)
            return
        if self.book is not None:
            result = self.book.echoed(request.method, request.params, result, before)
            self.book.states.saw(request.method, request.params, result)
        self._incidental(request.method, request.params, before, _thread_of(result))
        self.send(response_frame(request.id, result))

    def _send_book_answer(self, request: Request, answer: BookAnswer) -> None:
        """The book's answer or refusal, then the notifications the release sent with it;
        nothing where the release did not answer."""
        if answer.outcome == "unanswered":
            return
        if answer.error is not None:
            self.send(error_frame(request.id, *answer.error))
        else:
            assert self.book is not None
            self.book.states.saw(request.method, request.params, answer.result)
            self.send(response_frame(request.id, answer.result))
        # With a refusal too: review/start's deprecationNotice (0.165.0).
        for method, params in answer.notifications:
            self.notify(method, params)

    async def _handle(self, request: Request) -> Any:
        if request.method != "initialize" and not self.initialized:
            raise RequestFailed(*self.profile.errors.not_initialized.answer())
        handler = self.handlers.get(request.method)
        if self.book is not None:
            scripted = handler is not None
            answer = self.book.answer(
                request.method,
                request.params,
                scripted=scripted,
                experimental=self.experimental_api,
            )
            if answer is not None:
                return answer
        if handler is None:
            raise RequestFailed(*self.profile.errors.unknown_method.answer(method=request.method))
        gate = self.profile.document.surface
        refusal = gate and gate.refusal_of(request.method, request.params, self.experimental_api)
        if refusal:
            raise RequestFailed(*refusal)
        return await handler(request.params or {})

    async def _apply_fault(self, fault: Rule, request: Request) -> bool:
        """Carry out a scripted fault; True if the request should then be handled."""
        action = fault.action
        if action == "error":
            self.send(
                error_frame(
                    request.id,
                    fault.params["code"],
                    fault.params["message"],
                    fault.params.get("data"),
                )
            )
            return False
        if action == "hang":
            return False
        if action == "delay":
            await asyncio.sleep(float(fault.params["seconds"]))
            return True
        if action == "crash":
            sys.stderr.write(
                f"fake-codex: crashing on {request.method} (script line {fault.line})\n"
            )
            sys.stderr.flush()
            os._exit(int(fault.params.get("exit_code", 101)))
        if action == "malformed":
            self._write(b"}{ fake-codex: scripted malformed frame\n")
            return False
        if action == "close_stdout":
            self._stdout_open = False
            with contextlib.suppress(OSError):
                sys.stdout.flush()
                os.close(sys.stdout.fileno())
            return False
        if action == "vanish":
            thread_id = str((request.params or {}).get("threadId", ""))
            self.loaded.pop(thread_id, None)
            self.store.delete(thread_id)
            return True
        if action == "never_complete":
            self.turns.never_complete_next = True
            return True
        if action == "fail_turn":
            self.turns.fail_next_turn = True
            return True
        if action == "skip_compaction":
            self.turns.skip_next_compaction = True
            return True
        raise AssertionError(f"unhandled fault action {action}")

    # ----- asking the client ------------------------------------------------------

    async def ask(self, method: str, params: Any) -> tuple[Any, RequestId]:
        """Send the client a request; its answer's result (None for an error answer) and
        the request's id. Ids count from 0, as codex's do."""
        request_id = next(self._ask_ids)
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._asked[request_id] = answer
        try:
            self.send(request_frame(request_id, method, params))
            return await answer, request_id
        finally:
            self._asked.pop(request_id, None)

    def _answered(self, message: Response | ErrorResponse) -> None:
        waiting = self._asked.get(message.id) if message.id is not None else None
        if waiting is not None and not waiting.done():
            waiting.set_result(message.result if isinstance(message, Response) else None)

    # ----- output ----------------------------------------------------------------

    def send(self, frame: dict[str, Any]) -> None:
        self._write(encode(frame))

    def notify(self, method: str, params: Any) -> None:
        frame = notification_frame(method, params)
        if self.wire.stamps_notifications:
            frame["emittedAtMs"] = now_ms()
        self.send(frame)

    def _write(self, data: bytes) -> None:
        if not self._stdout_open:
            return
        try:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        except (BrokenPipeError, ValueError, OSError):
            self._stdout_open = False

    # ----- the handshake ------------------------------------------------------------

    async def initialize(self, params: Any) -> Any:
        if self.initialized:
            raise RequestFailed(*self.profile.errors.already_initialized.answer())
        self.initialized = True
        self.client_name, result = initialize_result(self.profile, self.codex_home, params)
        self.experimental_api = declares_experimental_api(params)
        self.spawn(self._after(lambda: self._incidental(STARTUP, {})))
        return result

    def _incidental(
        self, trigger: str, params: Any, state: str | None = None, made: str | None = None
    ) -> None:
        """The notifications outside the lifecycle the profile sends with `trigger` (a
        request method, or startup), their thread the request's; but those the book shows
        the release withholds in the thread's `state` (its state before the request); and
        those the book shows the release sends for a value the request sends, about the
        request's thread or, where it names none, `made` (the thread its answer made)."""
        surface = self.profile.document.surface
        if surface is None:
            return
        thread_id = params.get("threadId") if isinstance(params, dict) else None
        book = self.book if state is not None else None
        with_trigger = surface.notifications_with(trigger)
        for method in with_trigger:
            if book is not None and state is not None and book.withholds(trigger, state, method):
                continue
            template = self.profile.wire.templates.get(notification_template(method))
            filled = dict(template) if isinstance(template, dict) else {}
            if "threadId" in filled and thread_id is not None:
                filled["threadId"] = thread_id
            self.notify(method, filled)
        if book is not None and state is not None:
            kinds = frozenset(surface.incidental_methods()) - set(with_trigger)
            about = thread_id if isinstance(thread_id, str) else made
            for method, filled in book.value_notifications(trigger, params, state, kinds, about):
                self.notify(method, filled)


def _thread_of(result: Any) -> str | None:
    """The id of the thread an answer carries (thread/start's, a fork's)."""
    thread = result.get("thread") if isinstance(result, dict) else None
    thread_id = thread.get("id") if isinstance(thread, dict) else None
    return thread_id if isinstance(thread_id, str) else None


async def _stdin_lines(early: bytes) -> AsyncIterator[bytes]:
    """The lines of stdin until its end, starting with `early` (read from it already).

    A pipe or socket is watched by the event loop. Anything else (/dev/null, a file,
    a terminal) cannot be, so a thread reads it. No stdin at all is an end at once.
    """
    if sys.stdin is None:
        return
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError):
        return
    loop = asyncio.get_running_loop()
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        reader = asyncio.StreamReader(limit=STDIN_LIMIT)
        reader.feed_data(early)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while line := await reader.readline():
            yield line
        return
    *complete, partial = early.split(b"\n")
    for line in complete:
        yield line + b"\n"
    # An early line without its newline is finished by the next read, or ends the input.
    while line := partial + await loop.run_in_executor(None, sys.stdin.buffer.readline):
        yield line
        partial = b""
