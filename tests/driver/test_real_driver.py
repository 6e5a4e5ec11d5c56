"""The driver against the real codex-cli, for the paths it produces on demand.

Fresh start, resume after a process restart, resume of an unknown (or malformed) id
(the fallback), and the steer race. The StartConfig comes from the packaged sources
through the real compiler and dispatcher; the model is the wiretap.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest

from codex_probe.harness.codex.appserver import open_app_server
from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.schema import ensure_schema
from codex_probe.harness.codex.transcripts import validate_transcript
from codex_probe.harness.codex.validator import MessageValidator
from codex_probe.harness.compiler import LifecycleEvent, load_sources
from codex_probe.harness.dispatcher import StartConfig, build_start_config
from codex_probe.harness.driver import (
    CodexAppServerDriver,
    DeliveryStatus,
    DriveResult,
    PreparePath,
    ThreadRefusal,
    drive_once,
    sandbox_settings,
    settle,
)
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import CapturedRequest, Reply, Wiretap

pytestmark = pytest.mark.real

TURN_TIMEOUT = 60.0
BODY = "LATER_MESSAGE_MARKER: please also check the schema."


@dataclass
class RealBackend:
    codex: Installation
    tap: Wiretap
    home: IsolatedHome
    transcript: Transcript

    def config(self, *, session_id: str = "", message: str = "hi") -> StartConfig:
        event = LifecycleEvent.WAKE if session_id else LifecycleEvent.FRESH_START
        return build_start_config(
            load_sources(None),
            event=event,
            session_id=session_id,
            message=message,
            work_dir=str(self.home.workdir),
        )

    async def session(self, config: StartConfig) -> DriveResult:
        return await drive_once(
            self.codex.binary,
            config,
            env=self.home.env(),
            cwd=self.home.workdir,
            transcript=self.transcript,
            turn_timeout=TURN_TIMEOUT,
        )

    def schema_violations(self) -> list[str]:
        validator = MessageValidator(ensure_schema(self.codex))
        return [str(v) for v in validate_transcript(validator, self.transcript.entries)]


@pytest.fixture
async def real(default_codex: Installation) -> AsyncIterator[RealBackend]:
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url) as home:
            yield RealBackend(default_codex, tap, home, Transcript())


def user_texts(request: CapturedRequest, roles: tuple[str, ...] = ("user",)) -> list[str]:
    """The message texts of one model request's input, of the given roles."""
    return [
        part.get("text", "")
        for item in request.body.get("input", [])
        if item.get("type") == "message" and item.get("role") in roles
        for part in item.get("content", [])
    ]


def model_sees(request: CapturedRequest, text: str) -> bool:
    """Whether `text` reaches the model, in `instructions` or any input message."""
    seen = [request.body.get("instructions") or "", *user_texts(request, ("developer", "user"))]
    return any(text in part for part in seen)


def carries_instructions(params: dict[str, Any], config: StartConfig) -> bool:
    return (
        params.get("baseInstructions") == config.base_instructions
        and params.get("developerInstructions") == config.developer_instructions
        and bool(config.base_instructions.strip())
    )


async def test_real_codex_fresh_start_puts_instructions_on_the_thread_and_the_prompt_in_the_turn(
    real: RealBackend,
) -> None:
    config = real.config()
    result = await real.session(config)
    assert result.initial.path is PreparePath.FRESH
    assert result.initial.methods == ["thread/start", "turn/start"]
    assert carries_instructions(result.initial.params_of("thread/start")[0], config)
    assert [turn["turn"]["status"] for turn in result.completed_turns] == ["completed"]
    [model_request] = real.tap.model_requests()
    assert model_sees(model_request, config.base_instructions)
    assert model_sees(model_request, config.developer_instructions)
    assert config.fresh_prompt in user_texts(model_request)
    assert result.returncode == 0
    assert real.schema_violations() == []


async def test_real_codex_resumes_a_thread_after_a_restart_with_the_resume_prompt(
    real: RealBackend,
) -> None:
    first = await real.session(real.config())
    config = real.config(session_id=first.initial.thread_id, message="second hi")
    second = await real.session(config)
    assert second.initial.path is PreparePath.RESUME
    assert second.initial.thread_id == first.initial.thread_id
    assert second.initial.methods == ["thread/resume", "turn/start"]
    assert carries_instructions(second.initial.params_of("thread/resume")[0], config)
    resumed_turn = real.tap.model_requests()[-1]
    assert user_texts(resumed_turn).count(config.resume_prompt) == 1
    # The lean resume prompt: the reference manual is not sent again.
    assert config.fresh_prompt not in user_texts(resumed_turn)[1:]
    assert real.schema_violations() == []


