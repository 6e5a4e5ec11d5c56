"""Later messages: steer or start, the steer race, the continuation inbox (scripted peer)."""

from __future__ import annotations

import pytest

from codex_probe.harness.driver import (
    CodexAppServerDriver,
    DeliveryOutcomeUnknown,
    DeliveryStatus,
    SettleFailed,
    settle,
)
from tests.driver.conftest import FRESH_PROMPT, SpawnDriver, sent_texts, start_config

BODY = "  later message\nwith two lines  \n"


# How long a request the fake's script leaves unanswered is waited for: long enough for a
# request the fake does answer (a steer refused first) on a machine at load 16, where the
# fake's start-up alone outlasted 0.5 s.
HANG_TIMEOUT_S = 2.0


async def fresh_thread(driver: CodexAppServerDriver) -> str:
    record = await driver.prepare_initial_thread(start_config())
    return record.thread_id


async def test_a_message_while_a_turn_is_active_steers_that_turn(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(turn_seconds=30)
    thread_id = await fresh_thread(driver)
    active = driver.active_turn(thread_id)
    delivery = await driver.deliver(thread_id, BODY)
    assert delivery.status is DeliveryStatus.DELIVERED and delivery.method == "turn/steer"
    assert driver.requests[-1].params == {
        "threadId": thread_id,
        "input": [{"type": "text", "text": BODY}],
        "expectedTurnId": active,
    }


async def test_a_message_on_an_idle_thread_starts_a_turn_with_the_exact_body(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver()
    thread_id = await fresh_thread(driver)
    await driver.wait_for_turn_completed(thread_id, timeout=5)
    request = driver.encode_stdin_message(thread_id, BODY)
    assert request is not None and request.method == "turn/start"
    assert request.params["input"] == [{"type": "text", "text": BODY}]
    delivery = await driver.deliver(thread_id, BODY)
    assert delivery.status is DeliveryStatus.DELIVERED and delivery.method == "turn/start"
    assert sent_texts(driver) == [FRESH_PROMPT, BODY]


async def test_a_turn_that_ended_before_the_steer_gets_the_body_in_a_new_turn_once(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver()  # turns end as soon as they start
    thread_id = await fresh_thread(driver)
    # Someone else consumes the completion, so the driver still believes the turn active.
    await driver.client.wait_for_notification("turn/completed", timeout=5)
    assert driver.active_turn(thread_id) is not None
    delivery = await driver.deliver(thread_id, BODY)
    assert [r.method for r in driver.requests][-2:] == ["turn/steer", "turn/start"]
    assert driver.requests[-2].error_message == "no active turn to steer"
    assert delivery.status is DeliveryStatus.DELIVERED and delivery.method == "turn/start"
    assert sent_texts(driver) == [FRESH_PROMPT, BODY]


async def test_a_body_the_active_turn_cannot_take_is_held_and_delivered_after_the_turn(
    spawn_driver: SpawnDriver,
) -> None:
    refusal = {"code": -32600, "message": "cannot steer a compact turn"}
    driver = await spawn_driver(
        turn_seconds=0.5, script=[{"method": "turn/steer", "action": "error", **refusal}]
    )
    thread_id = await fresh_thread(driver)
    delivery = await driver.deliver(thread_id, BODY)
    assert delivery.status is DeliveryStatus.HELD
    assert [m.body for m in driver.inbox.pending(thread_id)] == [BODY]
    completed, later = await settle(driver, thread_id, timeout=10)
    assert [d.status for d in later] == [DeliveryStatus.DELIVERED]
    assert driver.inbox.pending(thread_id) == []
    assert sent_texts(driver) == [FRESH_PROMPT, BODY]  # the body itself, once, no nudge
    assert len(completed) == 2  # the turn it waited for, and the one it started


async def test_a_steer_into_a_turn_someone_else_started_waits_for_that_turn(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(turn_seconds=0.3)
    thread_id = await fresh_thread(driver)
    ours = driver.active_turn(thread_id)
    await driver.client.wait_for_notification("turn/completed", timeout=5)
    # Another client starts a turn behind the driver's back.
    theirs = await driver.client.request(
        "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "x"}]}, timeout=5
    )
    delivery = await driver.deliver(thread_id, BODY)
    assert delivery.status is DeliveryStatus.HELD
    assert driver.requests[-1].params["expectedTurnId"] == ours
    assert driver.active_turn(thread_id) == theirs["turn"]["id"]
    _, later = await settle(driver, thread_id, timeout=10)
    assert [d.status for d in later] == [DeliveryStatus.DELIVERED]
    assert sent_texts(driver) == [FRESH_PROMPT, BODY]


async def test_a_refused_later_message_is_reported_undelivered_and_not_retried(
    spawn_driver: SpawnDriver,
) -> None:
    refusal = {"code": -32602, "message": "Input exceeds the maximum length"}
    driver = await spawn_driver(
        script=[{"method": "turn/start", "call": 2, "action": "error", **refusal}]
    )
    thread_id = await fresh_thread(driver)
    await driver.wait_for_turn_completed(thread_id, timeout=5)
    delivery = await driver.deliver(thread_id, BODY)
    assert delivery.status is DeliveryStatus.UNDELIVERED
    assert delivery.detail == refusal["message"]
    assert [r.method for r in driver.requests] == ["thread/start", "turn/start", "turn/start"]


async def test_a_later_message_with_an_unknown_outcome_raises_and_is_not_replayed(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(
        turn_seconds=30, script=[{"method": "turn/steer", "action": "hang"}]
    )
    thread_id = await fresh_thread(driver)
    driver.request_timeout = HANG_TIMEOUT_S  # for the hang only: the start is not timed
    with pytest.raises(DeliveryOutcomeUnknown) as caught:
        await driver.deliver(thread_id, BODY)
    assert [d.status for d in caught.value.deliveries] == [DeliveryStatus.UNKNOWN]
    assert [r.method for r in driver.requests][-1] == "turn/steer"
    assert driver.inbox.pending(thread_id) == []


async def test_held_bodies_whose_boundary_turn_is_refused_are_reported_not_kept(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(
        turn_seconds=0.3,
        script=[
            {
                "method": "turn/steer",
                "action": "error",
                "code": -32600,
                "message": "cannot steer a review turn",
            },
            {
                "method": "turn/start",
                "call": 2,
                "action": "error",
                "code": -32603,
                "message": "failed to start turn",
            },
        ],
    )
    thread_id = await fresh_thread(driver)
    await driver.deliver(thread_id, "one")
    await driver.deliver(thread_id, "two")
    _, later = await settle(driver, thread_id, timeout=10)
    assert [(d.body, d.status) for d in later] == [
        ("one", DeliveryStatus.UNDELIVERED),
        ("two", DeliveryStatus.UNDELIVERED),
    ]
    assert len(driver.inbox) == 0
    boundary_turns = [r for r in driver.requests if r.method == "turn/start"][1:]
    assert len(boundary_turns) == 1  # both bodies in one turn/start, sent once
    # Each body its own input item; the sandbox policy of every turn/start of the session.
    first_turn = next(r for r in driver.requests if r.method == "turn/start")
    assert boundary_turns[0].params == {
        "threadId": thread_id,
        "input": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
        "sandboxPolicy": first_turn.params["sandboxPolicy"],
    }


async def test_an_empty_message_sends_nothing(spawn_driver: SpawnDriver) -> None:
    driver = await spawn_driver()
    thread_id = await fresh_thread(driver)
    sent = len(driver.requests)
    assert (await driver.deliver(thread_id, " \n")).status is DeliveryStatus.SKIPPED
    assert driver.encode_stdin_message("", BODY) is None
    assert len(driver.requests) == sent


async def test_a_steer_race_whose_new_turn_is_lost_in_transport_reports_that_turn_start(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(script=[{"method": "turn/start", "call": 2, "action": "hang"}])
    thread_id = await fresh_thread(driver)
    await driver.client.wait_for_notification("turn/completed", timeout=5)
    driver.request_timeout = HANG_TIMEOUT_S  # for the hang only: the start is not timed
    with pytest.raises(DeliveryOutcomeUnknown) as caught:
        await driver.deliver(thread_id, BODY)
    assert [r.method for r in driver.requests][-2:] == ["turn/steer", "turn/start"]
    # The steer was refused (known); it is the turn/start whose fate is unknown.
    assert [(d.status, d.method) for d in caught.value.deliveries] == [
        (DeliveryStatus.UNKNOWN, "turn/start")
    ]


async def test_a_held_body_sent_at_a_boundary_is_reported_when_settling_then_times_out(
    spawn_driver: SpawnDriver,
) -> None:
    refusal = {"code": -32600, "message": "cannot steer a compact turn"}
    driver = await spawn_driver(
        turn_seconds=1.0, script=[{"method": "turn/steer", "action": "error", **refusal}]
    )
    thread_id = await fresh_thread(driver)
    assert (await driver.deliver(thread_id, BODY)).status is DeliveryStatus.HELD
    # The first turn ends after ~1 s and the body goes out in a new turn, which ends
    # after ~2 s: past the deadline. The body left the inbox; its fate must not vanish.
    with pytest.raises(SettleFailed) as caught:
        await settle(driver, thread_id, timeout=1.5)
    assert len(caught.value.completed) == 1
    assert [(d.body, d.status) for d in caught.value.deliveries] == [
        (BODY, DeliveryStatus.DELIVERED)
    ]
    assert driver.inbox.pending(thread_id) == []
