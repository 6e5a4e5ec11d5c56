"""A scenario's run in a reproduction bundle's terms: the requests to replay, in order, with
what each step waits for; the replies the mock provider queues; the record of what happened.

Ids codex generated (thread and turn ids) become placeholders, `{{thread:A}}` and
`{{turn:LABEL}}`, named after the step whose answer gave them; the home's working
directory becomes `{{workdir}}` and the provider's address `{{provider_url}}`. A run the
bundle cannot replay exactly (a request outside the steps it knows, an id it cannot name,
a scripted error reply) is refused with the reason.
"""

from __future__ import annotations

import json
import re
from typing import Any

from codex_probe.harness.jsonrpc.errors import (
    JsonRpcError,
    MalformedFrame,
    NotificationTimeout,
    RequestTimeout,
    ServerError,
    ServerExited,
)
from codex_probe.probes.domain.observation import (
    Observation,
    ScenarioBroken,
    StepRecord,
    describe_failure,
)
from codex_probe.probes.releases.repro.script import outcomes
from codex_probe.rig.replies import FunctionCall, Hold, Message, Reasoning, Reply, Step

PLACEHOLDER = re.compile(r"\{\{([^{}]+)\}\}")
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# The request each kind of step sends (an attempt sends the method it names).
METHODS = {
    "restart": "initialize",
    "start": "thread/start",
    "turn": "turn/start",
    "begin_turn": "turn/start",
    "steer": "turn/steer",
    "compact": "thread/compact/start",
    "resume": "thread/resume",
    "fork": "thread/fork",
    "read": "thread/read",
    "unsubscribe": "thread/unsubscribe",
}
# What else a step sends besides its request: the notification after initialize, the
# polls of an unsubscribe that waits for the thread to unload.
ALSO_SENT = {"restart": {"initialized"}, "unsubscribe": {"thread/loaded/list"}}
# Steps whose refusal is what they observe, not a failure of the scenario.
REFUSAL_IS_AN_ANSWER = {"steer", "attempt"}


class NotReplayable(ValueError):
    """The run holds something a bundle cannot replay exactly (the message says what)."""


def replay_steps(observation: Observation) -> list[dict[str, Any]]:
    """requests.jsonl: one line per step, its request with codex's ids as placeholders."""
    failed = observation.failed_step
    if failed is not None and failed not in [step.label for step in observation.steps]:
        # A (re)start that failed left no step behind to replay.
        raise NotReplayable(f"the run broke at {failed}, which recorded nothing to replay")
    _all_sent_in_steps(observation)
    names = _Names(observation.workdir)
    lines = []
    for step in observation.steps:
        lines.append(_line(step, observation, names))
        names.learn(step, _answer(step), _messages(step, observation, "recv"))
    # A name no later request uses need not be remembered.
    used = set(PLACEHOLDER.findall(json.dumps(lines)))
    for line in lines:
        remember = {n: path for n, path in line.pop("remember", {}).items() if n in used}
        if remember:
            line["remember"] = remember
    return lines


def _all_sent_in_steps(observation: Observation) -> None:
    """A request or notification sent between steps is one the bundle would not replay."""
    inside = {i for step in observation.steps for i in range(*step.transcript_span)}
    for index, entry in enumerate(observation.transcript.entries):
        message = entry.message
        sent = entry.direction == "send" and isinstance(message, dict) and "method" in message
        if sent and index not in inside:
            raise NotReplayable(f"the scenario sends {message['method']} outside its steps")


def replies(observation: Observation) -> list[dict[str, Any]]:
    """replies.jsonl: each reply a step queued, in order; the rest get the mock's default.

    A scripted reply (rig/replies.py) keeps its items (messages, reasoning, function
    calls, holds) and how its stream ends, so the mock provider streams what the wiretap
    streamed."""
    lines = []
    for step in observation.steps:
        for reply in step.queued:
            if reply.status != 200:
                raise NotReplayable(f"step {step.label} queues a scripted error reply")
            lines.append({"step": step.label, **reply_line(reply)})
    return lines


