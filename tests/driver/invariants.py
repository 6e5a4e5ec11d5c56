"""The fault campaign's rules, judged on a Run from what the fake got and the model saw.

The rules (DESIGN.md, "Driver rules that tests must pin"):
  fallback   at most one fallback per prepare, and only right after an explicit
             invalid/not-found refusal of thread/resume or of the first delivery
             (and such a refusal does lead to the fallback); an unknown outcome
             fails the prepare closed;
  replay     no input sent twice: a body goes out again only after the server
             explicitly refused it, never after an unknown outcome, never on another
             thread;
  reported   every body ends delivered exactly once, or reported undelivered, held,
             unknown or skipped, and the report agrees with the wire (the transcript)
             and with the model's input (the wiretap);
  fresh      every thread/start carries the current instructions (blank ones left
             off), its first turn is the fresh prompt, and the model sees them;
  process    the fake's process and process group are gone after each example.
The explicit refusals are written here from the measurement (docs/observations,
the fake's profiles), not taken from the driver's own refusals.py.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from codex_probe.harness.driver import Delivery, DeliveryStatus, Outcome, PreparePath, SentRequest
from tests.driver.campaign import (
    BASE,
    DEVELOPER,
    FRESH_PROMPT,
    RESUME_PROMPT,
    TURN_METHODS,
    Run,
    turn_id,
)

REFUSAL_CODE = -32600
REFUSAL_PREFIXES = (
    "no rollout found for thread id ",
    "thread not found: ",
    "invalid session id: ",
    "invalid thread id: ",
)


def is_explicit_refusal(code: int | None, message: str) -> bool:
    return code == REFUSAL_CODE and message.startswith(REFUSAL_PREFIXES)


# ----- the wire, as the fake got it ----------------------------------------------------


@dataclass
class WireRequest:
    """One request on the wire, its answer (if any) and the driver's log entry of it."""

    position: int  # index in the transcript
    method: str
    params: dict[str, Any]
    answer: dict[str, Any] | None = None
    sent: SentRequest | None = None

    @property
    def thread_id(self) -> str:
        return str(self.params.get("threadId", ""))

    @property
    def texts(self) -> list[str]:
        items = self.params.get("input")
        return [
            str(item.get("text", ""))
            for item in (items if isinstance(items, list) else [])
            if isinstance(item, dict) and item.get("type") == "text"
        ]

    @property
    def outcome(self) -> Outcome:
        return self.sent.outcome if self.sent is not None else Outcome.UNKNOWN

    @property
    def result(self) -> Any:
        return self.answer.get("result") if self.answer is not None else None

    def describe(self) -> str:
        markers = [text.split(":")[0] for text in self.texts]
        target = f" {self.thread_id[:8]}" if self.thread_id else ""
        error = self.answer.get("error") if self.answer is not None else None
        answer = (
            "no answer"
            if self.answer is None
            else f"error {error.get('code')} {error.get('message')!r}"
            if isinstance(error, dict)
            else "ok"
        )
        return f"{self.method}{target} {markers or ''} -> {answer}; driver: {self.outcome.value}"


def wire_requests(run: Run) -> tuple[list[WireRequest], list[str]]:
    """The driver's requests as the fake got them, each paired with the driver's log entry."""
    problems: list[str] = []
    answers: dict[Any, dict[str, Any]] = {}
    sent: list[WireRequest] = []
    ids: list[Any] = []
    for position, entry in enumerate(run.transcript):
        message = entry.message
        if not isinstance(message, dict):
            continue
        if entry.direction == "send" and "method" in message and "id" in message:
            if message["method"] == "initialize":
                continue
            params = message.get("params")
            sent.append(
                WireRequest(position, message["method"], params if isinstance(params, dict) else {})
            )
            ids.append(message["id"])
        elif entry.direction == "recv" and "id" in message and "method" not in message:
            answers.setdefault(message["id"], message)
    for request, request_id in zip(sent, ids, strict=True):
        request.answer = answers.get(request_id)
    # Pair with the driver's log: same order, same method and params. A request the
    # client could not even write (the pipe already gone) is logged but not on the wire.
    pending = iter(sent)
    current = next(pending, None)
    for logged in run.requests:
        if current is not None and (current.method, current.params) == (
            logged.method,
            logged.params,
        ):
            current.sent = logged
            current = next(pending, None)
        elif logged.outcome is Outcome.UNKNOWN and logged.error_message.startswith("cannot "):
            continue
        else:
            problems.append(f"the driver logged {logged.method} that is not on the wire next")
    if current is not None:
        problems.append(f"{current.method} went on the wire but the driver never logged it")
    return sent, problems


