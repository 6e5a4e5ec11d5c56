"""A model reply as a script: the output items one response streams, and how it ends.

`Reply(text="ok")` is one assistant message, as it always was. A script lists the items:

    Reply(items=(Reasoning(summary=("plan",)), exec_command("echo hi")))  # codex runs it
    Reply(items=(Message("one"), Message("two")))           # several output items
    Reply(text="half an answer", end=End.FAILED)            # then response.failed
    Reply(text="half an answer", end=End.CUT)               # no response.completed
    Reply(items=(Message("a"), Hold(), Message("b")))       # held until released

The events are those of the Responses API as codex reads them (upstream's own mock model
in codex-rs/core/tests/common/responses.rs sends the same): `response.created`, per item
`response.output_item.done` (a message streamed in deltas is first announced with
`response.output_item.added`), then `response.completed`, `response.failed`, or nothing.

A function call's id is `call_wiretap_<request>_<position>` unless the script names one,
so the output codex sends back in its next model request can be found by it
(`CapturedRequest.call_outputs()`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeAlias

# The code of a scripted response.failed unless the reply names one: a server error, which
# codex would retry if its provider allowed retries (the rig's homes allow none).
DEFAULT_FAILURE_CODE = "server_error"
# How long exec_command waits for a command's output before it answers with a session id
# (the tool's own parameter; upstream's app-server tests use 500 ms).
EXEC_YIELD_MS = 5000


class End(StrEnum):
    """How a response's stream ends."""

    COMPLETED = "completed"  # response.completed, with the usage
    FAILED = "failed"  # response.failed, naming an error code and message
    CUT = "cut"  # the body ends without response.completed
    DROPPED = "dropped"  # the connection is closed mid-body (no last chunk)


@dataclass(frozen=True)
class Message:
    """An assistant message; with `deltas`, its text streams in that many pieces first."""

    text: str
    deltas: int = 0


@dataclass(frozen=True)
class Reasoning:
    """A reasoning item: its summary parts and (raw) content parts."""

    summary: tuple[str, ...] = ("wiretap reasoning",)
    content: tuple[str, ...] = ()
    encrypted_content: str | None = None


@dataclass(frozen=True)
class FunctionCall:
    """A call of a tool codex offered in its request's `tools` (`arguments` is JSON text,
    as the Responses API sends it)."""

    name: str
    arguments: str
    call_id: str = ""


@dataclass(frozen=True)
class Hold:
    """A pause in the stream: the rest waits `deadline_s`, or until `Wiretap.release_held()`
    (with `until_released`), or until the wiretap closes."""

    deadline_s: float = 30.0
    until_released: bool = True


OutputItem: TypeAlias = Message | Reasoning | FunctionCall
Step: TypeAlias = OutputItem | Hold


def exec_command(cmd: str, *, call_id: str = "", **arguments: Any) -> FunctionCall:
    """A call of `exec_command`, the shell tool codex 0.120.0 to 0.171.0 offer (measured:
    none of them offers `shell` or `shell_command` to a model outside its catalog)."""
    payload = {"cmd": cmd, "yield_time_ms": EXEC_YIELD_MS, **arguments}
    return FunctionCall("exec_command", json.dumps(payload), call_id)


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

    `items` scripts the response (see the module; `()` is a response without output
    items); without it the response is one message of `text`, streamed in `deltas`
    pieces when that is not 0. `end` says how the
    stream ends; a FAILED one names `failure_code` and `error_message`.
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
    items: tuple[Step, ...] | None = None
    end: End = End.COMPLETED
    failure_code: str = DEFAULT_FAILURE_CODE

    @property
    def steps(self) -> tuple[Step, ...]:
        """The scripted steps; a reply without a script is its one message."""
        return (Message(self.text, self.deltas),) if self.items is None else self.items

    @property
    def message_text(self) -> str:
        """The text of the reply's messages, joined by newlines (its answer, as recorded)."""
        return "\n".join(step.text for step in self.steps if isinstance(step, Message))

    @property
    def function_calls(self) -> tuple[FunctionCall, ...]:
        return tuple(step for step in self.steps if isinstance(step, FunctionCall))


def as_reply(reply: Reply | str) -> Reply:
    return Reply(text=reply) if isinstance(reply, str) else reply


