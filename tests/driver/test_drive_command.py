"""`codex-probe drive`: compiler -> dispatcher -> driver on a backend, reported."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from codex_probe.cli.main import main
from codex_probe.fake_appserver.profile import PROFILES_DIR
from codex_probe.harness.codex.install import Installation
from codex_probe.harness.compiler import LifecycleEvent, load_sources
from codex_probe.harness.dispatcher import build_start_config
from codex_probe.harness.jsonrpc.transcript import read_transcript
from tests.fake.conftest import copy_profile


def drive(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["drive", *args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def assert_one_fallback_thread_with_compiled_instructions(
    report: dict[str, Any], session_id: str
) -> None:
    compiled = build_start_config(
        load_sources(None), event=LifecycleEvent.WAKE, session_id=session_id, message="hi"
    )
    assert report["path"] == "fallback"
    assert report["methods"] == ["thread/resume", "thread/start", "turn/start"]
    [thread_start] = [r["params"] for r in report["requests"] if r["method"] == "thread/start"]
    assert thread_start["baseInstructions"] == compiled.base_instructions
    assert thread_start["developerInstructions"] == compiled.developer_instructions
    assert report["fallback_reason"]["message"] == f"no rollout found for thread id {session_id}"
    assert report["delivery"]["status"] == "delivered"


@pytest.mark.real
def test_drive_real_codex_with_an_unknown_session_reports_one_fallback_thread_start(
    default_codex: Installation, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session_id = str(uuid.uuid4())
    code, report = drive(
        capsys,
        "--backend",
        "real",
        "--codex",
        default_codex.version,
        "--session-id",
        session_id,
        "--message",
        "hi",
        "--out",
        str(tmp_path),
    )
    assert code == 0
    assert_one_fallback_thread_with_compiled_instructions(report, session_id)
    assert report["thread_id"] not in ("", session_id)
    assert report["model_requests"] == 1
    sent = [
        e.message.get("method")
        for e in read_transcript(Path(report["transcript"]))
        if e.direction == "send"
    ]
    assert sent == ["initialize", "initialized", "thread/resume", "thread/start", "turn/start"]


def test_drive_on_the_fake_takes_the_same_fallback_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session_id = str(uuid.uuid4())
    code, report = drive(
        capsys,
        "--backend",
        "fake",
        "--session-id",
        session_id,
        "--message",
        "hi",
        "--out",
        str(tmp_path),
    )
    assert code == 0
    assert_one_fallback_thread_with_compiled_instructions(report, session_id)


def test_drive_with_an_unknown_permission_mode_exits_2_before_starting_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "drive",
            "--backend",
            "real",
            "--codex",
            "0.0.0-never",
            "--message",
            "hi",
            "--permission-mode",
            "root",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 2
    assert "unknown permissionMode 'root'" in capsys.readouterr().err
    assert not (tmp_path / "drive").exists()


def test_drive_on_the_fake_with_a_version_it_has_no_profile_for_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "drive",
            "--backend",
            "fake",
            "--codex",
            "0.0.1",
            "--message",
            "hi",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 2
    assert "no profile for codex-cli 0.0.1" in capsys.readouterr().err


def test_drive_through_a_tool_call_turn_delivers_once_and_waits_for_the_turn_to_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = drive(
        capsys,
        "--backend",
        "fake",
        "--reply",
        "tool-call",
        "--message",
        "hi",
        "--out",
        str(tmp_path),
    )
    assert code == 0
    assert report["reply"] == "tool-call"
    assert report["methods"] == ["thread/start", "turn/start"]
    assert [turn["status"] for turn in report["completed_turns"]] == ["completed"]
    assert report["model_requests"] == 2  # the call, then the answer after its output
    received = [e.message for e in read_transcript(Path(report["transcript"]))]
    commands = [
        m["params"]["item"]
        for m in received
        if isinstance(m, dict)
        and m.get("method") == "item/completed"
        and m["params"]["item"]["type"] == "commandExecution"
    ]
    assert [item["exitCode"] for item in commands] == [0]


def test_drive_through_a_turn_that_never_completes_fails_at_its_deadline_without_a_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = drive(
        capsys,
        *("--backend", "fake", "--reply", "held", "--message", "hi"),
        *("--turn-timeout", "1", "--out", str(tmp_path)),
    )
    assert code == 1
    assert "turn/completed did not arrive within" in report["error"]
    assert report["methods"] == ["thread/start", "turn/start"]
    assert report["delivery"]["status"] == "delivered"
    assert report["completed_turns"] == []
    assert report["returncode"] is not None  # the process was ended, not left running
    sent = [
        e.message.get("method")
        for e in read_transcript(Path(report["transcript"]))
        if e.direction == "send"
    ]
    assert sent.count("turn/start") == 1 and "turn/steer" not in sent


@pytest.mark.real
def test_drive_real_codex_through_a_tool_call_turn_completes_it(
    default_codex: Installation, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = drive(
        capsys,
        *("--backend", "real", "--codex", default_codex.version, "--reply", "tool-call"),
        *("--message", "hi", "--out", str(tmp_path)),
    )
    assert code == 0, report.get("error")
    assert [turn["status"] for turn in report["completed_turns"]] == ["completed"]
    assert report["model_requests"] == 2


def test_drive_on_the_fake_imitates_the_profile_file_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The 0.120.0 profile, as a file: thread/start answers with 0.120.0's fields.
    (tmp_path / "learned").mkdir()
    profile = copy_profile("0.120.0", tmp_path / "learned")
    code, report = drive(
        capsys,
        "--backend",
        "fake",
        "--fake-profile",
        str(profile),
        "--message",
        "hi",
        "--out",
        str(tmp_path / "out"),
    )
    assert code == 0, report
    assert report["codex"] == "0.120.0"  # the profile's release, without --codex
    answers = [
        entry.message["result"]
        for entry in read_transcript(Path(report["transcript"]))
        if entry.direction == "recv" and "thread" in (entry.message.get("result") or {})
    ]
    wire = json.loads((PROFILES_DIR / "wire-0.120.0.json").read_text())
    assert set(answers[0]) == set(wire["templates"]["thread_start"])


def test_drive_refuses_a_fake_profile_of_another_release_than_codex_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "learned").mkdir()
    profile = copy_profile("0.120.0", tmp_path / "learned")
    code = main(
        [
            *("drive", "--backend", "fake", "--codex", "0.171.0"),
            *("--fake-profile", str(profile), "--message", "hi", "--out", str(tmp_path / "out")),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"--fake-profile {profile} imitates codex-cli 0.120.0, not --codex 0.171.0" in err
    assert not (tmp_path / "out").exists()


def test_drive_with_a_fake_profile_on_the_real_backend_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "drive",
            "--backend",
            "real",
            "--fake-profile",
            "x.json",
            "--message",
            "hi",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 2
    assert "--fake-profile needs --backend fake" in capsys.readouterr().err


def test_drive_on_a_broken_fake_profile_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "0.171.0.json"
    broken.write_text("{")
    code = main(
        [
            "drive",
            "--backend",
            "fake",
            "--fake-profile",
            str(broken),
            "--message",
            "hi",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert f"{broken}: invalid JSON at line 1" in err and len(err.strip().splitlines()) == 1