# ----- the rules -----------------------------------------------------------------------


def check_invariants(run: Run) -> list[str]:
    """Every broken rule, one line each; empty when the run kept them all."""
    if run.unexpected:
        return [f"unexpected exception:\n{run.unexpected}"]
    wire, problems = wire_requests(run)
    violations = [f"[log] {p}" for p in problems]
    violations += [f"[fallback] {v}" for v in _fallback_rule(run, wire)]
    violations += [f"[replay] {v}" for v in _replay_rule(run, wire)]
    violations += [f"[reported] {v}" for v in _reported_rule(run, wire)]
    violations += [f"[fresh] {v}" for v in _fresh_thread_rule(run, wire)]
    if run.left_behind:
        violations.append(f"[process] {run.left_behind}")
    return violations


def _prepare_requests(run: Run, wire: list[WireRequest]) -> list[WireRequest]:
    count = len(run.initial.requests) if run.initial is not None else 0
    logged = [w for w in wire if w.sent is not None]
    return logged[:count]


def _refusal(request: WireRequest) -> bool:
    """The driver saw an explicit invalid/not-found refusal, and the wire agrees."""
    if request.sent is None or request.sent.outcome is not Outcome.REFUSED:
        return False
    error = request.answer.get("error") if request.answer is not None else None
    if not isinstance(error, dict):
        return False
    return is_explicit_refusal(error.get("code"), str(error.get("message", ""))) and (
        error.get("code"),
        error.get("message"),
    ) == (request.sent.error_code, request.sent.error_message)


def _fallback_rule(run: Run, wire: list[WireRequest]) -> Iterator[str]:
    config, initial = run.config, run.initial
    if config is None or initial is None:
        return
    prep = _prepare_requests(run, wire)
    methods = [w.method for w in prep]
    starts = [i for i, w in enumerate(prep) if w.method == "thread/start"]
    if len(starts) > 1:
        yield f"{len(starts)} thread/start in one prepare: {methods}"
    unknown = [i for i, w in enumerate(prep) if w.outcome is Outcome.UNKNOWN]
    if unknown and unknown[0] != len(prep) - 1:
        yield f"prepare went on after an unknown outcome: {methods}"
    if unknown and (run.prepare_failure is None or run.prepare_failure.outcome_known):
        yield "an unknown outcome did not fail the prepare closed"
    if not config.session_id:
        if methods[:1] != ["thread/start"] or "thread/resume" in methods:
            yield f"no session id, yet the prepare sent {methods}"
        if initial.path not in (PreparePath.FRESH, None):
            yield f"no session id, yet the path is {initial.path}"
        return
    if methods[:1] != ["thread/resume"]:
        yield f"a session id, yet the prepare began with {methods[:1]}"
        return
    for index in starts[:1]:
        before = prep[index - 1]
        first_delivery = index == 2 and before.method in TURN_METHODS
        if not (_refusal(before) and (index == 1 or first_delivery)):
            yield (
                f"thread/start after {before.describe()}: a fallback needs an explicit "
                f"invalid/not-found refusal of the resume or the first delivery"
            )
        if before.thread_id != config.session_id:
            yield f"fallback after a request about another thread: {before.describe()}"
        if initial.path is not PreparePath.FALLBACK:
            yield f"a fallback thread/start, yet the path is {initial.path}"
        reason = initial.fallback_reason
        if reason is None or (reason.method, reason.code, reason.message) != (
            before.method,
            before.sent.error_code if before.sent else None,
            before.sent.error_message if before.sent else "",
        ):
            yield f"the fallback reason {reason} is not the refusal {before.describe()}"
    if not starts and initial.path is PreparePath.FALLBACK:
        yield "the path says fallback, but no thread/start was sent"
    # An explicit refusal of the resume, or of the first delivery, must lead to the fallback.
    if prep and _refusal(prep[0]) and methods[1:2] != ["thread/start"]:
        yield f"the resume was refused as invalid/not found, yet no fallback: {methods}"
    if (
        len(prep) >= 2
        and prep[0].outcome is Outcome.OK
        and prep[1].method in TURN_METHODS
        and _refusal(prep[1])
        and methods[2:3] != ["thread/start"]
    ):
        yield f"the first delivery was refused as not found, yet no fallback: {methods}"


