"""What the reference driver touches of the protocol is read from its code, and matches
what it is seen to send."""

from __future__ import annotations

from codex_probe.harness.driver.touches import driver_touches, methods_in
from tests.driver.conftest import SpawnDriver, start_config


def test_the_driver_sends_the_thread_and_turn_requests_and_the_handshake() -> None:
    touches = driver_touches()
    assert touches.sends == {
        "initialize",
        "initialized",
        "thread/start",
        "thread/resume",
        "turn/start",
        "turn/steer",
    }


def test_the_driver_reads_turn_completed_and_no_request_it_dispatches_on() -> None:
    assert driver_touches().reads == {"turn/completed"}


def test_a_refusal_reads_as_the_driver_s_rules_say() -> None:
    touches = driver_touches()
    assert touches.reading_of(-32600, "thread not found: x") == "not_found"
    assert touches.reading_of(-32600, "invalid session id: bad") == "invalid"
    assert touches.reading_of(-32600, "no active turn to steer") == "no_active_turn"
    assert touches.reading_of(-32603, "thread not found: x") is None
    assert touches.reading_of(-32600, "Invalid request: unknown variant") is None


def test_a_new_request_in_driver_code_is_a_new_touch_without_a_list_to_edit() -> None:
    found = methods_in(
        "async def f(self):\n"
        "    await self._request('thread/fork', {})\n"
        "    await self.client.wait_for_notification('thread/closed', None, timeout=1)\n"
        "    if note.method == 'item/completed' or request.method == 'thread/fork':\n"
        "        pass\n"
    )
    assert found.sends == {"thread/fork"}
    assert found.waits == {"thread/closed"}
    assert found.compared == {"item/completed", "thread/fork"}


async def test_every_request_the_driver_is_seen_to_send_is_a_touch(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(turn_seconds=30)
    record = await driver.prepare_initial_thread(start_config())
    await driver.deliver(record.thread_id, "a later message")
    resumed = await spawn_driver(threads=(record.thread_id,))
    await resumed.prepare_initial_thread(start_config(session_id=record.thread_id))
    seen = {request.method for request in [*driver.requests, *resumed.requests]}
    assert seen == {"thread/start", "thread/resume", "turn/start", "turn/steer"}
    assert seen <= driver_touches().sends
