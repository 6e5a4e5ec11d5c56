"""The readings of real turns: markers counted, a call's output found, the order of item
notifications, a turn whose silence is its observation, and what a step requires."""

from __future__ import annotations

from typing import Any

from codex_probe.probes.domain.expressions import (
    count,
    item_notified,
    notified_before,
    output_seen,
)
from codex_probe.probes.domain.reading import (
    MODEL_SWITCH,
    PRECONDITION,
    Reading,
    View,
    label_text,
    marker,
    unmet_preconditions,
)


def item(method: str, kind: str, text: str) -> dict[str, Any]:
    content = [{"type": "text", "text": text}] if kind == "userMessage" else None
    body = {"type": kind, "id": "i", "text": text, "content": content}
    return {"method": method, "params": {"threadId": "T", "item": body}}


def record(**step: Any) -> dict[str, Any]:
    body = {
        "input": [
            {"type": "message", "role": "developer", "content": [{"text": marker("BASE")}]},
            {"type": "function_call", "call_id": "c", "name": "exec_command", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c", "output": f"{marker('OUT')}\n"},
            {
                "type": "message",
                "role": "developer",
                "content": [{"text": f"<model_switch>\nswitched\n\n{marker('BASE')}"}],
            },
        ]
    }
    done = {"turn": {"status": "completed"}}
    turn = {
        "step": "turn",
        "label": "turn-1",
        "result": {"turn/start": {}, "turn/completed": done},
        "error": None,
        "unanswered_within": None,
        "model_requests": [0],
        **step,
    }
    received = [
        item("item/started", "userMessage", marker("USER-1")),
        item("item/completed", "agentMessage", marker("ANSWER")),
        item("item/started", "userMessage", marker("STEER")),
    ]
    return {
        "steps": [turn],
        "model_requests": [{"index": 0, "method": "POST", "path": "/v1/responses", "body": body}],
        "received": received,
        "failure": None,
    }


def test_a_marker_is_counted_wherever_it_is_and_a_model_switch_block_is_labelled() -> None:
    reading = Reading(View(record()), {})
    assert reading.value(count("BASE", "turn-1")) == 2
    assert label_text(f"<model_switch>\nswitched\n\n{marker('BASE')}") == f"{MODEL_SWITCH}[BASE]"


def test_a_call_output_holding_the_marker_is_found_and_one_without_it_is_not() -> None:
    reading = Reading(View(record()), {})
    assert reading.value(output_seen("OUT", "turn-1")) is True
    assert reading.value(output_seen("BASE", "turn-1")) is False


def test_item_notifications_are_found_by_kind_and_marker_and_ordered() -> None:
    reading = Reading(View(record()), {})
    steer = item_notified("item/started", "userMessage", "STEER")
    answer = item_notified("item/completed", "agentMessage", "ANSWER")
    missing = item_notified("item/completed", "commandExecution")
    assert reading.value(steer) is True
    assert reading.value(missing) is False
    assert reading.value(notified_before(steer, answer)) is False
    assert reading.value(notified_before(answer, steer)) is True
    assert reading.value(notified_before(steer, missing)) is True
    assert reading.value(notified_before(missing, steer)) is False


def test_a_turn_that_went_unanswered_within_its_deadline_is_observed_silence_not_unmet() -> None:
    silent: dict[str, Any] = {
        "result": {"turn/start": {}, "turn/completed": None},
        "unanswered_within": 20.0,
    }
    assert unmet_preconditions(View(record(**silent))) == []
    unanswered: dict[str, Any] = {"result": {"turn/start": {}, "turn/completed": None}}
    [unmet] = unmet_preconditions(View(record(**unanswered)))
    assert unmet["detail"] == "its turn ended without turn/completed"


def test_what_a_step_requires_and_the_run_does_not_show_is_an_unmet_precondition() -> None:
    ran = {"what": "the tool ran", "expression": output_seen("OUT", "turn-1")}
    assert unmet_preconditions(View(record(requires=[ran]))) == []
    lost = {"what": "the tool ran", "expression": output_seen("NEVER", "turn-1")}
    [unmet] = unmet_preconditions(View(record(requires=[lost])))
    assert unmet == {"step": "turn-1", "kind": PRECONDITION, "detail": "not shown: the tool ran"}
