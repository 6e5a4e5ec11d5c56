"""drive_once keeps what it did when the turns do not end: the thread it prepared, the
requests it sent, the delivery of the message; and `codex-probe drive` reports them."""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from codex_probe.cli.commands import drive
from codex_probe.cli.main import main
from codex_probe.fake_appserver.launcher import write_launcher
from codex_probe.harness.compiler import LifecycleEvent, load_sources
from codex_probe.harness.dispatcher import build_start_config
from codex_probe.harness.driver import DeliveryStatus, PreparePath, SettleFailed, drive_once
from codex_probe.harness.driver.drive import DriveSettleFailed
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.wiretap import Wiretap

NEVER_ENDING_TURN = '{"method": "turn/start", "action": "never_complete"}\n'


@pytest.fixture
async def home(tmp_path: Path) -> AsyncIterator[IsolatedHome]:
    async with Wiretap() as tap:
        with IsolatedHome(tap.base_url, parent_dir=tmp_path) as isolated:
            yield isolated


async def test_when_the_turn_never_ends_run_session_still_gives_the_prepared_threads_record(
    home: IsolatedHome, tmp_path: Path
) -> None:
    script = tmp_path / "faults.jsonl"
    script.write_text(NEVER_ENDING_TURN)
    launcher = write_launcher(tmp_path / "bin", profile="0.171.0", script=script)
    config = build_start_config(
        load_sources(None),
        event=LifecycleEvent.FRESH_START,
        message="hi",
        work_dir=str(home.workdir),
    )
    with pytest.raises(SettleFailed) as caught:  # still a SettleFailed, for older callers
        await drive_once(
            launcher, config, env=home.env(), cwd=home.workdir, request_timeout=20, turn_timeout=1
        )
    assert isinstance(caught.value, DriveSettleFailed)
    result = caught.value.result
    initial = result.initial
    assert initial.path is PreparePath.FRESH
    assert initial.methods == ["thread/start", "turn/start"]
    assert initial.thread_id
    assert initial.delivery is not None and initial.delivery.status is DeliveryStatus.DELIVERED
    assert result.completed_turns == []
    assert result.returncode is not None  # the process was ended before the error was raised
    assert "turn/completed did not arrive" in str(caught.value)


def test_drive_reports_the_prepared_thread_when_its_turn_never_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "faults.jsonl"
    script.write_text(NEVER_ENDING_TURN)
    monkeypatch.setattr(drive, "write_launcher", functools.partial(write_launcher, script=script))
    code = main(
        [
            *("drive", "--backend", "fake", "--message", "hi"),
            *("--turn-timeout", "1", "--json", "--out", str(tmp_path / "out")),
        ]
    )
    captured = capsys.readouterr()
    report: dict[str, Any] = json.loads(captured.out)
    assert code == 1
    assert report["path"] == "fresh"
    assert report["methods"] == ["thread/start", "turn/start"]
    assert report["thread_id"]
    assert report["delivery"]["status"] == "delivered"
    assert report["completed_turns"] == []
    assert "settling stopped after 0 completed turn(s)" in report["error"]
