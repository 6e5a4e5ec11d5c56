"""Breaking-change rules: each kind of change to the surface meets its rule, with the
severity the catalogue (or a project's levels) gives it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from codex_probe.probes.domain.surface import classify as classify_module
from codex_probe.probes.domain.surface.classify import classify
from codex_probe.probes.domain.surface.diff import diff_surfaces
from codex_probe.probes.domain.surface.release import Surface
from codex_probe.probes.domain.surface.rules import (
    BY_ID,
    RULES,
    Levels,
    LevelsError,
    Severity,
)


def rules_of(aspect: str, key: str, before: Any, after: Any) -> list[tuple[str, str, str]]:
    return [(c.rule, c.severity.name, c.where) for c in classify(aspect, key, before, after)]


START = "client request thread/start"
PARAMS = {
    "cwd": "string (required)",
    "approvalPolicy": "null|enum(never|on-failure|on-request)",
    "baseInstructions": "null|string",
}
RESULT = {"thread": "object (required)", "thread.id": "string (required)", "model": "string"}


def method(params: dict[str, str] | None = None, result: dict[str, str] | None = None) -> Any:
    return {"params": PARAMS if params is None else params, "result": result or RESULT}


def test_a_retired_request_enum_value_is_an_error_and_a_new_one_is_info() -> None:
    retired = {**PARAMS, "approvalPolicy": "null|enum(never|on-request)"}
    assert rules_of("schema", START, method(), method(retired)) == [
        ("request-enum-value-removed", "ERR", "params.approvalPolicy")
    ]
    added = {**PARAMS, "approvalPolicy": "null|enum(never|on-failure|on-request|untrusted)"}
    assert rules_of("schema", START, method(), method(added)) == [
        ("request-enum-value-added", "INFO", "params.approvalPolicy")
    ]


def test_a_response_enum_value_added_warns_closed_decoders_and_one_removed_is_info() -> None:
    before = method(result={**RESULT, "status": "enum(active|idle)"})
    after = method(result={**RESULT, "status": "enum(active|idle|notLoaded)"})
    assert rules_of("schema", START, before, after) == [
        ("response-enum-value-added", "WARN", "result.status")
    ]
    assert rules_of("schema", START, after, before) == [
        ("response-enum-value-removed", "INFO", "result.status")
    ]


def test_an_enum_opened_to_any_string_is_a_widening_where_sent_and_a_warning_where_read() -> None:
    before = method(result={**RESULT, "tier": "null|enum(fast|flex)"})
    after = method(
        {**PARAMS, "approvalPolicy": "null|string"}, result={**RESULT, "tier": "null|string"}
    )
    assert rules_of("schema", START, before, after) == [
        ("response-enum-value-added", "WARN", "result.tier"),
        ("request-type-widened", "INFO", "params.approvalPolicy"),
    ]


def test_a_new_required_parameter_is_an_error_and_a_new_optional_one_is_info() -> None:
    required = {**PARAMS, "model": "string (required)"}
    assert rules_of("schema", START, method(), method(required)) == [
        ("request-required-field-added", "ERR", "params.model")
    ]
    optional = {**PARAMS, "model": "null|string"}
    assert rules_of("schema", START, method(), method(optional)) == [
        ("request-field-added", "INFO", "params.model")
    ]
    # Required inside a new optional object: only a client that sends the object sends it.
    nested = {**PARAMS, "config": "null|object", "config.model": "string (required)"}
    assert rules_of("schema", START, method(), method(nested)) == [
        ("request-field-added", "INFO", "params.config"),
        ("request-field-added", "INFO", "params.config.model"),
    ]


def test_a_parameter_narrowed_or_made_required_is_an_error() -> None:
    narrowed = {**PARAMS, "baseInstructions": "string"}
    assert rules_of("schema", START, method(), method(narrowed)) == [
        ("request-type-narrowed", "ERR", "params.baseInstructions")
    ]
    now_required = {**PARAMS, "baseInstructions": "null|string (required)"}
    assert rules_of("schema", START, method(), method(now_required)) == [
        ("request-field-now-required", "ERR", "params.baseInstructions")
    ]


def test_an_answer_field_removed_retyped_or_made_nullable_is_an_error() -> None:
    removed = {k: v for k, v in RESULT.items() if k != "model"}
    assert rules_of("schema", START, method(), method(result=removed)) == [
        ("response-field-removed", "ERR", "result.model")
    ]
    retyped = {**RESULT, "model": "integer"}
    assert rules_of("schema", START, method(), method(result=retyped)) == [
        ("response-field-retyped", "ERR", "result.model")
    ]
    nullable = {**RESULT, "thread.id": "null|string (required)"}
    assert rules_of("schema", START, method(), method(result=nullable)) == [
        ("response-field-now-nullable", "ERR", "result.thread.id")
    ]
    # The same change where codex receives it (a server request's answer) widens: info.
    key = "server request item/tool/call"
    assert rules_of("schema", key, method(result=RESULT), method(result=nullable)) == [
        ("request-type-widened", "INFO", "result.thread.id")
    ]


def test_a_notification_field_removed_is_an_error_as_for_an_answer() -> None:
    key = "server notification turn/completed"
    before = {"params": {"turn": "object (required)", "turn.status": "string (required)"}}
    after = {"params": {"turn": "object (required)"}}
    assert rules_of("schema", key, before, after) == [
        ("response-field-removed", "ERR", "params.turn.status")
    ]


def test_a_variant_of_a_received_union_added_warns_and_one_sent_removed_is_an_error() -> None:
    items = {"items[]<type=text>.type": "enum(text)", "items[]<type=text>.text": "string"}
    image = {"items[]<type=image>.type": "enum(image)", "items[]<type=image>.url": "string"}
    key = "server notification item/completed"
    assert rules_of("schema", key, {"params": items}, {"params": {**items, **image}}) == [
        ("response-variant-added", "WARN", "params.items[]<type=image>")
    ]
    sent = {"params": {**items, **image}, "result": {}}
    assert rules_of("schema", START, sent, {"params": items, "result": {}}) == [
        ("request-variant-removed", "ERR", "params.items[]<type=image>")
    ]


def test_a_method_or_notification_removed_is_an_error_and_one_added_is_info() -> None:
    assert rules_of("schema", START, method(), None) == [("method-removed", "ERR", "")]
    assert rules_of("schema", START, None, method()) == [("method-added", "INFO", "")]
    key = "server notification thread/closed"
    assert rules_of("schema", key, {"params": {}}, None) == [("notification-removed", "ERR", "")]
    assert rules_of("schema", key, None, {"params": {}}) == [("notification-added", "INFO", "")]


def test_a_request_accepted_before_and_refused_now_is_an_error() -> None:
    refusal = {"code": -32600, "message": "thread not found", "data": None}
    key = "resume resume thread/resume"
    assert rules_of("refusals", key, None, refusal) == [("request-now-refused", "ERR", "")]
    assert rules_of("refusals", key, refusal, None) == [("request-now-accepted", "INFO", "")]
    answered = {"answered": {"$": "object"}}
    assert rules_of("initialize", "x", answered, {"refused": refusal}) == [
        ("request-now-refused", "ERR", "")
    ]


def test_a_request_left_unanswered_now_is_an_error() -> None:
    before = {"$": "object", "turn": "object"}
    after = {"unanswered_within_s": 5.0, "late_answer": None}
    assert rules_of("answers", "steer steer turn/steer", before, after) == [
        ("request-now-unanswered", "ERR", "")
    ]


def test_a_notification_the_work_no_longer_sends_is_an_error() -> None:
    before = ["turn/started", "item/started:agentMessage", "turn/completed"]
    after = ["turn/started", "turn/completed", "warning"]
    assert rules_of("notifications", "start turn turn/start", before, after) == [
        ("notification-no-longer-sent", "ERR", ""),
        ("notification-now-sent", "INFO", ""),
    ]
    reordered = ["turn/started", "turn/completed", "item/started:agentMessage"]
    assert rules_of("notifications", "k", before, reordered) == [
        ("notification-order-changed", "WARN", "")
    ]
    asked = ["item/commandExecution/requestApproval (request)"]
    assert rules_of("notifications", "k", asked, []) == [
        ("server-request-no-longer-sent", "WARN", "")
    ]


def test_a_refusal_s_code_changed_is_a_warning_and_its_words_info() -> None:
    before = {"code": -32600, "message": "no rollout found", "data": None}
    after = {"code": -32602, "message": "thread not found", "data": None}
    assert rules_of("refusals", "k", before, after) == [
        ("refusal-code-changed", "WARN", "code"),
        ("refusal-message-changed", "INFO", "message"),
    ]


def test_an_answer_s_shape_is_read_as_what_a_client_receives() -> None:
    before = {"$": "object", "thread": "object", "thread.id": "string"}
    after = {"$": "object", "thread": "object", "thread.name": "null|string"}
    assert rules_of("answers", "start start thread/start", before, after) == [
        ("response-field-removed", "ERR", "thread.id"),
        ("response-field-added", "INFO", "thread.name"),
    ]


def test_an_aspect_no_rule_names_is_classified_by_the_shape_of_its_values() -> None:
    # An exploration's key (method x state x variant), as issue 32's aspect may hold it.
    before = {
        "answered": {"$": "object", "thread.status.type": "enum(idle)"},
        "notifications": ["thread/started"],
    }
    after = {
        "answered": {"$": "object", "thread.status.type": "enum(idle|notLoaded)"},
        "notifications": [],
    }
    assert rules_of("explored", "thread/start idle minimal", before, after) == [
        ("notification-no-longer-sent", "ERR", "notifications"),
        ("response-enum-value-added", "WARN", "answered.thread.status.type"),
    ]
    outcome = {"refused": {"code": -32600, "message": "unknown variant", "data": None}}
    assert rules_of("explored", "k", {"answered": {"$": "object"}}, outcome) == [
        ("request-now-refused", "ERR", "")
    ]


def test_model_requests_are_no_client_s_business() -> None:
    assert rules_of("model_requests", "start turn #0", {"kind": "a"}, {"kind": "b"}) == [
        ("model-request-changed", "INFO", "")
    ]


def test_a_value_no_rule_reads_is_still_a_change() -> None:
    assert rules_of("initialize", "k", 1, 2) == [("value-changed", "INFO", "")]


def test_a_project_s_severity_levels_raise_or_lower_a_rule() -> None:
    levels = Levels.parse(
        "# our client decodes enums closed\n"
        "response-enum-value-added ERR\n"
        "request-field-removed info  # codex ignores it\n",
        "levels.txt",
    )
    assert levels.of("response-enum-value-added") is Severity.ERR
    assert levels.of("request-field-removed") is Severity.INFO
    assert levels.of("method-removed") is Severity.ERR
    before = method(result={**RESULT, "status": "enum(a)"})
    after = method(result={**RESULT, "status": "enum(a|b)"})
    found = classify("schema", START, before, after, levels)
    assert [(c.rule, c.severity) for c in found] == [("response-enum-value-added", Severity.ERR)]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("no-such-rule ERR\n", "levels.txt:1: unknown rule 'no-such-rule'"),
        ("\nmethod-removed FATAL\n", "levels.txt:2: 'FATAL' is not a severity"),
        ("method-removed\n", "levels.txt:1: expected RULE-ID LEVEL"),
    ],
)
def test_a_severity_levels_file_that_is_not_one_is_refused_in_one_line(
    text: str, said: str
) -> None:
    with pytest.raises(LevelsError) as raised:
        Levels.parse(text, "levels.txt")
    assert str(raised.value).startswith(said) and "\n" not in str(raised.value)


def test_every_rule_named_by_the_classification_is_in_the_catalogue() -> None:
    source = Path(classify_module.__file__).read_text()
    named = set(re.findall(r'"([a-z]+(?:-[a-z]+)+)"', source))
    assert named - set(BY_ID) == set()
    assert len(BY_ID) == len(RULES)
    for entry in RULES:
        assert entry.reason and entry.direction in ("sends", "receives", "model")


def test_a_diff_gives_every_change_its_worst_rule_and_severity() -> None:
    before = Surface("1", {"schema": {START: method()}, "refusals": {}})
    retired = {**PARAMS, "approvalPolicy": "null|enum(never)"}
    after = Surface(
        "2",
        {
            "schema": {START: method(retired, {**RESULT, "extra": "string"})},
            "refusals": {"a b thread/read": {"code": 1, "message": "m", "data": None}},
        },
    )
    changes = {c.name: c for c in diff_surfaces(before, after)}
    start = changes[f"schema {START}"]
    assert (start.rule, start.severity.name) == ("request-enum-value-removed", "ERR")
    assert [(d.rule, d.before) for d in start.details] == [
        ("request-enum-value-removed", "on-failure"),
        ("request-enum-value-removed", "on-request"),
        ("response-field-added", None),
    ]
    refused = changes["refusals a b thread/read"]
    assert refused.to_json()["rule"] == "request-now-refused"
    assert refused.to_json()["severity"] == "ERR"
