"""The fake's side of the Responses API: POST the request, read the SSE answer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from codex_probe.fake_appserver.config import ProviderConfig
from codex_probe.fake_appserver.event_stream import EventStreamDecoder
from codex_probe.fake_appserver.http_client import Answer, HttpError, post_json

MODEL_REQUEST_TIMEOUT = 120.0


class StreamEnd(StrEnum):
    """How a model request that gave no complete response ended."""

    UNREACHABLE = "unreachable"  # no answer: refused connection, deadline, not HTTP
    REFUSED = "refused"  # an HTTP status other than 200
    FAILED = "failed"  # a `response.failed` (or `error`) event
    CUT = "cut"  # the body ended without `response.completed`
    DROPPED = "dropped"  # the connection closed mid-body


@dataclass
class ModelAnswer:
    texts: list[str] = field(default_factory=list)
    # Output items that are not assistant messages (a remote compaction's item).
    other_items: list[dict[str, Any]] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    # Every output item done, in stream order (messages, reasoning, function calls...).
    items: list[dict[str, Any]] = field(default_factory=list)

    @property
    def function_calls(self) -> list[dict[str, Any]]:
        return [item for item in self.items if item.get("type") == "function_call"]


class ProviderError(RuntimeError):
    """The provider refused, broke off, or answered something that is not a response.

    `end` says how; `detail` is the provider's own message of a failed response; `answer`
    holds what was streamed before it broke off (None if nothing was)."""

    def __init__(
        self,
        message: str,
        *,
        end: StreamEnd = StreamEnd.UNREACHABLE,
        detail: str = "",
        answer: ModelAnswer | None = None,
    ) -> None:
        super().__init__(message)
        self.end = end
        self.detail = detail
        self.answer = answer


# Called with ("added", item), ("delta", event) for assistant messages and ("done", item)
# for every output item, in stream order, so a turn can report them as upstream does
# while they arrive.
StreamListener = Callable[[str, dict[str, Any]], Awaitable[None]]


# What a request to the provider can fail with, short of a ProviderError of our own:
# refused or broken connections (OSError), a cut-off answer (EOFError), an overlong or
# unreadable line (LimitOverrunError, HttpError), the deadline, or an answer not JSON.
_FAILURES = (OSError, EOFError, asyncio.LimitOverrunError, HttpError, TimeoutError, ValueError)


async def stream_response(
    base_url: str,
    body: dict[str, Any],
    listener: StreamListener | None = None,
) -> ModelAnswer:
    """Send one model request and collect the output items of its SSE stream."""
    answer = ModelAnswer()
    completed = False
    try:
        async with (
            asyncio.timeout(MODEL_REQUEST_TIMEOUT),
            post_json(f"{base_url}/responses", body) as reply,
        ):
            if reply.status != 200:
                text = (await reply.text())[:300]
                raise ProviderError(
                    f"provider answered HTTP {reply.status}: {text}", end=StreamEnd.REFUSED
                )
            try:
                async for event in _events(reply):
                    completed = await _take(event, answer, listener) or completed
            except _FAILURES as error:
                raise ProviderError(
                    f"the provider's stream broke off: {error!r}",
                    end=StreamEnd.DROPPED,
                    answer=answer,
                ) from None
    except _FAILURES as error:
        raise ProviderError(f"model request to {base_url}/responses failed: {error!r}") from None
    if not completed:
        raise ProviderError(
            "the provider's stream ended before response.completed",
            end=StreamEnd.CUT,
            answer=answer,
        )
    return answer


async def _take(
    event: dict[str, Any], answer: ModelAnswer, listener: StreamListener | None
) -> bool:
    """One event of the stream into `answer`; True if it completes the response."""
    kind = event.get("type")
    item = event.get("item") or {}
    if kind == "response.output_text.delta" and listener is not None:
        await listener("delta", event)
    elif kind == "response.output_item.added" and _is_assistant(item):
        if listener is not None:
            await listener("added", item)
    elif kind == "response.output_item.done":
        answer.items.append(item)
        if _is_assistant(item):
            answer.texts.extend(_assistant_texts(item))
        else:
            answer.other_items.append(item)
        if listener is not None:
            await listener("done", item)
    elif kind == "response.completed":
        usage = (event.get("response") or {}).get("usage") or {}
        answer.input_tokens = int(usage.get("input_tokens", 0))
        answer.output_tokens = int(usage.get("output_tokens", 0))
        return True
    elif kind in ("response.failed", "error"):
        raise ProviderError(
            f"provider reported {kind}: {json.dumps(event)[:300]}",
            end=StreamEnd.FAILED,
            detail=_failure_message(event),
            answer=answer,
        )
    return False


def _failure_message(event: dict[str, Any]) -> str:
    """The provider's message of a failed response (`response.error`, or the event's own)."""
    error = (event.get("response") or {}).get("error") or event.get("error") or {}
    message = error.get("message") if isinstance(error, dict) else None
    return str(message if message is not None else event.get("message", ""))


async def _events(reply: Answer) -> AsyncIterator[dict[str, Any]]:
    """The JSON of each event of the provider's text/event-stream."""
    decoder = EventStreamDecoder()
    async for raw in reply.lines():
        for event in decoder.feed(raw.decode("utf-8", "replace")):
            data = json.loads(event.data)
            yield data if isinstance(data, dict) else {}


def _is_assistant(item: dict[str, Any]) -> bool:
    return item.get("type") == "message" and item.get("role") == "assistant"


def _assistant_texts(item: dict[str, Any]) -> list[str]:
    return [
        str(part.get("text", ""))
        for part in item.get("content", [])
        if part.get("type") == "output_text"
    ]


async def compact_remotely(base_url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """POST the unary /responses/compact request and return its output items."""
    try:
        async with (
            asyncio.timeout(MODEL_REQUEST_TIMEOUT),
            post_json(f"{base_url}/responses/compact", body) as reply,
        ):
            if reply.status != 200:
                text = (await reply.text())[:300]
                raise ProviderError(f"provider answered HTTP {reply.status}: {text}")
            answer = await reply.json()
    except _FAILURES as error:
        raise ProviderError(
            f"compact request to {base_url}/responses/compact failed: {error!r}"
        ) from None
    output = answer.get("output") if isinstance(answer, dict) else None
    if not isinstance(output, list):
        raise ProviderError(f"compact answer has no output list: {str(answer)[:300]}")
    return [item for item in output if isinstance(item, dict)]


class ModelClient:
    """The configured provider as turns reach it: one connection per model request."""

    def __init__(self, provider: ProviderConfig) -> None:
        self.provider = provider

    @property
    def provider_name(self) -> str:
        return self.provider.provider_name

    async def respond(
        self, body: dict[str, Any], listener: StreamListener | None = None
    ) -> ModelAnswer:
        return await stream_response(self.provider.base_url, body, listener)

    async def compact(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        return await compact_remotely(self.provider.base_url, body)
