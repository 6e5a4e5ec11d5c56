"""Validate a whole JSON-RPC transcript: both directions, responses matched to requests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from codex_probe.harness.codex.validator import Kind, MessageValidator, Violation
from codex_probe.harness.jsonrpc.transcript import TranscriptEntry


def validate_transcript(
    validator: MessageValidator, entries: list[TranscriptEntry]
) -> list[Violation]:
    """Every violation in the transcript, each naming its entry number (1-based)."""
    client_requests: dict[Any, str] = {}
    server_requests: dict[Any, str] = {}
    violations: list[Violation] = []
    for number, entry in enumerate(entries, start=1):
        message = entry.message
        if entry.direction == "malformed":
            violations.append(
                Violation(
                    "server frame",
                    None,
                    "(line)",
                    str(message.get("reason")) if isinstance(message, dict) else "malformed",
                    number,
                )
            )
            continue
        if not isinstance(message, dict):
            violations.append(Violation("message", None, "(message)", "not a JSON object", number))
            continue
        sent = entry.direction == "send"
        kind, method = _classify(message, sent, client_requests, server_requests)
        for violation in validator.check(kind, message, method=method):
            violations.append(replace(violation, entry=number))
    return violations


def _classify(
    message: dict[str, Any],
    sent: bool,
    client_requests: dict[Any, str],
    server_requests: dict[Any, str],
) -> tuple[Kind, str | None]:
    side = "client" if sent else "server"
    if "method" in message:
        if message.get("id") is not None:
            (client_requests if sent else server_requests)[message["id"]] = message["method"]
            return ("client request" if sent else "server request"), message["method"]
        return ("client notification" if sent else "server notification"), message["method"]
    # A response answers a request from the other side.
    answered = server_requests if sent else client_requests
    kind: Kind = "client response" if side == "client" else "server response"
    return kind, answered.get(message.get("id"))
