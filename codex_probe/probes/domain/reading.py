"""How a recorded run is read: the one view of an observation, the reading expressions
evaluated on it, the evidence they rest on, and the preconditions every finding needs.

Standard library only and self-contained: a reproduction bundle carries this very file
(`reading.py` beside `reproduce.py`, loaded by its path) and judges codex's run with it
exactly as codex-probe judged the recorded one. Nothing else reads an observation.

A record is plain JSON, written by codex-probe (`codex_probe/probes/domain/observation.py`) or by a
bundle's replay:

    {"steps": [{"step", "label", "result", "error" (code, message, and data when codex
                sent one), "unanswered_within", "model_requests": [request index, ...],
                "requires"?: [{"what", "expression"}], "transcript_span"?: [start, end]}],
     "model_requests": [{"index", "method", "path", "body",
                         "events"?: [SSE event types streamed], "abandoned"?: bool}],
     "received": [every message codex sent, in order],
     "transcript"?: [[direction, message], ...] (both ways), "threads"?: {label: id},
     "answers"?: {request index: the wiretap's answer text} (codex-probe's records only),
     "failure": null or {"step", "kind", "detail"}}

An expression is {operation: argument} (the operations are `Reading.OPERATIONS`; their
words are in `codex_probe/probes/domain/expressions.py`). An assumption's `reads` maps each observed
value to one expression; the values are compared with its `expected` by `judge`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

# ----- what the model was sent, as labels -----------------------------------------------

MARKER_PREFIX = "CODEX-PROBE-"
MARKER = re.compile(r"CODEX-PROBE-[A-Z0-9][A-Z0-9-]*[A-Z0-9]")
# How codex's prompt for a local compaction begins (its last input item).
COMPACTION_PROMPT_OPENING = "You are performing a CONTEXT CHECKPOINT COMPACTION"
# The path of a remote compaction (a provider codex compacts on: one named OpenAI).
REMOTE_COMPACTION_PATH = "/responses/compact"
# The blocks codex writes itself, named by their opening words (docs/observations/): their
# text changes with every release, so they are classified rather than compared.
DEFAULT_PROMPT = "codex:default_prompt"
ENVIRONMENT = "codex:environment_context"
PERMISSIONS = "codex:permissions"
SKILLS = "codex:skills"
TOOLS = "codex:tools"
COMPACTION_PROMPT = "codex:compaction_prompt"
COMPACTION_SUMMARY = "codex:compaction_summary"
MODEL_SWITCH = "codex:model_switch"
CODEX_BLOCKS = (
    ("You are a coding agent running in the Codex CLI", DEFAULT_PROMPT),
    ("<environment_context>", ENVIRONMENT),
    ("<permissions instructions>", PERMISSIONS),
    ("<skills_instructions>", SKILLS),
    ("<tools>", TOOLS),
    (COMPACTION_PROMPT_OPENING, COMPACTION_PROMPT),
    ("Another language model started to solve this problem", COMPACTION_SUMMARY),
    ("<model_switch>", MODEL_SWITCH),
)
# The kinds of failure a finding can rest on, besides how a step failed.
PRECONDITION = "precondition not met"
UNREADABLE = "unreadable"


def marker(name: str) -> str:
    """The marker text for `name` (upper case letters, digits and dashes)."""
    return MARKER_PREFIX + name


def markers_in(text: str) -> list[str]:
    return [found[len(MARKER_PREFIX) :] for found in MARKER.findall(text)]


def label_text(text: str, role: Any = None) -> str:
    """A short label: the markers a text holds, or the kind of codex block it is."""
    found = markers_in(text)
    for opening, kind in CODEX_BLOCKS:
        if text.startswith(opening):
            return kind + (f"[{'+'.join(found)}]" if found else "")
    if found:
        return "+".join(found)
    return "reply" if role == "assistant" else "text"


def request_kind(path: str, body: dict[str, Any]) -> str:
    """ "compaction" or "turn": what codex asked the model for."""
    if path.endswith(REMOTE_COMPACTION_PATH):
        return "compaction"
    items = body.get("input") or []
    last = items[-1] if items else {}
    if last.get("type") == "compaction_trigger":
        return "compaction"
    texts = [str(part.get("text", "")) for part in last.get("content") or []]
    return "compaction" if any(t.startswith(COMPACTION_PROMPT_OPENING) for t in texts) else "turn"


def normalized_item(item: dict[str, Any]) -> dict[str, Any]:
    """An input item as labels: a message's role and parts, or another item's type."""
    if item.get("type") != "message":
        return {"type": item.get("type")}
    role = item.get("role")
    parts = [label_text(str(part.get("text", "")), role) for part in item.get("content") or []]
    return {"role": role, "parts": parts}


def normalized_request(body: dict[str, Any], path: str = "/v1/responses") -> dict[str, Any]:
    """A model request as labels: what the fake-versus-real comparison and the evidence see."""
    instructions = body.get("instructions")
    return {
        "path": path.rsplit("/v1", 1)[-1],
        "kind": request_kind(path, body),
        "instructions": None if instructions is None else label_text(str(instructions)),
        "input": [normalized_item(item) for item in body.get("input") or []],
        "tools": bool(body.get("tools")),
    }


def describe_request(body: dict[str, Any]) -> str:
    """A request as one line of labels, for evidence."""
    normalized = normalized_request(body)
    items = "; ".join(
        f"[{i}] {item.get('role', item.get('type'))}: {', '.join(item.get('parts', []))}"
        for i, item in enumerate(normalized["input"])
    )
    return f"instructions={normalized['instructions']}; input {items}"


class Place(NamedTuple):
    """Where a marker is in one model request."""

    field: str  # "instructions" or "input"
    item: int | None
    role: Any
    part: int | None
    offset: int  # where in that text the marker begins

    def describe(self) -> str:
        if self.field == "instructions":
            return "top-level instructions field"
        return f"input[{self.item}] role={self.role} part {self.part}"

    def position(self) -> tuple[int, int, int]:
        # The instructions field comes before every input item.
        if self.item is None:
            return (-1, 0, self.offset)
        return (self.item, self.part or 0, self.offset)


def locate(body: dict[str, Any], name: str) -> list[Place]:
    """Every place the marker `name` is in a model request body."""
    wanted = marker(name)
    found: list[Place] = []
    instructions = str(body.get("instructions") or "")
    if wanted in instructions:
        found.append(Place("instructions", None, None, None, instructions.index(wanted)))
    for item_index, item in enumerate(body.get("input") or []):
        for part_index, part in enumerate(item.get("content") or []):
            text = str(part.get("text", "")) if isinstance(part, dict) else ""
            if wanted in text:
                found.append(
                    Place("input", item_index, item.get("role"), part_index, text.index(wanted))
                )
    return found


def call_outputs(body: dict[str, Any]) -> list[str]:
    """The text of every function call output a model request sends back, in order."""
    found = []
    for item in body.get("input") or []:
        if not isinstance(item, dict) or item.get("type") != "function_call_output":
            continue
        output = item.get("output")
        if isinstance(output, list):
            output = "".join(str(p.get("text", "")) for p in output if isinstance(p, dict))
        found.append("" if output is None else str(output))
    return found


def item_text(item: Any) -> str:
    """The text of a notified item: a message's text or its content parts, a summary, a
    command's output."""
    if not isinstance(item, dict):
        return ""
    parts = [str(item.get(key) or "") for key in ("text", "aggregatedOutput")]
    for key in ("content", "summary"):
        for part in item.get(key) or []:
            parts.append(str(part.get("text", "")) if isinstance(part, dict) else str(part))
    return "\n".join(parts)


