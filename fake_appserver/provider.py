"""The fake's side of the Responses API: POST the request, read the SSE answer."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

MODEL_REQUEST_TIMEOUT = 120.0


class ProviderError(RuntimeError):
    """The provider refused, broke off, or answered something that is not a response."""


@dataclass
class ModelAnswer:
    texts: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0


async def stream_response(
    session: aiohttp.ClientSession,
    base_url: str,
    body: dict[str, Any],
    on_delta: Callable[[str], Awaitable[None]] | None = None,
) -> ModelAnswer:
    """Send one model request and collect the assistant messages of its SSE stream."""
    answer = ModelAnswer()
    timeout = aiohttp.ClientTimeout(total=MODEL_REQUEST_TIMEOUT)
    try:
        async with session.post(f"{base_url}/responses", json=body, timeout=timeout) as reply:
            if reply.status != 200:
                text = (await reply.text())[:300]
                raise ProviderError(f"provider answered HTTP {reply.status}: {text}")
            completed = False
            async for raw in reply.content:
                line = raw.decode("utf-8", "replace").strip()
                if not line.startswith("data:"):
                    continue
                event = json.loads(line[5:].strip() or "{}")
                kind = event.get("type")
                if kind == "response.output_text.delta" and on_delta is not None:
                    await on_delta(str(event.get("delta", "")))
                elif kind == "response.output_item.done":
                    answer.texts.extend(_assistant_texts(event.get("item", {})))
                elif kind == "response.completed":
                    usage = (event.get("response") or {}).get("usage") or {}
                    answer.input_tokens = int(usage.get("input_tokens", 0))
                    answer.output_tokens = int(usage.get("output_tokens", 0))
                    completed = True
                elif kind in ("response.failed", "error"):
                    raise ProviderError(f"provider reported {kind}: {json.dumps(event)[:300]}")
    except (aiohttp.ClientError, TimeoutError, json.JSONDecodeError) as error:
        raise ProviderError(f"model request to {base_url}/responses failed: {error!r}") from None
    if not completed:
        raise ProviderError("the provider's stream ended before response.completed")
    return answer


def _assistant_texts(item: dict[str, Any]) -> list[str]:
    if item.get("type") != "message" or item.get("role") != "assistant":
        return []
    return [
        str(part.get("text", ""))
        for part in item.get("content", [])
        if part.get("type") == "output_text"
    ]