def reply_line(reply: Reply) -> dict[str, Any]:
    """A reply as replies.jsonl holds it (the fields a plain reply always had, then the
    script, when there is one)."""
    line: dict[str, Any] = {
        "text": reply.text,
        "delay_s": reply.delay_s,
        "until_released": reply.until_released,
        "deltas": reply.deltas,
        "input_tokens": reply.input_tokens,
        "output_tokens": reply.output_tokens,
    }
    if reply.items is not None:
        line["items"] = [_scripted(step) for step in reply.items]
    if reply.end.value != "completed":
        line["end"] = reply.end.value
        line["failure_code"], line["error_message"] = reply.failure_code, reply.error_message
    return line


def _scripted(step: Step) -> dict[str, Any]:
    if isinstance(step, Message):
        return {"type": "message", "text": step.text, "deltas": step.deltas}
    if isinstance(step, Reasoning):
        return {
            "type": "reasoning",
            "summary": list(step.summary),
            "content": list(step.content),
            "encrypted_content": step.encrypted_content,
        }
    if isinstance(step, FunctionCall):
        return {
            "type": "function_call",
            "name": step.name,
            "arguments": step.arguments,
            "call_id": step.call_id,
        }
    assert isinstance(step, Hold)
    return {"type": "hold", "deadline_s": step.deadline_s, "until_released": step.until_released}


def config(observation: Observation) -> dict[str, Any]:
    """The home's config table with the provider's address as `{{provider_url}}`."""
    table = dict(observation.home_config)
    provider_id = table.get("model_provider")
    providers = dict(table.get("model_providers") or {})
    if provider_id not in providers:
        raise NotReplayable("the home's config names no model provider")
    providers[provider_id] = {**providers[provider_id], "base_url": "{{provider_url}}"}
    table["model_providers"] = providers
    return table


def record(observation: Observation, failure: dict[str, Any] | None = None) -> dict[str, Any]:
    """The run as reproduce.py records its own: steps, model requests, messages received
    (the transcript's other direction, the steps' spans in it, the thread ids and the
    wiretap's answers stay with codex-probe)."""
    recorded = observation.to_record(failure)
    for codex_probe_only in ("transcript", "threads", "answers"):
        del recorded[codex_probe_only]
    for step in recorded["steps"]:
        del step["transcript_span"]
    return recorded


def failure_of(broken: ScenarioBroken) -> dict[str, Any]:
    """How a broken scenario failed, in the kinds reproduce.py tells apart."""
    step = broken.failed_step or "(no step)"
    return {"step": step, "kind": _kind(broken.error), "detail": describe_failure(broken.error)}


def _kind(error: JsonRpcError | TimeoutError) -> str:
    if isinstance(error, TimeoutError):  # the wiretap's: a step's model request never came
        return outcomes.NO_MODEL_REQUEST
    if isinstance(error, ServerError):
        return outcomes.REFUSED
    if isinstance(error, RequestTimeout):
        return outcomes.NO_ANSWER
    if isinstance(error, NotificationTimeout):
        return outcomes.NO_NOTIFICATION
    if isinstance(error, MalformedFrame):
        return "malformed message"
    if isinstance(error, ServerExited):
        return outcomes.SERVER_EXITED
    return outcomes.SERVER_EXITED  # the connection closed: codex is gone


def _answer(step: StepRecord) -> Any:
    """The answer to the step's own request (a turn's result also holds its completion)."""
    if step.name in ("turn", "compact") and isinstance(step.result, dict):
        return step.result.get(METHODS[step.name])
    return step.result