def dig(value: Any, path: list[str]) -> Any:
    """value[path[0]][path[1]]...; None where a part is missing or not an object."""
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


# ----- the view of a record ------------------------------------------------------------


class Unreadable(Exception):
    """The record lacks what a value is read from: the finding is broken, not judged."""

    def __init__(self, step: str, detail: str) -> None:
        super().__init__(detail)
        self.step = step


class View:
    """A recorded run, by step: what each step was answered and what it sent the model."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record
        self.steps: list[dict[str, Any]] = record["steps"]
        self.by_label: dict[str, dict[str, Any]] = {}
        for step in self.steps:
            self.by_label.setdefault(step["label"], step)
        self.requests = {request["index"]: request for request in record["model_requests"]}
        self.received: list[Any] = [m for m in record["received"] if isinstance(m, dict)]
        # Both directions with each step's span, the thread ids by label, the text the
        # wiretap answered each model request with: codex-probe's records only.
        self.transcript: list[tuple[str, Any]] = [
            (str(direction), message) for direction, message in record.get("transcript") or []
        ]
        self.threads: dict[str, str] = dict(record.get("threads") or {})
        self.answers: dict[int, str] = {
            int(index): text for index, text in (record.get("answers") or {}).items()
        }

    def step(self, label: str) -> dict[str, Any]:
        if label not in self.by_label:
            raise Unreadable(label, f"the run recorded no step {label!r}")
        return self.by_label[label]

    def requests_of(self, label: str) -> list[dict[str, Any]]:
        """Every model request made during step `label`, JSON body or not."""
        return [self.requests[i] for i in self.step(label)["model_requests"]]

    def bodies(self, label: str) -> list[dict[str, Any]]:
        """The JSON bodies of the model requests made during step `label`."""
        found = [request.get("body") for request in self.requests_of(label)]
        return [body for body in found if isinstance(body, dict)]

    def body(self, label: str) -> dict[str, Any]:
        """The last model request of step `label`: the one its values are read in."""
        bodies = self.bodies(label)
        if not bodies:
            raise Unreadable(label, f"step {label!r} made no model request")
        return bodies[-1]

    def normalized(self, label: str) -> list[dict[str, Any]]:
        """The step's model requests as labels (those with a JSON body)."""
        return [
            normalized_request(request["body"], str(request.get("path", "")))
            for request in self.requests_of(label)
            if isinstance(request.get("body"), dict)
        ]

    def messages(self, label: str, direction: str) -> list[Any]:
        """The messages of one direction said while step `label` ran."""
        start, end = self.step(label).get("transcript_span") or (0, 0)
        return [m for d, m in self.transcript[start:end] if d == direction]


