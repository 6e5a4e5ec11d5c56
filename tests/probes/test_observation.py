"""Normalizing what the model saw: markers located, codex's blocks classified."""

from __future__ import annotations

from typing import Any

from codex_probe.probes.domain.reading import (
    label_text,
    locate,
    marker,
    normalized_request,
    request_kind,
)


def message(role: str, *texts: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": role,
        "content": [{"type": "input_text", "text": t} for t in texts],
    }


BODY = {
    "instructions": f"{marker('BASE-V1')}: be brief",
    "input": [
        message("developer", "<permissions instructions>\nsandbox...", f"{marker('DEV-V1')} x"),
        message("user", "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
        message("user", f"{marker('USER-1')} hello"),
        message("assistant", "sure"),
    ],
    "tools": [{"type": "function", "name": "shell"}],
}


def test_markers_are_located_by_field_item_role_and_part() -> None:
    assert [loc.describe() for loc in locate(BODY, "BASE-V1")] == ["top-level instructions field"]
    assert [loc.describe() for loc in locate(BODY, "DEV-V1")] == ["input[0] role=developer part 1"]
    assert locate(BODY, "BASE-V2") == []


def test_codex_blocks_are_classified_rather_than_compared_byte_for_byte() -> None:
    normalized = normalized_request(BODY)
    assert normalized["instructions"] == "BASE-V1"
    assert normalized["input"] == [
        {"role": "developer", "parts": ["codex:permissions", "DEV-V1"]},
        {"role": "user", "parts": ["codex:environment_context"]},
        {"role": "user", "parts": ["USER-1"]},
        {"role": "assistant", "parts": ["reply"]},
    ]
    assert normalized["tools"] is True and normalized["kind"] == "turn"


def test_a_codex_block_quoting_our_marker_keeps_both_labels() -> None:
    summary = f"Another language model started to solve this problem ... {marker('USER-2')}"
    assert label_text(summary) == "codex:compaction_summary[USER-2]"


def test_compaction_requests_are_recognized_in_both_forms() -> None:
    local = {"input": [message("user", "You are performing a CONTEXT CHECKPOINT COMPACTION. x")]}
    remote = {"input": [message("user", "x"), {"type": "compaction_trigger"}]}
    assert request_kind("/v1/responses", local) == "compaction"
    assert request_kind("/v1/responses", remote) == "compaction"
    assert request_kind("/v1/responses/compact", {"input": []}) == "compaction"
    assert request_kind("/v1/responses", BODY) == "turn"