def _line(step: StepRecord, observation: Observation, names: _Names) -> dict[str, Any]:
    if step.name not in ("finish_turn", "attempt", *METHODS):
        raise NotReplayable(f"step {step.label}: a bundle cannot replay a {step.name} step")
    line: dict[str, Any] = {"step": step.name, "label": step.label}
    sent = _messages(step, observation, "send")
    method = step.params.get("method") if step.name == "attempt" else METHODS.get(step.name)
    requests = [m for m in sent if "id" in m and m.get("method") == method]
    if method is not None and (step.name != "restart" or step.params.get("initialize")):
        if len(requests) != 1:
            raise NotReplayable(f"step {step.label} sent {len(requests)} {method} request(s)")
        request = {"method": method}
        if "params" in requests[0]:
            request["params"] = names.named(requests[0]["params"], step.label)
        line["request"] = request
    others = [m.get("method") for m in sent if m.get("method") not in (method, None)]
    if set(others) - ALSO_SENT.get(step.name, set()):
        raise NotReplayable(f"step {step.label} also sent {', '.join(map(str, others))}")
    if step.name in REFUSAL_IS_AN_ANSWER:
        line["refusal_is_an_answer"] = True
    if step.silence_after is not None:
        line["silence_after_s"] = step.silence_after
    line.update(_waits(step, names))
    if step.requires:
        line["requires"] = step.requires
    remember = names.new_names(step, _answer(step))
    if remember:
        line["remember"] = remember
    return line


def _messages(step: StepRecord, observation: Observation, direction: str) -> list[Any]:
    """The messages of one direction said while the step ran."""
    start, end = step.transcript_span
    return [
        entry.message
        for entry in observation.transcript.entries[start:end]
        if entry.direction == direction and isinstance(entry.message, dict)
    ]


def _waits(step: StepRecord, names: _Names) -> dict[str, Any]:
    thread = names.named(step.params.get("threadId"), step.label)
    if step.name == "finish_turn" and step.release_grace is not None:
        release = {"model_requests": 1, "within_s": step.release_grace}
        held = {"notification": "turn/completed", "threadId": thread, "release_held": release}
        return {"waits_for": held}
    if step.name in ("turn", "compact"):
        waits: dict[str, Any] = {"notification": "turn/completed", "threadId": thread}
        if step.settled_by is not None:
            method, kind = step.settled_by
            waits["settled_by"] = {"method": method, "type": kind}
            waits["within_s"] = step.completion_within
        if step.then is not None:
            waits["then"] = {"method": step.then[0], "type": step.then[1]}
        return {"waits_for": waits}
    if step.name == "finish_turn":
        return {"waits_for": {"notification": "turn/completed", "threadId": thread}}
    if step.name == "begin_turn":
        return {"waits_for": {"model_requests": 1}}
    if step.name == "unsubscribe":
        return {"waits_for": {"thread_unloaded": thread, "within_s": step.settle}}
    return {}


class _Names:
    """Placeholders for the ids codex generated, by the step whose answer first held them."""

    def __init__(self, workdir: str) -> None:
        self.by_id: dict[str, str] = {}
        self.workdir = workdir
        self.chosen_by_us: set[str] = set()  # ids a request held before any answer did
        self.from_codex: set[str] = set()

    def named(self, value: Any, label: str) -> Any:
        if isinstance(value, dict):
            return {key: self.named(item, label) for key, item in value.items()}
        if isinstance(value, list):
            return [self.named(item, label) for item in value]
        if not isinstance(value, str):
            return value
        for found in UUID.findall(value):
            if found in self.from_codex and found not in self.by_id:
                raise NotReplayable(f"step {label} sends an id of codex's no answer named")
            if found not in self.from_codex:
                self.chosen_by_us.add(found)
        for identifier, name in self.by_id.items():
            value = value.replace(identifier, "{{" + name + "}}")
        return value.replace(self.workdir, "{{workdir}}") if self.workdir else value

    def new_names(self, step: StepRecord, answer: Any) -> dict[str, str]:
        """The names this step's answer gives (name -> where in the answer)."""
        found = {}
        for kind, path in (("thread", "thread.id"), ("turn", "turn.id")):
            value = outcomes.dig(answer, path.split("."))
            name = f"{kind}:{step.label}"
            if (
                isinstance(value, str)
                and value not in self.by_id
                and value not in self.chosen_by_us
            ):
                found[name] = path
        return found

    def learn(self, step: StepRecord, answer: Any, received: list[Any]) -> None:
        for name, path in self.new_names(step, answer).items():
            self.by_id[outcomes.dig(answer, path.split("."))] = name
        self.from_codex.update(set(UUID.findall(str(received))) - self.chosen_by_us)
