"""The JSON-RPC side of a release's surface, read from a scenario's recorded transcript
(codex_probe/probes/domain/reading.py's View): the notifications codex sent, the shape of each
answer, every refusal, the `initialize` answers.

What codex sends is read in the order codex sent it. Where an answer falls among the
notifications of the work it started is a race inside codex (measured on 0.158.0 under
load: a turn's `turn/started` before or after the answer to its turn/start), and where our
own requests fall among codex's messages a race of the client; neither is behaviour. So a
notification belongs to a request by what it is about:

- one of a turn (it names the turn: `turn/*`, `item/*`, `thread/compacted`) is the
  request's that started the turn: the turn/start whose answer names it, else (a
  compaction's turn) the last request sent before the turn's first notification;
- a thread's status change followed at once by the start or the end of a turn on that
  thread is that turn's (codex reports the thread active, then the turn started; idle,
  then the turn completed);
- `thread/started` is the thread/start's (or thread/fork's) whose answer names the thread;
- any other (a resumed thread's status, `thread/closed`) is the request's whose answer
  came last before it.

Requests and their answers are paired by id within one process (ids start again after each
`initialize`), so a late answer (one that came after its step ended) is still its
request's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codex_probe.probes.domain.reading import View
from codex_probe.probes.domain.surface.shape import mask_text, shape
from codex_probe.probes.domain.timing import CHUNKS, settled

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
    """One request the scenario sent, what came back for it, and the lifecycle
    notifications that belong to it (see the module)."""

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
    item notification (`item/started:agentMessage`) and the status for a thread's
    (`thread/status/changed:idle`), and a request codex asks the client marked as such."""
    method = str(message.get("method"))
    if "id" in message:
        return f"{method} (request)"
    params = message.get("params")
    if method in ITEM_NOTIFICATIONS and isinstance(params, dict):
        item = params.get("item")
        if isinstance(item, dict):
            return f"{method}:{item.get('type')}"
    if method == STATUS and isinstance(params, dict) and isinstance(params.get("status"), dict):
        return f"{method}:{params['status'].get('type')}"
    return method


STATUS = "thread/status/changed"


@dataclass
class _Heard:
    """A lifecycle notification, where it stood."""

    label: str
    thread: Any
    turn: Any
    method: str
    answered_last: Exchange | None  # the exchange whose answer came last before it
    sent_last: Exchange | None  # the request sent last before it


def read_wire(view: View) -> WireReading:
    reading = WireReading()
    spans = [(step["label"], *(step.get("transcript_span") or (0, 0))) for step in view.steps]
    pending: dict[Any, Exchange] = {}
    answered_last: Exchange | None = None
    sent_last: Exchange | None = None
    heard: list[_Heard] = []
    turn_owner: dict[Any, Exchange] = {}
    thread_owner: dict[Any, Exchange] = {}
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
                sent_last = exchange
            continue
        if "method" in message:
            method = str(message["method"])
            if method in CHUNKS:
                continue
            if not in_lifecycle(method) and "id" not in message:
                reading.incidental.add(method)
                continue
            params = message.get("params") if isinstance(message.get("params"), dict) else {}
            heard.append(
                _Heard(
                    notification_label(message),
                    _thread_of(params),
                    _turn_of(params),
                    method,
                    answered_last,
                    sent_last,
                )
            )
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
            named = _turn_of(message.get("result"))
            if answered.method == "turn/start" and named is not None:
                turn_owner.setdefault(named, answered)
            started = _thread_of(message.get("result"))
            if answered.method in THREAD_STARTS and started is not None:
                thread_owner.setdefault(started, answered)
        answered_last = answered
    told: dict[int, tuple[Any, str]] = {}  # owner -> the thread status it was told last
    for position, notification in enumerate(heard):
        owner = _owner(notification, heard[position + 1 :], turn_owner, thread_owner)
        if owner is None:
            continue
        if notification.method == STATUS:
            # The same status of a thread twice in a row says nothing new; 0.171.0 sends
            # notLoaded once or twice when a resume races the unload of an unsubscribed one.
            said = (notification.thread, notification.label)
            if told.get(id(owner)) == said and owner.notifications[-1:] == [said[1]]:
                continue
            told[id(owner)] = said
        owner.notifications.append(notification.label)
    for exchange in reading.exchanges:
        exchange.notifications = settled(exchange.notifications)
    for step in view.steps:
        if step.get("unanswered_within") is not None:
            reading.unanswered[step["label"]] = float(step["unanswered_within"])
    return reading


def _owner(
    notification: _Heard,
    later: list[_Heard],
    turn_owner: dict[Any, Exchange],
    thread_owner: dict[Any, Exchange],
) -> Exchange | None:
    if notification.method == "thread/started" and notification.thread in thread_owner:
        return thread_owner[notification.thread]
    turn = notification.turn
    if turn is None and notification.method == STATUS:
        following = next((n for n in later if n.thread == notification.thread), None)
        if following is not None and following.method in TURN_BOUNDARIES:
            turn = following.turn
    if turn is None:
        return notification.answered_last
    if turn not in turn_owner and notification.sent_last is not None:
        turn_owner[turn] = notification.sent_last  # a turn no answer named: a compaction's
    return turn_owner.get(turn)


TURN_BOUNDARIES = ("turn/started", "turn/completed")
# The requests whose answer names the thread a `thread/started` is about.
THREAD_STARTS = ("thread/start", "thread/fork")


def _thread_of(params: Any) -> Any:
    if not isinstance(params, dict):
        return None
    thread = params.get("thread")
    return params.get("threadId") or (thread.get("id") if isinstance(thread, dict) else None)


def _turn_of(params: Any) -> Any:
    """The turn a notification's params (or an answer) are about: `turnId`, or `turn.id`."""
    if not isinstance(params, dict):
        return None
    turn = params.get("turn")
    return params.get("turnId") or (turn.get("id") if isinstance(turn, dict) else None)


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
