"""The exploration aspect of a surface: per cell, the answer's shape with its enumerated
values kept, the refusal masked, the notifications with their enumerated values."""

from __future__ import annotations

from typing import Any

from codex_probe.harness.codex.install import Installation
from codex_probe.probes.domain.surface.diff import diff_surfaces
from codex_probe.probes.domain.surface.enumerated import enumerated_shape
from codex_probe.probes.domain.surface.exploration import exploration_aspect
from codex_probe.probes.domain.surface.release import EXPLORATION, in_gap, surface_of

THREAD_ID = "01a2386f-75dc-7350-bf98-949797c04103"


def started(approval: str) -> dict[str, Any]:
    return {
        "method": "thread/start",
        "state": "none",
        "variant": "minimal",
        "kind": "valid",
        "params": {},
        "outcome": "answered",
        "result": {
            "thread": {"id": THREAD_ID, "ephemeral": False, "status": {"type": "idle"}},
            "approvalPolicy": approval,
            "model": "mock-model",
        },
        "notifications": [
            {"method": "thread/started", "params": {"thread": {"id": THREAD_ID}}},
            {"method": "thread/tokenUsage/updated", "params": {"threadId": THREAD_ID}},
        ],
    }


REFUSED = {
    "method": "thread/read",
    "state": "none",
    "variant": "minimal",
    "kind": "valid",
    "params": {"threadId": "{{thread}}"},
    "outcome": "refused",
    "error": {"code": -32600, "message": f"thread not found: {THREAD_ID}"},
}


def record(*cells: dict[str, Any]) -> dict[str, Any]:
    return {"format": 1, "version": "0.171.0", "cells": list(cells)}


def test_a_default_that_flips_between_two_enum_values_is_a_change(
    default_codex: Installation,
) -> None:
    schema = default_codex.schema_dir
    before = surface_of("0.171.0", {}, schema, record(started("never")))
    after = surface_of("0.171.0", {}, schema, record(started("on-request")))
    changes = diff_surfaces(before, after)
    assert [(c.aspect, c.key) for c in changes] == [(EXPLORATION, "thread/start none minimal")]
    answer = before.value(EXPLORATION, "thread/start none minimal")["answer"]
    assert answer["approvalPolicy"] == '"never"'
    assert answer["thread.ephemeral"] == "false"
    assert answer["thread.status.type"] == '"idle"'
    assert answer["thread.id"] == answer["model"] == "string"  # not enumerated: its type


def test_a_refusal_keeps_its_code_and_its_message_with_ids_masked(
    default_codex: Installation,
) -> None:
    aspect = exploration_aspect(record(REFUSED), default_codex.schema_dir)
    assert aspect["thread/read none minimal"] == {
        "refused": {"code": -32600, "message": "thread not found: <id>"}
    }


def test_notifications_keep_their_enumerated_values_and_leave_out_streamed_ones(
    default_codex: Installation,
) -> None:
    aspect = exploration_aspect(record(started("never")), default_codex.schema_dir)
    assert aspect["thread/start none minimal"]["notifications"] == ["thread/started"]
    status = {"method": "thread/status/changed", "params": {"status": {"type": "idle"}}}
    cell = {**started("never"), "notifications": [status]}
    aspect = exploration_aspect(record(cell), default_codex.schema_dir)
    assert aspect["thread/start none minimal"]["notifications"] == [
        'thread/status/changed {"status.type":"\\"idle\\""}'
    ]


def test_a_call_whose_only_notifications_were_streamed_is_the_same_as_one_without_any(
    default_codex: Installation,
) -> None:
    usage = {"method": "thread/tokenUsage/updated", "params": {"threadId": THREAD_ID}}
    streamed = {**REFUSED, "notifications": [usage]}
    schema = default_codex.schema_dir
    assert exploration_aspect(record(streamed), schema) == exploration_aspect(
        record(REFUSED), schema
    )
    assert (
        "notifications"
        not in exploration_aspect(record(streamed), schema)["thread/read none minimal"]
    )


def test_an_exploration_that_could_not_run_is_a_gap_not_a_change(
    default_codex: Installation,
) -> None:
    schema = default_codex.schema_dir
    broken = surface_of("0.171.0", {}, schema, "the exploration could not run: no space")
    explored = surface_of("0.171.0", {}, schema, record(started("never")))
    assert in_gap(EXPLORATION, "thread/start none minimal", broken.missing)
    assert diff_surfaces(broken, explored) == []
    assert surface_of("0.171.0", {}, schema).missing == ()  # not asked: no gap


def test_without_a_schema_a_value_keeps_its_type() -> None:
    assert enumerated_shape({"a": "x", "b": True}, None) == {
        "$": "object",
        "a": "string",
        "b": "boolean",
    }
