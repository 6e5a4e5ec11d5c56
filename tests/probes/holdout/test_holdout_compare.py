"""Two runs of the out-of-sample work compared step by step, masked as the surface masks:
on synthetic records, so each rule is seen on its own."""

from __future__ import annotations

from typing import Any

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.probes.domain.surface.enumerated import MessageSchemas
from codex_probe.probes.releases.holdout_compare import compare

ONE_THREAD = "01a2386f-75dc-7350-bf98-949797c04103"
ANOTHER_THREAD = "0b2f1c4e-1111-7350-bf98-949797c04104"


@pytest.fixture(scope="module")
def schemas(default_codex: Installation) -> MessageSchemas:
    return MessageSchemas(default_codex.schema_dir)


def started(thread: str, approval: str = "never", notes: int = 1) -> dict[str, Any]:
    return {
        "method": "thread/start",
        "state": "none",
        "variant": "resampled",
        "kind": "valid",
        "params": {"ephemeral": True},
        "outcome": "answered",
        "result": {
            "thread": {"id": thread, "ephemeral": True, "status": {"type": "idle"}},
            "approvalPolicy": approval,
            "model": "mock-model",
        },
        "notifications": [{"method": "thread/started", "params": {"thread": {"id": thread}}}]
        * notes,
    }


def refused(thread: str, message: str = "thread not found: ") -> dict[str, Any]:
    return {
        "method": "thread/read",
        "state": "none",
        "variant": "resampled",
        "kind": "valid",
        "params": {"threadId": "{{thread}}"},
        "outcome": "refused",
        "error": {"code": -32600, "message": f"{message}{thread}"},
    }


def record(*cells: dict[str, Any], walks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"format": 1, "version": "0.171.0", "cells": list(cells), "walks": walks or []}


def test_a_step_whose_masked_outcomes_are_the_same_does_not_differ(
    schemas: MessageSchemas,
) -> None:
    real = record(started(ONE_THREAD), refused(ONE_THREAD))
    fake = record(started(ANOTHER_THREAD), refused(ANOTHER_THREAD))
    compared = compare(real, fake, schemas)
    assert len(compared.steps) == 2
    assert compared.differing == []
    assert compared.counts()["differing %"] == 0.0


def test_an_enumerated_value_of_an_answer_that_differs_is_a_differing_step(
    schemas: MessageSchemas,
) -> None:
    compared = compare(
        record(started(ONE_THREAD, "never")), record(started(ONE_THREAD, "on-request")), schemas
    )
    assert [step.key for step in compared.differing] == ["thread/start none resampled"]
    step = compared.differing[0]
    assert step.differences() == [("answer approvalPolicy", '"never"', '"on-request"')]
    assert compared.counts()["differing %"] == 100.0


def test_a_refusal_worded_otherwise_differs_and_one_naming_another_id_does_not(
    schemas: MessageSchemas,
) -> None:
    same = compare(record(refused(ONE_THREAD)), record(refused(ANOTHER_THREAD)), schemas)
    worded = compare(
        record(refused(ONE_THREAD)), record(refused(ONE_THREAD, "no thread ")), schemas
    )
    assert same.differing == []
    assert [step.key for step in worded.differing] == ["thread/read none resampled"]


def test_a_notification_the_fake_does_not_send_is_a_differing_step(
    schemas: MessageSchemas,
) -> None:
    compared = compare(record(started(ONE_THREAD)), record(started(ONE_THREAD, notes=0)), schemas)
    assert [step.key for step in compared.differing] == ["thread/start none resampled"]


def test_a_step_the_real_release_does_not_repeat_is_counted_apart_not_among_the_differing(
    schemas: MessageSchemas,
) -> None:
    real = record(started(ONE_THREAD), refused(ONE_THREAD))
    again = record(started(ONE_THREAD, notes=2), refused(ONE_THREAD))
    fake = record(started(ONE_THREAD, notes=2), refused(ONE_THREAD, "no thread "))
    compared = compare(real, fake, schemas, control=again)
    assert [step.key for step in compared.unstable] == ["thread/start none resampled"]
    assert [step.key for step in compared.differing] == ["thread/read none resampled"]
    counts = compared.counts()
    assert (counts["steps"], counts["stable"], counts["unstable"], counts["differing"]) == (
        2,
        1,
        1,
        1,
    )
    assert counts["differing %"] == 100.0


