"""A loopback mock Responses API provider that records what codex sends the model.

codex sends the whole prompt on every model request, so whatever the model would
see (instructions, replayed history, codex's own context blocks) arrives here as
a JSON body. The wiretap answers like a provider would, from a script, and keeps
every request (masked headers, parsed body, arrival time) in arrival order.

Routes (any prefix, so `base_url` may end in `/v1` or not):
  POST .../responses          SSE stream: response.created, output items
                              (response.output_item.done), response.completed.
                              Normally one assistant message from the script; when
                              the input ends with a `compaction_trigger` item
                              (codex's streamed "remote compaction v2"), one
                              `compaction` item instead.
  POST .../responses/compact  JSON `{"output": [...]}`: the unary remote-compaction
                              endpoint.
  anything else               404 JSON naming the path; still captured.
Which compaction form a codex version uses, and for which provider names, is
recorded in docs/observations/.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

from aiohttp import web

MASK = "***"
# Header names whose values are credentials, matched by substring (lowercase).
_SECRET_HEADER_PARTS = ("authorization", "cookie", "api-key", "apikey", "token", "secret")
_SCHEMED_HEADERS = ("authorization", "proxy-authorization")
COMPACTION_SUMMARY_PREFIX = "WIRETAP_COMPACTION_SUMMARY"
# The answer to a model request nobody queued a reply for, traceable to the request.
DEFAULT_REPLY_TEXT = "wiretap reply {index}"


@dataclass(frozen=True)
class Reply:
    """How the wiretap answers one model request.

    `status` other than 200 answers an OpenAI-style error JSON instead of a stream.
    `delay_s` holds the answer back so a turn stays active, e.g. to steer it: the
    stream opens with `response.created` at once and the rest waits, as when a model has
    begun to answer (held before any byte, codex 0.163.0 and 0.166.0 dropped or kept
    the pending answer of a steered turn by chance, 1 run in 12; held after
    `response.created`, 24 of 24 alike). Closing the wiretap cuts the delay short.
    `until_released` ends the wait as soon as `Wiretap.release_held()` is called, so a
    scenario holds a turn exactly as long as it needs it; `delay_s` is then its deadline.
    """

    text: str = "ok"
    delay_s: float = 0.0
    status: int = 200
    error_message: str = "scripted error from the wiretap"
    input_tokens: int = 0
    output_tokens: int = 0
    # Stream the text in this many `response.output_text.delta` events before the item
    # is done (0: the item arrives whole, as in most probes).
    deltas: int = 0
    until_released: bool = False


@dataclass(frozen=True)
class CapturedRequest:
    index: int
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    # Parsed JSON body; None when there is no body or it is not JSON (see body_text).
    body: Any
    body_text: str | None
    received_at: float  # time.monotonic()

    @property
    def is_model_request(self) -> bool:
        return self.method == "POST" and self.path.endswith("/responses")

    @property
    def is_compact_request(self) -> bool:
        return self.method == "POST" and self.path.endswith("/responses/compact")

    @property
    def is_compaction_trigger(self) -> bool:
        """A streamed compaction: a model request whose input ends with a
        `compaction_trigger` item."""
        if not self.is_model_request or not isinstance(self.body, dict):
            return False
        items = self.body.get("input")
        if not isinstance(items, list) or not items:
            return False
        return bool(_item_type(items[-1]) == "compaction_trigger")

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "headers": self.headers,
            "body": self.body,
            "body_text": self.body_text if self.body is None else None,
            "received_at": self.received_at,
        }


Responder = Callable[[CapturedRequest], Reply | str]


def mask_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Lowercased headers with credential values masked (the scheme is kept)."""
    masked: dict[str, str] = {}
    for name, value in headers.items():
        key = name.lower()
        if not any(part in key for part in _SECRET_HEADER_PARTS):
            masked[key] = value
        elif key in _SCHEMED_HEADERS and " " in value:
            # "Bearer ***" still tells whether (and how) a credential was sent.
            masked[key] = f"{value.split(' ', 1)[0]} {MASK}"
        else:
            masked[key] = MASK
    return masked


