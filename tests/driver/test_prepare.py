"""prepare_initial_thread, every branch, against the scripted peer (peer.py)."""

from __future__ import annotations

import pytest

from codex_probe.harness.driver import (
    DeliveryStatus,
    PrepareFailed,
    PreparePath,
    ThreadRefusal,
    UnknownPermissionModeError,
)
from tests.driver.conftest import (
    BASE,
    DEVELOPER,
    FRESH_PROMPT,
    RESUME_PROMPT,
    SpawnDriver,
    sent_texts,
    start_config,
)

KNOWN = "0f0e0d0c-0b0a-4909-8807-060504030201"
UNKNOWN = "11111111-2222-4333-8444-555555555555"
NOT_FOUND = {"code": -32600, "message": f"thread not found: {KNOWN}"}


def carries_current_instructions(params: dict[str, object]) -> bool:
    return params.get("baseInstructions") == BASE and params.get("developerInstructions") == (
        DEVELOPER
    )


async def test_no_session_id_starts_a_fresh_thread_with_the_fresh_prompt(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver()
    record = await driver.prepare_initial_thread(start_config())
    assert record.path is PreparePath.FRESH
    assert record.methods == ["thread/start", "turn/start"]
    assert carries_current_instructions(record.params_of("thread/start")[0])
    assert record.params_of("turn/start")[0]["threadId"] == record.thread_id
    assert sent_texts(driver) == [FRESH_PROMPT]
    assert record.delivery is not None and record.delivery.status is DeliveryStatus.DELIVERED


async def test_a_known_session_resumes_and_gets_the_resume_prompt_directly(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(threads=(KNOWN,))
    record = await driver.prepare_initial_thread(start_config(session_id=KNOWN))
    assert record.path is PreparePath.RESUME and record.thread_id == KNOWN
    assert record.methods == ["thread/resume", "turn/start"]
    assert carries_current_instructions(record.params_of("thread/resume")[0])
    assert sent_texts(driver) == [RESUME_PROMPT]


async def test_resume_of_an_unknown_thread_falls_back_once_to_a_fresh_thread(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver()
    record = await driver.prepare_initial_thread(start_config(session_id=UNKNOWN))
    assert record.path is PreparePath.FALLBACK
    assert record.methods == ["thread/resume", "thread/start", "turn/start"]
    assert carries_current_instructions(record.params_of("thread/start")[0])
    assert record.fallback_reason is not None
    assert record.fallback_reason.method == "thread/resume"
    assert record.fallback_reason.refusal is ThreadRefusal.NOT_FOUND
    assert record.thread_id not in ("", UNKNOWN)
    assert sent_texts(driver) == [FRESH_PROMPT]


async def test_a_malformed_session_id_refused_as_invalid_falls_back_once(
    spawn_driver: SpawnDriver,
) -> None:
    message = "invalid session id: invalid length: expected length 32 for simple format"
    driver = await spawn_driver(
        script=[{"method": "thread/resume", "action": "error", "code": -32600, "message": message}]
    )
    record = await driver.prepare_initial_thread(start_config(session_id="not-a-uuid"))
    assert record.path is PreparePath.FALLBACK
    assert record.fallback_reason is not None
    assert record.fallback_reason.refusal is ThreadRefusal.INVALID
    assert record.methods == ["thread/resume", "thread/start", "turn/start"]


async def test_first_direct_delivery_refused_as_not_found_falls_back_once(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(
        threads=(KNOWN,),
        script=[{"method": "turn/start", "call": 1, "action": "error", **NOT_FOUND}],
    )
    record = await driver.prepare_initial_thread(start_config(session_id=KNOWN))
    assert record.path is PreparePath.FALLBACK
    assert record.methods == ["thread/resume", "turn/start", "thread/start", "turn/start"]
    assert record.fallback_reason is not None and record.fallback_reason.method == "turn/start"
    assert carries_current_instructions(record.params_of("thread/start")[0])
    # The refused resume prompt went nowhere; the new thread got the fresh prompt.
    assert sent_texts(driver) == [FRESH_PROMPT]


async def test_a_refusal_that_is_not_invalid_or_not_found_fails_without_a_fallback(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(
        script=[{"method": "thread/resume", "action": "error", "code": -32603, "message": "boom"}]
    )
    with pytest.raises(PrepareFailed) as caught:
        await driver.prepare_initial_thread(start_config(session_id=UNKNOWN))
    assert caught.value.outcome_known
    assert caught.value.record.methods == ["thread/resume"]


async def test_a_resume_timeout_fails_closed_without_starting_a_thread(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(
        script=[{"method": "thread/resume", "action": "hang"}], request_timeout=0.5
    )
    with pytest.raises(PrepareFailed, match="outcome unknown") as caught:
        await driver.prepare_initial_thread(start_config(session_id=UNKNOWN))
    assert not caught.value.outcome_known
    assert [r.method for r in driver.requests] == ["thread/resume"]


async def test_a_first_delivery_timeout_fails_closed_and_never_replays_the_input(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(
        threads=(KNOWN,),
        script=[{"method": "turn/start", "action": "hang"}],
        # The resume before the hang must be answered within it on a loaded machine too.
        request_timeout=2.0,
    )
    with pytest.raises(PrepareFailed) as caught:
        await driver.prepare_initial_thread(start_config(session_id=KNOWN))
    record = caught.value.record
    assert not caught.value.outcome_known
    assert record.methods == ["thread/resume", "turn/start"]
    assert record.delivery is not None and record.delivery.status is DeliveryStatus.UNKNOWN
    assert record.delivery.body == RESUME_PROMPT


async def test_a_server_crash_at_resume_fails_closed(spawn_driver: SpawnDriver) -> None:
    driver = await spawn_driver(script=[{"method": "thread/resume", "action": "crash"}])
    with pytest.raises(PrepareFailed) as caught:
        await driver.prepare_initial_thread(start_config(session_id=UNKNOWN))
    assert not caught.value.outcome_known
    assert caught.value.record.methods == ["thread/resume"]
    assert driver.client.returncode == 3


async def test_a_fallback_thread_whose_first_turn_is_refused_does_not_fall_back_again(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(
        script=[
            {
                "method": "turn/start",
                "action": "error",
                "code": -32600,
                "message": f"thread not found: {UNKNOWN}",
            }
        ]
    )
    with pytest.raises(PrepareFailed) as caught:
        await driver.prepare_initial_thread(start_config(session_id=UNKNOWN))
    record = caught.value.record
    assert record.methods == ["thread/resume", "thread/start", "turn/start"]
    assert record.path is PreparePath.FALLBACK
    assert record.delivery is not None and record.delivery.status is DeliveryStatus.UNDELIVERED


async def test_a_refused_fallback_thread_start_is_not_retried(spawn_driver: SpawnDriver) -> None:
    driver = await spawn_driver(script=[{"method": "thread/start", "action": "error", **NOT_FOUND}])
    with pytest.raises(PrepareFailed):
        await driver.prepare_initial_thread(start_config(session_id=UNKNOWN))
    assert [r.method for r in driver.requests] == ["thread/resume", "thread/start"]


async def test_an_empty_resume_prompt_resumes_without_sending_a_turn(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver(threads=(KNOWN,))
    record = await driver.prepare_initial_thread(start_config(session_id=KNOWN, resume_prompt=""))
    assert record.path is PreparePath.RESUME and record.methods == ["thread/resume"]
    assert record.delivery is not None and record.delivery.status is DeliveryStatus.SKIPPED


async def test_blank_instructions_are_left_off_the_fallback_thread_start(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver()
    config = start_config(session_id=UNKNOWN, developer_instructions="  ")
    record = await driver.prepare_initial_thread(config)
    params = record.params_of("thread/start")[0]
    assert params["baseInstructions"] == BASE and "developerInstructions" not in params


async def test_an_unknown_permission_mode_fails_before_anything_is_sent(
    spawn_driver: SpawnDriver,
) -> None:
    driver = await spawn_driver()
    with pytest.raises(UnknownPermissionModeError):
        await driver.prepare_initial_thread(start_config(permission_mode="yolo"))
    assert driver.requests == []
    assert list(driver.client.transcript.messages("send")) == []


async def test_first_delivery_refused_for_another_reason_is_reported_without_a_fallback(
    spawn_driver: SpawnDriver,
) -> None:
    too_large = {"code": -32602, "message": "Input exceeds the maximum length"}
    driver = await spawn_driver(
        threads=(KNOWN,), script=[{"method": "turn/start", "action": "error", **too_large}]
    )
    with pytest.raises(PrepareFailed) as caught:
        await driver.prepare_initial_thread(start_config(session_id=KNOWN))
    record = caught.value.record
    assert caught.value.outcome_known and record.methods == ["thread/resume", "turn/start"]
    assert record.delivery is not None and record.delivery.status is DeliveryStatus.UNDELIVERED
    assert record.delivery.detail == too_large["message"]
