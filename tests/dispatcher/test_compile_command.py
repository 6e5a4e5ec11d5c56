"""`codex-probe compile`, through the command's entry point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.cli.main import COMMAND_MODULES, main
from codex_probe.harness.compiler import Slot, compile_turn_context, load_sources
from codex_probe.harness.dispatcher import thread_contract_fingerprint
from tests.compiler.marked_sources import copy_default_sources

USAGE_ERROR = 2


def compile_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["compile", *args, "--json"]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def compile_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["compile", *args]) == USAGE_ERROR
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


def reference_texts(event: str) -> list[str]:
    turn = compile_turn_context(load_sources(), event)
    return [block.text for block in turn.slot_blocks(Slot.REFERENCE)]


def test_compile_is_a_registered_subcommand() -> None:
    assert "codex_probe.cli.commands.compile" in COMMAND_MODULES


def test_fresh_start_prints_instructions_and_fresh_prompt_and_no_resume_prompt(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = compile_json(capsys, "--event", "fresh_start")
    config = report["start_config"]
    assert config["base_instructions"]
    assert config["developer_instructions"]
    assert config["fresh_prompt"]
    assert config["resume_prompt"] == ""
    assert report["resume"]["reason"] == "no_session"
    assert len(report["fingerprint"]) == 64


def test_wake_with_the_printed_fingerprint_keeps_the_session_and_a_lean_resume_prompt(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fingerprint = compile_json(capsys, "--event", "fresh_start")["fingerprint"]
    report = compile_json(
        capsys,
        "--event",
        "wake",
        "--session-id",
        "thread-7",
        "--fingerprint",
        fingerprint,
    )
    assert report["resume"] == {
        "stored_session_id": "thread-7",
        "session_id": "thread-7",
        "kept": True,
        "reason": "kept",
        "detail": report["resume"]["detail"],
    }
    config = report["start_config"]
    assert config["session_id"] == "thread-7"
    assert config["resume_prompt"]
    for reference in reference_texts("wake"):
        assert reference not in config["resume_prompt"]
        assert reference in config["fresh_prompt"]


def test_changing_agents_md_in_a_copy_of_the_sources_clears_the_session_with_a_reason(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    sources = copy_default_sources(tmp_path / "sources")
    fingerprint = compile_json(capsys, "--sources", str(sources), "--event", "fresh_start")[
        "fingerprint"
    ]
    agents_md = sources / "AGENTS.md"
    agents_md.write_text(agents_md.read_text() + "\n- Never deploy on Fridays.\n")
    report = compile_json(
        capsys,
        "--sources",
        str(sources),
        "--event",
        "wake",
        "--session-id",
        "thread-7",
        "--fingerprint",
        fingerprint,
    )
    assert report["resume"]["kept"] is False
    assert report["resume"]["reason"] == "fingerprint_changed"
    assert report["resume"]["session_id"] == ""
    assert report["fingerprint"] != fingerprint
    assert report["start_config"]["session_id"] == ""
    assert report["start_config"]["resume_prompt"] == ""
    assert "Never deploy on Fridays." in report["start_config"]["developer_instructions"]


def test_a_legacy_mcp_suffix_on_the_given_fingerprint_still_keeps_the_session(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fingerprint = compile_json(capsys, "--event", "fresh_start")["fingerprint"]
    report = compile_json(
        capsys,
        "--event",
        "idle",
        "--session-id",
        "t",
        "--fingerprint",
        f"{fingerprint}:mcp:9f8e",
    )
    assert report["resume"]["reason"] == "kept"
    assert "Nothing to do — just stop." in report["start_config"]["resume_prompt"]


def test_a_session_without_fingerprint_is_cleared_as_legacy(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = compile_json(capsys, "--event", "wake", "--session-id", "old-thread")
    assert report["resume"]["reason"] == "legacy_session_without_fingerprint"
    assert report["start_config"]["session_id"] == ""


def test_a_session_of_another_runtime_is_cleared_as_a_policy_mismatch(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fingerprint = compile_json(capsys, "--event", "fresh_start")["fingerprint"]
    report = compile_json(
        capsys,
        "--event",
        "wake",
        "--session-id",
        "t",
        "--fingerprint",
        fingerprint,
        "--session-runtime",
        "claude",
    )
    assert report["resume"]["reason"] == "runtime_policy_mismatch"


@pytest.mark.parametrize("runtime", ["claude", "opencode"])
def test_non_split_runtime_prints_the_full_prompt_only(
    capsys: pytest.CaptureFixture[str],
    runtime: str,
) -> None:
    config = compile_json(capsys, "--event", "wake", "--runtime", runtime, "--message", "hello")[
        "start_config"
    ]
    assert config["prompt"].endswith("## Current message\n\nhello")
    assert (config["base_instructions"], config["fresh_prompt"]) == ("", "")


def test_human_output_names_the_fingerprint_and_the_resume_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["compile", "--event", "wake", "--session-id", "t"]) == 0
    out = capsys.readouterr().out
    assert f"fingerprint: {thread_contract_fingerprint(load_sources())}" in out
    assert "resume: legacy_session_without_fingerprint:" in out
    assert "--- base_instructions (" in out
    assert "--- resume_prompt (0 chars) ---\n(empty)" in out


def test_an_unknown_event_is_a_one_line_error_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = compile_error(capsys, "--event", "hibernate")
    assert err.count("\n") == 1
    assert "unknown event 'hibernate'" in err


def test_an_unknown_runtime_is_a_one_line_error_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = compile_error(capsys, "--event", "wake", "--runtime", "gemini")
    assert err.count("\n") == 1
    assert "unknown runtime 'gemini'" in err


def test_a_sources_folder_with_a_missing_file_is_a_one_line_error_naming_it(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    sources = copy_default_sources(tmp_path / "sources")
    (sources / "event_wake.md").unlink()
    err = compile_error(capsys, "--sources", str(sources), "--event", "wake")
    assert err.count("\n") == 1
    assert f"missing source file {sources / 'event_wake.md'}" in err


def test_a_sources_folder_with_an_unreadable_file_is_a_one_line_error_naming_it(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    sources = copy_default_sources(tmp_path / "sources")
    (sources / "capabilities.md").write_bytes(b"\xc3\x28 not utf-8")
    err = compile_error(capsys, "--sources", str(sources), "--event", "wake")
    assert err.count("\n") == 1
    assert f"source file {sources / 'capabilities.md'} is not UTF-8" in err


def test_a_message_for_the_idle_event_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = compile_error(capsys, "--event", "idle", "--message", "hello")
    assert err == "codex-probe compile: event idle carries no message\n"
