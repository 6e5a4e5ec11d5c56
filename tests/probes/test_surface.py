"""A release's surface read from recorded runs: what codex sent, normalized so that two
runs of one release agree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.probes.domain.surface.release import (
    EXPERIMENTAL_WITH,
    EXPERIMENTAL_WITHOUT,
    Surface,
    SurfaceFormatError,
    experimental_key,
    surface_of,
)
from codex_probe.probes.domain.surface.shape import mask_text, shape
from tests.reports.test_schema_diff import OLD_PARAMS, write_schema

THREAD = "10192eed-8b3c-40de-bf2b-7a58e72ab0d1"


def note(method: str, **params: Any) -> dict[str, Any]:
    return {"method": method, "params": params}


def record(steps: list[tuple[str, str, list[tuple[str, Any]]]], **extra: Any) -> dict[str, Any]:
    """A record of steps (name, label, the transcript said while it ran)."""
    transcript: list[list[Any]] = []
    recorded = []
    for name, label, said in steps:
        start = len(transcript)
        transcript += [[direction, message] for direction, message in said]
        recorded.append(
            {
                "step": name,
                "label": label,
                "result": None,
                "error": None,
                "unanswered_within": extra.pop(f"silent:{label}", None),
                "model_requests": extra.pop(f"requests:{label}", []),
                "transcript_span": [start, len(transcript)],
            }
        )
    return {
        "steps": recorded,
        "model_requests": extra.get("model_requests", []),
        "received": [m for d, m in transcript if d == "recv"],
        "transcript": transcript,
        "failure": None,
    }


HANDSHAKE = [
    ("send", {"id": 1, "method": "initialize", "params": {}}),
    ("recv", {"id": 1, "result": {"userAgent": "x/1", "codexHome": "/tmp/codex-probe-a/h"}}),
    ("recv", note("configWarning", summary="bubblewrap")),
]


def test_notifications_after_an_answer_are_its_request_s_until_the_next_answer() -> None:
    run = record(
        [
            ("restart", "restart-0", HANDSHAKE),
            (
                "start",
                "A",
                [
                    ("send", {"id": 2, "method": "thread/start", "params": {}}),
                    ("recv", {"id": 2, "result": {"thread": {"id": THREAD}}}),
                ],
            ),
            (
                "turn",
                "turn-1",
                [
                    # Read after our next request went out: still thread/start's.
                    ("send", {"id": 3, "method": "turn/start", "params": {}}),
                    ("recv", note("thread/started", thread={"id": THREAD})),
                    ("recv", {"id": 3, "result": {"turn": {"id": "t", "status": "inProgress"}}}),
                    ("recv", note("turn/started")),
                    ("recv", note("item/started", item={"type": "agentMessage", "id": "m"})),
                    ("recv", note("turn/completed")),
                ],
            ),
        ]
    )
    surface = surface_of("1.0.0", {"start": run}, None)
    assert surface.aspects["notifications"] == {
        "start A thread/start": ["thread/started"],
        "start turn-1 turn/start": ["turn/started", "item/started:agentMessage", "turn/completed"],
        "start (outside the lifecycle)": ["configWarning"],
    }


def test_a_turn_s_notifications_are_its_turn_start_s_wherever_the_answer_falls() -> None:
    def turn(early: bool) -> dict[str, Any]:
        started = [
            ("recv", note("thread/status/changed", threadId=THREAD, status={"type": "active"})),
            ("recv", note("turn/started", threadId=THREAD, turn={"id": "t1"})),
        ]
        answer = [("recv", {"id": 3, "result": {"turn": {"id": "t1"}}})]
        said = [
            ("send", {"id": 3, "method": "turn/start", "params": {}}),
            *(started + answer if early else answer + started),
            ("recv", note("item/started", threadId=THREAD, turnId="t1", item={"type": "x"})),
            ("recv", note("thread/status/changed", threadId=THREAD, status={"type": "idle"})),
            ("recv", note("turn/completed", threadId=THREAD, turn={"id": "t1"})),
            ("send", {"id": 4, "method": "thread/compact/start", "params": {}}),
            ("recv", {"id": 4, "result": {}}),
            ("recv", note("turn/started", threadId=THREAD, turn={"id": "t2"})),
            ("recv", note("turn/completed", threadId=THREAD, turn={"id": "t2"})),
        ]
        return record([("turn", "turn-1", said[:-4]), ("compact", "compact", said[-4:])])

    early = surface_of("1.0.0", {"s": turn(True)}, None).aspects["notifications"]
    late = surface_of("1.0.0", {"s": turn(False)}, None).aspects["notifications"]
    assert (
        early
        == late
        == {
            "s turn-1 turn/start": [
                "thread/status/changed:active",
                "turn/started",
                "item/started:x",
                "thread/status/changed:idle",
                "turn/completed",
            ],
            "s compact thread/compact/start": ["turn/started", "turn/completed"],
        }
    )


def test_a_thread_s_status_told_twice_in_a_row_is_told_once() -> None:
    not_loaded = note("thread/status/changed", threadId=THREAD, status={"type": "notLoaded"})
    idle = note("thread/status/changed", threadId=THREAD, status={"type": "idle"})
    said = [
        ("send", {"id": 2, "method": "thread/loaded/list", "params": {}}),
        ("recv", {"id": 2, "result": {"data": []}}),
        ("recv", not_loaded),
        ("recv", not_loaded),
        ("recv", idle),
    ]
    run = record([("unsubscribe", "unsubscribe", said)])
    notifications = surface_of("1.0.0", {"s": run}, None).aspects["notifications"]
    assert notifications["s unsubscribe thread/loaded/list"] == [
        "thread/status/changed:notLoaded",
        "thread/status/changed:idle",
    ]


def test_thread_started_is_its_thread_start_s_even_before_the_answer() -> None:
    said = [
        ("send", {"id": 2, "method": "thread/start", "params": {}}),
        ("recv", note("thread/started", thread={"id": THREAD})),
        ("recv", {"id": 2, "result": {"thread": {"id": THREAD}}}),
    ]
    run = record([("restart", "restart-0", HANDSHAKE), ("start", "A", said)])
    notifications = surface_of("1.0.0", {"s": run}, None).aspects["notifications"]
    assert notifications["s A thread/start"] == ["thread/started"]


def test_notifications_outside_the_lifecycle_are_listed_once_per_scenario_by_method() -> None:
    said = [
        ("send", {"id": 2, "method": "turn/start", "params": {}}),
        ("recv", note("warning", message="model metadata")),
        ("recv", {"id": 2, "result": {}}),
        ("recv", note("thread/tokenUsage/updated")),
        ("recv", note("turn/completed")),
        ("recv", note("thread/tokenUsage/updated")),
    ]
    surface = surface_of("1.0.0", {"s": record([("turn", "t", said)])}, None)
    notifications = surface.aspects["notifications"]
    assert notifications["s (outside the lifecycle)"] == ["thread/tokenUsage/updated", "warning"]
    assert notifications["s t turn/start"] == ["turn/completed"]


def test_an_answer_is_its_keys_and_value_types() -> None:
    assert shape({"thread": {"id": THREAD, "turns": [{"n": 1}, {"n": None}]}, "ok": True}) == {
        "$": "object",
        "ok": "boolean",
        "thread": "object",
        "thread.id": "string",
        "thread.turns": "array",
        "thread.turns[]": "object",
        "thread.turns[].n": "integer|null",
    }


def test_the_time_a_rollout_file_is_named_for_is_masked_in_a_message() -> None:
    # Measured on 0.150.0: two probes a minute apart refuse a rollback of a thread
    # without turns naming the rollout file each did not find.
    said = (
        "failed to resolve rollout path"
        " `{root}/sessions/2026/12/04/rollout-2026-12-04T16-{t}-{id}.jsonl`"
    )
    first = mask_text(said.format(root="/r", t="54-07", id=THREAD))
    assert first == mask_text(said.format(root="/r", t="55-31", id=THREAD))
    assert first == "failed to resolve rollout path `/r/sessions/<time>/rollout-<time>-<id>.jsonl`"


def test_a_refusal_keeps_code_message_and_data_with_ids_and_folders_masked() -> None:
    said = [
        ("send", {"id": 2, "method": "thread/resume", "params": {}}),
        (
            "recv",
            {
                "id": 2,
                "error": {
                    "code": -32600,
                    "message": f"no rollout found for thread id {THREAD}",
                    "data": {"path": "/tmp/codex-probe-x1/home/sessions"},
                },
            },
        ),
    ]
    surface = surface_of("1.0.0", {"errors": record([("attempt", "resume-unknown", said)])}, None)
    assert surface.aspects["refusals"] == {
        "errors resume-unknown thread/resume": {
            "code": -32600,
            "message": "no rollout found for thread id <id>",
            "data": {"path": "<tmp>"},
            "driver_reads": "not_found",
        }
    }
    assert mask_text("see /tmp/codex-probe-ab_9/work, then") == "see <tmp>, then"


def test_the_values_a_refusal_lists_as_expected_are_left_to_the_schema_aspect() -> None:
    refused = "Invalid request: unknown variant `x/y`, expected one of `initialize`, `a/b`"
    assert mask_text(refused) == (
        "Invalid request: unknown variant `x/y`, expected one of <the values codex knows>"
    )


def test_a_request_left_unanswered_is_its_silence_and_a_late_answer_stays_its() -> None:
    silent = [("send", {"id": 5, "method": "turn/interrupt", "params": {}})]
    later = [
        ("send", {"id": 6, "method": "turn/interrupt", "params": {}}),
        ("recv", {"id": 5, "result": {}}),
        ("recv", {"id": 6, "result": {}}),
    ]
    run = record(
        [("attempt", "interrupt-idle", silent), ("attempt", "interrupt-turn", later)],
        **{"silent:interrupt-idle": 1.0},
    )
    answers = surface_of("1.0.0", {"errors": run}, None).aspects["answers"]
    assert answers["errors interrupt-idle turn/interrupt"] == {
        "unanswered_within_s": 1.0,
        "late_answer": {"$": "object"},
    }
    assert answers["errors interrupt-turn turn/interrupt"] == {"$": "object"}


def test_a_model_request_is_its_layout_body_keys_tools_and_the_events_codex_read() -> None:
    body = {
        "model": "m",
        "input": [{"type": "message", "role": "user", "content": [{"text": "CODEX-PROBE-USER-1"}]}],
        "tools": [{"type": "function", "name": "exec_command"}, {"type": "web_search"}],
    }
    requests = [
        {
            "index": 0,
            "method": "POST",
            "path": "/v1/responses",
            "body": body,
            "events": ["response.created", "response.output_item.done"],
            "abandoned": True,
        }
    ]
    run = record([("turn", "turn-1", [])], model_requests=requests, **{"requests:turn-1": [0]})
    found = surface_of("1.0.0", {"start": run}, None).aspects["model_requests"]
    assert found == {
        "start turn-1 #0": {
            "method": "POST",
            "path": "/responses",
            "kind": "turn",
            "body_keys": ["input", "model", "tools"],
            "instructions": None,
            "input": [{"role": "user", "parts": ["USER-1"]}],
            "tools": ["<web_search>", "exec_command"],
            "events": ["response.created", "response.output_item.done", "(codex hung up)"],
        }
    }


def test_the_initialize_aspect_holds_both_handshakes_and_the_experimental_field() -> None:
    refused = {"code": -32600, "message": "thread/start.x requires experimentalApi capability"}
    run = record(
        [
            ("restart", "restart-0", HANDSHAKE),
            (
                "attempt",
                EXPERIMENTAL_WITHOUT,
                [
                    ("send", {"id": 2, "method": "thread/start", "params": {}}),
                    ("recv", {"id": 2, "error": refused}),
                ],
            ),
            (
                "attempt",
                "initialize",
                [
                    ("send", {"id": 1, "method": "initialize", "params": {}}),
                    ("recv", {"id": 1, "result": {"userAgent": "x/1"}}),
                ],
            ),
            (
                "attempt",
                EXPERIMENTAL_WITH,
                [
                    ("send", {"id": 2, "method": "thread/start", "params": {}}),
                    ("recv", {"id": 2, "result": {"thread": {}}}),
                ],
            ),
        ]
    )
    surface = surface_of("1.0.0", {"handshake": run}, None)
    assert surface.aspects["initialize"] == {
        "initialize without experimentalApi": {
            "$": "object",
            "codexHome": "string",
            "userAgent": "string",
        },
        "initialize with experimentalApi": {"answered": {"$": "object", "userAgent": "string"}},
        experimental_key("thread/start", False): {"refused": {**refused, "data": None}},
        experimental_key("thread/start", True): {"answered": {"$": "object", "thread": "object"}},
    }
    assert surface.aspects["answers"] == {} and surface.aspects["refusals"] == {}


def test_the_schema_aspect_lists_each_method_s_params_with_the_required_ones_marked(
    tmp_path: Path,
) -> None:
    schema = write_schema(tmp_path / "schema", start_params=OLD_PARAMS, extra_methods=["x/y"])
    methods = surface_of("1.0.0", {}, schema).aspects["schema"]
    assert methods["client request thread/start"]["params"]["cwd"] == "string (required)"
    assert methods["client request thread/start"]["params"]["baseInstructions"] == "null|string"
    assert "client request x/y" in methods
    assert "server notification turn/completed" in methods


def test_the_schema_aspect_holds_each_request_s_answer_and_each_notification_s_payload(
    tmp_path: Path,
) -> None:
    schema = write_schema(tmp_path / "schema", start_params=OLD_PARAMS, extra_methods=["x/y"])
    methods = surface_of("1.0.0", {}, schema).aspects["schema"]
    start = methods["client request thread/start"]
    assert start["result"]["thread"] == "object (required)"
    assert start["result"]["thread.parent"] == "null|object"
    assert start["params"]["sandbox"] == "enum(on-failure|read-only|workspace-write)"
    assert methods["client request x/y"]["result"] is None  # the schema names no answer
    completed = methods["server notification turn/completed"]
    assert completed == {
        "params": {
            "item": "object",
            "item<type=image>.type": "enum(image)",
            "item<type=image>.url": "string",
            "item<type=text>.text": "string",
            "item<type=text>.type": "enum(text)",
        }
    }


def test_an_answer_named_with_the_method_s_words_in_another_order_is_found(
    tmp_path: Path,
) -> None:
    schema = write_schema(
        tmp_path / "schema",
        start_params=OLD_PARAMS,
        extra_methods=["account/logout", "config/value/write", "account/usage/read"],
    )
    answer = {"type": "object", "properties": {"status": {"type": "string"}}}
    for name in ("LogoutAccount", "ConfigWrite", "GetAccountTokenUsage"):
        (schema / "v2" / f"{name}Response.json").write_text(json.dumps(answer))
    methods = surface_of("1.0.0", {}, schema).aspects["schema"]
    assert methods["client request account/logout"]["result"] == {"status": "string"}
    assert methods["client request config/value/write"]["result"] == {"status": "string"}
    # Not a part of the method's words (token): not guessed.
    assert methods["client request account/usage/read"]["result"] is None


def test_a_scenario_that_broke_and_a_schema_missing_are_named_as_gaps() -> None:
    surface = surface_of("1.0.0", {"start": None}, None)
    assert surface.missing == ("start", "schema") and not surface.complete


def test_a_surface_reads_back_from_its_json_with_the_same_digest() -> None:
    run = record([("restart", "restart-0", HANDSHAKE)])
    surface = surface_of("1.0.0", {"start": run}, None)
    again = Surface.from_json(json.loads(json.dumps(surface.to_json())))
    assert again == surface and again.digest() == surface.digest()
    with pytest.raises(SurfaceFormatError, match="format"):
        Surface.from_json({**surface.to_json(), "format": 99})


def test_a_command_s_output_chunks_are_left_out_and_its_completion_is_counted_not_placed() -> None:
    def turn(completed_first: bool, chunks: int) -> dict[str, Any]:
        command = note(
            "item/completed", threadId=THREAD, turnId="t1", item={"type": "commandExecution"}
        )
        answer = note("item/started", threadId=THREAD, turnId="t1", item={"type": "agentMessage"})
        chunk = note("item/commandExecution/outputDelta", threadId=THREAD, turnId="t1")
        said = [
            ("send", {"id": 3, "method": "turn/start", "params": {}}),
            ("recv", {"id": 3, "result": {"turn": {"id": "t1"}}}),
            ("recv", note("turn/started", threadId=THREAD, turn={"id": "t1"})),
            *[("recv", chunk)] * chunks,
            *(
                [("recv", command), ("recv", answer)]
                if completed_first
                else [("recv", answer), ("recv", command)]
            ),
            ("recv", note("turn/completed", threadId=THREAD, turn={"id": "t1"})),
        ]
        run = record([("turn", "turn-1", said)])
        return surface_of("1.0.0", {"s": run}, None).aspects["notifications"]

    assert (
        turn(True, 0)
        == turn(False, 3)
        == {
            "s turn-1 turn/start": [
                "turn/started",
                "item/started:agentMessage",
                "turn/completed",
                "item/completed:commandExecution",
            ]
        }
    )


def test_a_thread_s_name_set_by_codex_in_the_background_or_not_yet_reads_the_same() -> None:
    unnamed = shape({"thread": {"id": "x", "name": None}})
    named = shape({"thread": {"id": "x", "name": "Probe thread"}})
    assert unnamed == named and unnamed["thread.name"] == "null|string"
    assert shape({"thread": {"name": {"text": "x"}}})["thread.name"] == "null|object|string"