def sse_event(event: Mapping[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def assistant_message(item_id: str, text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "id": item_id,
        "content": [{"type": "output_text", "text": text}],
    }


def text_deltas(item: dict[str, Any], pieces: int, output_index: int = 0) -> list[dict[str, Any]]:
    """The item announced empty, then its text streamed in `pieces` deltas."""
    text = "".join(part.get("text", "") for part in item.get("content", []))
    size = max(1, -(-len(text) // pieces))
    chunks = [text[i : i + size] for i in range(0, len(text), size)] or [""]
    announced = {**item, "content": []}
    return [
        {"type": "response.output_item.added", "output_index": output_index, "item": announced},
        *(
            {
                "type": "response.output_text.delta",
                "item_id": item.get("id"),
                "output_index": output_index,
                "content_index": 0,
                "delta": chunk,
            }
            for chunk in chunks
        ),
    ]


def response_events(
    response_id: str,
    items: list[dict[str, Any]],
    input_tokens: int = 0,
    output_tokens: int = 0,
    deltas: int = 0,
) -> list[dict[str, Any]]:
    """The minimal event sequence codex needs to finish a model request."""
    usage = {
        "input_tokens": input_tokens,
        "input_tokens_details": None,
        "output_tokens": output_tokens,
        "output_tokens_details": None,
        "total_tokens": input_tokens + output_tokens,
    }
    return [
        {"type": "response.created", "response": {"id": response_id}},
        *(
            event
            for index, item in enumerate(items)
            for event in [
                *(
                    text_deltas(item, deltas, index)
                    if deltas and item.get("type") == "message"
                    else []
                ),
                {"type": "response.output_item.done", "output_index": index, "item": item},
            ]
        ),
        {"type": "response.completed", "response": {"id": response_id, "usage": usage}},
    ]


def _error_body(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "wiretap_scripted_error", "code": None}}


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
        self._replies: deque[Reply] = deque(_as_reply(r) for r in replies)
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
        self._replies.extend(_as_reply(r) for r in replies)

    def release_held(self) -> None:
        """Let every answer held `until_released` go on; later ones are held anew."""
        self._released.set()
        self._released = asyncio.Event()

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
            return await self._stream(
                request, captured.index, self._compaction_items(captured), Reply()
            )
        if captured.is_model_request:
            reply = self._next_reply(captured)
            if reply.status != 200:
                await self._hold(reply, released)
                return web.json_response(_error_body(reply.error_message), status=reply.status)
            self.answers[captured.index] = reply.text
            item = assistant_message(f"msg_wiretap_{captured.index}", reply.text)
            return await self._stream(request, captured.index, [item], reply, released)
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
                body = json.loads(body_text)
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

    async def _hold(self, reply: Reply, released: asyncio.Event) -> None:
        """Wait out a reply's delay; closing the wiretap, or releasing the held answers
        for one held `until_released`, cuts it short."""
        if reply.delay_s <= 0:
            return
        events = [self._closing] + ([released] if reply.until_released else [])
        waits = [asyncio.ensure_future(event.wait()) for event in events]
        try:
            await asyncio.wait(waits, timeout=reply.delay_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()

    def _next_reply(self, captured: CapturedRequest) -> Reply:
        if self._replies:
            return self._replies.popleft()
        if self._responder is not None:
            return _as_reply(self._responder(captured))
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
        items: list[dict[str, Any]],
        reply: Reply,
        released: asyncio.Event | None = None,
    ) -> web.StreamResponse:
        self._response_count += 1
        response = web.StreamResponse(
            status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        events = response_events(
            f"resp_{self._response_count}",
            items,
            reply.input_tokens,
            reply.output_tokens,
            reply.deltas,
        )
        try:
            await response.prepare(request)
            for number, event in enumerate(events):
                await response.write(sse_event(event))
                if number == 0:  # response.created: the model has begun to answer
                    await self._hold(reply, released or self._released)
            await response.write_eof()
        except ConnectionResetError:
            # codex dropped the request before the answer was out (0.171 does this
            # when a turn is steered while a held-back answer is pending).
            self.abandoned.append(index)
        return response


def _item_type(item: Any) -> Any:
    return item.get("type") if isinstance(item, dict) else None


def _as_reply(reply: Reply | str) -> Reply:
    return Reply(text=reply) if isinstance(reply, str) else reply
