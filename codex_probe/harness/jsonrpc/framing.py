"""Newline-delimited JSON-RPC framing, as codex app-server speaks it.

codex omits `"jsonrpc": "2.0"` on the wire; we accept messages with or without it
and, like codex, do not write it. Shared by the client and the fake app-server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import msgspec

RequestId = int | str
JsonObject = dict[str, Any]


class FrameError(ValueError):
    """A line that is not one well-formed JSON-RPC message; `reason` says why."""

    def __init__(self, reason: str, line: bytes) -> None:
        self.reason = reason
        self.line = line
        super().__init__(f"{reason}: {line[:200]!r}")


@dataclass(frozen=True)
class Request:
    id: RequestId
    method: str
    params: Any


@dataclass(frozen=True)
class Notification:
    method: str
    params: Any


@dataclass(frozen=True)
class Response:
    id: RequestId
    result: Any


@dataclass(frozen=True)
class ErrorResponse:
    id: RequestId | None
    code: int
    message: str
    data: Any


Message = Request | Notification | Response | ErrorResponse


# msgspec (already the fake's profile decoder) reads and writes JSON about ten times as
# fast as the json module, which was a good part of a round trip's cost. What msgspec
# refuses goes to the json module, so a line is accepted (NaN, say) or refused, with its
# error, as before, and an object msgspec cannot write fails as json.dumps does. One
# difference: a float NaN or infinity is written null, not as json's bare NaN, which no
# JSON reader, codex's included, accepts.
_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder()
_JSON_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def encode(message: JsonObject) -> bytes:
    """One message as one line of compact JSON (no embedded newlines by construction)."""
    return encode_bytes(message) + b"\n"


def encode_bytes(message: JsonObject) -> bytes:
    """One message as compact JSON in UTF-8, without the line's newline."""
    try:
        return _ENCODER.encode(message)
    except (TypeError, msgspec.EncodeError):
        return _JSON_ENCODER.encode(message).encode()


def decode_json(text: bytes | str) -> Any:
    """A JSON text's value, as the json module reads it (ValueError where it cannot), by
    msgspec where msgspec reads it: also for the transcripts and the wiretap's captures
    of model requests (a prompt of every tool's schema, each turn), which json.loads read
    in 0.6 CPU-s of a release's history."""
    try:
        return _DECODER.decode(text)
    except msgspec.DecodeError:
        return json.loads(text)


def decode(line: bytes) -> tuple[Message, JsonObject]:
    """Parse one line into a typed message and the raw object; raise FrameError if bad."""
    try:
        raw = decode_json(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise FrameError(f"not JSON ({error})", line) from None
    if not isinstance(raw, dict):
        raise FrameError(f"a JSON {type(raw).__name__}, not an object", line)
    version = raw.get("jsonrpc", "2.0")
    if version != "2.0":
        raise FrameError(f"jsonrpc is {version!r}, expected '2.0' or absent", line)
    return _classify(raw, line), raw


def _classify(raw: JsonObject, line: bytes) -> Message:
    has_id = "id" in raw
    request_id = raw.get("id")
    if has_id and request_id is not None and not isinstance(request_id, int | str):
        raise FrameError(f"id must be a number or a string, got {request_id!r}", line)
    if "method" in raw:
        method = raw["method"]
        if not isinstance(method, str):
            raise FrameError(f"method must be a string, got {method!r}", line)
        if has_id and request_id is not None:
            return Request(id=request_id, method=method, params=raw.get("params"))
        return Notification(method=method, params=raw.get("params"))
    if "error" in raw:
        error = raw["error"]
        if not isinstance(error, dict) or not isinstance(error.get("code"), int):
            raise FrameError("error must be an object with an integer code", line)
        return ErrorResponse(
            id=request_id,
            code=error["code"],
            message=str(error.get("message", "")),
            data=error.get("data"),
        )
    if "result" in raw:
        if request_id is None:
            raise FrameError("a response without an id", line)
        return Response(id=request_id, result=raw["result"])
    raise FrameError("neither a request, a notification nor a response", line)


def request_frame(request_id: RequestId, method: str, params: Any) -> JsonObject:
    frame: JsonObject = {"id": request_id, "method": method}
    if params is not None:
        frame["params"] = params
    return frame


def notification_frame(method: str, params: Any) -> JsonObject:
    frame: JsonObject = {"method": method}
    if params is not None:
        frame["params"] = params
    return frame


def response_frame(request_id: RequestId, result: Any) -> JsonObject:
    return {"id": request_id, "result": result}


def error_frame(
    request_id: RequestId | None, code: int, message: str, data: Any = None
) -> JsonObject:
    error: JsonObject = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"id": request_id, "error": error}
