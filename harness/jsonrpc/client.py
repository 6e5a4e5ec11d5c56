"""An asyncio JSON-RPC client for a server spoken to over a child process's stdio.

One reader task routes every incoming line: responses to their pending request,
notifications to a buffer, server requests to registered handlers. Everything the
client sends and receives is recorded in a transcript.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from harness.jsonrpc.errors import (
    ConnectionClosed,
    MalformedFrame,
    NotificationTimeout,
    RequestTimeout,
    ServerError,
    ServerExited,
    TransportError,
)
from harness.jsonrpc.framing import (
    ErrorResponse,
    FrameError,
    Notification,
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
from harness.jsonrpc.process import ServerProcess
from harness.jsonrpc.transcript import Transcript

DEFAULT_TIMEOUT = 30.0
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603

ServerRequestHandler = Callable[[Any], Awaitable[Any]]
NotificationPredicate = Callable[[Notification], bool]


@dataclass
class _Pending:
    method: str
    future: asyncio.Future[Any]


class JsonRpcClient:
    """Talks JSON-RPC to one server process; use `async with JsonRpcClient.spawn(...)`."""

    def __init__(self, server: ServerProcess, *, transcript: Transcript | None = None) -> None:
        self.server = server
        self.transcript = transcript if transcript is not None else Transcript()
        self.notifications: list[Notification] = []
        self.frame_errors: list[MalformedFrame] = []
        self._pending: dict[RequestId, _Pending] = {}
        self._ids = itertools.count(1)
        self._handlers: dict[str, ServerRequestHandler] = {}
        self._notification_arrived = asyncio.Condition()
        self._closed = False
        self._connection_lost: TransportError | None = None
        self._write_lock = asyncio.Lock()
        self._reader = asyncio.create_task(self._read_loop(), name=f"jsonrpc-reader-{server.pid}")
        self._handler_tasks: set[asyncio.Task[None]] = set()

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path | None = None,
        transcript: Transcript | None = None,
    ) -> Self:
        server = await ServerProcess.start(argv, env=env, cwd=cwd)
        return cls(server, transcript=transcript)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    # ----- sending -------------------------------------------------------------------

    async def request(
        self, method: str, params: Any = None, *, timeout: float = DEFAULT_TIMEOUT
    ) -> Any:
        """Send a request and return its result, or raise ServerError / TransportError."""
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = _Pending(method, future)
        started = time.monotonic()
        try:
            await self._send(request_frame(request_id, method, params))
            return await asyncio.wait_for(asyncio.shield(future), timeout=timeout)
        except TimeoutError:
            raise RequestTimeout(
                method=method,
                request_id=request_id,
                elapsed=time.monotonic() - started,
                stderr_tail=self.server.stderr_tail(),
            ) from None
        finally:
            self._pending.pop(request_id, None)
            if not future.done():
                future.cancel()

    async def notify(self, method: str, params: Any = None) -> None:
        await self._send(notification_frame(method, params))

    async def _send(self, frame: dict[str, Any]) -> None:
        if self._closed:
            raise ConnectionClosed("the client is closed")
        if self._connection_lost is not None:
            raise ConnectionClosed(
                f"cannot send {frame.get('method', 'a response')}: {self._connection_lost.summary}",
                stderr_tail=self.server.stderr_tail(),
            )
        self.transcript.record("send", frame)
        async with self._write_lock:
            try:
                self.server.stdin.write(encode(frame))
                await self.server.stdin.drain()
            except (ConnectionError, RuntimeError, OSError) as error:
                raise ConnectionClosed(
                    f"cannot write {frame.get('method', 'a response')} to the server: {error}",
                    stderr_tail=self.server.stderr_tail(),
                ) from None

    # ----- notifications and server requests -----------------------------------------

    def on_request(self, method: str, handler: ServerRequestHandler) -> None:
        """Answer server-initiated requests of `method` with `handler(params)`."""
        self._handlers[method] = handler

    async def wait_for_notification(
        self,
        method: str,
        predicate: NotificationPredicate | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        consume: bool = True,
    ) -> Notification:
        """The first buffered (or future) notification of `method` matching `predicate`.

        Notifications that do not match stay buffered for later waits. With `consume`,
        the one returned is taken out of the buffer.
        """
        started = time.monotonic()

        def find() -> Notification | None:
            for index, note in enumerate(self.notifications):
                if note.method == method and (predicate is None or predicate(note)):
                    if consume:
                        del self.notifications[index]
                    return note
            return None

        async with self._notification_arrived:
            try:
                async with asyncio.timeout(timeout):
                    while (found := find()) is None:
                        if self._connection_lost is not None:
                            raise ServerExited(
                                method=None,
                                request_id=None,
                                returncode=self.server.returncode,
                                stderr_tail=self.server.stderr_tail(),
                            )
                        await self._notification_arrived.wait()
            except TimeoutError:
                raise NotificationTimeout(
                    method=method,
                    elapsed=time.monotonic() - started,
                    stderr_tail=self.server.stderr_tail(),
                ) from None
        return found

    def drain_notifications(self, method: str | None = None) -> list[Notification]:
        """Take buffered notifications (all, or those of one method) out of the buffer."""
        taken = [n for n in self.notifications if method is None or n.method == method]
        self.notifications = [n for n in self.notifications if n not in taken]
        return taken

    # ----- reading -------------------------------------------------------------------

    async def _read_loop(self) -> None:
        try:
            while line := await self.server.stdout.readline():
                if line.strip():
                    await self._route(line)
        except (ConnectionError, ValueError) as error:
            # ValueError: a line beyond the stream limit; the stream is unusable after it.
            self._record_malformed(str(error).encode(), f"unreadable stream: {error}")
        finally:
            await self._connection_ended()

    async def _route(self, line: bytes) -> None:
        try:
            message, raw = decode(line)
        except FrameError as error:
            self._record_malformed(line, error.reason)
            return
        self.transcript.record("recv", raw)
        if isinstance(message, Response | ErrorResponse):
            self._resolve(message)
        elif isinstance(message, Request):
            task = asyncio.create_task(self._answer_server_request(message))
            self._handler_tasks.add(task)
            task.add_done_callback(self._handler_tasks.discard)
        else:
            async with self._notification_arrived:
                self.notifications.append(message)
                self._notification_arrived.notify_all()

    def _resolve(self, message: Response | ErrorResponse) -> None:
        pending = self._pending.get(message.id) if message.id is not None else None
        if pending is None or pending.future.done():
            return  # a late answer to a request that already timed out; kept in the transcript
        if isinstance(message, Response):
            pending.future.set_result(message.result)
        else:
            pending.future.set_exception(
                ServerError(
                    method=pending.method,
                    request_id=message.id if message.id is not None else "",
                    code=message.code,
                    message=message.message,
                    data=message.data,
                )
            )

    def _record_malformed(self, line: bytes, reason: str) -> None:
        self.transcript.record(
            "malformed", {"reason": reason, "raw": line.decode("utf-8", "replace")}
        )
        self.frame_errors.append(MalformedFrame(line=line, reason=reason))
        tail = self.server.stderr_tail()
        for request_id, pending in list(self._pending.items()):
            if not pending.future.done():
                pending.future.set_exception(
                    MalformedFrame(
                        line=line,
                        reason=reason,
                        method=pending.method,
                        request_id=request_id,
                        stderr_tail=tail,
                    )
                )

    async def _answer_server_request(self, request: Request) -> None:
        handler = self._handlers.get(request.method)
        if handler is None:
            frame = error_frame(
                request.id,
                METHOD_NOT_FOUND,
                f"codex-probe client has no handler for server request {request.method!r}",
            )
        else:
            try:
                frame = response_frame(request.id, await handler(request.params))
            except Exception as error:  # a handler bug is answered, not raised into the reader
                frame = error_frame(request.id, INTERNAL_ERROR, f"handler failed: {error}")
        with contextlib.suppress(TransportError):
            await self._send(frame)

    async def _connection_ended(self) -> None:
        # stdout closed: the process is exiting (or closed stdout). Give it a moment to
        # report an exit code, then fail everything still pending at once.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.server.process.wait(), timeout=0.5)
        tail = self.server.stderr_tail()
        self._connection_lost = ServerExited(
            method=None, request_id=None, returncode=self.server.returncode, stderr_tail=tail
        )
        for request_id, pending in list(self._pending.items()):
            if not pending.future.done():
                pending.future.set_exception(
                    ServerExited(
                        method=pending.method,
                        request_id=request_id,
                        returncode=self.server.returncode,
                        stderr_tail=tail,
                    )
                )
        async with self._notification_arrived:
            self._notification_arrived.notify_all()

    # ----- lifecycle -----------------------------------------------------------------

    @property
    def returncode(self) -> int | None:
        return self.server.returncode

    def stderr_tail(self, lines: int = 40) -> str:
        return self.server.stderr_tail(lines)

    async def close(self, *, grace: float = 2.0) -> int | None:
        """Shut the server down (stdin, wait, SIGTERM, SIGKILL); return its exit code."""
        if self._closed:
            return self.server.returncode
        self._closed = True
        try:
            return await self.server.shutdown(grace=grace)
        except BaseException:
            self.server.kill_now()
            raise
        finally:
            for task in (self._reader, *self._handler_tasks):
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._reader, timeout=1.0)
