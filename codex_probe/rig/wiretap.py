"""A loopback mock Responses API provider that records what codex sends the model.

codex sends the whole prompt on every model request, so whatever the model would
see (instructions, replayed history, codex's own context blocks) arrives here as
a JSON body. The wiretap answers like a provider would, from a script, and keeps
every request (masked headers, parsed body, arrival time) in arrival order.

Routes (any prefix, so `base_url` may end in `/v1` or not):
  POST .../responses          SSE stream: response.created, output items
                              (response.output_item.done), response.completed.
                              Normally what the queued reply scripts (one assistant
                              message, or the items of `rig/replies.py`: reasoning,
                              function calls, several messages, holds, a failed or
                              cut stream); when the input ends with a
                              `compaction_trigger` item (codex's streamed "remote
                              compaction v2"), one `compaction` item instead.
  POST .../responses/compact  JSON `{"output": [...]}`: the unary remote-compaction
                              endpoint.
  anything else               404 JSON naming the path; still captured.
Which compaction form a codex version uses, and for which provider names, is
recorded in docs/observations/; what codex does with each scripted reply kind, in
docs/observations/real-turns.md.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections import deque
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any, Self

from aiohttp import web

from codex_probe.harness.jsonrpc.framing import decode_json
from codex_probe.rig.captures import MASK, CapturedRequest, mask_headers
from codex_probe.rig.replies import (
    Hold,
    Reply,
    as_reply,
    assistant_message,
    response_events,
    script_stream,
    sse_event,
    text_deltas,
)

# Names other modules (and tests) import from here, as before the script had its module.
__all__ = [
    "COMPACTION_SUMMARY_PREFIX",
    "DEFAULT_REPLY_TEXT",
    "MASK",
    "CapturedRequest",
    "Reply",
    "Responder",
    "Wiretap",
    "assistant_message",
    "mask_headers",
    "response_events",
    "sse_event",
    "text_deltas",
]

COMPACTION_SUMMARY_PREFIX = "WIRETAP_COMPACTION_SUMMARY"
# The answer to a model request nobody queued a reply for, traceable to the request.
DEFAULT_REPLY_TEXT = "wiretap reply {index}"

Responder = Callable[[CapturedRequest], Reply | str]


class Wiretap:
    """`async with Wiretap() as tap:` then point codex at `tap.base_url`.

    Model requests are answered from `replies` in order; after those, from
    `responder` (if any), else with a default text naming the request index, so a
    replayed answer can be traced to the request that produced it. Compaction
    requests (either form) are answered from `compaction_output`, not the script.
    """

    def __init__(
        self,
        replies: Iterable[Reply | str] = (),
        *,
        responder: Responder | None = None,
        compaction_output: list[dict[str, Any]] | None = None,
        compaction_status: int = 200,
    ) -> None:
        self._replies: deque[Reply] = deque(as_reply(r) for r in replies)
        self._responder = responder
        self.compaction_output = compaction_output
        self.compaction_status = compaction_status
        self._requests: list[CapturedRequest] = []
        self._arrived = asyncio.Condition()
        self._closing = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._sock: socket.socket | None = None
        self._response_count = 0
        # Indices of requests whose answer codex hung up on before it was complete.
        self.abandoned: list[int] = []
        # Set by release_held(): answers held until released go on.
        self._released = asyncio.Event()
        # The text each model request was answered with, by request index.
        self.answers: dict[int, str] = {}
        # The request index each scripted function call was made in, by call id.
        self.calls: dict[str, int] = {}
        # Indices of requests whose stream the script dropped mid-body (End.DROPPED).
        self.dropped: list[int] = []
        # The SSE event types written to each streamed answer, by request index, in order:
        # up to where codex hung up, for an abandoned one.
        self.streamed: dict[int, list[str]] = {}

    # -- lifecycle ------------------------------------------------------------
    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        # Bind before serving and hand the socket over: no window in which another
        # process could take the port between "pick a free port" and "listen".
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        self._sock = sock
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.SockSite(self._runner, sock).start()

    async def close(self) -> None:
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    @property
    def port(self) -> int:
        if self._sock is None:
            raise RuntimeError("the wiretap is not running")
        port: int = self._sock.getsockname()[1]
        return port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- script and captures --------------------------------------------------
    def queue_replies(self, *replies: Reply | str) -> None:
        self._replies.extend(as_reply(r) for r in replies)

    def release_held(self) -> None:
        """Let every answer held `until_released` go on; later ones are held anew.

        A hold waits for a release after its request arrived, or, for a later hold of the
        same stream, after the stream passed the hold before it."""
        self._released.set()
        self._released = asyncio.Event()

    def call_output(self, call_id: str) -> str | None:
        """The output codex sent back for the scripted function call `call_id`: from the
        first model request after the call's own that carries it (None if none has)."""
        made_in = self.calls.get(call_id, -1)
        for request in self.model_requests():
            outputs = request.call_outputs()
            if request.index > made_in and call_id in outputs:
                return outputs[call_id]
        return None

    @property
    def requests(self) -> list[CapturedRequest]:
        return list(self._requests)

    def model_requests(self) -> list[CapturedRequest]:
        return [r for r in self._requests if r.is_model_request]

    def compaction_requests(self) -> list[CapturedRequest]:
        """Requests of either compaction form: unary /responses/compact or streamed."""
        return [r for r in self._requests if r.is_compact_request or r.is_compaction_trigger]

    async def wait_for_requests(
        self,
        count: int,
        timeout: float,
        predicate: Callable[[CapturedRequest], bool] | None = None,
    ) -> list[CapturedRequest]:
        """Wait until `count` captured requests match `predicate` (all, if None)."""

        def matching() -> list[CapturedRequest]:
            return [r for r in self._requests if predicate is None or predicate(r)]

        started = time.monotonic()
        try:
            async with asyncio.timeout(timeout), self._arrived:
                await self._arrived.wait_for(lambda: len(matching()) >= count)
        except TimeoutError:
            seen = [f"{r.method} {r.path}" for r in self._requests]
            raise TimeoutError(
                f"wiretap: wanted {count} matching request(s), got {len(matching())} "
                f"after {time.monotonic() - started:.1f}s; all requests: {seen}"
            ) from None
        return matching()

    # -- HTTP -----------------------------------------------------------------
    async def _handle(self, request: web.Request) -> web.StreamResponse:
        captured = await self._capture(request)
        # Taken as the request arrives: a release_held() after it lets this answer go.
        released = self._released
        if captured.is_compact_request:
            if self.compaction_status != 200:
                return web.json_response(
                    _error_body("scripted compaction error"), status=self.compaction_status
                )
            return web.json_response({"output": self._compaction_items(captured)})
        if captured.is_compaction_trigger:
            if self.compaction_status != 200:
                return web.json_response(
                    _error_body("scripted compaction error"), status=self.compaction_status
                )
            items = self._compaction_items(captured)
            events = response_events(self._next_response_id(), items)
            return await self._stream(request, captured.index, [*events], released)
        if captured.is_model_request:
            reply = self._next_reply(captured)
            if reply.status != 200:
                await self._hold(Hold(reply.delay_s, reply.until_released), released)
                return web.json_response(_error_body(reply.error_message), status=reply.status)
            self.answers[captured.index] = reply.message_text
            stream = script_stream(reply, self._next_response_id(), captured.index)
            self.calls.update(dict.fromkeys(stream.call_ids, captured.index))
            return await self._stream(
                request, captured.index, stream.steps, released, drop=stream.drop
            )
        return web.json_response(
            {
                "error": {
                    "message": f"wiretap: no route for {captured.method} {captured.path}",
                    "type": "not_found",
                }
            },
            status=404,
        )

    async def _capture(self, request: web.Request) -> CapturedRequest:
        # aiohttp undoes Content-Encoding (gzip, deflate, and more when available).
        try:
            raw = await request.read()
        except web.HTTPException as error:
            raw = f"<body not readable: {error.reason}>".encode()
        body: Any = None
        body_text: str | None = None
        if raw:
            body_text = raw.decode("utf-8", errors="replace")
            try:
                body = decode_json(body_text)
            except ValueError:
                body = None
        async with self._arrived:
            captured = CapturedRequest(
                index=len(self._requests),
                method=request.method,
                path=request.path,
                query=dict(request.query),
                headers=mask_headers(request.headers),
                body=body,
                body_text=body_text,
                received_at=time.monotonic(),
            )
            self._requests.append(captured)
            self._arrived.notify_all()
        return captured

    async def _hold(self, hold: Hold, released: asyncio.Event) -> None:
        """Wait out a hold; closing the wiretap, or releasing the held answers for one
        held `until_released`, cuts it short."""
        if hold.deadline_s <= 0:
            return
        events = [self._closing] + ([released] if hold.until_released else [])
        waits = [asyncio.ensure_future(event.wait()) for event in events]
        try:
            await asyncio.wait(waits, timeout=hold.deadline_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()

    def _next_response_id(self) -> str:
        self._response_count += 1
        return f"resp_{self._response_count}"

    def _next_reply(self, captured: CapturedRequest) -> Reply:
        if self._replies:
            return self._replies.popleft()
        if self._responder is not None:
            return as_reply(self._responder(captured))
        return Reply(text=DEFAULT_REPLY_TEXT.format(index=captured.index))

    def _compaction_items(self, captured: CapturedRequest) -> list[dict[str, Any]]:
        if self.compaction_output is not None:
            return self.compaction_output
        summary = f"{COMPACTION_SUMMARY_PREFIX} {captured.index}"
        return [{"type": "compaction", "encrypted_content": summary}]

    async def _stream(
        self,
        request: web.Request,
        index: int,
        steps: list[dict[str, Any] | Hold],
        released: asyncio.Event,
        *,
        drop: bool = False,
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        written = self.streamed.setdefault(index, [])
        try:
            await response.prepare(request)
            for step in steps:
                if isinstance(step, Hold):
                    await self._hold(step, released)
                    released = self._released  # a later hold waits for a later release
                else:
                    await response.write(sse_event(step))
                    written.append(str(step.get("type")))
            if drop and request.transport is not None:
                # What was written goes out, then the connection closes without the
                # body's last chunk: the stream is cut as a network would cut it.
                self.dropped.append(index)
                request.transport.close()
                return response
            await response.write_eof()
        except ConnectionResetError:
            # codex dropped the request before the answer was out (0.171 does this
            # when a turn is steered while a held-back answer is pending).
            self.abandoned.append(index)
        return response


def _error_body(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "wiretap_scripted_error", "code": None}}
