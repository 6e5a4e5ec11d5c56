"""What each probe reads from its scenario's observation.

A check returns what it observed (plain JSON values, compared with the assumption's
`expected`) and its evidence: the lines of the normalized model requests it used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codex_probe.harness.driver.refusals import steer_refusal, thread_refusal
from codex_probe.harness.jsonrpc.errors import ServerError
from codex_probe.probes.observation import Location, locate, normalize_request
from codex_probe.probes.scenario import Observation

Check = Callable[[Observation], tuple[dict[str, Any], list[str]]]
CHECKS: dict[str, Check] = {}


def check(assumption_id: str) -> Callable[[Check], Check]:
    def register(function: Check) -> Check:
        CHECKS[assumption_id] = function
        return function

    return register


def _request(observation: Observation, label: str, index: int = -1) -> dict[str, Any]:
    bodies = observation.request_bodies(label)
    if not bodies:
        raise LookupError(f"step {label!r} made no model request")
    return bodies[index]


def _evidence(observation: Observation, label: str, body: dict[str, Any]) -> str:
    normalized = normalize_request(body)
    items = "; ".join(
        f"[{i}] {item.get('role', item.get('type'))}: {', '.join(item.get('parts', []))}"
        for i, item in enumerate(normalized["input"])
    )
    return (
        f"{observation.backend} {observation.version} step {label}: "
        f"instructions={normalized['instructions']}; input {items}"
    )


def _where(found: list[Location]) -> list[str]:
    return [location.describe() for location in found]


def _in_user_message(found: list[Location]) -> bool:
    return any(location.role == "user" for location in found)


@check("start-applies-instructions")
def start_applies(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    body = _request(obs, "turn-1")
    base, dev = locate(body, "BASE-V1"), locate(body, "DEV-V1")
    return (
        {
            "base_seen": bool(base),
            "developer_seen": bool(dev),
            "base_at": _where(base),
            "developer_at": _where(dev),
        },
        [_evidence(obs, "turn-1", body)],
    )


@check("base-developer-placement")
def placement(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    first, later = _request(obs, "turn-1"), _request(obs, "turn-2")
    base, dev = locate(first, "BASE-V1"), locate(first, "DEV-V1")
    later_base, later_dev = locate(later, "BASE-V1"), locate(later, "DEV-V1")
    order = (
        "base first"
        if base and dev and _position(base[0]) < _position(dev[0])
        else ("developer first" if base and dev else "n/a")
    )
    return (
        {
            "base_in_user_message": _in_user_message(base),
            "developer_in_user_message": _in_user_message(dev),
            "later_turn_keeps_both": bool(later_base) and bool(later_dev),
            "base_at": _where(base),
            "developer_at": _where(dev),
            "order": order,
            "base_at_later_turn": _where(later_base),
            "developer_at_later_turn": _where(later_dev),
        },
        [_evidence(obs, "turn-1", first), _evidence(obs, "turn-2", later)],
    )


def _position(location: Location) -> tuple[int, int]:
    # The instructions field comes before every input item.
    return (-1, 0) if location.item is None else (location.item, location.part or 0)


@check("compaction-keeps-instructions")
def compaction_keeps(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    return _compaction(obs, "turn-3")


@check("compaction-remote-keeps-instructions")
def remote_compaction_keeps(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    observed, evidence = _compaction(obs, "turn-2")
    by_index = {r.index: r for r in obs.requests}
    observed["compaction_paths"] = [by_index[i].path for i in obs.step("compact").requests]
    return observed, evidence


def _compaction(obs: Observation, next_turn: str) -> tuple[dict[str, Any], list[str]]:
    after = _request(obs, next_turn)
    compaction = obs.request_bodies("compact")
    base, dev = locate(after, "BASE-V1"), locate(after, "DEV-V1")
    observed = {
        "base_seen_after": bool(base),
        "developer_seen_after": bool(dev),
        "base_at_after": _where(base),
        "developer_at_after": _where(dev),
        "compaction_model_requests": len(compaction),
        "compaction_request_offers_tools": bool(compaction and compaction[0].get("tools")),
    }
    evidence = [_evidence(obs, next_turn, after)]
    evidence += [_evidence(obs, "compact", body) for body in compaction]
    return observed, evidence


def _refresh(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    next_turn, after_compaction = _request(obs, "turn-2"), _request(obs, "turn-3")
    return (
        {
            "new_base_seen": bool(locate(next_turn, "BASE-V2")),
            "new_developer_seen": bool(locate(next_turn, "DEV-V2")),
            "old_base_seen": bool(locate(next_turn, "BASE-V1")),
            "old_developer_seen": bool(locate(next_turn, "DEV-V1")),
            "new_base_seen_after_compaction": bool(locate(after_compaction, "BASE-V2")),
            "new_developer_seen_after_compaction": bool(locate(after_compaction, "DEV-V2")),
        },
        [_evidence(obs, "turn-2", next_turn), _evidence(obs, "turn-3", after_compaction)],
    )


check("resume-refresh-loaded")(_refresh)
check("resume-refresh-cold")(_refresh)


@check("resume-refresh-unsubscribed")
def refresh_unsubscribed(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    observed, evidence = _refresh(obs)
    observed["unloaded_after_unsubscribe"] = bool(obs.step("unsubscribe").result.get("unloaded"))
    return observed, evidence


@check("resume-override-not-durable")
def override_persists(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    overridden, after_restart = _request(obs, "turn-2"), _request(obs, "turn-3")
    return (
        {
            "override_base_seen": bool(locate(overridden, "BASE-V2")),
            "start_base_back_after_restart": bool(locate(after_restart, "BASE-V1")),
            "override_base_seen_after_restart": bool(locate(after_restart, "BASE-V2")),
        },
        [_evidence(obs, "turn-2", overridden), _evidence(obs, "turn-3", after_restart)],
    )


@check("cold-resume-without-developer-keeps-it")
def developer_after_plain_resume(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    before, after = _request(obs, "turn-3"), _request(obs, "turn-4")
    return (
        {
            "developer_seen_before_compaction": bool(locate(before, "DEV-V1")),
            "developer_seen_after_compaction": bool(locate(after, "DEV-V1")),
        },
        [_evidence(obs, "turn-3", before), _evidence(obs, "turn-4", after)],
    )


@check("resume-empty-developer-keeps-old")
def empty_developer(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    loaded, cold, compacted = (_request(obs, label) for label in ("turn-2", "turn-3", "turn-4"))
    accepted = obs.step("resume-loaded").error is None and obs.step("resume-cold").error is None
    return (
        {
            "accepted": accepted,
            "old_developer_seen_loaded": bool(locate(loaded, "DEV-V1")),
            "old_developer_seen_cold": bool(locate(cold, "DEV-V1")),
            "old_developer_seen_after_compaction": bool(locate(compacted, "DEV-V1")),
        },
        [
            _evidence(obs, label, body)
            for label, body in (("turn-2", loaded), ("turn-3", cold), ("turn-4", compacted))
        ],
    )


@check("cold-resume-new-developer-waits-for-compaction")
def new_developer_waits(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    before, after = _request(obs, "turn-2"), _request(obs, "turn-3")
    return (
        {
            "old_developer_seen_before_compaction": bool(locate(before, "DEV-V1")),
            "new_developer_seen_before_compaction": bool(locate(before, "DEV-V2")),
            "new_developer_seen_after_compaction": bool(locate(after, "DEV-V2")),
            "old_developer_seen_after_compaction": bool(locate(after, "DEV-V1")),
        },
        [_evidence(obs, "turn-2", before), _evidence(obs, "turn-3", after)],
    )


@check("cold-resume-empty-developer-waits-for-compaction")
def empty_developer_waits(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    before, after = _request(obs, "turn-3"), _request(obs, "turn-4")
    return (
        {
            "old_developer_seen_before_compaction": bool(locate(before, "DEV-V1")),
            "developer_seen_after_compaction": bool(locate(after, "DEV-V1")),
        },
        [_evidence(obs, "turn-3", before), _evidence(obs, "turn-4", after)],
    )


@check("start-empty-and-omitted")
def empty_and_omitted(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    layouts = {
        label: normalize_request(_request(obs, f"turn-{label}"))
        for label in (
            "both-set",
            "base-empty",
            "base-null",
            "base-omitted",
            "developer-empty",
            "developer-null",
            "developer-omitted",
        )
    }

    def same(a: str, b: str) -> bool:
        # Compare everything but the user's own text, which names the case.
        strip = [
            {**i, "parts": [p for p in i.get("parts", []) if not p.startswith("USER-")]}
            for i in layouts[a]["input"]
        ]
        other = [
            {**i, "parts": [p for p in i.get("parts", []) if not p.startswith("USER-")]}
            for i in layouts[b]["input"]
        ]
        return strip == other and layouts[a]["instructions"] == layouts[b]["instructions"]

    default_prompt = "codex:default_prompt"
    observed = {
        "base_omitted_equals_null": same("base-omitted", "base-null"),
        "developer_omitted_equals_null": same("developer-omitted", "developer-null"),
        "empty_base_equals_omitted": same("base-empty", "base-omitted"),
        "empty_developer_equals_omitted": same("developer-empty", "developer-omitted"),
        "null_base_gives_default_prompt": default_prompt in str(layouts["base-null"]),
        "empty_base_gives_default_prompt": default_prompt in str(layouts["base-empty"]),
    }
    evidence = [
        _evidence(obs, f"turn-{label}", _request(obs, f"turn-{label}")) for label in layouts
    ]
    return observed, evidence


@check("legacy-thread-two-sources")
def legacy_two_sources(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    body = _request(obs, "turn-2")
    legacy = locate(body, "LEGACY-PROMPT")
    return (
        {
            "legacy_prompt_in_history": bool(legacy),
            "legacy_prompt_at": _where(legacy),
            "new_instructions_seen": bool(locate(body, "BASE-V2")) or bool(locate(body, "DEV-V2")),
            "new_base_seen": bool(locate(body, "BASE-V2")),
            "new_developer_seen": bool(locate(body, "DEV-V2")),
            "codex_default_prompt_seen": "codex:default_prompt" in str(normalize_request(body)),
        },
        [_evidence(obs, "turn-2", body)],
    )


def _refusal(obs: Observation, label: str, kind: str) -> tuple[dict[str, Any], list[str]]:
    step = obs.step(label)
    if step.error is None:
        return ({"refused": False, "result": step.result}, [f"{label}: answered {step.result!r}"])
    error = ServerError(
        method=label, request_id=0, code=step.error["code"], message=step.error["message"]
    )
    read = thread_refusal(error) if kind == "thread" else steer_refusal(error)
    return (
        {
            "refused": True,
            "code": error.code,
            "message": error.message,
            "driver_classification": None if read is None else read.value,
        },
        [f"{obs.backend} {obs.version} step {label}: error {error.code}: {error.message}"],
    )


check("error-resume-unknown-thread")(lambda obs: _refusal(obs, "resume-unknown", "thread"))
check("error-resume-malformed-id")(lambda obs: _refusal(obs, "resume-malformed", "thread"))
check("error-turn-unloaded-thread")(lambda obs: _refusal(obs, "turn-unloaded", "thread"))
check("error-steer-no-active-turn")(lambda obs: _refusal(obs, "steer-idle", "steer"))
check("error-steer-wrong-turn")(lambda obs: _refusal(obs, "steer-wrong", "steer"))


@check("start-empty-base-removes-default-prompt")
def empty_base_removes_default(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    body = _request(obs, "turn-base-empty")
    normalized = normalize_request(body)
    return (
        {
            "default_prompt_seen": "codex:default_prompt" in str(normalized),
            "base_seen": bool(locate(body, "BASE-E")),
        },
        [_evidence(obs, "turn-base-empty", body)],
    )


@check("steer-mid-answer-keeps-reply")
def steer_keeps_reply(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    body = _request(obs, "turn-2-done")
    [steered] = [place for place in locate(body, "USER-STEER-RIGHT") if place.item is not None]
    assert steered.item is not None
    before = body["input"][steered.item - 1]
    return (
        {
            "pending_answer_kept": before.get("role") == "assistant",
            "before_the_steered_input": normalize_request(body)["input"][steered.item - 1],
        },
        [_evidence(obs, "turn-2-done", body)],
    )


check("error-steer-without-expected-turn-id")(
    lambda obs: _refusal(obs, "steer-without-expected", "steer")
)


@check("interrupt-without-turn-refused")
def interrupt_without_turn(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    step = obs.step("interrupt-idle")
    silent = step.unanswered_within is not None
    observed: dict[str, Any] = {
        "answered_at_once": not silent,
        "refused": step.error is not None,
    }
    if step.error is not None:
        observed["error"] = step.error
    said = (
        f"no answer within {step.unanswered_within:g} s"
        if silent
        else f"answered {step.error or step.result!r}"
    )
    return observed, [f"{obs.backend} {obs.version} step interrupt-idle: {said}"]


@check("turn-start-while-active-joins-turn")
def turn_start_joins(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    busy, active = obs.step("turn-start-busy"), obs.step("turn-3")
    answered = ((busy.result or {}).get("turn") or {}).get("id")
    active_id = ((active.result or {}).get("turn") or {}).get("id")
    started = _turns_started(obs)
    last = _request(obs, "turn-3-done")
    observed = {
        "refused": busy.error is not None,
        "second_turn_started": answered != active_id and answered in started,
        "input_reached_the_active_turn": bool(locate(last, "USER-BUSY")),
        "answered_with_the_active_turn": answered == active_id,
    }
    return observed, [
        f"{obs.backend} {obs.version} step turn-start-busy: answered turn {answered} "
        f"(active: {active_id}; turns started: {len(started)})",
        _evidence(obs, "turn-3-done", last),
    ]


def _turns_started(obs: Observation) -> list[str]:
    return [
        str(entry.message["params"]["turn"]["id"])
        for entry in obs.transcript.entries
        if entry.direction == "recv"
        and isinstance(entry.message, dict)
        and entry.message.get("method") == "turn/started"
    ]


@check("wire-no-jsonrpc-field-no-error-data")
def wire_fields(obs: Observation) -> tuple[dict[str, Any], list[str]]:
    received = [
        entry.message
        for entry in obs.transcript.entries
        if entry.direction == "recv" and isinstance(entry.message, dict)
    ]
    errors = [m["error"] for m in received if isinstance(m.get("error"), dict)]
    with_jsonrpc = [m for m in received if "jsonrpc" in m]
    with_data = [e for e in errors if "data" in e]
    return (
        # Counts stay in the evidence: how many messages a run sees varies between runs.
        {"jsonrpc_field_seen": bool(with_jsonrpc), "error_data_seen": bool(with_data)},
        [
            f"{obs.backend} {obs.version} scenario errors: {len(received)} messages received, "
            f"{len(with_jsonrpc)} with a jsonrpc field; {len(errors)} errors, "
            f"{len(with_data)} with a data field"
        ],
    )