# ----- reading expressions --------------------------------------------------------------

ABSENT = object()  # an `if` whose test failed: the value is left out of what was observed


class Reading:
    """The values of expressions over one view. `rules` is how the driver reads a refusal
    (codex_probe/harness/driver/refusals.py, as data): {"code": int, "thread": [[pattern, reading]],
    "steer": [...]}."""

    def __init__(self, view: View, rules: dict[str, Any]) -> None:
        self.view = view
        self.rules = rules
        self.operations: dict[str, Callable[[Any], Any]] = {
            "const": lambda value: value,
            "all": lambda parts: all([self.value(part) for part in parts]),
            "any": lambda parts: any([self.value(part) for part in parts]),
            "not": lambda part: not self.value(part),
            "equal": lambda pair: self.value(pair[0]) == self.value(pair[1]),
            "member": lambda pair: self.value(pair[0]) in self.value(pair[1]),
            "if": lambda at: self.value(at["then"]) if self.value(at["test"]) else ABSENT,
            "seen": lambda at: bool(self.places(at)),
            "where": lambda at: [place.describe() for place in self.places(at)],
            "count": lambda at: len(self.places(at)),
            "output_seen": lambda at: any(
                marker(at["marker"]) in output
                for output in call_outputs(self.view.body(at["step"]))
            ),
            "outputs": lambda label: len(call_outputs(self.view.body(label))),
            "in_role": lambda at: any(place.role == at["role"] for place in self.places(at)),
            "role_before": lambda at: self.item_before(at).get("role"),
            "item_before": lambda at: normalized_item(self.item_before(at)),
            "order": self.order,
            "block_seen": self.block_seen,
            "same_layout": self.same_layout,
            "requests": lambda label: len(self.view.bodies(label)),
            "paths": lambda label: [r.get("path") for r in self.view.requests_of(label)],
            "offers_tools": lambda label: bool(
                self.view.bodies(label) and self.view.bodies(label)[0].get("tools")
            ),
            "refused": lambda label: self.view.step(label)["error"] is not None,
            "silent": lambda label: self.view.step(label)["unanswered_within"] is not None,
            "error": self.error,
            "refusal_reading": self.refusal_reading,
            "answer": lambda at: dig(self.view.step(at["step"])["result"], at["path"]),
            "turns_started": lambda _: [
                str(dig(m, ["params", "turn", "id"]))
                for m in self.view.received
                if m.get("method") == "turn/started"
            ],
            "received_with_field": lambda name: any(name in m for m in self.view.received),
            "notified": lambda at: self.notified_at(at) is not None,
            "notified_before": self.notified_before,
            "error_with_field": lambda name: any(
                isinstance(m.get("error"), dict) and name in m["error"] for m in self.view.received
            ),
        }

    def value(self, expression: dict[str, Any]) -> Any:
        [(operation, argument)] = expression.items()
        return self.operations[operation](argument)

    def values(self, reads: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """Every observed value of `reads` (a failed `if` leaves its key out)."""
        found = {key: self.value(expression) for key, expression in reads.items()}
        return {key: value for key, value in found.items() if value is not ABSENT}

    def places(self, at: dict[str, Any]) -> list[Place]:
        return locate(self.view.body(at["step"]), at["marker"])

    def notified_at(self, at: dict[str, Any]) -> int | None:
        """The position, among the messages received, of the first `method` notification of
        an item of `type` whose text holds `marker` (any text when none is named)."""
        wanted = marker(at["marker"]) if at.get("marker") else ""
        for position, message in enumerate(self.view.received):
            if message.get("method") != at["method"] or "id" in message:
                continue
            item = dig(message, ["params", "item"])
            if dig(item, ["type"]) == at["type"] and wanted in item_text(item):
                return position
        return None

    def notified_before(self, at: dict[str, Any]) -> bool:
        """Whether the `first` notification came, and before the `then` one (or without it)."""
        first, then = self.notified_at(at["first"]), self.notified_at(at["then"])
        return first is not None and (then is None or first < then)

    def item_before(self, at: dict[str, Any]) -> dict[str, Any]:
        """The input item just before the first one that holds the marker."""
        items = [place.item for place in self.places(at) if place.item is not None]
        if not items or items[0] == 0:
            detail = f"no input item of step {at['step']} follows one and holds {at['marker']}"
            raise Unreadable(at["step"], detail)
        item: dict[str, Any] = self.view.body(at["step"])["input"][items[0] - 1]
        return item

    def order(self, at: dict[str, Any]) -> Any:
        """The word of the marker that comes first in the request, when all are in it."""
        firsts = []
        for name, word in at["markers"].items():
            places = self.places({"marker": name, "step": at["step"]})
            if not places:
                return "n/a"
            firsts.append((min(place.position() for place in places), word))
        return min(firsts)[1]

    def block_seen(self, at: dict[str, Any]) -> bool:
        normalized = normalized_request(self.view.body(at["step"]))
        labels = [str(normalized["instructions"])]
        labels += [part for item in normalized["input"] for part in item.get("parts", [])]
        return any(at["block"] in label for label in labels)

    def same_layout(self, at: dict[str, Any]) -> bool:
        """Whether two steps' requests look alike, parts starting with `ignoring` aside."""

        def without(label: str) -> tuple[Any, list[dict[str, Any]]]:
            normalized = normalized_request(self.view.body(label))
            kept = [
                {
                    **item,
                    "parts": [p for p in item.get("parts", []) if not p.startswith(at["ignoring"])],
                }
                for item in normalized["input"]
            ]
            return normalized["instructions"], kept

        first, second = at["steps"]
        return without(first) == without(second)

    def error(self, at: dict[str, Any]) -> Any:
        """A field of the step's refusal (None: answered), or the whole refusal."""
        refusal = self.view.step(at["step"])["error"]
        if at.get("field") is None:
            return refusal
        return (refusal or {}).get(at["field"])

    def refusal_reading(self, at: dict[str, Any]) -> Any:
        """How the driver reads the step's refusal (None: answered, or no rule matches)."""
        refusal = self.view.step(at["step"])["error"]
        if refusal is None or refusal.get("code") != self.rules["code"]:
            return None
        message = str(refusal.get("message"))
        rules = self.rules[at["rules"]]
        return next((reading for pattern, reading in rules if re.match(pattern, message)), None)


# ----- evidence: what each value was read from ------------------------------------------

# Operations that read the last model request of a step, every request of one, the
# step's answer, or the whole run's messages.
READS_LAST_REQUEST = (
    *("seen", "where", "in_role", "role_before", "item_before", "order", "block_seen"),
    *("count", "output_seen", "outputs"),
)
READS_EVERY_REQUEST = ("requests", "paths", "offers_tools")
READS_ANSWER = ("refused", "silent", "error", "refusal_reading", "answer")
READS_RECEIVED = (
    *("turns_started", "received_with_field", "error_with_field", "notified", "notified_before"),
)


def sources(expression: Any) -> Iterator[tuple[str, Any]]:
    """(operation, argument) of every leaf an expression reads, in order."""
    if isinstance(expression, list):
        for part in expression:
            yield from sources(part)
        return
    if not isinstance(expression, dict) or len(expression) != 1:
        return
    [(operation, argument)] = expression.items()
    if operation in ("all", "any", "not", "equal", "member"):
        yield from sources(argument)
    elif operation == "if":
        yield from sources(argument["test"])
        yield from sources(argument["then"])
    elif operation == "same_layout":
        for label in argument["steps"]:
            yield "seen", {"step": label}
    elif operation != "const":
        yield operation, argument


def evidence(view: View, reads: dict[str, dict[str, Any]], who: str, scenario: str) -> list[str]:
    """One line per thing the values were read from, in the order the reads name them:
    a step's last model request (as labels), each request of a step, a step's answer (the
    parts of it read), the messages of the whole run. `who` says what ran ("real 0.171.0")."""
    lines: dict[str, str] = {}
    answers: dict[str, list[list[str]]] = {}
    received: list[tuple[str, str]] = []
    for operation, argument in sources(list(reads.values())):
        if operation in READS_RECEIVED:
            received.append((operation, str(argument)))
            continue
        label = str(argument["step"] if isinstance(argument, dict) else argument)
        if operation in READS_ANSWER:
            paths = answers.setdefault(label, [])
            if operation == "answer" and argument["path"] not in paths:
                paths.append(argument["path"])
            lines.setdefault(f"answer:{label}", label)
        elif operation in READS_EVERY_REQUEST:
            lines.pop(f"request:{label}", None)
            lines.setdefault(f"requests:{label}", label)
        elif f"requests:{label}" not in lines:
            lines.setdefault(f"request:{label}", label)
    said = []
    for key, label in lines.items():
        kind = key.split(":", 1)[0]
        if kind == "request":
            said.append(f"{who} step {label}: {describe_request(view.body(label))}")
        elif kind == "requests":
            said += [f"{who} step {label}: {describe_request(b)}" for b in view.bodies(label)]
        else:
            said.append(f"{who} step {label}: {_answer_line(view.step(label), answers[label])}")
    if received:
        said.append(f"{who} scenario {scenario}: {_received_line(view, received)}")
    return said


def _answer_line(step: dict[str, Any], paths: list[list[str]]) -> str:
    if step["error"] is not None:
        return f"error {step['error'].get('code')}: {step['error'].get('message')}"
    if step["unanswered_within"] is not None:
        return f"no answer within {step['unanswered_within']:g} s"
    if not paths:
        return "answered (no error)"
    values = [f"{'.'.join(p) or 'result'} = {json.dumps(dig(step['result'], p))}" for p in paths]
    return "answered: " + "; ".join(values)[:600]


def _received_line(view: View, read: list[tuple[str, str]]) -> str:
    received = view.received
    errors = [m["error"] for m in received if isinstance(m.get("error"), dict)]
    line = f"{len(received)} messages received"
    for operation, name in read:
        if operation == "received_with_field":
            line += f", {len([m for m in received if name in m])} with a {name} field"
    if any(operation == "turns_started" for operation, _ in read):
        started = [m for m in received if m.get("method") == "turn/started"]
        line += f"; {len(started)} turn/started"
    for operation, name in read:
        if operation == "error_with_field":
            with_field = len([e for e in errors if name in e])
            line += f"; {len(errors)} errors, {with_field} with a {name} field"
    items = [
        f"#{position} {message['method']} {dig(message, ['params', 'item', 'type'])}"
        + "".join(f"[{m}]" for m in markers_in(item_text(dig(message, ["params", "item"]))))
        for position, message in enumerate(received)
        if str(message.get("method", "")).startswith("item/") and "id" not in message
    ]
    if any(operation.startswith("notified") for operation, _ in read):
        line += "; items notified: " + (", ".join(items)[:800] or "none")
    return line


# ----- what every finding rests on -------------------------------------------------------


def unmet_preconditions(view: View) -> list[dict[str, Any]]:
    """What a finding rests on and did not happen: every turn completed (unless the step
    waited for its completion only so long, and its silence is what it observed), every
    compaction asked the model for one, every restart is a new process while the old one
    ended, and whatever a step says it requires (the tool ran: its output reached the
    model)."""
    unmet: list[dict[str, Any]] = []
    for step in view.steps:
        label = step["label"]
        result = step["result"] if isinstance(step["result"], dict) else {}
        problem = None
        if step["step"] == "restart" and result.get("previous") is not None:
            previous = result["previous"]
            if previous.get("pid") == result.get("pid"):
                problem = f"the same process (pid {result.get('pid')}) answered after it"
            elif previous.get("returncode") is None:
                problem = f"the old process (pid {previous.get('pid')}) did not exit"
        elif step["step"] in ("turn", "compact"):
            status = dig(result, ["turn/completed", "turn", "status"])
            silent = status is None and step.get("unanswered_within") is not None
            if status != "completed" and not silent:
                problem = f"its turn ended {status or 'without turn/completed'}"
        if problem is not None:
            unmet.append({"step": label, "kind": PRECONDITION, "detail": problem})
        if step["step"] == "compact":
            kinds = [request["kind"] for request in view.normalized(label)]
            if "compaction" not in kinds:
                problem = f"codex asked the model for no compaction ({len(kinds)} request(s))"
                unmet.append({"step": label, "kind": PRECONDITION, "detail": problem})
        for required in step.get("requires") or []:
            try:
                met = bool(Reading(view, {}).value(required["expression"]))
            except Unreadable:
                met = False
            if not met:
                problem = f"not shown: {required['what']}"
                unmet.append({"step": label, "kind": PRECONDITION, "detail": problem})
    return unmet


def judge(
    record: dict[str, Any],
    reads: dict[str, dict[str, Any]],
    expected: dict[str, Any],
    rules: dict[str, Any],
) -> dict[str, Any]:
    """A finding on a record: holds or changed (with the observed values), or broken (with
    the failure: a step that failed, an unmet precondition, a value that cannot be read)."""
    failure = record.get("failure")
    observed: dict[str, Any] = {}
    if failure is None:
        view = View(record)
        unmet = unmet_preconditions(view)
        if unmet:
            details = "; ".join(f"step {item['step']}: {item['detail']}" for item in unmet)
            failure = {**unmet[0], "detail": details}
        else:
            try:
                observed = Reading(view, rules).values(reads)
            except Unreadable as error:
                failure = {"step": error.step, "kind": UNREADABLE, "detail": str(error)}
    if failure is not None:
        return {"verdict": "broken", "observed": None, "failure": failure}
    holds = all(observed.get(key) == value for key, value in expected.items())
    return {"verdict": "holds" if holds else "changed", "observed": observed, "failure": None}