# ----- the events ----------------------------------------------------------------------


def sse_event(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def assistant_message(item_id: str, text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "id": item_id,
        "content": [{"type": "output_text", "text": text}],
    }


def reasoning_item(item_id: str, reasoning: Reasoning) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": item_id,
        "summary": [{"type": "summary_text", "text": text} for text in reasoning.summary],
    }
    if reasoning.content:
        item["content"] = [{"type": "reasoning_text", "text": text} for text in reasoning.content]
    if reasoning.encrypted_content is not None:
        item["encrypted_content"] = reasoning.encrypted_content
    return item


def function_call_item(item_id: str, call: FunctionCall, call_id: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": call.name,
        "arguments": call.arguments,
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


def usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": None,
        "output_tokens": output_tokens,
        "output_tokens_details": None,
        "total_tokens": input_tokens + output_tokens,
    }


def response_events(
    response_id: str,
    items: list[dict[str, Any]],
    input_tokens: int = 0,
    output_tokens: int = 0,
    deltas: int = 0,
) -> list[dict[str, Any]]:
    """The minimal event sequence codex needs to finish a model request."""
    return [
        {"type": "response.created", "response": {"id": response_id}},
        *(
            event
            for index, item in enumerate(items)
            for event in item_events(item, index, deltas if item.get("type") == "message" else 0)
        ),
        completed_event(response_id, input_tokens, output_tokens),
    ]


def item_events(item: dict[str, Any], index: int, deltas: int = 0) -> list[dict[str, Any]]:
    """One output item's events: (announced and streamed, then) done."""
    streamed = text_deltas(item, deltas, index) if deltas else []
    return [*streamed, {"type": "response.output_item.done", "output_index": index, "item": item}]


def completed_event(response_id: str, input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "type": "response.completed",
        "response": {"id": response_id, "usage": usage(input_tokens, output_tokens)},
    }


def failed_event(response_id: str, code: str, message: str) -> dict[str, Any]:
    return {
        "type": "response.failed",
        "response": {"id": response_id, "error": {"code": code, "message": message}},
    }


@dataclass(frozen=True)
class Stream:
    """What the wiretap writes for one scripted reply: events and holds in order, and
    whether the connection is dropped after them."""

    steps: list[dict[str, Any] | Hold]
    drop: bool
    # The call ids of the function calls it makes, in order.
    call_ids: list[str]


def script_stream(reply: Reply, response_id: str, request_index: int) -> Stream:
    """The stream of `reply` to model request `request_index`.

    A reply's own `delay_s` is a hold right after `response.created` (as it always was);
    the script's holds come where it puts them.
    """
    steps: list[dict[str, Any] | Hold] = [
        {"type": "response.created", "response": {"id": response_id}}
    ]
    if reply.delay_s > 0:
        steps.append(Hold(reply.delay_s, reply.until_released))
    call_ids: list[str] = []
    position = 0
    for step in reply.steps:
        if isinstance(step, Hold):
            steps.append(step)
            continue
        item, deltas = _item(step, request_index, position)
        if isinstance(step, FunctionCall):
            call_ids.append(item["call_id"])
        steps.extend(item_events(item, position, deltas))
        position += 1
    if reply.end is End.COMPLETED:
        steps.append(completed_event(response_id, reply.input_tokens, reply.output_tokens))
    elif reply.end is End.FAILED:
        steps.append(failed_event(response_id, reply.failure_code, reply.error_message))
    return Stream(steps, reply.end is End.DROPPED, call_ids)


def _item(step: OutputItem, request_index: int, position: int) -> tuple[dict[str, Any], int]:
    """The Responses item of one scripted output item, and its text deltas."""
    if isinstance(step, Message):
        # The first message keeps the id a plain reply always had.
        suffix = "" if position == 0 else f"_{position}"
        return assistant_message(f"msg_wiretap_{request_index}{suffix}", step.text), step.deltas
    if isinstance(step, Reasoning):
        return reasoning_item(f"rs_wiretap_{request_index}_{position}", step), 0
    call_id = step.call_id or f"call_wiretap_{request_index}_{position}"
    return function_call_item(f"fc_wiretap_{request_index}_{position}", step, call_id), 0
