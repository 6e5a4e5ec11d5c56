"""Transcripts mask secrets whichever way a message is recorded: kept as its wire text
(when nothing in it could be a secret) or decoded and masked at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codex_probe.harness.jsonrpc.framing import encode_bytes
from codex_probe.harness.jsonrpc.transcript import (
    Transcript,
    TranscriptEntry,
    mask_secrets,
    needs_masking,
    read_transcript,
)

SECRET_MESSAGES = [
    {"id": 1, "method": "login", "params": {"apiKey": "sk-live-1234567890abcdef"}},
    {"id": 1, "result": {"note": "Bearer abcdefghijkl"}},
    {"method": "auth", "params": {"headers": {"Authorization": "opaque"}}},
    {"id": 2, "result": {"jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"}},
    {"id": 3, "params": {"REFRESH_TOKEN": "r"}},
    # Escaped in the wire text: the key reads api_key only once decoded.
    {"id": 4, "params": {"api\u005fkey": "x"}},
    # Folded by case-insensitive matching outside ASCII: U+017F is a long s.
    {"id": 5, "params": {"\u017fecret": "x"}},
]


@pytest.mark.parametrize("message", SECRET_MESSAGES)
def test_a_message_with_a_secret_is_recorded_masked_from_its_wire_text(
    message: dict[str, Any],
) -> None:
    transcript = Transcript()
    transcript.record_wire("recv", encode_bytes(message).decode())
    recorded = transcript.entries[0].message
    assert recorded == mask_secrets(message)
    assert recorded != message, "each of these holds something masking changes"


def test_a_key_spelled_with_a_json_escape_is_masked() -> None:
    transcript = Transcript()
    transcript.record_wire("recv", '{"id":1,"result":{"api\\u005fkey":"sk-abcdefghijkl"}}')
    assert transcript.entries[0].message == {"id": 1, "result": {"api_key": "***"}}


def test_a_message_without_secrets_reads_back_as_sent() -> None:
    message = {"id": 7, "method": "thread/start", "params": {"cwd": "/tmp/w", "n": [1, 2.5]}}
    transcript = Transcript()
    transcript.record_wire("send", encode_bytes(message).decode())
    entry = transcript.entries[0]
    assert entry.message == message
    assert entry == TranscriptEntry("send", entry.time, message)


def test_entries_recorded_from_wire_text_are_written_masked_to_the_file(tmp_path: Path) -> None:
    transcript = Transcript(path=tmp_path / "t.jsonl")
    transcript.record_wire("send", '{"id":1,"method":"x","params":{"password":"hunter2"}}')
    transcript.record_wire("recv", '{"id":1,"result":{}}')
    text = (tmp_path / "t.jsonl").read_text()
    assert "hunter2" not in text
    entries = read_transcript(tmp_path / "t.jsonl")
    assert [e.message for e in entries] == [
        {"id": 1, "method": "x", "params": {"password": "***"}},
        {"id": 1, "result": {}},
    ]


# Text built from pieces of secrets and their near misses, so that both answers of
# needs_masking come up often.
secretish_text = st.lists(
    st.sampled_from(
        [
            "sk-",
            "abcdefgh12",
            "Bearer ",
            "eyJ",
            "abcdefghijkl.x",
            "api",
            "_",
            "-",
            "key",
            "Key",
            "passwd",
            "Token",
            "access",
            "Auth_Token",
            "id",
            "x",
            ".",
            "\n",
            "\\",
            "\u017f",
            "é",
        ]
    ),
    max_size=6,
).map("".join)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | secretish_text,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(secretish_text, children, max_size=4)
    ),
    max_leaves=12,
)


@given(st.dictionaries(secretish_text, json_values, max_size=4))
def test_text_said_to_need_no_masking_never_holds_anything_masking_would_change(
    message: dict[str, Any],
) -> None:
    for text in (encode_bytes(message).decode(), json.dumps(message)):
        if not needs_masking(text):
            assert mask_secrets(json.loads(text)) == json.loads(text)