def _tracked_bodies(run: Run) -> list[str]:
    """The prompts and the later bodies with something to send (all unique)."""
    later = [run.schedule.body(i) for i in range(len(run.schedule.messages))]
    return [body for body in (FRESH_PROMPT, RESUME_PROMPT, *later) if body.strip()]


def _carriers(wire: list[WireRequest], body: str) -> list[WireRequest]:
    return [w for w in wire if w.method in TURN_METHODS and body in w.texts]


def _started_threads(wire: list[WireRequest]) -> list[str]:
    threads = []
    for w in wire:
        thread = w.result.get("thread") if w.method == "thread/start" and w.result else None
        if isinstance(thread, dict) and thread.get("id"):
            threads.append(str(thread["id"]))
    return threads


def _replay_rule(run: Run, wire: list[WireRequest]) -> Iterator[str]:
    config = run.config
    if config is None:
        return
    fresh_threads = set(_started_threads(wire))
    prepared = run.initial.thread_id if run.initial is not None else ""
    for body in _tracked_bodies(run):
        carriers = _carriers(wire, body)
        name = body.split(":")[0]
        for earlier, later in itertools.pairwise(carriers):
            if earlier.outcome is not Outcome.REFUSED:
                yield (
                    f"{name} sent again after {earlier.describe()}: a body may only go out "
                    f"again after an explicit refusal"
                )
            if later.thread_id != earlier.thread_id:
                yield f"{name} replayed on another thread: {later.describe()}"
        for carrier in carriers:
            if carrier.texts.count(body) > 1:
                yield f"{name} twice in one request: {carrier.describe()}"
            if body == RESUME_PROMPT and carrier.thread_id != config.session_id:
                yield f"the resume prompt went to another thread: {carrier.describe()}"
            if body == FRESH_PROMPT and carrier.thread_id not in fresh_threads:
                yield f"the fresh prompt went to a thread not started here: {carrier.describe()}"
            if body not in (FRESH_PROMPT, RESUME_PROMPT) and carrier.thread_id != prepared:
                yield f"{name} went to a thread other than the prepared one: {carrier.describe()}"


def _final_reports(run: Run) -> Iterator[tuple[str, Delivery | None, list[Delivery], str]]:
    """(body, final report, all reports, problem) for each body the driver was given."""
    initial = run.initial
    if initial is not None:
        delivery = initial.delivery
        for body in (FRESH_PROMPT, RESUME_PROMPT):
            if delivery is not None and delivery.body == body:
                yield body, delivery, [delivery], ""
            elif (
                body == RESUME_PROMPT
                and initial.fallback_reason is not None
                and initial.fallback_reason.method in TURN_METHODS
            ):
                reason = initial.fallback_reason
                refused = Delivery(
                    initial.session_id,
                    body,
                    DeliveryStatus.UNDELIVERED,
                    reason.method,
                    detail=reason.message,
                )
                yield body, refused, [refused], ""
            else:
                yield body, None, [], ""
    for index in range(len(run.schedule.messages)):
        body = run.schedule.body(index)
        if body not in run.attempted:  # the prepare failed: never handed to the driver
            yield body, None, [], ""
            continue
        reports = run.reports.get(body, [])
        statuses = [r.status for r in reports]
        problem = ""
        final: Delivery | None = reports[-1] if reports else None
        if not reports:
            problem = "no report at all"
        elif len(reports) == 1:
            if statuses[0] is DeliveryStatus.HELD and body not in run.held_at_end:
                problem = "reported held, gone from the inbox, and never reported again"
        elif len(reports) == 2 and statuses[0] is DeliveryStatus.HELD:
            if statuses[1] in (DeliveryStatus.HELD, DeliveryStatus.SKIPPED):
                problem = f"reported {[s.value for s in statuses]}"
        else:
            problem = f"reported {len(reports)} times: {[s.value for s in statuses]}"
        if final is not None and final.status is DeliveryStatus.HELD:
            if body not in run.held_at_end:
                problem = problem or "reported held but not in the inbox"
        elif body in run.held_at_end:
            problem = problem or "still in the inbox, yet reported " + str(final)
        yield body, final, reports, problem