def test_a_cell_the_fake_did_not_run_differs(schemas: MessageSchemas) -> None:
    compared = compare(record(refused(ONE_THREAD)), record(), schemas)
    assert compared.differing[0].other == {"not run": "no such cell"}


def walk(outcomes: list[Any], steps: int = 3, surprise: str | None = None) -> dict[str, Any]:
    return {
        "seed": 4,
        "steps": ["start -> T0", "thread/read resampled on T0", "archive T0"][:steps],
        "outcomes": outcomes,
        "surprise": None if surprise is None else {"what": surprise},
    }


def test_a_walk_is_compared_step_by_step_with_the_sequence_that_leads_to_each(
    schemas: MessageSchemas,
) -> None:
    real = walk(
        ["started", {"method": "thread/read", "result": {"thread": {"id": ONE_THREAD}}}, "done"]
    )
    fake = walk(
        [
            "started",
            {"method": "thread/read", "error": {"code": -32600, "message": "unknown variant"}},
        ],
        surprise="the app-server stopped",
    )
    compared = compare(record(walks=[real]), record(walks=[fake]), schemas)
    assert [step.key for step in compared.steps] == [
        "walk 4 step 1",
        "walk 4 step 2",
        "walk 4 step 3",
    ]
    assert [step.key for step in compared.differing] == ["walk 4 step 2", "walk 4 step 3"]
    second = compared.differing[0]
    assert second.method == "thread/read"
    assert second.sequence == ("1. start -> T0", "2. thread/read resampled on T0")
    assert compared.differing[1].other == {"not run": "the walk stopped: the app-server stopped"}


def test_each_differing_step_says_how_it_differs_and_the_counts_add_them_up(
    schemas: MessageSchemas,
) -> None:
    unknown = refused(ONE_THREAD, "Invalid request: unknown variant `thread/read`, expected ")
    value = "Invalid request: unknown variant `explore-unknown-value`, expected "
    compared = compare(
        record(started(ONE_THREAD, "never"), refused(ONE_THREAD, value)),
        record(started(ONE_THREAD, "on-request"), unknown),
        schemas,
    )
    assert [step.how for step in compared.steps] == [
        "both answer, with another shape or value",
        "the fake does not know the method",  # though the release refused an unknown value
    ]
    assert compared.counts()["how"] == {
        "both answer, with another shape or value": 1,
        "the fake does not know the method": 1,
    }


def test_a_refused_lifecycle_step_is_compared_without_the_clients_request_id(
    schemas: MessageSchemas,
) -> None:
    said = "refused: turn/start (id {}) failed with error -32600: thread not found: " + ONE_THREAD
    compared = compare(
        record(walks=[walk([said.format(9)], steps=1)]),
        record(walks=[walk([said.format(11)], steps=1)]),
        schemas,
    )
    assert compared.differing == []
    assert compared.steps[0].real == {
        "said": "refused: turn/start failed with error -32600: thread not found: <id>"
    }


def test_a_wait_that_ran_out_in_a_walk_is_compared_without_how_long_it_waited(
    schemas: MessageSchemas,
) -> None:
    said = "refused: notification turn/started did not arrive within {}s"
    compared = compare(
        record(walks=[walk([said.format("10.00")], steps=1)]),
        record(walks=[walk([said.format("10.09")], steps=1)]),
        schemas,
    )
    assert compared.differing == []
    assert compared.steps[0].real == {"said": said.format("").replace(" s", " <s>")}


def test_a_walk_step_the_fake_refuses_as_an_unknown_method_says_so(
    schemas: MessageSchemas,
) -> None:
    unknown = {"code": -32600, "message": "Invalid request: unknown variant `thread/unarchive`"}
    real = walk(["started", {"method": "thread/unarchive", "result": {}}], steps=2)
    fake = walk(["started", {"method": "thread/unarchive", "error": unknown}], steps=2)
    real["steps"][1] = fake["steps"][1] = "unarchive T0"
    compared = compare(record(walks=[real]), record(walks=[fake]), schemas)
    assert [(step.method, step.how) for step in compared.differing] == [
        ("thread/unarchive", "the fake does not know the method")
    ]
    assert compared.steps[0].method == "start"