async def test_real_codex_resume_of_an_unknown_thread_falls_back_once_to_a_fresh_thread(
    real: RealBackend,
) -> None:
    unknown = str(uuid.uuid4())
    config = real.config(session_id=unknown)
    result = await real.session(config)
    record = result.initial
    assert record.path is PreparePath.FALLBACK
    assert record.methods == ["thread/resume", "thread/start", "turn/start"]
    [thread_start] = record.params_of("thread/start")
    assert carries_instructions(thread_start, config)
    assert record.fallback_reason is not None
    assert (record.fallback_reason.code, record.fallback_reason.message) == (
        -32600,
        f"no rollout found for thread id {unknown}",
    )
    assert record.fallback_reason.refusal is ThreadRefusal.NOT_FOUND
    [model_request] = real.tap.model_requests()
    assert config.fresh_prompt in user_texts(model_request)


async def test_real_codex_refuses_a_malformed_session_id_as_invalid_and_the_driver_falls_back(
    real: RealBackend,
) -> None:
    result = await real.session(real.config(session_id="not-a-thread-id"))
    reason = result.initial.fallback_reason
    assert result.initial.path is PreparePath.FALLBACK
    assert reason is not None and reason.refusal is ThreadRefusal.INVALID
    assert reason.message.startswith("invalid session id: ")
    assert result.initial.methods.count("thread/start") == 1


async def open_driver(real: RealBackend, config: StartConfig) -> tuple[Any, CodexAppServerDriver]:
    override = sandbox_settings(config.permission_mode, config.work_dir).config_override
    client, _ = await open_app_server(
        real.codex.binary,
        env=real.home.env(),
        cwd=real.home.workdir,
        config_overrides=[override],
        transcript=real.transcript,
    )
    return client, CodexAppServerDriver(client)


async def test_real_codex_steer_after_the_turn_ended_delivers_the_body_once_in_a_new_turn(
    real: RealBackend,
) -> None:
    config = real.config()
    client, driver = await open_driver(real, config)
    async with client:
        thread_id = (await driver.prepare_initial_thread(config)).thread_id
        # The completion is consumed behind the driver's back: it still thinks the turn runs.
        await client.wait_for_notification("turn/completed", timeout=TURN_TIMEOUT)
        assert driver.active_turn(thread_id) is not None
        delivery = await driver.deliver(thread_id, BODY)
        await settle(driver, thread_id, timeout=TURN_TIMEOUT)
    assert [r.method for r in driver.requests][-2:] == ["turn/steer", "turn/start"]
    assert (driver.requests[-2].error_code, driver.requests[-2].error_message) == (
        -32600,
        "no active turn to steer",
    )
    assert delivery.status is DeliveryStatus.DELIVERED
    assert user_texts(real.tap.model_requests()[-1]).count(BODY) == 1


async def test_real_codex_steers_a_message_into_a_turn_that_is_still_running(
    real: RealBackend,
) -> None:
    real.tap.queue_replies(Reply(text="slow answer", delay_s=3))
    config = real.config()
    client, driver = await open_driver(real, config)
    async with client:
        record = await driver.prepare_initial_thread(config)
        assert record.delivery is not None
        delivery = await driver.deliver(record.thread_id, BODY)
        completed, _ = await settle(driver, record.thread_id, timeout=TURN_TIMEOUT)
    assert delivery.status is DeliveryStatus.DELIVERED and delivery.method == "turn/steer"
    assert delivery.turn_id == record.delivery.turn_id
    assert [turn["turn"]["id"] for turn in completed] == [record.delivery.turn_id]
    assert user_texts(real.tap.model_requests()[-1]).count(BODY) == 1
    assert real.schema_violations() == []


@pytest.mark.parametrize(
    ("permission_mode", "sandbox_type"),
    [("full_access", "dangerFullAccess"), ("agent_workspace_write", "workspaceWrite")],
)
async def test_real_codex_runs_the_thread_in_the_sandbox_the_permission_mode_maps_to(
    real: RealBackend, permission_mode: str, sandbox_type: str
) -> None:
    config = replace(real.config(), permission_mode=permission_mode)
    await real.session(config)
    sent = {m["id"]: m["method"] for m in real.transcript.messages("send") if "id" in m}
    [answer] = [
        m["result"]
        for m in real.transcript.messages("recv")
        if sent.get(m.get("id")) == "thread/start"
    ]
    assert answer["sandbox"]["type"] == sandbox_type
    assert answer["approvalPolicy"] == "never"
    assert real.schema_violations() == []