def _reported_rule(run: Run, wire: list[WireRequest]) -> Iterator[str]:
    seen_in_model = _bodies_in_model_requests(run)
    completed = _completed_turns(run)
    for body, final, _, problem in _final_reports(run):
        name = body.split(":")[0] if body.strip() else repr(body)
        if problem:
            yield f"{name}: {problem}"
        carriers = _carriers(wire, body) if body.strip() else []
        yield from (f"{name}: {p}" for p in _agrees_with_wire(final, carriers))
        threads = seen_in_model.get(body, {})
        if len(threads) > 1:
            yield f"{name} reached the model on {len(threads)} threads"
        if any(count > 1 for count in threads.values()):
            yield f"{name} is in the model's input more than once"
        status = final.status if final is not None else None
        if threads and status in (
            None,
            DeliveryStatus.UNDELIVERED,
            DeliveryStatus.HELD,
            DeliveryStatus.SKIPPED,
        ):
            yield f"{name} reached the model, yet was reported {status}"
        if (
            final is not None
            and status is DeliveryStatus.DELIVERED
            and completed.get(final.turn_id) == "completed"
            and final.thread_id not in threads
        ):
            yield f"{name} delivered into turn {final.turn_id}, which completed without it"
    for body, request in run.encoded:
        expected = [{"type": "text", "text": body}] if body.strip() else None
        got = request.params.get("input") if request is not None else None
        if got != expected:
            yield f"encode_stdin_message({body!r}) gave {request}"


def _agrees_with_wire(final: Delivery | None, carriers: list[WireRequest]) -> Iterator[str]:
    if final is None or final.status is DeliveryStatus.SKIPPED:
        if carriers:
            yield f"never reported sent, yet on the wire: {carriers[0].describe()}"
        return
    status = final.status
    earlier, last = carriers[:-1], carriers[-1] if carriers else None
    if any(w.outcome is not Outcome.REFUSED for w in earlier):
        yield "went out again after a request that was not refused"
    if last is None:
        if status is not DeliveryStatus.UNKNOWN:
            yield f"reported {status.value} but never on the wire"
        return
    if final.method != last.method:
        yield f"reported via {final.method}, but the last request carrying it was {last.method}"
    if final.thread_id != last.thread_id:
        yield f"reported on thread {final.thread_id}, sent to {last.thread_id}"
    expected = {
        DeliveryStatus.DELIVERED: Outcome.OK,
        DeliveryStatus.UNDELIVERED: Outcome.REFUSED,
        DeliveryStatus.HELD: Outcome.REFUSED,
        DeliveryStatus.UNKNOWN: Outcome.UNKNOWN,
    }[status]
    if last.outcome is not expected:
        yield f"reported {status.value}, but the last request was {last.describe()}"
    if status is DeliveryStatus.DELIVERED:
        result = last.result if isinstance(last.result, dict) else {}
        turn = result.get("turnId") or turn_id(result)
        if final.turn_id != turn:
            yield f"reported in turn {final.turn_id!r}, the answer named {turn!r}"
    if status is DeliveryStatus.HELD and last.method != "turn/steer":
        yield f"held after {last.describe()}; only a refused steer holds a body"


def _bodies_in_model_requests(run: Run) -> dict[str, dict[str, int]]:
    """body -> {thread id (prompt_cache_key) -> most times in one model request's input}."""
    found: dict[str, dict[str, int]] = defaultdict(dict)
    bodies = _tracked_bodies(run)
    for request in run.model_requests:
        thread = str(request.get("prompt_cache_key", ""))
        texts = _user_texts(request)
        for body in bodies:
            # Several input items of one turn/start may reach the model as one text
            # (the fake joins them with newlines), so a body is found inside a text.
            count = sum(text.count(body) for text in texts)
            if count:
                found[body][thread] = max(found[body].get(thread, 0), count)
    return found


def _user_texts(request: dict[str, Any]) -> list[str]:
    return [
        str(part.get("text", ""))
        for item in request.get("input") or []
        if isinstance(item, dict) and item.get("role") == "user"
        for part in item.get("content") or []
        if isinstance(part, dict) and part.get("type") == "input_text"
    ]


def _role_texts(request: dict[str, Any], role: str) -> list[str]:
    return [
        str(part.get("text", ""))
        for item in request.get("input") or []
        if isinstance(item, dict) and item.get("role") == role
        for part in item.get("content") or []
        if isinstance(part, dict)
    ]


def _completed_turns(run: Run) -> dict[str, str]:
    """turn id -> status, from the turn/completed notifications the fake sent."""
    turns: dict[str, str] = {}
    for entry in run.transcript:
        message = entry.message
        if (
            entry.direction == "recv"
            and isinstance(message, dict)
            and message.get("method") == "turn/completed"
        ):
            turn = (message.get("params") or {}).get("turn") or {}
            turns[str(turn.get("id"))] = str(turn.get("status"))
    return turns


