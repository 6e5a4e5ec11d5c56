"""The JSON-RPC side of a release's surface, read from a scenario's recorded transcript
(probes/domain/reading.py's View): the notifications codex sent, the shape of each answer,
every refusal, the `initialize` answers.

What codex sends is read in the order codex sent it, which two runs agree on; where our
own requests fall between its messages is a race of the client, not codex's behaviour. So
the notifications are grouped by the answers around them: those after the answer to a
request, up to the next answer, are that request's (a turn's events follow the answer to
its turn/start; a notification codex sends while it works on the next request, before
answering it, is still the earlier one's). Requests and their answers are paired by id
within one process (ids start again after each `initialize`), so a late answer (one that
came after its step ended) is still its request's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codex_probe.probes.domain.reading import View
from codex_probe.probes.domain.surface.shape import mask_text, shape

# Item notifications whose label names the item's type.
ITEM_NOTIFICATIONS = ("item/started", "item/completed")
# The lifecycle of threads, turns and items: codex sends these in an order two runs agree
# on. Every other notification (warnings, token usage, rate limits, a goal cleared,
# remote control's status...) comes from a task of its own, and lands before or after a
# nearby answer by chance (measured: 0.171.0's `warning` of a turn, its token usage after a
# steer): those are listed per scenario instead, by method (how many come varies too: an
# interrupted turn's token usage is sent or not).
LIFECYCLE_PREFIXES = ("turn/", "item/")
LIFECYCLE_THREAD = ("thread/started", "thread/status/changed", "thread/closed", "thread/compacted")


def in_lifecycle(method: str) -> bool:
    return method.startswith(LIFECYCLE_PREFIXES) or method in LIFECYCLE_THREAD


BETWEEN_STEPS = "(between steps)"


@dataclass
class Exchange:
    """One request the scenario sent, what came back for it, and the notifications codex
    sent after that answer and before the next one."""

    step: str
    method: str
    notifications: list[str] = field(default_factory=list)
    result: Any = None
    error: dict[str, Any] | None = None
    answered: bool = False
    late: bool = False  # answered after its step ended


@dataclass
class WireReading:
    """What one scenario's transcript says, step by step."""

    exchanges: list[Exchange] = field(default_factory=list)
    # The notifications outside the lifecycle the scenario received, by method.
    incidental: set[str] = field(default_factory=set)
    unanswered: dict[str, float] = field(default_factory=dict)  # step -> seconds of silence


def notification_label(message: dict[str, Any]) -> str:
    """A notification as the surface names it: its method, with the item's type for an
    item notification (`item/started:agentMessage`), and a request codex asks the client
    marked as such."""
    method = str(message.get("method"))
    if "id" in message:
        return f"{method} (request)"
    params = message.get("params")
    if method in ITEM_NOTIFICATIONS and isinstance(params, dict):
        item = params.get("item")
        if isinstance(item, dict):
            return f"{method}:{item.get('type')}"
    return method


def read_wire(view: View) -> WireReading:
    reading = WireReading()
    spans = [(step["label"], *(step.get("transcript_span") or (0, 0))) for step in view.steps]
    pending: dict[Any, Exchange] = {}
    answered_last: Exchange | None = None  # whose notifications codex is sending
    for index, (direction, message) in enumerate(view.transcript):
        if not isinstance(message, dict):
            continue
        step = next((label for label, start, end in spans if start <= index < end), None)
        if direction == "send":
            if "method" in message and "id" in message:
                if message["method"] == "initialize":
                    pending, answered_last = {}, None  # a new process: ids start again
                exchange = Exchange(step or BETWEEN_STEPS, str(message["method"]))
                pending[message["id"]] = exchange
                reading.exchanges.append(exchange)
            continue
        if "method" in message:
            method = str(message["method"])
            if not in_lifecycle(method) and "id" not in message:
                reading.incidental.add(method)
            elif answered_last is not None:
                answered_last.notifications.append(notification_label(message))
            continue
        answered = pending.pop(message.get("id"), None) if "id" in message else None
        if answered is None:
            continue
        answered.answered = True
        answered.late = step != answered.step
        if isinstance(message.get("error"), dict):
            answered.error = message["error"]
        else:
            answered.result = message.get("result")
        answered_last = answered
    for step in view.steps:
        if step.get("unanswered_within") is not None:
            reading.unanswered[step["label"]] = float(step["unanswered_within"])
    return reading


def answer_value(exchange: Exchange, silence: float | None) -> dict[str, Any]:
    """An answer's shape; for a request its step saw go unanswered, that silence (and the
    shape of the late answer, if one came)."""
    if silence is None:
        return shape(exchange.result)
    late = shape(exchange.result) if exchange.answered and exchange.error is None else None
    return {"unanswered_within_s": silence, "late_answer": late}


def refusal_value(exchange: Exchange) -> dict[str, Any]:
    error = exchange.error or {}
    return {
        "code": error.get("code"),
        "message": mask_texts(error.get("message")),
        "data": mask_texts(error.get("data")),
    }


def mask_texts(value: Any) -> Any:
    """Every text in a JSON value masked (shape.mask_text)."""
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, list):
        return [mask_texts(item) for item in value]
    if isinstance(value, dict):
        return {key: mask_texts(item) for key, item in value.items()}
    return value
