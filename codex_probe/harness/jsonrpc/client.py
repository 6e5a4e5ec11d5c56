"""An asyncio JSON-RPC client for a server spoken to over a child process's stdio.

Every incoming line is routed as soon as stdout delivers it, on the event loop and
without a task of its own: responses to their pending request, notifications to a buffer,
server requests to registered handlers. A round trip thus costs two turns of the loop
(the answer arrives; the requester resumes). Everything the client sends and receives is
recorded in a transcript.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from codex_probe.harness.jsonrpc.deadlines import Deadlines
from codex_probe.harness.jsonrpc.errors import (
    ConnectionClosed,
    MalformedFrame,
    NotificationTimeout,
    RequestTimeout,
    ServerError,
    ServerExited,
    StdinClosed,
    TransportError,
)
from codex_probe.harness.jsonrpc.framing import (
    ErrorResponse,
    FrameError,
    Notification,
    Request,
    RequestId,
    Response,
    decode,
    encode_bytes,
    error_frame,
    notification_frame,
    request_frame,
    response_frame,
)
from codex_probe.harness.jsonrpc.process import STREAM_LIMIT, ServerProcess
from codex_probe.harness.jsonrpc.transcript import Transcript

DEFAULT_TIMEOUT = 30.0
# How long a write that found stdin closed waits for the server's exit, which says why.
EXIT_GRACE = 2.0
# How long a server that closed stdout is given to finish its stderr (its last words).
STDERR_GRACE = 0.5
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603

ServerRequestHandler = Callable[[Any], Awaitable[Any]]
NotificationPredicate = Callable[[Notification], bool]


@dataclass
class _Pending:
    method: str
    future: asyncio.Future[Any]
    sent_at: float
    timeout: float


class JsonRpcClient:
    """Talks JSON-RPC to one server process; use `async with JsonRpcClient.spawn(...)`."""

    def __init__(self, server: ServerProcess, *, transcript: Transcript | None = None) -> None:
        self.server = server
        self.transcript = transcript if transcript is not None else Transcript()
        self.notifications: list[Notification] = []
        self.frame_errors: list[MalformedFrame] = []
        self._loop = asyncio.get_running_loop()
        self._pending: dict[RequestId, _Pending] = {}
        self._deadlines: Deadlines[RequestId] = Deadlines(
            self._loop,
            waiting=self._pending.__contains__,
            expire=self._time_out,
            count_waiting=self._pending.__len__,
        )
        self._ids = itertools.count(1)
        self._handlers: dict[str, ServerRequestHandler] = {}
        self._notification_waiters: set[asyncio.Future[None]] = set()
        self._closed = False
        self._connection_lost: TransportError | None = None
        # Done once the connection is gone and everything pending has failed.
        self._ended: asyncio.Future[None] = self._loop.create_future()
        # Pieces of a line not yet ended by a newline, and their total length.
        self._partial: list[bytes] = []
        self._partial_size = 0
        self._reading = True
        self._tasks: set[asyncio.Task[None]] = set()
        # Frames sent while sends are held (see _hold_sends), written together.
        self._outbox: list[bytes] | None = None
        server.read_stdout(self._received, self._stdout_ended)

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
        future: asyncio.Future[Any] = self._loop.create_future()
        self._pending[request_id] = _Pending(method, future, time.monotonic(), timeout)
        # Not wait_for(shield(...)): each adds turns of the loop to every request.
        self._deadlines.add(request_id, timeout)
        try:
            try:
                self._send(request_frame(request_id, method, params))
                if self.server.stdin.transport.get_write_buffer_size():
                    await self._drain()  # more than the pipe holds is waiting to be written
            except StdinClosed as refused:
                error = await self._exit_instead_of(refused, method, request_id)
                if future.done() and not future.cancelled():
                    future.exception()  # the same exit, failed onto it: taken, not left unread
                raise error from None
            return await future
        finally:
            self._pending.pop(request_id, None)
            if not future.done():
                future.cancel()

    def _time_out(self, request_id: RequestId) -> None:
        pending = self._pending.get(request_id)
        if pending is None or pending.future.done():
            return
        pending.future.set_exception(
            RequestTimeout(
                method=pending.method,
                request_id=request_id,
                # A timer may run a little early (the loop's clock resolution).
                elapsed=max(time.monotonic() - pending.sent_at, pending.timeout),
                stderr_tail=self.server.stderr_tail(),
            )
        )

    async def notify(self, method: str, params: Any = None) -> None:
        try:
            self._send(notification_frame(method, params))
            if self.server.stdin.transport.get_write_buffer_size():
                await self._drain()
        except StdinClosed as refused:
            raise await self._exit_instead_of(refused, method, None) from None

    async def _exit_instead_of(
        self, refused: StdinClosed, method: str, request_id: RequestId | None
    ) -> TransportError:
        """A server whose stdin is closed is most likely exiting (a crash, a failed seal):
        its exit code and stderr say why, the broken pipe does not. Wait briefly for them."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(EXIT_GRACE):
                await asyncio.shield(self._ended)
        if self._connection_lost is None:  # it lives on without its stdin
            return StdinClosed(refused.summary, stderr_tail=self.server.stderr_tail())
        return ServerExited(
            method=method,
            request_id=request_id,
            returncode=self.server.returncode,
            stderr_tail=self._connection_lost.stderr_tail,
        )

    def _send(self, frame: dict[str, Any]) -> None:
        # Synchronous: the frame goes into the pipe (or its transport's buffer) whole and in
        # order, so concurrent senders need no lock and nothing to await.
        if self._closed:
            raise ConnectionClosed("the client is closed")
        if self._connection_lost is not None:
            raise ConnectionClosed(
                f"cannot send {frame.get('method', 'a response')}: {self._connection_lost.summary}",
                stderr_tail=self.server.stderr_tail(),
            )
        data = encode_bytes(frame)
        # Recorded before the write: work left after it competes with the server for the
        # CPU while it answers (interleaved A/B on codex: 3 % slower per round trip).
        self.transcript.record_wire("send", data.decode())
        try:
            if self._outbox is not None:
                self._outbox.append(data + b"\n")
            else:
                self._write(data + b"\n")
        except (ConnectionError, RuntimeError, OSError) as error:
            raise StdinClosed(
                f"cannot write {frame.get('method', 'a response')} to the server: {error}",
                stderr_tail=self.server.stderr_tail(),
            ) from None

    def _write(self, data: bytes) -> None:
        stdin = self.server.stdin
        if stdin.transport.is_closing():
            raise BrokenPipeError("the server's stdin is closed")
        stdin.write(data)
        if stdin.transport.is_closing():  # the write found the pipe broken
            raise BrokenPipeError("the server's stdin is closed")

    def _hold_sends(self) -> None:
        """Gather what is sent in the coming turn of the loop into one write.

        Called when several messages arrive at once (requests in flight): the requesters
        they wake run in that turn, and many send again; one write instead of one each
        spares the server as many wake-ups. The flush is queued after their wake-ups are,
        so it runs in that same turn. (A lone answer is not held: its requester's next
        request goes out at once.)
        """
        if self._outbox is None:
            self._outbox = []
            self._loop.call_soon(self._flush_held)

    def _flush_held(self) -> None:
        held, self._outbox = self._outbox, None
        if held:
            # A pipe that broke is the server gone: its pending requests fail as it exits.
            with contextlib.suppress(ConnectionError, RuntimeError, OSError):
                self._write(b"".join(held))

    async def _drain(self) -> None:
        """Wait while the pipe is full (a server that does not read): the only wait a send has."""
        stdin = self.server.stdin
        try:
            await stdin.drain()
        except (ConnectionError, RuntimeError, OSError) as error:
            raise StdinClosed(
                f"cannot write to the server: {error}", stderr_tail=self.server.stderr_tail()
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
                    arrived = self._loop.create_future()
                    self._notification_waiters.add(arrived)
                    try:
                        await arrived
                    finally:
                        self._notification_waiters.discard(arrived)
        except TimeoutError:
            raise NotificationTimeout(
                method=method,
                elapsed=time.monotonic() - started,
                stderr_tail=self.server.stderr_tail(),
            ) from None
        return found

    def drain_notifications(
        self, method: str | None = None, *, keep: NotificationPredicate | None = None
    ) -> list[Notification]:
        """Take buffered notifications (all, or those of one method) out of the buffer,
        but those `keep` holds to."""
        taken = [
            n
            for n in self.notifications
            if (method is None or n.method == method) and (keep is None or not keep(n))
        ]
        self.notifications = [n for n in self.notifications if n not in taken]
        return taken

    # ----- reading -------------------------------------------------------------------

    def _received(self, data: bytes) -> None:
        """A piece of stdout: route each line it completes, keep the rest for the next."""
        if not self._reading:
            return
        end = data.rfind(b"\n")
        if end < 0:
            self._keep_partial(data)
            return
        if self._partial:
            self._partial.append(data)
            data = b"".join(self._partial)
            end += self._partial_size
            self._partial.clear()
            self._partial_size = 0
        lines = data[:end].split(b"\n")
        for line in lines:
            if line.strip():
                self._route(line)
        if len(lines) > 1:
            self._hold_sends()  # after routing: its flush must queue behind the wake-ups
        if end + 1 < len(data):
            self._keep_partial(data[end + 1 :])

    def _keep_partial(self, data: bytes) -> None:
        self._partial.append(data)
        self._partial_size += len(data)
        if self._partial_size > STREAM_LIMIT:
            # Like a line beyond an asyncio stream's limit: the stream is unusable after it.
            self._reading = False
            self._partial.clear()
            reason = f"a line longer than {STREAM_LIMIT} bytes"
            self._record_malformed(reason.encode(), f"unreadable stream: {reason}")
            self._run(self._connection_ended())

    def _stdout_ended(self, error: Exception | None) -> None:
        if not self._reading or self._closed:
            return
        self._reading = False
        last = b"".join(self._partial)
        self._partial.clear()
        if last.strip():  # a last line without its newline
            self._route(last)
        if error is not None:
            self._record_malformed(str(error).encode(), f"unreadable stream: {error}")
        self._run(self._connection_ended())

    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` as a task of this client's (close() cancels what is left of it)."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _route(self, line: bytes) -> None:
        try:
            message, raw = decode(line)
        except FrameError as error:
            self._record_malformed(line, error.reason)
            return
        try:
            self.transcript.record_wire("recv", line.decode())
        except UnicodeDecodeError:  # JSON in UTF-16 or -32, which json reads too
            self.transcript.record("recv", raw)
        if isinstance(message, Response | ErrorResponse):
            self._resolve(message)
        elif isinstance(message, Request):
            self._run(self._answer_server_request(message))
        else:
            self.notifications.append(message)
            self._wake_notification_waiters()

    def _wake_notification_waiters(self) -> None:
        for waiter in self._notification_waiters:
            if not waiter.done():
                waiter.set_result(None)

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
            self._send(frame)

    async def _connection_ended(self) -> None:
        # stdout closed: the process is exiting (or closed stdout). Give it a moment to
        # report an exit code and finish its stderr, then fail everything pending at once.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.5):
                await self.server.process.wait()
        await self.server.stderr_ended(STDERR_GRACE)
        self._fail_everything()

    def _fail_everything(self) -> None:
        """The connection is gone: every pending request and waiting wait fails now."""
        tail = self.server.stderr_tail()
        self._connection_lost = ServerExited(
            method=None, request_id=None, returncode=self.server.returncode, stderr_tail=tail
        )
        if not self._ended.done():
            self._ended.set_result(None)
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
        self._wake_notification_waiters()

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
            self._fail_everything()
            self._deadlines.close()
            tasks = list(self._tasks)
            for task in tasks:
                task.cancel()
            if tasks:
                # Not CancelledError: gather returns its cancelled tasks' errors, so one raised
                # here is the caller's cancellation (a Ctrl-C), which must go on.
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(1.0):
                        await asyncio.gather(*tasks, return_exceptions=True)