def _fresh_thread_rule(run: Run, wire: list[WireRequest]) -> Iterator[str]:
    config = run.config
    if config is None:
        return
    for w in wire:
        if w.method == "thread/start":
            for key, value in (
                ("baseInstructions", config.base_instructions),
                ("developerInstructions", config.developer_instructions),
            ):
                if value.strip() and w.params.get(key) != value:
                    yield f"thread/start without the current {key}: {w.params.get(key)!r}"
                if not value.strip() and key in w.params:
                    yield f"thread/start sent a blank {key}: {w.params[key]!r}"
        if w.method == "thread/resume" and (
            w.params.get("baseInstructions"),
            w.params.get("developerInstructions"),
        ) != (config.base_instructions, config.developer_instructions):
            yield "thread/resume without the current instruction strings"
    for thread in _started_threads(wire):
        first = next((w for w in wire if w.thread_id == thread), None)
        if first is not None and (first.method, first.texts) != ("turn/start", [FRESH_PROMPT]):
            yield f"the first turn of fresh thread {thread[:8]} is {first.describe()}"
        for request in run.model_requests:
            if request.get("prompt_cache_key") != thread:
                continue
            developer_texts = _role_texts(request, "developer")
            seen = [str(request.get("instructions", "")), *developer_texts]
            if not any(BASE in text for text in seen):
                yield f"the model saw fresh thread {thread[:8]} without the base instructions"
            has_developer = any(DEVELOPER in text for text in developer_texts)
            if has_developer != bool(config.developer_instructions.strip()):
                yield f"the model saw fresh thread {thread[:8]} with developer text {has_developer}"
            tracked = _tracked_bodies(run)
            ours = [t for t in _user_texts(request) if any(body in t for body in tracked)]
            if ours[:1] != [FRESH_PROMPT]:
                yield f"the model's first input on fresh thread {thread[:8]} is not the fresh one"


# ----- reporting -----------------------------------------------------------------------


def describe(run: Run) -> str:
    """The run as a person reads it: steps, wire, model requests, left-behind processes."""
    wire, _ = wire_requests(run)
    lines = ["steps:", *(f"  {line}" for line in run.trace), "wire (driver requests):"]
    lines += [f"  {w.describe()}" for w in wire]
    unlogged = [r for r in run.requests if all(w.sent is not r for w in wire)]
    lines += [f"  (not written) {r.method}: {r.error_message}" for r in unlogged]
    lines.append(f"model requests: {len(run.model_requests)}")
    for body, threads in _bodies_in_model_requests(run).items():
        lines.append(f"  {body.split(':')[0]} on {[t[:8] for t in threads]}")
    if run.held_at_end:
        lines.append(f"held at the end: {[b.split(':')[0] for b in run.held_at_end]}")
    return "\n".join(lines)


def path_labels(run: Run) -> list[str]:
    """Which paths the run took, for hypothesis's statistics (`event`)."""
    labels = []
    initial = run.initial
    path = initial.path.value if initial is not None and initial.path is not None else "none"
    failure = run.prepare_failure
    if failure is None:
        labels.append(f"prepare: {path}")
    else:
        known = "refused" if failure.outcome_known else "unknown"
        labels.append(f"prepare: {path}, failed ({known})")
    if initial is not None and initial.fallback_reason is not None:
        labels.append(f"fallback after a refused {initial.fallback_reason.method}")
    for body in run.attempted:
        statuses = [report.status.value for report in run.reports.get(body, [])]
        methods = [report.method for report in run.reports.get(body, [])]
        labels.append(f"later message: {' then '.join(statuses)} via {methods[-1:]}")
    wire, _ = wire_requests(run)
    for steer, after in itertools.pairwise(wire):
        if (
            steer.method == "turn/steer"
            and steer.sent is not None
            and steer.sent.error_message == "no active turn to steer"
            and after.method == "turn/start"
            and after.texts == steer.texts
        ):
            labels.append("steer race: the body went into a new turn")
    if run.held_at_end:
        labels.append("bodies still held at the end")
    calls = sum(
        1
        for request in run.model_requests
        for item in request.get("input") or []
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    )
    labels.append(f"model: {run.schedule.model}" + (", a call's output went back" if calls else ""))
    return labels
