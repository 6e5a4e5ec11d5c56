"""The driver on the fake app-server, with its fault scripts forcing the branches the
real codex cannot produce on demand (a thread that vanishes, a garbled or cut pipe)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from codex_probe.fake_appserver.launcher import write_launcher
from codex_probe.harness.compiler import LifecycleEvent, load_sources
from codex_probe.harness.dispatcher import StartConfig, build_start_config
from codex_probe.harness.driver import (
    DeliveryStatus,
    DriveResult,
    PrepareFailed,
    PreparePath,
    drive_once,
)
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import Wiretap

TIMEOUT = 20.0


class FakeBackend:
    def __init__(self, home: IsolatedHome, folder: Path) -> None:
        self.home = home
        self.folder = folder

    def config(self, session_id: str = "") -> StartConfig:
        event = LifecycleEvent.WAKE if session_id else LifecycleEvent.FRESH_START
        return build_start_config(
            load_sources(None),
            event=event,
            session_id=session_id,
            message="hi",
            work_dir=str(self.home.workdir),
        )

    async def session(
        self, config: StartConfig, script: list[dict[str, Any]] | None = None
    ) -> DriveResult:
        script_path = None
        if script:
            script_path = self.folder / "script.jsonl"
            script_path.write_text("".join(json.dumps(rule) + "\n" for rule in script))
        launcher = write_launcher(self.folder / "bin", profile="0.171.0", script=script_path)
        return await drive_once(
            launcher,
            config,
            env=self.home.env(),
            cwd=self.home.workdir,
            request_timeout=TIMEOUT,
            turn_timeout=TIMEOUT,
        )


@pytest.fixture
async def fake(tmp_path: Path) -> AsyncIterator[FakeBackend]:
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url, parent_dir=tmp_path) as home:
            yield FakeBackend(home, tmp_path)


async def test_the_fake_resumes_a_thread_of_an_earlier_process(fake: FakeBackend) -> None:
    first = await fake.session(fake.config())
    second = await fake.session(fake.config(first.initial.thread_id))
    assert second.initial.path is PreparePath.RESUME
    assert second.initial.methods == ["thread/resume", "turn/start"]


async def test_a_thread_that_vanishes_before_the_first_delivery_falls_back_once(
    fake: FakeBackend,
) -> None:
    first = await fake.session(fake.config())
    script = [{"method": "turn/start", "call": 1, "action": "vanish"}]
    second = await fake.session(fake.config(first.initial.thread_id), script)
    record = second.initial
    assert record.path is PreparePath.FALLBACK
    assert record.methods == ["thread/resume", "turn/start", "thread/start", "turn/start"]
    assert record.fallback_reason is not None
    assert record.fallback_reason.message.startswith("thread not found: ")
    assert record.delivery is not None and record.delivery.status is DeliveryStatus.DELIVERED


@pytest.mark.parametrize("action", ["malformed", "close_stdout", "crash"])
async def test_a_garbled_or_cut_answer_to_the_resume_fails_closed(
    fake: FakeBackend, action: str
) -> None:
    script = [{"method": "thread/resume", "action": action}]
    with pytest.raises(PrepareFailed) as caught:
        await fake.session(fake.config("0f0e0d0c-0b0a-4909-8807-060504030201"), script)
    assert not caught.value.outcome_known
    assert caught.value.record.methods == ["thread/resume"]


async def test_a_cut_pipe_at_the_first_direct_delivery_is_never_replayed_on_a_new_thread(
    fake: FakeBackend,
) -> None:
    first = await fake.session(fake.config())
    script = [{"method": "turn/start", "action": "close_stdout"}]
    with pytest.raises(PrepareFailed) as caught:
        await fake.session(fake.config(first.initial.thread_id), script)
    record = caught.value.record
    assert record.methods == ["thread/resume", "turn/start"]
    assert record.delivery is not None and record.delivery.status is DeliveryStatus.UNKNOWN
